"""The quick merge of new dated lines into one section of an entity note (pure): a few regex
passes over the section's text instead of a read of each row, for the common case (every line a
new fact, there already, or a row found by its id that only gains the session's link); anything
else is left to ``entitynote``'s merge of every row. Split from ``entitynote`` (it was at the
module cap); the rows it writes are those that merge writes.
"""

from __future__ import annotations

import bisect
import itertools
import re
import unicodedata
from collections.abc import Sequence
from typing import Protocol

from vaultmem.memory import entityparse
from vaultmem.notes.lazyre import lazy

LIST_LINE = lazy(r"\s*(?:[-*+]|\d+[.)])(?:\s|$)")


class Bound(Protocol):
    """A line bound for a section (``entitynote.Line``), as the merge reads it."""

    @property
    def day(self) -> str: ...
    @property
    def block(self) -> str: ...
    @property
    def old_block(self) -> str: ...
    @property
    def link(self) -> str: ...
    @property
    def key(self) -> str: ...
    def render(self, links_: Sequence[str] | None = None, day: str | None = None) -> str: ...


_FENCE_LINE = lazy(r"\n {0,3}(?:`{3,}|~{3,})")  # in "\n" + the rows
_DATED_OURS = entityparse.DATE + r"(?: — |: | - )[^\n]* \^vm-[A-Za-z0-9-]*[ \t]*(?:\n|\Z)"
# A "- " row that is not a dated line of ours ending in its id (those are found by the id).
_OTHER_ROW = lazy(r"\n(- (?!" + _DATED_OURS + r")[^\n]*)")
_FEW_ROWS = 64


def _row_keys(row: str) -> str | None:
    """The fact key ``entitynote._dated_rows`` reads a row for (not a dated line of ours),
    else None."""
    if entityparse.row_day(row) and entityparse.row_block(row):
        return None
    got = entityparse.read_row(row)
    return None if got is None else entityparse.fact_key(got.text)


class _OtherKeys:
    """Whether a fact key is that of a row read for its text (``entitynote._dated_rows``' ours
    and theirs), answered without reading every row: a row with key ``k`` holds the words of
    ``k`` in order, so when the case-folded rows lack them no row has it. Rows holding an anchor
    comment (left out of a fact's key, it may part a key's words) are read whole."""

    def __init__(self, text: str, start: int, end: int) -> None:
        rows = [m.group(1) for m in _OTHER_ROW.finditer(text, start - 1, end)]
        self.joined = "\n".join(rows)
        anchored = "%" in self.joined and "%%vm-anchor" in self.joined
        self.anchored = {_row_keys(row) for row in rows if "%%vm-anchor" in row} if anchored \
            else set()
        self.rows = [row for row in rows if "%%vm-anchor" not in row] if anchored else rows
        # The undated ones among them (the "- " rows the merge did not find dated), when few.
        self.undated = None if len(rows) > _FEW_ROWS else \
            sum(1 for row in rows if entityparse.DATED.match(row, 2) is None)
        self.keys: set[str | None] | None = None
        self.folded: str | None = None
        if len(self.rows) <= _FEW_ROWS:
            self.keys = {_row_keys(row) for row in self.rows}

    def __contains__(self, key: object) -> bool:
        if key in self.anchored:
            return True
        if self.keys is None:
            assert isinstance(key, str)
            if self.folded is None:
                joined = "\n".join(self.rows) if self.anchored else self.joined
                self.folded = unicodedata.normalize("NFC", joined).casefold()
            # Its longest word first: one substring search, far quicker than the regex.
            if max(key.split(" "), key=len) not in self.folded:
                return False
            words = r"\s+".join(re.escape(word) for word in key.split(" "))
            if not re.search(words, self.folded):
                return False
            self.keys = {_row_keys(row) for row in self.rows}
        return key in self.keys


