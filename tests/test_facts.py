"""facts: the items of knowledge sections, as recall shows them (pure)."""

from __future__ import annotations

from vaultmem.notes import facts, passages

ENTITY = """# Auth

## Overview

Code in `src/auth/` ([[claude/projects/shop/archive/sessions/2026-11-09-a|2026-11-09-a]]) ^vm-overview

## Key Decisions

- 2026-11-09 — Use argon2id, bcrypt truncates at 72 bytes. ([[claude/projects/shop/archive/sessions/2026-11-09-a|2026-11-09-a]], [[claude/projects/shop/archive/sessions/2026-11-12-b|2026-11-12-b]]) ^vm-29812619
- 2026-11-10: Tokens live 15 minutes %%vm-anchor src/auth/t.py@abc commit 123%% ([[claude/projects/shop/archive/sessions/2026-11-10-c|2026-11-10-c]]) ^vm-aed59291

## Gotchas & Troubleshooting

```python
# Key Decisions
- not an item: inside a fence
```

- Gotcha: `verify_password` compared str with bytes ^vm-649ab947
  - a nested line is no item of its own

## References

- [[claude/projects/shop/archive/sessions/2026-11-09-a|2026-11-09-a]] - Archived session
"""

SESSION = """# Login

## Work Log

### 09:00 - Login

**Answer:** I went with argon2id.

## Decisions Made

- I went with argon2id over bcrypt ([[Auth]], [[Users]])

## Next Steps

- [ ] Add the refund endpoint

## Open Questions

* Should CI run against a real Postgres?
"""

INDEX = """# shop

## Prerequisites

- 2026-11-09 — Tests need `REDIS_URL` set. ([[claude/projects/shop/archive/sessions/2026-11-09-a|2026-11-09-a]]) ^vm-2ff6263e

## Key Entities

- [[Auth]] ([[Auth#^vm-29812619|Use argon2id, bcrypt truncates at …]]) ^vm-8664bf8f
- [[Refunds]] ([[Refunds#Overview|Code in tests/]]) ^vm-4183297f
- [[Billing]]
- [[Search]] — the search box, written by a person
"""


def test_entity_lines_are_dated_facts_without_links_ids_or_comments() -> None:
    found = facts.facts(ENTITY, stem="Auth", note_type="entity")
    assert [(f.kind, f.date, f.block, f.text) for f in found] == [
        ("decision", "2026-11-09", "vm-29812619", "Use argon2id, bcrypt truncates at 72 bytes."),
        ("decision", "2026-11-10", "vm-aed59291", "Tokens live 15 minutes"),
        ("gotcha", None, "vm-649ab947", "Gotcha: `verify_password` compared str with bytes"),
    ]
    first = found[0]
    assert first.entity == "Auth"
    assert first.sessions == (
        "claude/projects/shop/archive/sessions/2026-11-09-a",
        "claude/projects/shop/archive/sessions/2026-11-12-b",
    )
    lines = ENTITY.split("\n")
    assert [lines[f.line][:12] for f in found] == ["- 2026-11-09", "- 2026-11-10", "- Gotcha: `v"]


def test_session_items_take_the_day_and_name_their_components() -> None:
    found = facts.facts(SESSION, stem="2026-11-09-login", note_type="session", day="2026-11-09")
    assert [(f.kind, f.date, f.entity, f.text) for f in found] == [
        ("decision", "2026-11-09", "Auth, Users", "I went with argon2id over bcrypt"),
        ("next-step", "2026-11-09", None, "Add the refund endpoint"),
        ("question", "2026-11-09", None, "Should CI run against a real Postgres?"),
    ]


def test_index_prerequisites_and_key_entity_rows() -> None:
    found = facts.facts(INDEX, stem="_index", note_type="project-index")
    assert [(f.kind, f.ref, f.entity, f.text) for f in found] == [
        ("prerequisite", None, None, "Tests need `REDIS_URL` set."),
        # The row stands for the entity's line it links to.
        ("decision", "vm-29812619", "Auth", "Use argon2id, bcrypt truncates at …"),
        # A person's row says something; vaultmem's rows to a heading and bare links do not.
        ("entity", None, "Search", "Search — the search box, written by a person"),
    ]


