"""Transcript turns -> edits of the session note (pure).

A user prompt opens a work-log entry ``### HH:MM - <first words>``; the files written and
commands run by the assistant turns after it are listed in that entry. ``Decision:`` lines go to
``## Decisions Made``; each ``Gotcha:`` line gets its own work-log entry, so that compaction finds
it (the word "gotcha" is one of its keywords).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, tzinfo

from ..inline import code_span
from ..patch import Edit, SectionPatch
from .transcript import Turn

WORK_LOG = ("Work Log",)
DECISIONS = ("Decisions Made",)
TITLE_WORDS = 8
TITLE_CHARS = 80


@dataclass
class _Entry:
    time: str
    title: str
    lines: list[str] = field(default_factory=list)

    def render(self) -> str:
        body = "\n".join(self.lines)
        return f"### {self.time} - {self.title}\n\n{body}" if body else f"### {self.time} - {self.title}"


def title_of(text: str) -> str:
    """A work-log title: the first words of a text, without characters that break a heading."""
    words = text.replace("#", "").replace("[[", "").replace("]]", "").split()
    title = " ".join(words[:TITLE_WORDS])
    if len(words) > TITLE_WORDS or len(title) > TITLE_CHARS:
        title = title[:TITLE_CHARS].rstrip() + "…"
    return title or "Note"


def _time(stamp: str | None, fallback: datetime, tz: tzinfo | None) -> str:
    if stamp:
        try:
            moment = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
        except ValueError:
            moment = fallback
        else:
            moment = moment.astimezone(tz) if moment.tzinfo else moment
    else:
        moment = fallback
    return moment.strftime("%H:%M")


def _shown(path: str, cwd: str | None) -> str:
    # Paths under the session's working directory read better relative to it.
    if cwd and path.startswith(cwd.rstrip("/") + "/"):
        return path[len(cwd.rstrip("/")) + 1 :]
    return path


def edits_for_turns(
    turns: Sequence[Turn], *, now: datetime, cwd: str | None = None
) -> list[Edit]:
    """The section patches that record ``turns`` in a session note (empty when nothing to say)."""
    entries: list[_Entry] = []
    decisions: list[str] = []
    current: _Entry | None = None
    for turn in turns:
        when = _time(turn.timestamp, now, now.tzinfo)
        if turn.prompt:
            current = _Entry(when, title_of(turn.prompt), [f"- Prompt: {turn.prompt}"])
            entries.append(current)
        if turn.files or turn.commands:
            if current is None:
                current = _Entry(when, "Continued work")
                entries.append(current)
            current.lines.extend(f"- {f.tool}: {code_span(_shown(f.path, cwd))}" for f in turn.files)
            current.lines.extend(f"- Ran {code_span(c)}" for c in turn.commands)
        decisions.extend(f"- {d}" for d in turn.decisions)
        entries.extend(_Entry(when, "Gotcha", [f"Gotcha: {g}"]) for g in turn.gotchas)
    edits: list[Edit] = []
    if entries:
        log = "\n\n".join(e.render() for e in entries)
        edits.append(SectionPatch(WORK_LOG, "append", log, subtree=True, create=True))
    if decisions:
        edits.append(SectionPatch(DECISIONS, "append", "\n".join(decisions), create=True))
    return edits
