"""hooks.py: the fail-open door, driven the way Claude Code drives it (a real subprocess per event,
the real Claude Code 2.1 payloads and transcript from tests/fixtures/claude-code)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hook_kit import (
    DAY,
    ENTITIES,
    EVENTS,
    PROBE,
    PROJECT,
    SECRET,
    SESSIONS,
    SID,
    copy_transcript,
    frozen,
    hook_env,
    payload,
    run_hook,
    session_notes,
    snapshot,
)

from vaultmem.claude import hooks
from vaultmem.notes import frontmatter

TOPIC_NOTE = f"{SESSIONS}/{DAY}-add-a-login-module-and-run.md"
DEFAULT_NOTE = f"{SESSIONS}/{DAY}-session.md"
PROMPT_LINE = "**Prompt:** Add a login module and run the tests"
WRITE_LINE = "- Edited `src/auth.py`"
COMMAND_LINE = "- Ran `echo tests pass`"
AUTH = f"[[{ENTITIES}/Auth|Auth]]"  # vaultmem links an entity by path
DECISION_LINE = f"- Use RS256-signed JWTs because keys can rotate without redeploying. ({AUTH})"
GOTCHA_LINE = (
    "- Fixed bug where the token clock skew broke login; resolved by allowing 30s leeway."
    f" ({AUTH})"
)


def _ok(proc: subprocess.CompletedProcess[bytes], *, stdout: bool = False) -> None:
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == b"", proc.stderr.decode()
    if not stdout:
        assert proc.stdout == b""


def _one_line_at_most(proc: subprocess.CompletedProcess[bytes]) -> str:
    assert proc.returncode == 0
    err = proc.stderr.decode()
    assert err.count("\n") <= 1, err
    assert "Traceback" not in err
    return err


def _context(proc: subprocess.CompletedProcess[bytes]) -> str:
    out = json.loads(proc.stdout)
    specific = out["hookSpecificOutput"]
    assert specific["hookEventName"] == "SessionStart"
    text = specific["additionalContext"]
    assert isinstance(text, str) and len(text) <= 8000
    return text


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    root.mkdir()
    return root


@pytest.fixture
def transcript(tmp_path: Path) -> Path:
    return copy_transcript(tmp_path)


def _note(vault: Path) -> str:
    notes = session_notes(vault)
    assert len(notes) == 1, notes
    return notes[0].read_text()


def _populate(vault: Path, transcript: Path, tmp_path: Path, *events: str) -> None:
    for event in events:
        proc = run_hook(event, payload(event, transcript), vault, cwd=tmp_path)
        assert proc.returncode == 0 and proc.stderr == b"", proc.stderr


# -- the real sequence ------------------------------------------------------------------------


def test_fixture_sequence_records_the_session(
    vault: Path, transcript: Path, tmp_path: Path
) -> None:
    start = run_hook("session-start", payload("session-start", transcript), vault, cwd=tmp_path)
    _ok(start)  # no memory yet: nothing injected, not even a header
    # Before the first prompt is known, the note has the default name.
    assert [p.relative_to(vault).as_posix() for p in session_notes(vault)] == [DEFAULT_NOTE]

    stop = run_hook("stop", payload("stop", transcript), vault, cwd=tmp_path)
    _ok(stop)
    # The first prompt gave the note its topic: renamed, the old name gone.
    assert [p.relative_to(vault).as_posix() for p in session_notes(vault)] == [TOPIC_NOTE]
    (state_file,) = (vault / ".vaultmem/hosts").glob("*/state.json")
    state = json.loads(state_file.read_text())
    assert state["sessions"][SID]["note"] == TOPIC_NOTE

    _ok(run_hook("pre-compact", payload("pre-compact", transcript), vault, cwd=tmp_path))
    _ok(run_hook("session-end", payload("session-end", transcript), vault, cwd=tmp_path))

    text = (vault / TOPIC_NOTE).read_text()
    for line in (PROMPT_LINE, WRITE_LINE, COMMAND_LINE, DECISION_LINE, GOTCHA_LINE):
        assert text.count(line) == 1, line
    assert "### 10:30 - Session End\n\nReason: other" in text
    meta = frontmatter.parse(text)
    assert meta["session_ids"] == [SID]
    assert str(meta["updated"]) == DAY and str(meta["claude_last_accessed"]) == DAY
    # Noise of the transcript stays out: the /compact command and the caveat meta line.
    assert "compact</command" not in text and "Caveat" not in text
    assert not (vault / DEFAULT_NOTE).exists()


@pytest.mark.parametrize("loss", ["deleted", "corrupt"])
def test_a_lost_state_goes_on_in_the_same_note_without_a_turn_twice(
    vault: Path, transcript: Path, tmp_path: Path, loss: str
) -> None:
    _ok(run_hook("stop", payload("stop", transcript), vault, cwd=tmp_path))
    before = {p.name: p.read_bytes() for p in session_notes(vault)}
    (state_file,) = (vault / ".vaultmem/hosts").glob("*/state.json")
    if loss == "deleted":
        state_file.unlink()
    else:
        state_file.write_text("{not json")
    # The same session stops again: its transcript is read from the start.
    again = run_hook("stop", payload("stop", transcript), vault, cwd=tmp_path)
    assert again.returncode == 0
    assert (b"corrupt state" in again.stderr) == (loss == "corrupt"), again.stderr
    assert {p.name: p.read_bytes() for p in session_notes(vault)} == before
    state = json.loads(state_file.read_text())
    assert state["sessions"][SID]["note"] == TOPIC_NOTE


def test_a_turn_is_held_only_when_the_note_has_its_whole_entry() -> None:
    from vaultmem.claude.recordsteps import _entries_of

    note = ("# T\n\n## Work Log\n\n### 10:31 - continue\n\n**Prompt:** continue\n"
            "**Answer:** Done.\n\n- Ran `pytest`\n\n## Decisions Made\n\n- x\n")
    held = _entries_of(note)
    assert "### 10:31 - continue\n\n**Prompt:** continue\n**Answer:** Done.\n\n- Ran `pytest`" in held
    # The same minute and answer without the command is another turn, not a copy.
    assert "### 10:31 - continue\n\n**Prompt:** continue\n**Answer:** Done." not in held


def test_private_text_is_written_nowhere(vault: Path, transcript: Path, tmp_path: Path) -> None:
    _populate(vault, transcript, tmp_path, *EVENTS)
    files = snapshot(vault)
    assert any(rel.endswith("/state.json") for rel in files)
    leaked = [rel for rel, data in files.items() if SECRET.encode() in data]
    assert leaked == []
    assert all(b"my password" not in data for data in files.values())


# -- dedup ------------------------------------------------------------------------------------


def test_stop_twice_changes_nothing_the_second_time(
    vault: Path, transcript: Path, tmp_path: Path
) -> None:
    _populate(vault, transcript, tmp_path, "session-start", "stop")
    before = snapshot(vault)
    _populate(vault, transcript, tmp_path, "stop")
    assert snapshot(vault) == before


def test_every_event_after_stop_adds_each_turn_once(
    vault: Path, transcript: Path, tmp_path: Path
) -> None:
    _populate(vault, transcript, tmp_path, "stop", "pre-compact", "session-end")
    text = _note(vault)
    for line in (PROMPT_LINE, WRITE_LINE, COMMAND_LINE, DECISION_LINE, GOTCHA_LINE):
        assert text.count(line) == 1, line
    assert text.count("### ") == 2  # the turn's entry, session end


def test_a_growing_transcript_adds_only_the_new_turns(vault: Path, tmp_path: Path) -> None:
    # Up to the Write tool call (line 7); the command and the decision come later.
    short = copy_transcript(tmp_path, lines=7)
    _populate(vault, short, tmp_path, "session-start", "stop")
    first = _note(vault)
    assert first.count(PROMPT_LINE) == 1 and first.count(WRITE_LINE) == 1
    assert COMMAND_LINE not in first
    # The Stop payload's last message carries the decision the transcript does not hold yet.
    assert first.count(DECISION_LINE) == 1 and first.count(GOTCHA_LINE) == 1

    full = copy_transcript(tmp_path)
    _populate(vault, full, tmp_path, "stop")
    text = _note(vault)
    for line in (PROMPT_LINE, WRITE_LINE, COMMAND_LINE, DECISION_LINE, GOTCHA_LINE):
        assert text.count(line) == 1, line
    # The new turns open no second prompt entry: the command joins a continuation entry.
    assert text.count("### ") == 2


def test_truncated_last_line_is_skipped_then_ingested_once_complete(
    vault: Path, tmp_path: Path
) -> None:
    lines = (copy_transcript(tmp_path)).read_text().splitlines(keepends=True)
    decision_line = next(i for i, line in enumerate(lines) if "Decision:" in line)
    path = tmp_path / "transcript.jsonl"
    path.write_text(
        "".join(lines[:decision_line]) + lines[decision_line][: len(lines[decision_line]) // 2]
    )
    proc = run_hook("stop", payload("stop", path), vault, cwd=tmp_path)
    _ok(proc)
    text = _note(vault)
    assert text.count(PROMPT_LINE) == 1 and text.count(COMMAND_LINE) == 1
    assert text.count(DECISION_LINE) == 1  # from the Stop payload: the line is half written

    path.write_text("".join(lines))
    _ok(run_hook("stop", payload("stop", path), vault, cwd=tmp_path))
    text = _note(vault)
    assert text.count(DECISION_LINE) == 1 and text.count(COMMAND_LINE) == 1


def test_missing_transcript_is_not_an_error(vault: Path, tmp_path: Path) -> None:
    missing = tmp_path / "nope.jsonl"
    for event in EVENTS:
        proc = run_hook(event, payload(event, missing), vault, cwd=tmp_path)
        _ok(proc, stdout=event == "session-start")
    text = _note(vault)
    assert "Reason: other" in text
    assert "Prompt:" not in text


# -- fail-open --------------------------------------------------------------------------------

JUNK = {
    "not-json": b"this is { not json",
    "binary": bytes(range(256)) * 8,
    "json-list": b'[{"session_id": "x"}]',
    "empty": b"",
    "huge": b'{"session_id": "' + b"a" * (5 * 1024 * 1024) + b'"}',
}


@pytest.fixture(scope="module")
def populated_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A vault after session-start and stop, built once (the session is still current: a hook
    without a session id falls back to it)."""
    base = tmp_path_factory.mktemp("populated")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("HOME", str(base / "home"))
        mp.setenv("XDG_CONFIG_HOME", str(base / "home/.config"))
        for name in ("VAULTMEM_PROJECT", "VAULTMEM_EXTRACTOR", "VAULTMEM_FAULT"):
            mp.delenv(name, raising=False)
        root = base / "vault"
        root.mkdir()
        _populate(root, copy_transcript(base), base, "session-start", "stop")
    return root


