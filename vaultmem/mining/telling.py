"""What a line tells (pure): its telling words and what each weighs, and whether one line tells
what another does, the same lesson in other words.

The briefing ranks its lines by what they tell and says a lesson once (``brief.briefrank``,
``brief.dedup``); an entity note keeps one dated line per lesson (``memory.entitynote``). Both
read a line's words here, so a lesson the briefing folds is one the entity note folds.
"""

from __future__ import annotations

import functools
from collections.abc import Container, Mapping

from vaultmem.notes.lazyre import lazy

MIN_WORD_CHARS = 4
SPECIFIC = 2.0  # a name, path, number or version tells more than a plain word
# A line is the same lesson as another when that one tells this share of what it tells: 0.75
# caught the pairs the tuning sessions mine from an answer and its recap, and no two lessons
# that differ (brief.dedup).
NEAR = 0.75
NEAR_MIN_WORDS = 4  # a shorter line ("level 3", "level 5": a lone digit is no word) differs
# Lines whose words are kept once read: the briefing's dedup reads a decision's or gotcha's,
# then its ranking (do not change the dict returned).
INFORMATION_CACHE = 4096
STOP_WORDS = frozenset({
    "this", "that", "with", "from", "into", "then", "than", "when", "what", "which", "there",
    "their", "they", "them", "have", "been", "were", "will", "would", "should", "could",
    "after", "before", "about", "only", "also", "just", "more", "most", "some", "each", "every",
    "other", "same", "make", "made", "need", "needs", "used", "uses", "using", "file", "files",
    "run", "runs", "ran", "added", "fixed", "instead", "because", "still", "does", "done",
    "once", "first", "last", "next", "step", "steps", "work", "works", "session", "here",
    "command", "error", "failed", "fails", "output", "true", "false", "none", "data",
})
SPECIFIC_WORD = lazy(r"\d|[_./:@#]|[a-z][A-Z]|[A-Z]{2}|\w-\w")
_TOKENS = lazy(r"[A-Za-z0-9][\w.:/@+#-]*[A-Za-z0-9]")
_CLOCK = lazy(r"\d{1,2}:\d{2}(?::\d{2})?")
_NUMBER = lazy(r"(?<![\w.])\d+(?:\.\d+)*(?![\w])")
# A network address (IPv4, IPv6, MAC): a hop list's or a scan's are tool output, and one
# address tells where, not what (the redactor's placeholder stands for most of them anyway).
# Read with string methods: a regex for IPv6's groups cost 50 ms to compile at SessionStart.
_HEX = frozenset("0123456789abcdefABCDEF")


def _address(token: str) -> bool:
    """Whether ``token`` is an IPv4 address (with a port), an IPv6 address or a MAC address."""
    if "." in token:  # IPv4, with a port or not
        parts = token.split(":", 1)[0].split(".")
        return len(parts) == 4 and all(p.isdigit() and len(p) <= 3 for p in parts)
    if ":" in token:  # IPv6, or a MAC address written with colons
        groups = token.split(":")
        return 3 <= len(groups) <= 8 and all(len(g) <= 4 and set(g) <= _HEX for g in groups)
    groups = token.split("-")  # a MAC address written with dashes (a date has three groups)
    return len(groups) == 6 and all(len(g) == 2 and set(g) <= _HEX for g in groups)


@functools.lru_cache(maxsize=INFORMATION_CACHE)
def information(text: str) -> dict[str, float]:
    """The telling words of ``text`` and what each tells: a name, path, number or version
    (``rt-multi-thread``, ``v0.23``, ``512``) SPECIFIC, a network address and another word of
    MIN_WORD_CHARS 1; clock times and common words nothing."""
    out: dict[str, float] = {}
    for token in _TOKENS.findall(text):
        folded = token.casefold()
        if folded in STOP_WORDS or (":" in token and _CLOCK.fullmatch(token)):  # no regex per word
            continue
        if SPECIFIC_WORD.search(token) and len(token) >= 2 and not (
                (":" in token or token.count(".") == 3 or token.count("-") == 5)
                and _address(token)):
            out[folded] = SPECIFIC
        elif len(token) >= MIN_WORD_CHARS:
            out.setdefault(folded, 1.0)
    return out


def told_share(said: Mapping[str, float], told: Container[str]) -> float:
    """The share of what ``said`` (:func:`information` of a line) tells that ``told`` (the
    words of another) tells too; 0 for a line that tells nothing."""
    whole = sum(said.values())
    return sum(v for word, v in said.items() if word in told) / whole if whole else 0.0


def same_lesson(text: str, other: str) -> bool:
    """Whether ``other`` tells what ``text`` tells (NEAR of it, ``text`` holding at least
    NEAR_MIN_WORDS telling words) and every number ``text`` holds: ``text`` says nothing
    ``other`` does not (a timeout of 30 s is no lesson about one of 60 s, option 2 is not
    option 3, however few words a number is)."""
    said = information(text)
    return len(said) >= NEAR_MIN_WORDS and told_share(said, information(other)) >= NEAR \
        and set(_NUMBER.findall(text)) <= set(_NUMBER.findall(other))
