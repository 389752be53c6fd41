"""A turn's last words when a tool call followed them (pure; DESIGN §10, issue 28).

A turn ends on Claude's final answer. What Claude reports between its tool calls before that
("Found the bug: X must be Y. Let me fix it:") is kept too, without the moves (``along``):
it is often where a cause, a finding or a status report is said, and the final answer may not
repeat it (DESIGN §11: nothing said is lost).
 When the read stops mid-turn (Claude Code compacting its
context, a usage limit, the person interrupting), the last prose is not an answer: it reports what
was done so far and announces the next move ("28 files created. Let me now try the build again.").
The report is kept as the turn's outcome, the move is not: thinking aloud is never an outcome.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from vaultmem.notes.lazyre import lazy

NOTE_MIN_WORDS = 8  # a shorter report between calls ("Found it.") says nothing on its own

# Where a sentence starts: after a sentence end or a line break.
_BOUNDARY_RE = lazy(r"(?<=[.!?])\s+|\n+")
# A move announced: "Let me …", "Now I'll …", "Next, I need to …", or a lead-in to a call ("…:").
_MOVE_RE = lazy(
    r"\A(?:[*_]*)(?:(?:now|next|then|ok(?:ay)?|great|good|perfect|alright|first|so)[,!.]?\s+)*"
    r"(?:let me|let's|i'll|i will|i'm going to|i am going to|i need to|i have to|we need to|"
    r"i should|time to|going to)\b|:[*_]*\Z",
    re.IGNORECASE,
)


def reported(text: str) -> str | None:
    """``text`` (Claude's last prose before a tool call) without the moves it ends announcing;
    None when nothing else is left."""
    rest = text.rstrip()
    while rest:
        start = max((b.start() for b in _BOUNDARY_RE.finditer(rest)), default=0)
        if not _MOVE_RE.search(rest[start:].strip()):
            break
        rest = rest[:start].rstrip()
    return rest or None


def along(messages: Sequence[str]) -> list[str]:
    """What Claude reported along the way (``messages``: its prose before the final answer, in
    order): each message's report (``reported``) of at least ``NOTE_MIN_WORDS`` words, once."""
    found: list[str] = []
    for message in messages:
        report = reported(message.strip())
        if report and len(report.split()) >= NOTE_MIN_WORDS and report not in found:
            found.append(report)
    return found
