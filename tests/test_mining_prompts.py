"""A rule the person states in a prompt: which prompts set one, and what of them is kept."""

from __future__ import annotations

import pytest

from vaultmem.mining.prompts import CHOICE_LABEL, LABEL, choice, decisions, rule


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


@pytest.mark.parametrize("prompt", [
    "no, use pnpm",
    "Nope - keep the old name, other repos import it.",
    "actually, let's go with Postgres for the queue",
    "when running the linter on staged files dont block the commit, instead fix each finding",
    "Don't use sudo, install it in the user's home instead.",
    "instead of a cron job, use a systemd timer",
    "stick with the current schema, we can migrate later",
    "nein, nimm lieber SQLite für den Cache",
    "utilise plutôt pnpm pour les installations",
    "no, usa pnpm para las dependencias",
])
def test_a_prompt_that_changes_course_is_a_choice_kept_whole(prompt: str) -> None:
    assert decisions(prompt, None) == [f"{CHOICE_LABEL} {prompt}"]


@pytest.mark.parametrize("prompt", [
    "no", "no, that's not it", "why did you use pnpm instead of npm?",
    "should we use Postgres instead?", "can you switch to the other branch?",
    "use the vendor CLI to raise the fan speed", "don't forget to commit",
    "let's go with option 2", "fix the tests instead of asking",
])
def test_a_no_a_question_a_task_or_a_bare_option_number_is_no_choice(prompt: str) -> None:
    assert choice(prompt) is None


def test_a_rule_or_a_pick_of_the_options_before_is_not_said_twice_as_a_choice() -> None:
    assert decisions("from now on use pnpm instead of npm", None) == [
        f"{LABEL} from now on use pnpm instead of npm"]
    asked = "Which store should the cache use?\n\n1. Redis\n2. SQLite\n\nWhich do you prefer?"
    found = decisions("let's go with option 2", asked)
    assert len(found) == 1 and "chose: SQLite" in found[0]


@pytest.mark.parametrize("prompt", [
    "switch to the main branch and pull", "let's use the debugger to find it",
])
def test_a_step_said_with_a_choosing_verb_is_no_choice(prompt: str) -> None:
    assert choice(prompt) is None
