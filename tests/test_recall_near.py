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


def _entries(root: Path) -> None:
    # A note holding every word, each in an entry of its own; another whose entry answers in
    # all the words but one ("hang", not "timeout").
    write(root, f"{P}/sessions/2026-11-10-scattered.md",
          front("session", created="2026-11-10", updated="2026-11-10", status="archived") + (
              "# Scattered\n\n## Work Log\n\n"
              "### 09:00 - Deploy\n\n**Prompt:** deploy it\n**Answer:** Deploy done.\n\n"
              "### 09:10 - Staging\n\n**Prompt:** look at staging\n**Answer:** Staging is up.\n\n"
              "### 09:20 - Timeout\n\n**Prompt:** the timeout\n**Answer:** A timeout of 5 s.\n"))
    write(root, f"{P}/sessions/2026-11-11-hang.md",
          front("session", created="2026-11-11", updated="2026-11-11", status="archived") + (
              "# Hang\n\n## Work Log\n\n### 09:00 - Why does the staging deploy hang\n\n"
              "**Prompt:** why does the staging deploy hang\n"
              "**Answer:** The staging deploy waits on the health check: its limit is now 120 s.\n"))


def test_a_line_whose_entry_holds_all_words_but_one_comes_before_lines_holding_one(
        vault_root: Path) -> None:
    _entries(vault_root)
    hits = _recall(vault_root, "staging deploy timeout")
    texts = [h.text for h in hits]
    answer = next(n for n, t in enumerate(texts) if "health check" in t)
    one_word = [n for n, t in enumerate(texts) if t in ("Answer: Deploy done.", "Deploy done.")]
    assert one_word and answer < one_word[0]
    # Every word matched somewhere else: the note holding them all is still searched first.
    assert any("scattered" in h.rel for h in hits)


def test_a_note_missing_two_words_adds_no_line(vault_root: Path) -> None:
    _entries(vault_root)
    assert not any("hang" in h.rel for h in _recall(vault_root, "staging deploy timeout up"))
