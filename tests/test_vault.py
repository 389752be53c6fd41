from __future__ import annotations

import hashlib
import os
import shutil
import stat
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from vaultmem import faults
from vaultmem.errors import (
    AmbiguousNote,
    InvalidYaml,
    LockTimeout,
    NoteExists,
    NoteNotFound,
    NotUtf8,
    UnsafePath,
    WriteFailed,
)
from vaultmem.notes.patch import CONFLICT_HEADING, SectionPatch, SetProperty
from vaultmem.notes.textio import TextFormat
from vaultmem.store import flux
from vaultmem.store import vault as vault_mod
from vaultmem.store.vault import Vault

SESSION = (
    "---\n"
    "type: session\n"
    "project: demo\n"
    "status: active  # keep this comment\n"
    "---\n"
    "# Session\n"
    "\n"
    "## Context\n"
    "\n"
    "Working on auth.\n"
    "\n"
    "## Work Log\n"
    "\n"
    "- first entry\n"
    "\n"
    "## Next Steps\n"
    "\n"
    "- ship it\n"
)
REL = "claude/projects/demo/sessions/2026-11-22-auth.md"


@pytest.fixture
def vault(vault_root: Path) -> Vault:
    return Vault(vault_root)


@pytest.fixture
def note(vault: Vault) -> Path:
    path = vault.root / REL
    path.parent.mkdir(parents=True)
    path.write_bytes(SESSION.encode())
    return path


@pytest.fixture(autouse=True)
def _disarm() -> Iterator[None]:
    yield
    faults.disarm()


def _append(line: str, heading: str = "Work Log") -> SectionPatch:
    return SectionPatch(heading=(heading,), op="append", content=line)


def _temp_files(folder: Path) -> list[Path]:
    return [p for p in folder.rglob("*") if p.name.endswith(".vmtmp")]


def _person_edits(path: Path, old: str, new: str) -> None:
    """What Obsidian does: rewrite the file in place."""
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new))


# -- paths ---------------------------------------------------------------------------------


def test_construction_writes_nothing(vault_root: Path) -> None:
    Vault(vault_root)
    assert list(vault_root.iterdir()) == []


def test_abspath_and_rel_are_inverse(vault: Vault) -> None:
    path = vault.abspath("a/./b//c.md")
    assert path == vault.root / "a" / "b" / "c.md"
    assert vault.rel(path) == "a/b/c.md"


@pytest.mark.parametrize(
    "rel",
    ["../x.md", "a/../../x.md", "a/../b.md", "/etc/passwd", "", ".", "a\x00b.md", "a\\..\\x.md"],
)
def test_abspath_refuses_escapes(vault: Vault, rel: str) -> None:
    with pytest.raises(UnsafePath):
        vault.abspath(rel)


