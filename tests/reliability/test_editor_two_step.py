"""An editor's two-step save (truncate, then write) racing vaultmem's writers, all real processes.

A second process plays the person's editor: it saves the note in a loop, each save adding one
line at the end of the note, written the way Obsidian's desktop adapter writes (truncate in
place, then the new content), from its first save until vaultmem's writers are done. Meanwhile
real ``vaultmem patch --append`` / ``vaultmem session log`` processes write to the same note.
Every line the person saved and every entry vaultmem reported as written must be in the note,
exactly once. The default run has each writer make a few calls; the slow run (CI) many.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from vaultmem.notes.frontmatter import parse

from .kit import ENTITY, SESSION, WORKERS, run_env, small_vault, temp_files

WRITERS = 2
CALLS = 6  # per vaultmem writer (the default run)
SLOW_CALLS = 24  # per vaultmem writer (--slow, CI)
GAP_MS = "4"  # between the editor's truncate and its write
PAUSE_MS = "200"  # between the editor's saves
LATE_GAP_MS = "300"  # an editor whose write lands well after vaultmem's replace
WAIT_SECONDS = 120  # for the editor's first save (a loaded machine starts processes slowly)


def _saved_lines(note: Path, editor: subprocess.Popen[str]) -> int:
    """How many of the editor's lines the note holds (read between its truncate and its write,
    the note is empty: read again)."""
    deadline = time.monotonic() + WAIT_SECONDS
    while not (text := note.read_text()):
        assert editor.poll() is None and time.monotonic() < deadline, "the note stayed empty"
        time.sleep(0.01)
    return sum(line.startswith("- person line ") for line in text.split("\n"))


def _first_save(note: Path, editor: subprocess.Popen[str]) -> None:
    """Wait until the editor has saved once (so vaultmem's writers race its saves)."""
    deadline = time.monotonic() + WAIT_SECONDS
    while _saved_lines(note, editor) == 0:
        assert time.monotonic() < deadline, "the editor never saved"
        time.sleep(0.01)


def _cases() -> list[object]:
    cases: list[object] = []
    for calls, marks in ((CALLS, ()), (SLOW_CALLS, (pytest.mark.slow,))):
        for mode in ("patch", "log"):
            # GAP_MS: the write comes moments after the truncate. LATE_GAP_MS: it lands 0.3 s
            # after, when vaultmem read the empty note (settled) and replaced it; it is redone
            # on that write.
            for gap_ms in (GAP_MS, LATE_GAP_MS):
                cases.append(pytest.param(mode, gap_ms, calls, False, marks=marks,
                                          id=f"{mode}-{gap_ms}-{calls}"))
            # Two parts 0.3 s apart: half the note is on disk, not empty, and not short of
            # what vaultmem last wrote; it must not be read (and saved) as the whole note.
            cases.append(pytest.param(mode, LATE_GAP_MS, calls, True, marks=marks,
                                      id=f"{mode}-halves-{LATE_GAP_MS}-{calls}"))
    return cases


@pytest.mark.parametrize(("mode", "gap_ms", "calls", "halves"), _cases())
def test_editor_two_step_saves_lose_nothing(vault_root: Path, tmp_path: Path, mode: str,
                                            gap_ms: str, calls: int, halves: bool) -> None:
    small_vault(vault_root)
    rel = ENTITY if mode == "patch" else SESSION
    note = vault_root / rel
    stop = tmp_path / "stop-editing"
    editor = subprocess.Popen(
        [sys.executable, str(WORKERS / "editor.py"), str(note), str(stop), gap_ms, PAUSE_MS,
         *(["halves"] if halves else [])],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    try:
        _first_save(note, editor)
        writers = [
            subprocess.Popen(
                [sys.executable, str(WORKERS / "cli_loop.py"), str(vault_root), mode, str(w),
                 str(calls)],
                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=run_env(),
            )
            for w in range(WRITERS)
        ]
        for proc in writers:
            out, err = proc.communicate(timeout=600)
            assert proc.returncode == 0, err
            assert json.loads(out)["failures"] == []
        during = _saved_lines(note, editor)
    finally:
        stop.touch()
        out, err = editor.communicate(timeout=600)
    assert editor.returncode == 0, err
    saves = json.loads(out)["saves"]
    # (Half a note holds none of the person's lines, which are at its end: their count then.)
    assert (saves if halves else during) >= 3, "the editor saved too rarely to race the writers"
    text = note.read_text()
    lines = text.split("\n")
    lost = [i for i in range(saves) if lines.count(f"- person line {i}") != 1]
    assert lost == [], f"person lines lost or doubled: {lost}"
    for w in range(WRITERS):
        for i in range(calls):
            name = f"w{w}-e{i}"
            wanted = f"- {name}" if mode == "patch" else f"Body of {name}."
            assert lines.count(wanted) == 1, name
    parse(text)  # still a valid note
    assert temp_files(vault_root) == []
