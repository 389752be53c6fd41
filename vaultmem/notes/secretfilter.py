"""The pre-filter of redaction: where in a text a secret could be, fast (pure).

A superset of what redact's detectors find: literal prefixes by ``str.find`` (case-sensitive
ones in the text, the others in its lowercase copy), a few shapes by regexes that start with a
literal (secretshapes.CANDIDATE_SHAPES, each compiled only for a text holding its literal), and
secret-like names followed by a value (a regex over the lowercase copy, run only when one of the
words is in the text); the command and header rules' own literals (secretcontext,
secretconfig). Most texts have none of them, and redact returns them as they are. Tests check
every detector's samples against it. The detectors then read the lines of the candidates, or
a bounded stretch around a secret-like name (``windows``).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from functools import lru_cache

from vaultmem.notes import secretcommands, secretconfig, secretphrase
from vaultmem.notes.lazyre import lazy
from vaultmem.notes.secretgate import Gated
from vaultmem.notes.secretshapes import CANDIDATE_SHAPES, EXACT_PREFIXES, LOWER_PREFIXES

_NAME_WORDS = ("pass", "pwd", "pw", "secret", "token", "key", "auth", "credential", "creds",
               "contrase", "dsn", "bearer", "basic", "cos", "ibm", "softlayer", "cloudant", "psk")
# What follows a secret-like word (found by str.find in the lowercase text) when a value is
# there: an assignment, ``Bearer <token>``, or a long token shortly after in prose; and AWS's
# ``aws … key … '<40 characters>'``.
_AFTER_NAME = (
    r"[\w.-]{0,60}['\"`\]\\]{0,4}\s*(?:=|:|=>)\s*\\?['\"`]?[^\s'\"`‹]{4}"
    r"|\s+[a-z0-9._~+/=-]{16}"
    r"|s?\b[^\n]{0,60}?[a-z0-9+/_=-]{20}"
    r"|[\w .@-]{0,60}?(?:\s(?:is|was|to|are|be|ist|est|è)\s+|:\s*)\S{3}"  # "the db password is …"
    r"|[a-z]{0,6}\s+['\"`]?[^\s'\"`‹]*\d"  # "password hunter2", ``--token abc123``
    r"|[\w-]{0,12}['’]s[ \t]+(?:now[ \t]+)?[a-z]{4}"  # "the password's sunshine"
    # after "pass": "password smtp!plain", a quoted passphrase ("passphrase 'ab cd ef'") or word
    r"|(?:word|wd|phrase)?s?\s+(?:[a-z]+[!#$%^&*+=~@?][a-z]|['\"`][a-z]{1,12}\s[a-z]"
    r"|['\"`][a-z]{4,32}['\"`])"
    r"|[a-z]{0,6}\s*(?:\||->|→|⇒|=>|—|–)\s*\S{3}"  # a table's cell, an arrow
    r"|[a-z]{0,6}\?['\"]?[ \t]+\S"  # a question's answer: "the admin password? it's …"
    r"|[\w.-]{0,60}:?(?:\*\*|__):?\s*\S{3}"  # Markdown's bold around the name: ``**Password:** …``
    r"|[\w.-]{0,60}>[^<\s]{3}"  # an XML element: ``<password>…``
    r"|[\w.:-]{0,60}['\"]\s*,?\s*['\"][^\s'\"]{3}"  # ``define('DB_PASSWORD', '…')``
    r"|\s*=\s*\(\s*['\"]"  # ``auth=('user', '…')``
    r"|[\w.-]{0,60}['\"]?\s*[=:]\s*\{"  # an inline table: ``creds = { alice = "…" }``
    # a label ending its line, the value on the next (secretprep.labelled)
    r"|[\w.-]{0,60}['\"`*]*[ \t]*(?:[:=][ \t]*(?:[|>][-+]?)?|[ \t](?:is|was|are))[ \t]*\r?\n"
    r"|[\w.-]{0,60}[*_]*[ \t]*\??[ \t]*\r?\n"  # a question, or a line that is only a name
)
_AWS_NAMED = r"aws.{0,20}?(?:key|pwd|pw|pass|token).{0,20}?['\"][0-9a-z/+]{40}"
_AFTER = lazy(_AFTER_NAME)
_AWS = lazy(_AWS_NAMED)
# Before a secret-like word with no value after it, a value may come first: "`Tr0ub4dor` is the
# password", "use Blu3Sky! for the root password" (secretphrase), "use **Blu3Sky!** as the admin
# password" (secretcontext's reverse rule); the line is read whole.
_BEFORE = lazy(r"\b(?:is|was|for|as|into)\s+(?:the|my|our|your|an?)\s+(?:[\w-]+\s+){0,3}\Z")
_BEFORE_SPAN = 48


def candidates(text: str) -> tuple[list[int], list[int], list[int]]:
    """(where a vendor token may be, where a secret-like name with a value may be, where a
    command's flag, a URL's userinfo or a header may hold one), sorted; all empty for most
    texts."""
    low = text.lower()
    shaped: list[int] = []
    for haystack, needles in ((text, EXACT_PREFIXES), (low, LOWER_PREFIXES)):
        for needle in needles:
            at = haystack.find(needle)
            while at >= 0:
                shaped.append(at)
                at = haystack.find(needle, at + len(needle))
    for shape in _shapes():  # exact literals: no lowercase copy needed
        shaped.extend(m.start() for m in shape.finditer(text, 0, len(text), None))
    named: list[int] = []
    before: list[int] = []
    for word in _NAME_WORDS:
        at = low.find(word)
        while at >= 0:
            if _AFTER.match(low, at + len(word)):
                named.append(at)
            elif secretphrase.linked(low[at - _BEFORE_SPAN if at > _BEFORE_SPAN else 0:at]) and (
                    _BEFORE.search(low, max(0, at - _BEFORE_SPAN), at)):
                before.append(at)
            at = low.find(word, at + len(word))
    if "aws" in low:
        named.extend(m.start() for m in _AWS.finditer(low))
    commands = secretcommands.candidates(
        low, secretconfig.WORDS,
        (*secretconfig.SHAPES, secretphrase.PAIRS_SHAPE, secretcommands.DIGEST_SHAPE))
    return sorted(shaped), sorted(set(named)), sorted([*commands, *before])


@lru_cache(maxsize=1)
def _shapes() -> tuple[Gated, ...]:
    return tuple(Gated(shape, 0, (False, (literal,))) for literal, shape in CANDIDATE_SHAPES)


NAME_BEFORE = 80  # how far before a secret-like word its name may start
NAME_AFTER = 400  # how far after it its value is looked for


def line_spans(text: str, starts: Iterable[int]) -> Iterator[tuple[int, int]]:
    """The (start, end) of each distinct line holding one of ``starts`` (sorted), in order."""
    last_end = -1
    for pos in starts:
        if pos < last_end:
            continue
        begin = text.rfind("\n", 0, pos) + 1
        end = text.find("\n", pos)
        end = len(text) if end < 0 else end
        last_end = end
        yield begin, end


def windows(text: str, starts: Iterable[int]) -> Iterator[tuple[int, int]]:
    """Bounded stretches around secret-like words (sorted): from the start of the name holding
    the word to a little past it, inside its line; overlapping stretches as one."""
    current: tuple[int, int] | None = None
    for pos in starts:
        line_start = text.rfind("\n", 0, pos) + 1
        line_end = text.find("\n", pos)
        line_end = len(text) if line_end < 0 else line_end
        begin = pos
        floor = max(line_start, pos - NAME_BEFORE)
        while begin > floor and not text[begin - 1].isspace():
            begin -= 1
        end = min(line_end, pos + NAME_AFTER)
        if current is not None and begin <= current[1]:
            current = (current[0], max(current[1], end))
            continue
        if current is not None:
            yield current
        current = (begin, end)
    if current is not None:
        yield current
