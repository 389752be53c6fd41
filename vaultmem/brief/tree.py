"""The tree of what the briefing could say (pure): titled groups of lines, each line with the
tier that gives it room first, the key that finds it said twice, and whether it was chosen."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from vaultmem.notes.facts import copy_key
from vaultmem.notes.quoting import fence_safe

from . import briefrank

# The tier of a decision or gotcha that shares words with what is still open: right after the
# last session's state and next steps (tier 1), before everything else.
RELEVANT = 1.5

@dataclass
class Leaf:
    text: str
    tier: float  # 0 always shown, then 1, RELEVANT, 2, 3, 4, 5 as room allows
    key: str | None = None  # normalised text for "no line twice"; None for headers
    chosen: bool = False
    knowledge: bool = False  # a decision or gotcha: left out when a longer line holds it
    what: str = ""  # what kind of line it is, for the last line's count of what was left out

    @property
    def cut(self) -> bool:
        """Whether the line was cut short (its end is no word end)."""
        return self.text.endswith("…")

    def __post_init__(self) -> None:
        # Escaped here, not when the block is fenced, so the budget counts the line as shown.
        self.text = fence_safe(self.text)


@dataclass
class Group:
    title: str | None  # shown when something under it is
    children: list[Group | Leaf] = field(default_factory=list)
    gap: bool = False  # a blank line before it

    def __post_init__(self) -> None:
        self.title = None if self.title is None else fence_safe(self.title)

    def leaves(self) -> Iterator[Leaf]:
        for child in self.children:
            if isinstance(child, Leaf):
                yield child
            else:
                yield from child.leaves()

    def add(self, title: str, items: Sequence[str], tiers: Sequence[float],
            *, knowledge: bool = False, open_words: frozenset[str] = frozenset()) -> None:
        """A titled list of items; item ``i`` gets ``tiers[i]`` (the last tier for the rest),
        a decision or gotcha relevant to ``open_words`` (what is still open) RELEVANT at most."""
        if items:
            leaves: list[Group | Leaf] = [
                Leaf(f"- {text}", tier_of(tiers[min(i, len(tiers) - 1)], text, open_words),
                      key=copy_key(text), knowledge=knowledge, what=briefrank.what(title))
                for i, text in enumerate(items)
            ]
            self.children.append(Group(title, leaves))


def whole_words(key: str) -> str:
    """A key without its last word, which a cut may have left half-written."""
    return key.rsplit(" ", 1)[0] if " " in key else key


def tier_of(tier: float, text: str, open_words: frozenset[str]) -> float:
    """``tier``, or RELEVANT when it is worse and ``text`` shares words with what is open."""
    return min(tier, RELEVANT) if briefrank.relevant(text, open_words) else tier


def walk(group: Group) -> Iterator[Group]:
    yield group
    for child in list(group.children):
        if isinstance(child, Group):
            yield from walk(child)

