"""A note as the index keeps it (pure): frontmatter read fast, kind by path, private text out."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

from vaultmem.notes import facts, fences
from vaultmem.notes.privacy import PrivateStream, strip_private

# -- frontmatter, fast ------------------------------------------------------------------------

@functools.cache
def _loader() -> type[Any]:
    """ObsidianLoader's resolvers and constructors over libyaml's C parser when there is one.

    The index reads the frontmatter of every note on a cold build; the pure-Python parser
    costs ~4 ms a note there, this ~0.5 ms, and reads every value the same way. Built on first
    use: most notes never need a YAML parser (see ``_simple_meta``), and recall imports none.
    """
    from vaultmem.notes import frontmatter

    try:
        from yaml.constructor import SafeConstructor
        from yaml.cyaml import CParser  # type: ignore[attr-defined]
        from yaml.resolver import Resolver
    except ImportError:  # pragma: no cover - PyYAML built without libyaml
        return frontmatter.ObsidianLoader

    class _FastLoader(CParser, frontmatter.ObsidianLoader):
        def __init__(self, stream: str) -> None:
            CParser.__init__(self, stream)
            SafeConstructor.__init__(self)
            Resolver.__init__(self)

    return _FastLoader


_INDEXED_KEYS = frozenset({"type", "project", "updated", "status", "aliases", "tags"})
_LIST_KEYS = frozenset({"aliases", "tags"})
_KEY = re.compile(r"[A-Za-z_][\w-]*")
# A plain scalar ObsidianLoader reads back as this very string (no quotes, flow, comments,
# anchors, "key: value" inside, or null words); dates read as dates and print back the same.
_PLAIN = re.compile(r"[\w.][\w./+-]*(?: [\w./+-]+)*")
_NULLS = frozenset({"null", "Null", "NULL"})


_CLOSERS = {'"': '"', "'": "'", "[": "]", "{": "}"}


def _one_line_value(value: str) -> bool:
    """True when a value of a key the index skips cannot continue on the next lines."""
    first = value[0]
    if first in _CLOSERS:
        return len(value) > 1 and value.endswith(_CLOSERS[first])
    return first not in "|>&*!%@`#"


# What one frontmatter line says read on its own (what to do with it depends on the lines
# before it; what it says does not): (kind, key, value).
_BLANK, _ITEM, _BAD, _OTHER_KEY, _LIST_KEY, _EMPTY_KEY, _KEY_VALUE = range(7)
_LINES: dict[str, tuple[int, str, str]] = {}
# The lines vaultmem writes repeat from note to note (type, project, tags and their items,
# status): each is read once per process, the rest looked up. Bounded: past this many different
# lines, new ones are read every time.
_LINES_KEPT = 4096


def _line(line: str) -> tuple[int, str, str]:
    """What a non-empty frontmatter line says to the fast reader (see ``_simple_meta``)."""
    if not line.strip():
        return _BLANK, "", ""  # blank but for whitespace ("\r", form feed…)
    if line[0] in " \t-":
        item = line.lstrip(" \t")
        if item[:2] != "- ":
            return _BAD, "", ""
        value = item[2:].rstrip(" \t")
        if value in _NULLS or not _PLAIN.fullmatch(value):
            return _BAD, "", ""
        return _ITEM, "", value
    key, colon, rest = line.partition(":")
    if not colon or (rest and rest[0] not in " \t") or not _KEY.fullmatch(key):
        return _BAD, "", ""
    value = rest.strip(" \t")
    if key not in _INDEXED_KEYS:
        if value and not _one_line_value(value):
            return _BAD, "", ""  # may span lines in ways only YAML can tell
        return _OTHER_KEY, key, ""
    if not value:
        return (_LIST_KEY if key in _LIST_KEYS else _EMPTY_KEY), key, ""
    if value in _NULLS or not _PLAIN.fullmatch(value):
        return _BAD, "", ""
    return _KEY_VALUE, key, value


def _simple_meta(yaml_text: str) -> dict[str, Any] | None:
    """The indexed keys of frontmatter written the simple way vaultmem writes it (``key: word``
    and block lists of words), or None when anything needs the real YAML parser.

    A key line is ``key:`` then nothing, or blanks and a value; an item line is ``- value``
    after blanks; a value is what is left once blanks are stripped from both ends. Lines are
    taken apart with str methods, and each different line once (``_LINES``): a cold build
    reads the frontmatter of every note."""
    data: dict[str, Any] = {}
    items: list[str] | None = None  # the list of an indexed list key whose items follow
    for line in yaml_text.split("\n"):
        if not line:
            continue
        indented = line[0] in " \t-"
        if indented and items is None:
            continue  # a continuation of a key the index does not read (or a blank line)
        kind, key, value = _LINES.get(line) or _read_line(line)
        if kind == _BLANK:
            continue
        if indented:
            if kind != _ITEM or items is None:
                return None
            items.append(value)
            continue
        if kind == _BAD:
            return None
        items = None
        if kind == _OTHER_KEY:
            continue
        if key in data:
            return None  # a duplicate key is invalid YAML: let the parser say so
        if kind == _LIST_KEY:
            data[key] = items = []
        else:
            data[key] = value if kind == _KEY_VALUE else None
    return data


def _read_line(line: str) -> tuple[int, str, str]:
    said = _line(line)
    if len(_LINES) < _LINES_KEPT:
        _LINES[line] = said
    return said


def load_yaml(yaml_text: str) -> Any:
    """The YAML of a frontmatter block read as ObsidianLoader reads it (libyaml when present);
    raises yaml.YAMLError (or ValueError/RecursionError) when invalid."""
    import yaml

    return yaml.load(yaml_text, Loader=_loader())


def read_meta(text: str) -> tuple[dict[str, Any] | None, str]:
    """(frontmatter dict, body) of a note; the dict is None when the YAML is invalid or not a
    mapping (the body is still returned so the note can be searched).

    Frontmatter in the simple form vaultmem writes is read by a line scanner that returns only
    the keys the index uses (type, project, updated, status, aliases, tags); anything else goes
    through the YAML parser and returns every key.
    """
    parts = fences.split(text)
    if not parts.has_frontmatter:
        return {}, text
    simple = _simple_meta(parts.yaml_text)
    if simple is not None:
        return simple, parts.body
    import yaml

    try:
        data = load_yaml(parts.yaml_text)
    except (yaml.YAMLError, ValueError, TypeError, RecursionError):
        return None, parts.body
    if data is None:
        return {}, parts.body
    if not isinstance(data, dict):
        return None, parts.body
    return data, parts.body


def _text_of(value: Any) -> str | None:
    if isinstance(value, str):
        return value  # the common case first: most values are words
    if value is None or isinstance(value, (dict, list)):
        return None
    if isinstance(value, (date, datetime)):
        return value.isoformat()[:10]
    return str(value)


def _strings(value: Any) -> list[str]:
    if isinstance(value, list):
        return [str(v) for v in value if v is not None and not isinstance(v, (dict, list))]
    text = _text_of(value)
    return [text] if text else []


def _path_kind(rel: str, namespace: str) -> tuple[str | None, str | None]:
    """(type, project) told by where a note lives, for notes without usable frontmatter."""
    parts = rel.split("/")
    if parts[0] != namespace or len(parts) < 3:
        return None, None
    if parts[1] == "global":
        kind = {"entities": "entity", "topics": "topic"}.get(parts[2])
        return kind, "global"
    if parts[1] == "projects" and len(parts) >= 4:
        project = parts[2]
        if parts[3] == "_index.md":
            return "project-index", project
        kind = {"entities": "entity", "sessions": "session", "archive": "session"}.get(parts[3])
        return kind, project
    return None, None


_BOM = "\ufeff".encode()


@dataclass(frozen=True)
class NoteRow:
    """What the index keeps of one note."""

    type: str | None
    project: str | None
    title: str
    updated: str | None
    status: str | None
    names: str  # the searchable title: file name and aliases
    tags: str
    body: str  # facts.searchable: no link targets, no comments


def _note_text(raw: bytes) -> str:
    """A note's bytes as text: bad bytes replaced, no leading BOM, "\n" line ends."""
    text = raw.decode("utf-8", errors="replace")
    # Asked of the bytes first: a BOM or "\r" decodes only from these very bytes (a replaced bad
    # byte never swallows one), and looking for one byte is a memchr, for two a slower scan.
    if raw.startswith(_BOM):
        text = text.lstrip("\ufeff")
    if b"\r" in raw:
        text = text.replace("\r\n", "\n")
    return text


