"""vaultmem's hooks driven by the real Claude Code: installed into settings.json by
``vaultmem install-hooks`` and shipped as this repository's plugin. The API is the stand-in; the
vault, HOME and project are temp folders."""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from .conftest import REPO_ROOT, Claude, Run, note_meta
from .standin import Text, ToolUse

pytestmark = pytest.mark.e2e

PROJECT = "e2e"
PROMPT = "Add a login module <private>secret-xyz</private> and run the tests"
SECRET = "secret-xyz"
DECISION = "use RS256 because keys rotate."
DECISION_ITEM = "Use RS256 because keys rotate."  # the label removed, the first letter capitalised
COMMAND = "python3 login.py"
# Claude Code's default SessionEnd budget. Pinned, because a settings.json hook's own `timeout`
# raises the budget, and plugin users do not get that: the hook must fit in the default.
SESSION_END_BUDGET_MS = "1500"


@dataclass(frozen=True)
class VaultSandbox:
    """Claude Code in a sandbox plus the vault its vaultmem hooks write to."""

    claude: Claude
    vault: Path

    @property
    def project_dir(self) -> Path:
        """<vault>/claude/projects/e2e."""
        return self.vault / "claude" / "projects" / PROJECT

    def session_notes(self) -> list[Path]:
        """The project's session notes (archive excluded)."""
        return sorted((self.project_dir / "sessions").glob("*.md"))

    def note_for(self, session_id: str) -> Path:
        """The one session note whose frontmatter lists ``session_id``."""
        found = [p for p in self.session_notes() if session_id in note_meta(p).get("session_ids", [])]
        assert len(found) == 1, f"notes for {session_id}: {found}\n{self.listing()}"
        return found[0]

    def listing(self) -> str:
        """Every file of the vault, for failure messages."""
        return "\n".join(str(p.relative_to(self.vault)) for p in sorted(self.vault.rglob("*")))

    def install_hooks(self) -> None:
        """``vaultmem install-hooks --scope user`` into the sandbox HOME; checks it worked."""
        proc = self.claude.vaultmem("install-hooks", "--scope", "user")
        assert proc.returncode == 0, proc.stderr
        hooks = self.claude.settings()["hooks"]
        for event in ("SessionStart", "Stop", "PreCompact", "SessionEnd"):
            commands = [h["command"] for group in hooks[event] for h in group["hooks"]]
            assert any("vaultmem" in c and " hook " in c for c in commands), (event, commands)

    def login_session(self, prompt: str = PROMPT, *, extra_text: str = "") -> Run:
        """A session that writes login.py, runs it with Bash, and ends with a decision."""
        project = self.claude.project
        self.claude.standin.enqueue(
            [
                Text("I'll add the module."),
                ToolUse(
                    "Write",
                    {
                        "file_path": str(project / "login.py"),
                        "content": "open('ran.txt', 'w').write('login ok')\n",
                    },
                ),
            ],
            [ToolUse("Bash", {"command": COMMAND, "description": "Run the tests"})],
            [Text(f"Done. Decision: {DECISION}{extra_text}")],
        )
        run = self.claude.prompt(prompt)
        assert (project / "ran.txt").read_text() == "login ok", "the Bash tool did not run"
        return run


def _files_containing(root: Path, needle: str) -> list[Path]:
    return [p for p in root.rglob("*") if p.is_file() and needle.encode() in p.read_bytes()]


def _keep_only(settings: dict[str, Any], events: Iterable[str]) -> dict[str, Any]:
    keep = set(events)
    return dict(settings, hooks={k: v for k, v in settings["hooks"].items() if k in keep})


def _eventually(check: Any, what: str, *, attempts: int = 300) -> None:
    # For work a hook may hand to a detached process (a loaded machine starts it slowly):
    # bounded, about 30 s at most.
    for _ in range(attempts):
        if check():
            return
        time.sleep(0.1)
    raise AssertionError(f"never happened: {what}")


