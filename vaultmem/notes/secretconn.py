"""Secrets in connection strings, HTTP Digest headers and URLs' userinfo (pure).

- **A connection string's password or key**, ``Name=value;`` pairs: ODBC's braced value
  (``Pwd={Pa;ss=w0rd}``: ``;`` and ``=`` inside, ``}}`` an escaped brace), ADO's and
  Npgsql's ``Password=…;``, Azure's ``AccountKey=``, ``SharedAccessKey=``,
  ``SharedAccessSignature=`` and ``InstrumentationKey=`` (Application Insights) whatever
  precedes them (``APPLICATIONINSIGHTS_CONNECTION_STRING=InstrumentationKey=…``). A braced value
  that is a template's slot (``Pwd={0}``, ``Password={password}``) is code.
- **A libpq connection string's password** (``host=db user=app password=… dbname=x``): another
  of its keywords on the line, the pairs apart by spaces; any value but a variable named a
  secret (``password=password``, ``password=db_password``).
- **HTTP Digest authentication's** ``response="…"``: the hash of the password, the realm and
  the nonce, which cracks offline like the password's own hash (a line naming Digest or its
  nonce).
- **A token as a URL's userinfo**: ``https://TOKEN@github.com/…`` (no password after it) and
  ``https://TOKEN:x-oauth-basic@…`` (the user is the token): a user of 16 characters or more
  with a random run of letters and digits; a name (``git@``, ``deploy-bot@``) is kept.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from vaultmem.notes.lazyre import lazy
from vaultmem.notes.secretcontext import placeholder, secretish
from vaultmem.notes.secretnames import name_kind
from vaultmem.notes.secretspan import Finding

# A connection string's names whose value is a secret (lowercase, without spaces).
_PASSWORD_NAMES = ("pwd", "password", "passwd", "pass")
_KEY_NAMES = ("accountkey", "sharedaccesskey", "sharedaccesssignature", "instrumentationkey")
_RULES = {
    # ``Name=value`` after a start, a ``;`` or a quote; the value braced (group 2) or bare
    # (group 3) up to the next ``;``.
    "pair": lazy(
        r"(?i)(?:^|(?<=[;\s\"'`=]))(pwd|password|passwd|pass|accountkey|sharedaccesskey"
        r"|sharedaccesssignature|instrumentationkey)[ \t]*=[ \t]*"
        r"(?:\{((?:[^}\n]|\}\})*)\}|([^;\s'\"`]{3,300}))"),
    "digest": lazy(r"(?i)(?<![\w-])response[ \t]*=[ \t]*([\"']?)([0-9a-f]{32}|[0-9a-f]{64})\1"
                   r"(?![0-9a-f])"),
    # The userinfo before ``@``: a user alone (group 1), or a user (2) and a password.
    "userinfo": lazy(r"(?i)\b[a-z][\w+.-]*://(?:([^\s/@:'\"<>]{16,200})"
                     r"|([^\s/@:'\"<>]{16,200}):[^\s/@'\"<>]*)@(?=[\w.\[-])"),
    # libpq's keyword/value connection string: another keyword, then a space or the end.
    "conninfo": lazy(r"(?<![\w-])(?:host|hostaddr|dbname|user|port|sslmode)=[^\s,()'\"]+"
                     r"(?=[ \t]|['\"]?$)"),
    "slot": lazy(r"\d{1,2}|[A-Za-z_][\w.]*|\$\w+|%\w+%"),
}


def findings(text: str, begin: int, end: int) -> Iterator[Finding]:
    """The connection strings', Digest headers' and URL users' secrets in ``text[begin:end]``."""
    low = text[begin:end].lower()
    if "=" in low and any(w in low for w in (*_PASSWORD_NAMES, *_KEY_NAMES)):
        yield from _pairs(text, begin, end)
    if "response" in low and ("digest" in low or "nonce" in low):
        for m in _RULES["digest"].finditer(text, begin, end):
            if len(set(m.group(2).lower())) > 2:  # ``0000…`` is a placeholder
                yield Finding(m.start(2), m.end(2), "digest")
    if "://" in low and "@" in low:
        for m in _RULES["userinfo"].finditer(text, begin, end):
            group = 1 if m.group(1) is not None else 2
            if user_token(m.group(group)):
                yield Finding(m.start(group), m.end(group), "token")


def _pairs(text: str, begin: int, end: int) -> Iterator[Finding]:
    for m in _RULES["pair"].finditer(text, begin, end):
        name = m.group(1).lower()
        braced = m.group(2) is not None
        value = m.group(2) if braced else m.group(3).rstrip(".,)")
        at = m.start(2) if braced else m.start(3)
        if braced and _RULES["slot"].fullmatch(value):
            continue  # ``Pwd={0}``, ``Password={password}``: a template's slot
        if not value or placeholder(value) or "‹" in value:
            continue
        if name in _KEY_NAMES:
            good = len(value) >= 8
        elif braced:
            good = not value.isalpha() or secretish(value, password=True, strict=False)
        else:  # bare: in a connection string only (a ``;`` after it or before its name)
            line_start = text.rfind("\n", 0, m.start()) + 1
            good = (text.startswith(";", m.end())
                    or ";" in text[max(line_start, m.start() - 200):m.start()]) and secretish(
                value, password=True, strict=False) or _conninfo(text, m, value)
        if good:
            yield Finding(at, at + len(value), "password" if name in _PASSWORD_NAMES else "azure")


def _conninfo(text: str, match: re.Match[str], value: str) -> bool:
    """Whether a bare ``password=…`` is a libpq connection string's (``host=db user=app
    password=… dbname=x``): another of its keywords on the line, the pairs apart by spaces only
    (``f(user=u, password=pw)`` is code); its value is then a string whatever its shape, unless
    it is a variable named a secret (``password=password``, ``password=db_password``)."""
    if match.group(1).lower() != "password" or value.lower() in _PASSWORD_NAMES or (
            "_" in value and name_kind(value) is not None):
        return False  # ``password=password``, ``password=db_password``: a template's variable
    line_start = text.rfind("\n", 0, match.start()) + 1
    line_end = text.find("\n", match.end())
    line = text[line_start:len(text) if line_end < 0 else line_end]
    return not text.startswith((",", ")"), match.end()) and _RULES["conninfo"].search(
        line) is not None


def user_token(user: str) -> bool:
    """Whether a URL's user is a token: 16 characters or more, a run of 10 mixing letters and
    digits (a name such as ``deploy-bot-2024`` has none), no ``%`` escape of a mail address."""
    if placeholder(user) or "%40" in user.lower():
        return False
    pieces = user.replace("-", "_").replace(".", "_").replace("~", "_").split("_")
    return any(len(p) >= 10 and any(c.isdigit() for c in p) and any(c.isalpha() for c in p)
               for p in pieces)
