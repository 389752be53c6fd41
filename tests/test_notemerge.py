"""notemerge: the three-way merge of a note (pure), by example and by property."""

from __future__ import annotations

import hashlib
import re
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from property_kit import examples

from vaultmem.memory.diff3 import NotMergeable
from vaultmem.memory.notemerge import merge, merge_bytes
from vaultmem.notes import frontmatter

BASE = """---
type: entity
project: demo
tags:
  - claude/entity
created: 2026-11-20
updated: 2026-11-20
owner: alice
---
# Auth

## Overview

Auth issues tokens.
It refreshes them too.

## Key Decisions

- 2026-11-20 — Use JWT ([[a/s1|s1]]) ^vm-aaaa0001

## References

- [[a/s1|s1]] - Archived session (compacted)
"""


def _add_item(text: str, line: str) -> str:
    return text.replace("^vm-aaaa0001\n", "^vm-aaaa0001\n" + line + "\n")


def _add_ref(text: str, stem: str) -> str:
    return text.replace("(compacted)\n", f"(compacted)\n- [[a/{stem}|{stem}]] - Archived session "
                        "(compacted)\n", 1)


def test_appends_on_both_sides_merge_into_one_list_in_date_order() -> None:
    ours = _add_ref(_add_item(BASE, "- 2026-11-22 — Use RS256 ([[a/s2|s2]]) ^vm-bbbb0002"), "s2")
    theirs = _add_ref(_add_item(BASE, "- 2026-11-21 — Rotate keys ([[a/s3|s3]]) ^vm-cccc0003"),
                      "s3")
    result = merge(BASE, ours, theirs)
    assert result.conflicts == 0
    decisions = [line for line in result.text.splitlines() if "^vm-" in line]
    assert [re.search(r"\^(vm-\w+)", d).group(1) for d in decisions] == [  # type: ignore[union-attr]
        "vm-aaaa0001", "vm-cccc0003", "vm-bbbb0002"]
    refs = result.text.split("## References\n\n")[1].splitlines()
    assert refs == ["- [[a/s1|s1]] - Archived session (compacted)",
                    "- [[a/s2|s2]] - Archived session (compacted)",
                    "- [[a/s3|s3]] - Archived session (compacted)"]
    assert "<<<<<<<" not in result.text


def test_the_same_item_with_two_session_lists_becomes_one_line_with_both() -> None:
    ours = BASE.replace("([[a/s1|s1]]) ^vm", "([[a/s1|s1]], [[a/s2|s2]]) ^vm")
    theirs = BASE.replace("- 2026-11-20 — Use JWT ([[a/s1|s1]])",
                          "- 2026-11-20 — Use JWT ([[a/s1|s1]], [[a/s3|s3]])")
    text = merge(BASE, ours, theirs).text
    assert "- 2026-11-20 — Use JWT ([[a/s1|s1]], [[a/s2|s2]], [[a/s3|s3]]) ^vm-aaaa0001\n" in text
    assert text.count("^vm-aaaa0001") == 1


def test_a_persons_edit_of_an_item_survives_a_new_session_link_on_the_other_side() -> None:
    ours = BASE.replace("Use JWT", "Use JWT (RFC 7519)")
    theirs = BASE.replace("([[a/s1|s1]]) ^vm", "([[a/s1|s1]], [[a/s2|s2]]) ^vm")
    text = merge(BASE, ours, theirs).text
    assert "- 2026-11-20 — Use JWT (RFC 7519) ([[a/s1|s1]], [[a/s2|s2]]) ^vm-aaaa0001\n" in text


def test_the_same_item_added_on_both_sides_with_different_dates_keeps_the_earlier() -> None:
    ours = _add_item(BASE, "- 2026-11-23 — Pin PyJWT ([[a/s2|s2]]) ^vm-dddd0004")
    theirs = _add_item(BASE, "- 2026-11-21 — Pin PyJWT ([[a/s3|s3]]) ^vm-dddd0004")
    text = merge(BASE, ours, theirs).text
    assert "- 2026-11-21 — Pin PyJWT ([[a/s2|s2]], [[a/s3|s3]]) ^vm-dddd0004\n" in text


def test_frontmatter_key_by_key() -> None:
    ours = BASE.replace("updated: 2026-11-20", "updated: 2026-11-23").replace(
        "  - claude/entity\n", "  - claude/entity\n  - auth\n")
    theirs = BASE.replace("updated: 2026-11-20", "updated: 2026-11-22").replace(
        "  - claude/entity\n", "  - claude/entity\n  - security\n").replace(
        "project: demo\n", "project: demo\nstatus: active\n")
    result = merge(BASE, ours, theirs)
    meta = frontmatter.parse(result.text)
    assert str(meta["updated"]) == "2026-11-23"
    assert meta["tags"] == ["claude/entity", "auth", "security"]
    assert meta["status"] == "active" and result.conflicts == 0


