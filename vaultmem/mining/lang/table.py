"""The shape of one language's table (see :mod:`vaultmem.mining.lang`), and its helper."""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple

from vaultmem.notes.schema import Kind


class Language(NamedTuple):
    """The phrases of one language, by rule family (each entry a case-blind regex fragment)."""

    code: str
    # Common short words that tell a sentence is in this language (none shared with the others).
    marks: frozenset[str]
    # ---- prompts: what names no work ----
    greetings: tuple[str, ...]  # a prompt that only greets
    fillers: tuple[str, ...]  # words around a request that name nothing ("please", "ok")
    carry_on: tuple[str, ...]  # asking only to carry on ("continue", "where were we")
    carry_on_tail: tuple[str, ...]  # what may follow it ("where we left off", "the last session")
    no_task: frozenset[str]  # words of a prompt that name no task ("thanks", "yes") and glue
    rules: tuple[str, ...]  # what opens a rule the person sets ("never", "from now on")
    not_rules: tuple[str, ...]  # what looks like one and is not ("never mind", "still")
    corrections: tuple[str, ...]  # a course the person changes ("no, use X", "X instead")
    # ---- labels: a heading, a lead-in line or a label before a colon ----
    sections: Mapping[Kind, tuple[str, ...]]
    labels: Mapping[Kind, tuple[str, ...]]  # only before a colon
    done: tuple[str, ...]  # a heading naming what was done ("Completed", "Changes made")
    # ---- sentence cues (applied to a sentence written in this language) ----
    steps: tuple[str, ...]  # a next step: "still needs to", "the next step is"
    choices: tuple[str, ...]  # a choice stated as made: "we decided to", "I went with"
    contrast: tuple[str, ...]  # "instead of": a decision when an ``actor`` did it
    actor: tuple[str, ...]  # a first-person actor who did something ("I have", "we")
    causes: tuple[str, ...]  # a cause or fix stated as found: "the cause was", "because"
    unknowns: tuple[str, ...]  # a question stated as open: "it is unclear whether"
    hedge: tuple[str, ...]  # a hedge or hypothetical: no decision, gotcha or step
    narration: tuple[str, ...]  # Claude's next move in this turn: "let me check"


def wordset(text: str) -> frozenset[str]:
    """The words of ``text`` (split on white space) as a set: a table's word lists."""
    return frozenset(text.split())