@pytest.fixture
def populated(populated_template: Path, tmp_path: Path) -> Path:
    root = tmp_path / "populated"
    shutil.copytree(populated_template, root)
    return root


@pytest.mark.parametrize("event", list(EVENTS))
@pytest.mark.parametrize("junk", list(JUNK))
def test_junk_stdin_fails_open_and_writes_nothing(
    populated: Path, tmp_path: Path, event: str, junk: str
) -> None:
    before = snapshot(populated)
    proc = run_hook(event, JUNK[junk], populated, cwd=tmp_path)
    _one_line_at_most(proc)
    if event == "session-start" and proc.stdout:
        _context(proc)  # the project of the hook's folder, when it has memory
    else:
        assert proc.stdout == b""
    assert snapshot(populated) == before


def test_junk_stdin_without_a_current_session_says_so_in_one_line(
    vault: Path, tmp_path: Path
) -> None:
    proc = run_hook("stop", b"junk", vault, cwd=tmp_path)
    err = _one_line_at_most(proc)
    assert err.startswith("vaultmem: ") and "session" in err
    assert proc.stdout == b""


def test_unknown_event_is_one_line(vault: Path, tmp_path: Path) -> None:
    proc = run_hook("post-tool-use", b"{}", vault, cwd=tmp_path)
    assert proc.returncode == 0 and proc.stdout == b""
    err = proc.stderr.decode()
    assert err.count("\n") == 1 and "unknown hook event 'post-tool-use'" in err
    assert not any(vault.iterdir())