def test_a_scalar_both_sides_changed_keeps_ours_and_shows_theirs() -> None:
    ours = BASE.replace("owner: alice", "owner: bob")
    theirs = BASE.replace("owner: alice", "owner: carol")
    result = merge(BASE, ours, theirs)
    assert frontmatter.parse(result.text)["owner"] == "bob"
    assert result.conflicts == 1
    assert "> [!conflict]" in result.text and "`owner`: the other side had `carol`" in result.text


def test_prose_both_sides_changed_goes_into_a_callout_not_git_markers() -> None:
    ours = BASE.replace("Auth issues tokens.", "Auth issues OAuth tokens.")
    theirs = BASE.replace("Auth issues tokens.", "Auth hands out tokens.")
    result = merge(BASE, ours, theirs)
    assert result.conflicts == 1
    assert "> Auth issues OAuth tokens.\n" in result.text
    assert "> Auth hands out tokens.\n" in result.text
    assert "It refreshes them too.\n" in result.text and "<<<<<<<" not in result.text


def test_prose_changed_in_two_places_merges_three_way() -> None:
    base = BASE.replace("It refreshes", "\nIt refreshes")
    ours = base.replace("Auth issues tokens.", "Auth issues OAuth tokens.")
    theirs = base.replace("It refreshes them too.", "It refreshes and revokes them.")
    result = merge(base, ours, theirs)
    assert "Auth issues OAuth tokens.\n\nIt refreshes and revokes them.\n" in result.text
    assert result.conflicts == 0


def test_a_note_created_on_both_sides_merges_section_by_section() -> None:
    ours = _add_item(BASE, "- 2026-11-22 — Use RS256 ([[a/s2|s2]]) ^vm-bbbb0002")
    theirs = _add_ref(BASE, "s3")
    text = merge("", ours, theirs).text
    assert text.count("## Key Decisions") == 1 and text.count("# Auth\n") == 1
    assert "^vm-bbbb0002" in text and "[[a/s3|s3]]" in text


def test_a_section_added_on_one_side_and_another_on_the_other() -> None:
    ours = BASE + "\n## Gotchas & Troubleshooting\n\n- 2026-11-22 — Clock skew ^vm-eeee0005\n"
    theirs = BASE.replace("## References", "## Recent Changes\n\n- new thing\n\n## References")
    text = merge(BASE, ours, theirs).text
    assert "## Recent Changes\n\n- new thing\n\n## References" in text
    assert text.endswith("## Gotchas & Troubleshooting\n\n- 2026-11-22 — Clock skew ^vm-eeee0005\n")


def test_a_line_one_side_deleted_and_the_other_kept_is_deleted() -> None:
    ours = BASE.replace("It refreshes them too.\n", "")
    theirs = _add_ref(BASE, "s3")
    text = merge(BASE, ours, theirs).text
    assert "It refreshes" not in text and "[[a/s3|s3]]" in text


def test_crlf_and_bom_of_this_side_are_kept() -> None:
    def crlf(text: str) -> bytes:
        return ("\ufeff" + text.replace("\n", "\r\n")).encode()

    ours = crlf(_add_item(BASE, "- 2026-11-22 — Use RS256 ([[a/s2|s2]]) ^vm-bbbb0002"))
    theirs = crlf(_add_ref(BASE, "s3"))
    data, conflicts = merge_bytes(crlf(BASE), ours, theirs)
    assert conflicts == 0 and data.startswith(b"\xef\xbb\xbf---\r\n")
    assert b"\n" not in data.replace(b"\r\n", b"")
    assert b"^vm-bbbb0002\r\n" in data and b"[[a/s3|s3]]" in data


def test_bad_yaml_is_not_mergeable() -> None:
    bad = BASE.replace("owner: alice", "owner: [unclosed")
    with pytest.raises(NotMergeable):
        merge(BASE, bad, _add_ref(BASE, "s3"))


def test_code_fences_hide_headings() -> None:
    fenced = BASE.replace("It refreshes them too.\n", "```\n## Not a section\n```\n")
    ours = fenced.replace("Auth issues tokens.", "Auth issues OAuth tokens.")
    theirs = _add_ref(fenced, "s3")
    text = merge(fenced, ours, theirs).text
    assert "```\n## Not a section\n```\n" in text and "OAuth" in text and "s3|s3" in text


# -- properties --------------------------------------------------------------------------------

SECTIONS = ("Overview", "Key Decisions", "Gotchas & Troubleshooting", "References")
_words = st.text(alphabet="abcdefgh ", min_size=1, max_size=12).map(lambda s: s.strip() or "x")


@st.composite
def _line(draw: st.DrawFn, section: str, tag: str) -> str:
    n = draw(st.integers(0, 10**6))
    if section == "References":
        return f"- [[a/{tag}{n}|{tag}{n}]] - Archived session (compacted)"
    if section == "Overview":
        return f"{draw(_words)} {tag}{n}"
    day, words = draw(st.integers(1, 28)), draw(_words)
    block = hashlib.sha256(f"{day} {words} {n}".encode()).hexdigest()[:8]
    return f"- 2026-11-{day:02d} — {words} ([[a/{tag}{n}|s]]) ^vm-{tag}{block}"


@st.composite
def _note(draw: st.DrawFn) -> dict[str, list[str]]:
    return {s: draw(st.lists(_line(s, "b"), max_size=4, unique=True)) for s in SECTIONS}


