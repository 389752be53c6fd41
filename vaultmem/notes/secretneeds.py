"""Which of secretcontext's rules can match in a span, told by the literals they need (pure)."""

from __future__ import annotations

from vaultmem.notes.secretcommands import TOOL_FLAGS

# Literals a rule's every match holds: where none is in the span the rule is not run, and its
# regex not compiled (the prose rule's compile alone is ~20 ms of a hook). The first table's
# rules ignore case: their literals are looked for in the span's folded copy (``folded``). A
# rule named in neither table always runs; so does the foreign rule on a span that is not ASCII
# (its words in other scripts are in no table). tests/test_secret_gates.py runs both corpora
# with and without these.
_SECRET_WORDS = ("key", "token", "secret", "pass", "pw", "cred", "psk")  # every WORD holds one
NEEDS_FOLDED: dict[str, tuple[str, ...]] = {
    "prose": _SECRET_WORDS, "reverse": _SECRET_WORDS, "flag": _SECRET_WORDS, "asked": _SECRET_WORDS,
    "escaped": _SECRET_WORDS, "authorization": ("authorization",), "bearer": ("bearer",),
    "pin": ("pin", "puk", "code", "geheimzahl"), "codes": ("code",),
    "seed": ("phrase", "words", "mnemonic"),
    "login": ("log", "sign", "user", "cred"), "pair": ("log", "sign", "user", "cred"),
    "userpass_label": ("/p", ":p", "/ p", ": p"),
    # The foreign rule's words that ASCII can spell.
    "foreign": ("mot de passe", "passwort", "passord", "kennwort", "contrasena", "clave",
                "senha", "wachtwoord", "salasana", "haslo", "heslo", "parol", "adgangskode",
                "lozinka", "geslo", "jelszo", "kata sandi", "sleutel", "nyckel", "avain", "klucz",
                "chave", "chiave", "clef"),
}
# A second literal a rule's every match holds besides one of NEEDS_FOLDED's (case folded too):
# the login rule's user is followed by ``/`` or a password word ("Add a login module" runs none);
# an escaped JSON key begins with a backslash and its quote.
NEEDS_FOLDED_TOO: dict[str, tuple[str, ...]] = {"login": ("/", ":", "pass", "pw"),
                                                "escaped": ("\\\"", "\\'")}
NEEDS_EXACT: dict[str, tuple[str, ...]] = {
    "smb": ("-U", "--user"), "switch": ("/p:", "/P:", "/pass", "/Pass", "/PASS", "/pwd", "/PWD"), "userpass": ("-u", "-U", "-a"), "url": ("://",), "pair": ("/",),
    "userinfo": ("@",), "asked": ("?",),
    "tools": tuple(sorted({flag for _, flag, _, _ in TOOL_FLAGS})),
    "positional": ("htpasswd", "rabbitmqctl", "net", "wpa_passphrase", "bw"),
    "cookie": ("ookie", "OOKIE"), "query": ("ignature=", "key="),
}
# The rules whose "pass" is only ever a secret word's start (WORD; the flag rule's ``--pass``):
# followed by one of _PASS_NEXT (in the folded copy, whitespace is one space). "passed",
# "passing" and "passport" hold none; for the prose rule, whose word starts at a word's start,
# neither do "bypass" and "compass".
_PASS_RULES = frozenset({"prose", "reverse", "flag"})
_PASS_NEXT = ("word", "wd", "phrase", "code", " ", ":", "=", "-")
# The characters re's case folding matches with an ASCII letter besides its two cases (the
# dotted and dotless i, the long s, the Kelvin sign; tests check every code point).
_FOLDS_TO_ASCII = str.maketrans({"\u0130": "i", "\u0131": "i", "\u017f": "s", "\u212a": "k"})


def folded(span: str) -> str:
    """``span`` lowercased as re's case folding reads ASCII letters, whitespace runs as one
    space: a rule ignoring case that matches in ``span`` holds its ASCII literals in this copy
    (``\\s+`` in "mot de passe" too)."""
    low = span.lower() if span.isascii() else span.translate(_FOLDS_TO_ASCII).lower()
    return " ".join(low.split())


def _secret_passes(low: str, *, word_start: bool) -> str:
    """``low`` with each "pass" that can begin no secret word (see _PASS_RULES) spelled
    otherwise; ``word_start``: nor one inside a longer word."""
    at = low.find("pass")
    if at < 0:
        return low
    parts: list[str] = []
    done = 0
    while at >= 0:
        inside = word_start and at > 0 and (low[at - 1].isalnum() or low[at - 1] in "$%")
        if inside or not low.startswith(_PASS_NEXT, at + 4):
            parts.append(low[done:at] + "p-ss")
            done = at + 4
        at = low.find("pass", at + 4)
    return "".join(parts) + low[done:]


def ruled_out(text: str, begin: int, end: int) -> set[str]:
    """The rules no match of which can be in ``text[begin:end]`` (see NEEDS_FOLDED)."""
    span = text[begin:end]
    out = {rule for rule, words in NEEDS_EXACT.items() if not any(w in span for w in words)}
    low = folded(span)
    copies = {rule: _secret_passes(low, word_start=rule == "prose") for rule in _PASS_RULES}
    for table in (NEEDS_FOLDED, NEEDS_FOLDED_TOO):
        for rule, words in table.items():
            seen = copies[rule] if table is NEEDS_FOLDED and rule in copies else low
            if not any(w in seen for w in words):
                out.add(rule)
    if not span.isascii():
        out.discard("foreign")
    return out