def test_abspath_refuses_a_symlink_out_of_the_vault(vault: Vault, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text("secret\n")
    (vault.root / "link").symlink_to(outside)
    (vault.root / "inner").mkdir()
    (vault.root / "alias").symlink_to(vault.root / "inner")
    with pytest.raises(UnsafePath) as info:
        vault.read("link/secret.md")
    assert "outside the vault" in str(info.value)
    assert vault.abspath("alias/x.md") == vault.root / "alias" / "x.md"


def test_rel_refuses_paths_outside(vault: Vault, tmp_path: Path) -> None:
    with pytest.raises(UnsafePath):
        vault.rel(tmp_path / "elsewhere.md")


# -- reading -------------------------------------------------------------------------------


def test_read_gives_text_and_fingerprint(vault: Vault, note: Path) -> None:
    got = vault.read(REL)
    st = os.stat(note)
    assert got.rel == REL
    assert got.text == SESSION
    assert got.fingerprint.mtime_ns == st.st_mtime_ns
    assert got.fingerprint.size == st.st_size == len(SESSION.encode())
    assert got.fingerprint.sha256 == hashlib.sha256(SESSION.encode()).hexdigest()
    assert got.lines == SESSION.count("\n")
    assert got.frontmatter()["status"] == "active"
    assert vault.fingerprint(REL) == got.fingerprint
    assert vault.exists(REL)


def test_read_missing_names_the_note_and_vault(vault: Vault) -> None:
    with pytest.raises(NoteNotFound) as info:
        vault.read("nope.md")
    assert "nope.md" in str(info.value) and str(vault.root) in str(info.value)
    assert vault.fingerprint("nope.md") is None
    assert not vault.exists("nope.md")


def test_read_not_utf8_names_the_note(vault: Vault) -> None:
    (vault.root / "bin.md").write_bytes(b"ok\n\xff\xfe\n")
    with pytest.raises(NotUtf8) as info:
        vault.read("bin.md")
    assert info.value.path == "bin.md"


def test_read_does_not_parse_yaml(vault: Vault) -> None:
    (vault.root / "bad.md").write_text("---\nkey: [unclosed\n---\nbody\n")
    got = vault.read("bad.md")
    with pytest.raises(InvalidYaml):
        got.frontmatter()


# -- update --------------------------------------------------------------------------------


def test_update_without_base(vault: Vault, note: Path) -> None:
    result = vault.update(REL, [_append("- second entry")])
    assert (result.status, result.changed) == ("written", True)
    text = note.read_text()
    assert "- first entry\n- second entry\n\n## Next Steps" in text
    assert text.startswith(SESSION.split("## Work Log")[0])


def test_update_with_an_unmoved_base(vault: Vault, note: Path) -> None:
    base = vault.read(REL)
    result = vault.update(REL, [_append("- second entry")], base=base)
    assert result.status == "written"
    assert note.read_text().count("- second entry") == 1


def test_update_reports_created_headings(vault: Vault, note: Path) -> None:
    edit = SectionPatch(heading=("Open Questions",), op="append", content="- why?", create=True)
    result = vault.update(REL, [edit])
    assert result.created_headings == ("Open Questions",)
    assert "## Open Questions" in note.read_text()


def test_second_writer_then_append_is_rebased(vault: Vault, note: Path) -> None:
    base = vault.read(REL)
    _person_edits(note, "Working on auth.", "Working on auth and the refresh token.")
    result = vault.update(REL, [_append("- Claude's entry")], base=base)
    assert result.status == "rebased"
    text = note.read_text()
    assert text.count("Working on auth and the refresh token.") == 1
    assert text.count("- Claude's entry") == 1
    assert "Working on auth.\n" not in text


def test_second_writer_then_replace_is_conflicted(vault: Vault, note: Path) -> None:
    base = vault.read(REL)
    _person_edits(note, "- ship it", "- ship it on Monday")
    replace = SectionPatch(heading=("Next Steps",), op="replace", content="- Claude's plan")
    result = vault.update(REL, [replace], base=base, label="session end")
    assert result.status == "conflicted"
    text = note.read_text()
    assert "## Next Steps\n\n- ship it on Monday\n" in text
    conflict = text.index(f"## {CONFLICT_HEADING}")
    assert text.index("- Claude's plan") > conflict
    assert "session end" in text[conflict:]


def test_base_moved_and_section_removed_keeps_claudes_text(vault: Vault, note: Path) -> None:
    base = vault.read(REL)
    _person_edits(note, "## Work Log\n\n- first entry\n\n", "")
    result = vault.update(REL, [_append("- Claude's entry")], base=base)
    assert result.status == "conflicted"
    text = note.read_text()
    assert text.index("- Claude's entry") > text.index(f"## {CONFLICT_HEADING}")


def _person_saves_at_each_write(monkeypatch: pytest.MonkeyPatch, note: Path,
                                 saves: int) -> list[str]:
    """A person's save lands in ``note`` just before each of vaultmem's next ``saves``
    replaces (at its last look): each attempt finds the note changed and is redone."""
    saved: list[str] = []
    real = faults.checkpoint

    def checkpoint(name: str) -> None:
        if name == "write" and len(saved) < saves:
            saved.append(f"- person line {len(saved)}")
            with note.open("a") as handle:
                handle.write(saved[-1] + "\n")
        real(name)

    monkeypatch.setattr(faults, "checkpoint", checkpoint)
    return saved


def test_a_note_changing_more_often_than_the_retries_is_written_within_the_time(
        vault: Vault, note: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """More changes than RACE_RETRIES inside RACE_SECONDS (a loaded machine, an editor saving
    every 200 ms): vaultmem keeps trying, and nothing is lost."""
    monkeypatch.setattr(vault_mod, "RACE_SECONDS", 600.0, raising=False)
    saved = _person_saves_at_each_write(monkeypatch, note, vault_mod.RACE_RETRIES + 3)
    result = vault.update(REL, [_append("- Claude's entry")])
    assert result.status == "rebased"
    text = note.read_text()
    assert len(saved) == vault_mod.RACE_RETRIES + 3
    assert all(text.count(line + "\n") == 1 for line in saved)
    assert text.count("- Claude's entry") == 1


def test_a_whole_save_seen_at_the_last_look_is_redone_on_at_once(
        vault: Vault, note: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A person's whole save lands just before each replace: the next attempt starts from the
    note the last look read, without settling and reading it again (on a loaded machine an
    editor saving every 0.2 s saved again meanwhile, and nearly every attempt lost)."""
    settled: list[Path] = []
    settle = flux.settle

    def counted(path: Path, last: flux.Stamp | None) -> bool:
        settled.append(path)
        return settle(path, last)

    monkeypatch.setattr(flux, "settle", counted)
    saved = _person_saves_at_each_write(monkeypatch, note, 3)
    result = vault.update(REL, [_append("- Claude's entry")])
    assert result.status == "rebased"
    assert len(settled) == 1  # the first read only
    text = note.read_text()
    assert all(text.count(line + "\n") == 1 for line in saved) and len(saved) == 3
    assert text.count("- Claude's entry") == 1


def test_a_note_that_never_stops_changing_fails_after_the_retries(
        vault: Vault, note: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Past RACE_SECONDS and RACE_RETRIES attempts: LockTimeout, the person's lines kept."""
    monkeypatch.setattr(vault_mod, "RACE_SECONDS", 0.0, raising=False)
    saved = _person_saves_at_each_write(monkeypatch, note, 1000)
    with pytest.raises(LockTimeout, match="kept changing during 5 attempts"):
        vault.update(REL, [_append("- Claude's entry")])
    text = note.read_text()
    assert len(saved) == vault_mod.RACE_RETRIES
    assert all(line in text for line in saved) and "- Claude's entry" not in text


def test_touched_without_change_is_not_a_conflict(vault: Vault, note: Path) -> None:
    base = vault.read(REL)
    os.utime(note, ns=(base.fingerprint.mtime_ns + 10**9, base.fingerprint.mtime_ns + 10**9))
    replace = SectionPatch(heading=("Next Steps",), op="replace", content="- new plan")
    result = vault.update(REL, [replace], base=base)
    assert result.status == "written"
    assert CONFLICT_HEADING not in note.read_text()


def test_same_size_rewrite_by_vaultmem_is_detected(vault: Vault, note: Path) -> None:
    """Another writer's atomic replace keeps size and (forced) mtime: the inode tells."""
    base = vault.read(REL)
    other = Vault(vault.root)
    other.write_text(REL, SESSION.replace("first entry", "FIRST ENTRY"))
    ns = base.fingerprint.mtime_ns
    os.utime(note, ns=(ns, ns))
    result = vault.update(REL, [_append("- mine")], base=base)
    assert result.status == "rebased"
    assert "- FIRST ENTRY\n- mine\n" in note.read_text()


def test_unchanged_write_is_skipped(vault: Vault, note: Path) -> None:
    os.utime(note, ns=(1_000_000_000, 1_000_000_000))
    before = note.stat()
    result = vault.update(REL, [SetProperty("status", "active")])
    assert (result.status, result.changed) == ("unchanged", False)
    after = note.stat()
    assert (after.st_mtime_ns, after.st_ino) == (before.st_mtime_ns, before.st_ino)


def test_no_edits_is_unchanged(vault: Vault, note: Path) -> None:
    assert vault.update(REL, []).status == "unchanged"


def test_dry_run_writes_nothing_and_shows_a_diff(vault: Vault, note: Path) -> None:
    result = vault.update(REL, [_append("- planned")], dry_run=True)
    assert (result.status, result.changed) == ("dry-run", True)
    assert "+- planned" in result.diff and f"b/{REL}" in result.diff
    assert note.read_text() == SESSION
    assert not vault.state_dir.exists()  # no lock taken either


def test_diff_only_when_asked(vault: Vault, note: Path) -> None:
    assert vault.update(REL, [_append("- a")]).diff == ""
    assert "+- b" in vault.update(REL, [_append("- b")], want_diff=True).diff


@pytest.mark.parametrize(
    "fmt", [TextFormat(bom=True), TextFormat(newline="\r\n"), TextFormat(True, "\r\n")]
)
def test_bom_and_crlf_are_kept(vault: Vault, note: Path, fmt: TextFormat) -> None:
    raw = SESSION.replace("\n", fmt.newline).encode()
    note.write_bytes(b"\xef\xbb\xbf" + raw if fmt.bom else raw)
    vault.update(REL, [_append("- crlf entry")])
    expected = SESSION.replace("- first entry\n", "- first entry\n- crlf entry\n")
    expected_raw = expected.replace("\n", fmt.newline).encode()
    assert note.read_bytes() == (b"\xef\xbb\xbf" + expected_raw if fmt.bom else expected_raw)


def test_file_mode_is_kept(vault: Vault, note: Path) -> None:
    note.chmod(0o600)
    vault.update(REL, [_append("- private")])
    assert stat.S_IMODE(note.stat().st_mode) == 0o600


def test_injected_enospc_leaves_the_note_untouched(vault: Vault, note: Path) -> None:
    faults.arm("write", "enospc")
    with pytest.raises(WriteFailed) as info:
        vault.update(REL, [_append("- lost?")])
    assert REL in str(info.value) and "No space left" in str(info.value)
    assert note.read_bytes() == SESSION.encode()
    assert _temp_files(vault.root) == []


def test_injected_enospc_on_create(vault: Vault) -> None:
    faults.arm("write", "enospc")
    with pytest.raises(WriteFailed):
        vault.create("new.md", "x\n")
    assert not (vault.root / "new.md").exists()
    assert _temp_files(vault.root) == []


def _without_privileges(fn: Callable[[], str]) -> str:
    """Run ``fn`` as a user that file permissions apply to (root ignores them): in a forked
    child that drops to ``nobody`` when the tests run as root."""
    if os.geteuid() != 0:
        return fn()
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:  # child: report through the pipe, never return into pytest
        code = 0
        try:
            os.close(read_fd)
            os.setgid(65534)
            os.setuid(65534)
            out = fn()
        except BaseException as err:  # noqa: BLE001 - reported to the parent
            out, code = f"child error: {err!r}", 1
        os.write(write_fd, out.encode())
        os._exit(code)
    os.close(write_fd)
    with os.fdopen(read_fd, "rb") as pipe:
        out = pipe.read().decode()
    os.waitpid(pid, 0)
    return out


@pytest.fixture
def open_tmp() -> Iterator[Path]:
    """A folder the unprivileged child can reach (pytest's tmp folders are private to root)."""
    folder = Path(tempfile.mkdtemp(prefix="vaultmem-ro-"))
    folder.chmod(0o755)
    yield folder
    for path in [folder, *folder.rglob("*")]:
        if path.is_dir() and not path.is_symlink():
            path.chmod(0o755)
    shutil.rmtree(folder)


@pytest.mark.parametrize("locks_writable", [False, True])
def test_read_only_folder_is_a_clear_write_failure(open_tmp: Path, locks_writable: bool) -> None:
    root = open_tmp / "vault"
    (root / "notes").mkdir(parents=True)
    path = root / "notes" / "n.md"
    path.write_text(SESSION)
    path.chmod(0o666)
    if locks_writable:  # so the failure comes from the temp file in the note's folder
        (root / ".vaultmem" / "locks").mkdir(parents=True)
        for p in (root / ".vaultmem", root / ".vaultmem" / "locks"):
            p.chmod(0o777)
    (root / "notes").chmod(0o555)
    root.chmod(0o555)

    def attempt() -> str:
        try:
            Vault(root).update("notes/n.md", [_append("- x")])
        except WriteFailed as err:
            return "WriteFailed: " + str(err)
        return "no error"

    out = _without_privileges(attempt)
    assert out.startswith("WriteFailed: notes/n.md: ")
    assert "read-only" in out and "unchanged" in out
    assert path.read_text() == SESSION
    assert _temp_files(root) == []


def test_invalid_yaml_is_never_rewritten(vault: Vault) -> None:
    raw = b"---\ntitle: [broken\n---\n## Work Log\n\n- a\n"
    (vault.root / "bad.md").write_bytes(raw)
    with pytest.raises(InvalidYaml) as info:
        vault.update("bad.md", [_append("- b")])
    assert info.value.path == "bad.md"
    assert (vault.root / "bad.md").read_bytes() == raw
    base = vault.read("bad.md")
    with pytest.raises(InvalidYaml):
        vault.update("bad.md", [_append("- b")], base=base)
    assert (vault.root / "bad.md").read_bytes() == raw


def test_update_of_a_missing_note(vault: Vault) -> None:
    with pytest.raises(NoteNotFound):
        vault.update("missing.md", [_append("- x")])


def test_update_of_a_note_deleted_since_base(vault: Vault, note: Path) -> None:
    base = vault.read(REL)
    note.unlink()
    with pytest.raises(NoteNotFound):
        vault.update(REL, [_append("- x")], base=base)


# -- locks ---------------------------------------------------------------------------------


def test_lock_is_exclusive_and_times_out_naming_the_note(vault: Vault) -> None:
    other = Vault(vault.root)
    with vault.lock("a/b.md"):
        assert (vault.state_dir / "locks").is_dir()
        # Case-insensitive: "A/B.md" is the same lock.
        with pytest.raises(LockTimeout) as info, other.lock("A/B.md", timeout=0.05):
            pass
        assert info.value.path == "A/B.md"
        with vault.lock("a/b.md", timeout=0.05):  # re-entrant within one Vault
            pass
    with other.lock("a/b.md", timeout=1):
        pass


# -- create, write_text, remove ------------------------------------------------------------


def test_create_makes_folders_and_a_normal_mode(vault: Vault) -> None:
    old = os.umask(0o022)
    try:
        result = vault.create("x/y/New.md", "hello\n")
    finally:
        os.umask(old)
    assert (result.status, result.changed) == ("created", True)
    path = vault.root / "x/y/New.md"
    assert path.read_text() == "hello\n"
    assert stat.S_IMODE(path.stat().st_mode) == 0o644


def test_create_refuses_existing_and_twins(vault: Vault) -> None:
    vault.create("e/Auth.md", "a\n")
    with pytest.raises(NoteExists):
        vault.create("e/Auth.md", "b\n")
    with pytest.raises(NoteExists) as info:
        vault.create("e/auth.md", "a\n")
    assert "e/auth.md" in str(info.value) and "e/Auth.md" in str(info.value)
    assert vault.create("e/Auth.md", "a\n", exist_ok=True).status == "unchanged"
    with pytest.raises(NoteExists):
        vault.create("e/Auth.md", "different\n", exist_ok=True)
    assert sorted(p.name for p in (vault.root / "e").iterdir()) == ["Auth.md"]


def test_write_text(vault: Vault, note: Path) -> None:
    base = vault.read(REL)
    new = SESSION + "\nmore\n"
    result = vault.write_text(REL, new, fmt=base.fmt, expected=base.fingerprint)
    assert (result.status, result.changed) == ("written", True)
    assert note.read_text() == new
    # The note moved since `base`: nothing is written.
    result = vault.write_text(REL, "other\n", expected=base.fingerprint)
    assert (result.status, result.changed) == ("conflicted", False)
    assert note.read_text() == new
    assert vault.write_text(REL, new).status == "unchanged"
    assert vault.write_text("arch/new.md", "x\n").status == "created"
    with pytest.raises(NoteExists):
        vault.write_text("arch/NEW.md", "x\n")


def test_write_text_keeps_crlf_when_asked(vault: Vault) -> None:
    vault.write_text("c.md", "a\nb\n", fmt=TextFormat(newline="\r\n"))
    assert (vault.root / "c.md").read_bytes() == b"a\r\nb\r\n"


def test_write_through_a_symlinked_note_keeps_the_link(vault: Vault, note: Path) -> None:
    (vault.root / "link.md").symlink_to(note)
    vault.update("link.md", [_append("- via link")])
    assert (vault.root / "link.md").is_symlink()
    assert "- via link" in note.read_text()


def test_remove(vault: Vault, note: Path) -> None:
    vault.remove(REL)
    assert not note.exists()
    with pytest.raises(NoteNotFound):
        vault.remove(REL)


# -- listing and resolving -----------------------------------------------------------------


def _touch(vault: Vault, *rels: str) -> None:
    for rel in rels:
        path = vault.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("x\n")


def test_iter_notes(vault: Vault, tmp_path: Path) -> None:
    _touch(
        vault,
        "b.md",
        "a/z.md",
        "a/b/c.md",
        "a/image.png",
        ".obsidian/x.md",
        ".vaultmem/y.md",
        ".trash/old.md",
        "a/.hidden.md",
        "a/.git/x.md",
    )
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "o.md").write_text("o\n")
    (vault.root / "out").symlink_to(outside)
    (vault.root / "loop").symlink_to(vault.root / "a")
    (vault.root / "a" / "b" / "up").symlink_to(vault.root / "a")  # a loop
    (vault.root / "zlinked").symlink_to(vault.root / ".trash")  # reached only through a link
    assert list(vault.iter_notes()) == ["a/b/c.md", "a/z.md", "b.md", "zlinked/old.md"]
    assert list(vault.iter_notes("a")) == ["a/b/c.md", "a/z.md"]
    assert list(vault.iter_notes("nothing-here")) == []


def test_resolve_note(vault: Vault) -> None:
    _touch(vault, "claude/projects/p/entities/Auth.md", "claude/global/entities/Cache.md")
    _touch(vault, "x/Twin.md", "y/Twin.md", "deep/er/Twin.md")
    assert vault.resolve_note("claude/global/entities/Cache") == "claude/global/entities/Cache.md"
    assert (
        vault.resolve_note("claude/global/entities/Cache.md") == "claude/global/entities/Cache.md"
    )
    assert vault.resolve_note("Auth") == "claude/projects/p/entities/Auth.md"
    assert vault.resolve_note("auth") == "claude/projects/p/entities/Auth.md"
    assert vault.resolve_note("Twin", source="y/note.md") == "y/Twin.md"
    with pytest.raises(AmbiguousNote) as info:
        vault.resolve_note("Twin")
    assert "x/Twin.md" in str(info.value) and "y/Twin.md" in str(info.value)
    assert "deep/er/Twin.md" not in str(info.value)
    with pytest.raises(NoteNotFound) as missing:
        vault.resolve_note("Nope")
    assert "Nope" in str(missing.value) and str(vault.root) in str(missing.value)
    with pytest.raises(UnsafePath):
        vault.resolve_note("../outside")


def test_folders_lists_the_folders_under_one_hidden_and_files_left_out(tmp_path: Path) -> None:
    for folder in ("claude/projects/shop/sessions", "claude/projects/home", "claude/projects/.x"):
        (tmp_path / folder).mkdir(parents=True)
    (tmp_path / "claude/projects/notes.md").write_text("x", encoding="utf-8")
    vault = Vault(tmp_path)
    assert vault.folders("claude/projects") == ["home", "shop"]
    assert vault.folders("claude/projects/notes.md") == []
    assert vault.folders("claude/nothing") == []