@pytest.mark.parametrize("event", list(EVENTS))
def test_read_only_vault_is_one_line(
    vault: Path, transcript: Path, tmp_path: Path, event: str
) -> None:
    # A session with something recorded, so a read-only vault still has a briefing to give.
    _populate(vault, transcript, tmp_path, "session-start", "stop")
    longer = copy_transcript(tmp_path)
    before = snapshot(vault)
    with frozen(vault):
        proc = run_hook(
            event, payload(event, longer, session_id="another-session"), vault, cwd=tmp_path
        )
    err = _one_line_at_most(proc)
    assert err.startswith("vaultmem: ") and err.count("\n") == 1
    assert snapshot(vault) == before
    if event == "session-start":
        # The vault can still be read: the session keeps its briefing.
        assert "note: claude/projects/shop/sessions/" in _context(proc)
    else:
        assert proc.stdout == b""


@pytest.mark.parametrize("event", list(EVENTS))
def test_vault_path_that_is_a_file_is_one_line(
    tmp_path: Path, transcript: Path, event: str
) -> None:
    not_a_dir = tmp_path / "vault-file"
    not_a_dir.write_text("x")
    proc = run_hook(event, payload(event, transcript), not_a_dir, cwd=tmp_path)
    err = _one_line_at_most(proc)
    assert err == (f"vaultmem: hook {event} failed: {not_a_dir}: no vault here (from "
                   f"VAULTMEM_VAULT): is not a folder; `vaultmem --vault {not_a_dir} init` "
                   "creates one\n")
    assert proc.stdout == b""
    assert not_a_dir.read_text() == "x"


