"""Use-cases of the session lifecycle and of compaction (the shell around compaction.py).

``Memory(config, vault)`` starts, logs to, decides in and ends session notes; its base
``Upkeep`` (``upkeep``) compacts them into entity notes and reports their status. Time comes from
``now`` or the injected clock; the disk only through :class:`~vaultmem.store.vault.Vault` and
:class:`~vaultmem.store.state.State`.
"""

from __future__ import annotations

import os
import posixpath
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import date, datetime
from typing import TYPE_CHECKING, Any

from vaultmem.errors import (
    InvalidYaml,
    NoteExists,
    NoteNotFound,
    SessionError,
    VaultmemError,
    WriteFailed,
)
from vaultmem.memory import bases, threshold
from vaultmem.memory.handover import HANDED_OVER, Deadline
from vaultmem.memory.sessionnames import first_words, new_topic, note_names, session_stem
from vaultmem.memory.upkeep import (
    INLINE_COMPACT_BYTES,
    INLINE_COMPACT_ITEMS,
    Upkeep,
    list_lines,
)
from vaultmem.notes import frontmatter, inline, propedit, redact, schema
from vaultmem.notes.schema import Kind
from vaultmem.store import machine
from vaultmem.store.layout import STATE_DIR, link_target
from vaultmem.store.state import SessionEntry, StateData
from vaultmem.store.vault import WriteStatus
from vaultmem.store.vaultread import HOOK_READ_BYTES, HOOK_READ_HEAD

if TYPE_CHECKING:
    from vaultmem.memory.reports import CompactReport  # built by compactor, only named here
    from vaultmem.notes import patch

WORK_LOG = (schema.WORK_LOG,)
RELATED = (schema.RELATED_ENTITIES,)
TITLE_WORDS = 8
# A session note past this size goes on in a note that continues it: every Stop and the
# SessionEnd parse the note they write to, and a 10,000-turn session's (2.8 MB) cost each of
# them seconds (SessionEnd is killed at ~1.5 s). The full note is compacted on its own.
ROLL_BYTES = 512 * 1024
ADOPT_HEAD = 4096  # what is read of a live note to find its session ids (its properties)



@dataclass(frozen=True)
class SessionResult:
    """The note a session writes to."""

    session_id: str
    note: str
    created: bool  # a new note was made
    resumed: bool  # an existing note continues
    continues: str | None = None  # the archived note a new note continues
    # The session's note that grew past ROLL_BYTES and was handed over: due for a compaction of
    # its own (detached), while the session goes on in ``note``.
    handed: str | None = None

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


def _new_session_id() -> str:
    import uuid  # hooks always bring Claude Code's session id: kept off their start-up

    return str(uuid.uuid4())


