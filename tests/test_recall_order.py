"""The order of recall's hits: a line counts the query's words its work log entry holds
(hitfold.held_with_context), and a short list is ranked as the default one is
(recall.RANKED_AT_LEAST)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from test_recall_facts import front, write

from vaultmem.search import recall
from vaultmem.store.config import Config
from vaultmem.store.vault import Vault

TODAY = dt.date(2026, 11, 22)
P = "claude/projects/shop"


def _recall(root: Path, query: str, limit: int) -> list[recall.Hit]:
    return list(recall.recall(Vault(root), Config(vault=root, project="shop"), query,
                              today=TODAY, limit=limit).hits)


def _session(root: Path, name: str, entries: list[tuple[str, str]]) -> None:
    log = "".join(f"### 09:{n:02d} - {prompt}\n\n**Prompt:** {prompt}\n**Answer:** {answer}\n\n"
                  for n, (prompt, answer) in enumerate(entries))
    write(root, f"{P}/sessions/2026-11-10-{name}.md",
          front("session", created="2026-11-10", updated="2026-11-10", status="archived")
          + f"# {name}\n\n## Work Log\n\n{log}")


def test_an_answer_comes_before_lines_whose_entries_hold_fewer_of_the_query(
        vault_root: Path) -> None:
    # The answer line names one word of the query, its entry's prompt the other: it answers
    # better than the lines of another note holding as many words, each in an entry of its own.
    _session(vault_root, "cache", [
        ("which eviction policy does the cache use", "The policy is allkeys-lru, set in redis.conf."),
    ])
    _session(vault_root, "chores", [
        ("tidy the repo", ("Moved the policy file under docs; the policy file lists owners; "
                          "a policy review is due.")),
        ("clean the queue", ("An eviction ran overnight; the eviction log is kept; "
                            "eviction counts are graphed.")),
    ])
    texts = [hit.text for hit in _recall(vault_root, "eviction policy", limit=10)]
    answer = "Answer: The policy is allkeys-lru, set in redis.conf."
    assert answer in texts
    chores = [n for n, text in enumerate(texts) if "policy file" in text or "overnight" in text]
    assert chores and texts.index(answer) < min(chores)


def test_a_short_list_is_the_start_of_the_default_one(vault_root: Path) -> None:
    # The notes holding the query's words most often hold them on separate lines; two notes
    # ranked after them hold them on one line. Five hits are read from as many notes as ten.
    for n in range(12):
        _session(vault_root, f"spread-{n:02d}", [
            ("look at the workers", ("The worker pool restarted; worker logs rotated; worker "
                                    "counts doubled.")),
            ("look at the timeouts", "A timeout fired; the timeout grew; timeout alerts fired."),
        ])
    for n in range(2):
        _session(vault_root, f"answer-{n}", [
            ("what happened", f"Answer {n}: the worker timeout is now 30 seconds, " + "because "
             "the reports took longer than expected on the largest customer's data. " * 3),
        ])
    ten = _recall(vault_root, "worker timeout", limit=10)
    five = _recall(vault_root, "worker timeout", limit=5)
    assert [hit.text for hit in five] == [hit.text for hit in ten[:5]]
    assert sum("is now 30 seconds" in hit.text for hit in five) == 2
