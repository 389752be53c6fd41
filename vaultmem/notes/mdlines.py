"""Markdown's block structure as seen one line at a time (pure): fences, headings, list items,
block quotes, table rows, thematic breaks.

A note is read into sections from tokens (:mod:`vaultmem.notes.sections`). Text vaultmem only
scans (Claude's messages, a compact summary, a plan, a tool's output) is read line by line with
these patterns, spelled here once. They follow CommonMark where it matters to a reader: a fence
or a heading is indented at most three spaces; an ordered list marker has at most nine digits.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from vaultmem.notes.lazyre import lazy

# A code fence's opening or closing line; group 1: its marks (a fence closes on a run of the
# same mark at least as long).
FENCE = lazy(r"^ {0,3}(`{3,}|~{3,})")
# An ATX heading; group 1: its marks (the level), group 2: its text without closing marks.
HEADING = lazy(r"^ {0,3}(#{1,6})[ \t]+(.*?)[ \t#]*$")
# A list item's marker and task box; group 1: its indent; the item's text starts at ``end()``.
LIST_ITEM = lazy(r"^([ \t]*)(?:[-*+]|\d{1,9}[.)])[ \t]+(?:\[[ xX]\][ \t]+)?")
QUOTE = lazy(r"^[ \t]*>")
TABLE_ROW = lazy(r"^[ \t]*\|")
# A thematic break (``---``, ``* * *``).
RULE = lazy(r"^[ \t]*(?:[-*_][ \t]*){3,}$")


def table_cells(row: str) -> list[str]:
    """The cells of a table row (``| a | b |``), stripped. As GFM reads a row, one pipe at each
    edge is the row's border, so ``|| b |`` has an empty first cell (stripping every edge pipe
    would shift the cells off their columns)."""
    inner = row.strip().removeprefix("|").removesuffix("|")
    return [cell.strip() for cell in inner.split("|")]


def fenced(lines: Sequence[str]) -> tuple[list[bool], str | None]:
    """For each line, whether it is in a fenced code block (its fence lines included), and the
    marks of a fence still open after the last line (None when every fence closed). A fence
    closes on a line of the same mark at least as long, with nothing after it (CommonMark)."""
    inside: list[bool] = []
    fence: str | None = None
    for line in lines:
        marks = FENCE.match(line)
        inside.append(fence is not None or marks is not None)
        if fence is None:
            fence = marks.group(1) if marks else None
        elif marks and marks.group(1)[0] == fence[0] and len(marks.group(1)) >= len(fence) \
                and not line[marks.end():].strip():
            fence = None
    return inside, fence


def lines_outside_fences(lines: list[str], left_open: list[str] | None = None
                         ) -> Iterator[tuple[int, str, bool]]:
    """(index, line, inside a fence) for every line (``fenced``); fence lines count as
    inside. A fence still open at the end is appended to ``left_open``."""
    inside, fence = fenced(lines)
    if fence is not None and left_open is not None:
        left_open.append(fence)
    return ((n, line, inside[n]) for n, line in enumerate(lines))
