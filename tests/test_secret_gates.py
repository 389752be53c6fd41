"""The context rules' literal gates (secretcontext.NEEDS_FOLDED, NEEDS_EXACT, secretconfig.NEEDS)
only skip a rule that could not have matched: every text of both corpora gives the same
findings with and without them."""

from __future__ import annotations

import pytest
from test_secret_corpus import ATTACKS, FALSE_POSITIVES

from vaultmem.notes import secretconfig, secretcontext

# Beyond the corpora: case folding past ASCII (the long s, the Kelvin sign), a rule's literal
# only in another case, and lines that only look like commands ("library", "temporary").
MORE = [
    "the paſſword is hunter2-xyz",
    "the api \u212aey is 9f8e7d6c5b4a39281706f5e4d3c2b1a0",
    "PASSWORD IS Hunter2-XYZ",
    "AUTHORIZATION: BEARER abcd1234efgh5678ijkl",
    "- Split the retry loop: the library's default timeout is infinite",
    "- Remove the temporary logging",
    "mysql -uroot -pS3cretPass! -h db.local && curl -u admin:S3cr3tPw https://x",
    '<add KEY="ApiKey" VALUE="Zq81xLmP0wQe7" />',
    'variable "db_password" {\n  type = string\n  default = "Hunter2-xyz9"\n}',
]
TEXTS = [text for text, _ in ATTACKS] + list(FALSE_POSITIVES) + MORE


def _all(text: str) -> list[secretcontext.Finding]:
    end = len(text)
    return [*secretcontext.findings(text, 0, end), *secretconfig.findings(text, 0, end)]


@pytest.mark.parametrize("text", TEXTS)
def test_the_gates_change_no_finding(text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    gated = _all(text)
    monkeypatch.setattr(secretcontext, "NEEDS_FOLDED", {})
    monkeypatch.setattr(secretcontext, "NEEDS_EXACT", {})
    monkeypatch.setattr(secretconfig, "NEEDS", {})
    assert gated == _all(text)


def test_a_line_without_any_rules_literal_runs_no_rule() -> None:
    text = "- Split the retry loop: the library's default timeout is infinite"
    assert secretcontext._ruled_out(text, 0, len(text)) >= {
        *secretcontext.NEEDS_FOLDED, *secretcontext.NEEDS_EXACT}


@pytest.mark.parametrize("word", ["mot de passe", "Passwort", "KENNWORT", "contrasena", "senha",
                                  "wachtwoord", "salasana", "haslo", "heslo"])
def test_the_foreign_rules_ascii_words_pass_its_gate(word: str) -> None:
    text = f"das {word}: Hunter2-xyz9"
    assert "foreign" not in secretcontext._ruled_out(text, 0, len(text))
    assert any(f.kind == "password" for f in secretcontext.findings(text, 0, len(text)))
