"""Transcripts written the way Claude Code writes them, line by line, and the hooks that read
them into a temporary vault (for tests of what capture makes of real-shaped records)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hook_kit import DAY, SESSIONS

from vaultmem.claude import capture
from vaultmem.claude.events import HookEvent

CWD = "/home/dev/work/shop"
STAMP = f"{DAY}T09:{{:02d}}:00Z"


class Transcript:
    """A transcript file written the way Claude Code writes one, line by line."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.n = 0
        path.write_text("")

    def _add(self, kind: str, content: Any, **extra: Any) -> None:
        self.n += 1
        line = {"type": kind, "uuid": f"u{self.n}", "sessionId": "sid-a", "cwd": CWD,
                "timestamp": STAMP.format(self.n % 60), "isSidechain": False,
                "message": {"role": kind, "content": content}, **extra}
        self.raw(line)

    def raw(self, line: object) -> None:
        """A line as given: a record of any kind (JSON), or text that is none."""
        with self.path.open("a") as out:
            out.write((line if isinstance(line, str) else json.dumps(line)) + "\n")

    def prompt(self, text: str) -> None:
        """A prompt the person typed."""
        self._add("user", text)

    def say(self, text: str) -> None:
        """Claude's prose."""
        self._add("assistant", [{"type": "text", "text": text}])

    def call(self, ident: str, name: str, tool_input: dict[str, Any]) -> None:
        """A tool call."""
        self._add("assistant", [{"type": "tool_use", "id": ident, "name": name,
                                 "input": tool_input}])

    def result(self, ident: str, text: str, *, error: bool = False) -> None:
        """A tool's result."""
        block: dict[str, Any] = {"type": "tool_result", "tool_use_id": ident, "content": text}
        if error:
            block["is_error"] = True
        self._add("user", [block])


def stop(log: Transcript, sid: str = "sid-a") -> None:
    """The Stop hook at the end of a turn."""
    capture.on_stop(HookEvent(name="stop", session_id=sid, transcript_path=str(log.path),
                              cwd=CWD))


def note(vault: Path) -> str:
    """The text of the project's one session note."""
    notes = sorted((vault / SESSIONS).glob("*.md"))
    assert len(notes) == 1, notes
    return notes[0].read_text()


def section(text: str, title: str) -> list[str]:
    """The list lines of a note's section."""
    lines = text.split("\n")
    start = lines.index(f"## {title}") + 1
    end = next((n for n in range(start, len(lines)) if lines[n].startswith("## ")), len(lines))
    return [line for line in lines[start:end] if line.startswith("- ")]


def end(log: Transcript, sid: str = "sid-a") -> None:
    """The session's SessionEnd hook."""
    capture.on_session_end(HookEvent(name="session-end", session_id=sid,
                                     transcript_path=str(log.path), cwd=CWD))


def briefing(sid: str = "sid-next") -> str:
    """What the next session's SessionStart hook injects."""
    out = capture.on_session_start(HookEvent(name="session-start", session_id=sid,
                                             transcript_path=None, cwd=CWD))
    text = json.loads(out)["hookSpecificOutput"]["additionalContext"]
    assert isinstance(text, str)
    return text