def _public(text: str, body: str) -> str:
    """The ``body`` of a note ``text`` without its private spans (a span left open in the
    frontmatter keeps the body private too)."""
    if "<" not in text:  # no tag, no private text (one memchr rather than two slices and feeds)
        return body
    private = PrivateStream()
    private.feed(text[: len(text) - len(body)])
    return private.feed(body)


def public_body(raw: bytes, scrub: Callable[[str], str] = str) -> str:
    """The body of a note's bytes as the index reads it, private spans removed, secrets
    redacted (``scrub``), Markdown kept (wikilinks too: ``vaultmem.notes.facts`` reads the
    facts of it)."""
    text = _note_text(raw)
    return scrub(_public(text, read_meta(text)[1]))


def note_row(rel: str, raw: bytes, namespace: str,
             scrub: Callable[[str], str] = str) -> NoteRow:
    """What the index keeps of a note; never raises on bad bytes or bad YAML. ``scrub``: the
    vault's redaction: a person's own note is never rewritten, but what vaultmem shows of it
    (search, snippets, the briefing's facts) holds no secret."""
    text = _note_text(raw)
    meta, body = read_meta(text)
    path_type, path_project = _path_kind(rel, namespace)
    stem = rel.rsplit("/", 1)[-1][:-3]
    meta = meta or {}
    # Private text is never indexed: not searchable, not in a snippet, not in the file.
    body = scrub(_public(text, body))
    aliases = _strings(meta.get("aliases"))
    return NoteRow(
        type=_text_of(meta.get("type")) or path_type,
        project=_text_of(meta.get("project")) or path_project,
        title=strip_private(stem),
        updated=_text_of(meta.get("updated")),
        status=_text_of(meta.get("status")),
        names=strip_private(" ".join([stem, *aliases])),
        tags=strip_private(" ".join(_strings(meta.get("tags")))),
        # What a reader sees: words inside a link's path or a comment never match.
        body=facts.searchable(body),
    )