class Memory(Upkeep):
    """The use-cases over one vault for one configuration."""

    # -- sessions ---------------------------------------------------------------------------

    def start_session(
        self,
        session_id: str | None = None,
        *,
        topic: str | None = None,
        first_prompt: str | None = None,
        now: datetime | None = None,
        meta: Mapping[str, str] | None = None,
        touch: bool = True,
    ) -> SessionResult:
        """Make sure the session has a note: resume its note, or start one (DESIGN §1).

        Without a session id, the project's current session resumes while it is open (not
        ended): running ``session start`` twice writes one note, not two.

        ``meta``: flat frontmatter strings (``cwd``, ``git_branch``, ``git_head_start``...) a
        new note starts with (a resumed note keeps its own). ``touch=False``: a resumed note's
        ``claude_last_accessed`` is left to the caller's next write of it (one write, not two).
        """
        now = self._time(now)
        given = inline.one_line(session_id or "")
        if len(given) > 200:
            raise SessionError(f"session id longer than 200 characters: {given[:40]}…")

        def start(data: StateData) -> SessionResult:
            sid = given or self._open_current(data) or _new_session_id()
            return self._start(data, sid, topic, first_prompt, now, meta or {}, touch)

        return self.state.update(start)

    def _open_current(self, data: StateData) -> str | None:
        """The project's current session id while it is open, else None."""
        sid = data.current.get(self.config.project)
        entry = data.sessions.get(sid) if sid else None
        return sid if entry is not None and entry.ended is None else None

    def _start(self, data: StateData, sid: str, topic: str | None, first_prompt: str | None,
               now: datetime, meta: Mapping[str, str], touch: bool = True) -> SessionResult:
        entry = data.sessions.get(sid)
        if entry is None and (entry := self._adopted(data, sid)) is not None:
            data.set_session(entry)
        project = entry.project if entry else self.config.project
        continues: str | None = None
        handed: str | None = None
        if entry is not None:
            status = self._note_status(entry.note)
            if status not in (None, "archived") and self._size(entry.note) > ROLL_BYTES:
                handed = continues = entry.note  # grown too big to write in a hook: goes on anew
            elif status not in (None, "archived"):
                if touch:
                    from vaultmem.notes import patch  # a new session's start edits no note

                    self.vault.update(entry.note, [patch.SetProperty("claude_last_accessed", now.date())])
                data.reopen(sid)
                data.set_current(project, sid)
                return SessionResult(sid, entry.note, created=False, resumed=True)
            else:
                continues = self._archived_copy(entry.note, status)
            if not topic:
                topic = self._continued_topic(project, entry.note)
        self.ensure_index(project, now.date())
        rel = self._create_note(project, sid, topic, first_prompt, continues, now, meta)
        started = now.isoformat(timespec="seconds")
        # A continuation reads on where its session's transcript was read up to (offset, mark,
        # open private spans): its note does not hold the earlier turns, the continued one does.
        data.set_session(
            replace(entry, note=rel, project=project, started=started, ended=None)
            if entry else SessionEntry(sid, rel, project, started)
        )
        data.set_current(project, sid)
        return SessionResult(sid, rel, created=True, resumed=False, continues=continues,
                             handed=handed)

    def _adopted(self, data: StateData, sid: str) -> SessionEntry | None:
        """The live note that already records session ``sid`` when this machine's state lost
        it (deleted, set aside, a host renamed), or None. Looked for only while the state knows
        no session of the project: a folder listing and the head of each live note, once."""
        project = self.config.project
        if any(e.project == project for e in data.sessions.values()):
            return None
        folder = self.layout.sessions_dir(project)
        for name in sorted(self._names(folder)):
            rel = f"{folder}/{name}"
            if not name.endswith(".md"):
                continue
            try:
                head = self.vault.glimpse(rel, ADOPT_HEAD, ADOPT_HEAD).text
                meta = frontmatter.parse(head, path=rel) if sid in head else {}
            except VaultmemError:
                continue
            ids = meta.get("session_ids")
            if isinstance(ids, list) and sid in ids and meta.get("status") != "archived":
                return SessionEntry(sid, rel, project, str(meta.get("created") or ""))
        return None

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

        slug, title = new_topic(topic, first_prompt, self.config.redaction)
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
        from vaultmem.notes import templating  # a new note only

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
        stem = session_stem(self.vault, today, slug, sid)
        # The archive keeps the file name: a name taken there is taken too. Both folders are
        # listed once: trying each taken name with a create cost a lock and a write each.
        taken = self._names(self.layout.sessions_dir(project)) | self._names(
            self.layout.archive_dir(project))
        for name in note_names(stem, sid):
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
        from vaultmem.notes import templating

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
        heading = inline.one_line(title or "") or first_words(body, TITLE_WORDS)
        if not heading:
            raise SessionError("nothing to log: the text is empty")
        entry = f"### {now:%H:%M} - {heading}"
        if body and (title or inline.one_line(body) != heading):
            entry += "\n\n" + inline.escape_headings(body)
        sid, rel, continues = self._session(session_id, now)
        from vaultmem.notes import patch  # a new session's start edits no note

        edits: list[patch.Edit] = [
            patch.SectionPatch(WORK_LOG, "append", entry, subtree=True, create=True,
                               prefer="first"),
            *self._touch(now),
        ]
        result = self.vault.update(rel, edits)
        return EntryResult(sid, rel, result.status, entry, continues)

    @staticmethod
    def _touch(now: datetime) -> list[patch.Edit]:
        from vaultmem.notes import patch  # a new session's start edits no note

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
        return self.remember(text, kind=Kind.DECISION, why=why, entities=entities,
                             session_id=session_id, now=now)

    def remember(
        self,
        text: str,
        *,
        kind: str = Kind.DECISION,
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
        try:
            which = schema.kind(kind)  # either spelling of a kind (``next-step``, ``next_step``)
        except ValueError as err:
            raise SessionError(str(err)) from None
        # A secret in what is remembered is redacted as capture redacts it (config ``redact``);
        # what Obsidian would act on (a comment, an embed, a link out of the vault) is inert.
        said = inline.block_safe(inline.inert(inline.one_line(self.config.redaction(text))))
        if not said:
            raise SessionError(f"nothing to remember: the {which} is empty")
        if redact.says_only_secret(said):  # it would brief as "the password is ‹redacted›"
            raise SessionError(f"nothing to remember: the {which} only gives a secret's value, "
                               "and vaultmem keeps no secrets (keep it in a password manager)")
        from vaultmem.memory import sessionextract  # not on the hooks' path

        entity_names = list(dict.fromkeys(links.safe_entity_name(e) for e in entities))
        if session_id is None and self.state.current(self.config.project) is None:
            self.start_session(now=now)
        sid, rel, continues = self._session(session_id, now)
        entity_links = self.entity_links(entity_names, posixpath.basename(posixpath.dirname(
            posixpath.dirname(rel))))
        body = said
        if why and inline.one_line(why):
            body += f" — why: {inline.inert(inline.one_line(self.config.redaction(why)))}"
        item = f"- {body}"
        if entity_names:
            item += " (" + ", ".join(entity_links.values()) + ")"

        note = self.vault.read(rel)
        known = {f.key for f in facts.facts(note.text, stem="", note_type="session")}
        if facts.fact_key(facts.visible(body)) in known:
            return EntryResult(sid, rel, "unchanged", item, continues)
        have = {n.casefold() for n in sessionextract.related_entities(note.text)}
        from vaultmem.notes import patch  # a new session's start edits no note

        edits: list[patch.Edit] = [
            patch.SectionPatch((schema.SESSION_SECTION[which],), "append", item, subtree=True,
                               create=True, prefer="first")
        ]
        for name in entity_names:
            if name.casefold() not in have:
                edits.append(
                    patch.SectionPatch(RELATED, "append", f"- {entity_links[name]}",
                                       subtree=True, create=True, prefer="first")
                )
        edits.extend(self._touch(now))
        result = self.vault.update(rel, edits, base=note, label=f"vaultmem remember {which}")
        return EntryResult(sid, rel, result.status, item, continues)

    def entity_links(self, entity_names: Sequence[str], project: str) -> dict[str, str]:
        """Name -> the link to the entity compaction will file under (the project's, else the
        global one, else a new one in the project), by path with the name as alias
        (links.entity_link)."""
        if not entity_names:
            return {}
        from vaultmem.memory import compaction
        from vaultmem.notes import links

        notes = links.NoteIndex(self.vault.iter_notes())
        targets = compaction.entity_targets(entity_names, project, self.layout, notes)
        return {name: links.entity_link(name, targets[name]) for name in entity_names}

    def end_session(
        self,
        *,
        reason: str = "manual",
        compact: bool = True,
        session_id: str | None = None,
        now: datetime | None = None,
        first_edits: Sequence[patch.Edit] = (),
        compact_by: float | None = None,
    ) -> EndResult:
        """Close the session: ``### HH:MM - Session End`` entry (in one write after
        ``first_edits``), then compaction when due. ``compact_by`` (a ``time.monotonic()``
        value, a hook's deadline): what would not be done by then is left ``due`` (handover)."""
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
        text = f"### {now:%H:%M} - Session End\n\nReason: {inline.one_line(reason) or 'other'}"
        from vaultmem.notes import patch  # a new session's start edits no note

        # The properties first, beside ``first_edits``'s: one run, set in one read of the
        # frontmatter (the entry only adds to the body: the order changes no byte).
        edits = [*first_edits, *self._touch(now),
                 patch.SectionPatch(WORK_LOG, "append", text, subtree=True, create=True,
                                    prefer="first"),
                 # The size the Bases view shows, as of the end (not on every entry: a log only
                 # adds lines, and the note's frontmatter does not churn while Claude works).
                 patch.Rewrite(threshold.with_line_count)]
        written = self.vault.update(entry.note, edits)
        note = self.vault.read(entry.note)
        verdict = self._verdict(note, now.date())
        report = None
        if compact and verdict.due and len(note.raw) <= INLINE_COMPACT_BYTES and list_lines(
                note.text) <= INLINE_COMPACT_ITEMS:
            report = self._compact_by(entry.note, compact_by, now)
        left = verdict.due and (report is None or report.status == HANDED_OVER) and (
            frontmatter.parse(note.text, path=note.rel).get("status") != "compaction_failed")
        return EndResult(sid, entry.note, written.status, verdict.text, report, due=left)

    def _compact_by(self, rel: str, at: float | None, now: datetime) -> CompactReport | None:
        """The note compacted inline, or as far as ``at`` allows (None: not even begun)."""
        if at is None:
            return self.compact_note(rel, extractor="deterministic", now=now)
        deadline = Deadline(at)
        if deadline.passed():
            return None
        return self.compact_note(rel, extractor="deterministic", now=now, deadline=deadline)
