"""Instructions the hooks execute against the import floor's: a measure the load does not move.

``python -m bench.instructions [TREE ...] [--runs N] [--only TEXT] [--tool perf|callgrind]
[--quick]``: the rows ``import yaml, markdown_it, filelock`` (the floor), ``hook session-start``,
``hook session-end: below threshold``, ``hook user-prompt-submit`` and ``hook
post-tool-use-failure`` of ``python -m bench``, each run once untimed and then ``--runs`` times
(default 1) under an instruction counter, with ``PYTHONHASHSEED=0``. Each TREE (default: this
checkout) is named by ``PYTHONPATH`` and runs on its own copy of the generated vaults, so two
checkouts are compared on the same notes. Prints each row's count (the median of its runs, with
their spread) and its ratio to the floor's.

The counter: ``perf stat -e instructions:u`` when the kernel lets perf count them here, else
valgrind's callgrind (about 30 times slower: a hook takes 10 to 40 s). Without either the command
says so and exits 0. Counts are of the measured process alone (not of a child it starts, such as
git); the floor is counted by the same tool. Wall time swings by a third between quiet runs on a
shared 2-core machine; the count of one run repeats to within a few thousand instructions.
"""

from __future__ import annotations

import argparse
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from . import runner
from .cases import FULL, PY, QUICK, VaultmemEnv, session_end_case, session_start_case
from .moment_rows import FLOOR, moment_cases
from .runner import SPAWNER, Case, InstructionCounter, Sample, Workspace, run_command

HOOK_ROWS = ("hook session-start", "hook session-end", "hook user-prompt-submit",
             "hook post-tool-use-failure")


class PerfCounter(InstructionCounter):
    """``perf stat -e instructions:u`` of the process alone (``-i``: no children), as CSV."""

    name = "perf stat -e instructions:u"

    def argv(self, report: Path) -> list[str]:
        """``perf stat`` writing its CSV to ``report``."""
        return ["perf", "stat", "-x,", "-i", "-e", "instructions:u", "-o", str(report), "--"]

    def count(self, report: str) -> int | None:
        """The first field of the ``instructions`` line (``<not supported>`` is none)."""
        for line in report.splitlines():
            fields = line.split(",")
            if len(fields) > 2 and fields[2].startswith("instructions") and fields[0].isdigit():
                return int(fields[0])
        return None


class CallgrindCounter(InstructionCounter):
    """valgrind's callgrind: every instruction of the process (``Collected`` in its log)."""

    name = "valgrind --tool=callgrind"
    _COLLECTED = re.compile(r"Collected\s*:\s*(\d+)")

    def argv(self, report: Path) -> list[str]:
        """callgrind with its log in ``report`` and no profile file."""
        return ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
                f"--log-file={report}"]

    def count(self, report: str) -> int | None:
        """The ``Collected : N`` of the log."""
        found = self._COLLECTED.search(report)
        return int(found.group(1)) if found else None


