"""A corpus of bad input, one case each: broken YAML, bad bytes, monsters, hostile names and links,
junk hook input, broken transcripts, a read-only vault, a full disk, broken tool state and
configuration.

Every case runs the CLI door (in-process by default; again as a real subprocess with ``--slow``)
and checks the contract of the README: exit code 1 with one line on stderr naming the file for
errors (hooks: exit 0, at most one line), and the vault byte for byte as it was unless the
operation succeeded, in which case only the intended change is there. Nothing outside the vault
ever changes.
"""

from __future__ import annotations

import difflib
import json
import os
import shutil
import sqlite3
import tempfile
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from vaultmem.notes.frontmatter import parse, split

from .kit import (
    ENTITIES,
    ENTITY,
    NOW,
    PROJECT,
    SESSION,
    SID,
    Run,
    changed,
    cli,
    cli_as_nobody,
    cli_inproc,
    one_line,
    small_vault,
    snapshot,
    temp_files,
)

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "claude-code"
TRANSCRIPT = (FIXTURES / "transcript.jsonl").read_bytes()
SESSIONS = f"claude/projects/{PROJECT}/sessions"
ARCHIVE = f"claude/projects/{PROJECT}/archive/sessions/2026-11-22-race.md"
INBOX = f"{ENTITIES}/Inbox.md"
INDEX = f"claude/projects/{PROJECT}/_index.md"
Snap = Mapping[str, bytes]


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The vault every case starts from (see kit.small_vault)."""
    root = tmp_path_factory.mktemp("base") / "vault"
    root.mkdir()
    small_vault(root)
    return root


# -- set-ups ---------------------------------------------------------------------------------


def write(rel: str, data: bytes | str) -> Callable[[Path], None]:
    """Set-up: put ``data`` at ``rel`` in the vault."""
    def setup(root: Path) -> None:
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data if isinstance(data, bytes) else data.encode())
    return setup


def rewrite(rel: str, how: Callable[[bytes], bytes]) -> Callable[[Path], None]:
    """Set-up: replace the bytes of ``rel`` by ``how(bytes)``."""
    def setup(root: Path) -> None:
        (root / rel).write_bytes(how((root / rel).read_bytes()))
    return setup


def decisions(*items: str) -> Callable[[Path], None]:
    """Set-up: list items under the session note's ``## Decisions Made``."""
    def setup(root: Path) -> None:
        path = root / SESSION
        text = path.read_text()
        path.write_text(text.replace("## Decisions Made\n", "## Decisions Made\n\n"
                                     + "\n".join(items) + "\n"))
    return setup


def both(*setups: Callable[[Path], None]) -> Callable[[Path], None]:
    """Set-up: several set-ups in order."""
    def setup(root: Path) -> None:
        for one in setups:
            one(root)
    return setup


def outside_note(root: Path) -> None:
    """Set-up: an entity that is a symlink to a note outside the vault."""
    outside = root.parent / "outside"
    outside.mkdir(exist_ok=True)
    (outside / "secret.md").write_text("# Secret\n\n## Key Decisions\n\n- not the vault's\n")
    os.symlink(outside / "secret.md", root / ENTITIES / "Evil.md")


def outside_folder(root: Path) -> None:
    """Set-up: a folder of the vault that is a symlink to a folder outside it."""
    outside = root.parent / "outside"
    outside.mkdir(exist_ok=True)
    (outside / "Far.md").write_text("# Far\n\n## Key Decisions\n")
    os.symlink(outside, root / ENTITIES / "linked")


def config(text: str) -> Callable[[Path], None]:
    """Set-up: the user's config file (HOME and XDG_CONFIG_HOME are the test's own)."""
    def setup(root: Path) -> None:
        path = Path(os.environ["XDG_CONFIG_HOME"]) / "vaultmem" / "config.toml"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return setup


def transcript(data: bytes) -> Callable[[Path], None]:
    """Set-up: the transcript the hook payload names (next to the vault)."""
    def setup(root: Path) -> None:
        (root.parent / "transcript.jsonl").write_bytes(data)
    return setup


def stop_payload(**fields: str) -> bytes:
    """A Stop payload for the current session whose transcript is set up by ``transcript``."""
    data = {"session_id": SID, "transcript_path": "{tmp}/transcript.jsonl", "cwd": "{tmp}",
            "hook_event_name": "Stop", **fields}
    return json.dumps(data).encode()


