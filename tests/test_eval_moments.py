"""bench.eval_moments' reading of a transcript: where Claude Code runs the moment hooks, and the
ground truth of recurrence (a failure's folded error line, the commands that passed)."""

from __future__ import annotations

import json

from bench import eval_moments


def _line(**row: object) -> str:
    return json.dumps({"timestamp": "2026-01-01T10:00:00", "cwd": "/w/shop", **row})


TRANSCRIPT = [
    _line(type="user", message={"content": "run the db tests"}),
    _line(type="assistant", message={"content": [
        {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "cd /w && pytest"}}]}),
    _line(type="user", message={"content": [
        {"type": "tool_result", "tool_use_id": "t1", "is_error": True,
         "content": "Exit code 1\nE   OperationalError: port 5432 failed: Connection refused"}]}),
    _line(type="assistant", message={"content": [
        {"type": "tool_use", "id": "t2", "name": "Bash", "input": {"command": "pytest"}}]}),
    _line(type="user", message={"content": [
        {"type": "tool_result", "tool_use_id": "t2", "is_error": False, "content": "1 passed"}]}),
    _line(type="user", isCompactSummary=True, message={"content": "summary"}),
]


def test_moment_calls_are_the_prompts_and_the_failed_tool_results() -> None:
    calls = eval_moments.moment_calls("s", TRANSCRIPT, "/")

    assert [(c.hook, c.upto) for c in calls] == [("user-prompt-submit", 0),
                                                 ("post-tool-use-failure", 3)]
    assert calls[0].payload == {"prompt": "run the db tests"}
    failure = calls[1]
    assert failure.payload["tool_input"] == {"command": "cd /w && pytest"}
    assert failure.command == "pytest" and failure.payload["is_interrupt"] is False
    assert failure.signature == eval_moments.fold(
        "Exit code 1\nE   OperationalError: port 5433 failed: Connection refused")
    assert "#" in failure.signature and "5432" not in failure.signature


def test_passed_later_and_fold() -> None:
    assert eval_moments.passed_later(TRANSCRIPT) == {"pytest"}
    assert eval_moments.fold("Exit code 1") == ""
    assert eval_moments.fold("cp: /home/a/x: Text file busy") == eval_moments.fold(
        "cp: /home/b/y: Text file busy")


def test_a_fix_is_recorded_when_a_gotcha_names_the_command_or_the_error() -> None:
    (failure,) = [c for c in eval_moments.moment_calls("s", TRANSCRIPT, "/")
                  if c.hook == "post-tool-use-failure"]
    capture = "- `pytest` failed (`e   operationalerror`); it passed after editing `db.py`"
    mined = "- db tests: " + failure.signature + " fix: start postgres"

    assert eval_moments.recorded(failure, capture)
    assert eval_moments.recorded(failure, mined)
    assert not eval_moments.recorded(failure, "- `npm test` failed (`x`); it passed")
