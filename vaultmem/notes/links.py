"""Obsidian wikilinks: parse, format, resolve the way Obsidian does, rewrite (pure).

This runs over every note in ``doctor`` and ``promote``, so it scans lines and backtick runs by
hand instead of building a markdown-it token tree.
"""

from __future__ import annotations

import bisect
import posixpath
import re
import unicodedata
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from vaultmem.errors import UnsafePath
from vaultmem.notes.lazyre import lazy
from vaultmem.notes.names import is_safe_filename, sanitize_filename


@dataclass(frozen=True)
class Link:
    """One ``[[...]]`` or ``![[...]]`` in a text."""

    target: str  # as written, surrounding spaces trimmed; "" for a link inside the same note
    heading: str | None  # after '#'
    block: str | None  # after '#^'
    alias: str | None  # after '|' (or '\|' inside a table)
    embed: bool  # ![[...]]
    start: int  # character offset of '[' (or of '!' for an embed)
    end: int  # character offset just after ']]'


# The content of a wikilink never holds brackets or a line break.
_LINK_RE = lazy(r"\[\[([^\[\]\n]*)\]\]")  # an embed's "!" is looked for before it
# A whole link or embed, for taking links out of a line's words (no parse, no code-span check).
ANY_LINK = lazy(r"!?\[\[[^\[\]\n]*\]\]")
# A fence opener, also inside block quotes and list items (any indent).
_FENCE_RE = lazy(r"^(?:[ \t]*>)*[ \t]*(`{3,}|~{3,})(.*)$")
_BACKTICKS_RE = re.compile(r"`+")


def _fenced_and_paragraphs(text: str) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """Character ranges of fenced code blocks, and of the runs of other non-blank lines."""
    fences: list[tuple[int, int]] = []
    paragraphs: list[tuple[int, int]] = []
    fence: tuple[str, int, int] | None = None  # (fence char, fence length, start offset)
    para_start: int | None = None
    pos = 0
    for line in text.splitlines(keepends=True):
        start, pos = pos, pos + len(line)
        body = line.rstrip("\r\n")
        # Only a line holding ``` or ~~~ can open or close a fence: the rest skip the regex.
        maybe_fence = "```" in body or "~~~" in body
        if fence is not None:
            if not maybe_fence:
                continue
            char, length, fence_start = fence
            m = _FENCE_RE.match(body)
            if m and m.group(1)[0] == char and len(m.group(1)) >= length and not m.group(2).strip():
                fences.append((fence_start, pos))
                fence = None
            continue
        m = _FENCE_RE.match(body) if maybe_fence else None
        # A backtick fence's info string cannot hold a backtick (that is inline code).
        if m and not (m.group(1)[0] == "`" and "`" in m.group(2)):
            if para_start is not None:
                paragraphs.append((para_start, start))
                para_start = None
            fence = (m.group(1)[0], len(m.group(1)), start)
            continue
        if body.strip():
            if para_start is None:
                para_start = start
        elif para_start is not None:
            paragraphs.append((para_start, start))
            para_start = None
    if fence is not None:  # an unclosed fence runs to the end of the text (CommonMark)
        fences.append((fence[2], len(text)))
    if para_start is not None:
        paragraphs.append((para_start, len(text)))
    return fences, paragraphs


def _code_spans(text: str, runs: Sequence[tuple[int, int]]) -> Iterator[tuple[int, int]]:
    """Inline code spans of one paragraph, from its backtick ``runs`` (start, end) in order: a
    run closed by a run of equal length."""
    i = 0
    while i < len(runs):
        open_start, open_end = runs[i]
        if open_start > 0 and text[open_start - 1] == "\\":
            open_start += 1  # an escaped backtick is literal; the rest of the run may still open
            if open_start == open_end:
                i += 1
                continue
        length = open_end - open_start
        for j in range(i + 1, len(runs)):
            if runs[j][1] - runs[j][0] == length:
                yield (open_start, runs[j][1])
                i = j + 1
                break
        else:
            i += 1


def _code_ranges(text: str) -> list[tuple[int, int]]:
    """Sorted, non-overlapping character ranges that are code (fenced or inline)."""
    if "`" not in text and "~~~" not in text:
        return []
    if _ODD_BREAKS.search(text):
        fences, paragraphs = _fenced_and_paragraphs(text)
        ranges = list(fences)
        for start, end in paragraphs:
            if "`" in text[start:end]:
                runs = [(m.start(), m.end()) for m in _BACKTICKS_RE.finditer(text, start, end)]
                ranges.extend(_code_spans(text, runs))
    else:
        fences = _fences(text)
        ranges = fences + _inline_code(text, fences) if "`" in text else fences
    ranges.sort()
    return ranges


