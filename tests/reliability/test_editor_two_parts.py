"""An editor that truncates a note and writes it in two parts 0.3 s apart (issue 30 §10): a
patch arriving between the parts sees half the note, which is neither empty nor shorter than
anything vaultmem wrote (vaultmem never wrote this note). It must wait for the second part and
patch the whole note: nothing the person wrote is lost. The editor is a real process."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from vaultmem.notes import patch
from vaultmem.store.vault import Vault

PART_GAP_S = "0.3"
EDITOR = r"""
import sys, time
path, gap, ready = sys.argv[1], float(sys.argv[2]), sys.argv[3]
with open(path, "r+b") as f:
    new = f.read() + b"- the person's newest line\n"
    half = len(new) // 2
    open(ready, "w").close()
    f.seek(0)
    f.truncate()
    f.write(new[:half])   # part one: half the note on disk
    f.flush()
    time.sleep(gap)
    f.write(new[half:])   # part two, 0.3 s later
"""


def _note(root: Path) -> tuple[str, list[str]]:
    lines = [f"- the person's line {n} about the login flow and its tokens" for n in range(60)]
    rel = "notes/Login.md"
    path = root / rel
    path.parent.mkdir(parents=True)
    path.write_text("---\ntype: note\n---\n# Login\n\n## Notes\n\n" + "\n".join(lines) + "\n")
    return rel, lines


@pytest.mark.parametrize("after_s", [0.0, 0.05, 0.15])
def test_a_patch_between_the_two_parts_waits_for_the_second(tmp_path: Path,
                                                           after_s: float) -> None:
    root = tmp_path / "vault"
    root.mkdir()
    rel, lines = _note(root)
    path = root / rel
    full = path.stat().st_size
    ready = tmp_path / "ready"
    editor = subprocess.Popen([sys.executable, "-c", EDITOR, str(path), PART_GAP_S, str(ready)])
    try:
        while not ready.exists() or path.stat().st_size in (0, full):
            assert editor.poll() is None, "the editor ended before its first part was seen"
            time.sleep(0.005)
        time.sleep(0.05)  # past the moment a write counts as "just now"; part two still to come
        assert path.stat().st_size < full  # still half (on a loaded machine: rerun, not a pass)
        result = Vault(root).update(rel, [patch.SectionPatch(("Notes",), "append",
                                                             "- vaultmem's line")])
        assert result.status in ("written", "rebased"), result
    finally:
        assert editor.wait(timeout=60) == 0
    text = path.read_text()
    for line in [*lines, "- the person's newest line"]:
        assert text.count(line + "\n") == 1, line
    assert text.count("- vaultmem's line") == 1