@pytest.mark.parametrize("event", list(EVENTS))
def test_a_mistyped_vault_is_one_line_and_is_not_created(
    tmp_path: Path, transcript: Path, event: str
) -> None:
    typo = tmp_path / "Obsidain"
    proc = run_hook(event, payload(event, transcript), typo, cwd=tmp_path)
    err = _one_line_at_most(proc)
    assert f"{typo}: no vault here (from VAULTMEM_VAULT): does not exist" in err
    assert proc.stdout == b"" and not typo.exists()


@pytest.mark.parametrize("event", list(EVENTS))
def test_invalid_yaml_session_note_is_left_alone(vault: Path, tmp_path: Path, event: str) -> None:
    short = copy_transcript(tmp_path, lines=7)
    _populate(vault, short, tmp_path, "session-start", "stop")
    note = session_notes(vault)[0]
    broken = note.read_text().replace("tags:\n", "tags: [unclosed\n", 1)
    note.write_text(broken)
    full = copy_transcript(tmp_path)  # new turns to record
    proc = run_hook(event, payload(event, full), vault, cwd=tmp_path)
    err = _one_line_at_most(proc)
    assert err.count("\n") == 1 and str(note.name) in err
    assert note.read_text() == broken
    if event == "session-start":
        # Resuming a session whose note a person broke still briefs it (its lists are readable).
        assert "- Prompt" not in _context(proc) and "note: claude/projects/" in _context(proc)


# -- the launcher's fast path -----------------------------------------------------------------


@pytest.mark.parametrize("form", ["separate", "equals"])
def test_global_vault_option_reaches_the_hook(tmp_path: Path, transcript: Path, form: str) -> None:
    chosen = tmp_path / "chosen"
    chosen.mkdir()
    elsewhere = tmp_path / "elsewhere"
    before = ["--vault", str(chosen)] if form == "separate" else [f"--vault={chosen}"]
    for event in ("session-start", "stop"):
        proc = run_hook(event, payload(event, transcript), elsewhere, cwd=tmp_path, before=before)
        assert proc.returncode == 0 and proc.stderr == b""
    assert (
        chosen
        / f"claude/projects/{PROJECT}/sessions"
        / Path(f"{DAY}-add-a-login-module-and-run.md")
    ).is_file()
    assert not elsewhere.exists()


def test_global_project_option_reaches_the_hook(
    vault: Path, tmp_path: Path, transcript: Path
) -> None:
    before = ["--vault", str(vault), "--project", "Other Project"]
    for event in EVENTS:
        proc = run_hook(event, payload(event, transcript), vault, cwd=tmp_path, before=before)
        assert proc.returncode == 0 and proc.stderr == b"", proc.stderr
    notes = sorted(
        p.relative_to(vault).as_posix() for p in (vault / "claude/projects").rglob("*.md")
    )
    assert notes == [
        "claude/projects/other-project/_index.md",
        f"claude/projects/other-project/sessions/{DAY}-add-a-login-module-and-run.md",
    ]


HEAVY = ("typer", "click", "rich", "anthropic", "httpx", "httpx2")


@pytest.mark.parametrize("event", list(EVENTS))
def test_hook_path_imports_no_typer_rich_or_anthropic(
    vault: Path, transcript: Path, tmp_path: Path, event: str
) -> None:
    _populate(vault, transcript, tmp_path, "session-start")
    proc = subprocess.run(
        [
            sys.executable,
            "-c",
            PROBE.replace("sys.argv[0]", repr(json.dumps(HEAVY))),
            "--vault",
            str(vault),
            "hook",
            event,
        ],
        input=json.dumps(payload(event, transcript)).encode(),
        capture_output=True,
        cwd=tmp_path,
        env=hook_env(vault),
        timeout=120,
        check=False,
    )
    report = json.loads(proc.stderr)
    assert report == {"code": 0, "heavy": []}


