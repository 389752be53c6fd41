"""8 processes x 50 appends to ONE note at once: every entry lands exactly once, in a valid note.

By default the processes loop in-process over the library (the calls behind ``vaultmem session
log`` and ``vaultmem patch --append``); with ``--slow`` the same 8 x 50 also runs as 400 real
``vaultmem`` CLI processes, and through the optimistic ``Vault.update(base=...)`` path.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from vaultmem.notes import sections
from vaultmem.notes.frontmatter import parse

from .kit import ENTITY, SESSION, WORKERS, run_env, small_vault, temp_files

PROCESSES = 8
ENTRIES = 50


def _names() -> list[str]:
    return [f"w{w}-e{i}" for w in range(PROCESSES) for i in range(ENTRIES)]


def _race(root: Path, script: str, mode: str, extra: list[str]) -> list[dict[str, object]]:
    """Start every worker before waiting on any; their JSON reports."""
    procs = [
        subprocess.Popen(
            [sys.executable, str(WORKERS / script), str(root), mode, str(w), str(ENTRIES), *extra],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=run_env(),
        )
        for w in range(PROCESSES)
    ]
    reports = []
    for proc in procs:
        out, err = proc.communicate(timeout=1800)
        assert proc.returncode == 0, err
        reports.append(json.loads(out))
    return reports


def _skeleton(text: str) -> list[tuple[int, str]]:
    return [(h.level, h.title) for h in sections.headings(text) if h.level <= 2]


def _check_session(root: Path, before: str) -> None:
    text = (root / SESSION).read_text()
    assert parse(text) == parse(before)  # the frontmatter parses and is what it was
    assert _skeleton(text) == _skeleton(before)  # every section is still there, in order
    entries = [h for h in sections.headings(text) if h.level == 3]
    assert all(h.path[-2] == "Work Log" for h in entries)
    titles = Counter(h.title for h in entries)
    expected = Counter([f"10:30 - {n}" for n in _names()] + ["10:30 - First entry"])
    assert titles == expected  # each exactly once, nothing else
    lines = text.splitlines()
    for name in _names():
        assert lines.count(f"Body of {name}.") == 1, name
    for w in range(PROCESSES):  # one worker's entries keep their order
        own = [h.title for h in entries if h.title.startswith(f"10:30 - w{w}-")]
        assert own == [f"10:30 - w{w}-e{i}" for i in range(ENTRIES)]


def _check_entity(root: Path, before: str) -> None:
    text = (root / ENTITY).read_text()
    assert parse(text) == parse(before)
    assert _skeleton(text) == _skeleton(before)
    lines = text.split("\n")
    decisions = sections.resolve(text, ["Key Decisions"])
    body = lines[decisions.body_start:decisions.own_end]
    for name in _names():
        assert lines.count(f"- {name}") == 1, name
    items = [ln for ln in body if ln.startswith("- w")]
    assert len(items) == PROCESSES * ENTRIES  # all of them under Key Decisions
    # One tight list: the person's older decision, then the 400 entries, no blank line between.
    start = body.index("- An older decision")
    assert body[start:start + 1 + len(items)] == ["- An older decision", *items]
    for w in range(PROCESSES):
        assert [i for i in items if i.startswith(f"- w{w}-")] == [
            f"- w{w}-e{i}" for i in range(ENTRIES)]
    # The rest of the note is the person's, byte for byte.
    old = before.split("\n")
    old_decisions = sections.resolve(before, ["Key Decisions"])
    assert lines[:decisions.body_start] == old[:old_decisions.body_start]
    assert lines[decisions.own_end:] == old[old_decisions.own_end:]


@pytest.mark.parametrize(
    "mode", ["log", "patch", pytest.param("patch-base", marks=pytest.mark.slow)])
def test_eight_processes_append_to_one_note(vault_root: Path, mode: str) -> None:
    small_vault(vault_root)
    rel = SESSION if mode == "log" else ENTITY
    before = (vault_root / rel).read_text()
    reports = _race(vault_root, "append.py", mode, extra=["7"])
    statuses: Counter[str] = Counter()
    for report in reports:
        statuses.update(report["statuses"])  # type: ignore[call-overload]
    assert sum(statuses.values()) == PROCESSES * ENTRIES
    # An append is never a conflict; only the optimistic path can rebase.
    assert set(statuses) <= ({"written", "rebased"} if mode == "patch-base" else {"written"})
    (_check_session if mode == "log" else _check_entity)(vault_root, before)
    assert temp_files(vault_root) == []


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["log", "patch"])
def test_eight_processes_of_fifty_cli_calls(vault_root: Path, mode: str) -> None:
    small_vault(vault_root)
    rel = SESSION if mode == "log" else ENTITY
    before = (vault_root / rel).read_text()
    reports = _race(vault_root, "cli_loop.py", mode, extra=[])
    assert [r["failures"] for r in reports] == [[]] * PROCESSES
    (_check_session if mode == "log" else _check_entity)(vault_root, before)
    assert temp_files(vault_root) == []
