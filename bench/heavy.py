"""Hooks on huge sessions (issue 30 §8): a Stop and a SessionEnd of a 10,000-turn session, and a
Stop that finds a 42 MB ``state.json``, with the import floor beside them.

The 10,000-turn session is ingested once, untimed, by a first Stop (its note is 2.8 MB); the
timed Stop adds one turn. A note past ``sessions.ROLL_BYTES`` goes on in a note continuing it, so
neither hook parses the whole session; the full note is archived by a detached compaction,
which each SessionEnd run waits for (untimed). The 42 MB state is planted before each run; the
hook sets it aside unread and rebuilds the state from the notes.
"""

from __future__ import annotations

import json
import os
import time
import uuid
from pathlib import Path
from typing import TYPE_CHECKING

from .runner import Case, Sample, Workspace, run_command

if TYPE_CHECKING:
    from .cases import VaultmemEnv

TURNS = 10_000
STATE_MB = 42
PY_IMPORT_FLOOR = "import yaml, markdown_it, filelock"


def _line(sid: str, kind: str, content: object) -> str:
    return json.dumps({"type": kind, "uuid": str(uuid.uuid4()), "sessionId": sid,
                       "cwd": "/home/dev/shop", "timestamp": "2026-11-22T09:00:00Z",
                       "message": {"role": kind, "content": content}})


def _turn(sid: str, i: int) -> str:
    """One turn: a prompt, a command and its result, an answer with a decision."""
    return "\n".join([
        _line(sid, "user", f"Step {i}: make the retry loop handle case {i}"),
        _line(sid, "assistant", [{"type": "tool_use", "id": f"t{i}", "name": "Bash",
                                  "input": {"command": f"pytest -q tests/test_{i % 50}.py"}}]),
        _line(sid, "user", [{"type": "tool_result", "tool_use_id": f"t{i}",
                             "content": f"{i} passed", "is_error": False}]),
        _line(sid, "assistant", [{"type": "text", "text":
                                  f"Done. Decision: keep retry number {i} because case {i} "
                                  "needs it."}]),
    ]) + "\n"


class _Session:
    """The 10,000-turn session, ingested once (untimed) by a first Stop."""

    def __init__(self, env: VaultmemEnv, ws: Workspace) -> None:
        self.env = env
        self.sid = str(uuid.uuid4())
        self.transcript = ws.path("heavy") / "transcript.jsonl"
        self.turns = 0
        self.template = ""

    def payload(self, event: str, sid: str | None = None, transcript: Path | None = None,
                **extra: str) -> bytes:
        return json.dumps({"session_id": sid or self.sid,
                           "transcript_path": str(transcript or self.transcript),
                           "cwd": str(self.env.cwd), "hook_event_name": event, **extra}).encode()

    def ready(self) -> None:
        if self.template:
            return
        with self.transcript.open("w", encoding="utf-8") as out:
            for i in range(TURNS):
                out.write(_turn(self.sid, i))
        self.turns = TURNS
        self.env.vaultmem("hook", "stop", stdin=self.payload("Stop"))
        entry = self.env.memory().state.get(self.sid)
        self.template = (self.env.root / entry.note).read_text(encoding="utf-8")

    def add_turn(self) -> None:
        with self.transcript.open("a", encoding="utf-8") as out:
            out.write(_turn(self.sid, self.turns))
        self.turns += 1


def heavy_cases(env: VaultmemEnv, ws: Workspace) -> list[Case]:
    """The rows: Stop and SessionEnd of a 10,000-turn session, Stop on a 42 MB state."""
    from .cases import PY, VAULTMEM, _wait_for

    session = _Session(env, ws)

    def stop() -> Sample:
        session.ready()
        session.add_turn()
        return env.vaultmem("hook", "stop", stdin=session.payload("Stop"))

    def session_end() -> Sample:
        session.ready()
        sid = str(uuid.uuid4())
        memory = env.memory()
        rel = memory.start_session(sid, topic=f"heavy end {sid[:8]}").note
        note = env.root / rel
        note.write_text(session.template.replace(session.sid, sid), encoding="utf-8")
        written = time.time() - 60  # as the session's Stops left it
        os.utime(note, (written, written))
        small = ws.path("heavy") / f"{sid}.jsonl"
        small.write_text(_turn(sid, 0), encoding="utf-8")
        sample = run_command([*VAULTMEM, "hook", "session-end"], env=env.env, cwd=env.cwd,
                             stdin=session.payload("SessionEnd", sid, small, reason="other"))
        entry = memory.state.get(sid)
        if entry is None or entry.ended is None or entry.note == rel:
            raise RuntimeError(f"{rel}: the session did not end in a note continuing it "
                               f"({entry})")
        _wait_for(lambda: env.status_of(rel) == "archived", f"{rel}: detached compaction",
                  seconds=600)
        return sample

    def planted_state() -> Sample:
        from vaultmem.store import machine

        path = machine.host_dir(env.root / ".vaultmem") / "state.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        entry = ('"s{n:07d}": {{"note": "a{n}.md", "project": "shop", "started": '
                 '"2026-01-01T00:00:00", "ended": "2026-01-02T00:00:00", '
                 '"ingested": ["' + "x" * 36 + '"]}}')
        count = STATE_MB * 2**20 // len(entry.format(n=0))
        with path.open("w", encoding="utf-8") as out:
            out.write('{"version": 1, "sessions": {')
            out.write(",".join(entry.format(n=n) for n in range(count)))
            out.write('}, "current": {}}')
        sid = str(uuid.uuid4())
        small = ws.path("heavy") / f"{sid}.jsonl"
        small.write_text(_turn(sid, 0), encoding="utf-8")
        sample = env.vaultmem("hook", "stop", stdin=session.payload("Stop", sid, small))
        if path.stat().st_size > 2**20:
            raise RuntimeError(f"{path}: still {path.stat().st_size:,} bytes after the hook")
        return sample

    return [
        Case(f"floor: {PY_IMPORT_FLOOR} (beside the huge session and state rows)", "floor",
             lambda: run_command([PY, "-c", PY_IMPORT_FLOOR]),
             note="interpreter start + vaultmem's parsing dependencies"),
        Case(f"hook stop: huge session, one new turn after {TURNS:,}", "vaultmem", stop,
             note="the 2.8 MB note goes on in a note continuing it; read on from the offset"),
        Case(f"hook session-end: huge session, {TURNS:,} turns (2.8 MB note)", "vaultmem",
             session_end,
             note="ends in a continuing note; the full one archived by a detached compaction "
                  "(waited for, untimed); budget 1.5 s"),
        Case(f"hook stop: huge state, a planted {STATE_MB} MB state.json", "vaultmem",
             planted_state,
             note="set aside unread, the state rebuilt from the notes"),
    ]
