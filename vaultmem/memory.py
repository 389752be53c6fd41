"""Use-cases of the session lifecycle and of compaction (the shell around compaction.py).

``Memory(config, vault)`` starts, logs to, decides in and ends session notes, compacts them into
entity notes, and reports their status. Time comes from ``now`` or the injected clock; the disk
only through :class:`~vaultmem.vault.Vault` and :class:`~vaultmem.state.State`.

Compaction runs the steps of DESIGN §5 with ``faults.checkpoint("compact:<step>")`` before each
(``compact:<step>:<entity>`` as well for per-entity steps) so crash tests can stop it anywhere.
Decisions beyond the design:
- A failure while patching entities (steps 2-3), writing the archive or adding backlinks marks the
  original ``status: compaction_failed`` + ``error``. An archive already written and verified
  before a backlink failed stays: it is the exact copy a re-run computes again (the copy is made
  from the note with ``error``/``archive_error`` removed and ``status`` back to ``active``), so the
  re-run finds it identical and carries on. A failed verification removes the archive just
  written and leaves ``status: active`` + ``archive_error: Verification failed``.
- An existing archive with different bytes is never overwritten: ``compaction_failed``.
- ``--move`` removes the original only when it still has the bytes that were compacted;
  otherwise it is marked archived instead and the report warns.
- Bulk compaction (no note named) and the lazy path skip the project's current session.
"""

from __future__ import annotations

import difflib
import hashlib
import posixpath
import re
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

from . import clock, compaction, faults, frontmatter, links, names, patch, templating, transcript
from .config import Config
from .errors import (
    CompactionError,
    InvalidYaml,
    LockTimeout,
    NoteExists,
    NoteNotFound,
    SessionError,
    VaultmemError,
    WriteFailed,
)
from .extraction import KINDS, Extraction
from .layout import link_target
from .state import SessionEntry, State, StateData
from .textio import encode
from .vault import Note, Vault, WriteStatus

WORK_LOG = ("Work Log",)
DECISIONS = ("Decisions Made",)
RELATED = ("Related Entities",)
TITLE_WORDS = 8
TOPIC_MAX_CHARS = 60
MAX_NAME_TRIES = 1000
COMPACTION_LOCK_TIMEOUT = 2.0

_HEADING_LINE = re.compile(r"^(\s{0,3})(#{1,6})(\s|$)")
_FENCE_LINE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")

_StepErrors = (VaultmemError, OSError, faults.InjectedFault)


@dataclass(frozen=True)
class SessionResult:
    """The note a session writes to."""

    session_id: str
    note: str
    created: bool  # a new note was made
    resumed: bool  # an existing note continues
    continues: str | None = None  # the archived note a new note continues

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        return {
            "session_id": self.session_id,
            "note": self.note,
            "created": self.created,
            "resumed": self.resumed,
            "continues": self.continues,
        }


@dataclass(frozen=True)
class EntryResult:
    """What ``log`` / ``decide`` wrote."""

    session_id: str
    note: str
    status: WriteStatus
    entry: str  # the text added

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        return {"session_id": self.session_id, "note": self.note, "status": self.status,
                "entry": self.entry}


@dataclass(frozen=True)
class CompactReport:
    """What one compaction did (or would do, for a dry run)."""

    note: str
    status: str  # compacted, below threshold, failed, dry-run, already archived, busy
    verdict: str
    counts: Mapping[str, int] = field(default_factory=dict)
    entities_updated: tuple[str, ...] = ()
    entities_created: tuple[str, ...] = ()
    archive: str | None = None
    duration_ms: float = 0.0
    extractor: str = "deterministic"
    fallback_reason: str | None = None
    warnings: tuple[str, ...] = ()
    diffs: tuple[str, ...] = ()
    error: str | None = None
    removed: bool = False  # --move removed the original

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        return {
            "note": self.note,
            "status": self.status,
            "verdict": self.verdict,
            "counts": dict(self.counts),
            "entities_updated": list(self.entities_updated),
            "entities_created": list(self.entities_created),
            "archive": self.archive,
            "duration_ms": self.duration_ms,
            "extractor": self.extractor,
            "fallback_reason": self.fallback_reason,
            "warnings": list(self.warnings),
            "diffs": list(self.diffs),
            "error": self.error,
            "removed": self.removed,
        }


