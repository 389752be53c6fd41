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


# A backslash escape JSON knows, or any other backslash (its group empty).
_BACKSLASH = re.compile(r'\\(["\\/bfnrt]|u[0-9a-fA-F]{4})?')


def stray_escapes_kept(text: str) -> str:
    r"""``text`` with every backslash that starts no JSON escape doubled, so it reads as itself:
    a transcript line a person or a redaction tool edited (``"C:\Users"`` made ``"C:\[USER]"``)
    is a line still, where ``json.loads`` refuses it whole ("Invalid \escape")."""
    return _BACKSLASH.sub(lambda m: m.group(0) if m.group(1) else "\\\\", text)


def loads_cut(text: str) -> Any:
    """A JSON object or array cut short (``{"a": ["b", "c``), closed and read: the open string
    ended, a dangling comma dropped or a dangling key given ``null``, the open arrays and
    objects closed. ValueError when ``text`` is no such start, or closing it reads no better."""
    stack: list[str] = []
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "{[":
            stack.append(ch)
        elif ch in "}]" and (not stack or stack.pop() != ("{" if ch == "}" else "[")):
            raise ValueError("not a cut JSON value: a bracket closes none it opened")
    if not stack:
        raise ValueError("not a cut JSON value: nothing is left open")
    body = text.rstrip()
    if escaped:
        body = body[:-1]
    if in_string:
        body += '"'
    closers = "".join("}" if c == "{" else "]" for c in reversed(stack))
    for tail in ("", ":null"):
        for head in (body, body.rstrip(",: \t")):
            try:
                return loads(head + tail + closers)
            except ValueError:
                continue
    raise ValueError("a cut JSON value that closing does not mend")


def may_hold_surrogates(text: str) -> bool:
    """Whether ``json.loads(text)`` may hold a lone surrogate (else no string needs cleaning)."""
    return bool(_ESCAPE.search(text) or _SURROGATE.search(text))
