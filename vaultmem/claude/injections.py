"""What vaultmem put into Claude's context, and why: one JSON line per injection (DESIGN §12).

The log lives in this machine's folder of ``.vaultmem/`` (``injections.jsonl``, as private as
``state.json``). Each line: the session, the hook event, the characters injected, the reason, the
keys of the facts given (so a fact is never told twice in one session) and when. ``vaultmem
status`` reads it back. Appends are one ``write`` of one line under ``O_APPEND``; past
``MAX_BYTES`` the older half is dropped with an atomic replace, so the log stays small.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from vaultmem.store import atomic, machine, safefs

LOG_FILE = "injections.jsonl"
MAX_BYTES = 256 * 1024
LOG_MODE = 0o600  # session ids and what was told: for the vault's owner
MAX_KEYS = 120  # keys kept per line: a briefing's 8,000 characters hold fewer facts
BRIEFING = "briefing"  # how a SessionStart briefing's reason starts


@dataclass(frozen=True)
class Injection:
    """One injection into Claude's context."""

    session: str
    event: str  # Claude Code's event name: SessionStart, UserPromptSubmit, PostToolUseFailure
    chars: int
    reason: str  # one line: what was told and what it answered
    keys: tuple[str, ...] = ()  # the facts given (fact keys), for "never twice"
    at: str = ""  # ISO time
    project: str = ""

    def to_json(self) -> dict[str, object]:
        """The log line's fields."""
        return {"session": self.session, "event": self.event, "chars": self.chars,
                "reason": self.reason, "keys": list(self.keys[:MAX_KEYS]), "at": self.at,
                "project": self.project}


def log_path(state_dir: Path) -> Path:
    """Where this machine's injection log is (it need not exist)."""
    return machine.host_dir(state_dir) / LOG_FILE


def _from_json(raw: object) -> Injection | None:
    if not isinstance(raw, dict):
        return None
    session, event, chars = raw.get("session"), raw.get("event"), raw.get("chars")
    if not (isinstance(session, str) and isinstance(event, str) and isinstance(chars, int)):
        return None
    keys = raw.get("keys")
    return Injection(session, event, chars, str(raw.get("reason") or ""),
                     tuple(str(k) for k in keys) if isinstance(keys, list) else (),
                     str(raw.get("at") or ""), str(raw.get("project") or ""))


def read(state_dir: Path) -> list[Injection]:
    """Every injection logged on this machine, oldest first; [] without a log. A line that does
    not parse (cut short by a crash) is skipped."""
    try:
        data = safefs.read_bytes(log_path(state_dir), limit=2 * MAX_BYTES)
    except (OSError, ValueError):
        return []
    found = []
    for line in data.decode("utf-8", "replace").splitlines():
        try:
            item = _from_json(json.loads(line))
        except ValueError:
            continue
        if item is not None:
            found.append(item)
    return found


def given(state_dir: Path, session: str, *, briefing: bool = True) -> set[str]:
    """The keys of the facts already given to ``session``; without those of its briefing when
    not ``briefing`` (the failure hook tells a fix when the failure comes, even if the
    briefing listed it among many at the start)."""
    return {key for item in read(state_dir) if item.session == session
            and (briefing or not item.reason.startswith(BRIEFING)) for key in item.keys}


def record(state_dir: Path, injection: Injection) -> None:
    """Append ``injection`` to the log (OSError when the state folder cannot be written)."""
    folder = safefs.real_dirs(machine.ensure_state_dir(state_dir), machine.HOSTS_DIR,
                              machine.host_name())
    path = folder / LOG_FILE
    line = (json.dumps(injection.to_json(), ensure_ascii=False) + "\n").encode("utf-8")
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | getattr(os, "O_NOFOLLOW", 0),
                 LOG_MODE)
    try:
        os.write(fd, line)
        size = os.fstat(fd).st_size
    finally:
        os.close(fd)
    if size > MAX_BYTES:
        _halve(path)


def _halve(path: Path) -> None:
    """Keep the newer half of the log's lines (whole lines only)."""
    lines = safefs.read_bytes(path).splitlines(keepends=True)
    atomic.replace_file(path, b"".join(lines[len(lines) // 2:]), mode=LOG_MODE)


@dataclass(frozen=True)
class SessionInjections:
    """What one session was given: its injections, oldest first, and their characters."""

    session: str
    current: bool
    items: tuple[Injection, ...]

    @property
    def chars(self) -> int:
        """The characters injected into the session in all."""
        return sum(item.chars for item in self.items)

    def to_json(self) -> dict[str, object]:
        """A JSON-ready dict."""
        return {"session": self.session, "current": self.current, "chars": self.chars,
                "injections": [item.to_json() for item in self.items]}


def by_session(items: Sequence[Injection], project: str, current: str | None, last: int = 2
               ) -> list[SessionInjections]:
    """The injections of ``project``'s current session (when it has any) and of the sessions
    before it, newest first, at most ``last`` sessions."""
    grouped: dict[str, list[Injection]] = {}
    latest: dict[str, int] = {}  # the log is in time order: a session's last line
    for n, item in enumerate(items):
        if item.project == project:
            grouped.setdefault(item.session, []).append(item)
            latest[item.session] = n
    newest = sorted(grouped, key=latest.__getitem__, reverse=True)
    if current is not None and current in grouped:
        newest.remove(current)
        newest.insert(0, current)
    return [SessionInjections(sid, sid == current, tuple(grouped[sid])) for sid in newest[:last]]


def now_iso(now: datetime) -> str:
    """The log's time stamp of ``now``."""
    return now.isoformat(timespec="seconds")
