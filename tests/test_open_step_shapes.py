"""The step a session left open reaches the next briefing, whatever shape its last answer
gives it: a "Remaining:" / "Still to do" / "Follow-ups" lead-in, a numbered "Next steps" list,
todo items left pending, a one-sentence "the one thing left is …". In-process hooks on
made-up transcripts, in a temporary vault. (A plan approved and not finished is not carried:
its steps are no next steps, and nothing tells which of them the session did.)"""

from __future__ import annotations

from pathlib import Path

import pytest
from transcript_kit import Transcript, briefing, end, stop

STEP = "Wire the retry queue into the payment webhook handler"
DONE = ("I added the exponential backoff helper in `payments/retry.py` and covered it with six "
        "unit tests; all of them pass.")

SHAPES = {
    "remaining": f"{DONE}\n\nRemaining: {STEP.lower()}.",
    "remaining-list": f"{DONE}\n\n**Remaining:**\n- {STEP}\n- Add a metric for retries",
    "still-to-do": f"{DONE}\n\nStill to do:\n\n1. {STEP}\n2. Add a metric for retries",
    "follow-ups": f"{DONE}\n\n## Follow-ups\n\n- {STEP}\n- Add a metric for retries",
    "numbered": f"{DONE}\n\nNext steps:\n1. {STEP}\n2. Add a metric for retries",
    "sentence": f"{DONE} The one thing left is to {STEP[0].lower() + STEP[1:]}.",
    "summary-then-next": (f"## Summary\n\n- Added the backoff helper\n- Six tests pass\n"
                          f"- Docs updated\n- Changelog entry\n- Lint clean\n\n"
                          f"## Next Steps\n\n1. {STEP}\n2. Add a metric for retries"),
}


def _session(log: Transcript, final: str) -> None:
    log.prompt("add retries to the payment webhooks")
    log.say("I'll start with the backoff helper.")
    log.call("e1", "Edit", {"file_path": "/home/dev/work/shop/payments/retry.py",
                            "old_string": "a", "new_string": "b"})
    log.result("e1", "ok")
    log.say(final)
    stop(log)
    end(log)


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_the_open_step_of_a_last_answer_is_in_the_briefing(
        env: Path, log: Transcript, shape: str) -> None:
    _session(log, SHAPES[shape])
    told = briefing()
    assert "retry queue into the payment webhook" in told.lower(), told


def test_todo_items_left_pending_are_in_the_briefing(env: Path, log: Transcript) -> None:
    log.prompt("add retries to the payment webhooks")
    log.call("t1", "TodoWrite", {"todos": [
        {"content": "Write the backoff helper", "status": "completed",
         "activeForm": "Writing the backoff helper"},
        {"content": STEP, "status": "pending", "activeForm": "Wiring the retry queue"}]})
    log.result("t1", "Todos have been modified successfully.")
    log.say(DONE)
    stop(log)
    end(log)
    assert "retry queue into the payment webhook" in briefing().lower()
