"""mining/choices.py: the person's short prompt picking an option Claude's answer offered."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

from vaultmem.claude import callout, ingest
from vaultmem.claude.transcript import Turn
from vaultmem.mining import choices
from vaultmem.mining.choices import picked
from vaultmem.notes import patch

LISTED = """The cache can live in two places.

Would you like me to:

1. **Keep it in Redis** (shared across workers):
   ```bash
   docker run -d redis
   ```
2. **Keep it in process memory** (simpler, per worker)
3. Skip the cache for now

Which option do you prefer?"""

SECTIONS = """Here is a comparison.

## **Celery (task queue)**

- Retries and schedules built in

## **RQ (Redis Queue)**

- Smaller, fewer moving parts

## Recommendation

I'd go with Celery here.

Which approach sounds better for you?"""


def test_a_number_picks_the_listed_option_with_the_ones_not_chosen() -> None:
    assert picked(LISTED, "1") == (
        "Which option do you prefer? — chose: Keep it in Redis (shared across workers); "
        "not chosen: Keep it in process memory (simpler, per worker), Skip the cache for now")
    assert picked(LISTED, "option 2") is not None and "chose: Keep it in process" in str(
        picked(LISTED, "option 2"))
    assert "chose: Keep it in process" in str(picked(LISTED, "the second"))


def test_a_pick_that_only_orders_the_work_is_no_decision() -> None:
    assert picked(LISTED, "the last one") is None  # "Skip the cache for now": a next move
    offer = "I can go on.\n\nWould you like me to:\n1. Add the index\n2. Rewrite the query"
    assert picked(offer, "2") is None
    moves = "Which would you prefer?\n\n- Proceed with the migration\n- Do both\n- Wait"
    assert picked(moves.replace("Which would you prefer?\n\n", "") + "\n\nWhich?", "1") is None
    assert picked(moves, "do both") is None


def test_a_name_picks_the_one_option_holding_it() -> None:
    assert "chose: Keep it in process memory" in str(picked(LISTED, "process memory please"))
    assert picked(SECTIONS, "RQ") == (
        "Which approach sounds better for you? — chose: RQ (Redis Queue)")


def test_a_lead_in_question_with_its_list_at_the_end() -> None:
    asked = "Both work. Which column should the index cover:\n- created_at\n- user_id"
    assert picked(asked, "user_id") == (
        "Which column should the index cover — chose: user_id; not chosen: created_at")


def test_no_pick_without_a_question_at_the_end() -> None:
    done = "Done. I changed:\n1. the parser\n2. the writer\n\nAll tests pass."
    assert picked(done, "2") is None
    assert picked("Shall I install it for you?", "yes install it") is None


def test_a_request_or_a_question_is_no_pick() -> None:
    assert picked(LISTED, "actually let's first fix the failing login test") is None
    assert picked(LISTED, "what does option 2 cost?") is None
    assert picked(LISTED, "7") is None
    assert picked(LISTED, "keep it") is None  # words in more than one option
    assert picked(LISTED, "Redis or memory") is None
    assert picked(None, "1") is None and picked(LISTED, "") is None


def test_a_number_never_picks_a_section() -> None:
    assert picked(SECTIONS, "2") is None


# ---- through the ingest, as the Stop hooks write it --------------------------------------------
NOTE = "---\ntype: session\n---\n# Session\n\n## Context\n\n## Work Log\n\n## Decisions Made\n"
NOW = datetime(2026, 11, 22, 10, 30, tzinfo=timezone.utc)


def _turn(uuid: str, **kw: Any) -> Turn:
    return Turn(uuid, "2026-11-22T09:15:00Z", kw.pop("prompt", None), **kw)


def _decisions(note: str) -> str:
    return note.split("## Decisions Made", 1)[1]


def test_a_pick_in_the_next_turn_is_a_decision_though_each_turn_is_read_alone() -> None:
    first = [_turn("u1", prompt="where should the cache live?"), _turn("a1", text=LISTED)]
    note = patch.apply_all(NOTE, ingest.edits_for(ingest.story(first, now=NOW), NOTE)).text
    assert callout.last_answer(note) == LISTED  # the note keeps the answer whole
    second = [_turn("u2", prompt="2"), _turn("a2", text="Done: the cache is per worker now.")]
    told = ingest.story(second, now=NOW, asked=callout.last_answer(note))
    note = patch.apply_all(note, ingest.edits_for(told, note)).text
    assert "chose: Keep it in process memory (simpler, per worker); not chosen: Keep it in " \
        "Redis" in _decisions(note)


def test_a_new_request_after_the_options_decides_nothing() -> None:
    turns = [_turn("u1", prompt="where should the cache live?"), _turn("a1", text=LISTED),
             _turn("u2", prompt="first tell me why the login test fails"),
             _turn("a2", text="The login test fails because the fixture clock is frozen.")]
    told = ingest.story(turns, now=NOW)
    assert not [i for i in told.items if "chose:" in i.text]


def test_no_answer_kept_in_the_last_entry_is_none() -> None:
    assert callout.last_answer(NOTE) is None
    short = NOTE.replace("## Work Log\n", "## Work Log\n\n### 09:15 - x\n\n**Answer:** Done.\n")
    assert callout.last_answer(short) is None


def test_the_question_is_its_last_sentence() -> None:
    asked = "Deployed to staging! All checks green. Which tag should it get:\n- v1.2.0\n- v2.0.0"
    assert picked(asked, "v2.0.0") == (
        "Which tag should it get — chose: v2.0.0; not chosen: v1.2.0")


COMPARED = """Here's a comparison:

## **Rustup (Official Rust Installer)**

**Advantages:**
- Always latest
- Multiple toolchains

**Disadvantages:**
- Per-user installation

## **Pacman (System Package Manager)**

**Advantages:**
- Updates with the system

**Disadvantages:**
- May lag behind

## **Recommendation for Your Use Case**

Since you're:
- Building an applet

**I'd recommend rustup** because it tracks new releases.

## **Quick Install Command**

```bash
curl https://sh.rustup.rs | sh
```

Which approach sounds better for you?"""


def test_a_section_picked_by_name_lists_the_sections_laid_out_alike_as_not_chosen() -> None:
    assert picked(COMPARED, "rustup") == (
        "Which approach sounds better for you? — chose: Rustup (Official Rust Installer); "
        "not chosen: Pacman (System Package Manager)")
    # The recommendation and the install command are no alternatives, nor is a section laid
    # out otherwise; a heading of an upper level ends a section and is none.
    assert picked(COMPARED.replace("**Disadvantages:**\n- May lag", "- May lag"), "rustup") == (
        "Which approach sounds better for you? — chose: Rustup (Official Rust Installer)")
    nested = "# Options\n\n" + COMPARED.replace("## **Pacman", "# Other\n\n## **Pacman")
    assert "not chosen: Pacman" in str(picked(nested, "rustup"))


def test_an_entity_line_leaves_out_a_question_that_names_nothing() -> None:
    # "Which option would you like?" before the pick read as noise under Key Decisions.
    assert choices.plain(picked(LISTED, "1") or "") == (
        "Chose: Keep it in Redis (shared across workers); not chosen: Keep it in process memory "
        "(simpler, per worker), Skip the cache for now")
    named = "Which column should the index cover — chose: user_id; not chosen: created_at"
    assert choices.plain(named) == named  # the question names what was picked among
    assert choices.plain("Use JWT for sessions — why: stateless") == (
        "Use JWT for sessions — why: stateless")
