"""Tool state of this machine in ``.vaultmem/hosts/<host>/state.json``: which note each Claude
session writes to, which transcript lines were ingested, and the current session of each project.

The state belongs to one machine (see ``machine``): a vault shared through git or a sync tool has
one state file per host, never committed, so two machines never rewrite the same file. What a
machine that never saw a session needs (its id, whether it ended) is in the session note itself.
A ``.vaultmem/state.json`` of an older vaultmem is moved into this host's folder on first use.

Every change is a read-modify-write under a file lock (``.vaultmem/locks/state.lock``) and an
atomic replace, so concurrent hooks never lose each other's updates. A corrupt file never stops a
session: it is moved aside to ``state.json.corrupt-<timestamp>``, state starts empty and
:attr:`State.warnings` says so. The state stays small whatever the sessions' length and number
(MAX_INGESTED uuids a session, pruned by any hook past KEEP_ENDED sessions); a file past
MAX_STATE_BYTES is set aside unread, as a corrupt one.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import filelock

from vaultmem import clock
from vaultmem.errors import LockTimeout, UnsafePath, WriteFailed
from vaultmem.notes import jsontext
from vaultmem.store import machine, safefs
from vaultmem.store.atomic import replace_file
from vaultmem.store.locks import TurnLock

if TYPE_CHECKING:
    from vaultmem.store.vault import Vault

T = TypeVar("T")
VERSION = 1
STATE_FILE = "state.json"
LEGACY_SUFFIX = ".migrated"  # an older shared state.json, once moved into a host's folder
STATE_MODE = 0o600  # session ids and note paths: for the vault's owner
# What the state keeps of ended sessions (it was never pruned: 42 MB after months, every Stop
# and SessionEnd reading and writing all of it). The newest KEEP_INGESTED ended sessions keep
# their line uuids for INGESTED_DAYS (a fork of one of them is not recorded twice: see
# ``project_uuids``); older ones keep where their transcript was read up to (a resume reads on
# from there); ended sessions past the newest KEEP_ENDED or older than ENDED_DAYS are forgotten
# (a resume after that starts a new note). An open session is never pruned, unless it was
# started STALE_DAYS ago and is no project's current one (its SessionEnd never ran).
INGESTED_DAYS = 7
KEEP_INGESTED = 20
ENDED_DAYS = 30
KEEP_ENDED = 200
STALE_DAYS = 30
# Bounded whatever a session's length: a session keeps the line uuids of its newest records
# only (the transcript is read on from ``last_offset``; the uuids guard the lines around it and
# a fork's copies), 40,000 of a 10,000-turn session made every Stop rewrite 3 MB.
MAX_INGESTED = 2000
# The state is pruned inside whichever hook finds it past KEEP_ENDED by this many sessions, not
# only at a SessionEnd (which may never run).
PRUNE_SLACK = 20
# A state file past this size was not written by this vaultmem (pruned, it stays well below):
# parsing it would cost a hook seconds and hundreds of MB, so it is set aside unread and the
# state rebuilt from the session notes.
MAX_STATE_BYTES = 8 * 1024 * 1024
UNKNOWN_KINDS = 20  # kinds of unknown transcript lines counted per session


@dataclass(frozen=True)
class SessionEntry:
    """One Claude session: the note it writes to and what of its transcript is in the note."""

    session_id: str
    note: str  # vault-relative path of the session note
    project: str
    started: str  # ISO datetime
    ingested: frozenset[str] = frozenset()  # transcript line uuids already in the note
    last_offset: int | None = None  # byte offset of the transcript read so far, when known
    ended: str | None = None  # ISO datetime of its end (SessionEnd, ``session end``); None: open
    transcript: str | None = None  # the transcript file ``last_offset`` is an offset into
    # <private> spans left open at ``last_offset`` by the (user, assistant) messages before it
    private: tuple[int, int] = (0, 0)
    mark: str = ""  # the hash of the transcript's bytes before ``last_offset`` (transcript.read)
    # Transcript lines of a kind vaultmem does not know, skipped: kind -> lines (at most
    # UNKNOWN_KINDS kinds; the catalogue in claude/records.py)
    unknown: tuple[tuple[str, int], ...] = ()


@dataclass
class StateData:
    """The whole state, mutable only inside :meth:`State.update`."""

    sessions: dict[str, SessionEntry] = field(default_factory=dict)
    current: dict[str, str] = field(default_factory=dict)  # project -> session id
    # project -> the session note the last look for pending compactions stopped after
    scans: dict[str, str] = field(default_factory=dict)

    def set_session(self, entry: SessionEntry) -> None:
        """Add or replace a session entry."""
        self.sessions[entry.session_id] = entry

    def set_current(self, project: str, session_id: str) -> None:
        """Make ``session_id`` the project's current session."""
        self.current[project] = session_id

    def clear_current(self, project: str, session_id: str) -> None:
        """Forget the project's current session if it is ``session_id``."""
        if self.current.get(project) == session_id:
            del self.current[project]

    def set_scan(self, project: str, note: str | None) -> None:
        """Where the project's look for pending compactions goes on (None: from the start)."""
        if note is None:
            self.scans.pop(project, None)
        else:
            self.scans[project] = note

    def forget(self, session_id: str) -> None:
        """Drop a session (its note was removed): as if it had never started."""
        entry = self.sessions.pop(session_id, None)
        if entry is not None:
            self.clear_current(entry.project, session_id)

    def end(self, session_id: str, when: str) -> None:
        """Record that the session ended (it is no longer its project's current session)."""
        entry = self.sessions[session_id]
        self.clear_current(entry.project, session_id)
        self.sessions[session_id] = replace(entry, ended=when)

    def prune(self, now: datetime) -> None:
        """Forget what ended sessions no longer need (see INGESTED_DAYS ... STALE_DAYS)."""
        now = now if now.tzinfo else now.astimezone()
        current = set(self.current.values())
        ended: list[tuple[datetime, str]] = []
        for sid, entry in list(self.sessions.items()):
            if entry.ended is None:
                if sid not in current and _days(now, entry.started) > STALE_DAYS:
                    del self.sessions[sid]
                continue
            ended.append((_when(entry.ended) or datetime.min.replace(tzinfo=now.tzinfo), sid))
        ended.sort(reverse=True)
        for rank, (_, sid) in enumerate(ended):
            entry = self.sessions[sid]
            days = _days(now, entry.ended or "")
            if rank >= KEEP_ENDED or days > ENDED_DAYS:
                del self.sessions[sid]
            elif entry.ingested and (rank >= KEEP_INGESTED or days > INGESTED_DAYS):
                self.sessions[sid] = replace(entry, ingested=frozenset())

    def reopen(self, session_id: str) -> None:
        """A resumed session is open again."""
        entry = self.sessions[session_id]
        if entry.ended is not None:
            self.sessions[session_id] = replace(entry, ended=None)

    def mark_ingested(
        self,
        session_id: str,
        uuids: Iterable[str],
        *,
        last_offset: int | None = None,
        transcript: str | None = None,
        private: tuple[int, int] | None = None,
        mark: str | None = None,
    ) -> None:
        """Record transcript line uuids (and the offset of ``transcript`` read up to, with the
        private spans open there and the mark of the bytes before it) as ingested."""
        entry = self.sessions[session_id]
        offset = entry.last_offset if last_offset is None else last_offset
        self.sessions[session_id] = replace(
            entry, ingested=_newest(entry.ingested, frozenset(uuids)), last_offset=offset,
            transcript=transcript or entry.transcript,
            private=entry.private if private is None else private,
            mark=entry.mark if mark is None else mark,
        )

    def count_unknown(self, session_id: str, kinds: Iterable[str]) -> None:
        """Count transcript lines of kinds vaultmem skipped as unknown (one per line)."""
        counts = dict(self.sessions[session_id].unknown)
        for kind in kinds:
            if kind in counts or len(counts) < UNKNOWN_KINDS:
                counts[kind] = counts.get(kind, 0) + 1
        self.sessions[session_id] = replace(self.sessions[session_id],
                                            unknown=tuple(sorted(counts.items())))

    def project_uuids(self, project: str, own: frozenset[str]) -> frozenset[str]:
        """``own`` and the line uuids every other session of ``project`` the state still holds
        recorded (bounded by pruning: see INGESTED_DAYS, KEEP_INGESTED)."""
        others = [e.ingested for e in self.sessions.values() if e.project == project
                  and e.ingested and e.ingested is not own]
        return own.union(*others) if others else own

    def resume_offset(self, session_id: str, transcript: str) -> int:
        """Where to go on reading ``transcript`` for the session (0: from the start)."""
        entry = self.sessions[session_id]
        if entry.transcript != transcript or entry.last_offset is None:
            return 0
        return entry.last_offset

    def to_json(self) -> dict[str, Any]:
        """The JSON document (sorted, so an unchanged state serialises to the same bytes)."""
        return {
            "version": VERSION,
            "sessions": {
                sid: {
                    "note": e.note,
                    "project": e.project,
                    "started": e.started,
                    "ingested": sorted(e.ingested),
                    "last_offset": e.last_offset,
                    **({"ended": e.ended} if e.ended else {}),
                    **({"transcript": e.transcript} if e.transcript else {}),
                    **({"private": list(e.private)} if any(e.private) else {}),
                    **({"mark": e.mark} if e.mark else {}),
                    **({"unknown": dict(e.unknown)} if e.unknown else {}),
                }
                for sid, e in sorted(self.sessions.items())
            },
            "current": dict(sorted(self.current.items())),
            **({"scans": dict(sorted(self.scans.items()))} if self.scans else {}),
        }