def session_is_folder(root: Path) -> None:
    """Set-up: the session note's path is a folder."""
    (root / SESSION).unlink()
    (root / SESSION).mkdir()


def garbage_index(root: Path) -> None:
    """Set-up: an index.sqlite that is not a database."""
    (root / ".vaultmem" / "index.sqlite").write_bytes(b"this is not sqlite\x00" * 500)


def corrupt_state(root: Path) -> None:
    """Set-up: this machine's state.json that is not JSON."""
    (state_file,) = (root / ".vaultmem" / "hosts").glob("*/state.json")
    state_file.write_text('{"version": 1, "sessions": {"s-ra')


# -- expected changes ------------------------------------------------------------------------


def inserted(old: bytes, new: bytes) -> list[bytes]:
    """The lines ``new`` adds to ``old``; AssertionError when it also removes or changes any."""
    a, b = old.splitlines(keepends=True), new.splitlines(keepends=True)
    # Common head and tail first: a diff of a 20 MB note's 640,000 lines would take minutes.
    head = 0
    while head < min(len(a), len(b)) and a[head] == b[head]:
        head += 1
    tail = 0
    while tail < min(len(a), len(b)) - head and a[-1 - tail] == b[-1 - tail]:
        tail += 1
    a, b = a[head:len(a) - tail], b[head:len(b) - tail]
    out: list[bytes] = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        assert op in ("equal", "insert"), (op, a[i1:i2], b[j1:j2])
        if op == "insert":
            out.extend(b[j1:j2])
    return out


def only(rel: str, check: Callable[[bytes, bytes], None]) -> Callable[[Snap, Snap, Path], None]:
    """Expected change: ``rel`` alone changed, and ``check(old, new)`` holds."""
    def expect(before: Snap, after: Snap, root: Path) -> None:
        assert changed(before, after) == {rel}
        check(before[rel], after[rel])
    return expect


def adds(*lines: bytes) -> Callable[[bytes, bytes], None]:
    """Check: exactly these lines (blank lines aside) were inserted, nothing else touched."""
    def check(old: bytes, new: bytes) -> None:
        assert [ln for ln in inserted(old, new) if ln.strip()] == list(lines)
    return check


def unchanged_or(
    expect: Callable[[Snap, Snap, Path], None]
) -> Callable[[Snap, Snap, Path], None]:
    """Expected change: none (the operation refused), or what ``expect`` checks."""
    def either(before: Snap, after: Snap, root: Path) -> None:
        if after != before:
            expect(before, after, root)
    return either


def marked_failed(contains: str) -> Callable[[Snap, Snap, Path], None]:
    """Expected change of a failed compaction: only the session note, only its status and
    error properties (DESIGN §5), the error naming what failed."""
    def expect(before: Snap, after: Snap, root: Path) -> None:
        assert changed(before, after) == {SESSION}
        old, new = before[SESSION].decode(), after[SESSION].decode()
        assert split(new).body == split(old).body
        meta_old, meta_new = parse(old), parse(new)
        assert meta_new.pop("status") == "compaction_failed"
        assert contains in meta_new.pop("error")
        meta_old.pop("status")
        assert meta_new == meta_old
    return expect


def compacted_into(entity: str) -> Callable[[Snap, Snap, Path], None]:
    """Expected change of a compaction whose one decision lands in ``entity``."""
    def expect(before: Snap, after: Snap, root: Path) -> None:
        # The project's _index.md lists the entities (Key Entities).
        assert changed(before, after) == {SESSION, ARCHIVE, entity, INDEX}
        assert parse(after[SESSION].decode())["status"] == "archived"
        text = after[entity].decode()
        assert text.count("^vm-") == 1
        # The unsafe link is kept as plain text, never as a link Obsidian would follow.
        assert "[[../" not in text and "[[/" not in text
    return expect


def new_session_note(name: str) -> Callable[[Snap, Snap, Path], None]:
    """Expected change: one new session note with that exact, safe file name."""
    def expect(before: Snap, after: Snap, root: Path) -> None:
        assert changed(before, after) == {f"{SESSIONS}/{name}"}
        assert f"{SESSIONS}/{name}" not in before
        assert parse(after[f"{SESSIONS}/{name}"].decode())["type"] == "session"
    return expect


