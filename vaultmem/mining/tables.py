"""A table that reports the action taken on each row -> one decision a row (pure).

Tables are not mined as prose (a status table's cells are no sentences), but one shape states
what was done as plainly as a ``**Action Taken:**`` label does: a column headed "Action taken"
("Fix applied", "Resolution", "Change made", "What was done"). Each row whose cell in that
column says something (two words or more, not "none", "n/a", "pending", "-") is a decision: the
row's other cells before it that name the thing (a status column's cells, "✅ CLOSED", are left
out), then the action ("5040 CDPSvc: Service STOPPED and DISABLED"). A plain "Action" column
is not read: it holds proposals as often as things done ("| Priority | Action |"). A row whose
status or result cell says it is not done ("⚠️ TODO", "❌ Failed", "Pending", "Skipped") states
an action tried or planned, not taken: it gives none.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from vaultmem.notes.lazyre import lazy
from vaultmem.notes.mdlines import table_cells

_ACTION_HEADER_RE = lazy(
    r"^(?:actions? taken|fix(?:es)? applied|resolution|changes? made|what (?:was|i|we) did|"
    r"what was done|applied fix)$",
    re.IGNORECASE,
)
_STATUS_HEADER_RE = lazy(r"^(?:status|result|state|outcome|severity|risk|priority)$",
                         re.IGNORECASE)
# A status or result cell saying the row's action is not done (read before decoration goes).
_DONENESS_HEADER_RE = lazy(r"^(?:status|result|state|outcome)$", re.IGNORECASE)
_NOT_DONE_RE = lazy(
    r"[❌⚠✗✘⏳🚫]|\b(?:todo|pending|failed|failing|skipped|planned|blocked|in progress|"
    r"not (?:yet )?(?:done|applied|fixed|closed|started))\b",
    re.IGNORECASE,
)
_SEPARATOR_RE = lazy(r"^[\s|:-]+$")
_NOTHING_RE = lazy(r"^(?:none|n/?a|no action|pending|todo|tbd|not (?:yet )?done|-+|—)\b",
                   re.IGNORECASE)
_DECOR_RE = lazy(r"\*\*|__|[^\w\s`'’\"().,:;/+<>=&%#@~-]")
_SPACES_RE = lazy(r"\s+")
ACTION_MIN_WORDS = 2


def _plain(cell: str) -> str:
    """A cell without its decoration (emphasis, emoji, status marks)."""
    return _SPACES_RE.sub(" ", _DECOR_RE.sub("", cell)).strip()


def actions_taken(rows: Sequence[str]) -> list[str]:
    """The decisions a table's rows state ("<thing>: <action taken>"), in order; none when no
    column is headed by an action taken."""
    if len(rows) < 3 or not _SEPARATOR_RE.match(rows[1]):
        return []
    header = [_plain(cell) for cell in table_cells(rows[0])]
    action = next((i for i, cell in enumerate(header) if _ACTION_HEADER_RE.match(cell)), None)
    if action is None or action == 0:
        return []
    named = [i for i in range(action) if not _STATUS_HEADER_RE.match(header[i])]
    doneness = [i for i, cell in enumerate(header) if _DONENESS_HEADER_RE.match(cell)]
    found: list[str] = []
    for row in rows[2:]:
        raw = table_cells(row)
        if len(raw) != len(header):
            continue
        cells = [_plain(cell) for cell in raw]
        if any(_NOT_DONE_RE.search(raw[i]) for i in doneness):
            continue
        done = cells[action].strip(" .")
        thing = " ".join(cells[i] for i in named if cells[i])
        if not thing or len(done.split()) < ACTION_MIN_WORDS or _NOTHING_RE.match(done):
            continue
        found.append(f"{thing}: {done}")
    return found
