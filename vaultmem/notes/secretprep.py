"""Secrets hidden from the detectors by their layout: wrapped over lines, or base64-encoded (pure).

- **Wrapped.** A key pasted into a narrow terminal or a wrapped paragraph continues on the next
  line: the detectors would redact its first half and keep the second. A line that holds a
  candidate and ends in a token is joined with the token that starts the next line; a finding
  that crosses the join covers both halves (the line break goes with it). The continuation is
  taken when it is the whole next line, or random-looking (a digit, an inner capital, ``+/=``):
  a word starting the next sentence is not a key's tail.
- **Labelled.** A label ending its line ("the password is", ``password:``, YAML's
  ``password: >-``, "signing secret in hex:", a question "what's the db password?", a line
  that is only a secret's name: "admin password") gives its value on the next non-blank line:
  the label and that line are read as one line (a bare name with a colon), and what is found in
  the value's part is taken.
- **Encoded.** A base64 blob that decodes to text holding a secret (a pasted ``.env``, a
  ``user:password`` pair, a key) is redacted whole, as the kind found inside. Data URIs are
  images, not secrets; blobs longer than ENCODED_MAX are not decoded.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable, Iterable, Iterator

from vaultmem.notes.lazyre import lazy
from vaultmem.notes.secretspan import Finding
from vaultmem.notes.secretwords import passphrase_words

Finder = Callable[[str], list[Finding]]

ENCODED_MIN = 24
ENCODED_MAX = 8192
# A token's halves: ``=`` only as base64's padding at the end (``NAME=value`` is two tokens).
_TAIL = lazy(r"[A-Za-z0-9_+/-]{4,}\.?[ \t]*\r?$")  # a JWT cut after a dot too
_HEAD = lazy(r"[ \t]*([A-Za-z0-9_+/-]{4,}={0,2})(?![=A-Za-z0-9_+/-])([ \t]*(?:\r?\n|$))?")
_BLOB = lazy(r"(?<![A-Za-z0-9+/=_-])[A-Za-z0-9+/_-]{24,}={0,2}(?![A-Za-z0-9+/=_-])")  # ENCODED_MIN
_LINES_JOINED = 4  # a key wrapped over more lines than this is a PEM block (its own rule)
# A line's end that names a secret and links it to a value the line does not hold: a name
# holding a secret's word (``DB_PASSWORD``, "api key", "the passphrase"), maybe "for the admin"
# or "(base64)" after it, then ``:``, ``=``, a YAML block scalar's ``|``/``>``, or "is"/"was".
_LABEL = lazy(
    r"(?i)(?<![^\s\"'`*(\[{-])[\w.-]*(?:pass(?:word|wd|phrase|code)?|pwd?|secret|token|key|psk"
    r"|credentials?|creds)[\w.-]*['\"`*]*(?:[ \t]+(?:(?:for|of|on|in)[ \t]+[\w.@:/-]+"
    r"(?:[ \t]+[\w.@:/-]+){0,3}|\([^)\n]{0,30}\)))?[ \t]*"
    r"(?:(?:[:=][ \t]*(?:[|>][-+]?)?)|[ \t](?:is|was|are)(?:[ \t]*:)?|\?)[*_]*[ \t]*\r?$")
# A line that is only a secret's name, as a list of logins gives it ("admin password", "**API
# token**"): its value is the next line's, as if after a colon.
_BARE_LABEL = lazy(
    r"(?i)[ \t>*_-]*(?:[\w-]+[ \t]+){0,2}[\w.-]*(?:pass(?:word|wd|phrase)?|pwd?|secret|token"
    r"|api[ _-]?key|psk)s?[*_]*[ \t]*\r?")
_LABEL_SPAN = 160  # how much of a line's end the label is looked for in
_VALUE_LINES = 2  # how many lines down, blank ones included, its value may be
# The value's line: one token, or a quoted string; not Markdown or code (a fence, a list, a
# heading) and not the next key of a mapping.
# "It's …" answers a question on the line before.
_VALUE_LINE = lazy(r"(?!```|~~~|[#>*+|<{\[(-]\s|[\w.-]+:(?:\s|$))(?:[Ii]t(?:['’]s|\s+is)\s+)?"
                   r"(?:[^\s'\"`]{3,200}|(['\"`])[^'\"`\n]{3,120}\1)")
_NUMBERED = lazy(r"\d+→\s*")
_PASSWORD_LABEL = lazy(r"(?i)pass(?:word|wd|phrase|code)?|pwd")
# A word, maybe with a number after it: a line of its own under a key is a name, not its tail.
_WORD = lazy(r"[A-Z]?[a-z]{1,15}\d{0,4}")


def wrapped(text: str, lines: Iterable[int], finder: Finder) -> Iterator[Finding]:
    """Findings that cross a line break, for the lines starting at ``lines`` (offsets of
    their first character)."""
    for line_start in lines:
        line_end = text.find("\n", line_start)
        if line_end < 0:
            continue
        tail = _TAIL.search(text, line_start, line_end)
        if tail is None:
            continue
        # A key's first half with the line before it: the name before it may be what makes it
        # a secret (``AWS_SECRET_ACCESS_KEY=wJal…``); a word (``: True``) joins alone.
        first = text[tail.start():line_end].rstrip()
        head = _HEAD.match(text, line_end + 1)
        if len(first) >= 8 and _random_looking(first) and head is not None and _keyish(
                head.group(1)):
            parts = [(line_start, text[line_start:line_end].rstrip())]
        else:
            parts = [(tail.start(), first)]
        at = line_end + 1
        for _ in range(_LINES_JOINED):
            head = _HEAD.match(text, at)
            if head is None:
                break
            whole_line = head.group(2) is not None
            if _WORD.fullmatch(head.group(1)) or not (whole_line or _random_looking(head.group(1))):
                break  # a word on the next line ("Falcon", "Team2") is no key's tail
            parts.append((head.start(1), head.group(1)))
            if not whole_line:
                break
            at = head.end()
        if len(parts) > 1:
            yield from _crossing(parts, finder)


def labelled(text: str, lines: Iterable[int], finder: Finder) -> Iterator[Finding]:
    """Values on the line after a label that ends its line, for the lines starting at
    ``lines``."""
    for line_start in lines:
        line_end = text.find("\n", line_start)
        if line_end < 0:
            continue
        label = _LABEL.search(text, max(line_start, line_end - _LABEL_SPAN), line_end)
        bare = label is None and _BARE_LABEL.fullmatch(text, line_start, line_end) is not None
        if label is None and not bare:
            continue
        at = line_end + 1
        for _ in range(_VALUE_LINES):
            stop = text.find("\n", at)
            stop = len(text) if stop < 0 else stop
            value = text[at:stop].strip()
            if value:
                break
            at = stop + 1
        else:
            continue
        numbered = _NUMBERED.match(value)  # a line of a file as the Read tool shows it
        value = value[numbered.end():] if numbered else value
        said = label.group(0) if label else text[line_start:line_end]
        if _PASSWORD_LABEL.search(said) and passphrase_words(value.strip("'\"`")):
            origin = text.index(value, at)
            yield Finding(origin, origin + len(value), "password")  # a passphrase of words
            continue
        if not _VALUE_LINE.fullmatch(value):
            continue  # a sentence, a mapping's next key, code: no value
        if bare and value.isalpha() and value[:1].isupper():
            continue  # "Password⏎Reset", "Secret⏎Manager": a title's words
        head = text[line_start:line_end].rstrip()
        head = head.rstrip("|>-+").rstrip() if head.endswith(("|", ">", "|-", ">-", "|+", ">+")) else head
        head = head.rstrip("*_") if head.endswith((":**", ":__")) else head
        joined = f"{head}{':' if bare else ''} {value}"
        origin = text.index(value, at)
        for found in finder(joined):
            if found.start > len(joined) - len(value) - 1:
                start = origin + found.start - len(joined) + len(value)
                yield Finding(start, start + found.end - found.start, found.kind)


def _crossing(parts: list[tuple[int, str]], finder: Finder) -> Iterator[Finding]:
    joined = "".join(p for _, p in parts)
    bounds = []  # (joined offset, original offset) where each part starts
    pos = 0
    for origin, part in parts:
        bounds.append((pos, origin))
        pos += len(part)
    first_end = len(parts[0][1])
    for found in finder(joined):
        if found.start < first_end < found.end:
            yield Finding(_original(bounds, found.start), _original(bounds, found.end - 1) + 1,
                          found.kind)


def _original(bounds: list[tuple[int, int]], offset: int) -> int:
    joined_at, origin = next((j, o) for j, o in reversed(bounds) if j <= offset)
    return origin + offset - joined_at


def _keyish(token: str) -> bool:
    """Whether a line's first token is a key's second half: letters with digits, or base64's
    ``+/`` (an identifier such as ``API_TOKEN`` starts a line of its own)."""
    return any(c.isalpha() for c in token) and any(c.isdigit() or c in "+/" for c in token)


def _random_looking(token: str) -> bool:
    return any(c.isdigit() or c in "+/=" for c in token) or any(c.isupper() for c in token[1:])


def encoded(text: str, finder: Finder) -> Iterator[Finding]:
    """Base64 blobs of ``text`` that decode to text holding a secret."""
    for m in _BLOB.finditer(text):
        blob = m.group(0)
        if len(blob) > ENCODED_MAX or text.endswith("base64,", 0, m.start()):
            continue
        decoded = _decoded(blob)
        if decoded is None:
            continue
        inner = finder(decoded)
        if inner:
            yield Finding(m.start(), m.end(), inner[0].kind)


def _decoded(blob: str) -> str | None:
    """``blob`` decoded as (URL-safe) base64 into printable text, or None."""
    padded = blob.rstrip("=")
    padded += "=" * (-len(padded) % 4)
    try:
        raw = (base64.urlsafe_b64decode(padded) if "-" in blob or "_" in blob
               else base64.b64decode(padded, validate=True))
        decoded = raw.decode("utf-8")
    except (binascii.Error, UnicodeDecodeError, ValueError):
        return None
    printable = sum(c.isprintable() or c in "\n\r\t" for c in decoded)
    return decoded if decoded and printable >= 0.95 * len(decoded) else None
