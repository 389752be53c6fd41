"""A stand-in ``claude`` executable for the claude extractor's fast tests.

It records each call (argv, stdin, a few environment variables, cwd) as one JSON line in
``FAKE_CLAUDE_LOG`` and prints ``FAKE_CLAUDE_RESULT`` (a ``--output-format json`` result) on
stdout. ``FAKE_CLAUDE_MODE=hang`` starts a child that sleeps (its pid goes to
``FAKE_CLAUDE_LOG.child``) and sleeps itself, for timeouts; ``wait`` waits until the file
``FAKE_CLAUDE_RELEASE`` exists before answering. The real CLI is driven in tests/e2e.
"""

from __future__ import annotations

import json
import os
import stat
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

SCRIPT = """\
import json, os, subprocess, sys, time
prompt = sys.stdin.read()
log = os.environ["FAKE_CLAUDE_LOG"]
keys = ("VAULTMEM_EXTRACTING", "CLAUDECODE", "CLAUDE_CODE_SESSION_ID",
        "CLAUDE_CODE_DISABLE_THINKING", "CLAUDE_CODE_MAX_RETRIES")
with open(log, "a") as out:
    out.write(json.dumps({"argv": sys.argv[1:], "stdin": prompt, "cwd": os.getcwd(),
                          "env": {k: os.environ.get(k) for k in keys}}) + "\\n")
mode = os.environ.get("FAKE_CLAUDE_MODE", "answer")
if mode == "hang":
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    with open(log + ".child", "w") as out:
        out.write(str(child.pid))
    time.sleep(120)
if mode == "wait":
    while not os.path.exists(os.environ["FAKE_CLAUDE_RELEASE"]):
        time.sleep(0.05)
sys.stdout.write(os.environ.get("FAKE_CLAUDE_RESULT", ""))
sys.exit(int(os.environ.get("FAKE_CLAUDE_EXIT", "0")))
"""

GOOD = {
    "decisions": [{"text": "Use RS256 because the keys rotate", "entities": ["JWT"]}],
    "gotchas": [{"text": "The webhook needs the raw body bytes", "entities": ["Billing"]}],
    "patterns": [],
}


def result(structured: Any = GOOD, *, cost: float = 0.0123, **changes: Any) -> dict[str, Any]:
    """A ``claude -p --output-format json`` result as Claude Code 2.1 prints it."""
    data: dict[str, Any] = {
        "type": "result", "subtype": "success", "is_error": False, "api_error_status": None,
        "duration_ms": 2100, "num_turns": 2, "result": json.dumps(structured),
        "stop_reason": "tool_use", "session_id": "6c243c5a-df4a-47be-8858-5d74caed0b56",
        "total_cost_usd": cost,
        "usage": {"input_tokens": 4200, "cache_creation_input_tokens": 0,
                  "cache_read_input_tokens": 0, "output_tokens": 180},
        "permission_denials": [], "structured_output": structured,
        "terminal_reason": "completed",
    }
    if structured is None:
        del data["structured_output"]
    data.update(changes)
    return data


def install(folder: Path) -> Path:
    """Write the fake as ``folder/claude`` (executable) and return its path."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "claude"
    path.write_text(f"#!{sys.executable}\n{SCRIPT}")
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return path


def env_for(log: Path, answer: Mapping[str, Any] | str, **extra: str) -> dict[str, str]:
    """Environment variables that make the fake answer ``answer``."""
    text = answer if isinstance(answer, str) else json.dumps(answer)
    return {"FAKE_CLAUDE_LOG": str(log), "FAKE_CLAUDE_RESULT": text, **extra}


def calls(log: Path) -> list[dict[str, Any]]:
    """The recorded calls."""
    if not log.exists():
        return []
    return [json.loads(line) for line in log.read_text().splitlines()]


def alive(pid: int) -> bool:
    """Whether ``pid`` is a live (not zombie) process."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    status = Path(f"/proc/{pid}/status")
    if status.exists():
        try:
            return "\nState:\tZ" not in status.read_text()
        except OSError:
            return False
    return True
