"""After a compaction: the session's own record that Claude Code's summary lacks (aftercompact),
and the injection log it and the other moments write (injections)."""

from __future__ import annotations

import json
from pathlib import Path

from vaultmem.claude import aftercompact, injections
from vaultmem.notes.facts import fact_key

NOTE = """---
type: session
project: shop
status: active
---
# Refunds

## Work Log

### 10:00 - add refunds

**Prompt:** add refunds to the billing API

- Failed: `pytest tests/test_db.py` — `E   psycopg.OperationalError: Connection refused`
- Failed: `npm run build` — `error TS2304: Cannot find name 'Refund'`

### 10:20 - no, use the charge id

**Prompt:** no, derive the idempotency key from the charge id instead of a UUID

- Ran `npm run build`

> [!info]- Claude's notes along the way (2)
> Good, it builds.
>
> The webhook returns 500 because `REFUND_SECRET` is not set in the test environment.

## Decisions Made

- Idempotency keys come from the charge id because a retried request must not refund twice

## Gotchas & Fixes

- `pytest tests/test_api.py` failed (`assert 500 == 201`); it passed with `STRIPE_API_KEY` set

## Next Steps

- Support partial refunds
- Write the refunds section of the API docs
"""


def test_the_record_holds_corrections_decisions_fixes_failures_and_todos() -> None:
    record = aftercompact.build(NOTE, None)

    text = record.text
    assert text.startswith(aftercompact.HEAD)
    for label, words in [
        (aftercompact.CORRECTIONS, "derive the idempotency key from the charge id"),
        (aftercompact.DECISIONS, "because a retried request must not refund twice"),
        (aftercompact.GOTCHAS, "it passed with `STRIPE_API_KEY` set"),
        (aftercompact.FOUND, "because `REFUND_SECRET` is not set"),
        (aftercompact.FAILING, "psycopg.OperationalError"),
        (aftercompact.OPEN, "Support partial refunds"),
    ]:
        assert f"{label} (data):" in text and words in text
    # `npm run build` passed after it failed: not still failing.
    assert "TS2304" not in text
    assert "add refunds to the billing API" not in text  # a prompt, no correction
    assert "Good, it builds" not in text  # says too little
    assert record.items == 7 and record.left_out == 0 and len(record.keys) == 7
    # Outside the fences only fixed words.
    outside = [line for line in text.split("\n") if line and not line.startswith(("- ", "~~~"))]
    assert outside == [aftercompact.HEAD, *(f"{label} (data):" for label in aftercompact.ORDER)]


def test_what_the_summary_says_is_left_out() -> None:
    summary = ("The user asked for refunds. Decided: idempotency keys come from the charge id "
               "because a retried request must not refund twice. Next: support partial refunds.")

    record = aftercompact.build(NOTE, summary)

    assert "retried request" not in record.text and "Support partial refunds" not in record.text
    assert "Write the refunds section" in record.text
    assert record.left_out == 2


def test_the_record_fits_its_budget_and_skips_what_was_told() -> None:
    many = NOTE.replace("## Next Steps\n\n", "## Next Steps\n\n" + "".join(
        f"- Step {n}: migrate the ledger table number {n} to the new schema and backfill it\n"
        for n in range(80)))

    record = aftercompact.build(many, None)
    told = aftercompact.build(NOTE, None, given={fact_key("Support partial refunds")})

    assert len(record.text) <= aftercompact.MAX_CHARS
    assert "derive the idempotency key" in record.text  # corrections come first
    assert "Support partial refunds" not in told.text
    assert aftercompact.build("# Empty\n", None).text == ""


def test_summary_of_reads_the_last_compact_summary_line() -> None:
    lines = [json.dumps({"type": "user", "message": {"content": "hi"}}),
             json.dumps({"type": "system", "subtype": "compact_boundary"}),
             json.dumps({"type": "user", "isCompactSummary": True,
                         "message": {"content": "This session is being continued: refunds"}}),
             "{not json"]

    assert aftercompact.summary_of(lines) == "This session is being continued: refunds"
    assert aftercompact.summary_of(lines[:2]) is None


