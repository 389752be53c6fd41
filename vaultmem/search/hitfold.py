"""Recall's last step (pure): each fact once, and the hits that answer before those that do not.

**Copies.** One fact is written in several places: a session's line, its archive copy, the
entity's dated line, the project index's row, a work log's answer that the compaction filed.
Two texts shown are copies when they say the same words in the same order once case, dates and
times, block ids, link brackets and punctuation are set aside (``facts.copy_key``), or when one says
at least ``CONTAINED`` of the other's words within it (a label such as ``Answer:`` or a trailing
link's alias added, a window of a long line). The best placed copy is kept, the paths of the
others go in its ``also``.

**Order.** A hit that says something of its own comes before noise (``vaultmem.notes.noise``),
then a hit holding more of the query's terms before one holding fewer (an any-word search: a
line holding one word of three is a weaker answer, however its note ranks), a line's terms counted
with those of the work log entry it is in (``held_with_context``); otherwise the order recall
found them in stays.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, TypeVar

from vaultmem.notes import facts, relevance

CONTAINED = 0.8  # a text inside another saying at least this share of its words is a copy of it
_FEWEST = 4  # words a text inside another must say to be a copy (not a phrase they share)


def copies(one: str, other: str) -> bool:
    """Whether two copy keys (``facts.copy_key``) are one fact's: equal, or the shorter inside the
    longer and saying at least ``CONTAINED`` of its words."""
    if one == other:
        return True
    short, long = sorted((one, other), key=len)
    if not short or f" {short} " not in f" {long} ":
        return False
    said = short.count(" ") + 1
    return said >= _FEWEST and said >= CONTAINED * (long.count(" ") + 1)


def coverage(text: str, spans: Sequence[tuple[int, int]], terms: Sequence[str]) -> int:
    """How many of the query's ``terms`` the matched words of ``text`` hold
    (``relevance.held``)."""
    return len(relevance.held((text[start:end] for start, end in spans), terms))


def held_with_context(hit: Shown, terms: Sequence[str]) -> int:
    """How many of the query's ``terms`` a hit holds, counted twice: in its own matched words,
    and in those with its context's (``Hit.context``: the work log entry a line is in), as a
    note's lines were ranked (``passages.ranked_lines``). A line answering in one word of the
    query what its entry's prompt asked in the others comes before a line of another note
    holding as many of its words; a fact has no context and counts its own words twice."""
    own = [hit.text[start:end] for start, end in hit.matches]
    alone = len(relevance.held(own, terms))
    if not hit.context:
        return 2 * alone
    return alone + len(relevance.held([*own, *hit.context], terms))


class Shown(Protocol):
    """What ordering and folding read of a hit."""

    @property
    def rel(self) -> str: ...
    @property
    def text(self) -> str: ...
    @property
    def matches(self) -> tuple[tuple[int, int], ...]: ...
    @property
    def also(self) -> tuple[str, ...]: ...
    @property
    def context(self) -> frozenset[str]: ...


H = TypeVar("H", bound=Shown)


def ordered(hits: Sequence[tuple[H, bool]], terms: Sequence[str]) -> list[H]:
    """``hits`` (each with whether it is noise) in the order of the module docstring."""
    keyed = [(int(noise), -held_with_context(h, terms), n, h)
             for n, (h, noise) in enumerate(hits)]
    return [h for *_, h in sorted(keyed, key=lambda k: k[:3])]


def folded(hits: Sequence[H]) -> list[tuple[H, list[str]]]:
    """Each fact once: ``hits`` (best first) without the copies of a hit before them, each with
    the other notes holding a copy (its ``also``, then its copies' notes and their ``also``)."""
    kept: list[tuple[H, str, list[str]]] = []
    for hit in hits:
        key = facts.copy_key(hit.text)
        for first, first_key, also in kept:
            if copies(key, first_key):
                also += [r for r in (hit.rel, *hit.also) if r != first.rel and r not in also]
                break
        else:
            kept.append((hit, key, list(hit.also)))
    return [(hit, also) for hit, _, also in kept]
