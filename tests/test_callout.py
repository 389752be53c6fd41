"""callout.py and the answer kept whole: every final answer in the note, nothing in it can break
the note (issue 28)."""

from __future__ import annotations

import json
from datetime import datetime

from markdown_it import MarkdownIt

from vaultmem.claude import callout, ingest, transcript
from vaultmem.claude.workentry import ANSWER_MAX_CHARS, answer_parts
from vaultmem.notes import sections

NOW = datetime.fromisoformat("2026-11-22T10:00:00+00:00")
HOSTILE = """Done.

# Root cause
The cache key %% missed the tenant %% so reads crossed tenants. ^fix-1
Setext heading
---
<!-- a comment never closed
See [[Billing]] and `%%keep%%` in code. ^abc-2

```python
# not a heading
x = "%%"  ^not-a-block
```
## Next
- rotate the keys
```
left open"""


def _answer_note(answer: str) -> str:
    lines = [
        json.dumps({"type": "user", "uuid": "u1", "timestamp": "2026-11-22T06:00:00Z",
                    "message": {"role": "user", "content": "fix the cache"}}),
        json.dumps({"type": "assistant", "uuid": "a1", "timestamp": "2026-11-22T06:05:00Z",
                    "message": {"role": "assistant",
                                "content": [{"type": "text", "text": answer}]}}),
    ]
    (entry,) = ingest.story(transcript.parse_lines(lines).turns, now=NOW).entries
    return f"# T\n\n## Work Log\n\n{entry}\n\n## Decisions Made\n\n- kept ^vm-1\n"


def test_nothing_inside_the_callout_opens_anything_of_the_note() -> None:
    quoted = callout.answer(HOSTILE)
    lines = quoted.split("\n")
    assert lines[0] == "> [!note]- Claude's answer (17 lines)"
    assert all(line == ">" or line.startswith("> ") for line in lines)
    assert "> # Root cause" in lines and "> ## Next" in lines  # the callout's own parts
    assert "> # not a heading" in lines  # code is kept as written
    assert '> x = "%%"  ^not-a-block' in lines
    body = "\n".join(lines[1:])
    outside = body.replace('x = "%%"', "").replace("`%%keep%%`", "")
    assert "%%" not in outside and "`%%keep%%`" in body
    assert "missed the tenant %\\% so" in body
    assert "crossed tenants. \\^fix-1" in body and "in code. \\^abc-2" in body
    assert "&lt;!-- a comment" in body and "<!--" not in body
    assert "[\\[Billing]]" in body
    assert lines[-1] == "> ```"  # the fence left open is closed inside


def test_the_note_around_a_hostile_answer_keeps_its_sections_and_block_ids() -> None:
    note = _answer_note(HOSTILE)
    assert [h.title for h in sections.headings(note) if h.level <= 2] == [
        "T", "Work Log", "Decisions Made"]
    tokens = MarkdownIt().parse(note)
    top = [tokens[n + 1].content for n, t in enumerate(tokens)
           if t.type == "heading_open" and t.level == 0]
    assert "Root cause" not in top and "Next" not in top
    assert note.endswith("- kept ^vm-1\n")


def test_an_answer_that_opens_with_a_short_line_is_not_cut_to_it() -> None:
    answer = ("Done.\n\nThe refund endpoint now writes to the ledger table, and partial refunds "
              "keep the original amount.")
    line, whole = answer_parts(answer, [])
    assert line == ("Done. The refund endpoint now writes to the ledger table, and partial "
                    "refunds keep the original amount.")
    assert whole is None


def test_a_long_answer_is_kept_whole_below_its_line() -> None:
    paragraphs = [f"Paragraph {n} says the fact number {n} about the billing cache."
                  for n in range(40)]
    answer = "Done.\n\n" + "\n\n".join(paragraphs)
    line, whole = answer_parts(answer, [])
    assert len(line) <= ANSWER_MAX_CHARS
    assert whole is not None
    for paragraph in paragraphs:
        assert f"> {paragraph}" in whole
    note = _answer_note(answer)
    assert "Paragraph 39 says the fact number 39" in note


def test_a_structured_short_answer_is_kept_as_written() -> None:
    answer = "Done:\n- added the index\n- dropped the old table"
    line, whole = answer_parts(answer, [])
    assert line.startswith("Done:")
    assert whole is not None and "> - dropped the old table" in whole


def test_a_huge_answer_is_bounded_and_says_so() -> None:
    huge = "\n".join(f"line {n} of a very long answer" for n in range(10_000))
    whole = callout.answer(huge)
    assert len(whole) < callout.KEPT_MAX_CHARS * 1.2
    assert "more characters left out" in whole


def test_knowledge_the_answer_line_says_with_emphasis_is_not_appended_again() -> None:
    caveat = "Unfortunately, Claude doesn't have an official code review integration."
    answer = ("Great question! Unfortunately, **Claude doesn't have an official code review "
              "integration**. However, we can build one with the API!")
    line, _ = answer_parts(answer, [caveat, "Decision: build it on the `review` workflow"])
    assert line.count("official code review") == 1
    assert line.endswith("API! Decision: build it on the `review` workflow")
