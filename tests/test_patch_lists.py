"""patch's list checks answer as markdown-it does, with or without parsing."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from property_kit import examples

from vaultmem.notes import patch, sections

LINES = [
    "- a", "- [[L]] x", "- [ ] t", "- é", "- a | b", "- - -", "- * * *", "- ```", "- <div>",
    "- # h", "- a\rb", "---", "- [x]: /u", "text", "", "  - n", "|---|", "-", "- ", "- _",
    "- 1. x", "- > q", "- a  ", "- \ta", "- [", "- ___", "- [a](b)", "* a", "1. a",
    "- [[a|b]] x", "- a|b", "--- | ---", "|---|---|", "-|-", "- a | b |", ":-: | --",
    "", "  ", "\t", "\r", "\u00a0", " \u3000",
]


def parsed_blocks(lines: list[str]) -> list[sections.Block]:
    return sections.blocks("\n".join(lines) + "\n")


@settings(deadline=None, max_examples=examples(600))
@given(st.lists(st.sampled_from(LINES), min_size=1, max_size=6))
def test_list_checks_agree_with_markdown_it(lines: list[str]) -> None:
    found = parsed_blocks(lines)
    ends_tight = bool(found) and found[-1].kind in patch._LISTS and found[-1].tight
    starts = bool(found) and found[0].kind in patch._LISTS
    assert patch._ends_tight_list_text(lines) == ends_tight
    assert patch._starts_list(lines) == starts


def test_compaction_lines_take_the_shortcut() -> None:
    lines = [
        "- Chose retries with jitter ([[claude/projects/p/archive/sessions/s|s]]) ^vm-0123abcd",
        "- [[claude/projects/p/archive/sessions/s|s]] - Archived session (compacted)",
    ]
    assert all(patch._PLAIN_ITEM.fullmatch(line) for line in lines)
    assert patch._ends_tight_list_text(lines) and patch._starts_list(lines)
