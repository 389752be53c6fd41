"""claude/condensed.py: a session's transcript condensed for the claude extractor."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from vaultmem.claude import condensed

CWD = "/home/dev/shop"


def user(text: Any, **extra: Any) -> str:
    return json.dumps({"type": "user", "message": {"role": "user", "content": text},
                       "timestamp": "2026-11-22T06:03:38.762Z", "cwd": CWD, **extra})


def assistant(*blocks: dict[str, Any]) -> str:
    return json.dumps({"type": "assistant", "cwd": CWD,
                       "message": {"role": "assistant", "content": list(blocks)}})


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


def bash(command: str, tool_id: str) -> dict[str, Any]:
    return {"type": "tool_use", "id": tool_id, "name": "Bash", "input": {"command": command}}


def result(tool_id: str, output: str, *, error: bool = False) -> str:
    return user([{"type": "tool_result", "tool_use_id": tool_id, "content": output,
                  "is_error": error}])


SESSION = [
    user("Fix the webhook <private>token abc123"),
    assistant(text("Looking.")),
    user("still secret</private> and run the tests"),
    assistant(text("I'll run them."), bash("pytest -q", "t1")),
    result("t1", "Exit code 1\n..F\nFAILED tests/test_hook.py::test_sig - AssertionError: bad",
           error=True),
    assistant({"type": "tool_use", "id": "t2", "name": "Edit",
               "input": {"file_path": f"{CWD}/src/billing/webhook.py"}}),
    assistant(bash("pytest -q", "t3")),
    result("t3", "3 passed"),
    assistant(text("The root cause was the parsed body; the fix reads the raw bytes.")),
    "not json at all",
]


def test_a_session_reads_as_turns_of_prompts_answers_commands_failures_and_files() -> None:
    out = condensed.render(condensed.turns(SESSION), 10_000)

    assert out == (
        "### Turn (2026-11-22 06:03)\nUser: Fix the webhook\n\n"
        "### Turn (2026-11-22 06:03)\nUser: and run the tests\nClaude: I'll run them.\n"
        "Claude: The root cause was the parsed body; the fix reads the raw bytes.\n"
        "Ran: `pytest -q` ×2\n"
        "Failed: `pytest -q` — FAILED tests/test_hook.py::test_sig - AssertionError: bad\n"
        "Changed: src/billing/webhook.py"
    )
    # A span open across two prompts: everything in between stays private, Claude's reply too.
    assert "abc123" not in out and "still secret" not in out and "Looking" not in out


def test_over_the_budget_the_oldest_turns_go_first() -> None:
    lines = [user(f"prompt number {i} " + "x" * 80) for i in range(50)]

    out = condensed.render(condensed.turns(lines), 1000)

    assert out.startswith("[") and "earlier turns left out]" in out
    assert "prompt number 49" in out and "prompt number 0 " not in out
    assert len(out) <= 1100


def test_read_takes_the_sessions_transcripts_in_order_and_none_when_unreadable(
    tmp_path: Path,
) -> None:
    first, second = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    first.write_text(user("first prompt") + "\n")
    second.write_text(user("second prompt") + "\n")

    out = condensed.read([str(first), str(second), str(first)], 10_000)

    assert out is not None and out.index("first prompt") < out.index("second prompt")
    assert out.count("first prompt") == 1
    assert condensed.read([str(tmp_path / "missing.jsonl")], 10_000) is None


def test_a_path_that_is_not_a_regular_file_is_passed_over(tmp_path: Path) -> None:
    import os

    fifo = tmp_path / "transcript.fifo"
    os.mkfifo(fifo)  # nobody writes to it: opening it the plain way would wait forever
    good = tmp_path / "good.jsonl"
    good.write_text(user("the real prompt") + "\n")

    out = condensed.read([str(fifo), str(tmp_path), str(good)], 10_000)

    assert out is not None and "the real prompt" in out
