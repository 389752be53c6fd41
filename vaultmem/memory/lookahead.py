"""A decision taken before the work it decides, filed under what the next turns edit (pure;
issue 29).

A decision made in a turn that edited no file (an option picked: "Rustup or pacman?" —
"Rustup"; a plan approved) names no component, and went to the fallback entity (``Inbox``). The
turns that follow do the work it decides: of the next :data:`LOOKAHEAD` work-log entries, the
first that edited files of the session's components (the folders its ``## Related Entities``
gives them) names them. The decision's turn is the first entry whose text holds the decision's
words (for an option picked, the question asked); a compaction or the session's end stops the
look. Neither the project itself nor the CI is such a component (the CI holds what speaks of
it: :func:`components.speaks_of_ci`).
"""

from __future__ import annotations

import posixpath
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from vaultmem.memory import changes
from vaultmem.memory.components import CI, speaks_of_ci
from vaultmem.notes import names, nearnames
from vaultmem.notes.lazyre import lazy

if TYPE_CHECKING:
    from vaultmem.memory import routing
    from vaultmem.notes import sections

LOOKAHEAD = 3  # work-log entries after the decision's turn that may do its work
ABOUT_MAX = 2  # components a decision is filed under, at most
MIN_KEY_CHARS = 20  # a shorter decision says too little to find its turn by
# What follows a decision's words: the option picked, the reasons.
_CHOSEN = lazy(r"\s+—\s+(?:chose|why|not chosen):.*$")
_MARKUP = lazy(r"[`*_>\s]+")
_CODE = lazy(r"(`+)(?:(?!\1).)+?\1")
# What follows a statement's words in an item: the fix, the cause, the failure it reports.
_GLOSS = lazy(r"\s+—\s+.*$|\s+\(`.*$")
_STOPS = ("context compacted", "session end")  # titles that end the look
_TIME = lazy(r"^\d\d:\d\d\s+-\s+")
_PROMPT = "**Prompt:** "
_RAN = lazy(r"^- (?:Ran|Failed:|Not run:) (`+) ?(.+?) ?\1")  # a command the entry logs


@dataclass(frozen=True)
class Entry:
    """A work-log entry: its title, its text as matching reads it and the files it edited."""

    title: str
    text: str
    edited: tuple[str, ...]
    prose: str  # its text without code spans: what it says, not the commands it ran
    commands: tuple[str, ...] = ()  # the command lines it ran, as logged
    prompt: str = ""  # the person's prompt, as prose reads it: what they asked the turn about


def entries(lines: Sequence[str], heads: Sequence[sections.Heading]) -> list[Entry]:
    """The work log's entries, in order."""
    return [Entry(head.title, _folded(" ".join(body)), tuple(edited),
                  _folded(_CODE.sub(" ", " ".join(body))), _commands(body), _prompt(body))
            for head, body, edited in changes.entries(lines, heads)]


def _prompt(body: Sequence[str]) -> str:
    """The prose of an entry's ``**Prompt:**`` line (capture's), "" when it has none."""
    line = next((line for line in body if line.startswith(_PROMPT)), "")
    return _folded(_CODE.sub(" ", line[len(_PROMPT):]))


def _commands(body: Sequence[str]) -> tuple[str, ...]:
    """The command lines an entry's ``- Ran``, ``- Failed:`` and ``- Not run:`` lines log."""
    return tuple(found.group(2) for line in body if (found := _RAN.match(line)))


def _folded(text: str) -> str:
    return _MARKUP.sub(" ", text).casefold().strip()


def key(decision: str) -> str:
    """What of a decision its turn's text holds: the question of an option picked, else its
    words, without markup; "" when too short to find its turn by."""
    said = _folded(_CHOSEN.sub("", decision))
    return said if len(said) >= MIN_KEY_CHARS else ""


def turn_of(item: str, log: Sequence[Entry]) -> Entry | None:
    """The first entry of ``log`` whose text holds ``item``'s statement (its words before a
    fix, a cause or the failure it reports: "X — fix: Y" says X in its turn), or None."""
    said = _folded(_GLOSS.sub("", item))
    if len(said) < MIN_KEY_CHARS:
        return None
    return next((entry for entry in log if said in entry.text), None)


def ahead(decision: str, log: Sequence[Entry], folders: Sequence[tuple[str, Sequence[str]]],
          own: str) -> tuple[str, ...]:
    """The components (at most two) the turns after ``decision``'s turn edit: ``folders`` are
    the session's components with their folders (``## Related Entities``), ``own`` the
    project."""
    wanted = key(decision)
    at = next((n for n, entry in enumerate(log) if wanted and wanted in entry.text), None)
    if at is None or log[at].edited:
        return ()  # not found, or made in a turn that did its work (in no component's files)
    ci = speaks_of_ci(decision)
    homes = {_folder(folder): name for name, said in folders
             if not nearnames.same(name, own) and (ci or names.name_key(name) != CI.casefold())
             for folder in said}
    for entry in log[at + 1:at + 1 + LOOKAHEAD]:
        if _TIME.sub("", entry.title).casefold().startswith(_STOPS):
            return ()
        found = [homes[folder] for folder in (_folder(posixpath.dirname(p)) for p in entry.edited)
                 if folder in homes]
        if found:
            return tuple(dict.fromkeys(found))[:ABOUT_MAX]
    return ()


def _folder(path: str) -> str:
    """A folder as ``## Related Entities`` writes it (``src/auth/``; ``./`` for the root)."""
    path = path.strip().removeprefix("./").strip("/")
    return path + "/" if path and path != "." else "./"


def worked_outside(folders: Sequence[str], log: Sequence[Entry]) -> bool:
    """Whether a turn of ``log`` edited files or ran commands, none of them in ``folders``
    (as the work log shows them: ``Documents/shop/``; a command names one by its path)."""
    wanted = [f.strip("/") for f in folders if f.strip("./")]
    for entry in log:
        if not (entry.edited or entry.commands):
            continue
        said = " ".join(entry.commands).replace("\\", "/")
        if not any(path == f or path.startswith(f + "/") for path in entry.edited
                   for f in wanted) and not any(f in said for f in wanted):
            return True
    return False


def turn_names(text: str, log: Sequence[Entry], said: routing.Subjects,
               ran: Sequence[Sequence[str]]) -> tuple[str, ...]:
    """The one thing the turn that said ``text`` names (issue 29: an item goes to Inbox only
    when nothing is named): the one its prompt names ("make sure gitleaks is set to max
    strict": an answer's "entropy threshold 3.5 → 3.0" is gitleaks', though the answer also
    names the pre-commit hook), else the one its prose and its commands (``ran``, per entry)
    name ("DNS works through slate now" names Slate for the turn's "the init script reads the
    server as a list"). The CI only for what speaks of it."""
    turn = turn_of(text, log)
    if turn is None:
        return ()
    ci = speaks_of_ci(text)
    asked = said.turn_one(said.asked(turn.prompt), ci=ci)
    if asked:
        return asked
    at = next(n for n, entry in enumerate(log) if entry is turn)
    return said.turn_one([*said.in_turn(turn.prose), *ran[at]], ci=ci)
