"""JSON from other programs with every string made encodable.

``JSON.stringify`` writes the half of a cut emoji as a lone ``\\ud83d`` escape; ``json.loads``
turns it into a lone surrogate that no UTF-8 file, file name or SQLite text can hold, and the
first write of it raised (the whole session was lost). Every lone surrogate becomes U+FFFD here,
where the text enters, so no later step meets one.

``loads_exact``/``dumps_exact`` keep numbers as written, for files vaultmem edits for someone else
(Claude Code's settings.json): ``1e400`` read as a float and written back is ``Infinity``, which
is not JSON.
"""

from __future__ import annotations

import json
import re
import secrets
from dataclasses import dataclass
from typing import Any

REPLACEMENT = "\ufffd"
_SURROGATE = re.compile("[\ud800-\udfff]")
# Only a \u escape can make a surrogate out of valid UTF-8 text; most lines have none.
_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


def clean(text: str) -> str:
    """``text`` with every lone surrogate replaced by U+FFFD (the same object when it has none)."""
    return _SURROGATE.sub(REPLACEMENT, text) if _SURROGATE.search(text) else text


def clean_value(value: Any) -> Any:
    """A parsed JSON value with every string in it (keys too) cleaned."""
    if isinstance(value, str):
        return clean(value)
    if isinstance(value, dict):
        return {clean(k) if isinstance(k, str) else k: clean_value(v) for k, v in value.items()}
    if isinstance(value, list):
        return [clean_value(v) for v in value]
    return value


def loads(text: str) -> Any:
    """``json.loads`` whose strings are all encodable (ValueError and RecursionError as json's)."""
    value = json.loads(text)
    if _ESCAPE.search(text) or _SURROGATE.search(text):
        value = clean_value(value)
    return value


@dataclass(frozen=True)
class RawNumber:
    """A JSON number kept as written (``1e400`` is not ``Infinity``; ``1e5`` stays ``1e5``)."""

    text: str


def loads_exact(text: str) -> Any:
    """Like :func:`loads`, with every non-integer number a :class:`RawNumber` (see dumps_exact)."""
    value = json.loads(text, parse_float=RawNumber)
    if _ESCAPE.search(text) or _SURROGATE.search(text):
        value = clean_value(value)
    return value


def dumps_exact(value: Any, **options: Any) -> str:
    """``json.dumps`` that writes each :class:`RawNumber` back as its text."""
    nonce = secrets.token_hex(8)
    raw: list[str] = []

    def placeholder(obj: Any) -> str:
        if not isinstance(obj, RawNumber):
            raise TypeError(f"not JSON: {type(obj).__name__}")
        raw.append(obj.text)
        return f"@vaultmem-number-{nonce}-{len(raw) - 1}@"  # ASCII: same with ensure_ascii

    out = json.dumps(value, default=placeholder, **options)
    if not raw:
        return out
    return re.sub(f'"@vaultmem-number-{nonce}-(\\d+)@"', lambda m: raw[int(m.group(1))], out)
