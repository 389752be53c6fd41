"""mentions.py: the components a turn's words name (pure)."""

from __future__ import annotations

from vaultmem.mining import mentions


def test_a_component_is_named_when_every_word_of_its_name_is_said() -> None:
    said = ["Fix the power-monitor applet", "The PowerMonitor panel reads RAPL."]
    assert mentions.named_in(said, ["Power Monitor", "Auth"]) == [
        ("Power Monitor", "Power Monitor")]


def test_a_name_half_said_or_only_generic_names_nothing() -> None:
    assert mentions.named_in(["the power went out"], ["Power Monitor"]) == []
    assert mentions.named_in(["see the tests"], ["Tests"]) == []
