"""The common case of a run of lines, read without markdown-it: paragraphs, ``- `` lists, fences.

Most runs vaultmem parses (a ``### 10:30 - Title`` entry of a work log, ``## Key Decisions`` with
its ``- decision ^vm-…`` lines, the front matter of a note) are made of a few kinds of lines
only. For such a run the block structure markdown-it would find is fixed, and reading it line by
line costs a few percent of a markdown-it parse (and spares hooks importing markdown-it at all).
Anything else returns None and markdown-it parses the run, so this is a fast path, never a second
opinion: ``tests/test_plainruns.py`` compares the two on generated runs, block for block.

A run qualifies when it starts with front matter (line 0 of a note), a column-0 ATX heading or a
line of the kinds below, and every other line is one of:
- blank (spaces only);
- a paragraph line: starts with a character that cannot open any block (not whitespace, not a
  digit, not one of ``#>-*+_`~<|=:\\$%``, see ``_PLAIN_START``), or with digits that do not end
  in ``.`` or ``)`` (so are no ordered-list marker: ``2026-01-01 — …``), or with ``**`` and
  then neither whitespace nor ``*`` (a bold label: ``**Prompt:** …``), or with a backtick not
  followed by two more (a code span, never a fence);
- a bullet item ``- `` followed by such a character;
- a fenced code block opened at column 0 (its lines may hold anything); one never closed runs to
  the end of the run, which then joins the next (see ``sections``).
- a block quote: a run of lines starting with ``>`` at column 0 (they may hold anything after
  it: headings, fences, HTML inside a quote are the quote's), with a blank line (or the run's
  start) before it and a blank line (or the run's end) after it, so that no paragraph is
  interrupted and no lazy continuation line extends it (the callouts vaultmem writes).
Outside fences no line may hold a tab, ``]:`` (a reference definition) or ``$$`` (kept for
markdown-it, which treats it as text today, so a later plugin cannot silently disagree). ``%%``
inside a line (an Obsidian comment: the anchors vaultmem writes into entity lines) is text to
markdown-it and here alike; a line starting with ``%`` is still left to markdown-it.
Lines after the first never start with ``#``, so there is no other heading, and no line outside a
quote can be a setext underline, thematic break, table delimiter row, HTML block or indented code.
"""

from __future__ import annotations

import re
from itertools import pairwise

# The characters a plain line may start with: everything except whitespace, digits and every
# character that opens a block or could (ordered list markers, setext/thematic/table lines,
# fences, HTML, quotes, reference definitions, escapes) — and a few more to stay well clear.
_PLAIN_START = r"[^\s\d#>\-*+_`~<|=:\\$%]"
# Or digits not followed by another digit, ``.`` or ``)``: never an ordered list marker, so a dated
# line (``2026-01-01 — …``, vaultmem's entity lines after ``- ``) is plain too. Or a bold label
# (``**Prompt:** …``, the work-log entries capture writes): ``**`` then neither space nor ``*``
# opens no list item, thematic break or other block. Or a backtick not followed by two more: a
# code span (``- `src/x.py` …``, items capture writes), never a fence.
_START = r"(?:" + _PLAIN_START + r"|\d+(?![\d.)])|\*\*[^\s*]|`(?!``))"
_PLAIN = re.compile(_START + r"[^\t]*")
# A list item: a bullet (``-``, ``*``, ``+``) or an ordered marker (1 to 9 digits, ``.`` or
# ``)``), one space, then what a plain line may start with. The marker is group 1.
_ITEM = re.compile(r"([-*+]|\d{1,9}[.)]) " + _START + r"[^\t]*")
_ATX = re.compile(r"(#{1,6})(?:[ ]+([^\t]*))?")
_FORBIDDEN = ("]:", "$$", "\t", "\r")
# Front matter opens with 3 or more dashes at the very start of the note (whatever follows them
# on that line) and closes at a line of at least as many dashes (indented up to 3 spaces) or
# ``...``, spaces after.
_FRONT_MATTER_OPEN = re.compile(r"-{3,}")