def _render(note: dict[str, list[str]], tags: list[str], day: int) -> str:
    head = "---\ntype: entity\ntags:\n" + "".join(f"  - {t}\n" for t in tags)
    head += f"updated: 2026-11-{day:02d}\n---\n# Auth\n"
    return head + "".join(f"\n## {s}\n\n" + "".join(x + "\n" for x in note[s]) for s in SECTIONS)


@st.composite
def _edited(draw: st.DrawFn, base: dict[str, list[str]], tag: str) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for s in SECTIONS:
        lines = list(base[s])
        if lines and draw(st.booleans()):
            del lines[draw(st.integers(0, len(lines) - 1))]
        for new in draw(st.lists(_line(s, tag), max_size=3, unique=True)):
            lines.insert(draw(st.integers(0, len(lines))), new)
        out[s] = lines
    return out


@st.composite
def _triple(draw: st.DrawFn) -> tuple[str, str, str, dict[str, list[str]], ...]:
    base = draw(_note())
    ours, theirs = draw(_edited(base, "o")), draw(_edited(base, "t"))
    tags = ["claude/entity"]
    return (_render(base, tags, 10), _render(ours, [*tags, "o"], draw(st.integers(10, 28))),
            _render(theirs, [*tags, "t"], draw(st.integers(10, 28))), base, ours, theirs)


def _kept(line: str, lines: set[str]) -> bool:
    return line in lines or f"> {line}" in lines


@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_triple())
def test_no_line_either_side_added_or_kept_is_lost(triple: tuple) -> None:  # type: ignore[type-arg]
    b, o, t, base, ours, theirs = triple
    result = merge(b, o, t)
    lines = set(result.text.split("\n"))
    for s in SECTIONS:
        for line in {*ours[s], *theirs[s]}:
            deleted = line in base[s] and (line not in ours[s] or line not in theirs[s])
            if not deleted:
                assert _kept(line, lines), (s, line)
    ids = Counter(re.findall(r"\^(vm-\w+)$", result.text, re.MULTILINE))
    assert all(n == 1 for n in ids.values())
    assert frontmatter.parse(result.text)["tags"] == ["claude/entity", "o", "t"]


@settings(max_examples=examples(100), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_triple())
def test_symmetric_in_content(triple: tuple) -> None:  # type: ignore[type-arg]
    b, o, t = triple[:3]
    one, other = merge(b, o, t), merge(b, t, o)
    if one.conflicts == 0 and other.conflicts == 0:
        assert sorted(one.text.split("\n")) == sorted(other.text.split("\n"))


@settings(max_examples=examples(100), deadline=None)
@given(st.text(max_size=300) | _triple().map(lambda x: x[1]))
def test_idempotent(text: str) -> None:
    assert merge(text, text, text).text == text
    assert merge(text, text, text).conflicts == 0


@settings(max_examples=examples(100), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_triple())
def test_a_side_equal_to_the_base_yields_the_other(triple: tuple) -> None:  # type: ignore[type-arg]
    b, o = triple[:2]
    assert merge(b, b, o).text == o and merge(b, o, b).text == o


def test_counts_vaultmem_derives_are_recounted_not_conflicted() -> None:
    def entity(*items: str) -> str:
        rows = "".join(f"- 2026-11-0{i + 1} — {text} ^vm-0000000{i}\n" for i, text in items)
        return (f"---\ntype: entity\ndecisions: {len(items)}\ngotchas: 0\n---\n# Auth\n\n"
                f"## Key Decisions\n\n{rows}\n## Gotchas & Troubleshooting\n")

    base = entity((0, "a"))
    ours, theirs = entity((0, "a"), (1, "b")), entity((0, "a"), (2, "c"))
    got = merge(base, ours, theirs)
    assert got.conflicts == 0 and "[!conflict]" not in got.text
    assert "decisions: 3\n" in got.text and "gotchas: 0\n" in got.text
    assert all(f"— {x} ^" in got.text for x in "abc")


def _order_by_insertion(o: list[tuple[str, int]], t: list[tuple[str, int]]) -> list[tuple[str, int]]:
    """The order's definition: each of theirs' new sections inserted right after the one it
    follows in theirs (the text before the first heading first)."""
    order, have = list(o), set(o)
    anchor = order.index(("", 0)) if ("", 0) in have else -1
    for key in t:
        if key in have:
            anchor = order.index(key)
            continue
        anchor += 1
        order.insert(anchor, key)
        have.add(key)
    return order


_SECTION_KEYS = st.sampled_from([("", 0)] + [(f"h{i}", n) for i in range(6) for n in range(2)])


@given(st.lists(_SECTION_KEYS, unique=True), st.lists(_SECTION_KEYS, unique=True))
def test_the_merged_section_order_is_each_new_section_after_the_one_it_follows(
    o: list[tuple[str, int]], t: list[tuple[str, int]]
) -> None:
    from vaultmem.memory.notemerge import _merged_order

    assert _merged_order(o, t) == _order_by_insertion(o, t)
