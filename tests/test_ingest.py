"""ingest.py: transcript lines -> one entry per turn and mined items, as section patches (pure)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt
from property_kit import examples

from vaultmem.claude import ingest, notelisted, workentry
from vaultmem.claude.toolblocks import Outcome, ToolCall
from vaultmem.claude.transcript import Turn
from vaultmem.notes import patch, sections
from vaultmem.notes.patch import SectionPatch

NOW = datetime(2026, 11, 22, 10, 30, tzinfo=timezone.utc)
CWD = "/home/dev/work/shop"
NOTE = """---
type: session
---
# Session

## Context

## Work Log

### 08:00 - Earlier

- an older entry

## Decisions Made

- an older decision

## Open Questions
"""


def _turn(uuid: str, stamp: str | None = "2026-11-22T09:15:00Z", **kw: Any) -> Turn:
    return Turn(uuid, stamp, kw.pop("prompt", None), **kw)


def _write(ident: str, path: str, tool: str = "Write") -> ToolCall:
    return ToolCall(ident, tool, path=path)


def _bash(ident: str, command: str) -> ToolCall:
    return ToolCall(ident, "Bash", command=command)


def _edits(turns: list[Turn], note: str = "", **kw: Any) -> list[patch.Edit]:
    return ingest.edits_for(ingest.story(turns, now=NOW, **kw), note)


def _only(edits: list[patch.Edit], heading: str) -> SectionPatch:
    found = [e for e in edits if isinstance(e, SectionPatch) and e.heading == (heading,)]
    assert len(found) == 1, edits
    return found[0]


def test_no_turns_no_edits() -> None:
    assert _edits([]) == []


def test_a_prompt_opens_a_work_log_entry() -> None:
    edits = _edits([_turn("u1", prompt="Add a login module please")])
    log = _only(edits, "Work Log")
    assert log.content == (
        "### 09:15 - Add a login module please\n\n**Prompt:** Add a login module please"
    )
    assert (log.op, log.subtree, log.create, log.prefer) == ("append", True, True, "first")
    assert len(edits) == 1  # nothing mined: no other section is touched


def test_the_answer_is_the_turn_s_final_prose_condensed_to_one_line() -> None:
    final = (
        "## Summary\n\nI added the login module and\nwired it into the app.\n\n"
        "```python\ndef login(): ...\n```\n\n"
        "Some details nobody needs later. I went with argon2id over bcrypt because it is "
        "memory-hard. Next, we should add the refund endpoint."
    )
    turns = [_turn("u1", prompt="add login"), _turn("a1", text="Let me look first."),
             _turn("a2", text=final)]
    log = _only(_edits(turns), "Work Log")
    answer = next(line for line in log.content.split("\n") if line.startswith("**Answer:**"))
    assert answer == (
        "**Answer:** I added the login module and wired it into the app. I went with argon2id "
        "over bcrypt because it is memory-hard. Next, we should add the refund endpoint."
    )
    assert "Let me look first" not in log.content


def test_answers_are_cut_to_a_few_hundred_characters() -> None:
    long = " ".join(f"Sentence number {i} says a little more." for i in range(60))
    answer = workentry.condense(long, ["x" * 50])
    assert len(answer) <= workentry.ANSWER_MAX_CHARS and answer.endswith(".")
    assert workentry.condense("a" * 1000, []).endswith("…")


def test_an_answer_opening_in_bold_keeps_its_bold_whole() -> None:
    # Claude often opens with a bold verdict; stripping list markers must not eat the "**".
    assert workentry.condense("**DNS is not working** on your system.", []) == (
        "**DNS is not working** on your system.")
    assert workentry.condense("- **Fixed:** the router drops DNS", []) == (
        "**Fixed:** the router drops DNS")
    assert workentry.condense("1. Renamed the module", []) == "Renamed the module"
    cut = workentry.condense("**" + "word " * 200 + "**", [])
    assert cut.endswith("**…") and cut.count("**") == 2


def test_a_long_prompt_is_capped_with_what_was_left_out_and_kept_whole_below() -> None:
    prompt = "word " * 2000 + "the last words ## not a heading"
    log = _only(_edits([_turn("u1", prompt=prompt)]), "Work Log")
    lines = log.content.split("\n")
    line = next(x for x in lines if x.startswith("**Prompt:**"))
    rest = len(prompt.strip()) - workentry.PROMPT_MAX_CHARS
    assert line.endswith(f" … {rest} characters more")
    assert len(line) < workentry.PROMPT_MAX_CHARS + 60
    # Nothing the person said is lost: the prompt whole, folded, below its line.
    title = lines.index(f"> [!info]- The prompt whole ({len(prompt):,} characters)")
    assert title > lines.index(line)
    assert lines[title + 1] == f"> {prompt}"


def test_a_prompt_its_line_holds_is_not_kept_twice() -> None:
    log = _only(_edits([_turn("u1", prompt="word " * 100)]), "Work Log")
    assert "The prompt whole" not in log.content


def test_files_are_one_line_per_folder_and_commands_counted() -> None:
    calls = tuple(_write(f"w{i}", f"{CWD}/src/db/repos/repo_{i:02}.py") for i in range(42))
    turns = [
        _turn("u1", prompt="fix it"),
        _turn("a1", calls=calls + (_write("e1", "/etc/hosts", "Edit"),
                                   _write("e2", f"{CWD}/nb.ipynb", "NotebookEdit"))),
        _turn("a2", calls=(_bash("b1", "pytest -q"), _bash("b2", "echo `date`"),
                           _bash("b3", "pytest -q"), _bash("b4", "pytest -q"))),
    ]
    log = _only(_edits(turns, cwd=CWD + "/"), "Work Log")
    assert log.content == (
        "### 09:15 - fix it\n\n**Prompt:** fix it\n\n"
        "- Edited `src/db/repos/`: `repo_00.py`, `repo_01.py`, `repo_02.py`, `repo_03.py`, "
        "`repo_04.py`, … (42 files)\n"
        "- Edited `/etc/hosts`\n- Edited `nb.ipynb`\n"
        "- Ran `pytest -q` ×3\n- Ran `` echo `date` ``"
    )


def test_code_spans_survive_any_run_of_backticks() -> None:
    commands = ("a ``b`` c", "x ```y", "plain")
    calls = tuple(_bash(f"b{i}", c) for i, c in enumerate(commands))
    log = _only(_edits([_turn("a1", calls=calls)]), "Work Log")
    spans = [
        t
        for t in MarkdownIt().parseInline(log.content)[0].children or []
        if t.type == "code_inline"
    ]
    assert [t.content for t in spans] == list(commands)


def test_work_without_a_prompt_goes_to_a_continuation_entry() -> None:
    turns = [_turn("a1", stamp="2026-11-22T09:40:00Z", calls=(_bash("b1", "make"),))]
    log = _only(_edits(turns), "Work Log")
    assert log.content == "### 09:40 - Continued\n\n- Ran `make`"


def test_failures_are_one_line_with_their_first_error() -> None:
    turns = [
        _turn("u1", prompt="run the tests"),
        _turn("a1", calls=(_bash("b1", "pytest -q"),)),
        _turn("r1", outcomes=(Outcome("b1", True, "E   assert None == 'jwt'"),)),
        _turn("a2", calls=(_bash("b2", "pytest -q"), _write("w1", f"{CWD}/x.py", "Edit"))),
        _turn("r2", outcomes=(Outcome("b2", True, "E   assert None == 'jwt'"),
                              Outcome("w1", True, "String to replace not found in file."))),
        _turn("a3", calls=(_bash("b3", "grep -rn Error src"),)),
        _turn("r3", outcomes=(Outcome("b3", False, None), Outcome("unknown", True, "x"))),
    ]
    log = _only(_edits(turns, cwd=CWD), "Work Log")
    assert log.content.endswith(
        "- Edited `x.py`\n- Ran `pytest -q` ×2\n- Ran `grep -rn Error src`\n"
        "- Failed: `pytest -q` ×2 — `E assert None == 'jwt'`\n"
        "- Failed: Edit `x.py` — `String to replace not found in file.`"
    )


def test_a_failure_fixed_by_an_edit_is_a_gotcha_of_the_turn_s_components() -> None:
    turns = [
        _turn("u1", prompt="fix the webhook"),
        _turn("a1", calls=(_bash("b1", "pytest tests/test_billing.py"),)),
        _turn("r1", outcomes=(Outcome("b1", True, "E   KeyError: 'signature'"),)),
        _turn("a2", calls=(_write("w1", f"{CWD}/src/billing/webhook.py", "Edit"),)),
        _turn("a3", calls=(_bash("b2", "pytest tests/test_billing.py"),)),
        _turn("r3", outcomes=(Outcome("b2", False, None),)),
        # Passing again later is not a second fix.
        _turn("a4", calls=(_bash("b3", "pytest tests/test_billing.py"),)),
        _turn("r4", outcomes=(Outcome("b3", False, None),)),
    ]
    edits = _edits(turns, cwd=CWD)
    assert _only(edits, "Gotchas & Fixes").content == (
        "- Fixed by editing `src/billing/webhook.py`: `pytest tests/test_billing.py` failed "
        "(`E KeyError: 'signature'`) ([[Billing]])"
    )
    assert _only(edits, "Related Entities").content == "- [[Billing]] — `src/billing/`"


def test_a_windows_session_s_files_are_shown_relative_to_its_folder() -> None:
    # Windows paths use backslashes: the component's folder is shown as the project spells it
    # relative to the session's folder (not "./"), and the edited file likewise.
    cwd = "C:\\Users\\Dana\\shop"
    turns = [
        _turn("u1", prompt="fix the webhook"),
        _turn("a1", calls=(_write("w1", f"{cwd}\\src\\billing\\webhook.py", "Edit"),)),
    ]
    edits = _edits(turns, cwd=cwd)
    assert _only(edits, "Related Entities").content == "- [[Billing]] — `src/billing/`"
    assert "Edited `src/billing/webhook.py`" in _only(edits, "Work Log").content


def test_a_failure_with_no_edit_before_the_pass_is_no_gotcha() -> None:
    turns = [
        _turn("a1", calls=(_bash("b1", "make"),)),
        _turn("r1", outcomes=(Outcome("b1", True, "flaky"),)),
        _turn("a2", calls=(_bash("b2", "make"),)),
        _turn("r2", outcomes=(Outcome("b2", False, None),)),
    ]
    assert not [e for e in _edits(turns) if isinstance(e, SectionPatch)
                and e.heading == ("Gotchas & Fixes",)]


PROSE = (
    "I went with argon2id over bcrypt because it is memory-hard. The root cause was that the "
    "webhook parsed the body before verifying the signature. The tests need REDIS_URL set. "
    "Next, we should add the refund endpoint. Maybe we could cache tokens."
)


def test_mined_knowledge_goes_under_its_sections_with_the_components_it_is_about() -> None:
    # Changed in issue 19: an item mentioning no file goes to the components of the files its
    # turn edited, and a component only a test's name gives (tests/test_billing.py, no
    # src/billing/ in sight) is none: the old ([[Auth]], [[Billing]]) group was the bug.
    turns = [
        _turn("u1", prompt="harden auth"),
        _turn("a1", calls=(_write("w1", f"{CWD}/src/auth/hashing.py", "Edit"),
                           _write("w2", f"{CWD}/tests/test_billing.py", "Edit"))),
        _turn("a2", text=PROSE + "\n\nShould Postgres run in CI?"),
    ]
    edits = _edits(turns, cwd=CWD)
    comps = " ([[Auth]])"
    assert _only(edits, "Decisions Made").content == (
        "- I went with argon2id over bcrypt because it is memory-hard." + comps)
    assert _only(edits, "Gotchas & Fixes").content == (
        "- The root cause was that the webhook parsed the body before verifying the signature."
        + comps)
    assert _only(edits, "Prerequisites").content == "- The tests need REDIS_URL set." + comps
    assert _only(edits, "Next Steps").content == (
        "- Next, we should add the refund endpoint." + comps)
    assert _only(edits, "Open Questions").content == "- Should Postgres run in CI?" + comps
    assert _only(edits, "Related Entities").content == "- [[Auth]] — `src/auth/`"
    assert "Maybe we could" not in repr([e for e in edits if e.heading != ("Work Log",)])


def test_items_and_components_the_note_holds_are_not_added_again() -> None:
    turns = [_turn("a1", calls=(_write("w1", f"{CWD}/src/auth/x.py", "Edit"),)),
             _turn("a2", text=PROSE)]
    first = patch.apply_all(NOTE, _edits(turns, cwd=CWD)).text
    # The same knowledge stated again in a later turn, and a person's own copy of one item.
    person = first.replace("## Open Questions", "## Open Questions\n\n- The tests need X set.")
    again = [_turn("u9", prompt="again"), _turn("a9", text=PROSE + " The tests need X set."),
             _turn("a8", calls=(_write("w2", f"{CWD}/src/auth/y.py", "Edit"),))]
    edits = _edits(again, person, cwd=CWD)
    assert [e.heading for e in edits if isinstance(e, SectionPatch)] == [("Work Log",)]
    text = patch.apply_all(person, edits).text
    assert text.count("- I went with argon2id") == 1 and text.count("[[Auth]] —") == 1


def test_the_same_item_twice_in_one_batch_is_added_once() -> None:
    turns = [_turn("u1", prompt="a"), _turn("a1", text=PROSE),
             _turn("u2", prompt="b"), _turn("a2", text=PROSE)]
    decisions = _only(_edits(turns), "Decisions Made")
    assert decisions.content.count("argon2id") == 1


def test_timestamps_are_shown_in_the_clock_s_zone_and_bad_ones_fall_back() -> None:
    plus2 = timezone(timedelta(hours=2))
    now = datetime(2026, 11, 22, 12, 0, tzinfo=plus2)
    turns = [
        _turn("u1", stamp="2026-11-22T09:15:00Z", prompt="a"),
        _turn("u2", stamp="yesterday", prompt="b"),
    ]
    log = _only(ingest.edits_for(ingest.story(turns, now=now)), "Work Log")
    assert "### 11:15 - a" in log.content and "### 12:00 - b" in log.content


def test_titles_are_short_and_cannot_break_the_heading() -> None:
    assert ingest.title_of("one two three four five six seven eight nine ten") == (
        "one two three four five six seven eight…"
    )
    assert ingest.title_of("see [[Auth]] # now") == "see Auth now"
    assert ingest.title_of("x" * 200) == "x" * 80 + "…"
    assert ingest.title_of("  ## ") == "Note"
    # Cut at a word, never inside an open code span (it would swallow the heading's rest).
    assert ingest.title_of("why does `pytest tests/auth -x -q --lf --tb short -k refresh` hang") == (
        "why does…")
    # A terminal's coloured output pasted into the prompt: its colour codes are no words.
    assert ingest.title_of("deploy failed: \x1b[1;31mERROR\x1b[0m disk full") == (
        "deploy failed: ERROR disk full")


def test_edits_apply_to_a_session_note() -> None:
    turns = [
        _turn("u1", prompt="add login"),
        _turn("a1", text="Decision: use JWT.", calls=(_write("w1", f"{CWD}/a.py", "Edit"),)),
    ]
    text = patch.apply_all(NOTE, _edits(turns, cwd=CWD)).text
    assert text == NOTE.replace(
        "- an older entry\n",
        "- an older entry\n\n### 09:15 - add login\n\n**Prompt:** add login\n"
        "**Answer:** Decision: use JWT.\n\n- Edited `a.py`\n",
    ).replace("- an older decision\n", "- an older decision\n- Use JWT.\n")


def test_missing_sections_are_created() -> None:
    text = "---\ntype: session\n---\n# S\n"
    turns = [_turn("u1", prompt="p"), _turn("a1", text="Decision: use JWT.")]
    out = patch.apply_all(text, _edits(turns)).text
    assert out == (
        "---\ntype: session\n---\n# S\n\n## Work Log\n\n### 09:15 - p\n\n**Prompt:** p\n"
        "**Answer:** Decision: use JWT.\n\n## Decisions Made\n\n- Use JWT.\n"
    )


def test_a_note_with_duplicated_and_moved_sections_still_takes_the_turn() -> None:
    person = (
        "---\ntype: session\n---\n# S\n\n## Decisions Made\n\n- mine\n\n## Work Log\n\n"
        "## Decisions Made\n\n- pasted twice\n\n## Notes\n"
    )
    turns = [_turn("u1", prompt="p"), _turn("a1", text="Decision: use JWT.")]
    out = patch.apply_all(person, _edits(turns, person)).text
    assert out.startswith(
        "---\ntype: session\n---\n# S\n\n## Decisions Made\n\n- mine\n- Use JWT.\n")
    assert "### 09:15 - p" in out


# -- captured text cannot change the note's structure ------------------------------------------

HOSTILE = st.text(alphabet=st.sampled_from(list("#`~>|-*=_[]<!\n ax1.")), min_size=1, max_size=40)


@settings(max_examples=examples(150), deadline=None)
@given(HOSTILE, HOSTILE, HOSTILE, HOSTILE, HOSTILE)
def test_no_captured_field_opens_a_heading_fence_list_or_quote(
    prompt: str, path: str, command: str, error: str, prose: str
) -> None:
    turns = [
        _turn("u1", prompt=prompt),
        _turn("a1", text=f"Found it: {prose} and more words to keep it {prose}.",
              calls=(_write("w1", path), _bash("b1", command))),
        _turn("r1", outcomes=(Outcome("b1", True, error),)),
        _turn("a2", text=f"Decision: {prose}. Next, {prose}."),
    ]
    edits = _edits(turns)
    before = "---\ntype: session\n---\n# S\n\n## Work Log\n\n## Decisions Made\n\n## Next Steps\n"
    out = _without_answer_callouts(patch.apply_all(before, edits).text)
    titles = [(h.level, h.title) for h in sections.headings(out)]
    assert titles[:2] == [(1, "S"), (2, "Work Log")]
    # What Claude found along the way may be a gotcha: its section is the one added.
    assert [t for t in titles if t[0] != 3 and t != (2, "Gotchas & Fixes")] == [
        (1, "S"), (2, "Work Log"), (2, "Decisions Made"), (2, "Next Steps")]
    tokens = MarkdownIt().parse(out)
    assert not [t for t in tokens if t.type in ("fence", "blockquote_open", "code_block")]
    for edit in edits:
        assert isinstance(edit, SectionPatch)
        for line in _without_answer_callouts(edit.content).split("\n"):
            assert not line.startswith(("#", ">", "```", "~~~", "|")) or line.startswith("### ")


def _without_answer_callouts(text: str) -> str:
    """``text`` without the collapsed callouts that keep an answer whole (issue 19): the one
    quote vaultmem makes on purpose. Each is one block: its title line, then only ``>`` lines up
    to a blank line, so nothing captured inside it can end it early or open anything after it."""
    kept: list[str] = []
    inside = False
    for line in text.split("\n"):
        if line.startswith(("> [!note]- Claude's answer", "> [!info]- Claude's notes along")):
            inside = True
            continue
        if inside and line.startswith(">"):
            assert line == ">" or line.startswith("> "), line
            continue
        if inside:
            assert line == "", f"the answer callout ends on a blank line, not {line!r}"
        inside = False
        kept.append(line)
    return "\n".join(kept)


def test_the_log_reads_in_time_order_so_the_briefing_knows_what_still_fails() -> None:
    from vaultmem.brief import digest

    turns = [
        _turn("u1", prompt="fix things"),
        _turn("a1", calls=(_bash("b1", "pytest -q"), _bash("b2", "make lint"),
                           _write("w1", f"{CWD}/x.py", "Edit"))),
        _turn("r1", outcomes=(Outcome("b1", True, "E   boom"), Outcome("b2", True, "lint: bad"),
                              Outcome("w1", True, "String to replace not found in file."))),
        _turn("a2", calls=(_write("w2", f"{CWD}/x.py", "Edit"), _bash("b3", "pytest -q"))),
        _turn("r2", outcomes=(Outcome("w2", False), Outcome("b3", False))),
    ]
    log = _only(_edits(turns, cwd=CWD), "Work Log").content
    assert log.split("\n\n")[-1] == (
        "- Edited `x.py`\n"
        "- Failed: `pytest -q` — `E boom`\n"  # fixed in the turn: before its passing run
        "- Ran `pytest -q` ×2\n- Ran `make lint`\n"
        "- Failed: `make lint` — `lint: bad`"  # still failing: after its run
    )  # the retried Edit's failure is chatter: left out
    note = patch.apply_all(NOTE, _edits(turns, cwd=CWD)).text
    assert digest.session("s.md", note).failing == ("`make lint` — `lint: bad`",)


def test_a_failure_an_earlier_hook_recorded_then_fixed_now_is_a_gotcha() -> None:
    first = [_turn("u1", prompt="run the billing tests"),
             _turn("a1", calls=(_bash("b1", "pytest tests/billing -q"),
                                _bash("e1", "echo `x`"))),
             _turn("r1", outcomes=(Outcome("b1", True, "E   KeyError: 'sig'"),
                                   Outcome("e1", True, "boom")))]
    note = patch.apply_all(NOTE, _edits(first, cwd=CWD)).text
    assert notelisted.open_failures(note) == {"pytest tests/billing -q": "E KeyError: 'sig'",
                                          "echo `x`": "boom"}
    later = [_turn("u2", prompt="fix it"),
             _turn("a2", calls=(_write("w1", f"{CWD}/app/billing/webhook.py", "Edit"),
                                _bash("b2", "pytest tests/billing -q"))),
             _turn("r2", outcomes=(Outcome("b2", False),))]
    told = ingest.story(later, now=NOW, cwd=CWD, failing=notelisted.open_failures(note))
    gotchas = _only(ingest.edits_for(told, note), "Gotchas & Fixes")
    assert gotchas.content == (
        "- Fixed by editing `app/billing/webhook.py`: `pytest tests/billing -q` failed "
        "(`E KeyError: 'sig'`) ([[Billing]])")
    after = patch.apply_all(note, ingest.edits_for(told, note)).text
    assert notelisted.open_failures(after) == {"echo `x`": "boom"}


def test_the_failure_repeated_most_is_shown_when_not_all_fit() -> None:
    calls = tuple(_bash(f"b{i}", f"mkdir dir{i}") for i in range(workentry.FAILURES_SHOWN + 1))
    blocked = tuple(_bash(f"s{i}", "swift build") for i in range(3))
    turns = [
        _turn("u1", prompt="build the package"),
        _turn("a1", calls=calls + blocked),
        _turn("r1", outcomes=tuple(Outcome(c.id, True, "blocked") for c in calls + blocked)),
    ]
    (entry,) = ingest.story(turns, now=NOW, cwd=CWD).entries
    failed = [line for line in entry.splitlines() if line.startswith("- Failed:")]
    assert len(failed) == workentry.FAILURES_SHOWN
    assert failed[0] == "- Failed: `swift build` ×3 — `blocked`"
    assert "- 2 more failures" in entry


@pytest.mark.parametrize(("message", "items"), [
    pytest.param("Add the review workflow\n\nWe decided to use Sonnet instead of Opus.\n\n"
                 "Setup required:\n1. Add ANTHROPIC_API_KEY to repository secrets\n",
                 [("prerequisite", "Add ANTHROPIC_API_KEY to repository secrets")],
                 id="what it lists as such, not its prose"),
    # Issue 28: the why of a change is often said only in the commit's body.
    pytest.param("Update gitleaks config and sync 6 new conversations\n\n"
                 "Exclude Archives/*.jsonl from gitleaks scanning to reduce false positives from "
                 "Claude API signatures. All sensitive data is redacted by sync scripts before "
                 "archiving.\n\nCo-Authored-By: Claude <noreply@anthropic.com>\n",
                 [("decision", ("Exclude Archives/*.jsonl from gitleaks scanning to reduce false "
                               "positives from Claude API signatures."))],
                 id="a change with its reason"),
])
def test_a_commit_message_gives_its_listed_items_and_its_reasoned_changes(
        message: str, items: list[tuple[str, str]]) -> None:
    turns = [
        _turn("u1", prompt="commit it"),
        _turn("a1", calls=(ToolCall("c1", "Bash", command="git commit -m …", message=message),)),
    ]
    told = ingest.story(turns, now=NOW, cwd=CWD)
    assert [(i.kind, i.text) for i in told.items] == items


def test_a_turn_that_touched_no_file_files_its_items_under_the_component_it_names() -> None:
    # Issue 29: an item goes to the fallback entity (Inbox) only when no component is named
    # anywhere in its turn: here the prompt names Auth (a component the note already links),
    # the item's own line does not.
    turns = [_turn("u1", prompt="why does the auth login loop?"),
             _turn("a1", text="The root cause was that the cookie expired before the redirect.")]
    gotcha = _only(_edits(turns, known=["Auth", "Billing"]), "Gotchas & Fixes")
    assert gotcha.content == (
        "- The root cause was that the cookie expired before the redirect. ([[Auth]])")


def _script_and_workflow_turns(command: str, error: str) -> list[Turn]:
    """``command`` fails, a script and a workflow are edited, ``command`` passes."""
    return [
        _turn("u1", prompt="run the sync"),
        _turn("a1", calls=(_bash("b1", command),)),
        _turn("r1", outcomes=(Outcome("b1", True, error),)),
        _turn("a2", calls=(_write("w1", f"{CWD}/scripts/sync_logs.sh", "Edit"),
                           _write("w2", f"{CWD}/.github/workflows/sync.yml", "Edit"))),
        _turn("a3", calls=(_bash("b2", command),)),
        _turn("r3", outcomes=(Outcome("b2", False, None),)),
    ]


def test_a_script_s_fix_is_not_the_ci_s_because_its_turn_edited_a_workflow() -> None:
    # Changed in issue 29: .github/ is no component, but the CI a turn edited is; a script's
    # gotcha (scripts/ names no component) went there too because the same turn touched
    # .github/workflows/. The CI holds what its own words put there; this one names none.
    error = "(eval):1: ./scripts/sync_logs.sh: bad interpreter: /bin/bash^M"
    edits = _edits(_script_and_workflow_turns("./scripts/sync_logs.sh", error), cwd=CWD)
    gotcha = _only(edits, "Gotchas & Fixes").content
    assert gotcha.startswith("- Fixed by editing `scripts/sync_logs.sh`: ") and "[[" not in gotcha
    assert _only(edits, "Related Entities").content == "- [[CI]] — `.github/workflows/`"


def _fixed_by_editing(script: str, beside: str) -> str:
    """The gotcha of a script that failed, then passed after ``script`` and ``beside`` were
    edited in one turn."""
    command = f"python {script}"
    turns = [
        _turn("u1", prompt="redact instead of blocking"),
        _turn("a1", calls=(_bash("b1", command),)),
        _turn("r1", outcomes=(Outcome("b1", True, "KeyError: 'Secret'"),)),
        _turn("a2", calls=(_write("w1", f"{CWD}/{script}", "Edit"),
                           _write("w2", f"{CWD}/{beside}", "Edit"))),
        _turn("a3", calls=(_bash("b2", command),)),
        _turn("r3", outcomes=(Outcome("b2", False, None),)),
    ]
    return _only(_edits(turns, cwd=CWD), "Gotchas & Fixes").content


def test_an_item_naming_its_own_file_of_no_component_is_not_the_turn_s_other_component() -> None:
    # Issue 29: a gotcha of Projects/Scripts/redact_secrets.py (scripts: no component) was filed
    # under the component of the other file its turn edited (Projects/Claude-Zima/).
    gotcha = _fixed_by_editing("Projects/Scripts/redact_secrets.py", "Projects/Claude-Zima/x.py")
    assert gotcha.startswith("- Fixed by editing `Projects/Scripts/redact_secrets.py`")
    assert "[[" not in gotcha
    # The look-alike: the script is a component's; and an item naming no file of its own still
    # goes to its turn's components.
    assert _fixed_by_editing("Projects/Redaction/redact_secrets.py",
                             "Projects/Claude-Zima/x.py").endswith("([[Redaction]])")
    turns = [_turn("u1", prompt="why?"),
             _turn("a1", calls=(_write("w1", f"{CWD}/Projects/Scripts/redact_secrets.py", "Edit"),
                                _write("w2", f"{CWD}/Projects/Claude-Zima/x.py", "Edit"))),
             _turn("a2", text="The root cause was that the phone number regex matched dates.")]
    assert _only(_edits(turns, cwd=CWD), "Gotchas & Fixes").content.endswith("([[Claude Zima]])")


def test_a_workflow_s_fix_in_the_same_turn_is_the_ci_s() -> None:
    # The look-alike: the failing command checks the workflow, the fix names its file.
    command = "act -W .github/workflows/sync.yml"
    error = "Error: workflow is not valid. yaml: line 12: mapping values are not allowed"
    edits = _edits(_script_and_workflow_turns(command, error), cwd=CWD)
    assert _only(edits, "Gotchas & Fixes").content.endswith("([[CI]])")
    said = [_turn("u1", prompt="why did it break?"),
            _turn("a1", calls=(_write("w1", f"{CWD}/scripts/sync_logs.sh", "Edit"),
                               _write("w2", f"{CWD}/.github/workflows/sync.yml", "Edit"))),
            _turn("a2", text="The root cause was that the workflow ran before the cache job.")]
    assert _only(_edits(said, cwd=CWD), "Gotchas & Fixes").content.endswith("([[CI]])")
    other = [*said[:2], _turn("a2", text="The root cause was that the phone number regex "
                                             "matched ISO timestamps.")]
    assert "[[" not in _only(_edits(other, cwd=CWD), "Gotchas & Fixes").content


def test_a_turn_that_touched_no_file_files_its_items_under_the_files_its_answer_names() -> None:
    # Issue 29: a path the answer names names a component, when the session touched files in
    # that folder (a path in prose may be relative to another folder); a test's file alone
    # names none, and a file only named is no component the session touched.
    answer = ("Review of `src/billing/refunds.py:54` and `tests/test_auth.py`: the root cause "
              "was that refunds were rounded twice.")
    later = [_turn("u2", prompt="fix the login"),
             _turn("a2", calls=(_write("w1", f"{CWD}/src/auth/session.py", "Edit"),))]
    turns = [_turn("u1", prompt="review the code"), _turn("a1", text=answer), *later]
    edits = _edits(turns, cwd=CWD)
    assert _only(edits, "Gotchas & Fixes").content.endswith("([[Billing]])")
    assert _only(edits, "Related Entities").content == "- [[Auth]] — `src/auth/`"
    # No file of the session is in src/: the path may be another folder's; nor is a URL a path.
    alone = _edits([_turn("u1", prompt="review the code"), _turn("a1", text=answer)], cwd=CWD)
    assert "[[" not in _only(alone, "Gotchas & Fixes").content
    url = "The root cause was a stale cache, see https://example.com/src/billing/x.py for it."
    bare = _edits([_turn("u1", prompt="why?"), _turn("a1", text=url), *later], cwd=CWD)
    assert "[[" not in _only(bare, "Gotchas & Fixes").content


def test_a_turn_that_names_no_component_leaves_its_items_unfiled() -> None:
    turns = [_turn("u1", prompt="why does login loop?"),
             _turn("a1", text="The root cause was that the cookie expired before the redirect.")]
    gotcha = _only(_edits(turns, known=["Auth", "Billing"]), "Gotchas & Fixes")
    assert gotcha.content == "- The root cause was that the cookie expired before the redirect."


def test_a_session_begun_in_the_project_s_parent_names_the_same_components() -> None:
    # Claude Code started in ~ edits ~/shop/src/auth/x.py, then in ~/shop edits src/auth/y.py:
    # one component, Auth, never an entity named after the project's own folder "Shop".
    turns = [_turn("u1", prompt="fix the login loop"),
             _turn("a1", calls=(_write("w1", "/home/dev/shop/src/auth/x.py", "Edit"),
                                _write("w2", "/home/dev/shop/README.md", "Edit")))]
    told = ingest.story(turns, now=NOW, cwd="/home/dev", project="shop")
    assert list(told.components) == ["Auth"]
    assert list(ingest.story(turns, now=NOW, cwd="/home/dev").components) == ["Shop"]


def test_near_names_of_one_feature_are_one_component_of_the_story() -> None:
    # The crate's folder from ~ (before the project was known) and its module from inside:
    # "Cosmic Applet Power Monitor" and "Power Monitor" are one feature, as first met.
    turns = [_turn("u1", prompt="make the panel applet"),
             _turn("a1", calls=(_write("w1", "/home/dev/cosmic-applet-power-monitor/x.rs", "Edit"),
                                _write("w2", "/home/dev/src/power_monitor.rs", "Edit"),
                                _write("w3", "/home/dev/src/invoices/x.rs", "Edit"),
                                _write("w4", "/home/dev/src/invoice/y.rs", "Edit"),
                                _write("w5", "/home/dev/src/monitor.rs", "Edit")))]
    told = ingest.story(turns, now=NOW, cwd="/home/dev")
    assert list(told.components) == ["Cosmic Applet Power Monitor", "Invoices", "Monitor"]


def test_the_components_a_note_links_are_read_as_first_spelled() -> None:
    note = NOTE.replace("- an older decision", "- an older decision ([[Auth]], [[Power Monitor]])"
                        ) + "\n## Related Entities\n\n- [[auth]] — `src/auth/`\n- [[Billing]]\n"
    assert notelisted.linked_components(note) == ["Auth", "Power Monitor", "Billing"]


def test_a_related_entities_row_names_its_component_whole_spaces_and_all() -> None:
    note = NOTE + ("\n## Related Entities\n\n- [[API Gateway]] — `src/gateway/`\n"
                   "- [[claude/projects/p/entities/Rate Limiter|Rate Limiter]]\n")
    assert notelisted.linked_components(note) == ["API Gateway", "Rate Limiter"]


def test_what_claude_reports_between_calls_is_kept_folded_below_the_entry() -> None:
    found = ("**Found the bug!** I was using `app::run` but an applet must start with "
             "`applet::run`. Let me fix main.rs:")
    turns = [
        _turn("u1", prompt="why is the panel empty"),
        _turn("a1", text="Let me look at main.rs first.", calls=(_write("w0", "/x/main.rs",
                                                                          "Read"),)),
        _turn("a2", text=found, calls=(_write("w1", f"{CWD}/src/main.rs", "Edit"),)),
        _turn("r1", outcomes=(Outcome("w1", False),)),
        _turn("a3", text="Fixed: the panel shows the applet now."),
    ]
    log = _only(_edits(turns, cwd=CWD), "Work Log").content
    *_, work, notes = log.split("\n\n")
    assert work == "- Edited `src/main.rs`"
    # The report whole, its announced move left out; a move alone is not kept; the final answer
    # stays the answer.
    assert notes == (
        "> [!info]- Claude's notes along the way (1)\n"
        "> **Found the bug!** I was using `app::run` but an applet must start with "
        "`applet::run`.")
    assert "Let me" not in log and "**Answer:** Fixed: the panel shows the applet now." in log


def test_notes_along_the_way_are_neutralised_and_no_recap_of_the_answer() -> None:
    from vaultmem.brief import digest

    report = ("Here is what I found so far:\n\n## Cause\n\n- the cache key drops the tenant id "
              "%% so two tenants share one entry ^abc\n\n```bash\nredis-cli keys '*'")
    turns = [
        _turn("u1", prompt="why do tenants see each other's carts"),
        # A file read: no work line stands between the answer's callout and the notes.
        _turn("a1", text=report, calls=(_write("r0", f"{CWD}/cache.py", "Read"),)),
        _turn("r1", outcomes=(Outcome("r0", False),)),
        _turn("a2", text="Fixed: the cache key now holds the tenant id. Details:\n\n"
                         "- **Why:** one cart per tenant and user"),
    ]
    note = patch.apply_all(NOTE, _edits(turns, cwd=CWD)).text
    tokens = MarkdownIt().parse(note)
    assert [t.content for t in tokens if t.type == "fence"] == ["redis-cli keys '*'\n"]
    assert "> - the cache key drops the tenant id %\\% so two tenants share one entry \\^abc" in note
    assert "Cause" not in [h.title for h in sections.headings(note)]
    (turn,) = digest.session("s.md", note).turns
    # The notes are no recap of the answer (its line says what it says); what they found is a
    # detail of the turn, read without the escapes that neutralised it.
    assert turn.answer == "Fixed: the cache key now holds the tenant id. Details:"
    assert turn.details == ("Why: one cart per tenant and user",
                            "the cache key drops the tenant id %% so two tenants share one entry abc")


def test_a_rule_the_person_sets_is_a_decision_as_said() -> None:
    turns = [_turn("u1", prompt="never commit without signing. use the wombat GPG key"),
             _turn("a1", text="Understood: every commit will be signed with the wombat key."),
             _turn("u2", prompt="never mind the lint, fix the build"),
             _turn("a2", text="The build passes again.")]
    edits = _edits(turns)
    assert _only(edits, "Decisions Made").content == (
        "- Rule from the person: never commit without signing. use the wombat GPG key")
    log = _only(edits, "Work Log").content  # the prompt stays in the log as typed
    assert "**Prompt:** never commit without signing. use the wombat GPG key" in log


def test_a_turn_about_two_components_lends_neither_to_an_item_naming_none() -> None:
    # Issue 29: an item naming none of its turn's components went to the two it touched most.
    def gotcha(*paths: str) -> str:
        calls = tuple(_write(f"w{n}", f"{CWD}/{path}", "Edit") for n, path in enumerate(paths))
        turns = [_turn("u1", prompt="why?"), _turn("a1", calls=calls),
                 _turn("a2", text="The root cause was that the phone number regex matched dates.")]
        return _only(_edits(turns, cwd=CWD), "Gotchas & Fixes").content

    assert "[[" not in gotcha("src/auth/a.py", "src/billing/b.py")
    # One more file of one of them: that one.
    assert gotcha("src/auth/a.py", "src/auth/c.py", "src/billing/b.py").endswith("([[Auth]])")
