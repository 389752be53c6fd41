"""The session notes' upkeep (``Memory``'s base): status, what is pending, compaction runs.

A compaction run itself lives in ``compactor`` (its steps and decisions are described there),
imported only when a note is compacted: the hooks that end a session below the threshold, or
start one with nothing pending, do not pay for the extractor and the planner at start-up.
Bulk compaction (no note named) and the lazy path skip the project's current session.
"""

from __future__ import annotations

import bisect
import os
import posixpath
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import date, datetime
from typing import TYPE_CHECKING

from vaultmem import clock
from vaultmem.errors import LockTimeout, SessionError, VaultmemError
from vaultmem.memory import threshold
from vaultmem.notes import frontmatter
from vaultmem.notes.inline import one_line
from vaultmem.store import machine
from vaultmem.store.config import Config
from vaultmem.store.state import SessionEntry, State
from vaultmem.store.vault import Vault
from vaultmem.store.vaultread import HOOK_READ_BYTES, HOOK_READ_HEAD, Note

if TYPE_CHECKING:
    from vaultmem.memory.handover import Deadline
    from vaultmem.memory.reports import CompactReport  # built by compactor, only named here
    from vaultmem.memory.sessionstatus import ExtractionCosts, SessionStatus

COMPACTION_LOCK_TIMEOUT = 2.0
BUSY = "another process is compacting this note"
# A note of an open session written this recently may belong to a session still running in
# another window: the lazy compaction at session start leaves it to that session's own end.
LIVE_SECONDS = 30 * 60
# A session note bigger than this is never compacted inside a hook (a 10,000-turn session took
# 13 s; Claude Code kills SessionEnd at ~1.5 s): the hook hands it to a detached compaction.
INLINE_COMPACT_BYTES = 256 * 1024
# Nor one with more list lines than this: a compaction's cost grows with its items (a pushed
# note of 15,000 decisions in 230 KB took 6 s), about half a millisecond each.
INLINE_COMPACT_ITEMS = 1000
_BULLETS = ("- ", "* ", "+ ")
# What a machine that never saw a session reads in its note (see pending): the machine the
# session runs on (property written by capture), and whether its last work-log entry is the end.
HOST = "host"
# The frontmatter block and its status lines, for the quick look of ``_archived_by_head``.
_HEAD_BYTES = 4096
_FRONT = re.compile(r"---[ \t]*\n(.*?\n)---[ \t]*(?:\n|$)", re.DOTALL)
_STATUS_LINE = re.compile(r"^status:[ \t]*[\"']?([\w-]*)[\"']?[ \t]*(?:#.*)?$", re.MULTILINE)
_LAST_ENTRY = re.compile(r"^### \d\d:\d\d - (.*)$", re.MULTILINE)
# Statuses a session note keeps whatever its session did ("invalid": unreadable YAML).
_SETTLED = frozenset({"archived", "compaction_failed", "invalid"})
# (transcript paths, max characters) -> the sessions' condensed text, None when unreadable.
TranscriptReader = Callable[[Sequence[str], int], "str | None"]


def list_lines(text: str) -> int:
    """The lines of ``text`` that start a list item: what a compaction's cost grows with."""
    return sum(1 for line in text.split("\n") if line.lstrip()[:2] in _BULLETS)


def _ends_with_session_end(text: str) -> bool:
    entries = _LAST_ENTRY.findall(text)
    return bool(entries) and entries[-1].strip() == "Session End"


