"""leftopen.py: whether a session's last request was left unfinished."""

from __future__ import annotations

import pytest

from vaultmem.brief import leftopen


@pytest.mark.parametrize(("request_", "answer"), [
    ("commit and push all changes", "There's a merge in progress."),
    ("resume", "I can see the issue - the pre-commit hook needs Python but it's not found."),
    ("2", "Perfect! Let's proceed with the full MSYS2 rebase to end the fork errors."),
    ("migrate", "The migration ran. The deploy still needs the STRIPE_KEY secret."),
])
def test_an_answer_ending_on_a_blocker_or_an_announced_move_leaves_the_request_unfinished(
        request_: str, answer: str) -> None:
    assert leftopen.unfinished(request_, answer)


@pytest.mark.parametrize(("request_", "answer"), [
    ("why do a pull request after a commit",
     "The checks run on the branch first: a failure still blocks nothing on main."),
    ("is there a usage tracker for Windows", "ccusage needs no install."),
    ("commit and push", "The hook failed once. Committed and pushed to `main`."),
    ("fix the flaky test", "Fixed the failing test: it waited on a real clock."),
    ("ping the gateway", "The gateway answers in 2 ms, so the local network is fine."),
    ("", "There's a merge in progress."),
])
def test_a_question_or_an_answer_ending_on_its_outcome_leaves_nothing_unfinished(
        request_: str, answer: str) -> None:
    assert not leftopen.unfinished(request_, answer)
