"""Names Obsidian and every filesystem can hold: slugs, note file names, block ids (pure)."""

from __future__ import annotations

import hashlib
import unicodedata

from vaultmem.errors import UnsafePath

# DESIGN §8: characters Obsidian refuses in a file name (links, tags, block refs use them).
FORBIDDEN_CHARS = frozenset('*"\\/<>:|?#^[]%')
MAX_NAME_CHARS = 120
# Linux and macOS cap a name at 255 bytes; the atomic write adds a temp prefix/suffix and the
# note adds ".md", so keep well below that even for names in three-byte scripts.
MAX_NAME_BYTES = 180

_WINDOWS_RESERVED = frozenset(
    ["CON", "PRN", "AUX", "NUL"]
    + [f"COM{i}" for i in range(1, 10)]
    + [f"LPT{i}" for i in range(1, 10)]
)


def _fold(text: str) -> str:
    """Drop accents (NFKD, combining marks removed) and return NFC text."""
    decomposed = unicodedata.normalize("NFKD", text)
    kept = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return unicodedata.normalize("NFC", kept)


def session_suffix(session_id: str) -> str:
    """A short, stable mark of one session for its note's name (``fc36e08a`` of a Claude Code
    session id): two machines that start the same topic the same day get two names."""
    mark = slug(session_id).replace("-", "")[:8]
    return mark or hashlib.sha256(session_id.encode("utf-8", "replace")).hexdigest()[:8]


def untitled_suffix(session_id: str) -> str:
    """The mark of a session note still without a topic (``<date>-session-<mark>``): eight hex
    digits, the session id's own when it starts with them (a Claude Code id, a uuid4), else a
    hash of it; the untitled name stays recognisable (layout.UNTITLED_SESSION)."""
    mark = session_suffix(session_id)
    if len(mark) == 8 and all(c in "0123456789abcdef" for c in mark):
        return mark
    return hashlib.sha256(session_id.encode("utf-8", "replace")).hexdigest()[:8]


def with_suffix(stem: str, suffix: str) -> str:
    """``stem-suffix``, unless ``stem`` ends with it already (a continuation keeps one)."""
    return stem if stem.endswith(f"-{suffix}") else f"{stem}-{suffix}"


def slug(text: str, *, max_words: int | None = None) -> str:
    """Lowercase-hyphen slug of ``text`` (accents folded); "" when nothing is left."""
    words: list[str] = []
    current: list[str] = []
    # Letters without an ASCII form (CJK, Cyrillic...) are kept: a slug of nothing but hyphens
    # would lose the topic entirely.
    for ch in _fold(text).lower():
        if ch.isalnum():
            current.append(ch)
        elif current:
            words.append("".join(current))
            current = []
    if current:
        words.append("".join(current))
    if max_words is not None:
        words = words[: max(max_words, 0)]
    return "-".join(words)


# FORBIDDEN_CHARS and the characters of Unicode categories Cc, Zl and Zp (controls, line and
# paragraph separators), as one set: a name is checked in one C-level pass.
_REFUSED = FORBIDDEN_CHARS | frozenset(
    [chr(c) for c in range(0x20)] + [chr(c) for c in range(0x7F, 0xA0)] + ["\u2028", "\u2029"]
)


def _is_forbidden(ch: str) -> bool:
    return ch in _REFUSED


def _cut(name: str) -> str:
    """Cut to the length bounds without splitting a character or a combining sequence."""
    if len(name) <= MAX_NAME_CHARS and len(name.encode("utf-8")) <= MAX_NAME_BYTES:
        return name
    end = min(len(name), MAX_NAME_CHARS)
    while end > 0 and len(name[:end].encode("utf-8")) > MAX_NAME_BYTES:
        end -= 1
    # A combining mark belongs to the character before it: cut before the whole cluster.
    while 0 < end < len(name) and unicodedata.combining(name[end]):
        end -= 1
    return name[:end]


def _is_reserved(name: str) -> bool:
    stem = name.split(".", 1)[0].rstrip(" ")
    return stem.upper() in _WINDOWS_RESERVED


def sanitize_filename(title: str) -> str:
    """A file name (without ``.md``) Obsidian and every OS accept for ``title``; UnsafePath if empty."""
    name = unicodedata.normalize("NFC", title)
    # A forbidden run together with the spaces around it becomes one space: "Auth: JWT" ->
    # "Auth JWT", "a/b" -> "a b".
    out: list[str] = []
    pending_gap = False
    for ch in name:
        if _is_forbidden(ch):
            pending_gap = True
            while out and out[-1] == " ":
                out.pop()
            continue
        if pending_gap:
            if ch == " ":
                continue
            out.append(" ")
            pending_gap = False
        out.append(ch)
    # Leading dots hide the file from Obsidian; trailing dots and spaces vanish on Windows.
    name = "".join(out).strip(" .")
    if _is_reserved(name):
        stem, dot, rest = name.partition(".")
        name = stem + "_" + dot + rest
    name = _cut(name).rstrip(" .")
    if not name:
        raise UnsafePath(f"no usable file name is left of {title!r}")
    return name


def is_safe_filename(name: str) -> bool:
    """True when ``name`` is already a name :func:`sanitize_filename` would keep as it is."""
    if not name or name != unicodedata.normalize("NFC", name):
        return False
    return (
        _REFUSED.isdisjoint(name)
        and name == name.strip(" .")
        and _cut(name) == name
        and not _is_reserved(name)
    )


def name_key(name: str) -> str:
    """How Obsidian and people compare note names: case-insensitively, after Unicode NFC
    (``[[auth]]`` is ``Auth.md``; an NFD ``Café.md`` is ``[[Café]]``)."""
    return unicodedata.normalize("NFC", unicodedata.normalize("NFC", name).casefold())


def block_id(*parts: str) -> str:
    """A stable Obsidian block id, ``vm-`` + 8 hex digits of sha256 of the parts."""
    digest = hashlib.sha256("\x1f".join(parts).encode("utf-8")).hexdigest()
    return "vm-" + digest[:8]
