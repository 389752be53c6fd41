"""When a session note is due for compaction (DESIGN §5), pure.

Split from ``compaction`` (which re-exports everything here) so that the hooks that only ask
whether a note is due (every session end, every session start) do not import the extractor and
the planner: their start-up is part of Claude Code's 1.5 s SessionEnd budget.
"""

from __future__ import annotations

import posixpath
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date
from typing import Any

from vaultmem.notes import frontmatter, propedit
from vaultmem.store.config import Config

FORCED_REASON = "Manual compaction (--force)"
# Frontmatter keys a model extractor's run writes on the session note (compactor).
EXTRACTION_KEYS = ("extractor", "extraction_cost_usd", "fallback_reason")


@dataclass(frozen=True)
class Verdict:
    """Whether a session note is due for compaction, and how to say it."""

    due: bool
    lines: int
    age_days: int
    text: str  # "below threshold (487 lines, 1 day old)" / "due: 623 lines" / "due: 4 days old"
    reason: str  # archived_reason when due: "Compaction threshold exceeded (623 lines)"


def _days(n: int) -> str:
    return f"{n} day{'' if n == 1 else 's'} old"


def with_line_count(text: str) -> str:
    """``text`` with ``lines: <its line count>`` in the frontmatter (the count the rule uses,
    the new key's own line included), so Obsidian Bases and Dataview can show it."""
    for _ in range(3):  # adding the key adds a line: settles on the second pass
        new = propedit.set_key(text, "lines", len(text.splitlines()))
        if new == text:
            break
        text = new
    return text


def verdict(lines: int, created: date, today: date, config: Config) -> Verdict:
    """DESIGN §5: due when ``lines >= line_threshold`` or ``today - created >= age_threshold_days``."""
    age = max((today - created).days, 0)
    why: list[str] = []
    if lines >= config.line_threshold:
        why.append(f"{lines} lines")
    if age >= config.age_threshold_days:
        why.append(_days(age))
    if why:
        return Verdict(True, lines, age, "due: " + ", ".join(why),
                       f"Compaction threshold exceeded ({', '.join(why)})")
    return Verdict(False, lines, age, f"below threshold ({lines} lines, {_days(age)})", "")


def created_date(meta: Mapping[str, Any], rel: str, today: date) -> date:
    """The note's ``created`` date, else the date its file name starts with, else today."""
    value = meta.get("created")
    if isinstance(value, date):
        return value
    for candidate in (str(value) if value is not None else "", posixpath.basename(rel)[:10]):
        try:
            return date.fromisoformat(candidate[:10])
        except ValueError:
            continue
    return today


def canonical(text: str) -> str:
    """The note as compaction sees it: a previous run's ``error``/``archive_error`` dropped and
    ``compaction_failed`` back to ``active``, so a failed run and its re-run archive the same bytes.
    What a model extractor's run recorded (``extractor``, ``extraction_cost_usd``,
    ``fallback_reason``) is left out for the same reason: a re-run asks the model again."""
    meta = frontmatter.parse(text)
    out = text
    for key in ("error", "archive_error", *EXTRACTION_KEYS):
        if key in meta:
            out = propedit.delete_key(out, key)
    if meta.get("status") == "compaction_failed":
        out = propedit.set_key(out, "status", "active")
    return out
