"""Reliability worker: append numbered entries to one note through the library, in a loop.

Usage: append.py VAULT MODE WORKER COUNT SEED
MODE "log": ``Memory.log`` into the session note of session id ``s-race`` (what
``vaultmem session log --session-id`` runs); entry titles ``w<W>-e<I>``.
MODE "patch": ``editing.patch_section`` appending ``- w<W>-e<I>`` under ``## Key Decisions`` of
the entity ``Auth`` (what ``vaultmem patch --append`` runs).
MODE "patch-base": the same append through ``Vault.update(base=...)`` after a short random pause
between the read and the write, as compaction does: other workers write in between, so the
appends rebase.
Prints one JSON line: {"statuses": {status: count}}.
"""

from __future__ import annotations

import json
import random
import sys
import time
from collections import Counter
from pathlib import Path

from vaultmem.memory import editing
from vaultmem.memory.sessions import Memory
from vaultmem.notes.patch import SectionPatch
from vaultmem.store.config import Config
from vaultmem.store.vault import Vault

SID = "s-race"
ENTITY = "claude/projects/demo/entities/Auth.md"


def main(argv: list[str]) -> int:
    root, mode, worker, count, seed = argv
    vault = Vault(Path(root))
    memory = Memory(Config(vault=Path(root), project="demo"), vault)
    rng = random.Random(int(seed))
    statuses: Counter[str] = Counter()
    for i in range(int(count)):
        name = f"w{worker}-e{i}"
        if mode == "log":
            status = memory.log(f"Body of {name}.", title=name, session_id=SID).status
        elif mode == "patch":
            status = editing.patch_section(vault, ENTITY, ("Key Decisions",), "append",
                                           f"- {name}").status
        elif mode == "patch-base":
            base = vault.read(ENTITY)
            time.sleep(rng.uniform(0, 0.004))
            edit = SectionPatch(("Key Decisions",), "append", f"- {name}")
            status = vault.update(ENTITY, [edit], base=base, label=f"worker {worker}").status
        else:
            raise SystemExit(f"unknown mode {mode!r}")
        statuses[status] += 1
    print(json.dumps({"statuses": dict(statuses)}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
