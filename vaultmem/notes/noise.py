"""Lines of a note that say nothing of their own, so recall ranks them after any line that does
(pure).

A query shares words with such lines by chance: a session's ``### 20:39 - Session End`` heading
and its ``Reason: prompt_input_exit`` line, a work log's ``### HH:MM - <prompt>`` headings and
a note's section headings, the ``Project …, started …`` line vaultmem opens a session with, a
``key: value`` line (frontmatter pasted into a body, a status line), the title of a folded
callout (``> [!abstract]- Claude's answer (12 lines)``), a list of links
(``- [[Auth]] — `src/auth/```, ``- [[…|2026-01-01-x]] - Archived session (compacted)``,
``- [Docs](https://…) (Chrome)``). A line
is read as the index keeps it: aliased links without their target (``alias]]``), the matched
words between marks.
"""

from __future__ import annotations

from vaultmem.notes import mdlines
from vaultmem.notes.lazyre import lazy

# The title line of a folded callout: vaultmem folds what it keeps whole under a title saying what
# it is (``> [!abstract]- Claude's answer (12 lines)``); the callout's lines say the rest.
_FOLDED_TITLE = lazy(r"^[ \t]*>[ \t]*\[![\w-]+\]-")
# The callout type of what was said along the way rather than as an answer (the notes Claude
# wrote between its tool calls, a plan approved, a prompt too long for its line, kept below a
# work log's entry): recall ranks its lines after an answer's (``vaultmem.notes.passages``).
ASIDE = "info"
NOTES_TITLE = "Claude's notes along the way"  # its title (readers tell it from an answer's by it)
ANSWER_NAME = "Claude's answer"  # in the title of an answer kept whole (any callout type)
ANSWER_TITLE = f"> [!note]- {ANSWER_NAME} ("  # how vaultmem opens that callout
# ``key: value`` with one word or token for a value (``Reason: other``, ``status: active``).
_KEY_VALUE = lazy(r"^[ \t]*(?:[-*+][ \t]+)?[*_]*[A-Za-z][\w-]{0,30}[*_]*:[*_]*[ \t]+[^\s]+[ \t]*$")
# The opening line vaultmem writes in a new session note (memory/sessions.py).
_SESSION_OPENING = lazy(r"^Project [^\n]*\]\], started \d{4}-\d{2}-\d{2}\b")
# A list item led by a link: ``- [[Auth]] …`` or, its target deleted by the index, ``- Auth]] …``.
_LINK_ITEM = lazy(r"^[ \t]*[-*+][ \t]+(?:\[\[[^\[\]\n]*\]\]|[^\s\[\]]+\]\])(.*)$")
# A line led by a web link (``- [Docs](https://…) - the manual``, ``> **[Tool](https://…)**
# (Chrome)``), in a list or a callout or not: the words a query shares with it are mostly in the
# link's address.
_WEB_LINK_ITEM = lazy(r"^[ \t]*(?:>[ \t]*)*(?:[-*+][ \t]+)?[*_]*\[[^\[\]\n]*\]\([^()\s]*\)[*_]*(.*)$")
_WORDS = lazy(r"\w+")
_LINK_ITEM_WORDS = 4  # words after the link that still make a link list's line


def is_noise(line: str, marks: str = "") -> bool:
    """Whether a body ``line`` (``marks``: the match marks to look past) says nothing of its own
    (see the module docstring)."""
    for mark in marks:
        line = line.replace(mark, "")
    # A heading outside a callout: a section's or a work log entry's name. (A heading inside an
    # answer's callout names a part of the answer, which follows it: not noise.)
    if (mdlines.HEADING.match(line) or _KEY_VALUE.match(line) or _SESSION_OPENING.match(line)
            or _FOLDED_TITLE.match(line)):
        return True
    item = _LINK_ITEM.match(line) or _WEB_LINK_ITEM.match(line)
    if item is None:
        return False
    rest = item.group(1).replace("[[", " ").replace("]]", " ")
    return len(_WORDS.findall(rest)) <= _LINK_ITEM_WORDS
