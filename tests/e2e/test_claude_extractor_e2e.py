"""The claude extractor with the real Claude Code CLI: the session is recorded by vaultmem's
installed hooks, SessionEnd hands the compaction to a detached ``vaultmem compact``, which runs
``claude -p --json-schema`` against the stand-in (it answers the ``StructuredOutput`` tool).
Skipped, like the other e2e tests, when the CLI is missing."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from .conftest import Claude, note_meta
from .standin import Fail, Stall, Structured, Text, ToolUse

pytestmark = pytest.mark.e2e

PROJECT = "e2e"
SECRET = "secret-xyz"
DAY_1 = "2026-11-19T10:00:00"
DAY_5 = "2026-11-23T10:00:00"  # four days later: the 3-day rule makes the note due
ANSWER = {
    "decisions": [{"text": "Passwords are hashed with argon2id rather than bcrypt",
                   "entities": ["Auth"]}],
    "gotchas": [{"text": "Login tokens expire after 15 minutes; refresh before retrying",
                 "entities": ["Tokens", "auth"]}],
    "patterns": [],
}


def _eventually(check: Callable[[], bool], what: str, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.2)
    raise AssertionError(f"never happened: {what}")


def _sandbox_processes(home: Path) -> list[int]:
    """Live processes whose environment has the sandbox's HOME (claude and what it started)."""
    needle = f"HOME={home}".encode()
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            environ = (entry / "environ").read_bytes()
            state = (entry / "status").read_text()
        except OSError:
            continue
        if needle in environ.split(b"\0") and "\nState:\tZ" not in state:
            found.append(int(entry.name))
    return found


class Sandbox:
    """Claude Code with vaultmem's hooks and the claude extractor configured."""

    def __init__(self, claude: Claude, vault: Path) -> None:
        self.claude = claude
        self.vault = vault
        self.project_dir = vault / "claude" / "projects" / PROJECT
        self.config = Path(claude.env["XDG_CONFIG_HOME"]) / "vaultmem" / "config.toml"
        self.configure()

    def configure(self, **extra: str) -> None:
        values = {"extractor": '"claude"', "claude_bin": json.dumps(str(self.claude.bin)),
                  "claude_timeout": "60", **extra}
        self.config.parent.mkdir(parents=True, exist_ok=True)
        self.config.write_text("".join(f"{k} = {v}\n" for k, v in values.items()))

    def session_notes(self) -> list[Path]:
        return sorted((self.project_dir / "sessions").glob("*.md"))

    def entity(self, name: str) -> Path:
        return self.project_dir / "entities" / f"{name}.md"

    def vaultmem(self, *args: str) -> Any:
        proc = self.claude.vaultmem(*args)
        assert proc.returncode == 0, proc.stderr
        return json.loads(proc.stdout) if "--json" in args else proc.stdout


@pytest.fixture
def sandbox(claude: Claude, tmp_path: Path) -> Sandbox:
    vault = tmp_path / "vault"
    vault.mkdir()  # only init and the default vault are created
    claude.env.update({"VAULTMEM_VAULT": str(vault), "VAULTMEM_PROJECT": PROJECT})
    return Sandbox(claude, vault)