def _newest(old: frozenset[str], new: frozenset[str]) -> frozenset[str]:
    """``old | new`` cut to MAX_INGESTED, ``new`` first (a set keeps no order beyond that)."""
    if len(old) + len(new) <= MAX_INGESTED:
        return old | new
    if len(new) >= MAX_INGESTED:
        return frozenset(sorted(new)[:MAX_INGESTED])
    room = MAX_INGESTED - len(new)
    return new | frozenset(sorted(old - new)[:room])


def _when(stamp: str) -> datetime | None:
    try:
        when = datetime.fromisoformat(stamp)
    except ValueError:
        return None
    return when if when.tzinfo else when.astimezone()


def _days(now: datetime, stamp: str) -> float:
    """Days from ``stamp`` (ISO) to ``now``; an unreadable stamp is older than anything."""
    when = _when(stamp)
    return float("inf") if when is None else (now - when).total_seconds() / 86400


def _entry(sid: str, raw: Any) -> SessionEntry:
    if not isinstance(raw, dict):
        raise TypeError(f"session {sid!r} is not an object")
    note, project, started = raw.get("note"), raw.get("project"), raw.get("started", "")
    if not isinstance(note, str) or not isinstance(project, str) or not isinstance(started, str):
        raise TypeError(f"session {sid!r} lacks note/project")
    ingested = raw.get("ingested") or []
    offset = raw.get("last_offset")
    if not isinstance(ingested, list) or not all(isinstance(u, str) for u in ingested):
        raise TypeError(f"session {sid!r}: ingested is not a list of strings")
    if offset is not None and (not isinstance(offset, int) or isinstance(offset, bool)):
        raise TypeError(f"session {sid!r}: last_offset is not an integer")
    ended = raw.get("ended")
    if ended is not None and not isinstance(ended, str):
        raise TypeError(f"session {sid!r}: ended is not a string")
    transcript = raw.get("transcript")
    if transcript is not None and not isinstance(transcript, str):
        raise TypeError(f"session {sid!r}: transcript is not a string")
    private = raw.get("private") or [0, 0]
    if (not isinstance(private, list) or len(private) != 2
            or not all(isinstance(d, int) and not isinstance(d, bool) and d >= 0
                       for d in private)):
        raise TypeError(f"session {sid!r}: private is not two counts")
    mark = raw.get("mark") or ""
    if not isinstance(mark, str):
        raise TypeError(f"session {sid!r}: mark is not a string")
    unknown = raw.get("unknown") or {}
    if not isinstance(unknown, dict) or not all(
            isinstance(n, int) and not isinstance(n, bool) for n in unknown.values()):
        raise TypeError(f"session {sid!r}: unknown is not an object of counts")
    return SessionEntry(sid, note, project, started, frozenset(ingested), offset, ended,
                        transcript, (private[0], private[1]), mark,
                        tuple(sorted((str(k), n) for k, n in unknown.items())))