def state_set_aside(before: Snap, after: Snap, root: Path) -> None:
    """Expected change: the state is rebuilt from the notes' session_ids, so the entry lands
    once in the session's own note; the corrupt state is kept aside, not deleted."""
    assert changed(before, after) == {SESSION}
    assert after[SESSION].count(b"### 10:30 - x") == 1
    assert len(list((root / ".vaultmem" / "hosts").glob("*/state.json.corrupt-*"))) == 1


def index_rebuilt(before: Snap, after: Snap, root: Path) -> None:
    """Expected change: no note changes; the garbage index is moved aside and rebuilt."""
    assert after == before
    assert (root / ".vaultmem" / "index.sqlite.corrupt").exists()
    with sqlite3.connect(root / ".vaultmem" / "index.sqlite") as db:
        assert db.execute("select count(*) from notes").fetchone()[0] == len([r for r in after if r.endswith(".md")])


def frontmatter_added(old: bytes, new: bytes) -> None:
    """Check: an empty note gets a frontmatter with the one property."""
    assert old == b"" and new == b"---\nstatus: draft\n---\n"


def crlf_kept(old: bytes, new: bytes) -> None:
    """Check: a CRLF note gets its entry in CRLF, and nothing else moves."""
    assert new.count(b"\r\n") == new.count(b"\n")
    assert [ln for ln in inserted(old, new) if ln.strip()] == [b"### 10:30 - x\r\n"]


def bom_kept(old: bytes, new: bytes) -> None:
    """Check: a note with a BOM keeps it, and only the new line is added."""
    assert new.startswith(b"\xef\xbb\xbf---\n")
    assert [ln for ln in inserted(old, new) if ln.strip()] == [b"- x\n"]


def huge_set(old: bytes, new: bytes) -> None:
    """Check: on a 20 MB note, setting a property changes that line only."""
    assert len(old) > 20_000_000
    assert new == old.replace(b"status: active\n", b"status: draft\n", 1)


def transcript_prefix(old: bytes, new: bytes) -> None:
    """Check: the complete lines of a transcript are recorded, the cut one is not."""
    added = b"".join(inserted(old, new))
    assert b"**Prompt:** Add a login module and run the tests" in added
    assert b"- Ran `echo tests pass`" in added
    assert b"RS256" not in added  # that turn's line is the one cut in half
    assert b"hunter2" not in added


# -- the corpus ------------------------------------------------------------------------------

HUGE = ("---\ntype: entity\nproject: demo\nstatus: active\n---\n# Auth\n\n## Overview\n\n"
        + "Words about the component, with a [[Link]] and more words here.\n\n" * 320_000
        + "## Key Decisions\n\n- An older decision\n")
REPEATED_LEVELS = "---\ntype: entity\n---\n" + "".join(
    f"{'#' * (1 + i % 6)} H{1 + i % 6}\n\ntext {i}\n\n" for i in range(600))
NUMBERED_LEVELS = "---\ntype: entity\n---\n" + "".join(
    f"{'#' * (1 + i % 6)} H{1 + i % 6} n{i // 6}\n\ntext {i}\n\n" for i in range(600))


def nested(levels: int) -> str:
    """A short entity (no frontmatter) whose Overview holds a list nested ``levels`` deep."""
    outline = "".join("  " * i + f"- level {i}\n" for i in range(levels))
    return f"## Overview\n\n{outline}\n## Key Decisions\n\n- An older decision\n"


LOG = ("session", "log", "x", "--session-id", SID)
APPEND = ("patch", "Auth", "--heading", "Key Decisions", "--append", "- x")
SET = ("set", "Auth", "status", "draft")
COMPACT = ("compact", SESSION, "--force")


@dataclass(frozen=True)
class Case:
    """One bad input: the set-up, the command, and what the door must answer."""

    id: str
    args: tuple[str, ...]
    setup: Callable[[Path], None] = lambda root: None
    stdin: bytes = b""
    env: Mapping[str, str] = field(default_factory=dict)
    code: int | tuple[int, ...] = 1  # several: any of them
    # Substrings of the single stderr line; () = stderr must be empty; None = at most one line.
    err: tuple[str, ...] | None = ()
    change: Callable[[Snap, Snap, Path], None] | None = None  # None: no file changes
    nobody: bool = False  # run as an unprivileged user (the vault is made read-only)
    locks_writable: bool = False  # with nobody: .vaultmem stays writable
    slow: bool = False
    xfail: str = ""


