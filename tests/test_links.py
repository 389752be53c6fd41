from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from property_kit import examples

from vaultmem.errors import UnsafePath
from vaultmem.notes import links
from vaultmem.notes.links import Link


def _one(text: str) -> Link:
    found = links.parse(text)
    assert len(found) == 1, found
    return found[0]


@pytest.mark.parametrize(
    ("text", "target", "heading", "block", "alias", "embed"),
    [
        ("[[Auth]]", "Auth", None, None, None, False),
        ("[[Auth|the auth]]", "Auth", None, None, "the auth", False),
        ("[[Auth#Key Decisions]]", "Auth", "Key Decisions", None, None, False),
        ("[[Auth#^vm-1a2b3c4d]]", "Auth", None, "vm-1a2b3c4d", None, False),
        ("[[Auth#Gotchas|see]]", "Auth", "Gotchas", None, "see", False),
        ("[[Auth#^blk|see]]", "Auth", None, "blk", "see", False),
        ("![[diagram.png]]", "diagram.png", None, None, None, True),
        ("![[Auth#Overview]]", "Auth", "Overview", None, None, True),
        ("[[Auth.md]]", "Auth.md", None, None, None, False),
        (
            "[[claude/projects/p/entities/Auth]]",
            "claude/projects/p/entities/Auth",
            None,
            None,
            None,
            False,
        ),
        ("| a | [[Auth\\|alias]] |", "Auth", None, None, "alias", False),
        ("| a | [[Auth#H\\|alias]] |", "Auth", "H", None, "alias", False),
        ("[[#Local heading]]", "", "Local heading", None, None, False),
        ("[[ Spaced ]]", "Spaced", None, None, None, False),
        ("[[A#H1#H2]]", "A", "H1#H2", None, None, False),
    ],
)
def test_parse_forms(
    text: str,
    target: str,
    heading: str | None,
    block: str | None,
    alias: str | None,
    embed: bool,
) -> None:
    link = _one(text)
    assert (link.target, link.heading, link.block, link.alias, link.embed) == (
        target,
        heading,
        block,
        alias,
        embed,
    )
    assert text[link.start : link.end].endswith("]]")
    assert text[link.start] == ("!" if embed else "[")


@pytest.mark.parametrize("text", ["[[]]", "[[|x]]", "[[a\nb]]", "[single]", "[[a]", "no links"])
def test_not_links(text: str) -> None:
    assert links.parse(text) == []


def test_offsets_and_order() -> None:
    text = "x [[A]] y ![[B|c]] z"
    found = links.parse(text)
    assert [text[lk.start : lk.end] for lk in found] == ["[[A]]", "![[B|c]]"]


def test_fenced_code_is_skipped() -> None:
    text = (
        "[[Before]]\n"
        "```python\n"
        "x = '[[InFence]]'\n"
        "```\n"
        "~~~~\n"
        "[[InTilde]]\n"
        "~~~\n"  # too short: does not close the four-tilde fence
        "[[StillInTilde]]\n"
        "~~~~\n"
        "> ```\n"
        "> [[InQuotedFence]]\n"
        "> ```\n"
        "- item\n"
        "  ```\n"
        "  [[InListFence]]\n"
        "  ```\n"
        "[[After]]\n"
    )
    assert [lk.target for lk in links.parse(text)] == ["Before", "After"]


def test_unclosed_fence_runs_to_the_end() -> None:
    assert [lk.target for lk in links.parse("[[A]]\n```\n[[B]]\n")] == ["A"]


def test_inline_code_is_skipped() -> None:
    text = (
        "use `[[NotALink]]` and ``a ` [[Nope]] `` but [[Yes]]\n"
        "a span `across\n[[AlsoCode]]` lines\n"
        "\n"
        "an unclosed ` backtick then [[Real]]\n"
        "```inline``` [[AfterTripleInline]]\n"
    )
    assert [lk.target for lk in links.parse(text)] == ["Yes", "Real", "AfterTripleInline"]


def test_code_span_does_not_cross_a_blank_line() -> None:
    text = "a ` b\n\n[[Real]] ` c\n"
    assert [lk.target for lk in links.parse(text)] == ["Real"]


