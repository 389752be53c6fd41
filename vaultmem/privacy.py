"""Text a person marked private, and Claude Code's own tags, removed before anything leaves a note.

Pure. ``<private>…</private>`` spans (multi-line, any case) never reach entity notes, the briefing,
the search index or file names.
"""

from __future__ import annotations

import re

_PRIVATE_RE = re.compile(r"<private\b[^>]*>.*?(?:</private\s*>|\Z)", re.IGNORECASE | re.DOTALL)
# A closing tag left over once its opening tag went (e.g. a private span split across blocks).
_STRAY_PRIVATE_CLOSE_RE = re.compile(r"</private\s*>", re.IGNORECASE)
_NOISE_TAG = r"system-reminder|command-[\w-]+|local-command-[\w-]+"
_NOISE_RE = re.compile(rf"<({_NOISE_TAG})\b[^>]*>.*?(?:</\1\s*>|\Z)", re.IGNORECASE | re.DOTALL)
_STRAY_NOISE_RE = re.compile(rf"</?(?:{_NOISE_TAG})\b[^>]*>", re.IGNORECASE)
_SPACES_RE = re.compile(r"\s+")


def strip_private(text: str) -> str:
    """Remove ``<private>…</private>`` spans (multi-line, any case; an unclosed tag removes to the end)."""
    return _STRAY_PRIVATE_CLOSE_RE.sub("", _PRIVATE_RE.sub("", text))


def clean_prompt(text: str) -> str | None:
    """Prompt text without private text and Claude Code's tags, whitespace collapsed; None if empty."""
    text = _STRAY_NOISE_RE.sub("", _NOISE_RE.sub("", strip_private(text)))
    text = _SPACES_RE.sub(" ", text).strip()
    return text or None