@dataclass(frozen=True)
class EndResult:
    """What ending a session did."""

    session_id: str
    note: str
    status: WriteStatus | None  # of the Session End entry; None when the note was archived
    verdict: str
    report: CompactReport | None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        return {
            "session_id": self.session_id,
            "note": self.note,
            "status": self.status,
            "verdict": self.verdict,
            "compaction": self.report.to_dict() if self.report else None,
        }


@dataclass(frozen=True)
class SessionStatus:
    """One session note in ``vaultmem status``."""

    note: str
    lines: int
    age_days: int
    status: str  # the note's status property ("invalid" when its YAML is)
    verdict: str  # "below threshold (487 lines, 1 day old)", "due: 623 lines", "archived"...
    due: bool

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        return {"note": self.note, "lines": self.lines, "age_days": self.age_days,
                "status": self.status, "verdict": self.verdict, "due": self.due}


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _first_words(text: str, n: int) -> str:
    return " ".join(text.split()[:n])


def _escape_headings(text: str) -> str:
    """Body text that cannot open a section of its own (headings outside code escaped)."""
    out: list[str] = []
    fence: str | None = None
    for line in text.split("\n"):
        m = _FENCE_LINE.match(line)
        if m:
            mark = m.group(1)[0]
            fence = None if fence == mark else fence or mark
        elif fence is None and _HEADING_LINE.match(line):
            line = _HEADING_LINE.sub(lambda h: f"{h.group(1)}\\{h.group(2)}{h.group(3)}", line)
        out.append(line)
    return "\n".join(out)


def _diff(rel: str, old: str | None, new: str | None) -> str:
    return "".join(
        difflib.unified_diff(
            (old or "").splitlines(keepends=True),
            (new or "").splitlines(keepends=True),
            fromfile=f"a/{rel}" if old is not None else "/dev/null",
            tofile=f"b/{rel}" if new is not None else "/dev/null",
        )
    )


