"""A three-way merge of line lists (pure): lines matched within a budget, hunks, unions."""

from __future__ import annotations

import bisect
from collections import Counter
from difflib import SequenceMatcher

from vaultmem.errors import VaultmemError

# Past this many (lines of one side × lines of the other) in one stretch both sides changed,
# lines are not matched (quadratic on repeated lines): git's own merge takes the note.
MAX_MATCH_CELLS = 1_000_000
# The matching work of one whole merge (about 0.25 s of difflib per million cells): beyond it
# git's own merge takes the note rather than a `git pull` that seems to hang.
MAX_MERGE_CELLS = 8_000_000


class NotMergeable(VaultmemError):
    """A side of the merge is not a note this merge can read (the caller falls back to git)."""


def union(a: list[str], b: list[str], budget: Budget) -> list[str]:
    """Both insertions: common lines once, each side's own lines in order (ours first)."""
    matched = _matches(a, b, budget)
    out: list[str] = []
    pending: list[str] = []  # ours' own lines since the last common one
    j = 0
    for i, line in enumerate(a):
        if i not in matched:
            pending.append(line)
            continue
        out.extend(pending)
        out.extend(b[j:matched[i]])
        out.append(line)
        pending, j = [], matched[i] + 1
    return out + pending + b[j:]


def diff3(b: list[str], o: list[str], t: list[str], budget: Budget
           ) -> list[tuple[list[str], ...]]:
    """Hunks: ``(lines,)`` where the result is settled, ``(base, ours, theirs)`` where both
    sides changed the same stretch of the base differently."""
    mo, mt = _matches(b, o, budget), _matches(b, t, budget)
    out: list[tuple[list[str], ...]] = []
    ib = io = it = 0
    while True:
        j = ib
        while j < len(b) and not (j in mo and j in mt):
            j += 1
        jo, jt = (mo[j], mt[j]) if j < len(b) else (len(o), len(t))
        if j == ib and jo == io and jt == it:
            if j == len(b):
                return out
            out.append(([b[j]],))
            ib, io, it = j + 1, jo + 1, jt + 1
            continue
        hb, ho, ht = b[ib:j], o[io:jo], t[it:jt]
        if ho == hb or ho == ht:
            out.append((ht,))
        elif ht == hb:
            out.append((ho,))
        else:
            out.append((hb, ho, ht))
        ib, io, it = j, jo, jt


def _matches(a: list[str], b: list[str], budget: Budget) -> dict[int, int]:
    """Line i of ``a`` -> the line of ``b`` it is matched to (monotone).

    Common heads and tails are matched in one pass; a stretch small enough goes to difflib's
    matcher (quadratic on repeated lines); a bigger one is cut at the lines that occur once in
    each side (patience anchors) and its pieces matched alike. A stretch too big with no such
    line, or more matching work than ``budget`` allows, is NotMergeable: git's own merge."""
    out: dict[int, int] = {}
    stack = [(0, len(a), 0, len(b))]
    while stack:
        a0, a1, b0, b1 = stack.pop()
        while a0 < a1 and b0 < b1 and a[a0] == b[b0]:
            out[a0] = b0
            a0, b0 = a0 + 1, b0 + 1
        while a0 < a1 and b0 < b1 and a[a1 - 1] == b[b1 - 1]:
            a1, b1 = a1 - 1, b1 - 1
            out[a1] = b1
        cells = (a1 - a0) * (b1 - b0)
        if cells == 0:
            continue
        if cells <= MAX_MATCH_CELLS:
            budget.spend(cells)
            for block in SequenceMatcher(None, a[a0:a1], b[b0:b1],
                                         autojunk=False).get_matching_blocks():
                out.update((a0 + block.a + k, b0 + block.b + k) for k in range(block.size))
            continue
        anchors = _unique_anchors(a, a0, a1, b, b0, b1)
        if not anchors:
            raise NotMergeable(f"{a1 - a0} and {b1 - b0} lines of repeated text changed in one "
                               "place: too many to match line by line")
        budget.spend(a1 - a0 + b1 - b0)
        pa, pb = a0, b0
        for i, j in anchors:
            out[i] = j
            stack.append((pa, i, pb, j))
            pa, pb = i + 1, j + 1
        stack.append((pa, a1, pb, b1))
    return out


def _unique_anchors(a: list[str], a0: int, a1: int, b: list[str], b0: int, b1: int
                    ) -> list[tuple[int, int]]:
    """Pairs (i, j) of lines occurring once in ``a[a0:a1]`` and once in ``b[b0:b1]``, the
    longest run of them in the same order on both sides (patience sorting, n log n)."""
    count_a = Counter(a[a0:a1])
    count_b = Counter(b[b0:b1])
    where_b = {b[j]: j for j in range(b0, b1) if count_b[b[j]] == 1}
    pairs = [(i, where_b[a[i]]) for i in range(a0, a1)
             if count_a[a[i]] == 1 and a[i] in where_b]
    tops: list[int] = []  # the smallest j ending a run of each length
    ends: list[int] = []  # the index in pairs of that run's end
    back: list[int] = []  # each pair's predecessor in its run
    for n, (_, j) in enumerate(pairs):
        k = bisect.bisect_left(tops, j)
        back.append(ends[k - 1] if k else -1)
        if k == len(tops):
            tops.append(j)
            ends.append(n)
        else:
            tops[k], ends[k] = j, n
    out: list[tuple[int, int]] = []
    n = ends[-1] if ends else -1
    while n >= 0:
        out.append(pairs[n])
        n = back[n]
    return out[::-1]


class Budget:
    """The matching work one merge may do (cells of the quadratic matcher, lines anchored)."""

    def __init__(self, cells: int = MAX_MERGE_CELLS) -> None:
        self.left = cells

    def spend(self, cells: int) -> None:
        self.left -= cells
        if self.left < 0:
            raise NotMergeable("too many lines changed on both sides to match line by line")
