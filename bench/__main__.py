"""``python -m bench [--quick] [--runs N] [--out FILE] [--no-peers]``: run the benchmarks.

Prints the table (rich when installed, else plain text) and writes the JSON results
(default ``bench/results/latest.json``). See ``bench/README.md`` for what each row means.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

# The rows import vaultmem from this checkout, installed or not.
_REPO = Path(__file__).resolve().parents[1]
if str(_REPO) not in sys.path:
    sys.path.insert(0, str(_REPO))

from bench.cases import FULL, QUICK, all_vaultmem_cases
from bench.runner import (
    DEFAULT_OUT,
    SPAWNER,
    Case,
    Row,
    Workspace,
    environment,
    markdown_table,
    measure,
    print_table,
    with_ratios,
    write_json,
)


def _log(message: str) -> None:
    print(f"[bench] {message}", file=sys.stderr, flush=True)


def main(argv: list[str] | None = None) -> int:
    """Run every row and report."""
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__.split("\n")[0])
    parser.add_argument(
        "--quick", action="store_true", help="smaller vaults (2,000 / 1,000 / 100 notes) and 3 runs"
    )
    parser.add_argument("--runs", type=int, default=None, help="timed runs per row (default 5)")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="JSON results file")
    parser.add_argument(
        "--markdown", type=Path, default=None, help="also write the table as Markdown to this file"
    )
    parser.add_argument(
        "--no-peers", action="store_true", help="skip basic-memory and obsidiantools (no install)"
    )
    parser.add_argument(
        "--only",
        action="append",
        default=None,
        help="run only the rows whose name contains this text (repeat: any of them)",
    )
    parser.add_argument(
        "--skip",
        action="append",
        default=None,
        help="leave out the rows whose name contains this text (repeatable)",
    )
    parser.add_argument("--plain", action="store_true", help="plain-text table even with rich")
    parser.add_argument("--keep", action="store_true", help="keep the scratch folder")
    args = parser.parse_args(argv)
    sizes = QUICK if args.quick else FULL
    runs = args.runs if args.runs is not None else (3 if args.quick else 5)
    if runs < 1:
        parser.error("--runs must be at least 1")

    ws = Workspace(Path(tempfile.mkdtemp(prefix="vaultmem-bench-")), keep=args.keep)
    started = time.monotonic()
    try:
        cases, _, _ = all_vaultmem_cases(ws, sizes, progress=_log)
        decided: list[Row] = []
        if not args.no_peers:
            from bench.peers import peer_rows_and_cases

            peer_cases, decided = peer_rows_and_cases(ws, sizes.peer, log=_log)
            cases += peer_cases
        if args.only:
            wanted = [text.lower() for text in args.only]
            cases = [c for c in cases if any(w in c.name.lower() for w in wanted)]
            decided = [r for r in decided if any(w in r.name.lower() for w in wanted)]
        if args.skip:
            unwanted = [text.lower() for text in args.skip]
            cases = [c for c in cases if not any(w in c.name.lower() for w in unwanted)]
            decided = [r for r in decided if not any(w in r.name.lower() for w in unwanted)]
        rows = _measure_all(cases, runs)
        rows = with_ratios(rows + decided)
    finally:
        SPAWNER.close()
        if ws.keep:
            _log(f"scratch kept in {ws.root}")
        else:
            shutil.rmtree(ws.root, ignore_errors=True)

    print_table(rows, plain=args.plain)
    meta = {
        **environment(),
        "quick": args.quick,
        "runs": runs,
        "sizes": {"large": sizes.large, "small": sizes.small, "peer": sizes.peer},
        "elapsed_s": round(time.monotonic() - started, 1),
    }
    write_json(args.out, rows, meta)
    _log(f"results written to {args.out}")
    if args.markdown:
        args.markdown.parent.mkdir(parents=True, exist_ok=True)
        args.markdown.write_text(markdown_table(rows), encoding="utf-8")
        _log(f"markdown table written to {args.markdown}")
    return 1 if any(r.error and r.group != "peer" for r in rows) else 0


def _measure_all(cases: list[Case], runs: int) -> list[Row]:
    rows: list[Row] = []
    for i, case in enumerate(cases, 1):
        _log(f"({i}/{len(cases)}) {case.name}")
        started = time.monotonic()
        row = measure(case, runs)
        if row.error:
            _log(f"    failed: {row.error}")
        else:
            _log(f"    {time.monotonic() - started:.1f} s")
        rows.append(row)
    return rows


if __name__ == "__main__":
    raise SystemExit(main())