CASES = [
    # Invalid YAML: refused with the file and line; the bytes stay.
    Case("yaml-unclosed-flow-list", LOG, write(SESSION, "---\ntitle: [broken\n---\n## Work Log\n"),
         err=(f"{SESSION}:2:", "invalid YAML")),
    Case("yaml-bad-indentation", APPEND, write(ENTITY, "---\na: 1\n  b: 2\n---\n## Key Decisions\n"),
         err=(f"{ENTITY}:3:", "invalid YAML")),
    Case("yaml-tab-indentation", SET, write(ENTITY, "---\na:\n\t- b\n---\n## Key Decisions\n"),
         err=(f"{ENTITY}:3:", "invalid YAML")),
    Case("yaml-duplicate-key", SET, write(ENTITY, "---\na: 1\na: 2\n---\n## Key Decisions\n"),
         err=(f"{ENTITY}:3:", "duplicate key")),
    Case("yaml-not-a-mapping", APPEND, write(ENTITY, "---\n- a\n- b\n---\n## Key Decisions\n"),
         err=(f"{ENTITY}:2:", "not a mapping")),
    Case("yaml-unterminated-quote-compact", COMPACT,
         write(SESSION, '---\ntype: session\nstatus: "active\n---\n## Decisions Made\n\n- a\n'),
         err=(SESSION, ":3:", "invalid YAML")),
    Case("yaml-invalid-in-entity-compact", COMPACT,
         both(write(ENTITY, "---\na: [x\n---\n## Key Decisions\n"), decisions("- Use [[Auth]]")),
         err=(f"{ENTITY}:2:", "invalid YAML"), change=marked_failed(f"{ENTITY}:2")),
    # An unclosed fence is no frontmatter at all (as in Obsidian): the patch works.
    Case("yaml-unclosed-fence", APPEND,
         write(ENTITY, "---\ntype: entity\n## Key Decisions\n\n- a\n"), code=0,
         change=only(ENTITY, adds(b"- x\n"))),
    # Bytes that are not UTF-8 text.
    Case("not-utf8-latin1", LOG, write(SESSION, "---\ntype: session\n---\n## Work Log\n\ncaf\xe9\n"
                                       .encode("latin-1")), err=(f"{SESSION}:6:", "not UTF-8")),
    Case("binary-nul-bytes", APPEND, write(ENTITY, b"---\ntype: entity\n---\n## Key Decisions\n\x00\x01"),
         err=(ENTITY, "binary file")),
    Case("not-utf8-entity-compact", COMPACT,
         both(write(ENTITY, b"# Auth\n\n## Key Decisions\n\n- \xff\xfe\n"), decisions("- Use [[Auth]]")),
         err=(ENTITY, "not UTF-8"), change=marked_failed("not UTF-8")),
    Case("crlf-note", LOG, rewrite(SESSION, lambda data: data.replace(b"\n", b"\r\n")),
         code=0, change=only(SESSION, crlf_kept)),
    Case("bom-note", APPEND, rewrite(ENTITY, lambda data: b"\xef\xbb\xbf" + data),
         code=0, change=only(ENTITY, bom_kept)),
    Case("empty-file-patch", APPEND, write(ENTITY, b""), err=(ENTITY, "Key Decisions", "no such heading")),
    Case("empty-file-set", SET, write(ENTITY, b""), code=0, change=only(ENTITY, frontmatter_added)),
    # Monsters.
    Case("huge-note-20mb-set", SET, write(ENTITY, HUGE), code=0, change=only(ENTITY, huge_set)),
    Case("huge-note-20mb-append", APPEND, write(ENTITY, HUGE), code=0,
         change=only(ENTITY, adds(b"- x\n")), slow=True),
    Case("headings-h1-to-h6-repeated-ambiguous", ("patch", "Auth", "--heading", "H6", "--append", "- x"),
         write(ENTITY, REPEATED_LEVELS), err=(ENTITY, "heading 'H6'", "matches 100 headings")),
    Case("headings-h1-to-h6-deep-path",
         ("patch", "Auth", "--heading", "H1 n50::H2 n50::H3 n50::H4 n50::H5 n50::H6 n50",
          "--append", "- x"), write(ENTITY, NUMBERED_LEVELS), code=0,
         change=only(ENTITY, adds(b"- x\n"))),
    Case("list-nested-10-levels", APPEND, write(ENTITY, nested(10)), code=0,
         change=only(ENTITY, adds(b"- x\n"))),
    # Past any sane depth: the append lands under the real heading, or a one-line error.
    Case("list-nested-1000-levels", APPEND, write(ENTITY, nested(1000)), code=(0, 1), err=None,
         change=unchanged_or(only(ENTITY, adds(b"- x\n")))),
    # Links and names that try to leave the vault or that no file system holds.
    Case("link-dotdot-in-decision-compact", COMPACT,
         decisions("- Read [[../../etc/passwd]] for [[Auth]]"), code=0, err=(),
         change=compacted_into(ENTITY)),
    Case("link-only-dotdot-in-decision-compact", COMPACT,
         decisions("- Read [[../../../../../tmp/pwned]]"), code=0, change=compacted_into(INBOX)),
    Case("link-absolute-in-decision-compact", COMPACT, decisions("- Read [[/etc/passwd]]"),
         code=0, change=compacted_into(INBOX)),
    Case("decide-entity-dotdot", ("session", "decide", "Use it", "--entity", "../../etc/passwd",
                                  "--session-id", SID), err=("[[../../etc/passwd]]", "path")),
    Case("decide-entity-forbidden-chars", ("session", "decide", "Use it", "--entity", "Foo:Bar",
                                           "--session-id", SID), err=("Foo:Bar", "'Foo Bar'")),
    Case("decide-entity-windows-reserved", ("session", "decide", "Use it", "--entity", "CON",
                                            "--session-id", SID), err=("[[CON]]", "'CON_'")),
    Case("topic-forbidden-chars", ("session", "start", "--session-id", "s2", "--topic",
                                   'a/b\\c:d*e?f"g<h>i|j#k^l[m]n%o'), code=0,
         change=new_session_note("2026-11-22-a-b-c-d-e-f-g-h-i-j-k-l-m-n-o.md")),
    Case("topic-300-chars", ("session", "start", "--session-id", "s3", "--topic", "x" * 300),
         code=0, change=new_session_note(f"2026-11-22-{'x' * 60}.md")),
    Case("topic-windows-reserved", ("session", "start", "--session-id", "s4", "--topic", "CON"),
         code=0, change=new_session_note("2026-11-22-con.md")),
    Case("note-path-dotdot", ("patch", "../outside/x", "--heading", "X", "--append", "- x"),
         err=("../outside/x.md", "'..'")),
    Case("session-id-300-chars", ("session", "start", "--session-id", "s" * 300),
         err=("session id longer than 200 characters",)),
    Case("symlinked-note-outside", ("patch", f"{ENTITIES}/Evil.md", "--heading", "Key Decisions",
                                    "--append", "- x"), outside_note,
         err=(f"{ENTITIES}/Evil.md", "outside the vault")),
    Case("symlinked-folder-outside", ("patch", f"{ENTITIES}/linked/Far.md", "--heading",
                                      "Key Decisions", "--append", "- x"), outside_folder,
         err=(f"{ENTITIES}/linked/Far.md", "outside the vault")),
    Case("symlinked-entity-compact", COMPACT, both(outside_note, decisions("- Use [[Evil]]")),
         err=(f"{ENTITIES}/Evil.md", "outside the vault"), change=marked_failed("outside the vault")),
    # Junk on a hook's stdin: exit 0 always, nothing written.
    Case("hook-stdin-binary", ("hook", "stop"), stdin=bytes(range(256)) * 8, code=0, err=None),
    Case("hook-stdin-truncated-json", ("hook", "stop"), stdin=b'{"session_id": "s-ra', code=0,
         err=None),
    Case("hook-stdin-json-array", ("hook", "stop"), stdin=b'[{"session_id": "s-race"}]', code=0,
         err=None),
    Case("hook-stdin-5mb", ("hook", "stop"),
         stdin=b'{"session_id": "s-race", "x": "' + b"y" * 5_000_000 + b'"}', code=0, err=None),
    Case("hook-session-start-stdin-binary", ("hook", "session-start"), stdin=b"\xff\xfe\x00junk",
         code=0, err=None),
    # Broken transcripts.
    Case("transcript-truncated-last-line", ("hook", "stop"),
         transcript(b"".join(TRANSCRIPT.splitlines(keepends=True)[:11])[:-120]),
         stdin=stop_payload(), code=0, change=only(SESSION, transcript_prefix)),
    Case("transcript-binary-garbage", ("hook", "stop"),
         transcript(bytes(range(256)) * 64 + b"\n\x00\xff" * 100), stdin=stop_payload(), code=0),
    Case("transcript-missing", ("hook", "stop"), stdin=stop_payload(), code=0, err=None),
    # The environment: read-only vault, full disk, broken state and configuration.
    Case("read-only-vault", LOG, nobody=True, err=("state.lock", "cannot take the state lock")),
    Case("read-only-notes", APPEND, nobody=True, locks_writable=True,
         err=(ENTITY, "read-only", "unchanged")),
    Case("read-only-vault-hook", ("hook", "stop"), stdin=stop_payload(), nobody=True, code=0,
         err=("vaultmem: hook stop failed",)),
    Case("disk-full-log", LOG, env={"VAULTMEM_FAULT": "write:enospc"},
         err=(SESSION, "No space left on device", "unchanged")),
    Case("disk-full-compact", COMPACT, decisions("- Use [[Auth]]"), env={"VAULTMEM_FAULT": "write:enospc"},
         err=(ENTITY, "No space left on device")),
    Case("disk-full-hook", ("hook", "stop"), transcript(TRANSCRIPT), stdin=stop_payload(),
         env={"VAULTMEM_FAULT": "write:enospc"}, code=0, err=(SESSION, "No space left on device")),
    Case("note-is-a-folder", LOG, session_is_folder, err=(SESSION, "is a folder")),
    Case("entity-is-a-folder", ("set", f"{ENTITIES}/Dir.md", "status", "draft"),
         lambda root: (root / ENTITIES / "Dir.md").mkdir(), err=(f"{ENTITIES}/Dir.md",)),
    Case("state-json-corrupt", LOG, corrupt_state, code=0, err=None, change=state_set_aside),
    Case("index-sqlite-garbage", ("recall", "race"), garbage_index, code=0, err=None,
         change=index_rebuilt),
    Case("config-invalid-toml", LOG, config("vault = [unclosed\n"),
         err=("config.toml", "invalid TOML")),
    Case("config-invalid-toml-set", SET, config("vault = [unclosed\n"),
         err=("config.toml", "invalid TOML")),
    Case("config-invalid-toml-patch", APPEND, config("vault = [unclosed\n"),
         err=("config.toml", "invalid TOML")),
    Case("config-invalid-toml-doctor", ("doctor",), config("vault = [unclosed\n"),
         err=("config.toml", "invalid TOML")),
    Case("config-wrong-type", ("status",), config("line_threshold = 'many'\n"),
         err=("config.toml", "'line_threshold' must be int")),
    Case("config-invalid-hook", ("hook", "stop"), config("vault = [unclosed\n"),
         stdin=stop_payload(), code=0, err=("config.toml", "invalid TOML")),
    Case("vaultmem-now-invalid", LOG, env={"VAULTMEM_NOW": "yesterday"},
         err=("VAULTMEM_NOW", "'yesterday'")),
    Case("vaultmem-now-invalid-hook", ("hook", "stop"), env={"VAULTMEM_NOW": "25:99"},
         stdin=stop_payload(), code=0, err=("VAULTMEM_NOW", "'25:99'")),
]


