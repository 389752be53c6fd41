"""Real processes appending to one note at once (DESIGN §4: no lost update, ever)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from vaultmem.notes.frontmatter import parse
from vaultmem.store.vault import Vault

WORKER = Path(__file__).parent / "helpers" / "append_worker.py"
REPO = Path(__file__).resolve().parent.parent
REL = "claude/projects/demo/sessions/2026-11-22-race.md"
NOTE = (
    "---\n"
    "type: session\n"
    "project: demo\n"
    "tags:\n"
    "  - claude\n"
    "status: active\n"
    "---\n"
    "# Race\n"
    "\n"
    "## Work Log\n"
    "\n"
    "## Next Steps\n"
    "\n"
    "- keep going\n"
)
WORKERS = 6
ENTRIES = 20


@pytest.mark.parametrize("mode", ["locked", "base"])
def test_concurrent_appends_lose_nothing(vault_root: Path, mode: str) -> None:
    vault = Vault(vault_root)
    vault.create(REL, NOTE)
    env = {**os.environ, "PYTHONPATH": str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    procs = [
        subprocess.Popen(
            [sys.executable, str(WORKER), str(vault_root), REL, str(w), str(ENTRIES), mode, str(w)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        for w in range(WORKERS)
    ]
    statuses: Counter[str] = Counter()
    for proc in procs:
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
        statuses.update(json.loads(out)["statuses"])

    assert sum(statuses.values()) == WORKERS * ENTRIES
    # Appends never turn into conflicts; without a base they never even rebase.
    assert set(statuses) <= ({"written"} if mode == "locked" else {"written", "rebased"})

    text = (vault_root / REL).read_text()
    lines = text.splitlines()
    for w in range(WORKERS):
        for i in range(ENTRIES):
            assert lines.count(f"- w{w}-e{i}") == 1, f"w{w}-e{i}"
    # Each worker's entries keep their order.
    for w in range(WORKERS):
        own = [ln for ln in lines if ln.startswith(f"- w{w}-")]
        assert own == [f"- w{w}-e{i}" for i in range(ENTRIES)]
    # The whole log is one tight list right under its heading, before the next section.
    log_start = lines.index("## Work Log")
    next_steps = lines.index("## Next Steps")
    assert lines[log_start + 1] == ""
    assert len(lines[log_start + 2 : next_steps - 1]) == WORKERS * ENTRIES
    assert parse(text) == {
        "type": "session",
        "project": "demo",
        "tags": ["claude"],
        "status": "active",
    }
    assert text.endswith("## Next Steps\n\n- keep going\n")
    assert [p for p in vault_root.rglob("*") if p.name.endswith(".vmtmp")] == []
