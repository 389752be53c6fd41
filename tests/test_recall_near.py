"""A fact that holds every word of a query but one is shown after the facts that hold them all
and before the lines of notes (recall.with_near_facts): a fix filed in other words answers
better than the work-log lines that repeat the failure it fixes."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from test_recall_facts import front, write

from vaultmem.search import recall
from vaultmem.store.config import Config
from vaultmem.store.vault import Vault

TODAY = dt.date(2026, 11, 22)
P = "claude/projects/shop"
FIX = ("Fixed with `--no-gpg-sign`: `git pull` failed (`error: gpg failed to sign the data`)")


def _vault(root: Path, failures: int = 4) -> None:
    write(root, f"{P}/entities/Inbox.md", front("entity", updated="2026-11-12") + (
        f"# Inbox\n\n## Gotchas & Troubleshooting\n\n- 2026-11-10 — {FIX} ^vm-33333333\n"))
    for n in range(failures):
        day = f"2026-11-{n + 10:02d}"
        write(root, f"{P}/sessions/{day}-release-{n}.md",
              front("session", created=day, updated=day, status="archived") + (
                  f"# Release {n}\n\n## Work Log\n\n### 09:00 - Release\n\n"
                  f"- Failed: `git commit -m 'release {n}'` — `error: gpg failed to sign the "
                  "data`\n"))


def _recall(root: Path, query: str, limit: int = 5) -> list[recall.Hit]:
    return list(recall.recall(Vault(root), Config(vault=root, project="shop"), query,
                              today=TODAY, limit=limit).hits)


def test_a_fact_missing_one_word_comes_before_lines_that_hold_them_all(
        vault_root: Path) -> None:
    _vault(vault_root)
    hits = _recall(vault_root, "gpg failed to sign commit")
    assert len(hits) == 5
    assert [h.kind for h in hits][:1] == ["gotcha"] and hits[0].text == FIX
    assert all(h.kind == recall.NOTE for h in hits[1:])
    assert len({h.text for h in hits}) == 5


def test_a_fact_missing_two_words_or_a_short_query_adds_nothing(vault_root: Path) -> None:
    _vault(vault_root)
    assert all(h.kind == recall.NOTE for h in _recall(vault_root, "gpg failed to sign commit release"))
    assert all(h.kind == recall.NOTE for h in _recall(vault_root, "sign commit"))
