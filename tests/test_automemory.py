"""Claude Code's auto memory mirrored into the vault: where Claude Code keeps it, the mirror's
change detection, a person's edit kept, hostile folders, and the hooks, recall and briefing."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
import subprocess
from pathlib import Path

import pytest

from tests.hook_kit import hook_env, payload, run_hook
from vaultmem.brief import context
from vaultmem.memory import automemory, automirror
from vaultmem.memory.automemory import locate, sanitize
from vaultmem.notes import patch
from vaultmem.notes.frontmatter import parse
from vaultmem.search import indexquery, recall
from vaultmem.store.config import Config
from vaultmem.store.vault import Vault

TODAY = dt.date(2026, 11, 22)
PROJECT = "shop"
MIRROR = f"claude/projects/{PROJECT}/auto-memory"
SESSION = f"claude/projects/{PROJECT}/sessions/2026-11-22-fix-the-cart"
CLAUDE_VARS = ("CLAUDE_CONFIG_DIR", "CLAUDE_CODE_DISABLE_AUTO_MEMORY", "CLAUDE_CODE_SIMPLE",
               "CLAUDE_CODE_SAFE_MODE", "CLAUDE_CODE_REMOTE", "CLAUDE_CODE_REMOTE_MEMORY_DIR",
               "CLAUDE_COWORK_MEMORY_PATH_OVERRIDE")
TOPIC = (
    "---\nname: redis-in-tests\ndescription: the test suite needs Redis\nmetadata:\n"
    "  type: project\n---\n\nThe cart tests need `REDIS_URL` pointing at a running Redis.\n"
)
INDEX = "- [Redis in tests](redis-in-tests.md) — cart tests need REDIS_URL\n- Use uv, not pip\n"


@pytest.fixture(autouse=True)
def _no_claude_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in CLAUDE_VARS:
        monkeypatch.delenv(name, raising=False)


def git(*args: str, cwd: Path) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True,
                   env={**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t",
                        "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"})


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    path = tmp_path / "work" / "shop.app"
    path.mkdir(parents=True)
    git("init", "-q", cwd=path)
    return path


def memory_folder(repo: Path) -> Path:
    """Where Claude Code keeps the auto memory of ``repo`` (its default)."""
    folder = Path.home() / ".claude" / "projects" / sanitize(os.path.realpath(repo)) / "memory"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.fixture
def folder(repo: Path) -> Path:
    found = memory_folder(repo)
    (found / "MEMORY.md").write_text(INDEX)
    (found / "redis-in-tests.md").write_text(TOPIC)
    return found


@pytest.fixture
def vault(tmp_path: Path) -> Vault:
    return Vault(tmp_path / "vault")


def run(vault: Vault, repo: Path, session: str | None = None) -> automirror.MirrorResult:
    # A budget no test run reaches: what is mirrored must not depend on the machine's speed.
    return automirror.mirror(vault, PROJECT, automirror.where(str(repo)), today=TODAY,
                             session_note=session and session + ".md", budget_s=3600)


def mirror_text(vault: Vault, name: str) -> str:
    return (vault.root / MIRROR / name).read_text()


def tree(root: Path) -> str:
    """A hash of every name, byte, mode and mtime under ``root`` (symlinks as their target)."""
    h = hashlib.sha256()
    for folder, dirs, files in sorted(os.walk(root)):
        dirs.sort()
        for name in sorted([*dirs, *files]):
            path = Path(folder) / name
            st = path.lstat()
            h.update(f"{path.relative_to(root)}\0{st.st_mode}\0{st.st_mtime_ns}\0".encode())
            if path.is_symlink():
                h.update(os.readlink(path).encode())
            elif path.is_file():
                h.update(path.read_bytes())
    return h.hexdigest()


# -- where Claude Code keeps it ----------------------------------------------------------------


def test_sanitize_is_claude_codes_rule() -> None:
    # Values printed by Claude Code 2.1.197's own function ($E) under node.
    assert sanitize("/home/a/my.app") == "-home-a-my-app"
    assert sanitize("/tmp/" + "x" * 250) == "-tmp-" + "x" * 195 + "-3v30nt"
    assert sanitize("/tmp/café/😀/" + "é" * 200) == "-tmp-caf" + "-" * 192 + "-jqmzdn"


def test_default_folder_is_under_the_config_dir_named_after_the_git_root(
    repo: Path, tmp_path: Path
) -> None:
    sub = repo / "src" / "cart"
    sub.mkdir(parents=True)
    found = automirror.where(str(sub))
    assert found.enabled
    assert found.folder == str(Path.home() / ".claude/projects" / sanitize(str(repo)) / "memory")
    assert found.folder.endswith("-work-shop-app/memory")
    moved = automirror.where(str(sub), env={"CLAUDE_CONFIG_DIR": str(tmp_path / "cfg")})
    assert moved.folder.startswith(str(tmp_path / "cfg" / "projects") + "/")


def test_a_folder_outside_git_is_named_after_itself(tmp_path: Path) -> None:
    plain = tmp_path / "notes"
    plain.mkdir()
    assert automirror.where(str(plain)).folder.endswith(sanitize(str(plain)) + "/memory")


def test_worktrees_share_their_repositorys_folder(repo: Path, tmp_path: Path) -> None:
    (repo / "a.txt").write_text("a\n")
    git("add", "a.txt", cwd=repo)
    git("commit", "-qm", "a", cwd=repo)
    tree_dir = tmp_path / "elsewhere" / "feature"
    git("worktree", "add", "-q", str(tree_dir), "-b", "feature", cwd=repo)
    assert automirror.where(str(tree_dir)).folder == automirror.where(str(repo)).folder


def test_setting_moves_the_folder_local_before_project_before_user(repo: Path, tmp_path: Path
                                                                   ) -> None:
    user = Path.home() / ".claude"
    user.mkdir(exist_ok=True)
    (user / "settings.json").write_text(json.dumps({"autoMemoryDirectory": "~/mem/user"}))
    assert automirror.where(str(repo)).folder == str(Path.home() / "mem/user")
    (repo / ".claude").mkdir()
    (repo / ".claude/settings.json").write_text(json.dumps(
        {"autoMemoryDirectory": str(tmp_path / "proj")}))
    assert automirror.where(str(repo)).folder == str(tmp_path / "proj")
    (repo / ".claude/settings.local.json").write_text(json.dumps(
        {"autoMemoryDirectory": str(tmp_path / "local") + "/"}))
    assert automirror.where(str(repo)).folder == str(tmp_path / "local")


def test_a_relative_or_escaping_directory_setting_is_ignored_as_claude_code_does() -> None:
    home = "/home/u"
    for bad in ("memory", "~", "~/..", "~/../x", "", "//server/share"):
        found = locate("/r", {}, {"user": {"autoMemoryDirectory": bad}}, home)
        assert found.folder == "/home/u/.claude/projects/-r/memory", bad


@pytest.mark.parametrize(("env", "user", "on"), [
    ({}, {}, True),
    ({"CLAUDE_CODE_DISABLE_AUTO_MEMORY": "1"}, {}, False),
    ({"CLAUDE_CODE_DISABLE_AUTO_MEMORY": "true"}, {}, False),
    ({}, {"autoMemoryEnabled": False}, False),
    ({"CLAUDE_CODE_DISABLE_AUTO_MEMORY": "0"}, {"autoMemoryEnabled": False}, True),
    ({"CLAUDE_CODE_SIMPLE": "1"}, {}, False),
])
def test_enabled_follows_env_then_settings(env: dict[str, str], user: dict[str, object],
                                           on: bool) -> None:
    assert automemory.enabled(env, {"user": user})[0] is on


def test_local_setting_overrides_user_for_enabled() -> None:
    settings = {"user": {"autoMemoryEnabled": False}, "local": {"autoMemoryEnabled": True}}
    assert automemory.enabled({}, settings)[0] is True


def test_loaded_index_is_200_lines_then_25000_characters() -> None:
    lines = "\n".join(f"- line {n}" for n in range(300))
    assert automemory.loaded_index(lines).split("\n")[-1] == "- line 199"
    long = "\n".join("x" * 999 for _ in range(60))
    kept = automemory.loaded_index(long)
    assert len(kept) <= 25_000 and kept.endswith("x") and len(kept.split("\n")) == 25
    assert automemory.loaded_index("\n\n  short  \n") == "short"


# -- the mirror ---------------------------------------------------------------------------------


def test_each_file_becomes_a_note_naming_its_source_and_hash(vault: Vault, repo: Path,
                                                             folder: Path) -> None:
    result = run(vault, repo, SESSION)
    assert sorted(result.written) == [f"{MIRROR}/MEMORY.md", f"{MIRROR}/redis-in-tests.md"]
    text = mirror_text(vault, "redis-in-tests.md")
    meta = parse(text)
    assert meta["type"] == "auto-memory" and meta["project"] == PROJECT
    assert meta["source"] == str(folder / "redis-in-tests.md")
    assert meta["source_sha256"] == hashlib.sha256(TOPIC.encode()).hexdigest()
    assert meta["status"] == "active" and str(meta["updated"]) == "2026-11-22"
    assert meta["sessions"] == [f"[[{SESSION}|2026-11-22-fix-the-cart]]"]
    assert '  - "[[' in text  # links in properties are quoted
    # The topic file's own frontmatter is shown as data, not as a second properties block.
    assert text.split("---\n", 2)[2].startswith("```yaml\nname: redis-in-tests\n")
    assert "The cart tests need `REDIS_URL`" in text
    assert mirror_text(vault, "MEMORY.md").endswith(INDEX)


def test_nothing_moved_is_a_stat_only_look_that_writes_nothing(vault: Vault, repo: Path,
                                                               folder: Path) -> None:
    run(vault, repo)
    before = tree(vault.root)
    again = run(vault, repo)
    assert again.unchanged and not again.written
    assert tree(vault.root) == before


def test_a_changed_file_is_mirrored_again_and_credits_the_session(vault: Vault, repo: Path,
                                                                  folder: Path) -> None:
    run(vault, repo)
    first = mirror_text(vault, "redis-in-tests.md")
    (folder / "MEMORY.md").write_text(INDEX + "- Run `make seed` before the e2e tests\n")
    result = run(vault, repo, SESSION)
    assert result.written == (f"{MIRROR}/MEMORY.md",)
    text = mirror_text(vault, "MEMORY.md")
    assert text.endswith("- Run `make seed` before the e2e tests\n")
    assert parse(text)["sessions"] == [f"[[{SESSION}|2026-11-22-fix-the-cart]]"]
    assert mirror_text(vault, "redis-in-tests.md") == first


def test_a_huge_pushed_mirror_note_is_skipped_by_name_and_left_as_it_is(
        vault: Vault, repo: Path, folder: Path) -> None:
    run(vault, repo)
    note = vault.root / MIRROR / "MEMORY.md"
    note.write_text(note.read_text() + "x" * (automirror.MAX_NOTE_BYTES + 1) + "\n")
    stamp = note.stat().st_mtime_ns
    (folder / "MEMORY.md").write_text(INDEX + "- a new memory\n")
    result = run(vault, repo)
    assert result.written == ()
    assert any(line.startswith("MEMORY.md: not mirrored") and "more than a mirror holds" in line
               for line in result.skipped), result.skipped
    assert note.stat().st_mtime_ns == stamp


def test_a_touched_file_with_the_same_bytes_is_not_rewritten(vault: Vault, repo: Path,
                                                            folder: Path) -> None:
    run(vault, repo)
    note = vault.root / MIRROR / "MEMORY.md"
    stamp = note.stat().st_mtime_ns
    os.utime(folder / "MEMORY.md", ns=(1, 1))
    result = run(vault, repo)
    assert not result.unchanged and not result.written
    assert note.stat().st_mtime_ns == stamp


def test_a_persons_edit_of_the_mirror_is_kept_and_the_new_source_parked(
    vault: Vault, repo: Path, folder: Path
) -> None:
    run(vault, repo)
    note = vault.root / MIRROR / "MEMORY.md"
    edited = note.read_text().replace("- Use uv, not pip", "- Use uv, not pip (uv 0.5 or later)")
    note.write_text(edited)
    (folder / "MEMORY.md").write_text(INDEX + "- Postgres 16 only\n")
    result = run(vault, repo, SESSION)
    assert result.kept == (f"{MIRROR}/MEMORY.md",)
    text = note.read_text()
    assert "- Use uv, not pip (uv 0.5 or later)" in text  # the person's line, as they left it
    assert text.startswith(edited.split("- [Redis")[0].split("source_sha256")[0])
    parked = text.split(f"## {patch.CONFLICT_HEADING}", 1)[1]
    assert "- Postgres 16 only" in parked and "(uv 0.5 or later)" not in parked
    meta = parse(text)
    assert meta["conflicted"] is True
    assert meta["source_sha256"] == automemory.sha256(INDEX + "- Postgres 16 only\n")
    assert any("kept" in line for line in automirror.report(result))


def test_a_persons_property_edit_survives_a_remirror(vault: Vault, repo: Path, folder: Path
                                                     ) -> None:
    run(vault, repo)
    note = vault.root / MIRROR / "MEMORY.md"
    note.write_text(note.read_text().replace("status: active\n", "status: active\nrating: 5\n"))
    (folder / "MEMORY.md").write_text(INDEX + "- Postgres 16 only\n")
    result = run(vault, repo)
    assert result.written == (f"{MIRROR}/MEMORY.md",) and not result.kept
    text = note.read_text()
    assert "rating: 5\n" in text and text.endswith("- Postgres 16 only\n")
    assert patch.CONFLICT_HEADING not in text


def test_a_vanished_file_keeps_its_note_marked_archived(vault: Vault, repo: Path,
                                                        folder: Path) -> None:
    run(vault, repo)
    (folder / "redis-in-tests.md").unlink()
    result = run(vault, repo)
    assert result.archived == (f"{MIRROR}/redis-in-tests.md",)
    meta = parse(mirror_text(vault, "redis-in-tests.md"))
    assert meta["status"] == "archived" and meta["archived_reason"]
    assert "REDIS_URL" in mirror_text(vault, "redis-in-tests.md")
    (folder / "redis-in-tests.md").write_text(TOPIC + "\nAlso Redis 7.\n")
    run(vault, repo)
    meta = parse(mirror_text(vault, "redis-in-tests.md"))
    assert meta["status"] == "active" and "archived_reason" not in meta


def test_a_new_mirror_is_linked_from_the_project_index(vault: Vault, repo: Path,
                                                       folder: Path) -> None:
    from vaultmem.notes import templating

    vault.create(f"claude/projects/{PROJECT}/_index.md", templating.project_index(PROJECT, TODAY))
    run(vault, repo)
    index = (vault.root / f"claude/projects/{PROJECT}/_index.md").read_text()
    section = index.split("## Auto Memory", 1)[1]
    assert f"[[{MIRROR}/MEMORY|MEMORY.md (auto memory)]]" in section
    assert f"[[{MIRROR}/redis-in-tests|redis-in-tests.md (auto memory)]]" in section
    (folder / "MEMORY.md").write_text(INDEX + "- more\n")
    run(vault, repo)
    assert (vault.root / f"claude/projects/{PROJECT}/_index.md").read_text() == index


# -- hostile folders ----------------------------------------------------------------------------


def test_symlink_out_of_the_folder_is_refused_one_inside_is_read(
    vault: Vault, repo: Path, folder: Path, tmp_path: Path
) -> None:
    secret = tmp_path / "secret.md"
    secret.write_text("password: hunter2\n")
    (folder / "leak.md").symlink_to(secret)
    (folder / "alias.md").symlink_to(folder / "redis-in-tests.md")
    result = run(vault, repo)
    assert "leak.md: a symlink leading out of the folder" in result.skipped
    assert not (vault.root / MIRROR / "leak.md").exists()
    assert "hunter2" not in "".join(p.read_text() for p in (vault.root / MIRROR).glob("*.md"))
    assert "REDIS_URL" in mirror_text(vault, "alias.md")


def test_binary_and_non_utf8_files_are_skipped_and_said_once(vault: Vault, repo: Path,
                                                             folder: Path) -> None:
    (folder / "blob.md").write_bytes(b"\x89PNG\x00\x01")
    (folder / "latin.md").write_bytes("café".encode("latin-1"))
    (folder / "image.png").write_bytes(b"\x89PNG")
    result = run(vault, repo)
    assert "blob.md: binary (holds NUL bytes)" in result.skipped
    assert "latin.md: not UTF-8 text" in result.skipped
    assert "image.png: not a markdown file" in result.skipped
    lines = automirror.report(result)
    assert len(lines) == 1 and "blob.md" in lines[0]
    (folder / "MEMORY.md").write_text(INDEX + "- more\n")
    assert run(vault, repo).skipped == ()  # said once, not at every session
    assert not (vault.root / MIRROR / "blob.md").exists()


def test_a_huge_folder_is_capped_and_said_once(vault: Vault, repo: Path, folder: Path) -> None:
    for n in range(automirror.MAX_FILES + 10):
        (folder / f"topic-{n:03}.md").write_text(f"fact {n}\n")
    (folder / "big.md").write_text("x" * (automirror.MAX_FILE_BYTES + 1))
    result = run(vault, repo)
    # 200 files looked at, one of them too large to mirror
    assert len(list((vault.root / MIRROR).glob("*.md"))) == automirror.MAX_FILES - 1
    assert "big.md: larger than 256 KiB" in result.skipped
    assert (vault.root / MIRROR / "MEMORY.md").exists()  # MEMORY.md comes first
    assert any("files past the first 200 not mirrored" in s for s in result.skipped)
    assert run(vault, repo).skipped == ()


def appended_while_read(monkeypatch: pytest.MonkeyPatch, path: Path, times: int) -> None:
    """Another process appends to ``path`` during the first ``times`` reads of it."""
    real_read = os.read
    left = {"n": times, "ns": 10}

    def read(fd: int, n: int) -> bytes:
        data = real_read(fd, n)
        if data and left["n"] and os.fstat(fd).st_ino == path.stat().st_ino:
            left["n"] -= 1
            with open(path, "a") as f:
                f.write("- appended during the read\n")
            left["ns"] += 1
            os.utime(path, ns=(left["ns"], left["ns"]))
        return data

    monkeypatch.setattr(os, "read", read)


def test_a_file_changing_while_read_is_read_again(
    vault: Vault, repo: Path, folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    appended_while_read(monkeypatch, folder / "MEMORY.md", times=1)
    run(vault, repo)
    assert mirror_text(vault, "MEMORY.md").endswith("- appended during the read\n")


def test_a_file_that_keeps_changing_is_skipped(
    vault: Vault, repo: Path, folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    appended_while_read(monkeypatch, folder / "MEMORY.md", times=1000)
    result = run(vault, repo)
    assert "MEMORY.md: kept changing while it was read" in result.skipped
    assert not (vault.root / MIRROR / "MEMORY.md").exists()


def test_auto_memory_off_mirrors_nothing(vault: Vault, repo: Path, folder: Path,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CLAUDE_CODE_DISABLE_AUTO_MEMORY", "1")
    assert run(vault, repo).folder is None
    monkeypatch.delenv("CLAUDE_CODE_DISABLE_AUTO_MEMORY")
    (repo / ".claude").mkdir()
    (repo / ".claude/settings.local.json").write_text('{"autoMemoryEnabled": false}')
    assert run(vault, repo).folder is None
    assert not (vault.root / MIRROR).exists()


def test_the_source_folder_is_never_written(vault: Vault, repo: Path, folder: Path,
                                            tmp_path: Path) -> None:
    (folder / "leak.md").symlink_to(tmp_path)
    (folder / "blob.md").write_bytes(b"\x00")
    (folder / "team").mkdir()
    (folder / "team" / "shared.md").write_text("- team fact\n")
    outside = tree(folder.parent)

    def mirrored_without_writing_there(session: str | None = None) -> None:
        before = tree(folder.parent)
        run(vault, repo, session)
        assert tree(folder.parent) == before

    mirrored_without_writing_there(SESSION)
    (vault.root / MIRROR / "MEMORY.md").write_text("a person rewrote it\n")
    (folder / "MEMORY.md").write_text(INDEX + "- new\n")
    mirrored_without_writing_there(SESSION)
    (folder / "redis-in-tests.md").unlink()
    mirrored_without_writing_there()
    assert tree(folder.parent) != outside  # the test's own changes are seen by the hash
    assert (vault.root / MIRROR / "team" / "shared.md").exists()


# -- recall and the briefing ---------------------------------------------------------------------


def test_mirrored_notes_count_in_recall_with_the_entities(vault: Vault, repo: Path,
                                                          folder: Path) -> None:
    run(vault, repo)
    found = recall.recall(vault, Config(vault=vault.root, project=PROJECT), "REDIS_URL",
                          today=TODAY)
    assert f"{MIRROR}/redis-in-tests.md" in [hit.rel for hit in found.hits]
    # Claude Code's own curated notes rank like entities, above session notes.
    boost = {kind: indexquery._boost(kind, PROJECT, "2026-11-22", PROJECT, "2026-11-22")
             for kind in ("auto-memory", "entity", "session")}
    assert boost["auto-memory"] == boost["entity"] > boost["session"]


def test_the_briefing_leaves_out_what_memory_md_loads() -> None:
    from vaultmem.brief.digest import Item

    prerequisites = [Item("Use uv, not pip"), Item("Postgres 16 must be running for the tests")]
    loaded = automemory.loaded_index("# Memory\n- Use uv, not pip\n")
    text = context.render("shop", [], prerequisites, loaded=loaded)
    assert "Postgres 16" in text and "Use uv" not in text
    assert "Use uv" in context.render("shop", [], prerequisites)


def test_a_briefing_line_inside_a_loaded_line_is_left_out() -> None:
    from vaultmem.brief.digest import Item

    item = Item("the cart tests need REDIS_URL set to a running Redis")
    loaded = "- Testing: the cart tests need `REDIS_URL` set to a running Redis (see debugging)"
    assert "REDIS_URL" not in context.render("shop", [], [item], loaded=loaded)


# -- the hooks ----------------------------------------------------------------------------------


def test_hooks_mirror_at_start_and_credit_the_session_at_end(
    tmp_path: Path, repo: Path, folder: Path
) -> None:
    vault = tmp_path / "hookvault"
    vault.mkdir()  # hooks create only the default vault
    env = {k: v for k, v in hook_env(vault).items() if k not in CLAUDE_VARS}
    env["VAULTMEM_PROJECT"] = PROJECT
    start = run_hook("session-start", payload("session-start", cwd=str(repo)), vault, cwd=repo,
                     env=env)
    assert start.returncode == 0, start.stderr
    note = vault / MIRROR / "MEMORY.md"
    assert note.exists() and "sessions" not in parse(note.read_text())
    (folder / "MEMORY.md").write_text(INDEX + "- Postgres 16 only\n")
    (folder / "junk.md").write_bytes(b"\xff\xfe")
    end = run_hook("session-end", payload("session-end", cwd=str(repo)), vault, cwd=repo,
                   env=env)
    assert end.returncode == 0
    assert end.stderr.decode().count("\n") == 1 and "junk.md: not UTF-8 text" in end.stderr.decode()
    meta = parse(note.read_text())
    assert note.read_text().endswith("- Postgres 16 only\n")
    [link] = meta["sessions"]
    assert link.startswith(f"[[claude/projects/{PROJECT}/sessions/")
    session = link[2:].split("|")[0] + ".md"
    assert (vault / session).exists()


def test_the_session_briefing_drops_what_memory_md_loads_only_while_auto_memory_is_on(
    vault: Vault, repo: Path, folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from vaultmem.brief import briefing
    from vaultmem.notes import templating

    index = templating.project_index(PROJECT, TODAY).replace(
        "## Prerequisites\n", "## Prerequisites\n\n- Use uv, not pip\n- Postgres 16 running\n")
    vault.create(f"claude/projects/{PROJECT}/_index.md", index)
    config = Config(vault=vault.root, project=PROJECT)
    text = briefing.build(vault, config, cwd=repo)
    assert "Postgres 16 running" in text and "Use uv, not pip" not in text
    monkeypatch.setenv("CLAUDE_CODE_DISABLE_AUTO_MEMORY", "1")
    assert "Use uv, not pip" in briefing.build(vault, config, cwd=repo)


def test_mirrored_text_is_redacted_and_an_unedited_mirror_still_follows_its_source(
    vault: Vault, repo: Path, folder: Path
) -> None:
    from vaultmem.notes.redact import Redaction

    secret = "- Staging DB: postgres://admin:Xk39vQp2zL@db.internal/shop\n"
    (folder / "MEMORY.md").write_text(INDEX + secret)
    where = automirror.where(str(repo))
    automirror.mirror(vault, PROJECT, where, today=TODAY, budget_s=3600, scrub=Redaction())
    text = mirror_text(vault, "MEMORY.md")
    assert "Xk39vQp2zL" not in text and "postgres://admin:‹redacted:password›@db.internal" in text
    (folder / "MEMORY.md").write_text(INDEX + secret + "- Postgres 16 only\n")
    result = automirror.mirror(vault, PROJECT, where, today=TODAY, budget_s=3600,
                               scrub=Redaction())
    assert result.written == (f"{MIRROR}/MEMORY.md",) and not result.kept
    text = mirror_text(vault, "MEMORY.md")
    assert text.endswith("- Postgres 16 only\n") and "Xk39vQp2zL" not in text
    assert patch.CONFLICT_HEADING not in text


def test_doctor_leaves_a_mirrors_links_to_memories_not_written_yet(vault: Vault, repo: Path,
                                                                  folder: Path) -> None:
    from vaultmem.memory.doctor import doctor

    (folder / "redis-in-tests.md").write_text(TOPIC + "\nSee [[postgres-setup]].\n")
    run(vault, repo)
    vault.create(f"claude/projects/{PROJECT}/entities/Cart.md",
                 "---\ntype: entity\nproject: shop\n---\n# Cart\n\nSee [[Nowhere]].\n")
    found = [(p.kind, p.rel) for p in doctor(vault).problems]
    assert ("unresolved-link", f"claude/projects/{PROJECT}/entities/Cart.md") in found
    assert not [p for p in found if p[1].startswith(MIRROR)], found
