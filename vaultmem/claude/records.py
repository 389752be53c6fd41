"""The record kinds Claude Code writes into a transcript, and what vaultmem takes from each (pure).

One home for the vocabulary (docs/TRANSCRIPT.md is the catalogue a person reads): the top-level
``type`` of a JSONL line, the ``subtype`` of a ``system`` line, and the wrappers Claude Code and
the IDE extensions put around what the person typed. :mod:`transcript` reads the lines with it;
a kind that is in none of these tables is skipped and counted (:func:`unknown_kind`), never
pasted into a note.
"""

from __future__ import annotations

import re

from vaultmem.notes.inline import one_line
from vaultmem.notes.lazyre import lazy
from vaultmem.notes.privacy import clean_text, strip_private
from vaultmem.notes.redact import Scrub

# type -> what vaultmem takes from a line of that type (docs/TRANSCRIPT.md says why).
KINDS: dict[str, str] = {
    "user": "prompts, tool results, the compact summary",
    "assistant": "Claude's prose (the final answer kept whole) and its tool calls",
    "system": "compact_boundary only (see SYSTEM_SUBTYPES)",
    "ai-title": "the session's title (frontmatter title and aliases)",
    "custom-title": "the title the person gave the session (beats ai-title)",
    "agent-name": "nothing: the agent's display name",
    "last-prompt": "nothing: it repeats the last user line's prompt",
    "summary": "nothing: an older title record that may name another session's leaf",
    "attachment": "nothing: context Claude Code adds (skills, memory files, reminders)",
    "queue-operation": "nothing: a queued prompt arrives as its own user line when sent",
    "file-history-snapshot": "nothing: file backups for rewind",
    "progress": "nothing: hook and sub-agent progress while a tool runs",
    "mode": "nothing: the session's mode",
    "permission-mode": "nothing: the session's permission mode",
}
# system subtype -> what vaultmem takes from it
SYSTEM_SUBTYPES: dict[str, str] = {
    "compact_boundary": "marks the next user line as the compact summary",
    "turn_duration": "nothing: timing",
    "stop_hook_summary": "nothing: which Stop hooks ran",
    "api_error": "nothing: a retry; the turn's final API error notice is an assistant line",
    "local_command": "nothing: a slash command's echo and output",
    "informational": "nothing: a notice Claude Code showed",
    "away_summary": "nothing: a recap of turns the note records already",
}
TITLE_KINDS = {"ai-title": "aiTitle", "custom-title": "customTitle"}
TITLE_MAX_CHARS = 120
KIND_MAX_CHARS = 40  # of an unknown kind's name, as counted

# A slash command as the user line records it: ``<command-name>/review</command-name>
# <command-message>review</command-message> <command-args>the auth module</command-args>``.
_COMMAND_RE = lazy(
    r"<command-(?:name|message|args)\b[^>]*>.*?</command-(?:name|message|args)\s*>"
    r"(?:\s*<command-(?:name|message|args)\b[^>]*>.*?</command-(?:name|message|args)\s*>)*",
    re.DOTALL | re.IGNORECASE)
_COMMAND_NAME_RE = lazy(r"<command-name\b[^>]*>\s*(/?[\w:.-]+)\s*</command-name", re.IGNORECASE)
_COMMAND_ARGS_RE = lazy(r"<command-args\b[^>]*>(.*?)</command-args", re.DOTALL | re.IGNORECASE)
# What Claude Code writes as the person's line when they stopped a turn: no prompt.
_INTERRUPTED_RE = lazy(r"\[Request interrupted by user(?: for tool use)?\]", re.IGNORECASE)
_NOTIFICATION_RE = lazy(r"\A\s*<task-notification>", re.IGNORECASE)


def unknown_kind(entry: dict[str, object]) -> str | None:
    """The kind of a line no table above names (``system/<subtype>`` for a system line), as
    counted; None for a known kind."""
    kind = entry.get("type")
    if not isinstance(kind, str):
        return "(no type)"
    if kind == "system":
        subtype = entry.get("subtype")
        if subtype is None or (isinstance(subtype, str) and subtype in SYSTEM_SUBTYPES):
            return None
        return ("system/" + str(subtype))[:KIND_MAX_CHARS]
    return None if kind in KINDS else kind[:KIND_MAX_CHARS]


def title(entry: dict[str, object], scrub: Scrub | None = None) -> tuple[str, str] | None:
    """(type, title) of an ``ai-title`` or ``custom-title`` line: one line, private text out,
    at most TITLE_MAX_CHARS; None for any other line or an empty title."""
    key = TITLE_KINDS.get(str(entry.get("type")))
    value = entry.get(key) if key is not None else None
    if not isinstance(value, str):
        return None
    text = one_line(strip_private(value)).strip()
    if scrub is not None:
        text = scrub(text)
    if len(text) > TITLE_MAX_CHARS:
        text = text[: TITLE_MAX_CHARS - 1].rstrip() + "…"
    return (str(entry["type"]), text) if text else None


def prompt_text(text: str) -> str | None:
    """What the person typed, from a user line's text (private text already out): the IDE's
    and Claude Code's wrappers removed (``<ide_*>``, ``<system-reminder>``, ``<local-command-*>``,
    ``<user-prompt-submit-hook>``, ``<bash-*>``), a slash command written as typed (``/review
    the auth module``; one without arguments is no prompt), whitespace collapsed. None when
    nothing typed is left (a wrapper alone, ``[Request interrupted by user]``)."""
    if "<command-" in text.lower():
        text = _COMMAND_RE.sub(_typed_command, text)
    cleaned = clean_text(text)
    if cleaned is None or _INTERRUPTED_RE.fullmatch(cleaned):
        return None
    return cleaned


def notification(prompt: str | None) -> bool:
    """Whether a user line's text is Claude Code's ``<task-notification>`` (a background
    command ended), not the person's prompt."""
    return bool(prompt) and _NOTIFICATION_RE.match(prompt or "") is not None


def _typed_command(match: re.Match[str]) -> str:
    block = match.group(0)
    name = _COMMAND_NAME_RE.search(block)
    args = _COMMAND_ARGS_RE.search(block)
    said = " ".join(args.group(1).split()) if args else ""
    if name is None or not said:
        return " "  # /clear, /model, /compact: bookkeeping, nothing typed to keep
    command = name.group(1)
    return f" {command if command.startswith('/') else '/' + command} {said} "