def test_injection_log_reads_back_groups_by_session_and_stays_small(tmp_path: Path) -> None:
    state = tmp_path / ".vaultmem"
    for n in range(3):
        injections.record(state, injections.Injection(
            f"s{n % 2}", "UserPromptSubmit", 100 + n, "2 facts", (f"k{n}",), f"2026-11-22T10:0{n}",
            "shop"))
    injections.record(state, injections.Injection("s9", "SessionStart", 5, "briefing", (),
                                                  "2026-11-22T10:09", "other"))
    path = injections.log_path(state)
    with path.open("a") as handle:
        handle.write("{cut short\n")

    items = injections.read(state)
    shown = injections.by_session(items, "shop", current="s1")

    assert [i.chars for i in items] == [100, 101, 102, 5]
    assert injections.given(state, "s0") == {"k0", "k2"}
    assert [(s.session, s.current, s.chars) for s in shown] == [("s1", True, 101),
                                                                ("s0", False, 202)]
    assert oct(path.stat().st_mode & 0o777) == "0o600"
    big = injections.Injection("s", "UserPromptSubmit", 1, "x" * 2000, (), "", "shop")
    for _ in range(200):
        injections.record(state, big)
    assert path.stat().st_size <= injections.MAX_BYTES
    assert injections.read(state)[-1] == big


def test_items_are_chosen_by_value_not_by_kind_order() -> None:
    # Many long decisions come first by kind; a specific finding Claude made right before the
    # compaction and the gotcha with its fix are worth more than most of them.
    decisions = "".join(f"- Plan item {n}: the ledger keeps one row per refund and per charge in "
                        f"table number {n}, written once and never updated afterwards\n"
                        for n in range(40))
    note = NOTE.replace("## Decisions Made\n\n", "## Decisions Made\n\n" + decisions)

    record = aftercompact.build(note, None)

    assert len(record.text) <= aftercompact.MAX_CHARS
    assert "`REFUND_SECRET` is not set" in record.text
    assert "it passed with `STRIPE_API_KEY` set" in record.text
    assert "derive the idempotency key" in record.text
    assert 0 < record.text.count("- Plan item") < 40


def test_findings_are_the_asides_lines_that_say_something() -> None:
    note = NOTE.replace("### 10:20", "> [!info]- Claude's notes along the way (1)\n"
                        "> Platform profile: `balanced-performance` (not max!)\n"
                        "> Everything looks fine and tidy here\n\n### 10:20")
    found = dict(aftercompact.findings(note + "\n### 11:00 - later\n\n### 11:30 - later\n"))
    assert found == {"Platform profile: `balanced-performance` (not max!)": False,
                     "The webhook returns 500 because `REFUND_SECRET` is not set in the test "
                     "environment.": False}
    # Right before the compaction, what Claude saw counts even without a finding's words.
    recent = dict(aftercompact.findings(note))
    assert recent["Everything looks fine and tidy here"] is True
    assert "Good, it builds." not in recent  # too few words to say anything


def test_a_step_done_since_and_a_line_bringing_in_a_list_are_left_out() -> None:
    # The todo list renamed an item as it completed it; the work log says so, the Next Steps
    # section (written at an earlier read) still lists it. Told it is open, Claude would do it
    # again after the compaction.
    note = NOTE.replace(
        "- Ran `npm run build`\n",
        "- Ran `npm run build`\n- Done: Create refunds.ts with the Refund type and its handler\n"
        "- Done: Add the refunds route\n").replace(
        "> Good, it builds.\n",
        "> Good, it builds.\n>\n> Looking carefully at the failing tests, I can see:\n").replace(
        "- Support partial refunds\n",
        "- Support partial refunds\n- Create refunds.ts with the Refund model\n"
        "- Add the refunds route to the API\n")

    text = aftercompact.build(note, None).text

    assert "Support partial refunds" in text and "Write the refunds section" in text
    assert "Create refunds.ts" not in text and "Add the refunds route" not in text
    assert "I can see:" not in text
    assert "because `REFUND_SECRET` is not set" in text
