"""brief/worksite.py: where the last session left its work in git (the branch it pushed, the
commit it made, the pull request it opened), said in its block of the briefing even when the
answer that says it has no room. Real hooks on made-up transcripts, in a temporary vault, and
digests of made-up answers."""

from __future__ import annotations

from pathlib import Path

from transcript_kit import Transcript, briefing, end, stop

from vaultmem.brief import worksite
from vaultmem.brief.digest import SessionDigest
from vaultmem.brief.worklog import Turn

TITLE = "Where its work was left (git):"
LONG = " ".join(f"Step {n} of the retry logic waits {n * 2} seconds before the next try."
                for n in range(12))


def _last_session(text: str) -> str:
    return text.split("Last session (data):\n", 1)[1].split("\n~~~\n", 1)[0]


def test_the_branch_an_earlier_answer_pushed_is_in_the_last_session_block(
        env: Path, log: Transcript) -> None:
    log.prompt("commit and push the login work")
    log.say("Committed `3f2a1b9` and pushed to the branch `feature/login`. The pull request "
            "is not opened yet.")
    stop(log)
    for ask in ("explain the retry logic", "and the backoff?", "what about jitter?",
                "summarise the tests"):
        log.prompt(ask)
        log.say(f"The retry logic is in `client.py`. {LONG}")
        stop(log)
    end(log)
    last = _last_session(briefing())
    where = last.split(f"{TITLE}\n", 1)[1].split("\n", 1)[0]
    assert where.startswith("- ") and "`feature/login`" in where and "`3f2a1b9`" in where
    # After what the session ended with, before what comes next.
    assert last.index("Outcome (its last answers") < last.index(TITLE)


def _session(*answers: str) -> SessionDigest:
    turns = tuple(Turn(f"1{n}:00", f"ask {n}", answer) for n, answer in enumerate(answers))
    return SessionDigest(rel="p/sessions/2026-11-20-s.md", date="2026-11-20", topic="t",
                         status="ended", branch="", turns=turns, failing=(), decisions=(),
                         gotchas=(), prerequisites=(), open_questions=(), next_steps=(),
                         entities=())


def test_the_newest_answer_naming_where_is_said_with_a_newer_one_saying_what_is_not_done() -> None:
    lines = worksite.where_left(_session(
        "Opened PR #41 for the parser.",
        "Everything is committed and pushed to your branch. Recent commits on `fix/parser`.",
        "Your changes are on your feature branch, but NOT on the main branch yet.",
        "The parser handles nested lists now."))
    pushed = ("11:00 Everything is committed and pushed to your branch; Recent commits on "
              "`fix/parser`")
    not_yet = "12:00 Your changes are on your feature branch, but NOT on the main branch yet"
    assert lines == [pushed, not_yet]


def test_talk_about_commits_that_says_no_place_is_not_where_the_work_was_left() -> None:
    assert worksite.where_left(_session(
        "The pre-commit hook blocks commits holding `sk-` keys.",
        "Should I push to `main` now?",
        "Merged `a.py` into `lib/util.py`.",
        "Everything is committed and pushed.")) == []


def test_a_place_the_briefing_shows_anyway_is_not_said_twice() -> None:
    s = _session("Pushed to the branch `feature/x`.")
    assert worksite.where_left(s) == ["10:00 Pushed to the branch `feature/x`"]
    assert worksite.where_left(s, ["- 10:00 ask 0 → Pushed to the branch `feature/x`."]) == []