def _archived_in_the_end(sandbox: VaultSandbox, run: Run) -> Path:
    """The session's archive, once its compaction converged: inline or detached. On a machine
    too loaded to start Python and record the session in 1.5 s, Claude Code cancels the hook
    before it can hand over; nothing is half-written then (every write is atomic), and the note
    is compacted lazily by a later session start (30 minutes on when the kill came before the
    session was marked ended): ``vaultmem compact``, the same run, stands in for that start."""
    note = sandbox.note_for(run.session_id)
    archive = sandbox.project_dir / "archive" / "sessions" / note.name
    if "Hook cancelled" in run.proc.stderr:
        print(f"\nSessionEnd was cancelled (a loaded machine): {run.proc.stderr.strip()[:200]}")
        if not archive.exists():
            assert note_meta(note).get("status") == "active", note_meta(note)
            assert DECISION in note.read_text(encoding="utf-8")
            # (busy, when a detached run the hook started before its kill is at it: it converges)
            sandbox.claude.vaultmem("compact", note.relative_to(sandbox.vault).as_posix(),
                                    timeout=300)
    _eventually(
        lambda: archive.exists() and note_meta(note).get("status") == "archived",
        f"{note.name} archived\n{sandbox.listing()}",
    )
    return archive


def _cancelled(run: Run) -> list[str]:
    """The hooks Claude Code cancelled at their budget, SessionEnd's left out: on a loaded
    machine starting Python alone can take it past its 1.5 s (the budget is a timing, which the
    suite does not assert; bench/ measures the hooks). What SessionEnd leaves undone converges
    later, as _archived_in_the_end shows; a cancelled Stop or SessionStart would lose capture or
    context, and the tests that read the note would say so too."""
    lines = [ln for ln in run.proc.stderr.splitlines() if "Hook cancelled" in ln]
    for line in lines:
        if line.startswith("SessionEnd"):
            print(f"\nSessionEnd was cancelled (a loaded machine): {line[:200]}")
    return [ln for ln in lines if not ln.startswith("SessionEnd")]


@pytest.fixture
def sandbox(claude: Claude, tmp_path: Path) -> VaultSandbox:
    """Claude Code with VAULTMEM_VAULT and VAULTMEM_PROJECT set for every hook it runs."""
    vault = tmp_path / "vault"
    vault.mkdir()  # only init and the default vault are created
    claude.env.update({"VAULTMEM_VAULT": str(vault), "VAULTMEM_PROJECT": PROJECT})
    return VaultSandbox(claude, vault)


def test_installed_hooks_record_the_session_without_private_text(sandbox: VaultSandbox) -> None:
    sandbox.install_hooks()

    run = sandbox.login_session()

    note = sandbox.note_for(run.session_id)
    text = note.read_text(encoding="utf-8")
    assert "Add a login module" in text and "and run the tests" in text
    assert "login.py" in text
    assert COMMAND in text
    # From the Stop payload or the transcript, never both: one item, one answer.
    assert text.count(f"- {DECISION_ITEM}") == 1 and text.count("**Answer:**") == 1
    assert note_meta(note)["type"] == "session" and note_meta(note)["project"] == PROJECT
    assert _files_containing(sandbox.vault, SECRET) == []
    assert _cancelled(run) == []


def test_plugin_from_this_repository_fires_the_hooks(sandbox: VaultSandbox) -> None:
    spec = sandbox.claude.install_plugin(REPO_ROOT)
    assert spec.startswith("vaultmem@")
    assert "hooks" not in sandbox.claude.settings()  # only the plugin can have written the note
    # The first session prepares the plugin's environment (pip install, in the background);
    # sessions are recorded from the next one on.
    sandbox.claude.standin.enqueue([Text("Hello.")])
    sandbox.claude.prompt("Hello")
    deadline = time.monotonic() + 900
    ready: list[Path] = []
    while not ready and time.monotonic() < deadline:
        # Not a recursive glob: it would walk the environment pip is building beside it
        # (env.new.<pid>), whose folders vanish when the build is moved into place.
        ready = list(sandbox.claude.home.glob(".claude/plugins/data/*/env/vaultmem-ready"))
        time.sleep(1)
    assert ready, "the plugin's environment was not prepared"

    run = sandbox.login_session()

    text = sandbox.note_for(run.session_id).read_text(encoding="utf-8")
    assert "Add a login module" in text and COMMAND in text and DECISION in text
    assert _files_containing(sandbox.vault, SECRET) == []
    assert _cancelled(run) == []


