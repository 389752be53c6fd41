"""doctor's text report for a person (pure): the same finding in many notes is one line, a kind
with very many lines shows its first ones, and a last line sums everything up — a 10,000-note
vault printed 115,080 lines. ``doctor --json`` still lists every problem."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from vaultmem.memory.reports import plural

if TYPE_CHECKING:
    from vaultmem.memory.doctor import Problem

SHOWN_PER_KIND = 25


def lines(problems: Iterable[Problem], *, per_kind: int = SHOWN_PER_KIND) -> list[str]:
    """One line per distinct finding (``(and N more notes)`` when its message repeats), at most
    ``per_kind`` of a kind, then one line per kind saying how many were left out."""
    groups: dict[tuple[str, str], list[Problem]] = {}
    for problem in problems:
        groups.setdefault((problem.kind, problem.message), []).append(problem)
    shown: Counter[str] = Counter()
    hidden: Counter[str] = Counter()
    out: list[str] = []
    for (kind, _), same in groups.items():
        if shown[kind] >= per_kind:
            hidden[kind] += len(same)
            continue
        shown[kind] += 1
        more = len(same) - 1
        out.append(str(same[0]) + (f" (and {plural(more, 'more place')})" if more else ""))
    for kind, n in hidden.items():
        out.append(f"… {n} more {kind} not shown (`vaultmem doctor --json` lists every one)")
    return out


def by_kind(kinds: Iterable[str]) -> str:
    """``2 ambiguous-link, 1 stale-lock``: how many of each kind, by kind."""
    return ", ".join(f"{n} {kind}" for kind, n in sorted(Counter(kinds).items()))


def summary(counted: Sequence[str], notes: int) -> str:
    """The last line: ``3 problems in 10,000 notes: 2 ambiguous-link, 1 stale-lock``."""
    if not counted:
        return f"no problems in {plural(notes, 'note')}"
    kinds = by_kind(counted)
    return f"{plural(len(counted), 'problem')} in {plural(notes, 'note')}: {kinds}"


# What ``doctor --fix`` repairs (of unresolved links, those to a note that moved).
FIXABLE = ("sync-conflict", "secret", "compacted-twin", "ambiguous-link", "unresolved-link")


def fix_hint(counted: Sequence[str]) -> str | None:
    """The line after the summary naming the problems ``doctor --fix`` repairs, if any."""
    fixable = [kind for kind in counted if kind in FIXABLE]
    if not fixable:
        return None
    moved = " (those to a note that moved)" if "unresolved-link" in fixable else ""
    return f"`vaultmem doctor --fix` repairs {by_kind(fixable)}{moved}"
