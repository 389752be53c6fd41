"""Detectors that run, and compile, only where a literal of theirs is in the text (pure).

Redaction's cost in a hook is not matching (a turn's text is redacted in about 2 ms once the
rules are compiled) but compiling: a hook is a new process, and the ~110 shape and keyword
patterns (detect-secrets' detectors, the vendors' tokens) compiled on the first line that
might hold a key cost 30-50 ms of a Stop or SessionEnd on a real turn. Most of them need a
literal no line holds (``xox``, ``AKIA``, ``api_key``), so each is gated on those:

- :func:`literals` reads a pattern's syntax tree: strings of which every match holds one (a
  run of literal characters outside any optional part, or one of each alternative), the most
  selective choice; None when it cannot tell (the pattern always runs).
- :class:`Gated` is a pattern compiled on first use whose ``finditer`` returns nothing where
  none of its literals is in the searched span, without compiling it. A pattern that ignores
  case has its literals in lowercase, looked for in the span's lowercase copy, and only in an
  ASCII span (re's case folding goes beyond ASCII: the long s, the Kelvin sign).

Reading the tree costs about half of a compile, so the literals are derived once and cached
with detect-secrets' rules (secretrules). The gates skip only a pattern that could not have
matched: tests/test_secret_gates.py checks the literals against generated matches and the
redaction of both corpora with and without the gates.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from vaultmem.notes.lazyre import LazyPattern

try:
    from re import _parser as _sre  # type: ignore[attr-defined]
except ImportError:  # Python 3.10
    import sre_parse as _sre

MAX_LITERALS = 48  # more alternatives than this: a check that costs more than it saves

# (whether the strings are lowercase, to be looked for in a lowercase copy; the strings)
Requirement = tuple[bool, tuple[str, ...]]


def literals(pattern: str, flags: int = 0) -> Requirement | None:
    """Strings of which every match of ``pattern`` holds at least one, lowercase when the
    pattern ignores case anywhere; None when none can be told."""
    try:
        tree = _sre.parse(pattern, flags)
    except (re.error, RecursionError, ValueError):
        return None
    folded = [bool((tree.state.flags | flags) & re.IGNORECASE)]
    try:
        found = _required(list(tree), folded)
    except (TypeError, ValueError, AttributeError, RecursionError):
        return None  # a node this reading does not know: the pattern always runs
    if found is None or not found or any(not s for s in found):
        return None
    if folded[0]:
        if any(_folds_to_ascii(ch) for s in found for ch in s if not ch.isascii()):
            return None  # ``ſ`` matches ``s``: a literal of an ASCII span after all
        # Looked for in ASCII spans only, where a literal with another character never is.
        found = {s.lower() for s in found if s.isascii()}
    return folded[0], tuple(sorted(found))


def _folds_to_ascii(ch: str) -> bool:
    """Whether re, ignoring case, matches ``ch`` with an ASCII character."""
    pattern = re.compile(re.escape(ch), re.IGNORECASE)
    return any(pattern.fullmatch(chr(code)) for code in range(128))


def _required(items: list[Any], folded: list[bool]) -> set[str] | None:
    """What every match of the sequence ``items`` holds: the best of its parts' requirements."""
    choices: list[set[str]] = []
    run: list[str] = []
    for op, av in items:
        if op is _sre.LITERAL:
            run.append(chr(av))
            continue
        if run:
            choices.append({"".join(run)})
            run = []
        inner = _node(op, av, folded)
        if inner is not None:
            choices.append(inner)
    if run:
        choices.append({"".join(run)})
    choices = [c for c in choices if len(c) <= MAX_LITERALS]
    if not choices:
        return None
    return max(choices, key=lambda c: (min(map(len, c)), -len(c)))


def _node(op: Any, av: Any, folded: list[bool]) -> set[str] | None:
    """The requirement of one node that is not a literal character (None: none)."""
    if op is _sre.SUBPATTERN:
        _group, add_flags, _del_flags, sub = av
        if add_flags & re.IGNORECASE:
            folded[0] = True
        return _required(list(sub), folded)
    if op is getattr(_sre, "ATOMIC_GROUP", None):
        return _required(list(av), folded)
    if op is _sre.BRANCH:
        union: set[str] = set()
        for alternative in av[1]:
            each = _required(list(alternative), folded)
            if each is None:
                return None
            union |= each
        return union
    if op in (_sre.MAX_REPEAT, _sre.MIN_REPEAT, getattr(_sre, "POSSESSIVE_REPEAT", None)):
        low, _high, sub = av
        return _required(list(sub), folded) if low >= 1 else None
    return None  # a class, any character, an anchor, a lookaround, a back reference...


class Gated:
    """A pattern with the literals one of which its every match holds; compiled on first use."""

    __slots__ = ("folded", "lazy", "literals")

    def __init__(self, pattern: str, flags: int = 0,
                 required: Requirement | None = None) -> None:
        self.lazy = LazyPattern(pattern, flags)
        self.folded = False if required is None else required[0]
        self.literals: tuple[str, ...] | None = None if required is None else required[1]

    @property
    def pattern(self) -> str:
        return self.lazy.pattern

    @property
    def compiled(self) -> re.Pattern[str]:
        return self.lazy.compiled

    def may_match(self, span: str, low: str | None) -> bool:
        """Whether a match can be in ``span`` (``low``: its lowercase copy when it is ASCII)."""
        if self.literals is None:
            return True
        if self.folded:
            return low is None or any(s in low for s in self.literals)
        return any(s in span for s in self.literals)

    def finditer(self, text: str, begin: int, end: int, low: str | None
                 ) -> Iterator[re.Match[str]]:
        """The matches in ``text[begin:end]`` (``low``: that span lowercased when ASCII, else
        None); none, and nothing compiled, when none of the literals is there."""
        if self.literals is not None:
            span = text if begin == 0 and end == len(text) else text[begin:end]
            if not self.may_match(span, low):
                return iter(())
        return self.compiled.finditer(text, begin, end)


def lowered(span: str) -> str | None:
    """``span`` lowercased when it is ASCII, else None (the ``low`` of :meth:`Gated.finditer`)."""
    return span.lower() if span.isascii() else None
