"""Regular expressions compiled on first use, once (pure).

A hook imports modules whose patterns it may never need: the miner's cue phrases took 49 ms to
compile at import, on every hook, even with nothing to mine. ``lazy(pattern, flags)`` is a drop-in
for a module-level ``re.compile`` that compiles the first time it is used.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any


class LazyPattern:
    """A ``re.Pattern`` compiled the first time one of its methods is called."""

    __slots__ = ("_build", "_compiled", "flags", "pattern")

    def __init__(self, pattern: str | Callable[[], str], flags: int = 0) -> None:
        # A callable builds the pattern's text at first use too (from tables a hook may never
        # need to import).
        self._build = pattern if callable(pattern) else None
        self.pattern = pattern if isinstance(pattern, str) else ""
        self.flags = flags
        self._compiled: re.Pattern[str] | None = None

    @property
    def compiled(self) -> re.Pattern[str]:
        """The compiled pattern (compiled now if it was not yet)."""
        if self._compiled is None:
            if self._build is not None:
                self.pattern = self._build()
            self._compiled = re.compile(self.pattern, self.flags)
        return self._compiled

    def search(self, text: str, pos: int = 0, endpos: int | None = None) -> re.Match[str] | None:
        """``re.Pattern.search``."""
        if endpos is None:
            return self.compiled.search(text, pos)
        return self.compiled.search(text, pos, endpos)

    def match(self, text: str, pos: int = 0, endpos: int | None = None) -> re.Match[str] | None:
        """``re.Pattern.match``."""
        if endpos is None:
            return self.compiled.match(text, pos)
        return self.compiled.match(text, pos, endpos)

    def fullmatch(self, text: str, pos: int = 0, endpos: int | None = None
                  ) -> re.Match[str] | None:
        """``re.Pattern.fullmatch``."""
        if endpos is None:
            return self.compiled.fullmatch(text, pos)
        return self.compiled.fullmatch(text, pos, endpos)

    def finditer(self, text: str, pos: int = 0, endpos: int | None = None
                 ) -> Iterator[re.Match[str]]:
        """``re.Pattern.finditer``."""
        if endpos is None:
            return self.compiled.finditer(text, pos)
        return self.compiled.finditer(text, pos, endpos)

    def findall(self, text: str, pos: int = 0, endpos: int | None = None) -> list[Any]:
        """``re.Pattern.findall`` (strings, or tuples of them for a pattern of several groups)."""
        if endpos is None:
            return self.compiled.findall(text, pos)
        return self.compiled.findall(text, pos, endpos)

    def split(self, text: str, maxsplit: int = 0) -> list[str]:
        """``re.Pattern.split``."""
        return self.compiled.split(text, maxsplit)

    def sub(self, repl: str | Callable[[re.Match[str]], str], text: str, count: int = 0) -> str:
        """``re.Pattern.sub``."""
        return self.compiled.sub(repl, text, count)


def lazy(pattern: str | Callable[[], str], flags: int = 0) -> LazyPattern:
    """A pattern compiled the first time it is used (``pattern``: its text, or a function that
    builds it, called then)."""
    return LazyPattern(pattern, flags)
