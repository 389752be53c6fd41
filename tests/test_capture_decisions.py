"""Decisions with no reason word, where the person meets them (the lead's decision, stop 48): a
directive the person gives and Claude acts on, and a state a final answer says was set up by
choice. Hooks run in-process on made-up transcripts, into a temporary vault; the session note's
``Decisions Made`` is what compaction files under the entity notes."""

from __future__ import annotations

from pathlib import Path

import pytest
from transcript_kit import CWD, Transcript, end, note, section, stop

from vaultmem.mining.answers import mine, mine_turn
from vaultmem.mining.prompts import LABEL
from vaultmem.notes.schema import Kind


def _decisions(env: Path) -> list[str]:
    return section(note(env), "Decisions Made")


def _holds(lines: list[str], said: str) -> bool:
    return any(line.startswith(f"- {said}") for line in lines)


def _session(env: Path, log: Transcript, prompt: str, answer: str, *, edit: bool = False
             ) -> list[str]:
    """The ``Decisions Made`` of a session of one turn: ``prompt``, a tool call (an edit of a
    config file, else a command) and ``answer``."""
    log.prompt(prompt)
    if edit:
        log.call("e1", "Edit", {"file_path": f"{CWD}/deploy/service.conf",
                                "old_string": "a", "new_string": "b"})
        log.result("e1", "The file has been updated.")
    else:
        log.call("b1", "Bash", {"command": "git status --short"})
        log.result("b1", "")
    log.say(answer)
    stop(log)
    end(log)
    return _decisions(env)


@pytest.mark.parametrize("prompt", [
    "don't use sudo for pip installs in this repo",
    "commits should be signed with the wombat key",
    "The config file should live in ~/.config/wombat",
    "Passwords must never be logged",
])
def test_a_directive_claude_acts_on_is_a_decision_the_person_asked_for(
        env: Path, log: Transcript, prompt: str) -> None:
    decisions = _session(env, log, prompt, "Done: the setup follows that from now on.")
    assert _holds(decisions, f"{LABEL} {prompt}")


@pytest.mark.parametrize("prompt", [
    "fix the bug in the wombat parser", "add a test for the parser", "don't push yet",
    "the tests should pass now", "we should fix the parser first", "it should work now",
    "should the parser use regexes?",
])
def test_a_request_an_expectation_or_a_question_is_no_decision(
        env: Path, log: Transcript, prompt: str) -> None:
    assert not [d for d in _session(env, log, prompt, "All three tests pass.") if LABEL in d]


def test_a_directive_claude_asks_back_about_is_not_taken_yet(env: Path, log: Transcript) -> None:
    log.prompt("commits should be signed with the wombat key")
    log.say("Which key do you mean: the GPG key or the SSH key?")
    stop(log)
    end(log)
    assert not [d for d in _decisions(env) if LABEL in d]


@pytest.mark.parametrize(("answer", "said"), [
    ("Done. The API client now uses httpx.", "The API client now uses httpx."),
    ("Configured nginx to serve HTTP/2 only. Reloaded it.",
     "Configured nginx to serve HTTP/2 only."),
    ("Changed the log level from DEBUG to INFO.", "Changed the log level from DEBUG to INFO."),
    ("`max_connections` is now set to 50.", "`max_connections` is now set to 50."),
    ("Switched the CI runner from ubuntu-20.04 to ubuntu-22.04.",
     "Switched the CI runner from ubuntu-20.04 to ubuntu-22.04."),
    ("Pinned `numpy` to 1.26 in requirements.txt.", "Pinned `numpy` to 1.26 in requirements.txt."),
])
def test_a_state_the_final_answer_says_was_chosen_is_a_decision(
        env: Path, log: Transcript, answer: str, said: str) -> None:
    assert _holds(_session(env, log, "get the service ready", answer, edit=True), said)


@pytest.mark.parametrize("answer", [
    "Updated the README with the install steps.", "Added a test for the parser.",
    "Set the timeout to 30 seconds in your config.", "Switched to the main branch and pulled.",
    "It now uses the new client.", "Set up the database with the schema.",
    "Changed `parse()` to return None on empty input.", "The test now passes.",
    "You could set the timeout to 60 seconds to be safe.",
])
def test_a_progress_line_an_instruction_or_a_pronoun_is_no_decision(
        env: Path, log: Transcript, answer: str) -> None:
    assert _session(env, log, "get the service ready", answer, edit=True) == []


