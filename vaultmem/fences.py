"""Where a note's frontmatter is: the fences alone, no YAML (so the index and doctor can find it
without importing a YAML parser). :mod:`vaultmem.frontmatter` reads and edits what is inside."""

from __future__ import annotations

import re
from dataclasses import dataclass

# Fence lines: column 0, trailing blanks tolerated (a stray "\r" survives in mixed-ending files).
_OPEN_FENCE = re.compile(r"---[ \t\r]*")
_CLOSE_FENCE = re.compile(r"(?:---|\.\.\.)[ \t\r]*")


@dataclass(frozen=True)
class Split:
    """Where the frontmatter and the body are; 0-based lines."""

    has_frontmatter: bool
    yaml_text: str  # text between the fences, "" when none
    yaml_start: int  # 0-based line of the first YAML line (1 when there is frontmatter)
    body_start: int  # 0-based line where the body starts (after the closing fence)
    body: str  # the text from body_start on


def split(text: str) -> Split:
    """Find the frontmatter: `---` on the first line up to a `---` or `...` line at column 0."""
    # Line by line from the top, without splitting the whole note: only "\n" ends a line.
    end = text.find("\n")
    if end >= 0 and _OPEN_FENCE.fullmatch(text, 0, end):
        yaml_from = start = end + 1
        index = 1
        while start < len(text):
            end = text.find("\n", start)
            line_end = len(text) if end < 0 else end
            if _CLOSE_FENCE.fullmatch(text, start, line_end):
                return Split(
                    has_frontmatter=True,
                    yaml_text=text[yaml_from:start],
                    yaml_start=1,
                    body_start=index + 1,
                    body=text[line_end + 1 :],
                )
            if end < 0:
                break
            start = end + 1
            index += 1
    # An opening fence with no closing one is body text, as Obsidian shows it.
    return Split(has_frontmatter=False, yaml_text="", yaml_start=0, body_start=0, body=text)
