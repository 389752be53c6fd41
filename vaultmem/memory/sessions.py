"""Use-cases of the session lifecycle and of compaction (the shell around compaction.py).

``Memory(config, vault)`` starts, logs to, decides in and ends session notes, compacts them into
entity notes, and reports their status. Time comes from ``now`` or the injected clock; the disk
only through :class:`~vaultmem.store.vault.Vault` and :class:`~vaultmem.store.state.State`.

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
import secrets
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

from vaultmem import clock
from vaultmem.errors import (
    InvalidYaml,
    LockTimeout,
    NoteExists,
    NoteNotFound,
    SessionError,
    VaultmemError,
    WriteFailed,
)
from vaultmem.memory import bases, threshold
from vaultmem.memory.reports import CompactReport
from vaultmem.notes import frontmatter, inline, names, patch, propedit, templating
from vaultmem.notes.privacy import clean_prompt
from vaultmem.store import machine
from vaultmem.store.config import Config
from vaultmem.store.layout import STATE_DIR, link_target
from vaultmem.store.state import SessionEntry, State, StateData
from vaultmem.store.vault import HOOK_READ_BYTES, HOOK_READ_HEAD, Note, Vault, WriteStatus

WORK_LOG = ("Work Log",)
DECISIONS = ("Decisions Made",)
RELATED = ("Related Entities",)
# What ``remember`` writes, by kind: the session note's section (as capture files them).
REMEMBER_SECTIONS = {
    "decision": "Decisions Made",
    "gotcha": "Gotchas & Fixes",
    "prerequisite": "Prerequisites",
    "next-step": "Next Steps",
    "question": "Open Questions",
}
TITLE_WORDS = 8
TOPIC_MAX_CHARS = 60
NUMBERED_NAMES = 100  # <stem>-2 … -100; then the session id names the note
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
# (transcript paths, max characters) -> the sessions' condensed text, None when unreadable.
TranscriptReader = Callable[[Sequence[str], int], "str | None"]

_HEADING_LINE = re.compile(r"^(\s{0,3})(#{1,6})(\s|$)")
_FENCE_LINE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")


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
    continues: str | None = None  # the archived note, when this entry started a new note

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        return {"session_id": self.session_id, "note": self.note, "status": self.status,
                "entry": self.entry, "continues": self.continues}


@dataclass(frozen=True)
class EndResult:
    """What ending a session did."""

    session_id: str
    note: str
    status: WriteStatus | None  # of the Session End entry; None when the note was archived
    verdict: str
    report: CompactReport | None
    # Due for compaction and not compacted here (a failed earlier compaction is not retried by
    # a session end): what a SessionEnd hook hands to a detached compaction.
    due: bool = False

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
    items: int = 0  # list lines (of a note due for compaction)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        return {"note": self.note, "lines": self.lines, "age_days": self.age_days,
                "status": self.status, "verdict": self.verdict, "due": self.due}


def _list_lines(text: str) -> int:
    """The lines of ``text`` that start a list item: what a compaction's cost grows with."""
    return sum(1 for line in text.split("\n") if line.lstrip()[:2] in _BULLETS)


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _first_words(text: str, n: int) -> str:
    return " ".join(text.split()[:n])


def _new_session_id() -> str:
    import uuid  # hooks always bring Claude Code's session id: kept off their start-up

    return str(uuid.uuid4())


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


@dataclass(frozen=True)
class ExtractionCosts:
    """What a project's model extractions cost (``vaultmem status``)."""

    project: str
    notes: int  # session notes with a recorded cost
    total_usd: float

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        return {"project": self.project, "notes": self.notes, "total_usd": self.total_usd}


