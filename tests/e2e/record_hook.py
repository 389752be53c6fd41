"""A recording Claude Code hook for the harness self-test: ``record_hook.py LOG [--sleep S]``.

Appends one JSON line per call to LOG: the hook's stdin payload, what the transcript held at that
moment, and a timestamp. On SessionStart it prints ``additionalContext`` carrying MARKER, which
the test then looks for in the request Claude Code sends. With ``--sleep`` it sleeps, then logs a
``done`` line (to show whether Claude Code let it finish).
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

MARKER = "E2E-MARKER-7f3a9c"


def main(argv: list[str]) -> int:
    """Record one hook call; always exit 0."""
    log = Path(argv[0])
    sleep = float(argv[argv.index("--sleep") + 1]) if "--sleep" in argv else 0.0
    raw = sys.stdin.read()
    payload = json.loads(raw)
    transcript = Path(payload.get("transcript_path") or "/nonexistent")
    lines = transcript.read_text().splitlines() if transcript.is_file() else None
    entry = {
        "time": time.time(),
        "event": payload.get("hook_event_name"),
        "payload": payload,
        "transcript_types": None if lines is None else [json.loads(x).get("type") for x in lines],
    }
    with log.open("a") as out:
        out.write(json.dumps(entry) + "\n")
    if payload.get("hook_event_name") == "SessionStart":
        print(
            json.dumps(
                {
                    "hookSpecificOutput": {
                        "hookEventName": "SessionStart",
                        "additionalContext": f"Harness context {MARKER}",
                    }
                }
            )
        )
    if sleep:
        time.sleep(sleep)
        with log.open("a") as out:
            out.write(json.dumps({"time": time.time(), "event": "done"}) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
