"""The literal gates only skip a rule that could not have matched: the context rules'
(secretneeds.NEEDS_FOLDED, NEEDS_EXACT, secretconfig.NEEDS) and the shape and keyword
detectors' (secretgate). Every text of both corpora, and random lines, give the same findings
with and without them; generated matches hold their pattern's literals."""

from __future__ import annotations

import dataclasses
import functools
import re
from collections.abc import Callable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_secret_corpus import ATTACKS, FALSE_POSITIVES

from vaultmem.notes import (
    redact,
    secretcommands,
    secretconfig,
    secretcontext,
    secretgate,
    secretneeds,
    secretrules,
)
from vaultmem.notes.secretshapes import CANDIDATE_SHAPES, VENDOR_PATTERNS

# Beyond the corpora: case folding past ASCII (the long s, the Kelvin sign), a rule's literal
# only in another case, and lines that only look like commands ("library", "temporary").
MORE = [
    "the paſſword is hunter2-xyz",
    "the api \u212aey is 9f8e7d6c5b4a39281706f5e4d3c2b1a0",
    "PASSWORD IS Hunter2-XYZ",
    "AUTHORIZATION: BEARER abcd1234efgh5678ijkl",
    "- Split the retry loop: the library's default timeout is infinite",
    "- Remove the temporary logging",
    "Add a login module and run the tests",
    "login with admin / Hunter2-xyz9, log in as bob/Passw0rd!, USERNAME root PASSWORD Toor2024x",
    "mysql -uroot -pS3cretPass! -h db.local && curl -u admin:S3cr3tPw https://x",
    '<add KEY="ApiKey" VALUE="Zq81xLmP0wQe7" />',
    'variable "db_password" {\n  type = string\n  default = "Hunter2-xyz9"\n}',
    # "pass" that begins no secret word, beside ones that do; whitespace runs; not ASCII.
    "All 12 tests passed: 9f8e7d6c5b4a39281706f5e4d3c2b1a0, bypass: Hunter2-xyz9",
    "compass = Hunter2-xyz9; --bypass=Hunter2-xyz9 --pass-string Hunter2-xyz9",
    "db-pass: Hunter2-xyz9, my pass is Hunter2-xyz9, PASS\tIS Hunter2-xyz9",
    "mot\tde  passe : Hunter2-xyz9, kata  sandi: Hunter2-xyz9",
    "- 2026-09-11 \u2014 hardened the login flow",
    "- 2026-09-11 \u2014 the pa\u017f\u017fword is Hunter2-xyz9 \u2014 api \u212aey: 9f8e7d6c5b4a",
    "\u041f\u0410\u0420\u041e\u041b\u042c: Hunter2-xyz9 \u2014 das Passwort ist Hunter2-xyz9",
    '{\\"password\\": \\"Hunter2-xyz9\\"} \u2014 {\\"passed\\": \\"Hunter2-xyz9\\"}',
    # Command words inside other words (secretcommands.BOUNDED), beside real commands.
    "the library's login: admin/Passw0rd! (unrar x -pS3cretPw9 a.rar)",
    "handleLogin(user, 'Hunter2!x'); librarian: bob/Spr1ng#Rain, sign in as carol/Wint3r!Sun",
    "errorcode: 1234, opcode: 5678; backup codes: 1a2b3c4d 5e6f7a8b",
    "nodocker -p Secr3tPw9; gunzip -P Secr3tPw9 x.zip; azlogin -p Secr3tPw9",
]
TEXTS = [text for text, _ in ATTACKS] + list(FALSE_POSITIVES) + MORE


def _all(text: str) -> list[secretcontext.Finding]:
    end = len(text)
    return [*secretcontext.findings(text, 0, end), *secretconfig.findings(text, 0, end)]


