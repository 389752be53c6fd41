"""Shared set-up for the hook tests: real Claude Code payloads replayed through a subprocess."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).resolve().parent / "fixtures" / "claude-code"
NOW = "2026-11-22T10:30:00"
DAY = NOW[:10]
PROJECT = "shop"  # the fixtures' cwd is /home/dev/work/shop
SID = "fc36e08a-6ff2-4298-8934-7cf92c8028d4"
SESSIONS = f"claude/projects/{PROJECT}/sessions"
ARCHIVE = f"claude/projects/{PROJECT}/archive/sessions"
ENTITIES = f"claude/projects/{PROJECT}/entities"
EVENTS = {
    "session-start": "hook-SessionStart.json",
    "stop": "hook-Stop.json",
    "pre-compact": "hook-PreCompact.json",
    "session-end": "hook-SessionEnd.json",
}
# A block label of the briefing: the only lines outside the fences besides the heading paragraph
# and the last "left out" line. Fixed words: nothing from the vault (not even a file name).
LABEL = re.compile(
    r"(?:Last session|Prerequisites to run the project|Components relevant now, most relevant "
    r"first|Earlier sessions, newest first) \(data\):"
)
SECRET = "hunter2"  # inside <private> in the fixture transcript
# ``python -c PROBE --vault V hook EVENT``: the hook run in-process, then its exit code and which
# of the modules named in place of sys.argv[0] (a JSON list) it imported, as JSON on stderr.
PROBE = """
import json, sys
from vaultmem import launcher
try:
    launcher.main(sys.argv[1:])
except SystemExit as stop:
    code = stop.code
heavy = sorted({m.split(".")[0] for m in sys.modules} & set(json.loads(sys.argv[0])))
sys.stderr.write(json.dumps({"code": code, "heavy": heavy}))
"""


def payload(event: str, transcript: Path | None = None, **changes: Any) -> dict[str, Any]:
    """The fixture payload of ``event`` with its transcript path pointed at ``transcript``."""
    data: dict[str, Any] = json.loads((FIXTURES / EVENTS[event]).read_text())
    if transcript is not None:
        data["transcript_path"] = str(transcript)
    data.update(changes)
    return data


def copy_transcript(tmp_path: Path, lines: int | None = None) -> Path:
    """The fixture transcript copied into ``tmp_path`` (its first ``lines`` lines if given)."""
    text = (FIXTURES / "transcript.jsonl").read_text()
    if lines is not None:
        text = "".join(text.splitlines(keepends=True)[:lines])
    path = tmp_path / "transcript.jsonl"
    path.write_text(text)
    return path


def hook_env(vault: Path, **extra: str) -> dict[str, str]:
    """The environment of a hook subprocess (the test's isolated HOME, a fixed clock)."""
    env = dict(os.environ)
    env.update(
        PYTHONPATH=str(REPO) + os.pathsep + env.get("PYTHONPATH", ""),
        VAULTMEM_VAULT=str(vault),
        VAULTMEM_NOW=NOW,
    )
    env.update(extra)
    return env


def run_hook(
    event: str,
    stdin: bytes | Mapping[str, Any],
    vault: Path,
    *,
    cwd: Path,
    before: Sequence[str] = (),
    env: Mapping[str, str] | None = None,
) -> subprocess.CompletedProcess[bytes]:
    """``python -m vaultmem [before…] hook EVENT`` with ``stdin`` (a dict is sent as JSON)."""
    data = stdin if isinstance(stdin, bytes) else json.dumps(stdin).encode()
    return subprocess.run(
        [sys.executable, "-m", "vaultmem", *before, "hook", event],
        input=data,
        check=False,
        capture_output=True,
        cwd=cwd,
        env=dict(env) if env is not None else hook_env(vault),
        timeout=120,
    )


def run_cli(
    args: Sequence[str], *, cwd: Path, env: Mapping[str, str]
) -> subprocess.CompletedProcess[str]:
    """``python -m vaultmem ARGS`` as text."""
    return subprocess.run(
        [sys.executable, "-m", "vaultmem", *args],
        check=False,
        capture_output=True,
        text=True,
        cwd=cwd,
        env=dict(env),
        timeout=120,
    )


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file under ``root`` (tool state included), by relative path."""
    out: dict[str, bytes] = {}
    for folder, _dirs, files in os.walk(root):
        for name in files:
            path = Path(folder) / name
            out[path.relative_to(root).as_posix()] = path.read_bytes()
    return out


def session_notes(vault: Path) -> list[Path]:
    """The session notes of the fixtures' project."""
    return sorted((vault / SESSIONS).glob("*.md"))


@contextmanager
def frozen(root: Path) -> Iterator[None]:
    """Make ``root`` unwritable, even for root (immutable attribute), and undo it afterwards."""
    if os.geteuid() == 0:
        subprocess.run(["chattr", "-R", "+i", str(root)], check=True)
        try:
            yield
        finally:
            subprocess.run(["chattr", "-R", "-i", str(root)], check=True)
    else:
        paths = [Path(d) for d, _, _ in os.walk(root)]
        for p in paths:
            p.chmod(0o555)
        try:
            yield
        finally:
            for p in paths:
                p.chmod(0o755)
