"""Claude Code's front door: stdin JSON -> event -> one library call -> stdout. Fail-open.

Every hook exits 0 whatever happens (exit 2 would block Claude Code), prints at most one line on
stderr when something went wrong, and writes stdout once, only for session-start, whose stdout
Claude Code reads as context. Nothing here imports ``anthropic`` or waits on a network.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

from .events import HookEvent, parse_event

EVENTS = ("session-start", "stop", "pre-compact", "session-end")
MAX_STDIN_BYTES = 4 * 1024 * 1024


def _read_stdin() -> bytes:
    try:
        if sys.stdin is None or sys.stdin.isatty():
            return b""
        return sys.stdin.buffer.read(MAX_STDIN_BYTES)
    except (OSError, ValueError):
        return b""


def _warn(message: str) -> None:
    try:
        sys.stderr.write(f"vaultmem: {message}".replace("\n", " ")[:500] + "\n")
        sys.stderr.flush()
    except (OSError, ValueError):
        pass


def _handlers() -> dict[str, Callable[[HookEvent, list[str]], str]]:
    from . import capture

    return {
        "session-start": capture.on_session_start,
        "stop": capture.on_stop,
        "pre-compact": capture.on_stop,
        "session-end": capture.on_session_end,
    }


def run(name: str, raw: bytes | str) -> tuple[str, list[str]]:
    """Handle one hook event; returns (stdout text, warnings). Never raises."""
    warnings: list[str] = []
    if name not in EVENTS:
        return "", [f"unknown hook event {name!r} (expected one of {', '.join(EVENTS)})"]
    event = parse_event(name, raw)
    try:
        out = _handlers()[name](event, warnings)
    except Exception as err:  # noqa: BLE001 - fail open: Claude Code must never be blocked
        from ..errors import VaultmemError

        detail = str(err) if isinstance(err, VaultmemError) else f"{type(err).__name__}: {err}"
        return "", [f"hook {name} failed: {detail}"]
    return out, warnings


def main(argv: list[str]) -> int:
    """``vaultmem hook EVENT``: always returns 0."""
    name = argv[0] if argv else ""
    if name in ("-h", "--help", ""):
        sys.stdout.write(
            "usage: vaultmem hook {session-start|stop|pre-compact|session-end} < payload.json\n"
        )
        return 0
    out, warnings = run(name, _read_stdin())
    if warnings:
        _warn("; ".join(warnings))  # one line, however many things went wrong
    if out:
        try:
            sys.stdout.write(out)
            sys.stdout.flush()
        except (OSError, ValueError):
            pass
    return 0
