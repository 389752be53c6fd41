"""``kill -9`` at random moments of a large compaction (a 6,000-line session into 12 entities),
then a plain re-run: the vault converges to the one an uninterrupted run makes, byte for byte.

The kill times are seeded and spread over the measured wall time of an uninterrupted run: half
of them one per equal slice of the whole run (start-up and extraction included), half one per
equal slice of its writing phase (from its first write to its end), where a kill can tear
something. tests/test_crash.py kills at named checkpoints; these kills know nothing of them.
"""

from __future__ import annotations

import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

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
    without_temps,
)

SEED = 20261122


@pytest.fixture(scope="module")
def big(tmp_path_factory: pytest.TempPathFactory) -> CompactionCase:
    """A 6,000-line session touching 12 entities (6 new, one global) and its reference run."""
    return compaction_case(tmp_path_factory.mktemp("kills"), lines=6000)


def _kill_then_rerun(tmp_path: Path, big: CompactionCase, kills: int) -> dict[str, int]:
    rng = random.Random(SEED + kills)
    whole = (kills + 1) // 2
    writing = kills - whole
    span = big.seconds - big.first_write
    delays = [big.seconds * (k + rng.random()) / whole for k in range(whole)]
    delays += [big.first_write + span * (k + rng.random()) / writing for k in range(writing)]
    initial = snapshot(big.initial)
    outcomes = {"before any write": 0, "midway": 0, "after the end": 0}
    args = [sys.executable, "-m", "vaultmem", *compact_args(Path("."), big.rel)]
    for n, delay in enumerate(delays):
        work = tmp_path / f"kill{n}"
        shutil.copytree(big.initial, work)
        args[4] = str(work)  # --vault
        proc = subprocess.Popen(args, cwd=REPO, env=run_env(**compaction_env()),
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        time.sleep(delay)
        proc.send_signal(signal.SIGKILL)
        _, err = proc.communicate(timeout=300)
        assert proc.returncode in (0, -signal.SIGKILL), err.decode()
        state = without_temps(snapshot(work))
        outcomes["before any write" if state == initial else
                 "after the end" if state == big.expected else "midway"] += 1
        rerun = cli(compact_args(work, big.rel), env=compaction_env())
        assert rerun.code == 0, f"kill {n} at {delay:.2f}s: {rerun.err}"
        assert rerun.out.startswith((f"{big.rel}: compacted", f"{big.rel}: already archived"))
        assert without_temps(snapshot(work)) == big.expected, f"kill {n} at {delay:.2f}s"
        ids_once(work)
        shutil.rmtree(work)
    # Shown with -s: where the kills landed (a timing fact, never asserted).
    print(f"\n{kills} kills over {big.seconds:.2f}s (first write at {big.first_write:.2f}s):"
          f" {outcomes}")
    return outcomes


def test_three_random_kills_converge(tmp_path: Path, big: CompactionCase) -> None:
    outcomes = _kill_then_rerun(tmp_path, big, 3)
    assert sum(outcomes.values()) == 3


@pytest.mark.slow
def test_twenty_random_kills_converge(tmp_path: Path, big: CompactionCase) -> None:
    outcomes = _kill_then_rerun(tmp_path, big, 20)
    assert sum(outcomes.values()) == 20
