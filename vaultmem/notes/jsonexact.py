"""JSON whose numbers are kept as written, for files vaultmem edits for someone else (Claude
Code's settings.json): ``1e400`` read as a float and written back is ``Infinity``, which is not
JSON. Strings are made encodable as :mod:`jsontext` makes them. Only ``install`` needs this: the
hooks, which read JSON on every run, do not import it.
"""

from __future__ import annotations

import json
import re
import secrets
from dataclasses import dataclass
from typing import Any

from vaultmem.notes.jsontext import clean_value, may_hold_surrogates


@dataclass(frozen=True)
class RawNumber:
    """A JSON number kept as written (``1e400`` is not ``Infinity``; ``1e5`` stays ``1e5``)."""

    text: str


def loads_exact(text: str) -> Any:
    """Like :func:`jsontext.loads`, with every non-integer number a :class:`RawNumber`."""
    value = json.loads(text, parse_float=RawNumber)
    return clean_value(value) if may_hold_surrogates(text) else value


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