def test_a_resumed_session_past_the_age_rule_is_extracted_by_claude_detached(
    sandbox: Sandbox,
) -> None:
    claude = sandbox.claude
    sandbox.vaultmem("install-hooks", "--scope", "user")
    claude.env["VAULTMEM_NOW"] = DAY_1
    claude.standin.enqueue(
        [Text("I'll add it."), ToolUse("Write", {"file_path": str(claude.project / "auth.py"),
                                                 "content": "HASH = 'argon2id'\n"})],
        [Text("Done: passwords use argon2id rather than bcrypt, since it resists GPUs.")],
    )
    first = claude.prompt(f"Add password hashing <private>{SECRET}</private> to auth")
    [note] = sandbox.session_notes()
    assert note_meta(note)["status"] == "active"  # a day-old note of a few lines: not due

    claude.env["VAULTMEM_NOW"] = DAY_5
    claude.standin.enqueue_structured(ANSWER)
    claude.standin.enqueue([Text("Token expiry is 15 minutes now.")])
    resumed = claude.prompt("Make login tokens expire after 15 minutes", resume=first.session_id)

    assert "Hook cancelled" not in resumed.proc.stderr
    assert resumed.session_id == first.session_id
    _eventually(lambda: note_meta(note).get("status") == "archived",
                f"{note.name} archived by the detached claude extraction")
    meta = note_meta(note)
    assert meta["extractor"] == "claude" and "fallback_reason" not in meta
    assert meta["extraction_cost_usd"] > 0
    auth, tokens = sandbox.entity("Auth").read_text(), sandbox.entity("Tokens").read_text()
    assert "hashed with argon2id rather than bcrypt" in auth
    assert "expire after 15 minutes" in tokens and "expire after 15 minutes" in auth
    # The extraction run recorded nothing: one session, one note, hooks silent.
    assert sandbox.session_notes() == [note]
    [state_file] = (sandbox.vault / ".vaultmem" / "hosts").glob("*/state.json")  # this machine's
    assert list(json.loads(state_file.read_text())["sessions"]) == [first.session_id]
    [asked] = claude.standin.structured
    sent = asked.text()
    assert "Add password hashing" in sent and "Make login tokens expire" in sent
    assert "argon2id rather than bcrypt, since it resists GPUs" in sent  # Claude's answer too
    assert SECRET not in sent
    assert asked.body["model"].startswith("claude-haiku")
    assert [t["name"] for t in asked.body["tools"]] == ["StructuredOutput"]

    status = sandbox.vaultmem("status", "--json")
    assert status["extraction_cost"]["notes"] == 1
    assert status["extraction_cost"]["total_usd"] == pytest.approx(meta["extraction_cost_usd"])
    _eventually(lambda: not _sandbox_processes(claude.home), "every sandbox process ended", 20)


FALLBACKS: dict[str, tuple[tuple[Structured, ...], dict[str, str], str]] = {
    "not-logged-in": ((Fail(401),) * 4, {},
                      "claude is not logged in (HTTP 401: Invalid API key · Fix external API key)"),
    "timeout": ((Stall(30),), {"claude_timeout": "4"}, "timeout after 4s (claude killed)"),
    "off-schema": (({"decisions": "none"},) * 5, {},
                   "claude failed (error_max_turns: Reached maximum number of turns (4))"),
    "prose": ((Text("Nothing to record."),) * 3, {},
              "no structured output (success, stop_reason: end_turn)"),
    "empty": (({"decisions": [], "gotchas": [], "patterns": []},), {},
              "the model found nothing; deterministic items kept"),
    "missing-cli": ((), {"claude_bin": '"claude"'},
                    "claude CLI not found ('claude' is not on PATH)"),
}


@pytest.mark.parametrize("case", list(FALLBACKS))
def test_each_failure_falls_back_to_the_deterministic_items_and_says_so(
    sandbox: Sandbox, case: str
) -> None:
    answers, config, reason = FALLBACKS[case]
    sandbox.configure(**config)
    claude = sandbox.claude
    claude.standin.enqueue_structured(*answers)
    sandbox.vaultmem("session", "start", "--session-id", "s1", "--topic", "auth")
    sandbox.vaultmem("session", "decide", "Use argon2id for passwords", "--entity", "Auth")

    [report] = sandbox.vaultmem("compact", "--session", "s1", "--force", "--json")["reports"]

    assert report["status"] == "compacted" and report["extractor"] == "deterministic"
    assert report["fallback_reason"] == reason
    assert "Use argon2id for passwords" in sandbox.entity("Auth").read_text()
    [note] = sandbox.session_notes()
    assert note_meta(note)["fallback_reason"] == reason
    assert not _sandbox_processes(claude.home), "a process of the extraction run survived"


def test_under_the_marker_the_installed_hooks_record_nothing(sandbox: Sandbox) -> None:
    """The second guard, alone: a real Claude Code run with vaultmem's hooks installed and on,
    but ``VAULTMEM_EXTRACTING=1`` in its environment (as the extractor's run has), leaves no
    trace in the vault; the same run without it is recorded (the control)."""
    claude = sandbox.claude
    sandbox.vaultmem("install-hooks", "--scope", "user")
    claude.standin.enqueue([Text("Noted.")], [Text("Noted again.")])
    claude.prompt("Record this one")
    [recorded] = sandbox.session_notes()
    before = {p: p.read_bytes() for p in sandbox.vault.rglob("*.md")}
    claude.env["VAULTMEM_EXTRACTING"] = "1"

    run = claude.prompt("Remember nothing of this")

    assert not run.proc.stderr.strip()
    assert sandbox.session_notes() == [recorded]
    assert {p: p.read_bytes() for p in sandbox.vault.rglob("*.md")} == before
    [state] = (sandbox.vault / ".vaultmem" / "hosts").glob("*/state.json")
    assert run.session_id not in json.loads(state.read_text())["sessions"]
