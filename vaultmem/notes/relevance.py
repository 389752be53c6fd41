"""How well a line of a note answers a query, from the words a search matched in it (pure).

Two signals, read in this order by recall (``vaultmem.notes.passages``, ``vaultmem.search.hitfold``):

- **coverage**: how many of the query's terms the line holds. The index stems and matches
  prefixes, so a matched word stands for the term it shares the longest start with ("retries"
  for "retry"); one identifier written for two words of the query (``PowerMonitor`` for "power
  monitor", ``queryLog`` for "query log") holds both. A line holding two terms of three answers
  less than one holding all three, however often it repeats the two.
- **weight**: Okapi BM25 of the line among the lines of its note, the line being the document:
  a matched word that few lines of the note hold (the file, the flag, the version the answer
  names) weighs more than one most lines hold, and repeats add less and less. A note's own words
  decide: the line that names the rare thing the query asks about, not the line that says the
  query's common words most often. There is no length normalisation (``B`` = 0): a short line
  holding the query's words (a to-do item, a part's title: "Enable WAN DNS leak protection")
  restates the question, while the answer says them with what was found around them (on the
  real tuning sessions, normalising lost more answers than it found).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Sequence

K1 = 1.2  # BM25's term-frequency saturation
B = 0.0  # BM25's length normalisation: none (see the module docstring)


def _common(one: str, other: str) -> int:
    n = 0
    for a, b in zip(one, other, strict=False):
        if a != b:
            break
        n += 1
    return n


def held(words: Iterable[str], terms: Sequence[str]) -> set[int]:
    """The indexes of the query's ``terms`` that the matched ``words`` hold (see the module
    docstring)."""
    folded = [t.casefold() for t in terms]
    out: set[int] = set()
    if not folded:
        return out
    for word in words:
        word = word.casefold()
        out.add(max(range(len(folded)), key=lambda n: _common(word, folded[n])))
        bare = "".join(c for c in word if c.isalnum())
        for n in range(len(folded) - 1):
            if bare.startswith(folded[n] + folded[n + 1][:3]):
                out.update((n, n + 1))
    return out


class Weights:
    """BM25 weights of the lines of one note: built from each line's matched words (casefolded,
    one entry per match) and its length, then asked for the weight of any run of its lines."""

    def __init__(self, lines: int, length: int) -> None:
        self.lines = max(1, lines)  # the note's non-blank lines
        self.average = max(1.0, length / self.lines)  # their mean length in characters
        self.holding: Counter[str] = Counter()  # word -> lines holding it

    def count(self, words: Iterable[str]) -> None:
        """Count one line's matched words (each line once)."""
        self.holding.update(set(words))

    def idf(self, word: str) -> float:
        """How rare a matched word is among the note's lines (BM25's, never below 0)."""
        df = self.holding.get(word, 0)
        return math.log(1.0 + (self.lines - df + 0.5) / (df + 0.5))

    def weight(self, matched: Sequence[str], length: int) -> float:
        """The BM25 weight of a text of ``length`` characters whose matches are ``matched``
        (casefolded, one entry per match)."""
        norm = K1 * (1.0 - B + B * length / self.average)
        return sum(self.idf(word) * tf * (K1 + 1.0) / (tf + norm)
                   for word, tf in Counter(matched).items())