def test_every_copy_of_a_fact_has_one_key() -> None:
    copies = [
        "I went with argon2id over bcrypt.",
        "Decision: I went with  argon2id over bcrypt",
        "i went with ARGON2ID over bcrypt…",
    ]
    assert len({facts.fact_key(c) for c in copies}) == 1


def test_link_targets_and_comments_are_not_searchable() -> None:
    text = "See [[claude/projects/x/sessions/2026-11-09-token-expiry|the session]] %%token%%."
    assert facts.searchable(text) == "See the session]] ."
    assert facts.visible(text) == "See the session ."
    assert facts.visible("[[Auth]] and [[Auth#Overview]]") == "Auth and Auth#Overview"


def test_a_leaf_shows_an_unaliased_path_link_by_its_last_segment() -> None:
    text = "See [[claude/projects/x/entities/Auth]], [[notes/Db|the db]] and [[Cache]] %%x%%"
    assert facts.visible(text) == "See claude/projects/x/entities/Auth, the db and Cache "
    assert facts.visible(text, leaf=True) == "See Auth, the db and Cache "


def test_marked_text_gives_plain_text_and_offsets() -> None:
    text, spans = facts.marked("call \x02verify\x03_\x02token\x03 now", "\x02", "\x03")
    assert text == "call verify_token now"
    assert [text[s:e] for s, e in spans] == ["verify", "token"]


def test_a_long_fact_is_cut_at_spaces_never_inside_an_identifier() -> None:
    words = " ".join(f"word{n}" for n in range(120))
    text = f"{words} then `verify_token_expiry/2` fixed it {words}"
    start = text.index("verify_token_expiry")
    shown, spans = facts.window(text, [(start, start + 6)], limit=100)
    assert "verify_token_expiry/2" in shown
    assert shown.startswith("…") and shown.endswith("…")
    for piece in shown.strip("…").split(" "):
        assert piece in text.split(" ")  # whole words only
    assert [shown[s:e] for s, e in spans] == ["verify"]
    short = "fits whole"
    assert facts.window(short, [(0, 4)]) == (short, ((0, 4),))


def test_best_line_of_a_note_is_the_one_with_most_matched_words() -> None:
    body = (
        "## Work Log\n\n"
        "**Answer:** the \x02token\x03 check\n"
        "- Fixed the \x02token\x03 \x02expiry\x03 by calling `verify_\x02token\x03`. ^vm-1234abcd\n"
    )
    [(shown, spans)] = passages.best_lines(body, "\x02", "\x03")
    assert shown == "Fixed the token expiry by calling `verify_token`."
    assert [shown[s:e] for s, e in spans] == ["token", "expiry", "token"]
    assert passages.best_lines("no marks here", "\x02", "\x03") == []


def test_a_note_without_knowledge_sections_has_no_facts() -> None:
    assert facts.facts("just text\n- a list item\n", stem="x", note_type=None) == []
    assert facts.facts("# Title\n\n## Other\n\n- item\n", stem="x", note_type=None) == []


def test_a_line_ending_in_a_colon_shows_what_it_introduces_within_its_callout() -> None:
    body = (
        "**Answer:** Now let's \x02restart\x03 the panel:\n- Edited `panel.rs`\n\n"
        "> Cannot \x02restart\x03 it from Bash. Run:\n> ```bash\n> systemctl --user restart panel\n"
        "> ```\nAfter the callout\n"
    )
    shown = [text for text, _ in passages.best_lines(body, "\x02", "\x03", 2)]
    assert shown == [
        "Answer: Now let's restart the panel:",  # a cut first sentence: the log is not its answer
        "Cannot restart it from Bash. Run: systemctl --user restart panel",
    ]