class Memory:
    """The use-cases over one vault for one configuration."""

    def __init__(
        self,
        config: Config,
        vault: Vault,
        *,
        clock_now: Callable[[], datetime] = clock.now,
        state: State | None = None,
    ) -> None:
        self.config = config
        self.vault = vault
        self.layout = vault.layout
        self._now = clock_now
        self.state = state or State(vault, clock_now=clock_now)

    def _time(self, now: datetime | None) -> datetime:
        return now if now is not None else self._now()

    # -- sessions ---------------------------------------------------------------------------

    def start_session(
        self,
        session_id: str | None = None,
        *,
        topic: str | None = None,
        first_prompt: str | None = None,
        now: datetime | None = None,
    ) -> SessionResult:
        """Make sure the session has a note: resume its note, or start one (DESIGN §1)."""
        now = self._time(now)
        sid = _one_line(session_id or "") or str(uuid.uuid4())
        if len(sid) > 200:
            raise SessionError(f"session id longer than 200 characters: {sid[:40]}…")
        return self.state.update(lambda data: self._start(data, sid, topic, first_prompt, now))

    def _start(
        self,
        data: StateData,
        sid: str,
        topic: str | None,
        first_prompt: str | None,
        now: datetime,
    ) -> SessionResult:
        entry = data.sessions.get(sid)
        project = entry.project if entry else self.config.project
        continues: str | None = None
        if entry is not None:
            status = self._note_status(entry.note)
            if status not in (None, "archived"):
                self.vault.update(entry.note, [patch.SetProperty("claude_last_accessed", now.date())])
                data.set_current(project, sid)
                return SessionResult(sid, entry.note, created=False, resumed=True)
            continues = self._archived_copy(entry.note, status)
            if not topic:
                # The continuation keeps the topic of the note it continues.
                topic = posixpath.basename(entry.note)[11:-3] or None
        self._ensure_index(project, now.date())
        rel = self._create_note(project, sid, topic, first_prompt, continues, now)
        data.set_session(
            SessionEntry(
                sid,
                rel,
                project,
                now.isoformat(timespec="seconds"),
                entry.ingested if entry else frozenset(),
                entry.last_offset if entry else None,
            )
        )
        data.set_current(project, sid)
        return SessionResult(sid, rel, created=True, resumed=False, continues=continues)

    def _note_status(self, rel: str) -> str | None:
        """The note's status property; None when the note is gone ("" when it has none)."""
        try:
            note = self.vault.read(rel)
        except NoteNotFound:
            return None
        try:
            return str(note.frontmatter().get("status") or "")
        except InvalidYaml:
            return ""

    def _archived_copy(self, rel: str, status: str | None) -> str | None:
        archive = compaction.archive_rel(rel, self.layout)
        if self.vault.exists(archive):
            return archive
        return rel if status == "archived" else None

    def _topic(self, topic: str | None, first_prompt: str | None) -> tuple[str, str]:
        """(slug, title) of a new session note."""
        if topic and names.slug(topic):
            slug = names.slug(topic)[:TOPIC_MAX_CHARS].rstrip("-")
            return slug, _one_line(topic)
        prompt = transcript.clean_prompt(first_prompt) if first_prompt else None
        if prompt and names.slug(prompt, max_words=6):
            return names.slug(prompt, max_words=6)[:TOPIC_MAX_CHARS].rstrip("-"), _first_words(
                prompt, 6
            )
        return "session", ""

    def _create_note(
        self,
        project: str,
        sid: str,
        topic: str | None,
        first_prompt: str | None,
        continues: str | None,
        now: datetime,
    ) -> str:
        slug, title = self._topic(topic, first_prompt)
        today = now.date().isoformat()
        context = f"Project {links.format(link_target(self.layout.project_index(project)), alias=project)}"
        context += f", started {today} {now:%H:%M}."
        if continues:
            target = link_target(continues)
            context += f" Continues {links.format(target, alias=posixpath.basename(target))}."
        text = templating.render(
            "session",
            project=project,
            created=today,
            updated=today,
            claude_last_accessed=today,
            session_ids=[sid],
            title=title or f"Session {today} {now:%H:%M}",
            context=context,
        )
        if continues:
            text = frontmatter.set_key(text, "continues", links.format(link_target(continues)))
        stem = f"{today}-{slug}"
        for n in range(1, MAX_NAME_TRIES + 1):
            name = stem if n == 1 else f"{stem}-{n}"
            rel = self.layout.session(project, name)
            # The archive keeps the file name: a name taken there is taken too.
            if self.vault.exists(self.layout.archive(project, name)):
                continue
            try:
                self.vault.create(rel, text)
            except NoteExists:
                continue
            return rel
        raise SessionError(f"no free note name for {stem!r} after {MAX_NAME_TRIES} tries")

    def init_project(self, *, now: datetime | None = None) -> list[str]:
        """Create the project's folders and ``_index.md`` (and the global folders); returns the
        vault-relative folders and notes that were created. Safe to re-run."""
        now = self._time(now)
        project = self.config.project
        created: list[str] = []
        for folder in (
            self.layout.sessions_dir(project),
            self.layout.entities_dir(project),
            self.layout.archive_dir(project),
            self.layout.global_entities_dir(),
            posixpath.dirname(self.layout.global_topic("x")),
        ):
            path = self.vault.abspath(folder)
            if not path.is_dir():
                try:
                    path.mkdir(parents=True, exist_ok=True)
                except OSError as err:
                    raise WriteFailed(f"cannot create folder: {err.strerror}", path=folder) from None
                created.append(folder + "/")
        if self._ensure_index(project, now.date()):
            created.append(self.layout.project_index(project))
        return created

    def _ensure_index(self, project: str, today: date) -> bool:
        rel = self.layout.project_index(project)
        if self.vault.exists(rel):
            return False
        text = templating.render(
            "project-index",
            project=project,
            created=today.isoformat(),
            updated=today.isoformat(),
            claude_last_accessed=today.isoformat(),
            title=project,
            overview=f"Working memory of the project {project}: session notes in `sessions/`, "
            "what they taught in `entities/`.",
        )
        try:
            self.vault.create(rel, text)
        except NoteExists:
            return False  # created meanwhile by another session, or a person's own index
        return True

    def _session(self, session_id: str | None, now: datetime) -> tuple[str, str]:
        """(session id, note) a log entry goes to; an archived note continues in a new one."""
        sid = session_id or self.state.current(self.config.project)
        if not sid:
            raise SessionError(
                f"no current session for project {self.config.project!r}; "
                "run `vaultmem session start` or pass --session-id"
            )
        entry = self.state.get(sid)
        if entry is None or self._note_status(entry.note) in (None, "archived"):
            return sid, self.start_session(sid, now=now).note
        return sid, entry.note

    def current_session(self) -> SessionEntry | None:
        """The project's current session, if any."""
        sid = self.state.current(self.config.project)
        return self.state.get(sid) if sid else None

    def log(
        self,
        text: str,
        *,
        title: str | None = None,
        session_id: str | None = None,
        now: datetime | None = None,
    ) -> EntryResult:
        """Append a ``### HH:MM - Title`` entry to the session's ``## Work Log``."""
        now = self._time(now)
        body = text.strip()
        heading = _one_line(title or "") or _first_words(body, TITLE_WORDS)
        if not heading:
            raise SessionError("nothing to log: the text is empty")
        entry = f"### {now:%H:%M} - {heading}"
        if body and (title or _one_line(body) != heading):
            entry += "\n\n" + _escape_headings(body)
        sid, rel = self._session(session_id, now)
        edits: list[patch.Edit] = [
            patch.SectionPatch(WORK_LOG, "append", entry, subtree=True, create=True),
            *self._touch(now),
        ]
        result = self.vault.update(rel, edits)
        return EntryResult(sid, rel, result.status, entry)

    @staticmethod
    def _touch(now: datetime) -> list[patch.Edit]:
        # Setting the same date is a no-op: at most one change a day.
        return [
            patch.SetProperty("updated", now.date()),
            patch.SetProperty("claude_last_accessed", now.date()),
        ]

    def decide(
        self,
        text: str,
        *,
        why: str | None = None,
        entities: Sequence[str] = (),
        session_id: str | None = None,
        now: datetime | None = None,
    ) -> EntryResult:
        """Add ``- <text> — why: <why> ([[A]], [[B]])`` under ``## Decisions Made``; each
        entity once under ``## Related Entities``."""
        now = self._time(now)
        decision = _one_line(text)
        if not decision:
            raise SessionError("nothing to decide: the text is empty")
        entity_names = list(dict.fromkeys(links.safe_entity_name(e) for e in entities))
        item = f"- {decision}"
        if why and _one_line(why):
            item += f" — why: {_one_line(why)}"
        if entity_names:
            item += " (" + ", ".join(links.format(n) for n in entity_names) + ")"
        sid, rel = self._session(session_id, now)
        note = self.vault.read(rel)
        have = {n.casefold() for n in compaction.related_entities(note.text)}
        edits: list[patch.Edit] = [
            patch.SectionPatch(DECISIONS, "append", item, subtree=True, create=True)
        ]
        for name in entity_names:
            if name.casefold() not in have:
                edits.append(
                    patch.SectionPatch(RELATED, "append", f"- {links.format(name)}",
                                       subtree=True, create=True)
                )
        edits.extend(self._touch(now))
        result = self.vault.update(rel, edits, base=note, label="vaultmem decide")
        return EntryResult(sid, rel, result.status, item)

    def end_session(
        self,
        *,
        reason: str = "manual",
        compact: bool = True,
        session_id: str | None = None,
        now: datetime | None = None,
    ) -> EndResult:
        """Close the session: ``### HH:MM - Session End`` entry, then compaction when due."""
        now = self._time(now)
        sid = session_id or self.state.current(self.config.project)
        entry = self.state.get(sid) if sid else None
        if not sid or entry is None:
            raise SessionError(
                f"no session to end for project {self.config.project!r}"
                + (f" (unknown session id {sid!r})" if sid else "")
            )
        self.state.update(lambda data: data.clear_current(entry.project, sid))
        if self._note_status(entry.note) in (None, "archived"):
            return EndResult(sid, entry.note, None, "archived", None)
        text = f"### {now:%H:%M} - Session End\n\nReason: {_one_line(reason) or 'other'}"
        edits = [patch.SectionPatch(WORK_LOG, "append", text, subtree=True, create=True),
                 *self._touch(now)]
        written = self.vault.update(entry.note, edits)
        note = self.vault.read(entry.note)
        verdict = self._verdict(note, now.date())
        report = None
        if compact and verdict.due:
            report = self.compact_note(entry.note, extractor="deterministic", now=now)
        return EndResult(sid, entry.note, written.status, verdict.text, report)

    # -- status ------------------------------------------------------------------------------

    def _verdict(self, note: Note, today: date) -> compaction.Verdict:
        text = compaction.canonical(note.text)
        created = compaction.created_date(frontmatter.parse(text, path=note.rel), note.rel, today)
        return compaction.verdict(len(text.splitlines()), created, today, self.config)

    def session_notes(self, project: str | None = None) -> list[str]:
        """The session notes of a project (not the archive), sorted."""
        folder = self.layout.sessions_dir(project or self.config.project)
        return [rel for rel in self.vault.iter_notes(folder) if posixpath.dirname(rel) == folder]

    def status(self, project: str | None = None, *, now: datetime | None = None) -> list[SessionStatus]:
        """Every session note of the project with lines, age, status and threshold verdict."""
        today = self._time(now).date()
        out: list[SessionStatus] = []
        for rel in self.session_notes(project):
            try:
                note = self.vault.read(rel)
                meta = note.frontmatter()
            except VaultmemError as err:
                out.append(SessionStatus(rel, 0, 0, "invalid", f"unreadable: {err.message}", False))
                continue
            status = str(meta.get("status") or "")
            age = max((today - compaction.created_date(meta, rel, today)).days, 0)
            if status == "archived":
                out.append(SessionStatus(rel, note.lines, age, status, "archived", False))
            elif status == "compaction_failed":
                error = _one_line(str(meta.get("error") or "unknown error"))
                out.append(SessionStatus(rel, note.lines, age, status,
                                         f"compaction failed: {error}", False))
            else:
                v = self._verdict(note, today)
                text = v.text
                if meta.get("archive_error"):
                    text += f" (last archive: {_one_line(str(meta['archive_error']))})"
                out.append(SessionStatus(rel, v.lines, v.age_days, status, text, v.due))
        return out

    def pending(self, project: str | None = None, *, now: datetime | None = None) -> list[str]:
        """Notes due for compaction that nothing compacted (the current session excluded)."""
        project = project or self.config.project
        current = self.state.current(project)
        entry = self.state.get(current) if current else None
        skip = entry.note if entry else None
        return [s.note for s in self.status(project, now=now) if s.due and s.note != skip]

    def compact_pending(
        self, project: str | None = None, *, budget_s: float | None = None,
        now: datetime | None = None,
    ) -> list[CompactReport]:
        """Compact pending notes until the time budget is spent (no new one starts after)."""
        budget = self.config.start_compaction_budget if budget_s is None else budget_s
        start = time.monotonic()
        reports: list[CompactReport] = []
        for rel in self.pending(project, now=now):
            if time.monotonic() - start >= budget:
                break
            reports.append(self.compact_note(rel, extractor="deterministic", now=now))
        return reports

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
    ) -> CompactReport:
        """Compact one session note (DESIGN §5); every step idempotent."""
        run = _Compaction(self, rel, dry_run=dry_run, force=force, move=move,
                          extractor=extractor or self.config.extractor, now=self._time(now))
        try:
            with self.vault.lock(rel + ".compaction", timeout=COMPACTION_LOCK_TIMEOUT):
                return run.run()
        except LockTimeout:
            return run.report("busy", "another process is compacting this note")


