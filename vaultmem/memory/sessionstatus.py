"""What ``vaultmem status`` shows of a project's session notes (``Upkeep.status``,
``Upkeep.extraction_costs``): values of their own module, as a SessionEnd creates none.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class SessionStatus:
    """One session note in ``vaultmem status``."""

    note: str
    lines: int
    age_days: int
    status: str  # the note's status property ("invalid" when its YAML is)
    verdict: str  # "below threshold (487 lines, 1 day old)", "due: 623 lines", "archived"...
    due: bool
    items: int = 0  # list lines (of a note due for compaction)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        return {"note": self.note, "lines": self.lines, "age_days": self.age_days,
                "status": self.status, "verdict": self.verdict, "due": self.due}



@dataclass(frozen=True)
class ExtractionCosts:
    """What a project's model extractions cost (``vaultmem status``)."""

    project: str
    notes: int  # session notes with a recorded cost
    total_usd: float

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        return {"project": self.project, "notes": self.notes, "total_usd": self.total_usd}
