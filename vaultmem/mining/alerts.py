"""An alert callout in Claude's message (``> [!NOTE]``, ``> [!IMPORTANT]``…) -> its lines as
prose (pure).

A block quote is someone else's words (a log, the person, a document: ``mining.text`` reads
only a label inside it), but an alert is Claude's own aside, set apart to be noticed: "> [!NOTE]
> The API client now uses httpx" states what a sentence would. Its marker line goes (with the
title after it), and its lines lose their ``>`` so they are read as any paragraph of the
message; the first line that is not quoted ends it.
"""

from __future__ import annotations

import re

from vaultmem.notes.lazyre import lazy

_ALERT_RE = lazy(r"^[ \t]*>[ \t]?\[!(?:note|tip|important|warning|caution|info|success|"
                 r"check|done|attention|danger|summary|abstract)\][+-]?[^\n]*$", re.IGNORECASE)
_QUOTED_RE = lazy(r"^[ \t]*>[ \t]?")


def unquoted(text: str) -> str:
    """``text`` with each alert callout's lines read as prose (see the module)."""
    if "[!" not in text:
        return text
    out: list[str] = []
    inside = False
    for line in text.split("\n"):
        if _ALERT_RE.match(line):
            inside = True
            out.append("")  # the callout is a paragraph of its own
            continue
        quoted = _QUOTED_RE.match(line)
        inside = inside and quoted is not None
        out.append(line[quoted.end():] if inside and quoted else line)
    return "\n".join(out)
