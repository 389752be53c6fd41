"""mining: knowledge stated without a cue word (a fault located, a thing kept as it was on
purpose, an "issue:" lead-in), and the progress lines that look like it but are not."""

from __future__ import annotations

from vaultmem.mining.answers import Mined, mine, mine_turn
from vaultmem.notes.schema import Kind


def test_a_fault_located_by_its_symptoms_is_a_gotcha() -> None:
    text = "The 502s are all symptoms of the proxy's keep-alive pool running dry."
    assert mine(text) == (Mined(Kind.GOTCHA, text),)


def test_a_fault_named_by_its_component_is_a_gotcha() -> None:
    text = "This is a Jetty/HTTP2 window-update flow control issue."
    assert mine(text) == (Mined(Kind.GOTCHA, text),)
    assert mine("It was a `uvicorn --reload` file watcher problem.") != ()


def test_a_fault_that_names_nothing_is_not_a_gotcha() -> None:
    for text in ("This is a known issue.", "That is a big problem.", "It was a bug.",
                 "This is a pre-existing test issue.", "This is the same issue as before.",
                 "It was a `uvloop` issue."):
        assert mine(text) == (), text


def test_a_diagnosis_while_still_working_waits_for_its_fix() -> None:
    # Mid-turn (a tool call follows) the diagnosis is a hypothesis: kept only with the fix.
    thought = "This is a Redis/Lua script caching issue."
    assert mine_turn((thought,), acted=1) == ()
    fixed = mine_turn((thought, "Flushing the script cache with SCRIPT FLUSH fixed it."), acted=1)
    assert [m.kind for m in fixed] == [Kind.GOTCHA]
    assert "Redis/Lua" in fixed[0].text and "SCRIPT FLUSH" in fixed[0].text


def test_a_thing_left_as_it_was_with_its_reason_is_a_decision() -> None:
    text = ("The archived exports still use the old column names, so I left them unchanged to "
            "keep old reports reproducible.")
    assert mine(text) == (Mined(Kind.DECISION, text),)
    passive = "The v1 endpoint was kept in place so mobile clients on old builds keep working."
    assert mine(passive) == (Mined(Kind.DECISION, passive),)


def test_a_thing_left_as_it_was_without_a_reason_is_progress() -> None:
    for text in ("I left the rest of the file untouched.", "I kept the other tests as they were.",
                 "Let me leave the config unchanged for now and run the tests.",
                 "Now I need to keep the schema intact to see whether the import passes."):
        assert mine(text) == (), text


def test_a_main_issue_lead_in_is_a_gotcha() -> None:
    text = "**Main issue:** the nightly job runs twice on the day clocks change."
    assert mine(text) == (Mined(Kind.GOTCHA, "The nightly job runs twice on the day clocks change."),)
    heading = "**Primary Problem: Stale DNS Cache In The Sidecar**\n\nDetails follow."
    assert [m.kind for m in mine(heading)] == [Kind.GOTCHA]


def test_an_issue_word_in_a_progress_line_is_not_a_label() -> None:
    for text in ("Now I see the main issue here, let me check the config.",
                 "Hmm, the real problem is that I keep checking the wrong file."):
        assert mine(text) == (), text


def test_a_cause_told_after_the_turns_last_tool_call_is_kept_without_a_fix() -> None:
    told = ("I see - both SSH attempts failed because the hostname `nas` doesn't resolve. "
            "Could you give me its IP address?")
    gotchas = [m.text for m in mine_turn((told,), 0, called=True) if m.kind == Kind.GOTCHA]
    assert gotchas == ["Both SSH attempts failed because the hostname `nas` doesn't resolve."]
    after = mine_turn(("Let me try SSH.", told), 1, called=True)
    assert [m.kind for m in after] == [Kind.QUESTION, Kind.GOTCHA]


def test_a_cause_mused_before_a_call_or_guessed_at_the_end_is_still_not_kept() -> None:
    mused = "I see - the build fails because the cache is stale."
    assert mine_turn((mused, "The build passes now."), 1, called=True) == ()
    assert mine_turn((mused,), 1, called=True) == ()  # a call followed it: the read stopped
    assert mine_turn((mused,)) == ()  # no call in the turn: the corpus's musing alone
    guessed = "Looks like the build fails because the cache is stale."
    assert mine_turn((guessed,), 0, called=True) == ()
