"""What an answer's recap says comes next: the lines under its "Next Steps" heading, and the
paragraph it ends on (pure).

A long final answer often ends with what is left to do ("### Next Steps", "**To do:**", "⚠️ Still
need:", any heading naming ``mining.text.LEFT_TO_DO``, the vocabulary mining reads too) after a
dozen points of what was done; the briefing keeps only the first points of a recap, so that end
was lost, and with it the step the session left open. :class:`Upcoming` reads a recap line by
line (its ``> `` quote marks on) and returns the lines of such a part: its list items, its
sub-headings (the options it offers) and its lead-ins ("Create a pull request:"), code aside.

A long answer also often ends on where things stand ("The applet runs; CPU shows 0W until the
`setcap` command is run with sudo.") below its lists, while the answer's line in the note holds
only its start: :func:`closing` reads that last paragraph.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from vaultmem.mining.text import names_what_is_left
from vaultmem.notes.lazyre import lazy

UPCOMING_MAX = 6  # lines kept of what one answer says comes next
UPCOMING_MIN_WORDS = 2
_HEADING = lazy(r">[ \t]?(#{1,6})[ \t]+(.*?)[ \t#]*")
_BOLD_ALONE = lazy(r">[ \t]?\*\*([^*\n]+)\*\*[ \t]*:?[ \t]*")
_RULE = lazy(r">[ \t]?(?:-{3,}|\*{3,}|_{3,})[ \t]*")
_FENCE = lazy(r">[ \t]?[ \t]*(?:`{3,}|~{3,})")
_MARKS = lazy(r"^(?:[-*+]|\d{1,3}[.)])[ \t]+|\*\*|__|`|[:*_\s]+$|^[^\w(`\[\"']+")


def _plain(text: str) -> str:
    out = text.strip()
    for _ in range(3):
        out = _MARKS.sub("", out).strip()
    return " ".join(out.split())


@dataclass
class Upcoming:
    """Reads one answer's recap; ``lines`` holds what it says comes next."""

    lines: list[str] = field(default_factory=list)
    level: int = 0  # the level of the "next steps" heading we are under (7: a bold line); 0: none
    fenced: bool = False

    def feed(self, line: str) -> None:
        """Read the next line of the recap (with its ``>`` mark)."""
        if _FENCE.match(line):
            self.fenced = not self.fenced
            return
        if self.fenced:
            return
        heading = _HEADING.fullmatch(line)
        bold = None if heading else _BOLD_ALONE.fullmatch(line)
        if heading or bold:
            level = len(heading.group(1)) if heading else 7
            title = _plain(heading.group(2) if heading else bold.group(1) if bold else "")
            if names_what_is_left(title):
                self.level = level
                return
            if self.level and level <= self.level and not (bold and self.level == 7):
                self.level = 0  # a part of its own rank or higher: what comes next is over
                return
        elif _RULE.fullmatch(line):
            self.level = 0
            return
        if not self.level:
            return
        said = _plain(line.lstrip(">"))
        if len(said.split()) >= UPCOMING_MIN_WORDS and said not in self.lines \
                and len(self.lines) < UPCOMING_MAX:
            self.lines.append(said)


# A line of an answer that is no prose: a list item, a heading, a table row, a callout's title.
_NOT_PROSE = lazy(r"(?:[-*+]|\d{1,3}[.)])[ \t]|#|\||\[!")


def closing(lines: Sequence[str]) -> str:
    """The last paragraph of prose of an answer's text (``lines`` with their ``> `` quote marks,
    its callout's title first), lists, headings, tables and code aside; "" when it has none.
    Read from the end: the answer's lines above that paragraph are never looked at."""
    fenced = False
    para: list[str] = []
    for line in reversed(lines):
        body = line[1:].strip() if line.startswith(">") else line.strip()
        fence = body[:3] in ("```", "~~~")
        fenced ^= fence
        if fence or fenced or not body or _NOT_PROSE.match(body) or _RULE.fullmatch(line):
            if para:
                break
            continue
        para.append(body)
    return " ".join(reversed(para))
