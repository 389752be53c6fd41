"""SessionEnd below threshold against the import floor, checkouts alternated in one run.

``python -m bench.alternate TREE [TREE ...] [--runs 21]``: one 1,000-note vault; each round runs
the floor (``import yaml, markdown_it, filelock``) and the ``hook session-end: below threshold
(120 lines)`` row once per checkout (``PYTHONPATH`` naming it), the order rotated each round, so
that the load of a shared machine falls on all of them alike. Prints the medians of wall and CPU
time and their ratio to the floor's.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

from .cases import PY, VaultmemEnv, session_end_case
from .runner import SPAWNER, Sample, Workspace, run_command


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trees", nargs="+", type=Path)
    parser.add_argument("--runs", type=int, default=21)
    args = parser.parse_args(argv)
    ws = Workspace(Path(tempfile.mkdtemp(prefix="vaultmem-alternate-")))
    env = VaultmemEnv(ws, "small", 1000)
    rows: dict[str, Callable[[], Sample]] = {
        "floor": lambda: run_command([PY, "-c", "import yaml, markdown_it, filelock"])}
    for tree in args.trees:
        shared = env.env
        env.env = dict(shared, PYTHONPATH=str(tree.resolve()))
        rows[str(tree)] = session_end_case(env, lines=120, entities=3, new=0).run
        env.env = shared
    names = list(rows)
    for name in names:  # warm-up, untimed
        rows[name]()
    wall: dict[str, list[float]] = {name: [] for name in names}
    cpu: dict[str, list[float]] = {name: [] for name in names}
    for n in range(args.runs):
        for name in names[n % len(names):] + names[:n % len(names)]:
            sample = rows[name]()
            wall[name].append(sample.seconds)
            cpu[name].append(sample.cpu or 0.0)
    SPAWNER.close()
    shutil.rmtree(ws.root, ignore_errors=True)
    floor_wall, floor_cpu = statistics.median(wall["floor"]), statistics.median(cpu["floor"])
    for name in names:
        w, c = statistics.median(wall[name]), statistics.median(cpu[name])
        print(f"{name}: wall {w * 1000:.0f} ms ({w / floor_wall:.2f}x), "
              f"cpu {c * 1000:.0f} ms ({c / floor_cpu:.2f}x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
