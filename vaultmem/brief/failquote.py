"""A failed command as the briefing quotes it: the command, then its output's error signature
(a third party's text, never its orders), and only while it is news (pure)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import date

from vaultmem.notes.inline import code_span
from vaultmem.notes.lazyre import lazy
from vaultmem.notes.quoting import WITHHELD, command_shape, error_signature

from .digest import SessionDigest

# A failed command's output is untrusted text every later session reads: quoted short, as its
# output, and only while it is news (the last sessions, the last days), even if it never passed.
FAILURE_OUTPUT_CHARS = 120
FAILURE_COMMAND_CHARS = 100
FAILURE_SESSIONS = 2
FAILURE_DAYS = 7

# ``cmd`` ×2 — ``output``: a work log's failure line after "Failed:" (workentry._failure_line).
_FAILURE = lazy(r"(`+) ?(.+?) ?\1((?:\s*×\s*\d+)?)(?:\s+—\s+(.*?))?\s*")
_SPAN = lazy(r"(`+) ?(.*?) ?\1")


def failure(text: str) -> str:
    """A failure quoted in the briefing: the command, then its output labelled as such, each
    cut short and on one line."""
    found = _FAILURE.fullmatch(text)
    if found is None:
        return "output: " + signature(text)
    command, times, output = found.group(2), found.group(3).strip(), found.group(4)
    span = _SPAN.fullmatch(output or "")
    output = span.group(2) if span else output
    line = code_span(command_shape(command, FAILURE_COMMAND_CHARS)) + (f" {times}" if times else "")
    return line + (f", output: {signature(output)}" if output else "")


def signature(output: str, max_chars: int = FAILURE_OUTPUT_CHARS) -> str:
    """An output as quoted: its error signature in a code span (WITHHELD when it reads like
    orders)."""
    # A tool's output is a third party's text: its error signature only, never its orders.
    said = error_signature(output, max_chars)
    return said if said == WITHHELD else code_span(said)


def fresh_failures(sessions_: Sequence[SessionDigest], today: date) -> list[SessionDigest]:
    """The sessions (newest first) with the failures of all but the newest FAILURE_SESSIONS,
    and of any older than FAILURE_DAYS, left out: a failure expires even if its command never
    passed."""
    out = []
    for rank, s in enumerate(sessions_):
        try:
            old = (today - date.fromisoformat(s.date)).days > FAILURE_DAYS
        except ValueError:
            old = True
        out.append(replace(s, failing=()) if s.failing and (rank >= FAILURE_SESSIONS or old)
                   else s)
    return out
