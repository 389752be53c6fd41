"""Claude Code hook payloads as values (DESIGN §6). Pure."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from vaultmem.notes import jsontext


@dataclass(frozen=True)
class HookEvent:
    """The fields of a Claude Code hook payload that vaultmem uses (all optional: junk is tolerated)."""

    name: str
    session_id: str | None
    transcript_path: str | None
    cwd: str | None
    source: str | None = None  # SessionStart: startup | resume | clear | compact
    reason: str | None = None  # SessionEnd
    trigger: str | None = None  # PreCompact: manual | auto
    last_assistant_message: str | None = None  # Stop


def _str(payload: Mapping[str, Any], key: str) -> str | None:
    value = payload.get(key)
    return value if isinstance(value, str) and value.strip() else None


def parse_event(name: str, raw: bytes | str) -> HookEvent:
    """Parse a hook payload; empty, binary or non-object input becomes an empty payload."""
    payload: Any
    try:
        text = raw.decode("utf-8", errors="replace") if isinstance(raw, bytes) else raw
        payload = jsontext.loads(text) if text.strip() else {}
    except ValueError:
        payload = {}
    if not isinstance(payload, dict):
        payload = {}
    return HookEvent(
        name=name,
        session_id=_str(payload, "session_id"),
        transcript_path=_str(payload, "transcript_path"),
        cwd=_str(payload, "cwd"),
        source=_str(payload, "source"),
        reason=_str(payload, "reason"),
        trigger=_str(payload, "trigger"),
        last_assistant_message=_str(payload, "last_assistant_message"),
    )


def session_start_output(context_text: str) -> str:
    """The JSON Claude Code reads from a SessionStart hook's stdout."""
    return json.dumps(
        {
            "hookSpecificOutput": {
                "hookEventName": "SessionStart",
                "additionalContext": context_text,
            }
        },
        ensure_ascii=False,
    )
