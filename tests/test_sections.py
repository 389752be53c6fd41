"""sections: which headings are sections, their line ranges, and heading-path resolution."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from property_kit import examples

from vaultmem.errors import AmbiguousHeading, HeadingNotFound
from vaultmem.notes import sections
from vaultmem.notes.sections import Heading

FIXTURES = Path(__file__).parent / "fixtures"


@dataclass(frozen=True)
class Case:
    name: str
    text: str
    expected: list[str]


def _cases() -> list[Case]:
    """Read tests/fixtures/sections/headings.txt (title / . / input / . / expected / .)."""
    raw = (FIXTURES / "sections" / "headings.txt").read_text(encoding="utf-8")
    lines = raw.split("\n")
    lines = lines[lines.index("") + 1 :]  # drop the header comment
    cases: list[Case] = []
    i = 0
    while i < len(lines):
        if not lines[i].strip():
            i += 1
            continue
        name = lines[i]
        assert lines[i + 1] == ".", name
        end_input = lines.index(".", i + 2)
        end_expected = lines.index(".", end_input + 1)
        text = "".join(line.replace("→", "\t") + "\n" for line in lines[i + 2 : end_input])
        cases.append(Case(name, text, lines[end_input + 1 : end_expected]))
        i = end_expected + 1
    return cases


def _describe(h: Heading) -> str:
    return f"{h.line} {h.level} {h.body_start} {h.own_end} {h.subtree_end} {' > '.join(h.path)}"


CASES = _cases()


def test_fixture_file_has_cases() -> None:
    assert len(CASES) >= 12


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_headings_fixture(case: Case) -> None:
    assert [_describe(h) for h in sections.headings(case.text)] == case.expected


def test_title_is_the_last_path_element_and_level_matches_the_marker() -> None:
    found = sections.headings("# One\n\n### Three\n")
    assert [(h.title, h.level, h.path) for h in found] == [
        ("One", 1, ("One",)),
        ("Three", 3, ("One", "Three")),
    ]


def test_no_final_newline_counts_the_last_line() -> None:
    found = sections.headings("## A\nx\n## B")
    assert [(h.line, h.own_end) for h in found] == [(0, 2), (2, 3)]


def test_empty_text_has_no_sections() -> None:
    assert sections.headings("") == []
    assert sections.line_count("") == 0


def test_lone_carriage_return_is_not_a_line_break() -> None:
    # Mixed line endings keep "\r" as a character of the line (textio); line numbers must agree.
    found = sections.headings("x\r\n## A\r\nbody\n## B\n")
    assert [(h.title, h.line) for h in found] == [("A", 1), ("B", 3)]


def test_form_feed_does_not_shift_lines() -> None:
    found = sections.headings("a\x0cb\n## A\n")
    assert [h.line for h in found] == [1]


def test_unclosed_fence_hides_everything_after_it() -> None:
    found = sections.headings("## A\n```\n## B\n")
    assert [h.title for h in found] == ["A"]
    assert found[0].own_end == 3


def test_blocks_report_tight_and_loose_lists() -> None:
    found = sections.blocks("- a\n- b\n\npara\n\n- c\n\n- d\n")
    assert [(b.kind, b.start, b.tight) for b in found] == [
        ("bullet_list", 0, True),
        ("paragraph", 3, False),
        ("bullet_list", 5, False),
    ]


def test_blocks_include_front_matter_and_fences() -> None:
    found = sections.blocks("---\na: 1\n---\n```\n# x\n```\n")
    assert [(b.kind, b.start, b.end) for b in found] == [("front_matter", 0, 3), ("fence", 3, 6)]


def test_parse_path() -> None:
    assert sections.parse_path("Parent::Child") == ("Parent", "Child")
    assert sections.parse_path("  Key Decisions ") == ("Key Decisions",)
    assert sections.parse_path("A :: B::C") == ("A", "B", "C")
    assert sections.parse_path("") == ()
    assert sections.parse_path("A::::B") == ("A", "B")


# --- resolve -----------------------------------------------------------------------------------

NOTE = """\
---
type: entity
---
# Auth

## Overview

## Key Decisions

### Tokens

## Gotchas & Troubleshooting

### Tokens

