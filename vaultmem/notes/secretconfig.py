"""Secrets given by configuration markup and by commands that store a secret (pure).

Their name is no assignment's left side, so the keyword rules miss them:

- an XML element named a secret: ``<password>…</password>``, ``<apiKey>…</apiKey>``;
- a .NET ``appSettings`` entry: ``<add key="ApiKey" value="…" />``;
- a Terraform variable's default: ``variable "db_password" { default = "…" }``;
- the value a secret store's command is given: ``gh secret set NAME --body …`` (or ``-b``),
  ``netlify env:set NAME …``, a here-string (``vercel env add NAME <<< '…'``), or an ``echo``
  piped into one of them, into ``chpasswd`` or into a ``--password-stdin`` flag;
- the passphrase ``ssh-keygen`` is given with ``-N`` or ``-P``;
- the password of a ``.pgpass`` line, ``host:port:database:user:password`` (five fields, the port
  a number or ``*``, the user with a letter: a timestamp or a MAC address is not one).

A named value must still read like one (secretcontext.secretish); a value in a secret's place
only must not be a placeholder (``echo $TOKEN | … --password-stdin`` gives nothing).
"""

from __future__ import annotations

from collections.abc import Iterator

from vaultmem.notes.lazyre import lazy
from vaultmem.notes.secretcontext import placeholder, secretish
from vaultmem.notes.secretnames import name_kind
from vaultmem.notes.secretspan import Finding

TF_BLOCK = 300  # how far past the ``variable "…"`` line its ``default`` is looked for
_VALUE = r"(['\"]?)([^\s'\"<>|]{3,200})"
_RULES = {
    "element": lazy(r"<([A-Za-z_][\w.-]{0,60})>([^<\n]{3,200})</\1>"),
    "app_setting": lazy(r"(?i)\bkey\s*=\s*(['\"])([\w.:-]{1,80})\1\s+value\s*=\s*(['\"])"
                        r"([^'\"\n]{3,200})\3"),
    "tf_default": lazy(r"\bvariable\s+\"([\w-]{1,80})\"\s*\{[^}]{0,300}?\bdefault\s*=\s*\""
                       r"([^\"\n]{3,200})\""),
    "store": lazy(r"(?<![\w-])(?:gh\s+secret\s+set\s+\S+[^\n|;&]*?\s(?:--body[ =]|-b\s+)"
                  r"|netlify\s+env:set\s+\S+\s+"
                  r"|(?:secrets?\s+(?:set|put)|env\s+add)\b[^\n|;&]*?<<<\s*)" + _VALUE),
    "keygen": lazy(r"(?<![\w-])ssh-keygen\b[^\n|;&]*?\s-[NP]\s+" + _VALUE),
    "pgpass": lazy(r"(?m)(?:^|(?<=[\s'\"`>]))(?:\[[0-9A-Fa-f:]+\]|[\w.*-]+):(?:\d{1,5}|\*)"
                   r":[^:\s'\"`]+:[^:\s'\"`]*[A-Za-z*][^:\s'\"`]*"
                   r":((?:[^\s'\"`:\\]|\\.){3,200})(?=[\s'\"`]|$)"),
    "piped": lazy(r"(?<![\w-])(?:echo|printf)\s+(?:-[ne]+\s+)?(['\"]?)([^\s'\"|]{3,200})\1"
                  r"\s*\|[^|\n]*$"),
}
# What a piped value goes into: the flag or the command that reads a secret from stdin.
_PIPED_INTO = ("-password-stdin", "chpasswd", "secret set", "secret put", "secrets set",
               "env add")
# What makes a line worth the pgpass rule (redact's pre-filter runs it over the lowercase text).
SHAPES = (lazy(r":(?:\d{1,5}|\*):[^:\s]+:[^:\s]+:\S"),)
# Literals (lowercase) that make a line worth these rules: redact's pre-filter finds them.
WORDS = ("<add key", "variable \"", "secret set", "secret put", "secrets set", "env add",
         "env:set", "chpasswd", "ssh-keygen")


# A literal each match of a rule holds (case-sensitive, or no letter): where none is in the span
# the rule is not run nor compiled (as secretcontext.NEEDS_EXACT; tests/test_secret_gates.py).
NEEDS: dict[str, tuple[str, ...]] = {
    "element": ("</",), "app_setting": ("=",), "tf_default": ("variable",),
    "store": ("secret", "env"), "keygen": ("ssh-keygen",), "pgpass": (":",),
}


def _may(rule: str, text: str, begin: int, end: int) -> bool:
    return rule not in NEEDS or any(text.find(word, begin, end) >= 0 for word in NEEDS[rule])


def findings(text: str, begin: int, end: int) -> Iterator[Finding]:
    """The markup and secret-store findings in ``text[begin:end]``."""
    r = _RULES
    for rule, name, value in (("element", 1, 2), ("app_setting", 2, 4), ("tf_default", 1, 2)):
        # A variable's block goes on over the next lines.
        stop = min(len(text), end + TF_BLOCK) if rule == "tf_default" else end
        if not _may(rule, text, begin, stop):
            continue
        for m in r[rule].finditer(text, begin, stop):
            kind = name_kind(m.group(name))
            if kind is not None and secretish(m.group(value), password=kind == "password",
                                              strict=False):
                yield Finding(m.start(value), m.end(value), kind)
    for m in r["pgpass"].finditer(text, begin, end) if _may("pgpass", text, begin, end) else ():
        if _given(m.group(1)) and m.group(1).lower() not in ("password", "passwd", "secret"):
            yield Finding(m.start(1), m.end(1), "password")
    for rule in ("store", "keygen"):
        for m in r[rule].finditer(text, begin, end) if _may(rule, text, begin, end) else ():
            if _given(m.group(2)):
                yield Finding(m.start(2), m.end(2), "password")
    for into in _PIPED_INTO:
        at = text.find(into, begin, end)
        while at >= 0:
            echo = r["piped"].search(text, text.rfind("\n", 0, at) + 1, at)
            if echo is not None and _given(echo.group(2)):
                yield Finding(echo.start(2), echo.end(2), "password")
            at = text.find(into, at + 1, end)


def _given(value: str) -> bool:
    """A value a command is handed where only a secret goes: anything but a placeholder."""
    return not placeholder(value) and "‹" not in value