def _params() -> Iterator[object]:
    for case in CASES:
        for mode in ("inproc", "subprocess"):
            if case.nobody and mode == "subprocess":
                continue  # a forked unprivileged child already (see kit.cli_as_nobody)
            marks: list[pytest.MarkDecorator] = []
            if case.slow or mode == "subprocess":
                marks.append(pytest.mark.slow)
            if case.xfail:
                marks.append(pytest.mark.xfail(strict=True, reason=case.xfail))
            yield pytest.param(case, mode, id=case.id if mode == "inproc" else f"{case.id}-proc",
                               marks=marks)


def _freeze(root: Path, *, locks_writable: bool) -> None:
    """Make the vault read-only for an unprivileged user (and its tool state, unless asked)."""
    for folder, _dirs, files in os.walk(root):
        for name in files:
            os.chmod(os.path.join(folder, name), 0o644)
        os.chmod(folder, 0o555)
    if locks_writable:
        for path in [root / ".vaultmem", *(root / ".vaultmem").rglob("*")]:
            path.chmod(0o777 if path.is_dir() else 0o666)


def _thaw(top: Path) -> None:
    for folder, _dirs, _files in os.walk(top):
        os.chmod(folder, 0o755)


@pytest.mark.parametrize(("case", "mode"), list(_params()))
def test_bad_input(base: Path, tmp_path: Path, case: Case, mode: str) -> None:
    # A folder an unprivileged child can reach (pytest's tmp folders are private to root).
    top = Path(tempfile.mkdtemp(prefix="vaultmem-bad-")) if case.nobody else tmp_path
    top.chmod(0o755)
    root = top / "vault"
    shutil.copytree(base, root, symlinks=True)
    try:
        _one(case, mode, top, root, base)
    finally:
        if case.nobody:
            _thaw(top)
            shutil.rmtree(top)