BLANK, PLAIN, BULLET, FENCE, FENCE_BODY, QUOTE = 0, 1, 2, 3, 4, 5
# A fence opens at column 0 (``` with an info string free of backticks, or ~~~) and closes at a
# line of at least as many of the same character, indented up to 3 spaces, spaces after.
_FENCE_OPEN = re.compile(r"(`{3,}|~{3,})[^\t]*")

Found = tuple[int, str, int, int]  # level, title, line, body_start (as sections._Found)
BlockRow = tuple[str, int, int, bool]  # kind, start, end, tight


def _kind(line: str) -> int | None:
    if not line.strip(" "):
        return BLANK
    if line[0] == ">":
        return None if "\r" in line else QUOTE
    if any(bad in line for bad in _FORBIDDEN):
        return None
    if _ITEM.fullmatch(line):
        return BULLET
    if line[0] == "-" or (line[0].isdigit() and _ITEM.match(line)):
        return None  # a list item whose text is not plain
    # Not an item: a paragraph line if plain (``**Label:**`` and ``2026-…`` lines are).
    return PLAIN if _PLAIN.fullmatch(line) else None


def _marker(line: str) -> str:
    """A list item's marker: ``-``, ``*``, ``+``, or ``1.``/``1)`` (ordered; digits kept)."""
    return line[: line.index(" ")]


def _same_list(a: str, b: str) -> bool:
    """Whether items with these markers belong to one list: the same bullet character, or
    ordered markers with the same delimiter."""
    if a[-1] in ".)" and b[-1] in ".)":
        return a[-1] == b[-1]
    return a == b


def _front_matter_close(lines: list[str]) -> int | None:
    """The closing line of the front matter line 0 opens (as mdit-py-plugins' rule finds it),
    or None: a case left to markdown-it (unclosed, tabs)."""
    opening = _FRONT_MATTER_OPEN.match(lines[0])
    assert opening is not None
    closing = re.compile(r"\.\.\. *| {0,3}-{" + str(len(opening.group())) + ",} *")
    for index in range(1, len(lines)):
        if "\t" in lines[index]:
            return None
        if closing.fullmatch(lines[index]):
            return index
    return None


def _past(kinds: list[int], i: int, kind: int) -> int:
    """The first index from ``i`` on whose kind is not ``kind``."""
    while i < len(kinds) and kinds[i] == kind:
        i += 1
    return i


def _fence_close(body: list[str], at: int, marker: str) -> int | None:
    """The index of the line that closes the fence opened at ``at``; None when none does, -1
    when the line opens no fence after all (a backtick in the info string: markdown-it's)."""
    if marker[0] == "`" and "`" in body[at][len(marker):]:
        return -1
    closing = re.compile(" {0,3}" + re.escape(marker[0]) + "{" + str(len(marker)) + ",}[ \t]*")
    for index in range(at + 1, len(body)):
        if closing.fullmatch(body[index]):
            return index
    return None


def _title(rest: str | None) -> str:
    """An ATX heading's title as markdown-it gives it: closing ``#`` sequence and spaces cut."""
    text = (rest or "").rstrip(" ")
    stripped = text.rstrip("#")
    if stripped != text and (not stripped or stripped.endswith(" ")):
        text = stripped
    return text.strip()


def scan(text: str, total: int) -> tuple[list[BlockRow], list[Found]] | None:
    """The top-level blocks and headings of a plain run of ``total`` lines, or None."""
    reading = _read(text, total)
    return None if reading is None else (reading.blocks, reading.found)


def list_items(text: str) -> list[tuple[str, int, int]] | None:
    """(text, first line, end line) of each top-level ``- `` item of a plain run, as markdown-it
    gives a list item's map and its paragraph's content; None when the run is not plain."""
    total = text.count("\n") + (0 if text.endswith("\n") or not text else 1)
    reading = _read(text, total, front_matter=False)
    if reading is None:
        return None
    lines = reading.lines
    return [
        (
            "\n".join([lines[start][len(_marker(lines[start])) + 1 :],
                       *lines[start + 1 : text_end]]).strip(),
            start,
            end,
        )
        for start, text_end, end in reading.items
    ]