# Line breaks other than "\n" (str.splitlines breaks lines there too): such a text is read line
# by line; any other is read with a few regex passes over the whole text.
_ODD_BREAKS = lazy("[\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")
_FENCE_MARK = lazy(r"```|~~~")
# After a "\n", a line of spaces only (searched for by its "\n": a literal first character lets
# the search skip ahead); the first line is looked at on its own.
_BLANK_AFTER = lazy(r"\n(?=[^\S\n]*(?:\n|$))")
_BLANK_FIRST = lazy(r"[^\S\n]*(?:\n|$)")


def _fences(text: str) -> list[tuple[int, int]]:
    """``_fenced_and_paragraphs``' fences, from the only lines that can open or close one."""
    fences: list[tuple[int, int]] = []
    fence: tuple[str, int, int] | None = None  # (fence char, fence length, start offset)
    line_end = -1
    for mark in _FENCE_MARK.finditer(text):
        if mark.start() < line_end:
            continue  # a line is read once
        line_start = text.rfind("\n", 0, mark.start()) + 1
        line_end = text.find("\n", mark.start())
        line_end = len(text) if line_end < 0 else line_end
        m = _FENCE_RE.match(text[line_start:line_end])
        if fence is not None:
            char, length, fence_start = fence
            if m and m.group(1)[0] == char and len(m.group(1)) >= length and not m.group(2).strip():
                fences.append((fence_start, min(line_end + 1, len(text))))
                fence = None
        elif m and not (m.group(1)[0] == "`" and "`" in m.group(2)):
            fence = (m.group(1)[0], len(m.group(1)), line_start)
    if fence is not None:  # an unclosed fence runs to the end of the text (CommonMark)
        fences.append((fence[2], len(text)))
    return fences


