"""sections parses every text run by run (cut before column-0 ATX headings, cached by text, plain
runs read without markdown-it): the result is always the whole-text parse, edit after edit."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from property_kit import examples

from vaultmem.notes import sections

# Lines that make markdown-it cut, join and reinterpret blocks: headings of every kind, fences,
# HTML blocks, tables, lists, quotes, indented code, front matter fences, CRs.
PIECES = [
    "# Title", "## Key Decisions", "### 10:00 - entry", "#### deep", "#no-space", "   ## indented",
    "#", "## ", "##\tTab", "# x #", "Setext", "===", "---", "- item", "  - nested", "* star",
    "1. one", "2) two", "> quote", "> ## in quote", "```", "```bash", "~~~", "    code", "\tcode",
    "<div>", "</div>", "<!-- c", "-->", "<pre>", "</pre>", "| a | b |", "|---|---|", "a | b",
    "--|--", "[ref]: /url", "[ref]: /url 'ti", "tle'", "text line", "", "", "***", "- # in list",
    "  continuation", "- ```", "...", "title: x", "- [[Link]] ^vm-12345678", "a\rb",
    # Dated entity lines and lines starting with digits (plain unless "." or ")" follows them).
    "- 2026-03-02 — a fact ([[a/s|s]]) ^vm-1a2b3c4d", "- 2026-01-01: old form ^x", "2026 text",
    "- 1. nested", "- 12) x", "- 7 days",
]
LINES = st.lists(st.sampled_from(PIECES), min_size=0, max_size=70)


def whole(text: str) -> tuple[object, ...]:
    """The parse of the whole text at once, as before runs existed."""
    blocks, found = sections._scan_tokens(sections._parser().parse(text.replace("\r", " ")), 0)
    return shape(sections._assemble(blocks, found, sections.line_count(text)))


def runs(text: str) -> tuple[object, ...]:
    """The parse sections uses (run by run; plain runs without markdown-it)."""
    return shape(sections._parse(text))


def shape(parsed: sections._Parsed) -> tuple[object, ...]:
    return parsed.headings, parsed.blocks


def render(lines: list[str], front: bool, final_newline: bool) -> str:
    body = (["---", "type: x", "---"] if front else []) + lines
    return "\n".join(body) + ("\n" if final_newline else "")


@settings(deadline=None, max_examples=examples(400))
@given(
    lines=LINES,
    front=st.booleans(),
    final_newline=st.booleans(),
    edits=st.lists(
        st.tuples(st.integers(0, 80), st.integers(0, 4), st.lists(st.sampled_from(PIECES),
                                                                    max_size=5)),
        min_size=1,
        max_size=5,
    ),
)
def test_runs_parse_like_the_whole_text(
    lines: list[str], front: bool, final_newline: bool, edits: list[tuple[int, int, list[str]]]
) -> None:
    text = render(lines, front, final_newline)
    assert runs(text) == whole(text)
    for at, removed, added in edits:
        current = text.split("\n")
        at = min(at, len(current))
        text = "\n".join(current[:at] + added + current[at + removed :])
        assert runs(text) == whole(text)


def test_a_fence_holding_heading_lines_is_one_run() -> None:
    text = "---\na: 1\n---\n# T\n\n```bash\n" + "# not a heading\n" * 30 + "```\n\n## After\n"
    assert [h.title for h in sections.headings(text)] == ["T", "After"]
    assert runs(text) == whole(text)


def test_front_matter_holding_comment_lines_is_one_run() -> None:
    text = "---\n# a YAML comment\n" + "k: v\n" * 25 + "---\n# Title\n\nbody\n"
    assert [h.title for h in sections.headings(text)] == ["Title"]
    assert runs(text) == whole(text)


def test_an_edit_reparses_only_the_runs_it_touched() -> None:
    head = "---\ntype: entity\n---\n# E\n\n"
    text = head + "".join(f"## S{i}\n\n- a\n- b\n\n" for i in range(12))
    sections._parse(text)
    edited = text.replace("## S5\n\n- a\n- b\n", "## S5\n\n- a\n- b\n- c\n")
    parsed_before = sections._RUNS._data.copy()
    assert runs(edited) == whole(edited)
    added = [key for key in sections._RUNS._data if key not in parsed_before]
    assert added == ["## S5\n\n- a\n- b\n- c\n\n"]


def test_a_run_nested_past_the_limit_hides_what_follows_as_the_whole_text_does() -> None:
    # Past markdown-it's maxNesting the parser skips to the end of what it reads: the note's end
    # for the whole text. A run must not bring the headings after it back.
    outline = "".join("  " * i + f"- level {i}\n" for i in range(300))
    text = (
        "---\ntype: x\n---\n# T\n\n"
        + "".join(f"## S{i}\n\ntext\n\n" for i in range(25))
        + f"## Overview\n\n{outline}\n## Key Decisions\n\n- An older decision\n"
    )
    assert runs(text) == whole(text)
    assert "Key Decisions" not in [h.title for h in sections.headings(text)]