class Memory:
    """The use-cases over one vault for one configuration."""

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

    # -- sessions ---------------------------------------------------------------------------

    def start_session(
        self,
        session_id: str | None = None,
        *,
        topic: str | None = None,
        first_prompt: str | None = None,
        now: datetime | None = None,
        meta: Mapping[str, str] | None = None,
    ) -> SessionResult:
        """Make sure the session has a note: resume its note, or start one (DESIGN §1).

        Without a session id, the project's current session resumes while it is open (not
        ended): running ``session start`` twice writes one note, not two.

        ``meta``: flat frontmatter strings (``cwd``, ``git_branch``, ``git_head_start``...) a
        new note starts with (a resumed note keeps its own).
        """
        now = self._time(now)
        given = _one_line(session_id or "")
        if len(given) > 200:
            raise SessionError(f"session id longer than 200 characters: {given[:40]}…")

        def start(data: StateData) -> SessionResult:
            sid = given or self._open_current(data) or _new_session_id()
            return self._start(data, sid, topic, first_prompt, now, meta or {})

        return self.state.update(start)

    def _open_current(self, data: StateData) -> str | None:
        """The project's current session id while it is open, else None."""
        sid = data.current.get(self.config.project)
        entry = data.sessions.get(sid) if sid else None
        return sid if entry is not None and entry.ended is None else None

    def _start(
        self,
        data: StateData,
        sid: str,
        topic: str | None,
        first_prompt: str | None,
        now: datetime,
        meta: Mapping[str, str],
    ) -> SessionResult:
        entry = data.sessions.get(sid)
        project = entry.project if entry else self.config.project
        continues: str | None = None
        if entry is not None:
            status = self._note_status(entry.note)
            if status not in (None, "archived"):
                self.vault.update(entry.note, [patch.SetProperty("claude_last_accessed", now.date())])
                data.reopen(sid)
                data.set_current(project, sid)
                return SessionResult(sid, entry.note, created=False, resumed=True)
            continues = self._archived_copy(entry.note, status)
            if not topic:
                topic = self._continued_topic(project, entry.note)
        self.ensure_index(project, now.date())
        rel = self._create_note(project, sid, topic, first_prompt, continues, now, meta)
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

    def continue_archived(self, data: StateData, sid: str, *, now: datetime,
                          meta: Mapping[str, str]) -> str:
        """The note that continues session ``sid`` once its note was archived (made now, under
        the state lock the caller holds)."""
        return self._start(data, sid, None, None, now, meta).note

    def _continued_topic(self, project: str, rel: str) -> str | None:
        """The topic a continuation keeps: the continued note's, without the ``-N`` a name
        clash gave it (the continuation of ``x-2`` is ``x-3``, not ``x-2-2``)."""
        stem = posixpath.basename(rel)[:-3]
        day, topic = stem[:10], stem[11:]
        match = re.fullmatch(r"(.+)-\d+", topic)
        if match:
            base = f"{day}-{match.group(1)}"
            if self.vault.exists(self.layout.archive(project, base)) or self.vault.exists(
                self.layout.session(project, base)
            ):
                return match.group(1)
        return topic or None

    def _note_status(self, rel: str) -> str | None:
        """The note's status property; None when the note is gone ("" when it has none)."""
        try:
            note = self.vault.glimpse(rel, HOOK_READ_BYTES, HOOK_READ_HEAD)
        except NoteNotFound:
            return None
        try:
            return str(frontmatter.parse(note.text, path=rel).get("status") or "")
        except InvalidYaml:
            return ""

    def _archived_copy(self, rel: str, status: str | None) -> str | None:
        from vaultmem.memory import compaction  # a resumed session whose note was archived: rare

        archive = compaction.archive_rel(rel, self.layout)
        if self.vault.exists(archive):
            return archive
        return rel if status == "archived" else None

    def session_stem(self, day: str, slug: str, sid: str) -> str:
        """``<day>-<slug>`` of a session note; in a vault other machines write too (git, a sync
        tool), with the session's short mark, so two teammates' same first words the same day
        never make one name (a note awaiting its topic is renamed before it is shared)."""
        stem = f"{day}-{slug}"
        if slug == "session" or not machine.is_shared(self.vault.root, self.vault.state_dir):
            return stem
        return names.with_suffix(stem, names.session_suffix(sid))

    def _topic(self, topic: str | None, first_prompt: str | None) -> tuple[str, str]:
        """(slug, title) of a new session note; private text never names a file."""
        # A secret never names a file: redacted before the slug (``ghp_…`` slugged is
        # ``ghp-…``, which no detector knows).
        scrub = self.config.redaction
        cleaned = clean_prompt(topic) if topic else None
        topic = scrub(cleaned) if cleaned else None
        if topic and names.slug(topic):
            slug = names.slug(topic)[:TOPIC_MAX_CHARS].rstrip("-")
            return slug, _one_line(topic)
        cleaned = clean_prompt(first_prompt) if first_prompt else None
        prompt = scrub(cleaned) if cleaned else None
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
        meta: Mapping[str, str] | None = None,
    ) -> str:
        from vaultmem.notes import (
            links,  # only new notes and decisions format links: kept off the end hooks
        )

        slug, title = self._topic(topic, first_prompt)
        today = now.date().isoformat()
        context = f"Project {links.format(link_target(self.layout.project_index(project)), alias=project)}"
        context += f", started {today} {now:%H:%M}."
        if continues:
            target = link_target(continues)
            context += f" Continues {links.format(target, alias=posixpath.basename(target))}."
        meta = meta or {}
        if meta.get("cwd"):
            context += f" Working directory {inline.code_span(inline.one_line(meta['cwd']))}"
            if meta.get("git_branch"):
                context += f", branch {inline.code_span(inline.one_line(meta['git_branch']))}"
            context += "."
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
            text = propedit.set_key(text, "continues", links.format(link_target(continues)))
        for key, value in meta.items():
            text = propedit.set_key(text, key, value)
        stem = self.session_stem(today, slug, sid)
        # The archive keeps the file name: a name taken there is taken too. Both folders are
        # listed once: trying each taken name with a create cost a lock and a write each.
        taken = self._names(self.layout.sessions_dir(project)) | self._names(
            self.layout.archive_dir(project))
        for name in _note_names(stem, sid):
            rel = self.layout.session(project, name)
            if f"{name}.md" in taken:
                continue
            try:
                self.vault.create(rel, text)
            except NoteExists:
                continue
            return rel
        raise SessionError(f"no free note name for {stem!r}")  # only past 2**64 names

    def _names(self, folder: str) -> set[str]:
        """The names in a vault folder that are not folders (none when it cannot be listed). A
        folder where a note should be is tried, so that it is reported ("is a folder")."""
        try:
            with os.scandir(self.vault.abspath(folder)) as entries:
                return {entry.name for entry in entries if not entry.is_dir(follow_symlinks=False)}
        except (OSError, VaultmemError):
            return set()

    def init_project(self, *, now: datetime | None = None) -> list[str]:
        """Create the project's folders and ``_index.md`` (and the global folders); returns the
        vault-relative folders and notes that were created. Safe to re-run."""
        now = self._time(now)
        project = self.config.project
        created: list[str] = []
        try:  # machine-local state, git-ignored from the start (see machine)
            machine.ensure_state_dir(self.vault.state_dir)
        except OSError as err:
            raise WriteFailed(f"cannot create folder: {err.strerror}", path=STATE_DIR) from None
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
        if self.ensure_index(project, now.date()):
            created.append(self.layout.project_index(project))
        created.extend(bases.ensure(self.vault))
        return created

    def ensure_index(self, project: str, today: date) -> bool:
        """Create the project's `_index.md` when it is missing; whether it was created."""
        rel = self.layout.project_index(project)
        if self.vault.exists(rel):
            return False
        text = templating.project_index(project, today)
        try:
            self.vault.create(rel, text)
        except NoteExists:
            return False  # created meanwhile by another session, or a person's own index
        return True

    def _session(self, session_id: str | None, now: datetime) -> tuple[str, str, str | None]:
        """(session id, note, the archived note it continues or None) a log entry goes to; an
        archived note continues in a new one."""
        sid = session_id or self.state.current(self.config.project)
        if not sid:
            raise SessionError(
                f"no current session for project {self.config.project!r}; "
                "run `vaultmem session start` or pass --session-id"
            )
        entry = self.state.get(sid)
        if entry is None or self._note_status(entry.note) in (None, "archived"):
            started = self.start_session(sid, now=now)
            return sid, started.note, started.continues
        return sid, entry.note, None

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
        sid, rel, continues = self._session(session_id, now)
        edits: list[patch.Edit] = [
            patch.SectionPatch(WORK_LOG, "append", entry, subtree=True, create=True,
                               prefer="first"),
            *self._touch(now),
        ]
        result = self.vault.update(rel, edits)
        return EntryResult(sid, rel, result.status, entry, continues)

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
        """``remember`` a decision (``vaultmem session decide``)."""
        return self.remember(text, kind="decision", why=why, entities=entities,
                             session_id=session_id, now=now)

    def remember(
        self,
        text: str,
        *,
        kind: str = "decision",
        why: str | None = None,
        entities: Sequence[str] = (),
        session_id: str | None = None,
        now: datetime | None = None,
    ) -> EntryResult:
        """Add ``- <text> — why: <why> ([[A]], [[B]])`` under the section of ``kind`` (Decisions
        Made, Gotchas & Fixes, Prerequisites, Open Questions, Next Steps) of the current
        session's note, starting a session when there is none; each entity once under
        ``## Related Entities``. A fact the note holds already (``facts.fact_key``, any
        section) is not added again: the result says ``unchanged``."""
        from vaultmem.notes import facts, links

        now = self._time(now)
        if kind not in REMEMBER_SECTIONS:
            raise SessionError(
                f"unknown kind {kind!r}: give one of {', '.join(REMEMBER_SECTIONS)}"
            )
        # A secret in what is remembered is redacted as capture redacts it (config ``redact``).
        said = inline.block_safe(self.config.redaction(text))
        if not said:
            raise SessionError(f"nothing to remember: the {kind} is empty")
        from vaultmem.memory import sessionextract  # not on the hooks' path

        entity_names = list(dict.fromkeys(links.safe_entity_name(e) for e in entities))
        if session_id is None and self.state.current(self.config.project) is None:
            self.start_session(now=now)
        sid, rel, continues = self._session(session_id, now)
        entity_links = self.entity_links(entity_names, posixpath.basename(posixpath.dirname(
            posixpath.dirname(rel))))
        body = said
        if why and _one_line(why):
            body += f" — why: {_one_line(self.config.redaction(why))}"
        item = f"- {body}"
        if entity_names:
            item += " (" + ", ".join(entity_links.values()) + ")"

        note = self.vault.read(rel)
        known = {f.key for f in facts.facts(note.text, stem="", note_type="session")}
        if facts.fact_key(facts.visible(body)) in known:
            return EntryResult(sid, rel, "unchanged", item, continues)
        have = {n.casefold() for n in sessionextract.related_entities(note.text)}
        edits: list[patch.Edit] = [
            patch.SectionPatch((REMEMBER_SECTIONS[kind],), "append", item, subtree=True,
                               create=True, prefer="first")
        ]
        for name in entity_names:
            if name.casefold() not in have:
                edits.append(
                    patch.SectionPatch(RELATED, "append", f"- {entity_links[name]}",
                                       subtree=True, create=True, prefer="first")
                )
        edits.extend(self._touch(now))
        result = self.vault.update(rel, edits, base=note, label=f"vaultmem remember {kind}")
        return EntryResult(sid, rel, result.status, item, continues)

    def entity_links(self, entity_names: Sequence[str], project: str) -> dict[str, str]:
        """Name -> the link to the entity compaction will file under (the project's, else the
        global one, else a new one in the project): bare when the name is unique in the vault,
        path-qualified with the name as alias when not (links.entity_link)."""
        if not entity_names:
            return {}
        from vaultmem.memory import compaction
        from vaultmem.notes import links

        notes = links.NoteIndex(self.vault.iter_notes())
        targets = compaction.entity_targets(entity_names, project, self.layout, notes)
        return {name: links.entity_link(name, targets[name], notes) for name in entity_names}

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
        def end(data: StateData) -> None:
            data.end(sid, now.isoformat(timespec="seconds"))
            data.prune(now)  # the state stays bounded: a SessionEnd pays for it

        self.state.update(end)
        if self._note_status(entry.note) in (None, "archived"):
            return EndResult(sid, entry.note, None, "archived", None)
        text = f"### {now:%H:%M} - Session End\n\nReason: {_one_line(reason) or 'other'}"
        edits = [patch.SectionPatch(WORK_LOG, "append", text, subtree=True, create=True,
                                    prefer="first"),
                 *self._touch(now),
                 # The size the Bases view shows, as of the end (not on every entry: a log only
                 # adds lines, and the note's frontmatter does not churn while Claude works).
                 patch.Rewrite(threshold.with_line_count)]
        written = self.vault.update(entry.note, edits)
        note = self.vault.read(entry.note)
        verdict = self._verdict(note, now.date())
        report = None
        if compact and verdict.due and len(note.raw) <= INLINE_COMPACT_BYTES and _list_lines(
                note.text) <= INLINE_COMPACT_ITEMS:
            report = self.compact_note(entry.note, extractor="deterministic", now=now)
        left = verdict.due and report is None and (
            frontmatter.parse(note.text, path=note.rel).get("status") != "compaction_failed")
        return EndResult(sid, entry.note, written.status, verdict.text, report, due=left)

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

    def _status(self, rel: str, today: date, limit: int | None = None) -> SessionStatus:
        """One note's line of ``status`` (see there for ``limit``)."""
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
            error = _one_line(str(meta.get("error") or "unknown error"))
            return SessionStatus(rel, note.lines, age, status, f"compaction failed: {error}", False)
        v = self._verdict(note, today)
        text = v.text
        if meta.get("archive_error"):
            text += f" (last archive: {_one_line(str(meta['archive_error']))})"
        return SessionStatus(rel, v.lines, v.age_days, status, text, v.due,
                             _list_lines(note.text))

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
            meta = frontmatter.parse(note.text, path=rel)
        except VaultmemError:
            return not self._recently_written(rel)
        entries = _LAST_ENTRY.findall(note.text)
        if entries and entries[-1].strip() == "Session End":
            return True
        host = meta.get(HOST)
        if isinstance(host, str) and host and host != machine.host_name():
            return False
        return not self._recently_written(rel)

    def _size(self, rel: str) -> int:
        try:
            return os.stat(self.vault.abspath(rel)).st_size
        except OSError:
            return 0

    def _recently_written(self, rel: str) -> bool:
        fingerprint = self.vault.fingerprint(rel)
        return fingerprint is not None and (
            time.time() - fingerprint.mtime_ns / 1e9 < LIVE_SECONDS)

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
        reports: list[CompactReport] = []
        stopped: str | None = None
        for n, rel in enumerate(order):
            if n and timer() - start >= budget:
                stopped = order[n - 1]
                break
            if self._archived_by_head(rel):
                continue  # most notes of a long-lived project: no YAML parsed, no body read
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
    ) -> CompactReport:
        """Compact one session note (DESIGN §5); every step idempotent. One compaction of a
        note at a time: another waits ``lock_timeout`` seconds, then reports ``busy``."""
        from vaultmem.memory.compactor import (
            CompactionRun,  # only when a note is compacted (see the docstring)
        )

        run = CompactionRun(self.vault, self.config, rel, dry_run=dry_run, force=force, move=move,
                            extractor=extractor or self.config.extractor, now=self._time(now),
                            session_text=self._session_text if self.transcripts else None)
        try:
            with self.vault.lock(rel + ".compaction", timeout=lock_timeout):
                return run.run()
        except LockTimeout:
            run.verdict_text = BUSY
            return run.report("busy", BUSY)


def _note_names(stem: str, sid: str) -> Iterator[str]:
    """Names to try for a new session note, most readable first; never runs out (1,100 runs of
    one prompt in a day lost the session after 1,000 numbered names)."""
    yield stem
    for n in range(2, NUMBERED_NAMES + 1):
        yield f"{stem}-{n}"
    short = names.slug(sid)[:12].strip("-") or "session"
    yield f"{stem}-{short}"
    for n in range(2, NUMBERED_NAMES + 1):
        yield f"{stem}-{short}-{n}"
    while True:
        yield f"{stem}-{secrets.token_hex(6)}"