def from_json(doc: Any) -> StateData:
    """Parse the JSON document; TypeError when its shape is wrong."""
    if not isinstance(doc, dict):
        raise TypeError("state is not a JSON object")
    sessions, current = doc.get("sessions", {}), doc.get("current", {})
    if not isinstance(sessions, dict) or not isinstance(current, dict):
        raise TypeError("state has no sessions/current objects")
    data = StateData()
    for sid, raw in sessions.items():
        data.sessions[str(sid)] = _entry(str(sid), raw)
    for project, sid in current.items():
        if not isinstance(sid, str):
            raise TypeError(f"current session of {project!r} is not a string")
        data.current[str(project)] = sid
    scans = doc.get("scans", {})
    if not isinstance(scans, dict) or not all(isinstance(v, str) for v in scans.values()):
        raise TypeError("state's scans is not an object of strings")
    data.scans.update((str(k), v) for k, v in scans.items())
    return data


def rebuild(vault: Vault) -> StateData:
    """Session ids -> notes, read back from the session notes' ``session_ids`` properties.

    What cannot be read back is which transcript lines were recorded: the transcript is read
    again, and the ingest leaves out the turns the note holds already (recordsteps)."""
    from vaultmem.errors import VaultmemError
    from vaultmem.notes.frontmatter import parse

    data = StateData()
    root = f"{vault.layout.namespace}/projects"
    for rel in vault.iter_notes(root):
        parts = rel.split("/")
        if len(parts) != 5 or parts[3] != "sessions":
            continue  # only live session notes: <ns>/projects/<p>/sessions/<name>.md
        try:
            meta = parse(vault.read(rel).text, path=rel)
        except VaultmemError:
            continue
        ids = meta.get("session_ids")
        if meta.get("status") == "archived" or not isinstance(ids, list):
            continue
        started = str(meta.get("created") or "")
        for sid in ids:
            if isinstance(sid, str) and sid:
                data.set_session(SessionEntry(sid, rel, parts[2], started))
    return data


