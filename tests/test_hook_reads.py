"""A hook reads its transcript once (issue 22): capture, mining, the summary and the note's
metadata all work from the one read's value, never by opening the file again."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from hook_kit import copy_transcript, hook_env, payload, run_hook, session_notes

# ``python -c OPENS <transcript> --vault V hook EVENT``: the hook run in-process with every open
# of the transcript counted (os.open and io.open, which pathlib and open() go through).
OPENS = """
import builtins, io, json, os, sys
target = os.path.realpath(sys.argv.pop(1))
opened = []
def counted(real):
    def open_(file, *args, **kwargs):
        if isinstance(file, (str, os.PathLike)) and os.path.realpath(file) == target:
            opened.append(real.__name__)
        return real(file, *args, **kwargs)
    return open_
os.open = counted(os.open)
builtins.open = io.open = counted(io.open)
from vaultmem import launcher
try:
    launcher.main(sys.argv[1:])
except SystemExit as stop:
    code = stop.code
sys.stderr.write(json.dumps({"code": code, "opens": len(opened)}))
"""


def _opens(event: str, transcript: Path, vault: Path, cwd: Path) -> int:
    proc = subprocess.run(
        [sys.executable, "-c", OPENS, str(transcript), "--vault", str(vault), "hook", event],
        input=json.dumps(payload(event, transcript)).encode(), capture_output=True, cwd=cwd,
        env=hook_env(vault), timeout=120, check=False,
    )
    report = json.loads(proc.stderr)
    assert report["code"] == 0
    return int(report["opens"])


@pytest.mark.parametrize("before", [(), ("session-start",), ("session-start", "stop")])
def test_session_end_opens_the_transcript_once(tmp_path: Path, before: tuple[str, ...]) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    transcript = copy_transcript(tmp_path)
    for event in before:
        assert run_hook(event, payload(event, transcript), vault, cwd=tmp_path).returncode == 0
    assert _opens("session-end", transcript, vault, tmp_path) == 1
    # ... and what it read is in the note: the once is not "never".
    (note,) = session_notes(vault)
    assert "Add a login module" in note.read_text()


def test_stop_opens_the_transcript_once(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    transcript = copy_transcript(tmp_path)
    assert run_hook("session-start", payload("session-start", transcript), vault,
                    cwd=tmp_path).returncode == 0
    assert _opens("stop", transcript, vault, tmp_path) == 1