def dated_new(text: str, start: int, end: int, new: Sequence[Bound], blocks: set[str]
               ) -> tuple[entityparse.Pieces, entityparse.Facts | None, tuple[int, int, int]] \
        | None:
    """``entitynote._dated_rows`` on the body ``text[start:end]`` (rows ending in "\\n", one
    just before) in a few regex passes instead of a read of each row, when every line of ``new``
    is a new fact, there already, or a fact whose dated row (found by its id) only gains this
    session's link: (the merged body, its items and newest row, the counts); None for anything
    else (a row that would move or take its first date, a person's row of the same fact) and for
    a body holding a fence."""
    if start == end:
        return None
    assert text[start - 1] == "\n"
    if (text.find("`", start, end) >= 0 or text.find("~", start, end) >= 0) \
            and _FENCE_LINE.search(text, start - 1, end):
        return None
    others: _OtherKeys | None = None
    adds: list[tuple[str, str]] = []
    added: set[str] = set()
    merges: dict[int, tuple[int, str]] = {}  # row start -> (its end, the row with the link)
    present = 0
    for line in new:
        if line.old_block in blocks or line.old_block in added:
            present += 1
            continue
        if line.block in blocks:
            found = _row_with_id(text, start, end, line.block)
            if found is None:  # elsewhere in the note: there already, unless a row here says it
                others = others or _OtherKeys(text, start, end)
                if line.key in others:
                    return None
                present += 1
                continue
            if found[0] in merges:
                return None  # a second line for one row
            merged_row = _with_link(text[found[0] : found[1]], line)
            if merged_row is None:
                return None
            if merged_row:
                merges[found[0]] = (found[1], merged_row)
            else:
                present += 1
            continue
        others = others or _OtherKeys(text, start, end)
        if line.key in others:
            return None  # a row of the same fact
        if line.block in added:
            present += 1
            continue
        adds.append((line.day, line.render()))
        added.add(line.block)
    if not (adds or merges):
        return entityparse.Pieces([text[start:end]], same=True), None, (0, 0, present)
    # The first dated row later than a day: where prefix maxima pass it (as _dated_rows does).
    highs = list(itertools.accumulate(entityparse.DAY_AT.findall(text, start - 1, end), max)) \
        if adds else []
    inserts: dict[int, list[tuple[str, str]]] = {}
    tail: list[tuple[str, str]] = []
    offsets: list[int] = []  # where the dated rows start, read only when a line goes before one
    for day, row in adds:
        at = bisect.bisect_right(highs, day)
        if at < len(highs):
            offsets = offsets or [m.start() + 1
                                  for m in entityparse.DAY_AT.finditer(text, start - 1, end)]
            inserts.setdefault(offsets[at], []).append((day, row))
        else:
            tail.append((day, row))
    tail.sort(key=lambda x: x[0])
    pieces: list[str] = []
    done = start
    for offset in sorted({*inserts, *merges}):
        pieces.append(text[done:offset])
        done = offset
        pieces.extend(row + "\n" for _, row in sorted(inserts.get(offset, []), key=lambda x: x[0]))
        if offset in merges:  # the row itself, with the link (it keeps its place and date)
            row_end, row = merges[offset]
            pieces.append(row + "\n")
            done = row_end + 1
    if tail:  # after the last row that is not blank (inserted rows all come before it)
        at, last = entityparse.content_end_at(text, start, end)
        if last is None:
            pieces.append("\n")
        else:
            pieces.append(text[done:at])
            done = at
            if not LIST_LINE.match(text, last, at - 1):
                pieces.append("\n")
        pieces.extend(row + "\n" for _, row in tail)
    pieces.append(text[done:end])
    blocks.update(added)
    # The "- " rows: the dated ones and the others' undated ones, when the others were read.
    dashes = len(highs) + others.undated if others is not None and others.undated is not None \
        else None
    items = entityparse.item_count(text, start, end, dashes if adds else None) + len(adds)
    # A merged row keeps its date, place, text and id: the newest row is as it was, or added.
    top = max((day for day, _ in adds), default="")
    if adds and (not highs or top >= highs[-1]):  # the newest is the last added row of that day
        got = entityparse.read_row([row for day, row in tail if day == top][-1])
        newest = (got.block or "", got.text) if got else ("", "")
    else:
        newest = entityparse.newest_row(text, start, end, highs[-1] if highs else None)
    return (entityparse.Pieces(pieces, same=False), (items, newest),
            (len(adds), len(merges), present))


def _row_with_id(text: str, start: int, end: int, block: str) -> tuple[int, int] | None:
    """Where the first ``- `` row of the body ``text[start:end]`` whose id is ``block`` starts
    and ends (its "\\n"), as ``entitynote._dated_rows`` finds it; None when no row has it."""
    needle = " ^" + block
    at = text.find(needle, start, end)
    while at >= 0:
        row = text.rfind("\n", start - 1, at) + 1
        stop = text.find("\n", at, end)
        if text.startswith("- ", row) and entityparse.row_block(text[row:stop]) == block:
            return row, stop
        at = text.find(needle, at + 1, end)
    return None


def _with_link(row: str, line: Bound) -> str | None:
    """``row`` (a dated row of the fact of ``line``) with the session's link added, as
    ``entitynote._dated_rows`` writes it; "" when the link is there already; None when the
    merge would date or move the row (left to ``entitynote._dated_rows``)."""
    got = entityparse.read_row(row)
    if got is None or not got.day or line.day < got.day:
        return None
    merge = merged(got, line)
    return "" if merge is None else merge[1]


def merged(got: entityparse.Row, line: Bound) -> tuple[str, str] | None:
    """(its date, the row) of the row ``got`` with the session link of ``line`` added: the
    earlier of the two dates (a row of the format before dates takes the date of its first
    session); None when the link is there already."""
    if entityparse.link_key(line.link) in {entityparse.link_key(x) for x in got.links}:
        return None
    group = sorted([*got.links, line.link], key=entityparse.link_sort)
    first = got.day or min((entityparse.link_day(x) for x in got.links if entityparse.link_day(x)),
                           default=line.day)
    day = min(first, line.day)
    return day, f"- {day} — {got.text} ({', '.join(group)}) ^{got.block or line.block}"
