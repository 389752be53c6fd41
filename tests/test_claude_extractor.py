"""The claude extractor inside compaction and the hooks, with a fake ``claude`` (real processes).

The session is recorded by the real hooks from the real fixture transcript; ``vaultmem compact``
runs as a user (or the SessionEnd hook's detached process) runs it. The real Claude Code CLI
against the Messages API stand-in is in tests/e2e/test_claude_extractor_e2e.py.
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import claude_fake
import pytest
from claude_fake import result
from hook_kit import (
    ARCHIVE,
    ENTITIES,
    PROJECT,
    SECRET,
    copy_transcript,
    hook_env,
    payload,
    run_cli,
    run_hook,
    session_notes,
)

from vaultmem.claude import condensed, hooks
from vaultmem.notes import frontmatter

# Three days after the fixture session: due by age at its end.
LATER = "2026-11-25T09:00:00"
ANSWER = {
    "decisions": [{"text": "Login tokens are signed with RS256 because keys rotate",
                   "entities": ["JWT", "Login"]}],
    "gotchas": [{"text": "python3 login.py must run from the project root",
                 "entities": ["login"]}],
    "patterns": [],
    "prerequisites": [{"text": "The tests need REDIS_URL set", "entities": ["Redis"]}],
}


@pytest.fixture
def setup(tmp_path: Path) -> dict[str, Any]:
    """A vault whose session was recorded by the real Stop hook; the fake CLI; the env."""
    vault = tmp_path / "vault"
    vault.mkdir()
    transcript = copy_transcript(tmp_path)
    cwd = tmp_path / PROJECT  # the CLI names the project after its folder, as the hooks do
    cwd.mkdir()
    fake = claude_fake.install(tmp_path / "bin")
    log = tmp_path / "calls.jsonl"
    env = hook_env(vault, **claude_fake.env_for(log, result(ANSWER, cost=0.0123)))
    config = Path(env["XDG_CONFIG_HOME"]) / "vaultmem" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(f'extractor = "claude"\nclaude_bin = "{fake}"\nmodel = "haiku"\n')
    proc = run_hook("stop", payload("stop", transcript), vault, cwd=cwd, env=env)
    assert proc.returncode == 0 and proc.stderr == b"", proc.stderr
    # An entity a person made, with an alias the model uses.
    login = vault / ENTITIES / "Login.md"
    login.parent.mkdir(parents=True, exist_ok=True)
    login.write_text("---\ntype: entity\naliases:\n  - JWT\n---\n# Login\n\n## Key Decisions\n")
    return {"vault": vault, "env": env, "cwd": cwd, "log": log, "transcript": transcript}


def compact(setup: dict[str, Any], *args: str) -> subprocess.CompletedProcess[str]:
    """``vaultmem compact --json ARGS`` as a user runs it."""
    return run_cli(["compact", "--json", *args], cwd=setup["cwd"], env=setup["env"])


def meta(path: Path) -> dict[str, Any]:
    return frontmatter.parse(path.read_text())


def test_compaction_sends_the_transcript_and_files_the_models_items(
    setup: dict[str, Any],
) -> None:
    vault = setup["vault"]
    [note] = session_notes(vault)

    proc = compact(setup, "--force", str(note.relative_to(vault)))

    assert proc.returncode == 0, proc.stderr
    [report] = json.loads(proc.stdout)["reports"]
    assert report["extractor"] == "claude" and report["fallback_reason"] is None
    assert report["extraction_cost_usd"] == 0.0123
    assert report["counts"]["decision"] == 1 and report["counts"]["gotcha"] == 1
    login = (vault / ENTITIES / "Login.md").read_text()
    assert "signed with RS256 because keys rotate" in login  # JWT is Login's alias
    assert "must run from the project root" in login  # "login" matched case-insensitively
    assert not (vault / ENTITIES / "JWT.md").exists()
    index = (vault / ENTITIES).parent / "_index.md"
    assert "The tests need REDIS_URL set" in index.read_text()  # the project's, not an entity's
    assert not (vault / ENTITIES / "Redis.md").exists()
    archived = vault / ARCHIVE / note.name
    assert meta(note)["extractor"] == "claude" and meta(note)["extraction_cost_usd"] == 0.0123
    assert "extraction_cost_usd" not in meta(archived)
    [call] = claude_fake.calls(setup["log"])
    sent = call["stdin"]
    assert "User: Add a login module and run the tests" in sent  # the transcript, condensed
    assert "Ran: `echo tests pass`" in sent and "Changed: src/auth.py" in sent
    assert "- Login (aliases: JWT)" in sent
    assert SECRET not in sent

    status = run_cli(["status", "--json"], cwd=setup["cwd"], env=setup["env"])
    cost = json.loads(status.stdout)["extraction_cost"]
    assert cost == {"project": PROJECT, "notes": 1, "total_usd": 0.0123}
    text = run_cli(["status"], cwd=setup["cwd"], env=setup["env"])
    assert text.stdout.splitlines()[-1] == f"extraction cost: $0.0123 over 1 session (project {PROJECT})"


def test_a_failed_extraction_falls_back_and_the_note_says_why(setup: dict[str, Any]) -> None:
    vault = setup["vault"]
    [note] = session_notes(vault)
    failed = result(None, cost=0, is_error=True, api_error_status=401,
                    result="Invalid API key · Fix external API key")
    setup["env"].update(claude_fake.env_for(setup["log"], failed, FAKE_CLAUDE_EXIT="1"))

    proc = compact(setup, "--force", str(note.relative_to(vault)))

    [report] = json.loads(proc.stdout)["reports"]
    reason = "claude is not logged in (HTTP 401: Invalid API key · Fix external API key)"
    assert report["status"] == "compacted" and report["extractor"] == "deterministic"
    assert report["fallback_reason"] == reason
    assert meta(note)["fallback_reason"] == reason and meta(note)["extractor"] == "deterministic"
    text = run_cli(["compact", str(note.relative_to(vault)), "--force"], cwd=setup["cwd"],
                   env=setup["env"])
    assert "already archived" in text.stdout


def test_a_missing_cli_falls_back(setup: dict[str, Any]) -> None:
    config = Path(setup["env"]["XDG_CONFIG_HOME"]) / "vaultmem" / "config.toml"
    config.write_text('extractor = "claude"\n')
    setup["env"]["PATH"] = str(setup["cwd"])  # no claude there

    [note] = session_notes(setup["vault"])
    proc = compact(setup, "--force", str(note.relative_to(setup["vault"])))

    [report] = json.loads(proc.stdout)["reports"]
    assert report["fallback_reason"] == "claude CLI not found ('claude' is not on PATH)"
    assert report["status"] == "compacted"


def test_the_session_end_hook_hands_the_extraction_to_a_detached_process(
    setup: dict[str, Any], tmp_path: Path
) -> None:
    release = tmp_path / "release"
    setup["env"].update(FAKE_CLAUDE_MODE="wait", FAKE_CLAUDE_RELEASE=str(release),
                        VAULTMEM_NOW=LATER)
    vault = setup["vault"]
    [note] = session_notes(vault)

    proc = run_hook("session-end", payload("session-end", setup["transcript"]), vault,
                    cwd=setup["cwd"], env=setup["env"])

    # The hook has returned while claude is still waiting to be released: it did not wait.
    assert proc.returncode == 0 and proc.stderr == b"", proc.stderr
    for _ in range(600):
        if claude_fake.calls(setup["log"]):
            break
        time.sleep(0.05)
    assert claude_fake.calls(setup["log"]), "the detached compaction never ran claude"
    assert meta(note)["status"] == "active"
    # The next session starts meanwhile: its lazy compaction leaves the note to the extraction
    # (it holds the note's compaction lock) instead of waiting for it or compacting it twice.
    started = run_hook("session-start", payload("session-start", session_id="next-session"),
                       vault, cwd=setup["cwd"], env=setup["env"])
    assert started.returncode == 0 and started.stderr == b"", started.stderr
    assert meta(note)["status"] == "active" and len(claude_fake.calls(setup["log"])) == 1
    release.write_text("go")
    for _ in range(600):
        if meta(note).get("status") == "archived":
            break
        time.sleep(0.05)
    assert meta(note)["status"] == "archived" and meta(note)["extractor"] == "claude"


def test_the_hooks_of_the_extraction_run_do_nothing(setup: dict[str, Any]) -> None:
    vault = setup["vault"]
    before = {p: p.read_bytes() for p in vault.rglob("*") if p.is_file()}
    env = dict(setup["env"], VAULTMEM_EXTRACTING="1")
    for event in ("session-start", "stop", "session-end"):
        proc = run_hook(event, payload(event, setup["transcript"], session_id="extraction-run"),
                        vault, cwd=setup["cwd"], env=env)
        assert proc.returncode == 0 and proc.stdout == b"" and proc.stderr == b""
    assert {p: p.read_bytes() for p in vault.rglob("*") if p.is_file()} == before


def test_the_door_honours_the_marker_in_process(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VAULTMEM_EXTRACTING", "1")
    assert hooks.run("session-start", b"{}") == ("", [])


def test_the_session_end_hook_imports_no_sdk_and_no_extractor(setup: dict[str, Any]) -> None:
    probe = (
        "import sys\nfrom vaultmem import launcher\n"
        "try:\n    launcher.main(sys.argv[1:])\nexcept SystemExit:\n    pass\n"
        "mods = {m.split('.')[0] for m in sys.modules} | set(sys.modules)\n"
        "sys.stderr.write(repr(sorted(mods & {'anthropic', 'httpx', 'httpx2', "
        "'vaultmem.memory.claudecli', 'vaultmem.memory.llm', 'vaultmem.claude.condensed'})))\n"
    )
    setup["env"].update(VAULTMEM_NOW=LATER, FAKE_CLAUDE_MODE="answer")
    proc = subprocess.run(
        [sys.executable, "-c", probe, "hook", "session-end"],
        input=json.dumps(payload("session-end", setup["transcript"])).encode(),
        capture_output=True, cwd=setup["cwd"], env=setup["env"], timeout=120, check=False,
    )
    assert proc.stderr.decode() == "[]"
    [note] = session_notes(setup["vault"])
    for _ in range(600):  # let the detached compaction finish before the temp dir goes
        if meta(note).get("status") == "archived":
            break
        time.sleep(0.05)
    assert meta(note)["status"] == "archived"


def test_the_fixture_transcript_condensed() -> None:
    text = condensed.read([str(copy_transcript_path())], 10_000)

    assert text is not None
    assert text.startswith("### Turn (2026-11-22 06:03)\nUser: Add a login module and run")
    assert SECRET not in text
    assert "Changed: src/auth.py" in text


class _ProbedFile(io.BytesIO):
    """A file that remembers the largest piece any one read returned."""

    largest = 0

    def readline(self, size: int | None = -1) -> bytes:
        line = super().readline(size)
        self.largest = max(self.largest, len(line))
        return line


def test_condensed_reads_a_newline_less_file_bounded(tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.setattr(condensed, "LINE_MAX_BYTES", 1000)
    monkeypatch.setattr(condensed, "READ_MAX_BYTES", 20_000)
    monkeypatch.setattr(condensed, "_SKIP_CHUNK", 500)
    turn = json.dumps({"type": "user", "message": {"role": "user", "content": "Fix the login"}})
    overlong = tmp_path / "overlong.jsonl"
    overlong.write_text(turn + "\n" + "x" * 5000 + "\n" + turn.replace("login", "logout") + "\n")
    flat = _ProbedFile(b"y" * 50_000)  # no newline at all: one "line" past every cap

    text = condensed.read([str(overlong)], 10_000)

    assert text is not None and "User: Fix the login" in text and "User: Fix the logout" in text
    assert "xxx" not in text
    assert list(condensed._bounded_lines(flat)) == []
    assert flat.largest <= 1001 and flat.tell() <= 20_000  # never held whole, nor read to the end
    many = _ProbedFile((turn + "\n").encode() * 1000)
    assert len(list(condensed._bounded_lines(many))) < 1000  # the read stops at its budget


def copy_transcript_path() -> Path:
    return Path(__file__).parent / "fixtures" / "claude-code" / "transcript.jsonl"
