"""recall on a loaded machine: the time its reading and ranking take between its queries does
not count against a query's deadline (SEARCH_SECONDS), which stops one runaway query only."""

from __future__ import annotations

import datetime as dt
import sqlite3
import types
from pathlib import Path

import pytest

from vaultmem.search import index, indexquery, recall
from vaultmem.search.index import SearchIndexError
from vaultmem.store.config import Config
from vaultmem.store.vault import Vault

TODAY = dt.date(2026, 11, 22)
FACT = "git push rejected (fetch first): pull before pushing"


def entity(name: str, line: str) -> str:
    return ("---\ntype: entity\nproject: demo\nupdated: 2026-11-20\n---\n"
            f"# {name}\n\n## Gotchas & Troubleshooting\n\n- 2026-11-20 — {line} ^vm-1111aaaa\n\n"
            f"## Recent Changes\n\n- Pushed the fix; a push was rejected once more today\n")


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """indexquery's monotonic clock, moved by the test: [now]."""
    now = [0.0]
    monkeypatch.setattr(indexquery, "time", types.SimpleNamespace(monotonic=lambda: now[0]))
    return now


def test_a_slow_read_between_queries_does_not_stop_the_recall(
        vault_root: Path, clock: list[float], monkeypatch: pytest.MonkeyPatch) -> None:
    """Each note recall reads between its queries takes longer than SEARCH_SECONDS (a machine
    at load 12, the recall at nice 19): every query still runs, and the fact is found."""
    # Enough notes holding some of the words that a query over them runs long enough for
    # SQLite to look at its deadline (every PROGRESS_STEPS steps).
    names = ["Git", *(f"Deploy {n}" for n in range(1200))]
    for n, name in enumerate(names):
        path = vault_root / f"claude/projects/demo/entities/{name}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(entity(name, FACT if n == 0 else f"{name}: push rejected by the hook"),
                        encoding="utf-8")
    vault = Vault(vault_root)
    index.refresh(vault)
    read = recall._body

    def slow_body(vault: Vault, rel: str) -> str:
        clock[0] += indexquery.SEARCH_SECONDS + 1
        return read(vault, rel)

    monkeypatch.setattr(recall, "_body", slow_body)
    found = recall.recall(vault, Config(vault=vault_root, project="demo"),
                          "push rejected fetch first", today=TODAY, limit=5)
    assert clock[0] > indexquery.SEARCH_SECONDS  # the reads took the time
    assert any("fetch first" in hit.text for hit in found.hits)


def test_one_query_past_its_deadline_is_still_stopped(vault_root: Path,
                                                      clock: list[float]) -> None:
    """A query that runs past SEARCH_SECONDS itself (a hostile index) is interrupted."""
    conn = sqlite3.connect(":memory:")
    steps = [0]

    def tick(_: int) -> int:
        steps[0] += 1
        clock[0] += 1.0  # each row takes a second
        return 0

    conn.create_function("tick", 1, tick)
    with pytest.raises(SearchIndexError, match="longer than"):
        indexquery.query(conn, "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n "
                         "WHERE i < 1000000) SELECT sum(tick(i)) FROM n", [], match="x")
    assert steps[0] < 1000000