class State:
    """``.vaultmem/state.json`` of one vault."""

    def __init__(
        self,
        vault: Vault,
        *,
        clock_now: Callable[[], datetime] = clock.now,
        timeout: float = 10.0,
    ) -> None:
        self.vault = vault
        self.dir: Path = vault.state_dir
        self.path = machine.host_dir(self.dir) / STATE_FILE
        self.legacy = self.dir / STATE_FILE  # where vaultmem before per-host state kept it
        self._now = clock_now
        self._timeout = timeout
        self.warnings: list[str] = []

    def _lock(self) -> TurnLock:
        return TurnLock(machine.own_dir(self.dir, "locks") / "state.lock")

    def _read(self) -> StateData:
        try:
            raw = safefs.read_bytes(self.path, MAX_STATE_BYTES + 1)
        except FileNotFoundError:
            return self._migrate()
        except OSError as err:
            raise WriteFailed(f"cannot read state: {err.strerror}", path=self.path) from None
        if len(raw) > MAX_STATE_BYTES:
            return self._set_aside(f"over {MAX_STATE_BYTES // 2**20} MB, not read")
        try:
            return from_json(jsontext.loads(raw.decode("utf-8")))
        except (ValueError, TypeError) as err:  # bad JSON, bad UTF-8, bad shape
            return self._set_aside(str(err))

    def _migrate(self) -> StateData:
        """Move a shared ``.vaultmem/state.json`` into this host's folder (under the lock)."""
        try:
            raw = safefs.read_bytes(self.legacy, MAX_STATE_BYTES + 1)
        except (OSError, UnsafePath):
            return StateData()
        if len(raw) > MAX_STATE_BYTES:
            return self._set_aside(f"over {MAX_STATE_BYTES // 2**20} MB, not read", self.legacy)
        try:
            data = from_json(jsontext.loads(raw.decode("utf-8")))
        except (ValueError, TypeError) as err:
            data = self._set_aside(str(err), self.legacy)
        else:
            with contextlib.suppress(OSError):  # read-only: this host's file wins from now on
                os.replace(self.legacy, self.legacy.with_name(STATE_FILE + LEGACY_SUFFIX))
        self._write(data)
        return data

    def _set_aside(self, why: str, path: Path | None = None) -> StateData:
        path = path or self.path
        stamp = self._now().strftime("%Y%m%dT%H%M%S")
        aside = path.with_name(f"{STATE_FILE}.corrupt-{stamp}")
        n = 1
        while aside.exists():
            n += 1
            aside = path.with_name(f"{STATE_FILE}.corrupt-{stamp}-{n}")
        try:
            os.replace(path, aside)
        except OSError:
            pass  # someone else moved it first; starting empty is still right
        data = rebuild(self.vault)
        self.warnings.append(
            f"{path}: corrupt state ({why.splitlines()[0] if why else 'unreadable'}); "
            f"moved aside to {aside.name}, rebuilt {len(data.sessions)} sessions from the notes"
        )
        return data

    def _write(self, data: StateData) -> None:
        text = json.dumps(data.to_json(), indent=1, ensure_ascii=False) + "\n"
        payload = jsontext.clean(text).encode()
        try:
            replace_file(self.path, payload, STATE_MODE)
        except OSError as err:
            raise WriteFailed(f"cannot write state: {err.strerror}", path=self.path) from None

    def load(self) -> StateData:
        """A snapshot of the state (a corrupt file is set aside under the lock)."""
        if not self.path.exists() and not self.legacy.exists():
            return StateData()
        return self.update(lambda data: data)

    def get(self, session_id: str) -> SessionEntry | None:
        """The entry of one session, or None."""
        return self.load().sessions.get(session_id)

    def current(self, project: str) -> str | None:
        """The project's current session id, or None."""
        return self.load().current.get(project)

    def _acquired(self) -> TurnLock:
        """The state lock, taken; a read-only vault or a busy lock is a one-line error."""
        try:
            machine.own_dir(self.dir, machine.HOSTS_DIR, self.path.parent.name)
            lock = self._lock()
            lock.acquire(self._timeout)
        except filelock.Timeout:
            raise LockTimeout("state is locked by another process", path=self.path) from None
        except OSError as err:
            raise WriteFailed(
                f"cannot take the state lock: {err.strerror}", path=self.dir / "locks" / "state.lock"
            ) from None
        return lock

    def update(self, fn: Callable[[StateData], T]) -> T:
        """Run ``fn`` on the state under the lock and save what it changed; returns fn's result."""
        lock = self._acquired()
        try:
            data = self._read()
            before = data.to_json()
            result = fn(data)
            if len(data.sessions) > KEEP_ENDED + PRUNE_SLACK:
                data.prune(self._now())
            if data.to_json() != before:
                self._write(data)
            return result
        finally:
            lock.release()