def test_links_in_frontmatter_properties_count() -> None:
    text = '---\narchived_to: "[[archive/x]]"\n---\nbody\n'
    assert [lk.target for lk in links.parse(text)] == ["archive/x"]


def test_format() -> None:
    assert links.format("Auth") == "[[Auth]]"
    assert links.format("Auth", heading="Key Decisions") == "[[Auth#Key Decisions]]"
    assert links.format("Auth", block="vm-1", alias="see") == "[[Auth#^vm-1|see]]"
    assert links.format("a/b", heading="H", alias="x") == "[[a/b#H|x]]"
    for bad in ("a|b", "a]]", "a#b", "a\nb"):
        with pytest.raises(UnsafePath):
            links.format(bad)


@pytest.mark.parametrize("text", ["[[A]]", "![[A#H|x]]", "[[A#^b]]", "[[A\\|x]]"])
def test_format_round_trips_through_parse(text: str) -> None:
    link = _one(text)
    again = _one(
        links.format(link.target, heading=link.heading, block=link.block, alias=link.alias)
    )
    assert (again.target, again.heading, again.block, again.alias) == (
        link.target,
        link.heading,
        link.block,
        link.alias,
    )


NOTES = [
    "Auth.md",
    "claude/projects/p/entities/Auth.md",
    "claude/projects/q/entities/Auth.md",
    "claude/global/entities/Cache.md",
    "claude/projects/p/entities/Cache.md",
    "notes/very/deep/folders/Cache.md",
    "x/Twin.md",
    "y/Twin.md",
]


@pytest.mark.parametrize(
    ("target", "source", "expected"),
    [
        # 1. the exact vault path, with or without .md, any case
        ("claude/projects/q/entities/Auth", None, "claude/projects/q/entities/Auth.md"),
        ("claude/projects/q/entities/Auth.md", None, "claude/projects/q/entities/Auth.md"),
        ("CLAUDE/projects/Q/entities/auth", None, "claude/projects/q/entities/Auth.md"),
        ("Auth", "claude/projects/p/sessions/s.md", "Auth.md"),  # exact path beats folder
        # 2. the source note's own folder
        ("Cache", "claude/projects/p/entities/Other.md", "claude/projects/p/entities/Cache.md"),
        ("cache", "notes/very/deep/folders/x.md", "notes/very/deep/folders/Cache.md"),
        # 3. the shortest path among matching names; ties: sorted order
        ("Cache", None, "claude/global/entities/Cache.md"),
        ("Cache", "elsewhere/x.md", "claude/global/entities/Cache.md"),
        ("Twin", None, "x/Twin.md"),
        # a partial path matches the trailing path
        ("p/entities/Cache", None, "claude/projects/p/entities/Cache.md"),
        ("entities/Auth", None, "claude/projects/p/entities/Auth.md"),
        # relative to the source folder
        (
            "../entities/Cache",
            "claude/projects/p/sessions/s.md",
            "claude/projects/p/entities/Cache.md",
        ),
        # unresolved
        ("Missing", None, None),
        ("uth", None, None),
        ("ities/Auth", None, None),
        ("", "a/b.md", "a/b.md"),
    ],
)
def test_resolve(target: str, source: str | None, expected: str | None) -> None:
    assert links.resolve(target, source, NOTES) == expected
    assert links.NoteIndex(NOTES).resolve(target, source) == expected


def test_resolve_prefers_the_exact_spelling_among_case_twins() -> None:
    notes = ["a/auth.md", "a/Auth.md"]
    assert links.resolve("Auth", None, notes) == "a/Auth.md"
    assert links.resolve("auth", None, notes) == "a/auth.md"
    assert links.resolve("AUTH", None, notes) == "a/Auth.md"  # sorted order


def test_candidates_lists_ties() -> None:
    assert links.candidates("Twin", None, NOTES) == ["x/Twin.md", "y/Twin.md"]
    assert links.candidates("Twin", "y/z.md", NOTES) == ["y/Twin.md"]
    assert links.candidates("Nope", None, NOTES) == []