def pick_counter(wanted: str | None = None) -> tuple[InstructionCounter | None, str]:
    """The counter that works on this machine (``wanted``: only that one), or None and why."""
    reasons: list[str] = []
    if wanted in (None, "perf"):
        if shutil.which("perf") is None:
            reasons.append("perf: not installed")
        else:
            perf = PerfCounter()
            with tempfile.TemporaryDirectory() as tmp:
                report = Path(tmp) / "count"
                subprocess.run([*perf.argv(report), PY, "-c", "pass"], capture_output=True,
                               check=False)
                text = report.read_text("utf-8", "replace") if report.exists() else ""
            if perf.count(text):
                return perf, ""
            first = text.strip().splitlines()[-1:] or ["no report"]
            reasons.append(f"perf: cannot count instructions here ({first[0][:80]})")
    if wanted in (None, "callgrind"):
        if shutil.which("valgrind") is not None:
            return CallgrindCounter(), ""
        reasons.append("valgrind: not installed (apt-get install valgrind)")
    return None, "; ".join(reasons)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trees", nargs="*", type=Path, help="checkouts (default: this one)")
    parser.add_argument("--runs", type=int, default=1, help="counted runs per row (default 1)")
    parser.add_argument("--only", action="append", default=None,
                        help="only the hook rows whose name contains this (repeatable)")
    parser.add_argument("--tool", choices=("perf", "callgrind"), default=None)
    parser.add_argument("--quick", action="store_true", help="2,000 and 1,000 notes")
    args = parser.parse_args(argv)
    counter, why = pick_counter(args.tool)
    if counter is None:
        print(f"instruction counts skipped: {why}")
        return 0
    sizes = QUICK if args.quick else FULL
    trees = args.trees or [Path(__file__).resolve().parents[1]]
    wanted = [w.lower() for w in args.only or HOOK_ROWS]
    ws = Workspace(Path(tempfile.mkdtemp(prefix="vaultmem-instructions-")))
    print(f"counter: {counter.name}; {sizes.large:,}-note and {sizes.small:,}-note vaults",
          file=sys.stderr)
    try:
        large = VaultmemEnv(ws, "large", sizes.large)
        small = VaultmemEnv(ws, "small", sizes.small)
        rows: dict[str, dict[str, list[int]]] = {}
        for n, tree in enumerate(trees):
            cases = _cases(ws, n, tree, large, small)
            picked = [c for c in cases if c.group == "floor"
                      or any(w in c.name.lower() for w in wanted)]
            for case in picked:
                print(f"{tree}: {case.name}", file=sys.stderr, flush=True)
                rows.setdefault(case.name, {})[str(tree)] = _count(case, counter, args.runs)
    finally:
        SPAWNER.close()
        shutil.rmtree(ws.root, ignore_errors=True)
    _report(rows, trees)
    return 0


def _cases(ws: Workspace, n: int, tree: Path, large: VaultmemEnv,
           small: VaultmemEnv) -> list[Case]:
    """The rows for ``tree``, on copies of the vaults of its own."""
    big, little = _copy(ws, f"large-{n}", large), _copy(ws, f"small-{n}", small)
    for env in (big, little):
        env.env = dict(env.env, PYTHONPATH=str(tree.resolve()))
    floor = Case("floor: import yaml, markdown_it, filelock", "floor",
                 lambda: run_command(FLOOR))
    return [floor, session_start_case(big),
            session_end_case(little, lines=120, entities=3, new=0), *moment_cases(big)]


def _copy(ws: Workspace, name: str, env: VaultmemEnv) -> VaultmemEnv:
    """A copy of ``env``'s vault (as generated: no hook ran on it yet) under ``name``."""
    shutil.copytree(env.root, ws.path(name) / "vault", symlinks=True)
    return VaultmemEnv(ws, name, len(env.vault.notes), vault=env.vault)


def _count(case: Case, counter: InstructionCounter, runs: int) -> list[int]:
    """One untimed run, then ``runs`` counted ones."""
    case.run()
    counts: list[int] = []
    runner.COUNTER = counter
    try:
        for _ in range(runs):
            sample: Sample = case.run()
            if sample.instructions is None:
                raise RuntimeError(f"{case.name}: no instruction count")
            counts.append(sample.instructions)
    finally:
        runner.COUNTER = None
    return counts


def _report(rows: dict[str, dict[str, list[int]]], trees: list[Path]) -> None:
    floor_name = next(name for name in rows if name.startswith("floor"))
    for tree in trees:
        floor = statistics.median(rows[floor_name][str(tree)])
        print(tree)
        for name, by_tree in rows.items():
            counts = by_tree.get(str(tree))
            if not counts:
                continue
            mid = statistics.median(counts)
            spread = f" (runs {min(counts):,} to {max(counts):,})" if len(counts) > 1 else ""
            print(f"  {name}: {mid / 1e6:,.1f}M instructions, {mid / floor:.3f}x the floor"
                  f"{spread}")


if __name__ == "__main__":
    sys.exit(main())