def test_a_state_said_between_tool_calls_is_work_in_progress() -> None:
    said = "The API client now uses httpx."
    assert mine_turn((said, "All 12 tests pass."), acted=1) == ()
    assert [(m.kind, m.text) for m in mine_turn(("Running the tests.", said), acted=1)] == [
        (Kind.DECISION, said)]
    assert [m.kind for m in mine(said)] == [Kind.DECISION]



SETTINGS_TABLE = """Done, the pool is tuned for the load test:

| Setting | Value |
|---|---|
| `pool_size` | 20 |
| statement timeout | 5s |
"""


def test_a_table_of_settings_in_the_final_answer_gives_its_states(
        env: Path, log: Transcript) -> None:
    decisions = _session(env, log, "tune the database pool", SETTINGS_TABLE, edit=True)
    assert _holds(decisions, "`pool_size`: 20")
    assert _holds(decisions, "Statement timeout: 5s")


def test_a_table_of_settings_between_tool_calls_or_a_reading_is_no_decision() -> None:
    reading = SETTINGS_TABLE.replace("| Setting | Value |", "| Setting | Current |")
    assert mine_turn((SETTINGS_TABLE, "All 12 tests pass."), acted=1) == ()
    assert mine(reading) == ()


def test_a_table_row_is_read_as_the_line_of_prose_it_says() -> None:
    answer = ("Summary of the changes:\n\n| File | Change |\n|---|---|\n"
              "| `client.py` | The API client now uses httpx |\n"
              "| `README.md` | Updated the install steps |\n")
    assert [(m.kind, m.text) for m in mine(answer)] == [
        (Kind.DECISION, "`client.py`: The API client now uses httpx")]
    weighed = answer.replace("| File | Change |", "| Option | Pros |")
    assert mine(weighed) == ()


def test_an_alert_callout_is_claudes_own_words_a_quote_is_not() -> None:
    said = "The worker now uses Redis for its queue."
    alert = f"Done.\n\n> [!IMPORTANT]\n> {said}\n\nAll tests pass."
    assert [(m.kind, m.text) for m in mine(alert)] == [(Kind.DECISION, said)]
    assert mine(f"Done.\n\n> {said}\n\nAll tests pass.") == ()


@pytest.mark.parametrize(("answer", "said"), [
    ("Done. Merged `test_redaction.py` into `Projects/Tests/`:\n\n```\nProjects/Tests/\n```",
     "Merged `test_redaction.py` into `Projects/Tests/`"),
    ("Renamed `docs/old/` to `docs/guides/`.", "Renamed `docs/old/` to `docs/guides/`."),
    ("JSON is now the default output format.", "JSON is now the default output format."),
    ("Enabled `noImplicitAny` in tsconfig.json.", "Enabled `noImplicitAny` in tsconfig.json."),
    ("Configured the statusline to show the model name.",
     "Configured the statusline to show the model name."),
])
def test_a_name_a_place_a_default_or_a_switch_the_answer_gives_is_a_decision(
        env: Path, log: Transcript, answer: str, said: str) -> None:
    assert _holds(_session(env, log, "tidy the project layout", answer), said)


@pytest.mark.parametrize("answer", [
    "Moved on to the next file.", "Enabled debug logging temporarily to trace it.",
    "**Disabled Categories:**\n\n- telemetry", "Configured it to run daily.",
    "Merged the PR into main.", "Renamed `getUser` to `fetchUser`.",
    "Moved the Stripe calls into `billing/gateway.py`.",
])
def test_a_move_on_a_while_a_label_or_a_pronoun_is_no_decision(
        env: Path, log: Transcript, answer: str) -> None:
    assert _session(env, log, "tidy the project layout", answer) == []


@pytest.mark.parametrize("prompt", [
    "use pnpm for installs in this repo", "let's use SQLite as the cache", "I prefer tabs over spaces",
])
def test_a_tool_given_a_role_or_a_preference_is_a_directive(
        env: Path, log: Transcript, prompt: str) -> None:
    decisions = _session(env, log, prompt, "Done: the setup follows that from now on.")
    assert _holds(decisions, f"{LABEL} {prompt}")


def test_a_tool_used_for_a_task_is_no_directive(env: Path, log: Transcript) -> None:
    prompt = "use the vendor CLI to raise the fan speed"
    assert not [d for d in _session(env, log, prompt, "The fans run at full speed.")
                if LABEL in d]

