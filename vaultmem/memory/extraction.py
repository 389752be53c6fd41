"""What compaction extracts from a session note; shared by both extractors. Values only."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from vaultmem.notes import schema

# The kinds compaction files: the session note's, and what only an LLM extractor names.
Kind = Literal[schema.Kind.DECISION, schema.Kind.GOTCHA, "reference", "pattern",
               schema.Kind.PREREQUISITE]
KINDS: tuple[Kind, ...] = (schema.Kind.DECISION, schema.Kind.GOTCHA, "reference", "pattern",
                           schema.Kind.PREREQUISITE)

# The entity heading each kind is patched under (DESIGN §5 step 3); prerequisites go under this
# heading of the project's ``_index.md`` instead of an entity.
TARGET_HEADING: Mapping[Kind, str] = {
    schema.Kind.DECISION: schema.ENTITY_SECTION[schema.Kind.DECISION],
    schema.Kind.GOTCHA: schema.ENTITY_SECTION[schema.Kind.GOTCHA],
    "reference": schema.RECENT_CHANGES,
    "pattern": schema.RECENT_CHANGES,
    schema.Kind.PREREQUISITE: schema.ENTITY_SECTION[schema.Kind.PREREQUISITE],
}


@dataclass(frozen=True)
class Item:
    """One piece of knowledge bound for entity notes."""

    kind: Kind
    text: str  # one line, <private> text removed, no block id
    entities: tuple[str, ...]  # entity names, each valid per links.safe_entity_name (none for
    # a prerequisite: those go to the project's _index.md)
    line: int  # 0-based line in the session note; -1 when it came from the LLM


@dataclass(frozen=True)
class Extraction:
    """The result of one extractor run."""

    items: tuple[Item, ...]
    extractor: str  # "deterministic", "llm" (the API) or "claude" (the Claude Code CLI)
    fallback_reason: str | None = None  # why the LLM was not used, when it was asked for
    usage: Mapping[str, int] | None = None  # input/output tokens of the LLM call
    cost_usd: float | None = None  # what the model run cost (claude: its total_cost_usd)

    def count(self, kind: Kind) -> int:
        """How many items of one kind."""
        return sum(1 for item in self.items if item.kind == kind)
