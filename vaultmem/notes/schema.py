"""The vocabulary of vaultmem's notes (pure): the kinds of knowledge and the section names.

Each kind and each section name is spelled here and nowhere else in ``vaultmem/`` (a test
greps for them); the templates in ``templates/`` are tested against these names. A name in
this module is the heading's text without its ``## ``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from enum import Enum


class Kind(str, Enum):
    """A kind of knowledge a session note holds, each under its own section.

    The value is the canonical spelling (the CLI's ``--kind``, the MCP tools, ``recall --json``).
    ``Kind("next_step")``, the spelling older versions used inside capture, reads as
    :attr:`NEXT_STEP`, so whatever they wrote still loads.
    """

    DECISION = "decision"
    GOTCHA = "gotcha"
    PREREQUISITE = "prerequisite"
    QUESTION = "question"
    NEXT_STEP = "next-step"

    def __str__(self) -> str:
        return self.value

    @classmethod
    def _missing_(cls, value: object) -> Kind | None:
        if isinstance(value, str):
            spelled = value.strip().lower().replace("_", "-").replace(" ", "-")
            for kind in cls:
                if kind.value == spelled:
                    return kind
        return None


# Sections of a session note, in the template's order.
CONTEXT = "Context"
WORK_LOG = "Work Log"
DECISIONS_MADE = "Decisions Made"
GOTCHAS_AND_FIXES = "Gotchas & Fixes"
PREREQUISITES = "Prerequisites"
OPEN_QUESTIONS = "Open Questions"
NEXT_STEPS = "Next Steps"
RELATED_ENTITIES = "Related Entities"
# Added by capture below the template's sections when Claude Code compacts its context.
COMPACT_SUMMARIES = "Compact Summaries"
# The label of a decision that is a state the session set up (mining.setups).
SET_UP = "Set up:"
SESSION_SECTIONS = (CONTEXT, WORK_LOG, DECISIONS_MADE, GOTCHAS_AND_FIXES, PREREQUISITES,
                    OPEN_QUESTIONS, NEXT_STEPS, RELATED_ENTITIES)

# Sections of an entity note, in the template's order (Related Entities as in a session note).
OVERVIEW = "Overview"
KEY_DECISIONS = "Key Decisions"
GOTCHAS_AND_TROUBLESHOOTING = "Gotchas & Troubleshooting"
RECENT_CHANGES = "Recent Changes"
# The Recent Changes line of a component a session only names (memory/changes.py).
LINKED = "Linked from the session"
REFERENCES = "References"
ENTITY_SECTIONS = (OVERVIEW, KEY_DECISIONS, GOTCHAS_AND_TROUBLESHOOTING, RECENT_CHANGES,
                   RELATED_ENTITIES, REFERENCES)

# Headings of notes written by hand or by early versions, read as the sections above.
DECISIONS = "Decisions"
GOTCHAS = "Gotchas"
KEY_ENTITIES = "Key Entities"

# The session note's section of each kind.
SESSION_SECTION: Mapping[Kind, str] = {
    Kind.DECISION: DECISIONS_MADE,
    Kind.GOTCHA: GOTCHAS_AND_FIXES,
    Kind.PREREQUISITE: PREREQUISITES,
    Kind.QUESTION: OPEN_QUESTIONS,
    Kind.NEXT_STEP: NEXT_STEPS,
}
# Where compaction files a kind: the entity note's section (a prerequisite goes under this
# section of the project's ``_index.md`` instead).
ENTITY_SECTION: Mapping[Kind, str] = {
    Kind.DECISION: KEY_DECISIONS,
    Kind.GOTCHA: GOTCHAS_AND_TROUBLESHOOTING,
    Kind.PREREQUISITE: PREREQUISITES,
}
# Every heading whose items are of a kind, in any note (session, entity, hand-written).
KIND_OF_SECTION: Mapping[str, Kind] = {
    **{section: kind for kind, section in SESSION_SECTION.items()},
    **{section: kind for kind, section in ENTITY_SECTION.items()},
    DECISIONS: Kind.DECISION,
    GOTCHAS: Kind.GOTCHA,
}


# The words a line may be labelled with ("Gotcha: x", "**Decision:** x"): the kinds compaction
# files, and the short form of one. ``label_words`` spells them as a regex alternation.
LABEL_KINDS = (Kind.DECISION, Kind.GOTCHA, Kind.PREREQUISITE)
LABEL_SHORT = "prereq"


def label_words(*more: str) -> str:
    """The label words (``LABEL_KINDS``, then ``more``) as a regex alternation, longest first
    where one begins another ("prerequisite|prereq")."""
    words = [*(kind.value for kind in LABEL_KINDS), *more]
    return "|".join(re.escape(word) for word in sorted(words, key=len, reverse=True))


def kind(text: str) -> Kind:
    """The kind ``text`` spells, in either spelling and any case; ValueError names the kinds."""
    try:
        return Kind(text)
    except ValueError:
        known = ", ".join(k.value for k in Kind)
        raise ValueError(f"unknown kind {text!r}; known: {known}") from None