def _inline_code(text: str, fences: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    """The code spans outside ``fences``: backtick runs paired within a paragraph, which blank
    lines and fences end."""
    starts = [start for start, _ in fences]
    blank = [m.start() + 1 for m in _BLANK_AFTER.finditer(text)]
    if _BLANK_FIRST.match(text):
        blank.insert(0, 0)
    breaks = sorted(blank + [edge for fence in fences for edge in fence])
    paragraphs: dict[int, list[tuple[int, int]]] = {}
    for run in _BACKTICKS_RE.finditer(text):
        at = run.start()
        i = bisect.bisect_right(starts, at) - 1
        if i >= 0 and fences[i][0] <= at < fences[i][1]:
            continue
        paragraphs.setdefault(bisect.bisect_right(breaks, at), []).append((at, run.end()))
    return [span for runs in paragraphs.values() for span in _code_spans(text, runs)]


@dataclass(frozen=True)
class _Parts:
    link: Link
    target_start: int
    target_end: int


class _Found(NamedTuple):
    """A ``[[…]]`` outside code: where it starts (at the ``!`` of an embed), ends, and what is
    inside the brackets, from where."""

    start: int
    end: int
    inner: str
    inner_start: int
    embed: bool


def _split(found: _Found) -> _Parts | None:
    inner, inner_start = found.inner, found.inner_start
    bar = inner.find("|")
    alias = (inner[bar + 1 :] or None) if bar >= 0 else None
    head = _head(inner, bar)
    heading: str | None = None
    block: str | None = None
    hash_at = head.find("#")
    raw_target = head if hash_at < 0 else head[:hash_at]
    if hash_at >= 0:
        rest = head[hash_at + 1 :]
        if rest.startswith("^"):
            block = rest[1:] or None
        else:
            heading = rest or None
    target = raw_target.strip()
    if not target and heading is None and block is None:
        return None  # "[[]]" or "[[|x]]" is not a link in Obsidian
    lead = len(raw_target) - len(raw_target.lstrip())
    target_start = inner_start + lead
    link = Link(
        target=target,
        heading=heading,
        block=block,
        alias=alias,
        embed=found.embed,
        start=found.start,
        end=found.end,
    )
    return _Parts(link, target_start, target_start + len(target))


def _head(inner: str, bar: int) -> str:
    """A link's text before its alias (``bar``: where its ``|`` is, or -1)."""
    if bar < 0:
        return inner
    # Inside a table the pipe is written '\|'; the backslash is part of the separator.
    return inner[: bar - 1] if bar > 0 and inner[bar - 1] == "\\" else inner[:bar]


def _matches(text: str) -> Iterator[_Found]:
    """The ``[[…]]`` of ``text`` outside fenced code and inline code, in order."""
    if "[[" not in text:
        return
    code = _code_ranges(text)
    starts = [s for s, _ in code]
    for match in _LINK_RE.finditer(text):
        embed = match.start() > 0 and text[match.start() - 1] == "!"
        start = match.start() - embed
        i = bisect.bisect_right(starts, start) - 1
        if not (i >= 0 and code[i][0] <= start < code[i][1]):
            yield _Found(start, match.end(), match.group(1), match.start(1), embed)


def _parts(text: str) -> list[_Parts]:
    return [parts for found in _matches(text) if (parts := _split(found)) is not None]


def parse(text: str) -> list[Link]:
    """Every wikilink and embed in ``text``, in order, skipping fenced code and inline code."""
    return [p.link for p in _parts(text)]


def targets(text: str) -> list[tuple[str, int, int]]:
    """(target, start, end) of each link of ``parse(text)`` that has a target (not only a
    heading or block), read without making Link objects: doctor reads every link of a vault."""
    out: list[tuple[str, int, int]] = []
    for found in _matches(text):
        head = _head(found.inner, found.inner.find("|"))
        hash_at = head.find("#")
        target = (head if hash_at < 0 else head[:hash_at]).strip()
        if target:
            out.append((target, found.start, found.end))
    return out


def _check_target(target: str) -> None:
    if any(bad in target for bad in ("[[", "]]", "|", "#", "\n")):
        raise UnsafePath(f"a link target cannot contain [[, ]], |, # or a line break: {target!r}")


def format(
    target: str,
    *,
    heading: str | None = None,
    block: str | None = None,
    alias: str | None = None,
) -> str:
    """``[[target#heading|alias]]`` (or ``#^block``); UnsafePath if the target would break it."""
    _check_target(target)
    text = target
    if heading:
        text += "#" + heading
    if block:
        text += "#^" + block
    if alias:
        text += "|" + alias
    return "[[" + text + "]]"


def _key(path: str) -> str:
    """Compare notes the way Obsidian does: without ``.md``, case-insensitive, NFC."""
    if path.lower().endswith(".md"):
        path = path[:-3]
    return unicodedata.normalize("NFC", path).lower()


link_key = _key  # the key NoteIndex.exact and by_name look notes up by


class NoteIndex:
    """Note paths indexed for repeated :func:`resolve` calls (build once per vault scan)."""

    def __init__(self, notes: Iterable[str]) -> None:
        self.notes = sorted(set(notes))
        self._by_key: dict[str, list[str]] = {}
        self._by_name: dict[str, list[str]] = {}
        for note in self.notes:
            key = _key(note)
            self._by_key.setdefault(key, []).append(note)
            self._by_name.setdefault(key.rsplit("/", 1)[-1], []).append(note)

    def __iter__(self) -> Iterator[str]:
        return iter(self.notes)

    def exact(self, key: str) -> list[str]:
        """Notes whose vault path (without ``.md``) equals ``key`` case-insensitively."""
        return self._by_key.get(key, [])

    def by_name(self, name: str) -> list[str]:
        """Notes whose base name (without ``.md``) equals ``name`` case-insensitively."""
        return self._by_name.get(name, [])

    def resolve(self, target: str, source_rel: str | None = None) -> str | None:
        """See :func:`resolve`."""
        return resolve(target, source_rel, self)


def _pick(candidates: list[str], target: str) -> str:
    # Several case-insensitive twins (possible on a case-sensitive disk): the exact spelling
    # of the name wins, then the first in sorted order.
    name = posixpath.basename(target)
    if name.lower().endswith(".md"):
        name = name[:-3]
    exact = [n for n in candidates if posixpath.basename(n)[:-3] == name]
    return min(exact or candidates)


def candidates(target: str, source_rel: str | None, notes: Iterable[str]) -> list[str]:
    """The notes the rule that decides ``target`` finds, sorted: the exact path (or its case
    twins), else the note in the source's folder, else every match of the shortest length."""
    index = notes if isinstance(notes, NoteIndex) else NoteIndex(notes)
    target = target.strip()
    if not target:
        return [source_rel] if source_rel is not None else []
    key = _key(target.lstrip("/"))
    found = index.exact(key)
    if found:
        return list(found)
    if source_rel is not None:
        local = posixpath.normpath(posixpath.join(posixpath.dirname(source_rel), key))
        if not local.startswith("../") and local != "..":
            found = index.exact(local)
            if found:
                return list(found)
    name = key.rsplit("/", 1)[-1]
    suffix = "/" + key
    matches = [n for n in index.by_name(name) if ("/" + _key(n)).endswith(suffix)]
    if not matches:
        return []
    shortest = min(len(n) for n in matches)
    return [n for n in matches if len(n) == shortest]


def resolve(target: str, source_rel: str | None, notes: Iterable[str]) -> str | None:
    """The note a link target points to, the Obsidian way; None when unresolved.

    Order: the exact vault path (with or without ``.md``), then the source note's own folder,
    then the shortest path whose trailing path (the base name for a bare name) matches, ties
    broken by sorted order. All comparisons are case-insensitive. An empty target is the source.
    """
    found = candidates(target, source_rel, notes)
    return _pick(found, target.strip()) if found else None


def named(name: str, notes: Iterable[str]) -> list[str]:
    """Every note whose base name is ``name`` (case-insensitive, NFC), sorted."""
    index = notes if isinstance(notes, NoteIndex) else NoteIndex(notes)
    return list(index.by_name(_key(name.strip())))


def ambiguous(target: str, source_rel: str | None, notes: Iterable[str]) -> list[str]:
    """The notes a bare ``[[target]]`` could mean when Obsidian's choice is not unique: several
    notes with that name and none decided by an exact path or the source's folder; else []."""
    index = notes if isinstance(notes, NoteIndex) else NoteIndex(notes)
    if "/" in target or not target.strip():
        return []
    same = named(target, index)
    if len({n.lower() for n in same}) < 2:
        return []
    decided = candidates(target, source_rel, index)
    if len(decided) == 1 and (index.exact(_key(target.strip())) or posixpath.dirname(decided[0])
                              == posixpath.dirname(source_rel or "")):
        return []
    return same


def scoped(name: str, scopes: Sequence[str], notes: Iterable[str]) -> str | None:
    """The note named ``name`` in the first folder of ``scopes`` that holds one (vaultmem's
    order for a bare name: the current project, then global); None when none does."""
    same = named(name, notes)
    for folder in scopes:
        prefix = folder.rstrip("/") + "/"
        inside = [n for n in same if n.startswith(prefix)]
        if inside:
            return resolve(name, None, inside)
    return None


def entity_link(name: str, rel: str) -> str:
    """The link vaultmem writes for the entity note ``rel`` shown as ``name``: always its path
    with the name as alias, ``[[claude/projects/p/entities/Auth|Auth]]``, so that it stays
    unambiguous when another project gets an ``Auth`` later (a bare ``[[Auth]]`` would then open
    either). ``rel`` need not exist yet (an entity compaction will create)."""
    return format(rel[:-3] if rel.lower().endswith(".md") else rel, alias=name)


def rewrite(text: str, mapping: Callable[[Link], str | None]) -> str:
    """Replace link targets by ``mapping(link)`` (None keeps it); heading, block, alias and
    the embed ``!`` stay exactly as written."""
    out: list[str] = []
    pos = 0
    for parts in _parts(text):
        new = mapping(parts.link)
        if new is None or new == parts.link.target:
            continue
        _check_target(new)
        out.append(text[pos : parts.target_start])
        out.append(new)
        pos = parts.target_end
    if not out:
        return text
    out.append(text[pos:])
    return "".join(out)


def safe_entity_name(name: str) -> str:
    """The entity name of a link target (trimmed, NFC, no ``.md``); UnsafePath when it cannot
    be a file name of its own in the entities folder."""
    link = f"[[{name}]]"
    cleaned = unicodedata.normalize("NFC", name.strip())
    if cleaned.lower().endswith(".md"):
        cleaned = cleaned[:-3].rstrip()
    if not cleaned:
        raise UnsafePath(f"empty entity name in link {link}")
    if cleaned in (".", ".."):
        raise UnsafePath(f"entity name {cleaned!r} in link {link} would leave the entities folder")
    if "/" in cleaned or "\\" in cleaned:
        raise UnsafePath(f"entity name in link {link} is a path; entity names are bare names")
    if not is_safe_filename(cleaned):
        try:
            hint = f" (a safe spelling: {sanitize_filename(cleaned)!r})"
        except UnsafePath:
            hint = ""
        raise UnsafePath(f"entity name in link {link} is not a name Obsidian can hold{hint}")
    return cleaned
