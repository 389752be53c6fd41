"""Attack (issue 23 §2): a crafted ``.vaultmem/index.sqlite`` pushed with a shared vault — the right
schema version, plus objects vaultmem never makes (a trigger that never ends, a view). recall
rebuilds an index it did not build instead of running what the file holds, and a search has a
time limit."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from hook_kit import hook_env

from vaultmem.search import index, indexquery
from vaultmem.store.vault import Vault

FOREVER = ("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) "
           "SELECT count(*) FROM c")
CRAFTED = {
    "trigger": f"CREATE TRIGGER vm_evil AFTER INSERT ON notes BEGIN {FOREVER}; END",
    "delete-trigger": f"CREATE TRIGGER vm_evil BEFORE DELETE ON notes BEGIN {FOREVER}; END",
    "view": f"CREATE VIEW vm_evil AS {FOREVER}",
    "table": "CREATE TABLE vm_extra (x)",
}


def _recall(vault: Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "vaultmem", "recall", "login"], text=True,
                          capture_output=True, cwd=cwd, timeout=120, check=False,
                          env=hook_env(vault, VAULTMEM_PROJECT="shop"))


@pytest.mark.parametrize("kind", sorted(CRAFTED))
def test_a_crafted_index_is_rebuilt_not_run(kind: str, tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    vault.mkdir(exist_ok=True)  # hooks create only the default vault
    notes = vault / "claude" / "projects" / "shop" / "entities"
    notes.mkdir(parents=True)
    (notes / "Auth.md").write_text("---\ntype: entity\nproject: shop\n---\n# Auth\n\nlogin v1\n")
    assert _recall(vault, tmp_path).returncode == 0
    path = vault / ".vaultmem" / "index.sqlite"
    conn = sqlite3.connect(path)
    conn.execute(CRAFTED[kind])
    conn.commit()
    conn.close()
    (notes / "Auth.md").write_text("---\ntype: entity\nproject: shop\n---\n# Auth\n\nlogin v2\n")
    (notes / "Billing.md").write_text("---\ntype: entity\nproject: shop\n---\n# Billing\n\nlogin\n")
    (notes / "Old.md").unlink(missing_ok=True)
    done = _recall(vault, tmp_path)  # a hang is the failure (the subprocess times out)
    assert done.returncode == 0, done.stderr
    assert "Billing" in done.stdout
    conn = sqlite3.connect(path)
    names = {row[0] for row in conn.execute("SELECT name FROM sqlite_master")}
    conn.close()
    assert "vm_evil" not in names and "vm_extra" not in names


def test_a_search_stops_at_its_time_limit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                          ) -> None:
    vault = tmp_path / "vault"
    vault.mkdir(exist_ok=True)  # hooks create only the default vault
    notes = vault / "claude" / "projects" / "shop" / "entities"
    notes.mkdir(parents=True)
    for n in range(300):
        (notes / f"N{n}.md").write_text(f"# N{n}\n\n" + "login token session " * 200 + "\n")
    v = Vault(vault)
    index.refresh(v)
    monkeypatch.setattr(indexquery, "SEARCH_SECONDS", 0.0)
    with pytest.raises(index.SearchIndexError, match="longer than"):
        from datetime import date
        indexquery.search(v, "login OR token OR session", current_project="shop",
                          today=date(2026, 11, 22), limit=1000)
