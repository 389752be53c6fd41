"""Concurrency worker: append numbered entries to one note's "## Work Log" through Vault.update.

Usage: append_worker.py VAULT REL WORKER COUNT MODE SEED
MODE "locked": update(base=None), read under the lock. MODE "base": load the note, sleep a
little (so other workers write in between), then update(base=note) to force rebases.
Prints one JSON line: {"statuses": {status: count}}.
"""

from __future__ import annotations

import json
import random
import sys
import time
from collections import Counter
from pathlib import Path

from vaultmem.notes.patch import SectionPatch
from vaultmem.store.vault import Vault


def main(argv: list[str]) -> int:
    root, rel, worker, count, mode, seed = argv
    vault = Vault(Path(root))
    rng = random.Random(int(seed))
    statuses: Counter[str] = Counter()
    for i in range(int(count)):
        edit = SectionPatch(heading=("Work Log",), op="append", content=f"- w{worker}-e{i}")
        base = None
        if mode == "base":
            base = vault.read(rel)
            time.sleep(rng.uniform(0, 0.004))
        result = vault.update(rel, [edit], base=base, label=f"worker {worker}")
        statuses[result.status] += 1
    print(json.dumps({"statuses": dict(statuses)}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
