"""Two ``vaultmem compact NOTE --force`` processes on the same session at once: one compacts, the
other reports ``already archived`` or ``busy`` (exit 0) and changes nothing; the vault ends byte
for byte as one uninterrupted run leaves it."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from vaultmem.store.vault import Vault

from .kit import (
    REPO,
    CompactionCase,
    cli,
    compact_args,
    compaction_case,
    compaction_env,
    ids_once,
    run_env,
    snapshot,
)


@pytest.fixture(scope="module")
def case(tmp_path_factory: pytest.TempPathFactory) -> CompactionCase:
    """A 600-line session into 12 entities (6 of them new)."""
    return compaction_case(tmp_path_factory.mktemp("twice"), lines=600)


@pytest.fixture(scope="module")
def big_case(tmp_path_factory: pytest.TempPathFactory) -> CompactionCase:
    """A 6,000-line session: long enough that the second process often finds the lock held."""
    return compaction_case(tmp_path_factory.mktemp("twice-big"), lines=6000)


def _status(out: str, rel: str) -> str:
    first = out.splitlines()[0]
    assert first.startswith(f"{rel}: "), out
    return first[len(rel) + 2:].split(" (")[0]


def _two_at_once(work: Path, rel: str) -> list[str]:
    args = [sys.executable, "-m", "vaultmem", *compact_args(work, rel)]
    env = run_env(**compaction_env())
    procs = [subprocess.Popen(args, cwd=REPO, env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for _ in range(2)]
    statuses = []
    for proc in procs:
        out, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err
        assert err == ""
        statuses.append(_status(out, rel))
    return statuses


def _rounds(tmp_path: Path, case: CompactionCase, rounds: int) -> list[list[str]]:
    seen = []
    for n in range(rounds):
        work = tmp_path / f"round{n}"
        shutil.copytree(case.initial, work)
        statuses = _two_at_once(work, case.rel)
        loser, winner = sorted(statuses)
        assert (loser in ("already archived", "busy"), winner) == (True, "compacted"), statuses
        assert snapshot(work) == case.expected, f"round {n}: {statuses}"
        ids_once(work)
        seen.append(statuses)
    return seen


def test_two_compactions_at_once(tmp_path: Path, case: CompactionCase) -> None:
    _rounds(tmp_path, case, 3)


@pytest.mark.slow
def test_two_big_compactions_at_once(tmp_path: Path, big_case: CompactionCase) -> None:
    _rounds(tmp_path, big_case, 10)


def test_loser_that_finds_the_lock_held_reports_busy_and_writes_nothing(
    tmp_path: Path, case: CompactionCase
) -> None:
    work = tmp_path / "work"
    shutil.copytree(case.initial, work)
    before = snapshot(work)
    # The winner, still working: it holds the note's compaction lock.
    with Vault(work).lock(case.rel + ".compaction"):
        run = cli([*compact_args(work, case.rel), "--json"], env=compaction_env())
    assert run.code == 0 and run.err == ""
    [report] = json.loads(run.out)["reports"]
    assert report["status"] == "busy"
    assert report["error"] == "another process is compacting this note"
    assert snapshot(work) == before
    with Vault(work).lock(case.rel + ".compaction"):
        text = cli(compact_args(work, case.rel), env=compaction_env())
    assert text.out == f"{case.rel}: busy (another process is compacting this note)\n"


def test_loser_that_comes_second_reports_already_archived_and_writes_nothing(
    tmp_path: Path, case: CompactionCase
) -> None:
    work = tmp_path / "work"
    shutil.copytree(case.initial, work)
    first = cli(compact_args(work, case.rel), env=compaction_env())
    assert first.code == 0 and _status(first.out, case.rel) == "compacted"
    after_winner = snapshot(work)
    assert after_winner == case.expected
    second = cli(compact_args(work, case.rel), env=compaction_env())
    assert (second.code, second.err) == (0, "")
    assert second.out == f"{case.rel}: already archived\n"
    assert snapshot(work) == after_winner
