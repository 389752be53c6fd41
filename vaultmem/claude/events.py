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
    prompt: str | None = None  # UserPromptSubmit
    tool_name: str | None = None  # PostToolUseFailure: the tool, what it was given, its error
    command: str | None = None  # tool_input.command (Bash)
    file_path: str | None = None  # tool_input.file_path / notebook_path / path
    error: str | None = None
    is_interrupt: bool = False  # the person stopped the tool: no failure of the work


def _str(payload: Mapping[str, Any], key: str) -> str | None:
    value = payload.get(key)
    return value if isinstance(value, str) and value.strip() else None


def _tool_input(payload: Mapping[str, Any], *keys: str) -> str | None:
    tool_input = payload.get("tool_input")
    if not isinstance(tool_input, dict):
        return None
    return next((found for key in keys if (found := _str(tool_input, key))), None)


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
        prompt=_str(payload, "prompt"),
        tool_name=_str(payload, "tool_name"),
        command=_tool_input(payload, "command"),
        file_path=_tool_input(payload, "file_path", "notebook_path", "path"),
        error=_str(payload, "error"),
        is_interrupt=payload.get("is_interrupt") is True,
    )


def session_start_output(context_text: str) -> str:
    """The JSON Claude Code reads from a SessionStart hook's stdout."""
    return _output("SessionStart", context_text)


def context_output(event_name: str, context_text: str) -> str:
    """The JSON that hands ``context_text`` to Claude from a hook of ``event_name`` (Claude
    Code's name: ``UserPromptSubmit``, ``PostToolUseFailure``…); "" for no context at all."""
    return _output(event_name, context_text) if context_text else ""


def _output(event_name: str, context_text: str) -> str:
    return json.dumps(
        {
            "hookSpecificOutput": {
                "hookEventName": event_name,
                "additionalContext": context_text,
            }
        },
        ensure_ascii=False,
    )
