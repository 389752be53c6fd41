"""A rule the person states in a prompt: which prompts set one, and what of them is kept."""

from __future__ import annotations

import pytest

from vaultmem.mining.prompts import LABEL, rule


@pytest.mark.parametrize("prompt", [
    "never commit without signing. use ps GPG alt",
    "Always run ruff before you commit",
    "ok. from now on use pnpm not npm",
    "use pnpm instead of npm for installs",
    "Don't ever push to main directly",
    "Prefer small commits with one concern each",
])
def test_a_prompt_that_sets_how_work_is_done_is_a_rule_kept_whole(prompt: str) -> None:
    assert rule(prompt) == f"{LABEL} {prompt}"


@pytest.mark.parametrize("prompt", [
    None, "", "never", "always?", "never mind, fix the build", "is it always like this?",
    "I never said that", "can you fix the login bug", "remove the Morning Day Night headers",
])
def test_a_question_a_request_or_a_bare_cue_sets_no_rule(prompt: str | None) -> None:
    assert rule(prompt) is None


def test_a_long_prompt_keeps_the_sentences_that_state_the_rule() -> None:
    pasted = "Here is the log I got when I ran it: " + "error line. " * 40
    prompt = f"{pasted}\nAlways pin the wombat version in CI. Thanks!"
    assert rule(prompt) == f"{LABEL} Always pin the wombat version in CI."
