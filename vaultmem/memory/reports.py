"""What a compaction reports: a value shared by the use-case (memory) and the run (compactor)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class CompactReport:
    """What one compaction did (or would do, for a dry run)."""

    note: str
    status: str  # compacted, below threshold, failed, dry-run, already archived, busy
    verdict: str
    counts: Mapping[str, int] = field(default_factory=dict)
    entities_updated: tuple[str, ...] = ()
    entities_created: tuple[str, ...] = ()
    archive: str | None = None
    duration_ms: float = 0.0
    extractor: str = "deterministic"
    fallback_reason: str | None = None
    warnings: tuple[str, ...] = ()
    diffs: tuple[str, ...] = ()
    error: str | None = None
    removed: bool = False  # --move removed the original
    cost_usd: float | None = None  # the model run's cost (claude extractor), when it ran

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        return {
            "note": self.note,
            "status": self.status,
            "verdict": self.verdict,
            "counts": dict(self.counts),
            "entities_updated": list(self.entities_updated),
            "entities_created": list(self.entities_created),
            "archive": self.archive,
            "duration_ms": self.duration_ms,
            "extractor": self.extractor,
            "fallback_reason": self.fallback_reason,
            "warnings": list(self.warnings),
            "diffs": list(self.diffs),
            "error": self.error,
            "removed": self.removed,
            "extraction_cost_usd": self.cost_usd,
        }


def plural(count: int, word: str) -> str:
    """``1 problem``, ``2 problems``, ``1 gotcha``, ``0 notes``: English, not ``1 problems``."""
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def verdict_line(status: str, verdict: str) -> str:
    """A report's status with its verdict, each said once ("below threshold (487 lines, 1 day
    old)", not "below threshold (below threshold (…))")."""
    if verdict.startswith(status) or status.endswith(verdict):
        return verdict if len(verdict) >= len(status) else status
    return f"{status} ({verdict})"