def _one(case: Case, mode: str, top: Path, root: Path, base: Path) -> None:
    case.setup(root)
    args = [a.replace("{tmp}", str(top)) for a in case.args]
    stdin = case.stdin.replace(b"{tmp}", str(top).encode())
    env = {"VAULTMEM_VAULT": str(root), "VAULTMEM_PROJECT": PROJECT, "VAULTMEM_NOW": NOW,
           **case.env}
    if case.nobody:  # the unprivileged user reads the configuration from a folder it can reach
        env["XDG_CONFIG_HOME"] = str(top / "config")
    outside_before = {k: v for k, v in snapshot(top).items() if not k.startswith("vault/")}
    before = snapshot(root)
    run: Run
    if case.nobody:
        scratch = top / "scratch"
        shutil.copytree(root, scratch, symlinks=True)
        warm_env = {**env, "VAULTMEM_VAULT": str(scratch)}
        _freeze(root, locks_writable=case.locks_writable)
        run = cli_as_nobody(args, stdin=stdin, env=env,
                            warm_up=lambda: cli_inproc(args, stdin=stdin, env=warm_env))
        shutil.rmtree(scratch)
    elif mode == "inproc":
        run = cli_inproc(args, stdin=stdin, env=env)
    else:
        run = cli(args, stdin=stdin, env=env, cwd=top)
    assert run.code in (case.code if isinstance(case.code, tuple) else (case.code,)), run
    assert "Traceback" not in run.err, run.err
    if case.err is None:  # handled quietly, or one line (always one line with an error code)
        if run.code != 0 or run.err:
            one_line(run.err)
    elif case.err == ():
        assert run.err == ""
    else:
        line = one_line(run.err)
        for part in case.err:
            assert part in line, line
    after = snapshot(root)
    if case.change is None:
        assert after == before, sorted(changed(before, after))
    else:
        case.change(before, after, root)
    assert temp_files(root) == []
    outside_after = {k: v for k, v in snapshot(top).items() if not k.startswith("vault/")}
    assert outside_after == outside_before  # nothing outside the vault, ever


