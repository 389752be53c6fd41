"""patch: section operations, whitespace ownership, heading creation, conflicts, frontmatter edits."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from property_kit import examples

from vaultmem.errors import AmbiguousHeading, HeadingNotFound, InvalidYaml
from vaultmem.notes import patch, sections
from vaultmem.notes.patch import (
    CONFLICT_HEADING,
    AddToProperty,
    Applied,
    DeleteProperty,
    Edit,
    Op,
    SectionPatch,
    SetProperty,
    apply,
    apply_all,
    conflicted,
    rebaseable,
)


def run(text: str, path: str, op: Op, content: str, **flags: bool) -> Applied:
    return apply(text, SectionPatch(sections.parse_path(path), op, content, **flags), file="n.md")


def patched(text: str, path: str, op: Op, content: str, **flags: bool) -> str:
    return run(text, path, op, content, **flags).text


# --- append ------------------------------------------------------------------------------------


def test_append_list_item_joins_a_tight_list() -> None:
    assert patched("## D\n\n- a\n\n## E\n", "D", "append", "- b") == "## D\n\n- a\n- b\n\n## E\n"


@pytest.mark.parametrize(
    ("body", "item"),
    [
        ("- [ ] a", "- [ ] b"),
        ("* a", "* b"),
        ("+ a", "+ b"),
        ("1. a", "2. b"),
        ("- a\n  continued", "- b"),
        ("- a\n  - nested", "- b"),
    ],
)
def test_every_list_marker_joins(body: str, item: str) -> None:
    text = f"## D\n\n{body}\n\n## E\n"
    assert patched(text, "D", "append", item) == f"## D\n\n{body}\n{item}\n\n## E\n"


def test_append_list_item_after_a_loose_list_keeps_it_loose() -> None:
    text = "## D\n\n- a\n\n- b\n\n## E\n"
    assert patched(text, "D", "append", "- c") == "## D\n\n- a\n\n- b\n\n- c\n\n## E\n"


def test_append_paragraph_after_list_gets_a_blank_line() -> None:
    text = "## D\n\n- a\n\n## E\n"
    assert (
        patched(text, "D", "append", "Closing words.") == "## D\n\n- a\n\nClosing words.\n\n## E\n"
    )


def test_append_list_item_after_paragraph_gets_a_blank_line() -> None:
    text = "## D\n\nIntro.\n## E\n"
    assert patched(text, "D", "append", "- a") == "## D\n\nIntro.\n\n- a\n\n## E\n"


def test_append_after_a_fence_that_holds_list_lines_does_not_join() -> None:
    text = "## D\n\n```\n- a\n```\n\n## E\n"
    assert patched(text, "D", "append", "- b") == "## D\n\n```\n- a\n```\n\n- b\n\n## E\n"


def test_append_goes_before_the_first_subheading() -> None:
    text = "## D\n\nown\n\n### Sub\n\nsub body\n\n## E\n"
    expected = "## D\n\nown\n\nnew\n\n### Sub\n\nsub body\n\n## E\n"
    assert patched(text, "D", "append", "new") == expected


def test_append_subtree_goes_after_the_last_subsection() -> None:
    text = "## D\n\nown\n\n### Sub\n\nsub body\n\n## E\n"
    expected = "## D\n\nown\n\n### Sub\n\nsub body\n\nnew\n\n## E\n"
    assert patched(text, "D", "append", "new", subtree=True) == expected


def test_append_subtree_joins_the_list_of_the_last_subsection_only() -> None:
    text = "## D\n\n- own\n\n### Sub\n\n- x\n\n## E\n"
    assert patched(text, "D", "append", "- y", subtree=True) == (
        "## D\n\n- own\n\n### Sub\n\n- x\n- y\n\n## E\n"
    )
    # Right after a subheading there is no list to join, whatever the section above it held.
    text = "## D\n\n- own\n\n### Sub\n## E\n"
    assert patched(text, "D", "append", "- y", subtree=True) == (
        "## D\n\n- own\n\n### Sub\n\n- y\n\n## E\n"
    )


def test_append_to_an_empty_section_between_headings() -> None:
    assert patched("## A\n## B\n", "A", "append", "x") == "## A\n\nx\n\n## B\n"


def test_append_trims_the_body_trailing_blank_lines() -> None:
    text = "## A\n\nx\n\n\n\n   \n## B\n"
    assert patched(text, "A", "append", "y") == "## A\n\nx\n\ny\n\n## B\n"


def test_append_to_last_section_ends_with_one_newline() -> None:
    assert patched("## A\n\nx\n\n\n\n", "A", "append", "y") == "## A\n\nx\n\ny\n"
    assert patched("## A\nx", "A", "append", "y") == "## A\nx\n\ny\n"
    assert patched("## A", "A", "append", "y") == "## A\n\ny\n"


def test_content_is_normalised_but_its_inside_is_kept() -> None:
    content = "\n\n  \n```\ncode\n\n\n  indented\n```\n\n\n"
    assert patched("## A\n", "A", "append", content) == "## A\n\n```\ncode\n\n\n  indented\n```\n"


def test_content_with_crlf_is_read_as_lf() -> None:
    assert patched("## A\n", "A", "append", "one\r\ntwo\r\n") == "## A\n\none\ntwo\n"


def test_empty_append_is_a_no_op() -> None:
    text = "## A\n\nx\n\n\n## B"
    result = run(text, "A", "append", "\n  \n")
    assert result == Applied(text=text, changed=False, created=())


def test_empty_append_still_requires_the_heading() -> None:
    with pytest.raises(HeadingNotFound):
        run("## A\n", "Nope", "append", "")


def test_two_appends_keep_their_order() -> None:
    text = "## A\n\n- one\n\n## B\n"
    once = patched(text, "A", "append", "- two")
    assert patched(once, "A", "append", "- three") == "## A\n\n- one\n- two\n- three\n\n## B\n"


def test_append_to_setext_section() -> None:
    text = "Title\n=====\nintro\n\nNext\n----\n"
    assert patched(text, "Title", "append", "more") == "Title\n=====\nintro\n\nmore\n\nNext\n----\n"


def test_append_leaves_frontmatter_and_other_sections_byte_identical() -> None:
    text = "---\ntags: [a]   # keep\n---\n# T  \n\n\n\nodd   spacing\n\n## A\ntext  \n## B\n\n\n\nz\t\n"
    expected = (
        "---\ntags: [a]   # keep\n---\n# T  \n\n\n\nodd   spacing\n\n## A\ntext  \n\nnew\n\n"
        "## B\n\n\n\nz\t\n"
    )
    assert patched(text, "A", "append", "new") == expected


def test_carriage_returns_inside_lines_survive() -> None:
    text = "## A\r\nx\n## B\nkeep\r\n"
    assert patched(text, "B", "append", "y") == "## A\r\nx\n## B\nkeep\r\n\ny\n"


# --- prepend -----------------------------------------------------------------------------------


def test_prepend_goes_right_after_the_heading() -> None:
    text = "## A\nfirst\n\n## B\n"
    assert patched(text, "A", "prepend", "zero") == "## A\n\nzero\n\nfirst\n\n## B\n"


def test_prepend_lays_out_the_blank_lines_after_the_heading() -> None:
    text = "## A\n\n\n\nfirst\n## B\n"
    assert patched(text, "A", "prepend", "zero") == "## A\n\nzero\n\nfirst\n## B\n"


def test_prepend_list_item_joins_a_tight_list() -> None:
    text = "## A\n\n- a\n- b\n\n## B\n"
    assert patched(text, "A", "prepend", "- z") == "## A\n\n- z\n- a\n- b\n\n## B\n"


def test_prepend_to_empty_section_and_to_a_section_with_only_subsections() -> None:
    assert patched("## A\n\n## B\n", "A", "prepend", "x") == "## A\n\nx\n\n## B\n"
    text = "## A\n### S\ns\n"
    assert patched(text, "A", "prepend", "x") == "## A\n\nx\n\n### S\ns\n"


def test_prepend_on_setext_goes_after_the_underline() -> None:
    assert patched("A\n===\nbody\n", "A", "prepend", "x") == "A\n===\n\nx\n\nbody\n"


# --- replace -----------------------------------------------------------------------------------


def test_replace_own_body_keeps_subsections() -> None:
    text = "## A\nold\n\nolder\n### S\ns\n## B\n"
    assert patched(text, "A", "replace", "new") == "## A\n\nnew\n\n### S\ns\n## B\n"


def test_replace_subtree_replaces_subsections_too() -> None:
    text = "## A\nold\n### S\ns\n## B\n"
    assert patched(text, "A", "replace", "new", subtree=True) == "## A\n\nnew\n\n## B\n"


def test_replace_with_empty_content_empties_the_section() -> None:
    assert patched("## A\nold\n## B\n", "A", "replace", "") == "## A\n\n## B\n"
    assert patched("## A\nold\n\n\n", "A", "replace", "") == "## A\n"


def test_replace_with_the_same_body_changes_nothing() -> None:
    text = "## A\n\nsame\n\n## B\n"
    result = run(text, "A", "replace", "same\n")
    assert (result.text, result.changed) == (text, False)


def test_replace_last_section_fixes_the_final_newline() -> None:
    assert patched("## A\nold", "A", "replace", "new") == "## A\n\nnew\n"


# --- resolution and creation -------------------------------------------------------------------


def test_missing_heading_without_create_is_an_error() -> None:
    with pytest.raises(HeadingNotFound) as info:
        run("## A\n", "B", "append", "x")
    assert (info.value.path, info.value.heading) == ("n.md", "B")


def test_ambiguous_heading_is_an_error_naming_the_file() -> None:
    text = "## A\n### X\n## B\n### X\n"
    with pytest.raises(AmbiguousHeading) as info:
        run(text, "X", "append", "y", create=True)
    assert info.value.path == "n.md"
    assert "(line 2)" in info.value.message and "(line 4)" in info.value.message


def test_create_under_an_existing_parent_goes_at_the_end_of_its_subtree() -> None:
    text = "# T\n\n## A\n\na\n\n### Old\n\nold\n\n## Z\n"
    result = run(text, "A::New", "append", "hi", create=True)
    assert result.text == "# T\n\n## A\n\na\n\n### Old\n\nold\n\n### New\n\nhi\n\n## Z\n"
    assert result.created == ("New",)
    assert result.changed


def test_create_nested_levels_under_the_longest_existing_prefix() -> None:
    text = "# T\n\n## A\n\nx\n\n## Z\n"
    result = run(text, "A::B::C", "append", "- hi", create=True)
    assert result.text == "# T\n\n## A\n\nx\n\n### B\n\n#### C\n\n- hi\n\n## Z\n"
    assert result.created == ("B", "C")


def test_create_root_level_under_an_h1_title_is_an_h2_at_the_end() -> None:
    text = "# Title\n\n## A\n\nx\n"
    result = run(text, "B::C", "append", "hi", create=True)
    assert result.text == "# Title\n\n## A\n\nx\n\n## B\n\n### C\n\nhi\n"
    assert result.created == ("B", "C")


def test_create_root_level_follows_the_notes_top_level() -> None:
    assert patched("## A\n", "B", "append", "x", create=True) == "## A\n\n## B\n\nx\n"
    assert patched("### A\n", "B", "append", "x", create=True) == "### A\n\n### B\n\nx\n"
    # Several H1s are the note's sections, not a title.
    assert patched("# A\n\n# B\n", "C", "append", "x", create=True) == "# A\n\n# B\n\n# C\n\nx\n"


def test_create_in_a_note_with_only_a_title_or_no_heading_is_an_h2() -> None:
    assert patched("# Title\n", "New", "append", "x", create=True) == "# Title\n\n## New\n\nx\n"
    assert patched("just text\n\n\n", "New", "append", "x", create=True) == (
        "just text\n\n## New\n\nx\n"
    )
    assert patched("", "New", "append", "x", create=True) == "## New\n\nx\n"
    assert patched("---\na: 1\n---\n", "New", "prepend", "x", create=True) == (
        "---\na: 1\n---\n\n## New\n\nx\n"
    )


def test_create_with_every_op_gives_the_same_section() -> None:
    for op in ("append", "prepend", "replace"):
        assert patched("# T\n", "A", op, "x", create=True) == "# T\n\n## A\n\nx\n"


def test_create_with_empty_content_still_creates_the_heading() -> None:
    result = run("# T\n", "A", "append", "", create=True)
    assert (result.text, result.created) == ("# T\n\n## A\n", ("A",))


def test_create_refuses_a_seventh_level() -> None:
    with pytest.raises(HeadingNotFound, match="level 6"):
        run("###### Six\n", "Six::Seven", "append", "x", create=True)


def test_create_refuses_a_title_markdown_would_read_differently() -> None:
    with pytest.raises(HeadingNotFound, match="would not read it back"):
        run("## A\n", "A::Sharp #", "append", "x", create=True)


def test_create_refuses_to_hide_a_heading_in_an_unclosed_fence() -> None:
    with pytest.raises(HeadingNotFound, match="would not read it back"):
        run("## A\n\n```\ncode\n", "B", "append", "x", create=True)


def test_create_does_not_use_a_heading_inside_a_fence_as_parent() -> None:
    text = "## A\n\n```\n## B\n```\n"
    result = run(text, "B", "append", "x", create=True)
    assert result.text == "## A\n\n```\n## B\n```\n\n## B\n\nx\n"


# --- conflicts ---------------------------------------------------------------------------------


def test_conflicted_creates_the_box_at_the_end_and_keeps_the_persons_text() -> None:
    text = "# T\n\n## A\n\nmine\n\n\n"
    edit = SectionPatch(("A",), "replace", "theirs\n- b")
    result = conflicted(text, edit, label="2026-11-22 10:30")
    assert result == (
        "# T\n\n## A\n\nmine\n\n"
        f"## {CONFLICT_HEADING}\n\n"
        "### 2026-11-22 10:30 — A (replace)\n\ntheirs\n- b\n"
    )


def test_conflicted_appends_entries_in_order_to_an_existing_box() -> None:
    text = f"## A\n\nmine\n\n## {CONFLICT_HEADING}\n\n### one — A (replace)\n\nfirst\n\n## Z\n"
    edit = SectionPatch(("A", "B"), "replace", "second")
    assert conflicted(text, edit, label="two") == (
        f"## A\n\nmine\n\n## {CONFLICT_HEADING}\n\n### one — A (replace)\n\nfirst\n\n"
        "### two — A > B (replace)\n\nsecond\n\n## Z\n"
    )


def test_conflicted_entry_without_label_or_content() -> None:
    out = conflicted("## A\n", SectionPatch(("A",), "replace", ""), label=" ")
    assert out == f"## A\n\n## {CONFLICT_HEADING}\n\n### A (replace)\n"


def test_conflicted_entry_heading_is_one_below_the_box() -> None:
    text = f"# {CONFLICT_HEADING}\n"
    out = conflicted(text, SectionPatch(("A",), "append", "x"), label="l")
    assert out == f"# {CONFLICT_HEADING}\n\n## l — A (append)\n\nx\n"


def test_rebaseable() -> None:
    assert rebaseable(SectionPatch(("A",), "append", "x"))
    assert rebaseable(SectionPatch(("A",), "prepend", "x"))
    assert not rebaseable(SectionPatch(("A",), "replace", "x"))
    assert rebaseable(SetProperty("k", 1))
    assert rebaseable(AddToProperty("k", 1))
    assert rebaseable(DeleteProperty("k"))


# --- frontmatter edits -------------------------------------------------------------------------

FM = "---\ntags:\n  - a\nstatus: active # keep\n---\n# T\n"


def test_frontmatter_edits_delegate_and_report_change() -> None:
    result = apply(FM, SetProperty("status", "archived"))
    assert result == Applied(
        "---\ntags:\n  - a\nstatus: archived # keep\n---\n# T\n", changed=True, created=()
    )
    assert apply(FM, AddToProperty("tags", "b")).text == (
        "---\ntags:\n  - a\n  - b\nstatus: active # keep\n---\n# T\n"
    )
    assert apply(FM, DeleteProperty("status")).text == "---\ntags:\n  - a\n---\n# T\n"


def test_frontmatter_edit_that_changes_nothing_is_unchanged() -> None:
    assert apply(FM, SetProperty("status", "active")) == Applied(FM, changed=False, created=())
    assert apply(FM, AddToProperty("tags", "a")).changed is False


def test_invalid_yaml_names_the_file() -> None:
    with pytest.raises(InvalidYaml) as info:
        apply("---\na: [\n---\n", SetProperty("a", 1), file="n.md")
    assert info.value.path == "n.md"


def test_apply_all_folds_and_collects_created_headings() -> None:
    edits: list[Edit] = [
        SetProperty("status", "archived"),
        SectionPatch(("New",), "append", "- a", create=True),
        SectionPatch(("New",), "append", "- b"),
        SectionPatch(("Other",), "append", "x", create=True),
    ]
    result = apply_all(FM, edits, file="n.md")
    assert result.text == (
        "---\ntags:\n  - a\nstatus: archived # keep\n---\n# T\n\n## New\n\n- a\n- b\n\n"
        "## Other\n\nx\n"
    )
    assert result.created == ("New", "Other")
    assert result.changed


def test_apply_all_of_nothing_is_unchanged() -> None:
    assert apply_all(FM, []) == Applied(FM, changed=False, created=())


# --- properties --------------------------------------------------------------------------------


@st.composite
def documents(draw: st.DrawFn) -> str:
    """Notes mixing headings (levels 1-4, unique titles), paragraphs, lists and fences."""
    blocks: list[str] = []
    headings = 0
    for index in range(draw(st.integers(2, 14))):
        kind = draw(st.sampled_from(["heading", "heading", "para", "list", "fence"]))
        if kind == "heading" or (headings == 0 and index == 0):
            headings += 1
            blocks.append("#" * draw(st.integers(1, 4)) + f" H{index}")
        elif kind == "para":
            blocks.append(f"Paragraph {index}\nsecond line")
        elif kind == "list":
            items = draw(st.integers(1, 3))
            blocks.append("\n".join(f"- item {index}.{i}" for i in range(items)))
        else:
            blocks.append("```\n# fake heading\n## another\n```")
    if draw(st.booleans()):
        blocks.insert(0, "---\ntype: session\n---")
    return "\n\n".join(blocks) + "\n"


PATCHES = st.tuples(
    st.sampled_from(["append", "prepend", "replace"]),
    st.booleans(),
    st.sampled_from(["NEW-CONTENT", "- NEW-CONTENT", "NEW-CONTENT\n\nmore"]),
)


@settings(max_examples=examples(200), deadline=None)
@given(documents(), st.data(), PATCHES)
def test_patch_touches_only_its_section(
    text: str, data: st.DataObject, patch: tuple[Op, bool, str]
) -> None:
    op, subtree, content = patch
    target = data.draw(st.sampled_from(sections.headings(text)))
    # prepend ignores subtree: it always goes right after the heading.
    end = target.subtree_end if subtree and op != "prepend" else target.own_end
    result = apply(text, SectionPatch(target.path, op, content, subtree=subtree))

    old, new = text.split("\n"), result.text.split("\n")
    assert new[: target.line + 1] == old[: target.line + 1]
    if end < len(old) - 1:
        tail = old[end:]
        assert new[-len(tail) :] == tail
    assert "\n\n\n" not in result.text  # no doubled blank lines where there were none

    again = sections.resolve(result.text, target.path)
    stop = again.subtree_end if subtree and op != "prepend" else again.own_end
    inside = result.text.split("\n")[again.body_start : stop]
    assert "NEW-CONTENT" in inside or "- NEW-CONTENT" in inside
    assert result.changed


@settings(max_examples=examples(100), deadline=None)
@given(documents(), st.data(), st.booleans())
def test_two_appends_land_in_order(text: str, data: st.DataObject, subtree: bool) -> None:
    target = data.draw(st.sampled_from(sections.headings(text)))
    first = apply(text, SectionPatch(target.path, "append", "- FIRST", subtree=subtree))
    second = apply(first.text, SectionPatch(target.path, "append", "SECOND", subtree=subtree))
    again = sections.resolve(second.text, target.path)
    stop = again.subtree_end if subtree else again.own_end
    body = second.text.split("\n")[again.body_start : stop]
    assert body.index("- FIRST") < body.index("SECOND")
    assert body[-2:] == ["", "SECOND"] or body[-3:] == ["", "SECOND", ""]


def test_a_lenient_patch_writes_under_the_first_of_duplicated_headings_and_warns() -> None:
    text = "## Next Steps\n\n- a\n\n## Work\n\n## Next Steps\n\n- pasted\n"
    edit = patch.SectionPatch(("Next Steps",), "append", "- b", create=True, prefer="first")
    result = patch.apply(text, edit, file="n.md")
    assert result.text == "## Next Steps\n\n- a\n- b\n\n## Work\n\n## Next Steps\n\n- pasted\n"
    assert result.warnings == (
        "n.md: heading 'Next Steps' appears 2 times (lines 1, 7); vaultmem wrote under the first",
    )


def test_a_lenient_patch_creates_under_the_first_of_duplicated_parents() -> None:
    text = "## A\n\n## A\n"
    edit = patch.SectionPatch(("A", "B"), "append", "x", create=True, prefer="first")
    result = patch.apply(text, edit, file="n.md")
    assert result.text == "## A\n\n### B\n\nx\n\n## A\n"
    assert result.created == ("B",) and len(result.warnings) == 1


def test_a_strict_patch_still_refuses_duplicated_headings() -> None:
    with pytest.raises(AmbiguousHeading):
        patch.apply("## X\n## X\n", patch.SectionPatch(("X",), "append", "y"), file="n.md")
