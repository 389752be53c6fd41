"""Frontmatter in the plain form vaultmem writes, read without a YAML parser (doctor reads
every note of the vault, and the parser is most of its time).

Frontmatter made only of ``key: word``, ``key: "text"``, dates, uuids and block lists of such
values, with unique keys, is valid YAML, and its values read the same as the parser reads them.
Anything else returns None, and the caller parses it.
"""

from __future__ import annotations

import re
from typing import Any

# Frontmatter made only of lines like these is valid YAML, read without a YAML parser: no
# quotes with escapes, no flow collections, anchors, tags, comments or multi-line scalars.
_KEY_LINE = re.compile(r"([A-Za-z_][\w-]*):(?: +(.*?))? *")
_ITEM_LINE = re.compile(r"( *)- (.*?) *")
# Values that make the YAML parser neither fail nor read them as anything but themselves (or a
# date, uuid, number for digit-led ones): a letter-led plain scalar of printable characters
# without ":" or "#" (in block context nothing else ends it), a digit-led token with a hyphen
# inside (dates, which read leniently, and uuids), digits only, or a quoted string without
# escapes. YAML refuses control characters and reads \x85, \u2028, \u2029 as line breaks.
_PRINTABLE = r"\x00-\x1f\x7f-\xa0\u2028\u2029\ud800-\udfff\ufeff\ufffe\uffff"
_PLAIN_VALUE = re.compile(
    rf"[A-Za-z_][^{_PRINTABLE}:#]*|\d[\w./+]*-[\w./+-]*|\d+"
    rf"|'[^{_PRINTABLE}']*'|\"[^{_PRINTABLE}\"\\]*\""
)

_NULLS = frozenset({"null", "Null", "NULL"})
_BOOLS = {"true": True, "True": True, "TRUE": True, "false": False, "False": False,
          "FALSE": False}


def _scalar(value: str) -> Any:
    """What ObsidianLoader makes of a quoted or a letter-led plain value."""
    if value[:1] in ("'", '"'):
        return value[1:-1]
    if value in _NULLS:
        return None
    return _BOOLS.get(value, value)


def read(yaml_text: str, read_keys: frozenset[str]) -> dict[str, Any] | None:
    """The ``read_keys`` read from frontmatter in the plain form vaultmem writes (``key: word``,
    ``key: "text"``, dates, uuids, block lists of such values, unique keys); None when the YAML
    parser must read it. Frontmatter of that form always parses, and these values read the
    same as the parser reads them (a read key that is empty or digit-led goes to the parser)."""
    meta: dict[str, Any] = {}
    keys: set[str] = set()
    list_indent: int | None = -1  # -1: no list may follow; None: a list may start
    for line in yaml_text.split("\n"):
        if not line.strip(" "):
            continue
        item = _ITEM_LINE.fullmatch(line)
        if item is not None:
            indent = len(item.group(1))
            if list_indent == -1 or (list_indent is not None and indent != list_indent):
                return None
            list_indent = indent
            if not _PLAIN_VALUE.fullmatch(item.group(2)):
                return None
            continue
        m = _KEY_LINE.fullmatch(line)
        if m is None or m.group(1) in keys:
            return None
        key, value = m.group(1), m.group(2) or ""
        keys.add(key)
        if value and not _PLAIN_VALUE.fullmatch(value):
            return None
        list_indent = -1 if value else None
        if key in read_keys:
            if not value or value[0].isdigit():
                return None
            meta[key] = _scalar(value)
    return meta
