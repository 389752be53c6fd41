"""mining/kinds.py: one table of the kinds with their cues and vetoes, complete."""

from __future__ import annotations

from vaultmem.mining import kinds
from vaultmem.mining.text import KINDS


def test_every_mined_kind_has_a_row() -> None:
    assert set(kinds.TABLE) == set(KINDS)


def test_every_cue_of_the_vocabulary_is_in_the_table() -> None:
    # A cue added to the vocabulary is listed under its kind, so the table stays the one place
    # to read what decides each kind.
    defined = {name for name, value in vars(kinds).items() if isinstance(value, kinds.Cue)}
    listed = {id(cue) for cue in kinds.SHARED_VETOES} | {
        id(cue) for rules in kinds.TABLE.values()
        for cue in (*rules.cues, *rules.vetoes, *rules.parts)}
    assert {name for name in defined if id(getattr(kinds, name)) not in listed} == set()


def test_a_cue_belongs_to_one_kind() -> None:
    rows = [cue for rules in kinds.TABLE.values()
            for cue in (*rules.cues, *rules.vetoes, *rules.parts)]
    assert len({id(cue) for cue in rows}) == len(rows)
    assert not {id(cue) for cue in kinds.SHARED_VETOES} & {id(cue) for cue in rows}
