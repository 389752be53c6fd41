"""No line twice in the briefing (pure): a line that says what an earlier one said, or what
Claude Code loads itself (``MEMORY.md``), is dropped, its tier given to the line kept."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from vaultmem.notes.facts import copy_key

from . import briefrank
from .tree import Group, Leaf, walk, whole_words

CONTAINED_MIN_CHARS = 24  # a shorter line inside a longer one may say something else
# Two decisions or gotchas that start with this many characters alike are one item told twice
# (the same answer mined at two lengths, or with another tail).
SAME_START_CHARS = 80
# A decision or gotcha is one said already when an earlier one tells this share of what it tells
# (briefrank.information): the same lesson in other words, as the tuning sessions mine it from
# an answer and its recap (0.75 caught 3 such pairs there and no two lessons that differ).
NEAR = 0.75
NEAR_POOL = 8
NEAR_MIN_WORDS = 4  # a shorter line ("level 3", "level 5": a lone digit is no word) differs


def fix_key(text: str) -> str | None:
    """What makes two failure-then-fix gotchas one lesson told twice: the same fix of the same
    error ("Fixed with `--no-gpg-sign`: `git commit` failed (`error: gpg failed to sign the
    data:`)" and the same for `git pull`), the error by its first part (what follows a ``;`` is
    more of the tool's output); None for another line. Read by its marks, as mining.fixes
    writes it, without importing the miner (35 ms at SessionStart)."""
    if text[10:13] == " — ":  # a component's line: its day first
        text = text[13:]
    if not text.startswith(("Fixed ", "Got it to run ")):
        return None
    fix, colon, rest = text.partition(": `")
    _, failed, error = rest.partition(" failed (")
    first = error.strip("`) ").split(";", 1)[0].strip().rstrip(":").casefold()
    return f"{fix.casefold()}\n{first}" if colon and failed and first else None


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
        self.fixes: dict[str, Leaf] = {}  # each fix of an error said (fix_key)
        self.lessons: list[tuple[Leaf, dict[str, float]]] = []  # each with what it tells
        self.lesson_words: dict[str, list[int]] = {}  # word -> the lessons telling it

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
        fixed = fix_key(leaf.text[2:])  # past its bullet
        if fixed is not None:
            if fixed in self.fixes:
                return self.fixes[fixed]
            self.fixes[fixed] = leaf
        # Keys are words parted by single spaces: a key's inner words are whole words of any
        # key holding it (its first and last may be parts of words there).
        inner = key.split(" ")[1:-1]
        pool = self._rarest(inner) if inner else list(self.first)
        inside = next((self.first[k] for k in pool if len(k) > len(key) and key in k), None)
        if inside is not None:
            return inside
        # A line cut short ("…") says what another line starting with its words says: the same
        # gotcha under its component and under its session, cut at two lengths.
        cut = next((self.first[k] for k in pool if len(k) < len(key) and self.first[k].cut
                    and key.startswith(whole_words(k))), None)
        if cut is not None:
            return cut
        return self._near(leaf)

    def _near(self, leaf: Leaf) -> Leaf | None:
        """An earlier line of ``leaf``'s kind (a decision, a gotcha) that tells NEAR of what
        ``leaf`` tells (its words, a name or a flag counting double: briefrank.information), in
        other words: the same fix mined from an answer and from its recap, or under a component
        and under a session.
        Only the lessons holding its rarest words are compared: one telling NEAR of it holds
        at least one of any of its words that weigh more than the rest of them."""
        # The words by_value reads again (cached), but a component's line's day: no word of it.
        said = briefrank.information(leaf.text)
        day = leaf.text[2:12] if leaf.text[12:15] == " — " else ""
        whole = sum(said.values()) - said.get(day, 0.0)
        if len(said) - (day in said) < NEAR_MIN_WORDS:
            return None  # a short line: one word apart may be another lesson
        # Its rarest words first, the lessons holding them (NEAR_POOL at most: one template's
        # many lines are not all compared with one another).
        pool: set[int] = set()
        weight = 0.0
        for word in sorted(said, key=lambda w: len(self.lesson_words.get(w, ()))):
            if word == day:
                continue
            pool.update(self.lesson_words.get(word, ())[:NEAR_POOL])
            weight += said[word]
            if weight > (1 - NEAR) * whole or len(pool) >= NEAR_POOL:
                break
        for n in sorted(pool):
            other, told = self.lessons[n]
            if other.what == leaf.what and sum(
                    v for w, v in said.items() if w in told and w != day) >= NEAR * whole:
                return other
        for word in said:
            if word != day:
                self.lesson_words.setdefault(word, []).append(len(self.lessons))
        self.lessons.append((leaf, said))
        return None

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

