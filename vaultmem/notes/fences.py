"""Where a note's frontmatter is: the fences alone, no YAML (so the index and doctor can find it
without importing a YAML parser). :mod:`vaultmem.notes.frontmatter` reads and edits what is inside."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from vaultmem.notes.lazyre import lazy

# Fence lines: column 0, trailing blanks tolerated (a stray "\r" survives in mixed-ending files).
_OPEN_FENCE = re.compile(r"---[ \t\r]*")
_CLOSE_FENCE = lazy(r"(?:---|\.\.\.)[ \t\r]*")
# The same as a whole line after a "\n" (a literal first character lets the search skip ahead).
_CLOSE_LINE = re.compile(r"\n" + _CLOSE_FENCE.pattern + r"(?=\n|\Z)")


@dataclass(frozen=True)
class Split:
    """Where the frontmatter and the body are; 0-based lines."""

    has_frontmatter: bool
    yaml_text: str  # text between the fences, "" when none
    yaml_start: int  # 0-based line of the first YAML line (1 when there is frontmatter)
    body_start: int  # 0-based line where the body starts (after the closing fence)
    body_offset: int  # where the body starts in the text
    text: str = field(repr=False, compare=False)

    @property
    def body(self) -> str:
        """The text from body_start on (copied when asked: a long note's body is rarely needed)."""
        return self.text[self.body_offset :]


def split(text: str) -> Split:
    """Find the frontmatter: `---` on the first line up to a `---` or `...` line at column 0."""
    # Only "\n" ends a line. The closing fence is searched for, not found line by line: every
    # reader of every note comes through here.
    end = text.find("\n")
    if end >= 0 and _OPEN_FENCE.fullmatch(text, 0, end):
        close = _CLOSE_LINE.search(text, end)
        if close is not None:
            start = close.start() + 1
            return Split(
                has_frontmatter=True,
                yaml_text=text[end + 1 : start],
                yaml_start=1,
                body_start=text.count("\n", end + 1, start) + 2,
                body_offset=min(close.end() + 1, len(text)),
                text=text,
            )
    # An opening fence with no closing one is body text, as Obsidian shows it.
    return Split(has_frontmatter=False, yaml_text="", yaml_start=0, body_start=0, body_offset=0,
                 text=text)
