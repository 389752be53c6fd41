"""No line twice in the briefing (pure): a line that says what an earlier one said, or what
Claude Code loads itself (``MEMORY.md``), is dropped, its tier given to the line kept."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from vaultmem.notes.facts import copy_key

from .tree import Group, Leaf, walk, whole_words

CONTAINED_MIN_CHARS = 24  # a shorter line inside a longer one may say something else
# Two decisions or gotchas that start with this many characters alike are one item told twice
# (the same answer mined at two lengths, or with another tail).
SAME_START_CHARS = 80


class Seen:
    """The keys said so far (in order), and which of them hold each word: a key inside a longer
    one is looked for among the keys holding its rarest inner word, not among all of them."""

    def __init__(self, loaded: str = "") -> None:
        self.first: dict[str, Leaf] = {}
        self.holding: dict[str, list[str]] = {}  # word -> the keys holding it, in order
        # What Claude Code loads itself (MEMORY.md): its lines normalised, and all of them in
        # one string parted by " | " (never in a key), where a long line is found inside one.
        self.loaded = {copy_key(line) for line in loaded.split("\n")} - {""}
        self.loaded_words = " " + " | ".join(sorted(self.loaded)) + " "
        self._told = Leaf("", 0)  # stands for a line of MEMORY.md
        self.starts: dict[str, Leaf] = {}  # the start of each decision or gotcha said

    def add(self, key: str, leaf: Leaf) -> None:
        self.first[key] = leaf
        if leaf.knowledge and len(key) >= SAME_START_CHARS:
            self.starts.setdefault(key[:SAME_START_CHARS], leaf)
        for word in set(key.split(" ")):
            self.holding.setdefault(word, []).append(key)

    def said(self, leaf: Leaf, key: str) -> Leaf | None:
        """The leaf that already says ``key``: the same text, or for a decision or gotcha long
        enough to mean something, a longer line that holds it, as an answer holds the decision
        it states (next steps, questions, failures and prerequisites stay listed as such)."""
        same = self.first.get(key)
        if same is None and self.loaded and (key in self.loaded or (
                len(key) >= CONTAINED_MIN_CHARS and f" {key} " in self.loaded_words)):
            return self._told  # in the session's context already, as a line or inside one
        if same is not None or not leaf.knowledge or len(key) < CONTAINED_MIN_CHARS:
            return same
        if len(key) >= SAME_START_CHARS and key[:SAME_START_CHARS] in self.starts:
            return self.starts[key[:SAME_START_CHARS]]
        # Keys are words parted by single spaces: a key's inner words are whole words of any
        # key holding it (its first and last may be parts of words there).
        inner = key.split(" ")[1:-1]
        pool = self._rarest(inner) if inner else list(self.first)
        inside = next((self.first[k] for k in pool if len(k) > len(key) and key in k), None)
        if inside is not None:
            return inside
        # A line cut short ("…") says what another line starting with its words says: the same
        # gotcha under its component and under its session, cut at two lengths.
        return next((self.first[k] for k in pool if len(k) < len(key) and self.first[k].cut
                     and key.startswith(whole_words(k))), None)

    def _rarest(self, words: Iterable[str]) -> list[str]:
        """The keys holding the rarest of ``words``."""
        return min((self.holding.get(w, []) for w in words), key=len)


def dedup(blocks: Sequence[Group], loaded: str = "") -> None:
    """Drop every leaf that says nothing new (document order), or that ``loaded`` (what
    Claude Code loads itself) says already; a kept line takes the best tier of its repeats."""
    seen = Seen(loaded)
    for block in blocks:
        for group in walk(block):
            fresh: list[Group | Leaf] = []
            for child in group.children:
                if isinstance(child, Leaf) and child.key is not None:
                    if not child.key:
                        continue
                    first = seen.said(child, child.key)
                    if first is not None:
                        first.tier = min(first.tier, child.tier)
                        continue
                    seen.add(child.key, child)
                fresh.append(child)
            group.children = fresh