# What SessionEnd and Stop need no more than the floor does (issue 19: SessionEnd within 1.5x
# of importing yaml, markdown_it and filelock): each is imported where it is used.
STARTUP_EXTRAS = ("subprocess", "tempfile", "shutil", "socket", "difflib")


@pytest.mark.parametrize("event", ["session-start", "stop", "session-end"])
def test_a_started_sessions_hooks_import_no_process_or_temp_file_modules(
    vault: Path, transcript: Path, tmp_path: Path, event: str
) -> None:
    _populate(vault, transcript, tmp_path, "session-start")
    proc = subprocess.run(
        [sys.executable, "-c", PROBE.replace("sys.argv[0]", repr(json.dumps(STARTUP_EXTRAS))),
         "--vault", str(vault), "hook", event],
        input=json.dumps(payload(event, transcript)).encode(), capture_output=True,
        cwd=tmp_path, env=hook_env(vault), timeout=120, check=False,
    )
    assert json.loads(proc.stderr) == {"code": 0, "heavy": []}


# A SessionEnd with nothing new to tell (its Stop hooks recorded every turn) in a project with no
# auto memory: the miner, the anchors, the mirror, the structured calls' reader (no turn is
# built), ``status``'s values and the config writer are not imported (issues 19, 28).
UNUSED_AT_END = ("vaultmem.claude.ingest", "vaultmem.mining.answers", "vaultmem.memory.anchors",
                 "vaultmem.memory.automirror", "vaultmem.notes.links",
                 "vaultmem.mining.structured", "vaultmem.memory.sessionstatus",
                 "vaultmem.store.vaultrecord")


@pytest.mark.parametrize("stopped", [True, False])
def test_a_session_end_with_nothing_new_imports_neither_the_miner_nor_the_mirror(
    vault: Path, transcript: Path, tmp_path: Path, stopped: bool
) -> None:
    _populate(vault, transcript, tmp_path, "session-start", *(["stop"] if stopped else []))
    probe = PROBE.replace('{m.split(".")[0] for m in sys.modules}', "set(sys.modules)")
    proc = subprocess.run(
        [sys.executable, "-c", probe.replace("sys.argv[0]", repr(json.dumps(UNUSED_AT_END))),
         "--vault", str(vault), "hook", "session-end"],
        input=json.dumps(payload("session-end", transcript)).encode(), capture_output=True,
        cwd=tmp_path, env=hook_env(vault), timeout=120, check=False,
    )
    report = json.loads(proc.stderr)
    assert report["code"] == 0
    # Without the Stop, the turns are told now: the probe does see the miner then.
    told = {"vaultmem.claude.ingest", "vaultmem.mining.answers", "vaultmem.mining.structured"}
    assert set(report["heavy"]) & told == (set() if stopped else told)
    assert "vaultmem.memory.automirror" not in report["heavy"]
    if stopped:
        assert report["heavy"] == []


# A new session's start (note created from its template, briefing told) reads no transcript:
# neither the reader nor the recording steps are imported, nor importlib.resources, nor the
# auto-memory mirror in a project without auto memory, nor the moment hooks' index lookup (the
# briefing's log needs none of it), nor the edit types (a new note is written whole) or the
# compaction's change lines (issue 29: their frozen dataclasses cost about a millisecond each).
UNUSED_AT_START = ("vaultmem.claude.transcript", "vaultmem.claude.recordsteps",
                   "vaultmem.claude.ingest", "importlib.resources", "vaultmem.memory.automirror",
                   "vaultmem.claude.moments", "vaultmem.notes.patch", "vaultmem.memory.changes")


def test_a_new_sessions_start_imports_neither_the_transcript_reader_nor_resources(
    vault: Path, transcript: Path, tmp_path: Path
) -> None:
    _populate(vault, transcript, tmp_path, "session-start", "stop", "session-end")
    probe = PROBE.replace('{m.split(".")[0] for m in sys.modules}', "set(sys.modules)")
    proc = subprocess.run(
        [sys.executable, "-c", probe.replace("sys.argv[0]", repr(json.dumps(UNUSED_AT_START))),
         "--vault", str(vault), "hook", "session-start"],
        input=json.dumps(payload("session-start", transcript, session_id="new-one")).encode(),
        capture_output=True, cwd=tmp_path, env=hook_env(vault), timeout=120, check=False,
    )
    assert json.loads(proc.stderr) == {"code": 0, "heavy": []}
    assert "additionalContext" in proc.stdout.decode()  # the briefing was told
    assert len(session_notes(vault)) == 2  # the new session's note was made


