"""Secrets in a Markdown table's column named a secret, or beside a cell naming one (pure).

A table of accounts (``| env | user | password |`` over ``| staging | admin | Xk2!mq88Lp |``)
names its secret once, in the header; no row says "password", so the rules that look for a name
before a value miss every row. Here a column whose header cell is a secret's name (its last
word is one: ``Password``, ``API key``, ``Admin token``; ``Token usage`` is not) marks the cell
of each row under it, when the cell reads like the secret (secretcontext.secretish: a password
column's cell as a password, any other's needs letters and digits; a cell of words is prose), so
``Tokens used | 45.2k``, ``(hidden)`` and ``must be 12 characters`` stay.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import pairwise

from vaultmem.notes.lazyre import lazy
from vaultmem.notes.secretcontext import secretish
from vaultmem.notes.secretnames import name_kind, name_words
from vaultmem.notes.secretspan import Finding

# A table's delimiter row (``|---|:--:|``), the line under its header.
_DELIMITER = lazy(r"(?m)^[ \t]*\|?(?:[ \t]*:?-+:?[ \t]*\|)+(?:[ \t]*:?-+:?[ \t]*)?$")


def findings(text: str) -> Iterator[Finding]:
    """The cells of ``text``'s tables that sit in a column named a secret."""
    if "-|" not in text and "|-" not in text and "- |" not in text and "| -" not in text:
        return
    for rule in _DELIMITER.finditer(text):
        header_end = rule.start() - 1
        if header_end <= 0:
            continue
        header_start = text.rfind("\n", 0, header_end) + 1
        kinds = [_column_kind(text[start:end]) for start, end in
                 _cells(text, header_start, header_end)]
        yield from _rows(text, rule.end() + 1, kinds)


def _rows(text: str, at: int, kinds: list[str | None]) -> Iterator[Finding]:
    """The secret cells of the rows from ``at`` down to the table's end."""
    while at < len(text):
        end = text.find("\n", at)
        end = len(text) if end < 0 else end
        if "|" not in text[at:end]:
            return
        cells = _cells(text, at, end)
        if len(cells) == len(kinds):
            for (start, stop), kind in zip(cells, kinds, strict=True):
                value = text[start:stop]
                if kind is not None and " " not in value and secretish(
                        value, password=kind == "password", strict=kind != "password"):
                    yield Finding(start, stop, kind)
        yield from _labelled(text, cells)
        at = end + 1


def _labelled(text: str, cells: list[tuple[int, int]]) -> Iterator[Finding]:
    """The cell after a cell naming a secret, in a row (``| DB_PASSWORD | … |`` of a table of
    names and values)."""
    for (start, stop), (v_start, v_stop) in pairwise(cells):
        kind = _column_kind(text[start:stop])
        value = text[v_start:v_stop]
        if kind is not None and " " not in value and secretish(
                value, password=kind == "password", strict=kind != "password"):
            yield Finding(v_start, v_stop, kind)


def _column_kind(header: str) -> str | None:
    """The kind of secret a column headed ``header`` holds, or None: its last word names one."""
    words = name_words(header.strip(" *_`"))
    if not words:
        return None
    last = words[-1] if words[-1] != "key" else "_".join(words[-2:])
    return name_kind(last)


def _cells(text: str, begin: int, end: int) -> list[tuple[int, int]]:
    """Each cell's (start, end) in the row ``text[begin:end]``, its spaces left out; one pipe at
    each edge is the row's border (as notes.mdlines.table_cells reads a row)."""
    row = text[begin:end]
    lead = len(row) - len(row.lstrip())
    inner_start, inner_end = begin + lead, begin + len(row.rstrip())
    if text.startswith("|", inner_start):
        inner_start += 1
    if inner_end > inner_start and text[inner_end - 1] == "|":
        inner_end -= 1
    spans: list[tuple[int, int]] = []
    start = inner_start
    while True:
        bar = text.find("|", start, inner_end)
        stop = inner_end if bar < 0 else bar
        cell = text[start:stop]
        left = start + len(cell) - len(cell.lstrip())
        spans.append((left, max(left, start + len(cell.rstrip()))))
        if bar < 0:
            return spans
        start = bar + 1
