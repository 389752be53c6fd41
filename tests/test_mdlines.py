"""Markdown's line patterns, spelled once (notes/mdlines.py)."""

from __future__ import annotations

from vaultmem.notes import mdlines


def test_a_fence_is_indented_at_most_three_spaces() -> None:
    assert mdlines.FENCE.match("   ```python") is not None
    assert mdlines.FENCE.match("~~~~").group(1) == "~~~~"  # type: ignore[union-attr]
    assert mdlines.FENCE.match("    ```") is None  # an indented code block's line
    assert mdlines.FENCE.match("``inline``") is None


def test_a_heading_gives_its_level_and_its_text() -> None:
    heading = mdlines.HEADING.match("## Next Steps ##")
    assert heading is not None and heading.groups() == ("##", "Next Steps")
    assert mdlines.HEADING.match("#hashtag") is None
    assert mdlines.HEADING.match("####### seven") is None


def test_a_list_item_s_text_starts_after_its_marker_and_task_box() -> None:
    for line, text in (("- a", "a"), ("  * [x] done", "done"), ("12. twelve", "twelve"),
                       ("3) three", "three")):
        item = mdlines.LIST_ITEM.match(line)
        assert item is not None and line[item.end():] == text, line
    assert mdlines.LIST_ITEM.match("-not a list") is None
    assert mdlines.LIST_ITEM.match("1234567890. ten digits") is None


def test_quotes_tables_and_rules() -> None:
    assert mdlines.QUOTE.match("  > said") is not None
    assert mdlines.TABLE_ROW.match("| a | b |") is not None
    assert mdlines.RULE.match("* * *") is not None and mdlines.RULE.match("--") is None


def test_fenced_lines_and_the_fence_left_open() -> None:
    lines = ["a", "```python", "x", "```not a close", "````", "b", "~~~", "y"]
    inside, left_open = mdlines.fenced(lines)
    assert inside == [False, True, True, True, True, False, True, True]
    assert left_open == "~~~"
    assert mdlines.fenced(["```", "```"]) == ([True, True], None)


def test_a_table_row_s_cells_lose_one_border_pipe_at_each_edge() -> None:
    assert mdlines.table_cells("| a | b |") == ["a", "b"]
    assert mdlines.table_cells("  a | b  ") == ["a", "b"]  # GFM: the borders are optional
    # An empty first cell stays a cell: stripping every edge pipe shifted the row off its columns.
    assert mdlines.table_cells("|| b | c |") == ["", "b", "c"]
    assert mdlines.table_cells("| a | b ||") == ["a", "b", ""]
