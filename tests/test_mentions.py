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


def test_a_repository_s_address_is_no_path() -> None:
    # Issue 29: `git remote add origin git@github.com:M-Thisness/M-Claude.git` made an entity
    # "M Thisness" of an account name.
    said = "Re-add it with `git remote add origin git@github.com:M-Thisness/M-Claude.git`."
    assert mentions.paths_in(said) == ()
    assert mentions.paths_in("edit M-Thisness/M-Claude/setup.py and src/git.py") == (
        "M-Thisness/M-Claude/setup.py", "src/git.py")
