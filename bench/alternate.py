"""A hook against the import floor, checkouts alternated in one run.

``python -m bench.alternate TREE [TREE ...] [--runs 21] [--hook end|start]``: each round runs the
floor (``import yaml, markdown_it, filelock``) and the hook's row once per checkout (``PYTHONPATH``
naming it), the order rotated each round, so that the load of a shared machine falls on all of
them alike. ``end`` (the default): ``hook session-end: below threshold (120 lines)`` on a
1,000-note vault; ``start``: ``hook session-start (10,000 notes)``. Prints the medians of wall
and CPU time and their ratio to the floor's.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

from .cases import PY, VaultmemEnv, session_end_case, session_start_case
from .runner import SPAWNER, Case, Sample, Workspace, run_command


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trees", nargs="+", type=Path)
    parser.add_argument("--runs", type=int, default=21)
    parser.add_argument("--hook", choices=("end", "start"), default="end")
    args = parser.parse_args(argv)
    ws = Workspace(Path(tempfile.mkdtemp(prefix="vaultmem-alternate-")))
    env = VaultmemEnv(ws, "small", 1000) if args.hook == "end" else VaultmemEnv(ws, "large", 10_000)
    rows: dict[str, Callable[[], Sample]] = {
        "floor": lambda: run_command([PY, "-c", "import yaml, markdown_it, filelock"])}
    for tree in args.trees:
        tree_env = dict(env.env, PYTHONPATH=str(tree.resolve()))
        make: Callable[[VaultmemEnv], Case] = session_start_case if args.hook == "start" \
            else lambda e: session_end_case(e, lines=120, entities=3, new=0)
        rows[str(tree)] = _in_env(env, tree_env, make)
    if args.hook == "start":
        rows = {name: _tidy(env, run) if name != "floor" else run for name, run in rows.items()}
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


def _in_env(env: VaultmemEnv, tree_env: dict[str, str],
            make: Callable[[VaultmemEnv], Case]) -> Callable[[], Sample]:
    """The row ``make`` builds, built and run with ``env.env`` set to ``tree_env``."""
    shared = env.env
    env.env = tree_env
    case = make(env)
    env.env = shared

    def run() -> Sample:
        shared = env.env
        env.env = tree_env
        try:
            return case.run()
        finally:
            env.env = shared

    return run


def _tidy(env: VaultmemEnv, run: Callable[[], Sample]) -> Callable[[], Sample]:
    """``run``, then the session notes it made removed (untimed): past 25 notes started and left
    empty, the briefing would find no session to tell of (``briefing.MAX_SESSION_READS``)."""
    sessions = env.root / "claude" / "projects" / env.project / "sessions"
    before = set(sessions.iterdir())

    def tidied() -> Sample:
        sample = run()
        for made in set(sessions.iterdir()) - before:
            made.unlink()
        return sample

    return tidied


if __name__ == "__main__":
    sys.exit(main())
