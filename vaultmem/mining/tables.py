"""A table that reports the action taken on each row -> one decision a row; one that states a
problem with its cause or fix, or a choice with its reason, by its columns -> one item a row
(pure).

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

from vaultmem.notes.lazyre import LazyPattern, lazy
from vaultmem.notes.mdlines import table_cells
from vaultmem.notes.schema import Kind

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
_CODE_RE = lazy(r"(`+[^`]*`+)")
ACTION_MIN_WORDS = 2


def _plain(cell: str) -> str:
    """A cell without its decoration (emphasis, emoji, status marks); its ``code`` spans as
    they are (``src/**/*.py``, ``${HOME}``: code is no decoration)."""
    parts = _CODE_RE.split(cell)
    for index in range(0, len(parts), 2):
        parts[index] = _DECOR_RE.sub("", parts[index])
    return _SPACES_RE.sub(" ", "".join(parts)).strip()


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


# A table that explains its rows by its columns (Claude's "| Issue | Cause | Fix |" or "| Choice
# | Why |"): a problem column with its cause or fix column makes each row a gotcha ("<problem>:
# <cause> — fix: <fix>"); a reason column makes each row's other cells a choice and its reason
# ("<setting> <value> — why: <reason>"). A comparison table ("| Option | Pros | Cons |") has
# neither: its rows are alternatives weighed, not what was chosen.
_PROBLEM_HEADER_RE = lazy(r"^(?:issue|problem|symptom|error|bug|failure|what (?:failed|broke))s?$",
                          re.IGNORECASE)
_CAUSE_HEADER_RE = lazy(r"^(?:(?:root )?cause|reason|why(?: it (?:failed|happened|broke))?)s?$",
                        re.IGNORECASE)
_FIX_HEADER_RE = lazy(r"^(?:fix(?:es)?|solution|resolution|workaround|fixed by|how (?:it was )?"
                      r"fixed|fix applied|action taken)$", re.IGNORECASE)
_OLD_HEADER_RE = lazy(r"^(?:old|before|was|previous|previously|old value|from)$", re.IGNORECASE)
_REASON_HEADER_RE = lazy(r"^(?:why|reason|rationale|justification|because)$", re.IGNORECASE)


def explained(rows: Sequence[str]) -> list[tuple[Kind, str]]:
    """The gotchas and decisions a table's columns explain its rows by (see above), in order;
    none for a table whose header names neither a problem with its cause or fix nor a reason."""
    if len(rows) < 3 or not _SEPARATOR_RE.match(rows[1]):
        return []
    header = [_plain(cell) for cell in table_cells(rows[0])]

    def column(pattern: LazyPattern) -> int | None:
        return next((i for i, cell in enumerate(header) if pattern.match(cell)), None)

    problem, cause = column(_PROBLEM_HEADER_RE), column(_CAUSE_HEADER_RE)
    fix, reason = column(_FIX_HEADER_RE), column(_REASON_HEADER_RE)
    doneness = [i for i, cell in enumerate(header) if _DONENESS_HEADER_RE.match(cell)]
    was = [i for i, cell in enumerate(header) if _OLD_HEADER_RE.match(cell)][:1]
    found: list[tuple[Kind, str]] = []
    for row in rows[2:]:
        raw = table_cells(row)
        if len(raw) != len(header) or any(_NOT_DONE_RE.search(raw[i]) for i in doneness):
            continue
        cells = [_plain(cell).strip(" .") for cell in raw]
        said = [c if len(c.split()) >= ACTION_MIN_WORDS and not _NOTHING_RE.match(c) else ""
                for c in cells]
        if problem is not None and (cause is not None or fix is not None):
            why = said[cause] if cause is not None else ""
            done = said[fix] if fix is not None else ""
            if cells[problem] and (why or done):
                text = cells[problem] + (f": {why}" if why else "")
                found.append((Kind.GOTCHA, text + (f" — fix: {done}" if done else "")))
        elif reason is not None and reason > 0 and said[reason]:
            named = [cells[i] for i in range(len(cells))
                     if i not in (reason, *was) and cells[i]
                     and not _STATUS_HEADER_RE.match(header[i])]
            if was and named and cells[was[0]]:  # "| Setting | Old | New | Why |"
                named[-1] = f"{cells[was[0]]} → {named[-1]}"
            if named:
                found.append((Kind.DECISION, f"{' '.join(named)} — why: {said[reason]}"))
    return found


# A table of settings and the values they were given ("| Setting | Value |", "| Option | Set to
# |"): each row is a state set up, "<setting>: <value>" (a decision in a final answer only:
# ``answers.mine_turn``). Not a table of what a system has now ("| Setting | Current |": an
# audit's reading) nor one of values measured before and after.
_SETTING_HEADER_RE = lazy(r"^(?:settings?|options?|parameters?|config(?:uration)?|keys?|"
                          r"variables?|env(?:ironment)? vars?|properties|property|flags?|"
                          r"decisions?|choices?)$", re.IGNORECASE)
_VALUE_HEADER_RE = lazy(r"^(?:values?|new values?|set to|now|new|chosen|choice|decision|"
                        r"configured|configured value)$", re.IGNORECASE)
# A table weighing alternatives ("| Option | Pros | Cons |", "| | Redis | SQLite |"): its rows
# are no statements of the project, so they are not read as prose either.
_WEIGHED_HEADER_RE = lazy(r"\b(?:pros?|cons?|vs\.?|versus|alternatives?|trade-?offs?|"
                          r"with(?:out)?|compar\w*|options?|approach(?:es)?|before|after|old|"
                          r"previous(?:ly)?|was|expected|actual)\b", re.IGNORECASE)


def settings(rows: Sequence[str]) -> list[str]:
    """The ``<setting>: <value>`` states a table of settings and their values gives, in order;
    none for any other table (one with a reason column is :func:`explained`'s)."""
    if len(rows) < 3 or not _SEPARATOR_RE.match(rows[1]):
        return []
    header = [_plain(cell) for cell in table_cells(rows[0])]
    if len(header) < 2 or not _SETTING_HEADER_RE.match(header[0]):
        return []
    value = next((i for i, cell in enumerate(header) if i and _VALUE_HEADER_RE.match(cell)), None)
    if value is None:
        return []
    found: list[str] = []
    for row in rows[2:]:
        cells = [_plain(cell).strip(" .") for cell in table_cells(row)]
        if len(cells) != len(header) or not cells[0] or _NOTHING_RE.match(cells[value] or "-"):
            continue
        found.append(f"{cells[0]}: {cells[value]}")
    return found


def prose_rows(rows: Sequence[str]) -> list[str]:
    """A table's rows as the lines of prose they say ("| `auth.py` | Switched to RS256 since
    … |" -> "`auth.py`: Switched to RS256 since …"), to be read as sentences are; none for a
    table weighing alternatives (its rows are no statements of the project) or one whose
    columns say how its rows read (an action taken, a problem, a cause, a fix, a reason)."""
    if len(rows) < 3 or not _SEPARATOR_RE.match(rows[1]):
        return []
    header = [_plain(cell) for cell in table_cells(rows[0])]
    claimed = (_WEIGHED_HEADER_RE, _ACTION_HEADER_RE, _PROBLEM_HEADER_RE, _CAUSE_HEADER_RE,
               _FIX_HEADER_RE, _REASON_HEADER_RE)  # the columns say how to read its rows
    if any(p.search(cell) for cell in header for p in claimed):
        return []
    found = []
    for row in rows[2:]:
        cells = [cell for cell in table_cells(row) if _plain(cell)]
        if len(cells) >= 2:
            found.append(f"{cells[0]}: {'; '.join(cells[1:])}")
    return found
