"""The briefing's text and its budget (pure): the chosen lines under their titles in fenced
data blocks, and the choice of lines that keeps the text within its characters."""

from __future__ import annotations

import re
from collections.abc import Sequence

from vaultmem.notes.quoting import data_block

from .tree import Group, Leaf


def shown_lines(group: Group) -> list[str]:
    out: list[str] = []
    for child in group.children:
        if isinstance(child, Leaf):
            if child.chosen:
                out.append(child.text)
            continue
        inner = shown_lines(child)
        if inner:
            if child.gap and out:
                out.append("")
            if child.title is not None:
                out.append(child.title)
            out.extend(inner)
    return out


def compose(head: str, blocks: Sequence[tuple[str, Group]]) -> str:
    parts = [head]
    for label, block in blocks:
        body = shown_lines(block)
        if body:
            parts.append(f"{label} (data):\n{data_block(body)}")
    return "\n\n".join(parts)


def tilde_run(text: str) -> int:
    return max((len(m) for m in re.findall(r"~+", text)), default=0) if "~" in text else 0


def placed(blocks: Sequence[tuple[str, Group]]) -> list[tuple[Leaf, int, tuple[Group, ...]]]:
    """Every leaf with its block's number and the groups above it (outermost first)."""
    out: list[tuple[Leaf, int, tuple[Group, ...]]] = []

    def visit(group: Group, n: int, above: tuple[Group, ...]) -> None:
        for child in group.children:
            if isinstance(child, Leaf):
                out.append((child, n, above))
            else:
                visit(child, n, (*above, child))

    for n, (_, block) in enumerate(blocks):
        visit(block, n, ())
    return out


class Budget:
    """Chooses leaves while the briefing stays within ``limit`` characters. A leaf costs its line,
    the titles (and blank line) of groups not shown yet, a block's label and fences when it is
    the block's first, and longer fences when it holds a longer run of tildes: an upper bound of
    what rendering adds, so the text never exceeds the limit (and no re-render per leaf)."""

    def __init__(self, head: str, labels: Sequence[str], limit: int) -> None:
        self.used = len(head)
        self.labels = labels
        self.limit = limit
        self.shown: set[int] = set()
        self.runs: dict[int, int] = {}  # block -> longest tilde run shown in it

    def take(self, leaf: Leaf, block: int, above: tuple[Group, ...]) -> bool:
        cost = len(leaf.text) + 1
        run = tilde_run(leaf.text)
        fresh = [g for g in above if id(g) not in self.shown]
        for group in fresh:
            if group.title is not None:
                cost += len(group.title) + 1
                run = max(run, tilde_run(group.title))
            cost += 1 if group.gap else 0
        before = self.runs.get(block)
        if before is None:
            cost += len(f"\n\n{self.labels[block]} (data):\n") + 2 * 3 + len("text\n\n")
            before = 0
        cost += 2 * (max(3, max(run, before) + 1) - max(3, before + 1))
        if self.used + cost > self.limit:
            return False
        self.used += cost
        self.runs[block] = max(run, before)
        self.shown.update(id(g) for g in fresh)
        leaf.chosen = True
        return True