# -- beyond one call -------------------------------------------------------------------------


def test_truncated_transcript_line_is_recorded_once_when_complete(base: Path, tmp_path: Path) -> None:
    root = tmp_path / "vault"
    shutil.copytree(base, root)
    lines = TRANSCRIPT.splitlines(keepends=True)
    env = {"VAULTMEM_VAULT": str(root), "VAULTMEM_PROJECT": PROJECT}
    stdin = stop_payload().replace(b"{tmp}", str(tmp_path).encode())
    path = tmp_path / "transcript.jsonl"
    path.write_bytes(b"".join(lines[:11])[:-120])  # Claude Code still writing that line
    assert cli_inproc(["hook", "stop"], stdin=stdin, env=env) == Run(0, "", "")
    path.write_bytes(b"".join(lines))  # the line completed, and the rest of the session
    assert cli_inproc(["hook", "stop"], stdin=stdin, env=env) == Run(0, "", "")
    text = (root / SESSION).read_text()
    assert text.count("**Prompt:** Add a login module and run the tests") == 1
    assert text.count("- Ran `echo tests pass`") == 1
    assert text.count("- Use RS256-signed JWTs because keys can rotate without redeploying.") == 1
    assert text.count("Gotcha: fixed bug where the token clock skew broke login") == 1


def test_corrupt_state_keeps_the_session_in_its_note(base: Path, tmp_path: Path) -> None:
    root = tmp_path / "vault"
    shutil.copytree(base, root)
    corrupt_state(root)
    env = {"VAULTMEM_VAULT": str(root), "VAULTMEM_PROJECT": PROJECT}
    run = cli_inproc(LOG, env=env)
    assert run.code == 0
    assert run.out == f"{SESSION}: written\n"
    assert sorted(p.name for p in (root / SESSIONS).iterdir()) == ["2026-11-22-race.md"]
