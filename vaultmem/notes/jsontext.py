"""JSON from other programs with every string made encodable.

``JSON.stringify`` writes the half of a cut emoji as a lone ``\\ud83d`` escape; ``json.loads``
turns it into a lone surrogate that no UTF-8 file, file name or SQLite text can hold, and the
first write of it raised (the whole session was lost). Every lone surrogate becomes U+FFFD here,
where the text enters, so no later step meets one.

Numbers kept as written, for a file vaultmem edits for someone else, are ``jsonexact``'s.
"""

from __future__ import annotations

import json
import re
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
    return clean_value(value) if may_hold_surrogates(text) else value


def may_hold_surrogates(text: str) -> bool:
    """Whether ``json.loads(text)`` may hold a lone surrogate (else no string needs cleaning)."""
    return bool(_ESCAPE.search(text) or _SURROGATE.search(text))
