"""Claude Code's front door: stdin JSON -> event -> one library call -> stdout. Fail-open.

Every hook exits 0 whatever happens (exit 2 would block Claude Code), prints at most one line on
stderr when something went wrong, and writes stdout once, only for session-start,
user-prompt-submit and post-tool-use-failure, whose stdout Claude Code reads as context. Nothing here imports ``anthropic`` or waits on a network.
"""

from __future__ import annotations

import dataclasses
import json
import os
import select
import sys
import time
from collections.abc import Callable

from .events import HookEvent, parse_event

EVENTS = ("session-start", "stop", "pre-compact", "session-end", "user-prompt-submit",
          "post-tool-use-failure")
MAX_STDIN_BYTES = 4 * 1024 * 1024
# Claude Code writes the payload and closes stdin at once. A stdin that stays open is read until
# it holds a whole JSON object, or for this long at most: a hook never waits on its input.
STDIN_SECONDS = 2.0
_CHUNK = 64 * 1024
EXTRACTING_ENV = "VAULTMEM_EXTRACTING"  # = vaultmem.memory.claudecli.EXTRACTING_ENV (not imported: light)


def _read_stdin(deadline_s: float = STDIN_SECONDS) -> tuple[bytes, bool]:
    """The payload bytes, and whether the deadline cut the read short."""
    try:
        if sys.stdin is None or sys.stdin.isatty():
            return b"", False
    except (OSError, ValueError):
        return b"", False
    try:
        fd = sys.stdin.fileno()
    except (OSError, ValueError, AttributeError):
        # Not a real file (an in-memory stream, as tests and embedders pass): it cannot block.
        try:
            return sys.stdin.buffer.read(MAX_STDIN_BYTES), False
        except (OSError, ValueError, AttributeError):
            return b"", False
    data = bytearray()
    deadline = time.monotonic() + deadline_s
    try:
        while len(data) < MAX_STDIN_BYTES:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                return bytes(data), not _whole_object(data)
            chunk = os.read(fd, min(_CHUNK, MAX_STDIN_BYTES - len(data)))
            if not chunk:
                break
            data += chunk
            if chunk.rstrip().endswith(b"}") and _whole_object(data):
                break  # the payload is complete: no need to wait for the end of the stream
    except (OSError, ValueError):
        pass
    return bytes(data), False


def _whole_object(data: bytes | bytearray) -> bool:
    try:
        return isinstance(json.loads(data), dict)
    except (ValueError, RecursionError):
        return False


def _readable_transcript(event: HookEvent, warnings: list[str]) -> HookEvent:
    """The event, without a ``transcript_path`` that is not a regular file (a FIFO, a device
    such as /dev/zero, a folder): reading those would wait or never end."""
    from .transcriptfile import is_regular_file  # not .transcript: its imports are heavy

    path = event.transcript_path
    if path is None or is_regular_file(path) is not False:
        return event
    warnings.append(f"transcript_path {path!r} is not a regular file; not read")
    return dataclasses.replace(event, transcript_path=None)


def _warn(message: str) -> None:
    try:
        sys.stderr.write(f"vaultmem: {message}".replace("\n", " ")[:500] + "\n")
        sys.stderr.flush()
    except (OSError, ValueError):
        pass


MOMENTS = ("user-prompt-submit", "post-tool-use-failure")


def _handler(name: str, compact_by: float | None) -> Callable[[HookEvent, list[str]], str]:
    if name in MOMENTS:  # the cheap hooks: the capture and its imports are not loaded
        from . import momenthooks

        return {"user-prompt-submit": momenthooks.on_user_prompt_submit,
                "post-tool-use-failure": momenthooks.on_post_tool_use_failure}[name]
    from . import capture

    if name == "session-end":
        return lambda event, warnings: capture.on_session_end(event, warnings,
                                                              compact_by=compact_by)
    return {
        "session-start": capture.on_session_start,
        "stop": capture.on_stop,
        "pre-compact": capture.on_stop,
    }[name]


def run(name: str, raw: bytes | str, *, compact_by: float | None = None
        ) -> tuple[str, list[str]]:
    """Handle one hook event; returns (stdout text, warnings). Never raises.

    ``compact_by``: SessionEnd's deadline (``hookclock``); None compacts a due note inline
    whatever it takes (a caller in its own process, not Claude Code's hook)."""
    warnings: list[str] = []
    if name not in EVENTS:
        return "", [f"unknown hook event {name!r} (expected one of {', '.join(EVENTS)})"]
    if os.environ.get(EXTRACTING_ENV):
        # The claude extractor's own run (vaultmem.memory.claudecli): it is not a session to record.
        return "", []
    event = parse_event(name, raw)
    if name not in MOMENTS:  # the moment hooks never read the transcript: not even looked at
        event = _readable_transcript(event, warnings)
    try:
        out = _handler(name, compact_by)(event, warnings)
    except Exception as err:  # noqa: BLE001 - fail open: Claude Code must never be blocked
        from ..errors import VaultmemError

        detail = str(err) if isinstance(err, VaultmemError) else f"{type(err).__name__}: {err}"
        return "", [f"hook {name} failed: {detail}"]
    return out, warnings


def main(argv: list[str]) -> int:
    """``vaultmem hook EVENT``: always returns 0."""
    entered = time.monotonic()
    name = argv[0] if argv else ""
    if name in ("-h", "--help", ""):
        sys.stdout.write(
            f"usage: vaultmem hook {{{'|'.join(EVENTS)}}} < payload.json\n"
        )
        return 0
    if os.environ.get(EXTRACTING_ENV):
        return 0  # the claude extractor's own run: not even its stdin is read (see run)
    raw, cut = _read_stdin()
    problems: list[str] = []
    compact_by = None
    if name == "session-end":
        from .hookclock import session_end_deadline

        compact_by = session_end_deadline(entered, problems)
    out, warnings = run(name, raw, compact_by=compact_by)
    warnings[:0] = problems
    if cut:
        warnings.insert(0, f"no complete payload on stdin within {STDIN_SECONDS:g}s")
    if warnings:
        _warn("; ".join(dict.fromkeys(warnings)))  # one line, each thing said once
    if out:
        try:
            sys.stdout.write(out)
            sys.stdout.flush()
        except (OSError, ValueError):
            pass
    return 0
