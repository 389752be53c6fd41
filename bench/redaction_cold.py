"""What redacting one turn costs a new process (a hook), checkouts alternated.

``python -m bench.redaction_cold TREE [TREE ...] [--windows 40]``: the texts a transcript read
redacts are collected from the real sessions of the first folder that holds some
(``$VAULTMEM_REAL_CORPUS``, bench/fixtures/real, shared/fixtures/real: ``real_corpus``); each
window is 20 consecutive texts (about a turn).
For each window, each checkout (``PYTHONPATH`` naming it; the cwd an empty folder, so that no
checkout is imported from it) redacts them in a new process: the CPU
of that first pass (the rules compiled on first use, as in a hook) and of a second pass (warm).
Prints the total and the median over the windows, and the median of the windows over 20 ms.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from .real_corpus import transcript_dirs

REPO = Path(__file__).resolve().parents[1]
WINDOW = 20
CHILD = (
    "import json, sys, time\n"
    "texts = json.load(open(sys.argv[1], encoding='utf-8'))\n"
    "from vaultmem.notes.redact import redact\n"
    "t = time.process_time()\n"
    "for x in texts: redact(x)\n"
    "cold = time.process_time() - t\n"
    "t = time.process_time()\n"
    "for x in texts: redact(x)\n"
    "print(cold, time.process_time() - t)\n"
)


def collect() -> list[str]:
    """The texts a read of each real fixture transcript hands to redaction, in order."""
    from vaultmem.claude import transcript

    texts: list[str] = []

    def keep(text: str) -> str:
        texts.append(text)
        return text

    folders = [d for d in transcript_dirs(REPO, os.environ) if any(d.glob("*/*.jsonl"))]
    for path in sorted(folders[0].glob("*/*.jsonl")) if folders else []:
        transcript.read(path, scrub=keep)
    return [t for t in texts if t]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trees", nargs="+", type=Path)
    parser.add_argument("--windows", type=int, default=40)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    texts = collect()
    rng = random.Random(args.seed)
    cold: dict[Path, list[float]] = {tree: [] for tree in args.trees}
    warm: dict[Path, list[float]] = {tree: [] for tree in args.trees}
    with tempfile.TemporaryDirectory() as tmp:
        for n in range(args.windows):
            at = rng.randrange(len(texts) - WINDOW)
            path = Path(tmp) / "window.json"
            path.write_text(json.dumps(texts[at:at + WINDOW]), encoding="utf-8")
            order = args.trees if n % 2 == 0 else args.trees[::-1]
            for tree in order:
                env = {**os.environ, "PYTHONPATH": str(tree.resolve())}
                out = subprocess.run([sys.executable, "-c", CHILD, str(path)], env=env, cwd=tmp,
                                     capture_output=True, text=True, check=True).stdout.split()
                cold[tree].append(float(out[0]) * 1000)
                warm[tree].append(float(out[1]) * 1000)
    heavy = [i for i in range(args.windows) if cold[args.trees[0]][i] > 20]
    for tree in args.trees:
        c = cold[tree]
        print(f"{tree}: cold total {sum(c):.0f} ms, median {statistics.median(c):.1f} ms; "
              f"over 20 ms ({len(heavy)} windows, by the first tree) median "
              f"{statistics.median([c[i] for i in heavy]) if heavy else 0:.1f} ms; "
              f"warm total {sum(warm[tree]):.0f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