class _Reading:
    __slots__ = ("blocks", "found", "items", "lines")

    def __init__(self, lines: list[str]) -> None:
        self.lines = lines
        self.blocks: list[BlockRow] = []
        self.found: list[Found] = []
        self.items: list[tuple[int, int, int]] = []  # item: first line, text end, end


def _read(text: str, total: int, *, front_matter: bool = True) -> _Reading | None:
    lines = text.split("\n", total)[:total]
    reading = _Reading(lines)
    blocks, found, items = reading.blocks, reading.found, reading.items
    kinds: list[int] = []
    first = 0
    if front_matter and lines and _FRONT_MATTER_OPEN.match(lines[0]):
        close = _front_matter_close(lines)
        if close is None:
            return None
        blocks.append(("front_matter", 0, close + 1, False))
        first = close + 1
    elif lines and lines[0].startswith("#"):
        if any(bad in lines[0] for bad in _FORBIDDEN):
            return None
        match = _ATX.fullmatch(lines[0])
        if match is None:
            return None
        found.append((len(match.group(1)), _title(match.group(2)), 0, 1))
        blocks.append(("heading", 0, 1, False))
        first = 1
    body = lines[first:]
    if body and not body[-1].strip(" \t") and not text.endswith("\n"):
        body.pop()  # markdown-it has no line for spaces after the last newline
    at = 0
    while at < len(body):
        opening = _FENCE_OPEN.fullmatch(body[at])
        if opening is not None:
            close = _fence_close(body, at, opening.group(1))
            if close == -1:
                return None
            if close is None:  # never closed: it runs to the end (and sections joins runs)
                close = len(body) - 1
            kinds.extend([FENCE] + [FENCE_BODY] * (close - at))
            at = close + 1
            continue
        kind = _kind(body[at])
        if kind is None:
            return None
        if kind == BULLET and body[at][0].isdigit() and kinds and kinds[-1] == PLAIN:
            return None  # an ordered item after paragraph text: markdown-it's rules decide
        kinds.append(kind)
        at += 1
    i, n = 0, len(kinds)
    while i < n:
        kind = kinds[i]
        if kind == BLANK:
            i += 1
        elif kind == QUOTE:
            start = i
            i = _past(kinds, i + 1, QUOTE)
            if (start and kinds[start - 1] != BLANK) or (i < n and kinds[i] != BLANK):
                return None  # a quote interrupting a paragraph, or lazily continued
            empty = [not body[k][1:].strip(" \t") for k in range(start, i)]
            if all(empty) or any(a and b for a, b in pairwise(empty)) or any(
                    body[k].count(">") > 1 and not body[k].strip(" \t>") for k in range(start, i)):
                # An empty quote, two empty quote lines in a row ('>9', '>', '>') or an empty
                # quote nested in it: markdown-it's map of it may take the blank line after it.
                return None
            blocks.append(("blockquote", start + first, i + first, False))
        elif kind in (FENCE, PLAIN):
            start = i
            i = _past(kinds, i + 1, FENCE_BODY if kind == FENCE else PLAIN)
            blocks.append(("fence" if kind == FENCE else "paragraph", start + first, i + first,
                           False))
        else:
            start, tight = i, True
            item = i
            marker = _marker(body[i])
            i += 1
            while True:
                i = _past(kinds, i, PLAIN)  # lazy continuation of the item
                j = _past(kinds, i, BLANK)
                # An item ends where the next begins, the last one where the list does.
                items.append((item + first, i + first, j + first))
                if j < n and kinds[j] == BULLET:
                    if not _same_list(marker, _marker(body[j])):
                        return None  # another kind of list follows: markdown-it's to split
                    tight = tight and j == i
                    item = j
                    i = j + 1
                    continue
                i = j  # the list takes the blank lines after it
                break
            kind_name = "ordered_list" if marker[-1] in ".)" else "bullet_list"
            blocks.append((kind_name, start + first, i + first, tight))
    return reading
