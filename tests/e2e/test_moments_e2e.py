"""The moment hooks (DESIGN §12) driven by the real Claude Code: a command that fails again is told
the fix an earlier session recorded (PostToolUseFailure's context reaches the model), "thanks"
gets nothing, every injection is logged, and a Claude Code that meets an event name it does not
know still runs the hooks it knows."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from .conftest import Claude
from .standin import Text, ToolUse
from .test_hooks_e2e import PROJECT, VaultSandbox

pytestmark = pytest.mark.e2e

CHECK = "python3 check.py"


def _injections(vault: Path) -> list[dict[str, object]]:
    return [json.loads(line) for path in vault.glob(".vaultmem/hosts/*/injections.jsonl")
            for line in path.read_text().splitlines()]


@pytest.fixture
def sandbox(claude: Claude, tmp_path: Path) -> VaultSandbox:
    """Claude Code whose hooks write to a temp vault, project ``e2e`` (as test_hooks_e2e)."""
    vault = tmp_path / "vault"
    vault.mkdir()
    claude.env.update({"VAULTMEM_VAULT": str(vault), "VAULTMEM_PROJECT": PROJECT})
    return VaultSandbox(claude, vault)


def test_a_failure_met_again_is_told_the_fix_an_earlier_session_found(
    sandbox: VaultSandbox,
) -> None:
    sandbox.install_hooks()
    claude, project = sandbox.claude, sandbox.claude.project
    bash = {"command": CHECK, "description": "Run the check"}
    claude.standin.enqueue(
        [ToolUse("Bash", bash)],  # fails: check.py does not exist yet
        [ToolUse("Write", {"file_path": str(project / "check.py"), "content": "print('ok')\n"})],
        [ToolUse("Bash", bash)],  # passes
        [Text("The check passes now.")],
    )
    first = claude.prompt("Run the project check")
    note = sandbox.note_for(first.session_id).read_text(encoding="utf-8")
    assert f"`{CHECK}` failed" in note and "Fixed by editing" in note  # the recorded fix
    (project / "check.py").unlink()
    claude.standin.enqueue([ToolUse("Bash", bash)], [Text("It failed again.")],
                           [Text("You're welcome.")])

    second = claude.prompt("Run the project check again")
    thanks = claude.prompt("thanks", resume=second.session_id)

    # The request after the failed call carries the fix, with the session it came from.
    after_failure = second.turns[1].text()
    assert "this failure was met before" in after_failure
    assert "Fixed by editing" in after_failure and sandbox.note_for(first.session_id).stem in (
        after_failure)
    assert "this failure was met before" not in second.turns[0].text()
    assert "vaultmem: what the vault holds" not in thanks.turns[0].text()
    logged = [(i["session"], i["event"]) for i in _injections(sandbox.vault)]
    assert (second.session_id, "PostToolUseFailure") in logged
    assert (second.session_id, "UserPromptSubmit") not in logged
    status = claude.vaultmem("--project", PROJECT, "status")
    assert f"injected into session {second.session_id}" in status.stdout or (
        f"injected into the current session {second.session_id}" in status.stdout)


def test_an_event_claude_code_does_not_know_leaves_the_known_hooks_running(
    claude: Claude, tmp_path: Path,
) -> None:
    # What a Claude Code older than an event meets in settings.json: a name it has no use for.
    log = tmp_path / "hooks.jsonl"
    hook = tmp_path / "record.py"
    hook.write_text("import json, sys\nopen(sys.argv[1], 'a').write(json.dumps("
                    "json.load(sys.stdin)['hook_event_name']) + '\\n')\n")
    command = {"type": "command", "command": f"{sys.executable} {hook} {log}"}
    claude.write_settings({"hooks": {
        event: [{"hooks": [command]}]
        for event in ("SessionStart", "NoSuchEventYet", "UserPromptSubmit", "Stop")}})
    claude.standin.enqueue([Text("Hello.")])

    run = claude.prompt("Hello there")

    assert run.result["result"] == "Hello."
    assert log.read_text().split() == ['"SessionStart"', '"UserPromptSubmit"', '"Stop"']
