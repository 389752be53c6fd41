"""Markdown's block structure as seen one line at a time (pure): fences, headings, list items,
block quotes, table rows, thematic breaks.

A note is read into sections from tokens (:mod:`vaultmem.notes.sections`). Text vaultmem only
scans (Claude's messages, a compact summary, a plan, a tool's output) is read line by line with
these patterns, spelled here once. They follow CommonMark where it matters to a reader: a fence
or a heading is indented at most three spaces; an ordered list marker has at most nine digits.
"""

from __future__ import annotations

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