@pytest.mark.parametrize("event", ["stop", "session-end", "session-end-compacting"])
def test_notes_of_plain_markdown_are_read_without_markdown_it(
    vault: Path, transcript: Path, tmp_path: Path, event: str
) -> None:
    """Session notes made by vaultmem are plain runs (plainruns): the hook spares the 40 ms of
    importing markdown-it, compaction included."""
    _populate(vault, transcript, tmp_path, "session-start", "stop")
    note = session_notes(vault)[0]
    compacting = event == "session-end-compacting"
    if compacting:
        event = "session-end"
        entries = "".join(f"\n### 09:{i % 60:02d} - Step {i}\n\nFixed bug number {i} in "
                          f"[[Auth]].\n\n```bash\n# retry\nmake test\n```\n" for i in range(60))
        note.write_text(note.read_text() + entries)
    # The compaction is watched inline: no deadline hands it over on a loaded machine.
    env = hook_env(vault, VAULTMEM_SESSION_END_DEADLINE="inf")
    proc = subprocess.run(
        [sys.executable, "-c", PROBE.replace("sys.argv[0]", repr(json.dumps(["markdown_it"]))),
         "--vault", str(vault), "hook", event],
        input=json.dumps(payload(event, transcript)).encode(),
        capture_output=True, cwd=tmp_path, env=env, timeout=120, check=False,
    )
    assert json.loads(proc.stderr) == {"code": 0, "heavy": []}
    status = frontmatter.parse(note.read_text())["status"]
    assert status == ("archived" if compacting else "active")


def test_importing_the_door_and_parsing_a_payload_stay_light() -> None:
    code = (
        "import sys; from vaultmem.claude import hooks, events, capture; "
        "events.parse_event('stop', b'{}'); "
        f"print(sorted({{m.split('.')[0] for m in sys.modules}} & {set(HEAVY)!r}))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert out.stdout.strip() == "[]"


# -- the door in-process ----------------------------------------------------------------------


def test_run_never_raises_and_names_the_event() -> None:
    out, warnings = hooks.run("nope", b"{}")
    assert out == "" and len(warnings) == 1 and "nope" in warnings[0]


def test_help_is_printed_not_run(capsys: pytest.CaptureFixture[str]) -> None:
    assert hooks.main(["--help"]) == 0
    assert "session-start" in capsys.readouterr().out


def test_racing_stop_and_pre_compact_add_each_turn_once(
    vault: Path, transcript: Path, tmp_path: Path
) -> None:
    _populate(vault, transcript, tmp_path, "session-start")
    env = hook_env(vault)
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "vaultmem", "hook", event],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=tmp_path,
            env=env,
        )
        for event in ("stop", "pre-compact") * 3
    ]
    # Claude Code writes the payload as it starts a hook (a hook waits 2 s at most for it).
    for proc in procs:
        assert proc.stdin is not None
        proc.stdin.write(json.dumps(payload("stop", transcript)).encode())
        proc.stdin.close()
        proc.stdin = None  # communicate() below must not flush it again
    for proc in procs:
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0 and out == b"" and err == b"", err
    text = _note(vault)
    for line in (PROMPT_LINE, WRITE_LINE, COMMAND_LINE, DECISION_LINE, GOTCHA_LINE):
        assert text.count(line) == 1, line
    assert [p.name for p in session_notes(vault)] == [Path(TOPIC_NOTE).name]


@pytest.mark.parametrize(
    ("setting", "value"),
    [("config", "line_threshold = 'many'\n"), ("config", "not toml ["), ("now", "yesterday")],
)
def test_configuration_errors_are_one_line(
    vault: Path, transcript: Path, tmp_path: Path, setting: str, value: str
) -> None:
    env = hook_env(vault)
    if setting == "config":
        config = Path(env["XDG_CONFIG_HOME"]) / "vaultmem/config.toml"
        config.parent.mkdir(parents=True, exist_ok=True)
        config.write_text(value)
    else:
        env["VAULTMEM_NOW"] = value
    for event in EVENTS:
        proc = run_hook(event, payload(event, transcript), vault, cwd=tmp_path, env=env)
        err = _one_line_at_most(proc)
        assert err.count("\n") == 1 and proc.stdout == b"", err
    assert not vault.exists() or not any(vault.iterdir())