def test_rewrite_keeps_heading_block_alias_and_embed() -> None:
    text = (
        "See [[Auth]], [[Auth#Key Decisions|why]], ![[Auth#^vm-1]], "
        "[[ Auth ]] and [[Other]].\n"
        "| t | [[Auth\\|alias]] |\n"
        "`[[Auth]]` stays\n"
    )
    out = links.rewrite(
        text, lambda lk: "claude/global/entities/Auth" if lk.target == "Auth" else None
    )
    new = "claude/global/entities/Auth"
    assert out == (
        f"See [[{new}]], [[{new}#Key Decisions|why]], ![[{new}#^vm-1]], "
        f"[[ {new} ]] and [[Other]].\n"
        f"| t | [[{new}\\|alias]] |\n"
        "`[[Auth]]` stays\n"
    )


def test_rewrite_with_no_change_returns_the_same_text() -> None:
    text = "[[A]] [[B]]"
    assert links.rewrite(text, lambda lk: None) is text
    assert links.rewrite(text, lambda lk: lk.target) is text


def test_rewrite_refuses_a_target_that_breaks_the_link() -> None:
    with pytest.raises(UnsafePath):
        links.rewrite("[[A]]", lambda lk: "B|C")


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("Auth", "Auth"),
        ("  JWT Refresh ", "JWT Refresh"),
        ("Auth.md", "Auth"),
        ("Cafe\u0301", "Caf\u00e9"),
        ("Über Straße", "Über Straße"),
    ],
)
def test_safe_entity_name(name: str, expected: str) -> None:
    assert links.safe_entity_name(name) == expected


@pytest.mark.parametrize(
    "name",
    [
        "",
        "   ",
        ".",
        "..",
        "../secrets",
        "/etc/passwd",
        "a/b",
        "a\\b",
        "C:\\x",
        ".hidden",
        "CON",
        "Auth: JWT",
        "x\x00y",
        "a" * 200,
        "trailing.",
    ],
)
def test_unsafe_entity_names(name: str) -> None:
    with pytest.raises(UnsafePath) as info:
        links.safe_entity_name(name)
    assert "link" in str(info.value)


def _by_line(text: str) -> list[tuple[int, int]]:
    """The code ranges as the line-by-line reading finds them (the path for odd line breaks)."""
    fences, paragraphs = links._fenced_and_paragraphs(text)
    ranges = list(fences)
    for start, end in paragraphs:
        runs = [(m.start(), m.end()) for m in links._BACKTICKS_RE.finditer(text, start, end)]
        ranges.extend(links._code_spans(text, runs))
    return sorted(ranges)


_CODE_PIECES = ["`", "``", "```", "~~~", "~~~~", "\n", "\n\n", " ", "  \n", "> ", "\\", "a",
                "[[x]]", "\t", "```py", "- ", "\u00a0"]


@settings(max_examples=examples(600), deadline=None)
@given(st.lists(st.sampled_from(_CODE_PIECES), max_size=40))
def test_code_ranges_read_by_regex_passes_match_the_line_by_line_reading(pieces: list[str]) -> None:
    text = "".join(pieces)
    assert links._code_ranges(text) == _by_line(text)


_LINK_PIECES = [*_CODE_PIECES, "[[", "]]", "|", "\\|", "#", "#^b", "Auth", " ", "!", "[[ ]]",
                "[[#h]]", "[[a|b]]"]


@settings(max_examples=examples(400), deadline=None)
@given(st.lists(st.sampled_from(_LINK_PIECES), max_size=40))
def test_targets_are_those_of_the_parsed_links(pieces: list[str]) -> None:
    text = "".join(pieces)
    assert links.targets(text) == [(x.target, x.start, x.end) for x in links.parse(text) if x.target]


@settings(max_examples=examples(400), deadline=None)
@given(st.lists(st.sampled_from([p for p in _LINK_PIECES if "`" not in p and "~" not in p]),
                max_size=40))
def test_links_and_embeds_are_found_where_the_one_regex_found_them(pieces: list[str]) -> None:
    text = "".join(pieces)
    old = [(m.start(), m.end(), bool(m.group(1)), m.group(2))
           for m in re.finditer(r"(!?)\[\[([^\[\]\n]*)\]\]", text)]
    assert [(f.start, f.end, f.embed, f.inner) for f in links._matches(text)] == old