class _Compaction:
    """One compaction run; keeps what the report needs."""

    def __init__(
        self, memory: Memory, rel: str, *, dry_run: bool, force: bool, move: bool,
        extractor: str, now: datetime,
    ) -> None:
        self.m = memory
        self.vault = memory.vault
        self.rel = rel
        self.dry_run = dry_run
        self.force = force
        self.move = move
        self.extractor = extractor
        self.now = now
        self.today = now.date()
        self.started = time.perf_counter()
        self.verdict_text = ""
        self.counts: dict[str, int] = {}
        self.updated: list[str] = []
        self.created: list[str] = []
        self.archive: str | None = None
        self.warnings: list[str] = []
        self.diffs: list[str] = []
        self.fallback_reason: str | None = None
        self.removed = False

    def report(self, status: str, error: str | None = None) -> CompactReport:
        return CompactReport(
            note=self.rel,
            status=status,
            verdict=self.verdict_text or status,
            counts=dict(self.counts),
            entities_updated=tuple(dict.fromkeys(self.updated)),
            entities_created=tuple(self.created),
            archive=self.archive,
            duration_ms=round((time.perf_counter() - self.started) * 1000, 1),
            extractor=self.extractor,
            fallback_reason=self.fallback_reason,
            warnings=tuple(self.warnings),
            diffs=tuple(self.diffs),
            error=error,
            removed=self.removed,
        )

    @staticmethod
    def _step(name: str, detail: str | None = None) -> None:
        faults.checkpoint(f"compact:{name}")
        if detail is not None:
            faults.checkpoint(f"compact:{name}:{detail}")

    def _fail(self, note: Note, err: BaseException) -> CompactReport:
        message = _one_line(str(err)) or type(err).__name__
        try:
            self.vault.update(self.rel, compaction.failed_edits(message), base=note,
                              label="vaultmem compaction")
        except VaultmemError as again:
            self.warnings.append(f"could not mark the note compaction_failed: {again}")
        return self.report("failed", message)

    def run(self) -> CompactReport:
        note = self.vault.read(self.rel)
        try:
            meta = note.frontmatter()
        except InvalidYaml as err:
            return self.report("failed", str(err))
        status = str(meta.get("status") or "")
        if status == "archived":
            self.verdict_text = "archived"
            return self.report("already archived")
        canon = compaction.canonical(note.text)
        project = compaction.session_project(self.rel)
        created = compaction.created_date(meta, self.rel, self.today)
        verdict = compaction.verdict(len(canon.splitlines()), created, self.today, self.m.config)
        self.verdict_text = verdict.text
        if not verdict.due and not self.force:
            if status != "active" and not self.dry_run:
                self.vault.update(self.rel, [patch.DeleteProperty("error"),
                                             patch.DeleteProperty("archive_error"),
                                             patch.SetProperty("status", "active")], base=note)
            return self.report("below threshold")
        reason = verdict.reason if verdict.due else compaction.FORCED_REASON
        self.archive = compaction.archive_rel(self.rel, self.m.layout)
        try:
            self._step("extract")
            extraction = self._extract(canon, project)
            self.counts = {kind: extraction.count(kind) for kind in KINDS}
            plan, loaded = self._plan(extraction, project)
        except _StepErrors as err:
            if self.dry_run:
                return self.report("failed", _one_line(str(err)))
            return self._fail(note, err)
        if self.dry_run:
            return self._dry_run(note, canon, plan, loaded, reason)
        try:
            self._patch_entities(plan, loaded)
        except _StepErrors as err:
            return self._fail(note, err)
        try:
            verified = self._write_archive(note, canon, reason)
        except _StepErrors as err:
            return self._fail(note, err)
        if not verified:
            return self.report("failed", "archive verification failed")
        try:
            self._backlinks(plan)
        except _StepErrors as err:
            return self._fail(note, err)
        self._finish(note, reason)
        return self.report("compacted")

    def _extract(self, canon: str, project: str) -> Extraction:
        config = self.m.config
        if self.extractor != "llm":
            extraction, warnings = compaction.extract_report(canon, self.rel, config)
            self.warnings.extend(warnings)
            return extraction
        from . import llm  # the SDK costs seconds to import: only on this path

        fallback_warnings: list[str] = []

        def fallback() -> Extraction:
            extraction, warnings = compaction.extract_report(canon, self.rel, config)
            fallback_warnings.extend(warnings)
            return extraction

        known = [posixpath.basename(r)[:-3] for r in self._known_entities(project)]
        raw = llm.extract(
            compaction.blank_private(canon),
            project=project,
            known_entities=known,
            settings=llm.settings_from_env(config.model),
            fallback=fallback,
        )
        extraction, checked = compaction.assign_targets(raw, canon, self.rel, config)
        self.warnings.extend(fallback_warnings or checked)
        self.extractor = extraction.extractor
        self.fallback_reason = extraction.fallback_reason
        return extraction

    def _known_entities(self, project: str) -> list[str]:
        layout = self.m.layout
        out: list[str] = []
        for folder in (layout.entities_dir(project), layout.global_entities_dir()):
            out.extend(r for r in self.vault.iter_notes(folder) if posixpath.dirname(r) == folder)
        return out

    def _plan(self, extraction: Extraction, project: str) -> tuple[compaction.Plan, dict[str, Note]]:
        names_ = list(dict.fromkeys(n for item in extraction.items for n in item.entities))
        known = self._known_entities(project)
        targets = compaction.entity_targets(names_, project, self.m.layout, known)
        loaded: dict[str, Note] = {}
        known_set = set(known)
        for rel in dict.fromkeys(targets.values()):
            if rel in known_set:
                # Invalid YAML fails at its patch (vault.update), naming the entity.
                loaded[rel] = self.vault.read(rel)
        plan = compaction.plan(
            extraction, self.rel, targets, {r: n.text for r, n in loaded.items()},
            layout=self.m.layout, today=self.today,
        )
        return plan, loaded

    def _patch_entities(self, plan: compaction.Plan, loaded: Mapping[str, Note]) -> None:
        for step in plan.entities:
            stem = posixpath.basename(step.rel)[:-3]
            if step.create and step.create_text is not None:
                self._step("entity-create", stem)
                try:
                    self.vault.create(step.rel, step.create_text)
                    self.created.append(step.rel)
                    continue
                except NoteExists:
                    # Made meanwhile (a person in Obsidian): patch what is there.
                    pass
                result = self.vault.update(step.rel, step.edits, label="vaultmem compaction")
            elif step.edits:
                self._step("entity-patch", stem)
                result = self.vault.update(step.rel, step.edits, base=loaded[step.rel],
                                           label="vaultmem compaction")
            else:
                continue
            if result.changed:
                self.updated.append(step.rel)
            if result.status == "rebased":
                self.warnings.append(f"{step.rel}: edited meanwhile; lines added to the new text")

    def _write_archive(self, note: Note, canon: str, reason: str) -> bool:
        """Step 4; False when the verification failed (the note then says so)."""
        assert self.archive is not None
        text = compaction.archive_text(canon, reason, self.today)
        digest = hashlib.sha256(encode(text, note.fmt)).hexdigest()
        self._step("archive-write")
        existing = self.vault.fingerprint(self.archive)
        wrote = False
        if existing is None:
            self.vault.write_text(self.archive, text, fmt=note.fmt)
            wrote = True
        elif existing.sha256 != digest:
            raise CompactionError(
                "a different archive of this note exists; it is never overwritten",
                path=self.archive,
            )
        try:
            self._step("archive-verify")
            back = self.vault.fingerprint(self.archive)
            if back is None or back.sha256 != digest:
                raise CompactionError("archive read back differs", path=self.archive)
        except _StepErrors:
            if wrote:
                try:
                    self.vault.remove(self.archive)
                except VaultmemError as err:
                    self.warnings.append(f"could not remove the unverified archive: {err}")
            self.vault.update(
                self.rel,
                [patch.DeleteProperty("error"), patch.SetProperty("status", "active"),
                 patch.SetProperty("archive_error", "Verification failed")],
                base=note,
            )
            self.archive = None
            return False
        return True

    def _backlinks(self, plan: compaction.Plan) -> None:
        assert self.archive is not None
        for step in plan.entities:
            self._step("backlink", posixpath.basename(step.rel)[:-3])
            current = self.vault.read(step.rel)
            edits = compaction.backlink_edits(current.text, self.archive, self.today)
            if edits:
                result = self.vault.update(step.rel, edits, base=current,
                                           label="vaultmem compaction")
                if result.changed and step.rel not in self.created:
                    self.updated.append(step.rel)

    def _finish(self, note: Note, reason: str) -> None:
        assert self.archive is not None
        if self.move:
            self._step("move-remove")
            with self.vault.lock(self.rel):
                now_fp = self.vault.fingerprint(self.rel)
                if now_fp is not None and now_fp.sha256 == note.fingerprint.sha256:
                    self.vault.remove(self.rel)
                    self.removed = True
                    return
            self.warnings.append(f"{self.rel} changed while compacting; marked archived, not removed")
        self._step("mark-original")
        self.vault.update(self.rel, compaction.mark_edits(self.archive, reason, self.today),
                          base=note, label="vaultmem compaction")

    def _dry_run(
        self, note: Note, canon: str, plan: compaction.Plan, loaded: Mapping[str, Note], reason: str
    ) -> CompactReport:
        assert self.archive is not None
        for step in plan.entities:
            old = loaded[step.rel].text if step.rel in loaded else None
            new = step.create_text if old is None else patch.apply_all(
                old, step.edits, file=step.rel).text
            assert new is not None
            new = patch.apply_all(new, compaction.backlink_edits(new, self.archive, self.today),
                                  file=step.rel).text
            if new != old:
                self.diffs.append(_diff(step.rel, old, new))
                (self.created if old is None else self.updated).append(step.rel)
        archive_old = self.vault.read(self.archive).text if self.vault.exists(self.archive) else None
        archive_new = compaction.archive_text(canon, reason, self.today)
        if archive_old != archive_new:
            self.diffs.append(_diff(self.archive, archive_old, archive_new))
        if self.move:
            self.diffs.append(_diff(self.rel, note.text, None))
        else:
            marked = patch.apply_all(note.text, compaction.mark_edits(self.archive, reason,
                                                                       self.today)).text
            self.diffs.append(_diff(self.rel, note.text, marked))
        return self.report("dry-run")
