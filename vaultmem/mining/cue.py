"""A cue: a case-blind pattern behind a cheap gate of words (pure; the unit of the knowledge
rules in :mod:`vaultmem.mining.kinds`)."""

from __future__ import annotations

import re

from vaultmem.notes.lazyre import lazy


class Cue:
    """A case-blind cue pattern behind a cheap gate: words one of which any match must contain.

    Python's ``re`` tries every alternative at every position, so a big cue costs ~100 µs a
    sentence; most sentences hold none of the gate's words and skip it. The gate must be sound
    (a match implies a gate word); tests/test_mining.py checks that on the corpus.
    """

    __slots__ = ("gate", "pattern")

    def __init__(self, pattern: str, gate: str | None) -> None:
        self.pattern = lazy(pattern, re.IGNORECASE)
        self.gate = tuple(gate.split("|")) if gate else ()

    def search(self, text: str) -> re.Match[str] | None:
        if self.gate:
            low = text.lower()
            if not any(word in low for word in self.gate):
                return None
        return self.pattern.search(text)


def cue(pattern: str, gate: str | None = None) -> Cue:
    """A ``Cue`` of ``pattern``, gated by the words ``gate`` lists (``a|b``)."""
    return Cue(pattern, gate)