class Upkeep:
    """One vault's session notes kept up: their status, what is pending, compaction runs."""

    def __init__(
        self,
        config: Config,
        vault: Vault,
        *,
        clock_now: Callable[[], datetime] = clock.now,
        state: State | None = None,
        transcripts: TranscriptReader | None = None,
    ) -> None:
        self.config = config
        self.vault = vault
        self.layout = vault.layout
        self._now = clock_now
        self.state = state or State(vault, clock_now=clock_now)
        # How a model extractor reads a session's transcripts (Claude Code's side gives it;
        # without it, the claude extractor reads the session note).
        self.transcripts = transcripts

    def _time(self, now: datetime | None) -> datetime:
        return now if now is not None else self._now()

    # -- status ------------------------------------------------------------------------------

    def _verdict(self, note: Note, today: date) -> threshold.Verdict:
        text = threshold.canonical(note.text)
        created = threshold.created_date(frontmatter.parse(text, path=note.rel), note.rel, today)
        return threshold.verdict(len(text.splitlines()), created, today, self.config)

    def session_notes(self, project: str | None = None) -> list[str]:
        """The session notes of a project (not the archive), sorted."""
        folder = self.layout.sessions_dir(project or self.config.project)
        return [rel for rel in self.vault.iter_notes(folder) if posixpath.dirname(rel) == folder]

    def status(self, project: str | None = None, *, now: datetime | None = None,
               limit: int | None = None) -> list[SessionStatus]:
        """Every session note of the project with lines, age, status and threshold verdict.

        ``limit`` (the hooks): a note bigger than that many bytes is not read whole; it is due
        (too big to be below any threshold), its properties read from its head."""
        today = self._time(now).date()
        return [self._status(rel, today, limit) for rel in self.session_notes(project)]

    def overview(self, project: str | None = None, *,
                 now: datetime | None = None) -> list[SessionStatus]:
        """``vaultmem status``: every session note as ``status`` gives it, a live note's status
        in words: ``active`` while its session runs, ``ended`` once it ended below the
        thresholds, ``pending compaction`` once it ended due."""
        data = self.state.load()
        ended = {e.note for e in data.sessions.values() if e.ended is not None}
        rows = []
        for row in self.status(project, now=now):
            if row.status not in _SETTLED and (row.note in ended or self._ended_entry(row.note)):
                row = replace(row, status="pending compaction" if row.due else "ended")
            rows.append(row)
        return rows

    def _status(self, rel: str, today: date, limit: int | None = None) -> SessionStatus:
        """One note's line of ``status`` (see there for ``limit``)."""
        from vaultmem.memory.sessionstatus import SessionStatus
        if limit is not None and self.vault.size(rel) > limit:
            return self._big_status(rel, limit, today)
        try:
            note = self.vault.read(rel)
            meta = note.frontmatter()
        except VaultmemError as err:
            return SessionStatus(rel, 0, 0, "invalid", f"unreadable: {err.message}", False)
        status = str(meta.get("status") or "")
        age = max((today - threshold.created_date(meta, rel, today)).days, 0)
        if status == "archived":
            return SessionStatus(rel, note.lines, age, status, "archived", False)
        if status == "compaction_failed":
            error = one_line(str(meta.get("error") or "unknown error"))
            return SessionStatus(rel, note.lines, age, status, f"compaction failed: {error}", False)
        v = self._verdict(note, today)
        text = v.text
        if meta.get("archive_error"):
            text += f" (last archive: {one_line(str(meta['archive_error']))})"
        return SessionStatus(rel, v.lines, v.age_days, status, text, v.due,
                             list_lines(note.text))

    def _archived_by_index(self, project: str) -> dict[str, tuple[int, int]]:
        """The project's session notes the search index holds as archived: rel -> the
        (mtime_ns, size) it read them at (a stat then tells the note is as it was)."""
        from vaultmem.search import indexquery  # SessionStart refreshes the index next anyway

        return indexquery.with_status(self.vault, self.layout.sessions_dir(project), "archived")

    def _unchanged(self, rel: str, seen: tuple[int, int] | None) -> bool:
        """Whether the note's mtime and size are still ``seen`` (False when not seen)."""
        if seen is None:
            return False
        try:
            st = os.stat(os.path.join(self.vault.root, rel))
        except OSError:
            return False
        return (st.st_mtime_ns, st.st_size) == seen

    def _archived_by_head(self, rel: str) -> bool:
        """Whether the note's frontmatter says ``status: archived`` in its one status line, read
        from its first 4 KiB without parsing YAML (False when that does not say: look closer)."""
        try:
            head = self.vault.head(rel, _HEAD_BYTES)
        except VaultmemError:
            return False
        front = _FRONT.match(head)
        if front is None:
            return False
        found = _STATUS_LINE.findall(front.group(1))
        return len(found) == 1 and found[0] == "archived"

    def _big_status(self, rel: str, limit: int, today: date) -> SessionStatus:
        from vaultmem.memory.sessionstatus import SessionStatus

        try:
            seen = self.vault.glimpse(rel, limit, HOOK_READ_HEAD)
            meta = frontmatter.parse(seen.text, path=rel)
        except VaultmemError as err:
            return SessionStatus(rel, 0, 0, "invalid", f"unreadable: {err.message}", False)
        status = str(meta.get("status") or "")
        age = max((today - threshold.created_date(meta, rel, today)).days, 0)
        if status in ("archived", "compaction_failed"):
            return SessionStatus(rel, 0, age, status, status.replace("_", " "), False)
        return SessionStatus(rel, 0, age, status, f"due: {seen.size} bytes", True)

    def pending(self, project: str | None = None, *, now: datetime | None = None,
                limit: int | None = None) -> list[str]:
        """Notes due for compaction that were left behind: not the current session's, and not
        one another session may still be writing (open, and written in the last
        ``LIVE_SECONDS``: two Claude Code windows on one project)."""
        project = project or self.config.project
        data = self.state.load()
        current = data.sessions.get(data.current.get(project, ""))
        ended = {e.note for e in data.sessions.values() if e.ended is not None}
        return [s.note for s in self.status(project, now=now, limit=limit)
                if self._waiting(s, current, ended)]

    def _waiting(self, s: SessionStatus, current: SessionEntry | None, ended: set[str]) -> bool:
        return s.due and (current is None or s.note != current.note) and (
            s.note in ended or self._left_behind(s.note))

    def _left_behind(self, rel: str) -> bool:
        """A note this machine's state does not call ended: ended by its own last work-log entry, or
        left unwritten for ``LIVE_SECONDS`` by a session of this machine. A session another
        machine runs (the vault shared through git or a sync tool) is that machine's to compact
        until its note says it ended."""
        try:
            # Its head holds the properties, its tail the last entry: a note of any size costs this.
            note = self.vault.glimpse(rel, HOOK_READ_BYTES, HOOK_READ_HEAD)
        except VaultmemError:
            return not self._recently_written(rel)
        ended = _ends_with_session_end(note.text)
        if not ended and self._recently_written(rel):
            return False  # whatever machine runs it (no YAML parsed: see compact_pending)
        try:
            meta = frontmatter.parse(note.text, path=rel)
        except VaultmemError:
            return not self._recently_written(rel)
        if ended:
            return True
        host = meta.get(HOST)
        if isinstance(host, str) and host and host != machine.host_name():
            return False
        return not self._recently_written(rel)

    def left_open(self, starting: str | None = None) -> list[tuple[SessionEntry, datetime]]:
        """This machine's Claude sessions of the project whose SessionEnd never ran (Claude Code
        killed, the hook cancelled) and that are over: neither their transcript nor their note
        written for ``LIVE_SECONDS``; each with when it was last active. ``starting``: the
        session starting now (a resume of one of them), never one of them. A session no Stop
        recorded (no transcript known: ``vaultmem session start`` by hand) is not Claude's."""
        out = []
        for sid, entry in self.state.load().sessions.items():
            if entry.project != self.config.project or entry.ended is not None \
                    or sid == starting or not entry.transcript:
                continue
            try:
                note = os.stat(self.vault.abspath(entry.note)).st_mtime
            except (OSError, VaultmemError):
                continue  # its note is gone (removed by a person): nothing to close
            try:
                said = os.stat(entry.transcript).st_mtime
            except OSError:
                said = 0.0  # Claude Code removed the transcript: the note is all there is
            last = max(note, said)
            if time.time() - last >= LIVE_SECONDS:
                out.append((entry, datetime.fromtimestamp(last).astimezone()))
        return out

    def _ended_entry(self, rel: str) -> bool:
        """Whether the note's last work-log entry is its Session End (read from its tail)."""
        try:
            return _ends_with_session_end(
                self.vault.glimpse(rel, HOOK_READ_BYTES, HOOK_READ_HEAD).text)
        except VaultmemError:
            return False

    def _size(self, rel: str) -> int:
        try:
            return os.stat(self.vault.abspath(rel)).st_size
        except OSError:
            return 0

    def _recently_written(self, rel: str) -> bool:
        """Whether the note was written in the last LIVE_SECONDS: a stat (a fingerprint would
        read the whole note, and a pushed note may be many megabytes)."""
        try:
            mtime_ns = os.stat(self.vault.abspath(rel)).st_mtime_ns
        except (OSError, VaultmemError):
            return False
        return time.time() - mtime_ns / 1e9 < LIVE_SECONDS

    def compact_pending(
        self, project: str | None = None, *, budget_s: float | None = None,
        now: datetime | None = None, too_big: list[str] | None = None,
        timer: Callable[[], float] = time.monotonic,
    ) -> list[CompactReport]:
        """Look for pending notes and compact them until the time budget is spent, the budget
        checked after each note looked at (a project of thousands of notes) as well as each one
        compacted. Where a run stops is kept in the state: the next run goes on from there, so
        runs that each stop at their budget look at every note in turn, never the first ones
        again and again.

        ``too_big``: notes past INLINE_COMPACT_BYTES or INLINE_COMPACT_ITEMS are added there
        (for a detached compaction) instead of compacted here."""
        project = project or self.config.project
        budget = self.config.start_compaction_budget if budget_s is None else budget_s
        if budget <= 0:
            return []  # none at all (a positive budget looks at one note at least)
        start = timer()
        today = self._time(now).date()
        data = self.state.load()
        current = data.sessions.get(data.current.get(project, ""))
        ended = {e.note for e in data.sessions.values() if e.ended is not None}
        notes = self.session_notes(project)
        after = data.scans.get(project, "")
        # From the note after the one the last run stopped at, round to the one it stopped at.
        cut = bisect.bisect_right(notes, after) if after else 0
        order = notes[cut:] + notes[:cut]
        archived = self._archived_by_index(project)
        reports: list[CompactReport] = []
        stopped: str | None = None
        for n, rel in enumerate(order):
            if n and timer() - start >= budget:
                stopped = order[n - 1]
                break
            if self._unchanged(rel, archived.get(rel)) or self._archived_by_head(rel):
                continue  # most notes of a long-lived project: no YAML parsed, no body read
            if rel not in ended and not self._left_behind(rel):
                continue  # a session still running (written lately): never waiting, not parsed
            s = self._status(rel, today, HOOK_READ_BYTES)
            if not self._waiting(s, current, ended):
                continue
            if too_big is not None and (self.vault.size(rel) > INLINE_COMPACT_BYTES
                                        or s.items > INLINE_COMPACT_ITEMS):
                too_big.append(rel)
                continue
            # A note another process is compacting (a detached model extraction) is left to it:
            # session start does not wait.
            reports.append(self.compact_note(rel, extractor="deterministic", now=now,
                                             lock_timeout=0))
        if stopped != (after or None):
            self.state.update(lambda d: d.set_scan(project, stopped))
        return reports

    def _session_text(self, rel: str, max_chars: int) -> str | None:
        """The condensed transcripts of the sessions that wrote ``rel`` (see ``transcripts``)."""
        if self.transcripts is None:
            return None
        entries = sorted((e for e in self.state.load().sessions.values()
                          if e.note == rel and e.transcript), key=lambda e: e.started)
        paths = [e.transcript for e in entries if e.transcript]
        return self.transcripts(paths, max_chars) if paths else None

    def extraction_costs(self, project: str | None = None) -> ExtractionCosts:
        """What model extraction has cost the project: ``extraction_cost_usd`` of its session
        notes, and of archived copies whose original was removed (``--move``)."""
        from vaultmem.memory.sessionstatus import ExtractionCosts

        project = project or self.config.project
        seen: set[str] = set()
        runs, total = 0, 0.0
        folders = (self.layout.sessions_dir(project), self.layout.archive_dir(project))
        for folder in folders:
            for rel in self.vault.iter_notes(folder):
                name = posixpath.basename(rel)
                if posixpath.dirname(rel) != folder or name in seen:
                    continue
                seen.add(name)
                try:
                    cost = self.vault.read(rel).frontmatter().get("extraction_cost_usd")
                except VaultmemError:
                    continue
                if isinstance(cost, (int, float)) and not isinstance(cost, bool):
                    runs += 1
                    total += float(cost)
        return ExtractionCosts(project, runs, round(total, 6))

    # -- compaction ------------------------------------------------------------------------

    def compact_targets(
        self,
        note: str | None = None,
        *,
        session_id: str | None = None,
        all_projects: bool = False,
    ) -> list[str]:
        """The notes ``vaultmem compact`` works on: a note, a session's note, the project's
        session notes (current session excluded) or those of every project."""
        if note:
            return [self.vault.resolve_note(note)]
        if session_id:
            entry = self.state.get(session_id)
            if entry is None:
                raise SessionError(f"unknown session id {session_id!r}")
            return [entry.note]
        if all_projects:
            root = f"{self.layout.namespace}/projects"
            projects = sorted({rel.split("/")[2] for rel in self.vault.iter_notes(root)
                               if rel.count("/") >= 3})
        else:
            projects = [self.config.project]
        out: list[str] = []
        for project in projects:
            current = self.state.current(project)
            entry = self.state.get(current) if current else None
            out.extend(r for r in self.session_notes(project) if not entry or r != entry.note)
        return out

    def compact(
        self,
        note: str | None = None,
        *,
        session_id: str | None = None,
        all_projects: bool = False,
        dry_run: bool = False,
        force: bool = False,
        move: bool = False,
        extractor: str | None = None,
        now: datetime | None = None,
    ) -> list[CompactReport]:
        """Compact one note, a session's note, or many (see :meth:`compact_targets`)."""
        return [
            self.compact_note(rel, dry_run=dry_run, force=force, move=move, extractor=extractor,
                              now=now)
            for rel in self.compact_targets(note, session_id=session_id, all_projects=all_projects)
        ]

    def compact_note(
        self,
        rel: str,
        *,
        dry_run: bool = False,
        force: bool = False,
        move: bool = False,
        extractor: str | None = None,
        now: datetime | None = None,
        lock_timeout: float = COMPACTION_LOCK_TIMEOUT,
        deadline: Deadline | None = None,
    ) -> CompactReport:
        """Compact one session note (DESIGN §5); every step idempotent. One compaction of a
        note at a time: another waits ``lock_timeout`` seconds, then reports ``busy``.
        ``deadline`` (a hook's): the run may stop before a write and report ``handed over``."""
        from vaultmem.memory.compactor import (
            CompactionRun,  # only when a note is compacted (see the docstring)
        )

        run = CompactionRun(self.vault, self.config, rel, dry_run=dry_run, force=force, move=move,
                            extractor=extractor or self.config.extractor, now=self._time(now),
                            session_text=self._session_text if self.transcripts else None,
                            deadline=deadline)
        if deadline is not None:
            lock_timeout = min(lock_timeout, deadline.left())
        try:
            with self.vault.lock(rel + ".compaction", timeout=lock_timeout):
                return run.run()
        except LockTimeout:
            run.verdict_text = BUSY
            return run.report("busy", BUSY)