@pytest.mark.parametrize("text", TEXTS)
def test_the_gates_change_no_finding(text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    gated = _all(text)
    monkeypatch.setattr(secretneeds, "NEEDS_FOLDED", {})
    monkeypatch.setattr(secretneeds, "NEEDS_FOLDED_TOO", {})
    monkeypatch.setattr(secretneeds, "NEEDS_EXACT", {})
    monkeypatch.setattr(secretconfig, "NEEDS", {})
    assert gated == _all(text)


def test_a_line_without_any_rules_literal_runs_no_rule() -> None:
    text = "- Split the retry loop: the library's default timeout is infinite"
    assert secretneeds.ruled_out(text, 0, len(text)) >= {
        *secretneeds.NEEDS_FOLDED, *secretneeds.NEEDS_EXACT}


_WORD_RULES = {"prose", "reverse", "flag", "escaped", "foreign"}


@pytest.mark.parametrize("line, ruled_out", [
    # An entity line: its dash is not ASCII (the foreign rule's words in other scripts are in
    # no table: it runs on such a span).
    ("- 2026-09-11 \u2014 hardened the login flow", _WORD_RULES - {"foreign"}),
    ("All 12 tests passed: see the log", _WORD_RULES),
    ("- Passing tests \u2014 the passport office", _WORD_RULES - {"foreign"}),
    # The prose rule's word starts a word; ``--bypass=…`` and "as the bypass: …" may be others'.
    ("bypass: the cache", {"prose", "escaped", "foreign"}),
    ("compass = north", {"prose", "escaped", "foreign"}),
])
def test_pass_inside_a_word_and_a_dash_run_no_secret_word_rule(
        line: str, ruled_out: set[str]) -> None:
    assert secretneeds.ruled_out(line, 0, len(line)) >= ruled_out


def test_a_foreign_password_word_spelled_with_other_spaces_is_still_read() -> None:
    # The foreign rule reads ``kata\s+sandi``: its pre-filter word is what every spacing holds.
    assert redact.redact("kata  sandi: Hunter2-xyz9") == "kata  sandi: \u2039redacted:password\u203a"
    assert redact.redact("Sandi said the build is green") == "Sandi said the build is green"


def test_case_folding_matches_ascii_letters_only_with_the_characters_folded() -> None:
    """re, ignoring case, matches an ASCII letter with its two cases and the characters
    secretneeds.folded translates, nothing else (on this Python's Unicode tables)."""
    letter = re.compile("[a-z]", re.IGNORECASE)
    others = {chr(code) for code in range(128, 0x110000) if letter.fullmatch(chr(code))}
    assert others == {"\u0130", "\u0131", "\u017f", "\u212a"}
    assert all(secretneeds.folded(ch).isascii() for ch in others)


@pytest.mark.parametrize("word", ["mot de passe", "Passwort", "KENNWORT", "contrasena", "senha",
                                  "wachtwoord", "salasana", "haslo", "heslo"])
def test_the_foreign_rules_ascii_words_pass_its_gate(word: str) -> None:
    text = f"das {word}: Hunter2-xyz9"
    assert "foreign" not in secretneeds.ruled_out(text, 0, len(text))
    assert any(f.kind == "password" for f in secretcontext.findings(text, 0, len(text)))


# --- the shape and keyword detectors' literals (secretgate) ---------------------------------

def _gated() -> list[secretgate.Gated]:
    """Every gated pattern, its literals derived now (not read from a cache of an older
    derivation)."""
    rules = secretrules.with_literals(dataclasses.replace(secretrules.load(), literals={}))
    return [*(rules.gated(p, f) for _, p, f in rules.plugins),
            *(rules.gated(p, f) for p, f, _ in rules.keywords),
            *(rules.gated(p) for _, p in VENDOR_PATTERNS),
            *(secretgate.Gated(p, 0, (False, (lit,))) for lit, p in CANDIDATE_SHAPES)]


def test_the_cache_holds_every_patterns_literals_and_most_are_gated() -> None:
    rules = secretrules.load()
    assert all((p, 0) in rules.literals for _, p in VENDOR_PATTERNS)
    gated = _gated()
    assert sum(g.literals is not None for g in gated) >= 0.9 * len(gated)


@pytest.mark.parametrize("pattern, flags, expected", [
    (r"sk-ant-[A-Za-z0-9]{8,}", 0, (False, ("sk-ant-",))),
    (r"(?:ab|cd)x?ef", 0, (False, ("ef",))),  # the fewest strings among the longest
    (r"(?:ab|cd|)x", 0, (False, ("x",))),  # an empty alternative: the other part decides
    (r"(?:ab|)", 0, None),
    (r"a?b*", 0, None),
    (r"(?i)xoxb-", 0, (True, ("xoxb-",))),
    (r"x(?i:AbCd)", 0, (True, ("abcd",))),
    (r"(?i)pa\u017f\u017fword", 0, None),  # the long s matches an ASCII s when case is folded
    (r"(?i)contrase\u00f1a", 0, (True, ())),  # an ASCII span never holds it
    (r"contrase\u00f1a", 0, (False, ("contrase\u00f1a",))),
    (r"(?<=key)[0-9]{8}", 0, None),  # a lookbehind's text is not the match's
])
def test_literals(pattern: str, flags: int, expected: object) -> None:
    assert secretgate.literals(pattern, flags) == expected


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_every_generated_match_holds_one_of_its_literals(data: st.DataObject) -> None:
    """The gates' soundness: a string matching a pattern (generated from it) holds one of the
    literals its gate looks for."""
    gate = data.draw(st.sampled_from([g for g in _gated() if g.literals is not None]))
    sample = data.draw(st.from_regex(gate.compiled, fullmatch=True))
    if not (gate.folded and not sample.isascii()):
        assert gate.may_match(sample, secretgate.lowered(sample)), gate.pattern


_PIECES = st.sampled_from([
    "password", "PASSWORD", "token", "api_key", "secret", "key-", "sk-", "ghp_", "AKIA", "xoxb-",
    "eyJ", "=", ": ", "\"", "'", " ", "\n", "-", "_", ".", "/", "://", "@", "aws", "Bearer ",
    "AIza", "hvs.", "glpat-", "npm_", "-us1", "AC", "SK", "$2b$", "k_live_", "cloudant", "ibm",
    "softlayer", "x-api-key", "contrase\u00f1a", "pa\u017f\u017fword", "\u212aey",
    "library", "login", "rar ", "mysql -p", "sign in", "code:", "wifi", " is the password",
    "pass", "PASS", "by", "ed", "is ", "\t", "\u2014", "\\\"", "mot de", "sandi", "kata ",
])
_RANDOM = st.text(alphabet=st.sampled_from("abcdefXYZ0123456789+/=-_"), min_size=0, max_size=48)
_LINES = st.lists(st.one_of(_PIECES, _RANDOM), min_size=1, max_size=14).map("".join)


def _ungated(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(secretgate.Gated, "may_match", lambda self, span, low: True)


def _unbounded(monkeypatch: pytest.MonkeyPatch) -> None:
    """The pre-filter finding every command word inside other words too."""
    monkeypatch.setattr(secretcommands, "candidates",
                        functools.partial(secretcommands.candidates, bounds=frozenset()))


# What the pre-filter skips without running a rule: the detectors' literals, a command word inside
# another word (secretcommands.BOUNDED). Neither changes what is redacted.
_LOOSENED = [_ungated, _unbounded]


@pytest.mark.parametrize("loosen", _LOOSENED)
@pytest.mark.parametrize("text", TEXTS)
def test_redaction_is_the_same_without_the_pre_filters_skips(
        text: str, loosen: Callable[[pytest.MonkeyPatch], None],
        monkeypatch: pytest.MonkeyPatch) -> None:
    skipped = redact.redact(text)
    loosen(monkeypatch)
    assert redact.redact(text) == skipped


def test_a_command_word_inside_a_word_makes_no_candidate() -> None:
    low = "- split the retry loop: the library's handlelogin is flaky"
    assert secretcommands.candidates(low) == []
    assert secretcommands.candidates(low, bounds=frozenset()) != []


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_LINES, min_size=1, max_size=3).map("\n".join), st.sampled_from(_LOOSENED))
def test_random_lines_redact_the_same_without_the_pre_filters_skips(
        text: str, loosen: Callable[[pytest.MonkeyPatch], None]) -> None:
    skipped = redact.redact(text)
    with pytest.MonkeyPatch.context() as monkeypatch:
        loosen(monkeypatch)
        assert redact.redact(text) == skipped


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_LINES, min_size=1, max_size=3).map("\n".join))
def test_random_lines_find_the_same_without_the_context_gates(text: str) -> None:
    gated = _all(text)
    with pytest.MonkeyPatch.context() as monkeypatch:
        for table in ("NEEDS_FOLDED", "NEEDS_FOLDED_TOO", "NEEDS_EXACT"):
            monkeypatch.setattr(secretneeds, table, {})
        monkeypatch.setattr(secretconfig, "NEEDS", {})
        assert _all(text) == gated
