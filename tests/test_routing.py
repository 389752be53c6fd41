"""Routing: what an item's own words name, and the one thing its turn names (issue 29)."""

from __future__ import annotations

from vaultmem.memory import routing
from vaultmem.memory.routing import Mentions


def _subjects() -> routing.Subjects:
    programs = [("Gitleaks", ("gitleaks",)), ("Dnsmasq", ("dnsmasq",)), ("Uci", ("uci",)),
                ("Slate", ("slate",))]
    known = [("Auth", ()), ("Blocky", ())]
    return routing.Subjects(Mentions.of(known), Mentions.of(programs, in_names=True),
                            Mentions.of(programs[1:]), own="shop", ci="CI")


def test_an_item_names_programs_in_its_words_not_in_the_failures_it_quotes() -> None:
    said = _subjects()
    assert said.named("The dnsmasq init script reads the server as a list") == ["Dnsmasq"]
    # A failing command says where it failed (ssh, over which ran uci), not what it is about.
    assert said.named("Fork failures under MSYS2 (`ssh root@10.0.0.1 \"uci commit\"` failed: "
                      "`child_copy: Win32 error 299`)") == []
    assert said.named("MSYS2 fails (`ssh x \"uci commit\"…` failed:…") == []
    # A known entity too: the remote command and the fork error are not what the item is about.
    assert said.named("Win32 error 299 (`ssh root@10.0.0.1 'blocky reload'` failed: "
                      "`child_copy: cygheap read copy failed`)") == []
    assert said.named("Blocky's query log times out (`ssh x 'blocky'` failed)") == ["Blocky"]
    # A program's settings file and its script name it; a known entity counts anywhere.
    assert said.named("Fix .gitleaksignore: fingerprints, not paths") == ["Gitleaks"]
    assert said.named("Add redact_gitleaks_secrets.py to redact in place") == ["Gitleaks"]
    assert said.named("`src/auth/tokens.py` caches the key") == ["Auth"]


def test_a_turn_about_two_things_lends_neither() -> None:
    said = _subjects()
    assert said.turn_one(["Dnsmasq", "Dnsmasq"]) == ("Dnsmasq",)
    assert said.turn_one(["Dnsmasq", "Slate"]) == ()
    # The project and the CI (unless the item speaks of it) are no subject of a turn.
    assert said.turn_one(["Shop", "CI", "Slate"]) == ("Slate",)
    assert said.turn_one(["CI"], ci=True) == ("CI",)


def test_about_takes_the_first_layer_that_names_anything() -> None:
    assert routing.about(["Auth"], ["Git"], ("Slate",), ("Shop",), 2) == ("Auth", "Git")
    assert routing.about([], ["Git", "Gpg", "Sudo"], (), (), 2) == ("Git", "Gpg")
    assert routing.about([], [], ("Slate",), ("Router",), 2) == ("Slate",)
    assert routing.about([], [], (), ("Router",), 2) == ("Router",)
    assert routing.about([], [], (), (), 2) == ()