def test_next_session_starts_with_the_previous_sessions_memory(sandbox: VaultSandbox) -> None:
    sandbox.install_hooks()
    first = sandbox.login_session()
    sandbox.claude.standin.enqueue([Text("Noted.")])

    second = sandbox.claude.prompt("What did we decide about tokens?")

    assert second.session_id != first.session_id
    injected = second.turns[0].text()
    assert DECISION_ITEM in injected  # the decision item, as the note files it
    assert SECRET not in "\n".join(r.text() for r in second.requests)
    assert sandbox.note_for(second.session_id) != sandbox.note_for(first.session_id)


def test_session_end_compacts_an_over_threshold_note_within_the_budget(
    sandbox: VaultSandbox,
) -> None:
    config = Path(sandbox.claude.env["XDG_CONFIG_HOME"]) / "vaultmem" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text("line_threshold = 20\n")
    sandbox.install_hooks()
    sandbox.claude.env["CLAUDE_CODE_SESSIONEND_HOOKS_TIMEOUT_MS"] = SESSION_END_BUDGET_MS

    run = sandbox.login_session()

    # Past its deadline the hook hands the compaction over (memory/handover.py), so it is not
    # cancelled for compacting; what a user relies on is that the vault converges.
    archive = _archived_in_the_end(sandbox, run)
    assert note_meta(archive)["status"] == "archived"
    assert DECISION in archive.read_text(encoding="utf-8")
    entities = sorted((sandbox.project_dir / "entities").glob("*.md"))
    assert any(DECISION_ITEM in p.read_text(encoding="utf-8") for p in entities), entities
    assert _files_containing(sandbox.vault, SECRET) == []


def test_session_end_past_its_deadline_hands_the_compaction_over_and_it_converges(
    sandbox: VaultSandbox,
) -> None:
    """What a loaded machine does (forced here with a deadline of 0): the hook ends in its
    budget, and the detached compaction it starts outlives Claude Code and archives the note."""
    config = Path(sandbox.claude.env["XDG_CONFIG_HOME"]) / "vaultmem" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text("line_threshold = 20\n")
    sandbox.install_hooks()
    sandbox.claude.env["CLAUDE_CODE_SESSIONEND_HOOKS_TIMEOUT_MS"] = SESSION_END_BUDGET_MS
    sandbox.claude.env["VAULTMEM_SESSION_END_DEADLINE"] = "0"

    run = sandbox.login_session()

    archive = _archived_in_the_end(sandbox, run)
    if "Hook cancelled" not in run.proc.stderr:  # a cancelled hook recorded no end reason
        assert "Reason: other" in archive.read_text(encoding="utf-8")
    entities = sorted((sandbox.project_dir / "entities").glob("*.md"))
    assert any(DECISION_ITEM in p.read_text(encoding="utf-8") for p in entities), entities
    assert _files_containing(sandbox.vault, SECRET) == []


def test_compact_fires_pre_compact_which_ingests_the_transcript(sandbox: VaultSandbox) -> None:
    sandbox.install_hooks()
    installed = sandbox.claude.settings()
    # Only SessionStart and PreCompact: nothing else may ingest the first session's turns.
    sandbox.claude.write_settings(_keep_only(installed, ["SessionStart", "PreCompact"]))
    first = sandbox.login_session()
    assert DECISION not in sandbox.note_for(first.session_id).read_text(encoding="utf-8")
    # And for /compact only PreCompact, so a change can come from nowhere else.
    sandbox.claude.write_settings(_keep_only(installed, ["PreCompact"]))

    compacted = sandbox.claude.compact(first.session_id)

    assert [r.kind for r in compacted.requests if r.kind != "unknown"] == ["compact"]
    # The note may be renamed once the first prompt gives it a topic: look it up again.
    text = sandbox.note_for(first.session_id).read_text(encoding="utf-8")
    assert DECISION in text and COMMAND in text and "login.py" in text
    assert "Add a login module" in text
    assert _files_containing(sandbox.vault, SECRET) == []
