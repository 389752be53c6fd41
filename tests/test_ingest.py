"""ingest.py: transcript turns -> section patches of the session note (pure)."""

from __future__ import annotations

from datetime import datetime, timezone

from markdown_it import MarkdownIt

from vaultmem import patch
from vaultmem.claude import ingest
from vaultmem.claude.transcript import FileChange, Turn
from vaultmem.patch import SectionPatch

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


def _turn(uuid: str, stamp: str | None = "2026-11-22T09:15:00Z", **kw: object) -> Turn:
    return Turn(uuid, stamp, kw.pop("prompt", None), **kw)  # type: ignore[arg-type]


def _only(edits: list[patch.Edit], heading: str) -> SectionPatch:
    found = [e for e in edits if isinstance(e, SectionPatch) and e.heading == (heading,)]
    assert len(found) == 1
    return found[0]


def test_no_turns_no_edits() -> None:
    assert ingest.edits_for_turns([], now=NOW) == []


def test_a_prompt_opens_a_work_log_entry() -> None:
    edits = ingest.edits_for_turns([_turn("u1", prompt="Add a login module please")], now=NOW)
    log = _only(edits, "Work Log")
    assert (
        log.content
        == "### 09:15 - Add a login module please\n\n- Prompt: Add a login module please"
    )
    assert (log.op, log.subtree, log.create) == ("append", True, True)
    assert len(edits) == 1  # no decisions: Decisions Made is not touched


def test_files_relative_to_cwd_and_commands_join_the_prompt_entry() -> None:
    turns = [
        _turn("u1", prompt="fix it"),
        _turn(
            "a1",
            files=(
                FileChange(f"{CWD}/src/auth.py", "Write"),
                FileChange("/etc/hosts", "Edit"),
                FileChange(f"{CWD}-other/x.py", "MultiEdit"),
                FileChange(f"{CWD}/nb.ipynb", "NotebookEdit"),
            ),
        ),
        _turn("a2", commands=("pytest -q", "echo `date`", "`weird`")),
    ]
    log = _only(ingest.edits_for_turns(turns, now=NOW, cwd=CWD + "/"), "Work Log")
    assert log.content == (
        "### 09:15 - fix it\n\n- Prompt: fix it\n"
        "- Write: `src/auth.py`\n- Edit: `/etc/hosts`\n"
        f"- MultiEdit: `{CWD}-other/x.py`\n- NotebookEdit: `nb.ipynb`\n"
        "- Ran `pytest -q`\n- Ran `` echo `date` ``\n- Ran `` `weird` ``"
    )


def test_code_spans_survive_any_run_of_backticks() -> None:
    commands = ("a ``b`` c", "x ```y", "plain")
    log = _only(ingest.edits_for_turns([_turn("a1", commands=commands)], now=NOW), "Work Log")
    spans = [
        t
        for t in MarkdownIt().parseInline(log.content)[0].children or []
        if t.type == "code_inline"
    ]
    assert [t.content for t in spans] == list(commands)


def test_work_without_a_prompt_goes_to_a_continuation_entry() -> None:
    turns = [_turn("a1", stamp="2026-11-22T09:40:00Z", commands=("make",))]
    log = _only(ingest.edits_for_turns(turns, now=NOW), "Work Log")
    assert log.content == "### 09:40 - Continued work\n\n- Ran `make`"


def test_decisions_and_gotchas() -> None:
    turns = [
        _turn("u1", prompt="go"),
        _turn("a1", decisions=("use RS256", "keep sessions short"), gotchas=("clock skew",)),
        _turn("a2", stamp=None, gotchas=("second gotcha",)),
    ]
    edits = ingest.edits_for_turns(turns, now=NOW)
    decisions = _only(edits, "Decisions Made")
    assert decisions.content == "- use RS256\n- keep sessions short"
    assert (decisions.op, decisions.create) == ("append", True)
    log = _only(edits, "Work Log")
    # Each gotcha is an entry of its own (compaction finds the keyword there); no timestamp
    # falls back to now.
    assert log.content == (
        "### 09:15 - go\n\n- Prompt: go\n\n"
        "### 09:15 - Gotcha\n\nGotcha: clock skew\n\n"
        "### 10:30 - Gotcha\n\nGotcha: second gotcha"
    )


def test_timestamps_are_shown_in_the_clock_s_zone_and_bad_ones_fall_back() -> None:
    plus2 = timezone(__import__("datetime").timedelta(hours=2))
    now = datetime(2026, 11, 22, 12, 0, tzinfo=plus2)
    turns = [
        _turn("u1", stamp="2026-11-22T09:15:00Z", prompt="a"),
        _turn("u2", stamp="yesterday", prompt="b"),
    ]
    log = _only(ingest.edits_for_turns(turns, now=now), "Work Log")
    assert "### 11:15 - a" in log.content and "### 12:00 - b" in log.content


def test_titles_are_short_and_cannot_break_the_heading() -> None:
    assert ingest.title_of("one two three four five six seven eight nine ten") == (
        "one two three four five six seven eight…"
    )
    assert ingest.title_of("see [[Auth]] # now") == "see Auth now"
    assert ingest.title_of("x" * 200) == "x" * 80 + "…"
    assert ingest.title_of("  ## ") == "Note"


def test_edits_apply_to_a_session_note() -> None:
    turns = [
        _turn("u1", prompt="add login"),
        _turn("a1", decisions=("use JWT",), files=(FileChange(f"{CWD}/a.py", "Edit"),)),
    ]
    text = patch.apply_all(NOTE, ingest.edits_for_turns(turns, now=NOW, cwd=CWD)).text
    assert text == NOTE.replace(
        "- an older entry\n",
        "- an older entry\n\n### 09:15 - add login\n\n- Prompt: add login\n- Edit: `a.py`\n",
    ).replace("- an older decision\n", "- an older decision\n- use JWT\n")


def test_missing_sections_are_created() -> None:
    text = "---\ntype: session\n---\n# S\n"
    turns = [_turn("u1", prompt="p"), _turn("a1", decisions=("d",))]
    out = patch.apply_all(text, ingest.edits_for_turns(turns, now=NOW)).text
    assert (
        out == "---\ntype: session\n---\n# S\n\n## Work Log\n\n### 09:15 - p\n\n- Prompt: p\n\n"
        "## Decisions Made\n\n- d\n"
    )
