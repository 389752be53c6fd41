"""The open step a briefing names is the session's state at its end: a question the last answer
leaves to the person is carried; a todo left pending and then done, or a step named and then
done later in the session, is not. In-process hooks on made-up transcripts, in a temp vault."""

from __future__ import annotations

from pathlib import Path

from transcript_kit import Transcript, briefing, end, stop

STEP = "Wire the retry queue into the payment webhook handler"
DONE = ("I added the exponential backoff helper in `payments/retry.py` and covered it with six "
        "unit tests; all of them pass.")


def _next_steps(told: str) -> str:
    """The briefing's "Next steps:" lines (lower case), where an open step is named."""
    after = told.lower().split("next steps:\n", 1)
    lines = after[1].split("\n") if len(after) > 1 else []
    return "\n".join(lines[: next((n for n, line in enumerate(lines)
                                   if not line.startswith("- ")), len(lines))])


def _edit(log: Transcript, ident: str) -> None:
    log.call(ident, "Edit", {"file_path": "/home/dev/work/shop/payments/retry.py",
                             "old_string": "a", "new_string": "b"})
    log.result(ident, "ok")


def test_a_question_the_last_answer_leaves_to_the_person_is_carried(
        env: Path, log: Transcript) -> None:
    log.prompt("add retries to the payment webhooks")
    _edit(log, "e1")
    log.say(f"{DONE}\n\nShould I also wire the retry queue into the payment webhook handler, "
            "or keep it for the next release?")
    stop(log)
    end(log)
    assert "retry queue into the payment webhook" in briefing().lower()


def test_a_todo_left_pending_then_completed_is_no_open_step(env: Path, log: Transcript) -> None:
    log.prompt("add retries to the payment webhooks")
    todos = [{"content": "Write the backoff helper", "status": "completed",
              "activeForm": "Writing the backoff helper"},
             {"content": STEP, "status": "pending", "activeForm": "Wiring the retry queue"}]
    log.call("t1", "TodoWrite", {"todos": todos})
    log.result("t1", "Todos have been modified successfully.")
    _edit(log, "e1")
    log.call("t2", "TodoWrite", {"todos": [{**t, "status": "completed"} for t in todos]})
    log.result("t2", "Todos have been modified successfully.")
    log.say(f"{DONE} The retry queue is wired into the webhook handler too.")
    stop(log)
    end(log)
    told = briefing()
    assert "retry queue" not in _next_steps(told), told


def test_a_next_step_done_later_in_the_session_is_no_open_step(
        env: Path, log: Transcript) -> None:
    log.prompt("add retries to the payment webhooks")
    _edit(log, "e1")
    log.say(f"{DONE}\n\nNext steps:\n1. {STEP}")
    stop(log)
    log.prompt("go ahead and wire it")
    _edit(log, "e2")
    log.say("Wired the retry queue into the payment webhook handler; the webhook tests pass. "
            "Next: add a metric for retries.")
    stop(log)
    end(log)
    told = briefing()
    assert "metric for retries" in _next_steps(told), told
    assert "retry queue" not in _next_steps(told), told  # its outcome line tells it done