## References
"""


def test_unique_leaf_resolves() -> None:
    found = sections.resolve(NOTE, ["Key Decisions"])
    assert (found.line, found.path) == (7, ("Auth", "Key Decisions"))


def test_duplicate_leaf_is_ambiguous_and_lists_every_match() -> None:
    with pytest.raises(AmbiguousHeading) as info:
        sections.resolve(NOTE, ["Tokens"], file="e/Auth.md")
    err = info.value
    assert err.path == "e/Auth.md"
    assert err.heading == "Tokens"
    assert "Auth > Key Decisions > Tokens (line 10)" in err.message
    assert "Auth > Gotchas & Troubleshooting > Tokens (line 14)" in err.message
    assert "\n" not in str(err)


def test_parent_child_path_disambiguates() -> None:
    path = sections.parse_path("Gotchas & Troubleshooting::Tokens")
    assert sections.resolve(NOTE, path).line == 13


def test_full_path_from_the_root_resolves() -> None:
    assert sections.resolve(NOTE, ("Auth", "Key Decisions", "Tokens")).line == 9


def test_path_must_match_consecutive_ancestors() -> None:
    # "Auth::Tokens" skips a level: a suffix of the path, not a subsequence.
    with pytest.raises(HeadingNotFound):
        sections.resolve(NOTE, ("Auth", "Tokens"))


def test_case_insensitive_fallback() -> None:
    assert sections.resolve(NOTE, ["key decisions"]).line == 7
    assert sections.resolve(NOTE, ["GOTCHAS & TROUBLESHOOTING", "tokens"]).line == 13


def test_exact_case_wins_over_case_insensitive_matches() -> None:
    text = "## notes\n\n## Notes\n"
    assert sections.resolve(text, ["Notes"]).line == 2
    assert sections.resolve(text, ["notes"]).line == 0
    with pytest.raises(AmbiguousHeading):
        sections.resolve(text, ["NOTES"])


def test_missing_heading_names_file_and_heading() -> None:
    with pytest.raises(HeadingNotFound) as info:
        sections.resolve(NOTE, ("Overview", "Nope"), file="e/Auth.md")
    assert info.value.path == "e/Auth.md"
    assert info.value.heading == "Overview::Nope"
    assert str(info.value).startswith("e/Auth.md: heading 'Overview::Nope': ")


def test_empty_path_is_not_found() -> None:
    with pytest.raises(HeadingNotFound):
        sections.resolve(NOTE, ())
    assert sections.find(NOTE, ()) is None


def test_find_returns_none_when_missing_but_still_refuses_ambiguity() -> None:
    assert sections.find(NOTE, ["Nope"]) is None
    assert sections.find(NOTE, ["References"]) == sections.headings(NOTE)[-1]
    with pytest.raises(AmbiguousHeading):
        sections.find(NOTE, ["Tokens"])


def test_heading_inside_fence_is_not_resolvable() -> None:
    text = "## A\n\n```\n## Hidden\n```\n"
    assert sections.find(text, ["Hidden"]) is None


def test_wikilink_title_resolves_as_written() -> None:
    text = "## [[Auth]] notes\n"
    assert sections.resolve(text, ["[[Auth]] notes"]).line == 0


# --- properties --------------------------------------------------------------------------------

FAKE_LINES = st.sampled_from(["# fake", "## fake two", "text", "", "Setext", "===", "- # item"])


@st.composite
def fenced_documents(draw: st.DrawFn) -> tuple[str, set[int], list[int]]:
    """A document, the 0-based lines inside fences, and the lines of its real headings."""
    lines: list[str] = []
    fenced: set[int] = set()
    real: list[int] = []
    for index in range(draw(st.integers(1, 12))):
        if lines:
            lines.append("")
        kind = draw(st.sampled_from(["heading", "para", "list", "fence", "quote"]))
        if kind == "heading":
            real.append(len(lines))
            lines.append("#" * draw(st.integers(1, 4)) + f" H{index}")
        elif kind == "para":
            lines.append(f"paragraph {index}")
        elif kind == "list":
            lines += ["- # not a section", "- item"]
        elif kind == "quote":
            lines += ["> # quoted", "> text"]
        else:
            marker = draw(st.sampled_from(["```", "~~~", "````"]))
            lines.append(marker + draw(st.sampled_from(["", "md", "python"])))
            for fake in draw(st.lists(FAKE_LINES, max_size=6)):
                fenced.add(len(lines))
                lines.append(fake)
            lines.append(marker)
    return "\n".join(lines) + "\n", fenced, real


@settings(max_examples=examples(200), deadline=None)
@given(fenced_documents())
def test_headings_are_never_inside_fences(doc: tuple[str, set[int], list[int]]) -> None:
    text, fenced, real = doc
    found = sections.headings(text)
    assert not {h.line for h in found} & fenced
    assert [h.line for h in found] == real
    total = sections.line_count(text)
    for h in found:
        assert h.line < h.body_start <= h.own_end <= h.subtree_end <= total
