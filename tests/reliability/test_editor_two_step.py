"""An editor's two-step save (truncate, then write) racing vaultmem's writers, all real processes.

A second process plays the person's editor: it saves the note in a loop, each save adding one
line at the end of the note, written the way Obsidian's desktop adapter writes (truncate in
place, then the new content). Meanwhile real ``vaultmem patch --append`` / ``vaultmem session
log`` processes write to the same note. Every line the person saved and every entry vaultmem
reported as written must be in the note, exactly once.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from vaultmem.notes.frontmatter import parse

from .kit import ENTITY, SESSION, WORKERS, run_env, small_vault, temp_files

WRITERS = 2
CALLS = 12  # per vaultmem writer
SAVES = 60  # the editor's
GAP_MS = "4"  # between the editor's truncate and its write
PAUSE_MS = "200"  # between the editor's saves
LATE_GAP_MS = "300"  # an editor whose write lands well after vaultmem's replace
LATE_SAVES = 30


@pytest.mark.parametrize(("mode", "gap_ms", "saves"),
                         [("patch", GAP_MS, SAVES), ("log", GAP_MS, SAVES),
                          # The write lands 0.3 s after the truncate: after vaultmem read the
                          # empty note (settled) and replaced it; it is redone on that write.
                          ("patch", LATE_GAP_MS, LATE_SAVES), ("log", LATE_GAP_MS, LATE_SAVES)])
def test_editor_two_step_saves_lose_nothing(vault_root: Path, mode: str, gap_ms: str,
                                            saves: int) -> None:
    small_vault(vault_root)
    rel = ENTITY if mode == "patch" else SESSION
    note = vault_root / rel
    writers = [
        subprocess.Popen(
            [sys.executable, str(WORKERS / "cli_loop.py"), str(vault_root), mode, str(w), str(CALLS)],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=run_env(),
        )
        for w in range(WRITERS)
    ]
    editor = subprocess.Popen(
        [sys.executable, str(WORKERS / "editor.py"), str(note), str(saves), gap_ms, PAUSE_MS],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    out, err = editor.communicate(timeout=600)
    assert editor.returncode == 0, err
    for proc in writers:
        out, err = proc.communicate(timeout=600)
        assert proc.returncode == 0, err
        assert json.loads(out)["failures"] == []
    text = note.read_text()
    lines = text.split("\n")
    lost = [i for i in range(saves) if lines.count(f"- person line {i}") != 1]
    assert lost == [], f"person lines lost or doubled: {lost}"
    for w in range(WRITERS):
        for i in range(CALLS):
            name = f"w{w}-e{i}"
            wanted = f"- {name}" if mode == "patch" else f"Body of {name}."
            assert lines.count(wanted) == 1, name
    parse(text)  # still a valid note
    assert temp_files(vault_root) == []
