"""What changed in a component during a session: the outcome, not the prompt (pure; issue 29).

An entity's ``## Recent Changes`` line used to be the session's first prompt followed by the
folders the session touched ("fix the login: src/auth/"), which says neither what was done nor
what came of it. It is now the answer of the last turn that edited the component's files (the first
sentence of its ``**Answer:**`` line), when that answer states something (not
thinking aloud, no wrapper markup: :mod:`factrule`; nor a label that only introduces what
follows it, "**Updated `.gitleaks.toml`:**", "Here's the new layout:"); a component the session
only read, or whose turns said nothing, gets no line.

What closes a turn before its outcome is no outcome: a leading sentence of fewer than
:data:`MIN_WORDS` words ("Done!", "Perfect!", "All set.") or of closing words only ("All tasks
completed successfully!", "Everything is working now.") is skipped, and the model's narration
of the outcome reads as the outcome ("I've updated the workflow to …" -> "Updated the workflow
to …", as a commit subject says it; :mod:`factrule` refuses the narration).

An exclamation is the model's cheer, not what changed ("Fixed all that notification spam!"): a
later sentence that states the change is the line, else an earlier turn's. The
fix an answer states ("… Fix: Updated 2 workflows with `continue-on-error: true`") is what
changed and comes first; a sentence that introduces what follows ("Here's what I changed: …")
states nothing.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from vaultmem.mining import factrule
from vaultmem.notes import schema
from vaultmem.notes.lazyre import lazy

if TYPE_CHECKING:
    from vaultmem.notes import sections

LINKED = schema.LINKED  # the change of a component a session only names
CHANGE_MAX_CHARS = 240
MIN_WORDS = 3  # a shorter leading sentence is a closing word ("Done!"), not the outcome
_ANSWER = lazy(r"^\*\*Answer:\*\*\s*(.+)$")
_EDITED = lazy(r"^- Edited (.+)$")
_SPAN = lazy(r"`([^`]+)`")
_SENTENCE_END = lazy(r"(?<=[.!?])\s+")
# A label that introduces what follows it (a list, a block): it ends in a colon, in or out of
# emphasis ("**Updated `x`:**", "Here's the corrected structure:").
_LEAD_IN = lazy(r":[*_\s]*$")
_WORD = lazy(r"[^\W_]+")
# The fix an answer line states ("… Fix: Updated 2 workflows …"): what changed.
_FIX = lazy(r"(?:^|(?<=[\s.!?…]))\*{0,2}Fix(?:ed)?:\*{0,2}\s+(.+?)(?:(?<=[.!?])\s|\Z)")
# A cheer: a sentence that ends in "!" and quotes no code ("Fixed all that notification spam!").
_CHEER = lazy(r"^[^`]*!$")
# A sentence that introduces what follows ("Here's what was causing it: …").
_INTRODUCES = lazy(r"^[*_\s]*here(?:'s|’s| is| are)\b", re.IGNORECASE)
# The words of a sentence that only closes a turn.
_CLOSING = frozenset((
    "all", "every", "everything", "task", "tasks", "step", "steps", "change", "changes", "is",
    "are", "has", "have", "been", "now", "complete", "completed", "done", "finished", "set",
    "ready", "successfully", "success", "working", "works", "fine", "good", "great", "perfect",
    "excellent", "awesome", "the", "and", "as", "requested", "up"))
# The model telling what it did: "I've updated …", "We have now moved …", "I just made …".
_NARRATED = lazy(r"^(?:I|We)(?:'ve|\u2019ve| have)\s+(?:(?:now|just|also|successfully)\s+)*"
                 r"(?=[a-z]+ed\b|(?:made|built|wrote|rewrote|set|split|ran|put|kept|cut)\b)")


@dataclass(frozen=True)
class Turn:
    """A work-log entry: its answer line and the files it edited (as logged)."""

    answer: str
    edited: tuple[str, ...]


def turns(lines: Sequence[str], heads: Sequence[sections.Heading]) -> list[Turn]:
    """The work log's entries that edited files, in order."""
    out: list[Turn] = []
    for _, body, edited in entries(lines, heads):
        if edited:
            answer = next((said.group(1).strip() for line in body
                           if (said := _ANSWER.match(line))), "")
            out.append(Turn(answer, tuple(edited)))
    return out


def entries(lines: Sequence[str], heads: Sequence[sections.Heading]
            ) -> Iterator[tuple[sections.Heading, Sequence[str], list[str]]]:
    """The work log's entries in order: heading, body lines, the paths its ``- Edited …``
    lines name."""
    for head in heads:
        if len(head.path) < 2 or head.path[-2] != schema.WORK_LOG:
            continue
        body = lines[head.body_start:head.subtree_end]
        yield head, body, [path for line in body if (found := _EDITED.match(line))
                           for path in _paths(found.group(1))]


def _paths(said: str) -> list[str]:
    """The paths of an ``- Edited …`` line: ```src/a.py```, ```src/```: ```a.py```, ```b.py```
    (a folder and its files), "the project root: ```a.toml```"."""
    spans = _SPAN.findall(said)
    if not spans:
        return []
    if said.startswith("the project root"):
        return spans
    first, rest = spans[0], spans[1:]
    return [first + name for name in rest] if first.endswith("/") and rest else [first]


def change(folders: Sequence[str], log: Sequence[Turn]) -> str | None:
    """What the last turn that edited a file in ``folders`` said came of it; None when no such
    turn says anything that is a fact."""
    wanted = tuple(f if f.endswith("/") else f + "/" for f in folders if f and f != "./")
    if not wanted:
        return None
    for turn in reversed(log):
        if not any(path.startswith(wanted) for path in turn.edited):
            continue
        text = _outcome(factrule.trim(turn.answer))
        if text:
            return text
    return None


def _outcome(answer: str) -> str:
    """What an answer says came of its turn: the fix it states, else its first sentence that
    states something past its closing words and its cheers; "" when none does or it opens with
    a label."""
    fix = _FIX.search(answer)
    if fix is not None and (text := _lead(fix.group(1).rstrip(" :*_"))) and \
            factrule.is_fact(text):
        return text
    for sentence in _sentences(answer):
        if _LEAD_IN.search(sentence):
            return ""  # the list or block it introduces is the outcome, not this line
        text = _lead(sentence)
        if text and factrule.is_fact(text) and not (_INTRODUCES.match(text)
                                                    or _CHEER.search(text)):
            return text
    return ""


def _sentences(answer: str) -> list[str]:
    """An answer's sentences past its closing words ("Done! …")."""
    return [sentence for sentence in _SENTENCE_END.split(answer.strip())
            if len(words := _WORD.findall(sentence)) >= MIN_WORDS
            and not all(word.casefold() in _CLOSING for word in words)]


def _lead(sentence: str) -> str:
    """A sentence as a change line, up to CHANGE_MAX_CHARS: what came of the turn (the sentences
    after it give the reasons, which the decisions and gotchas say)."""
    out = sentence
    if (narrated := _NARRATED.match(out)) is not None:
        rest = out[narrated.end():]
        out = rest[:1].upper() + rest[1:]
    if len(out) > CHANGE_MAX_CHARS:
        out = out[:CHANGE_MAX_CHARS].rsplit(" ", 1)[0] + " …"
    return out.rstrip(":").strip()
