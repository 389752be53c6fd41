"""``vaultmem compact <live note> --force`` racing the session's Stop hooks, real processes on
both sides: every turn the hooks recorded is in exactly one copy of the session (an archive
copy, or a note still live); none is left only in an archived original."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from hook_kit import ARCHIVE, SESSIONS, payload, run_hook

from .kit import REPO, run_env

SID = "fc36e08a-6ff2-4298-8934-7cf92c8028d4"  # the fixture payload's session


def _line(kind: str, uuid: str, text: str) -> str:
    return json.dumps({"type": kind, "uuid": uuid, "message": {"role": kind, "content": text},
                       "cwd": "/home/dev/work/shop", "sessionId": SID,
                       "timestamp": "2026-11-22T09:00:00.000Z"}) + "\n"


def _marker(n: int) -> str:
    return f"zq{n:03d}"


def _status(text: str) -> str:
    match = re.search(r"^status: (\S+)$", text, re.MULTILINE)
    return match.group(1) if match else ""


def _compact_while(vault: Path, running: threading.Event, outcomes: list[str]) -> None:
    """Compact every live session note with --force, again and again, while the hooks run."""
    env = run_env(VAULTMEM_VAULT=str(vault), VAULTMEM_PROJECT="shop")
    while running.is_set():
        for note in sorted((vault / SESSIONS).glob("*.md")):
            if _status(note.read_text()) != "active":
                continue
            rel = note.relative_to(vault).as_posix()
            proc = subprocess.run([sys.executable, "-m", "vaultmem", "compact", rel, "--force"],
                                  cwd=REPO, env=env, capture_output=True, text=True,
                                  timeout=300, check=False)
            outcomes.append(f"{proc.returncode} {proc.stdout.strip()} {proc.stderr.strip()}")
        time.sleep(0.3)  # a few compactions over the run, each racing several Stop hooks


# 15 turns race a few compactions in a contributor's default run; 40 (minutes) in CI and --slow.
@pytest.mark.parametrize("turns", [15, pytest.param(40, marks=pytest.mark.slow)])
def test_forced_compaction_of_a_live_note_loses_no_turn(tmp_path: Path, turns: int) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    transcript = tmp_path / "transcript.jsonl"
    transcript.write_text("")
    running = threading.Event()
    running.set()
    outcomes: list[str] = []
    compactor = threading.Thread(target=_compact_while, args=(vault, running, outcomes))
    started = False
    try:
        for n in range(-1, turns):
            # The first prompt names the note (and its continuations): it carries no marker.
            said = ("Start the race work", "Started.") if n < 0 else (
                f"Handle the {_marker(n)} task please", f"Done with {_marker(n)}.")
            with transcript.open("a") as out:
                out.write(_line("user", f"u{n}", said[0]))
                out.write(_line("assistant", f"a{n}", said[1]))
            stop = run_hook("stop", payload("stop", transcript, last_assistant_message=None),
                            vault, cwd=tmp_path)
            assert stop.returncode == 0 and stop.stderr == b"", stop.stderr
            if not started:  # the first turn made the note: compaction can start
                compactor.start()
                started = True
    finally:
        running.clear()
        if started:
            compactor.join(timeout=600)
    assert all(o.startswith("0 ") for o in outcomes), outcomes
    compacted = sum(" compacted" in o for o in outcomes)
    assert compacted >= 1, outcomes
    copies = [p for p in (vault / ARCHIVE).glob("*.md")]
    copies += [p for p in (vault / SESSIONS).glob("*.md") if _status(p.read_text()) != "archived"]
    texts = {p.name: p.read_text() for p in copies}
    for n in range(turns):
        holding = [name for name, text in texts.items() if _marker(n) in text]
        assert len(holding) == 1, (_marker(n), holding, outcomes)
