"""The facts of a note: one list item of a knowledge section each, as recall shows them (pure).

A fact is a top-level list item under a section that holds knowledge: a session's ``## Decisions
Made``, ``## Gotchas & Fixes``, ``## Prerequisites``, ``## Open Questions`` and ``## Next Steps``,
an entity's ``## Key Decisions``, ``## Gotchas & Troubleshooting`` and ``## Recent Changes``, the
project index's ``## Prerequisites`` and ``## Key Entities`` rows (titles compare
case-insensitively, a section is read in every copy, lines inside fenced code are not items).

Its text is what Obsidian shows of the line: the date, the trailing ``([[…]])`` group and the
block id taken off, ``%%…%%`` comments removed, a wikilink reduced to what it displays (its alias,
else its target), so a search never matches inside a link's path or a comment. ``key`` is the
form every copy of one fact shares (the session's line, its entity's dated line, the archive's
copy): :func:`fact_key` of that text. A Key Entities row is a pointer to an entity's line: its
``ref`` is the block id its link points at.

The reader is a few regex scans per note rather than a Markdown parse: a cold index build reads
every note of the vault.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from vaultmem.notes import schema
from vaultmem.notes.lazyre import lazy

# Section title (casefolded) -> the kind of its items.
SECTION_KINDS: dict[str, str] = {
    **{section.casefold(): kind.value for section, kind in schema.KIND_OF_SECTION.items()},
    schema.RECENT_CHANGES.casefold(): "change",
    schema.KEY_ENTITIES.casefold(): "entity",
}
KINDS = (*(kind.value for kind in schema.Kind), "change", "entity")
SHOWN_CHARS = 300  # at most this many characters of a fact are shown (see ``window``)
ELLIPSIS = "…"

# Patterns over the text with a "\n" put before it, so that each starts with a literal "\n"
# (which the regex engine finds fast) rather than ``^`` in MULTILINE mode, tried at every
# character. The headings of the sections read; any heading that may end one, by its level.
_SECTION = lazy(
    r"\n(#{1,6})[ \t]+((?i:"
    + "|".join(re.escape(t) for t in SECTION_KINDS).replace(r"\ ", "[ \t]+")
    + r"))[ \t]*#*[ \t]*(?=\n|$)"
)
_ENDS = tuple(lazy(rf"\n#{{1,{n}}}(?=[ \t\n]|$)") for n in range(1, 7))
_FENCE = lazy(r"\n {0,3}(`{3,}|~{3,})")
_ITEM = lazy(r"\n[-*+][ \t]+(?:\[.\][ \t]+)?([^\n]*[^\s])")
_BLOCK_ID = lazy(r"[A-Za-z0-9-]+")
_DATED = lazy(r"(\d{4}-\d{2}-\d{2})(?:[ \t]+[—–-]+[ \t]+|:[ \t]+)")
_GROUP = lazy(r"\(((?:[ \t]*!?\[\[[^\[\]\n]*\]\][ \t]*,?)+)\)")
_COMMENT = lazy(r"%%.*?(?:%%|\Z)", re.DOTALL)
_LINK = lazy(r"!?\[\[([^\[\]\n|]*)(?:\|([^\[\]\n]*))?\]\]")
# What says when and where a copy was written, not what it says: dates, times, block ids.
_STAMPS = lazy(r"\b\d{4}-\d{2}-\d{2}(?:[T ]\d{1,2}:\d{2}(?::\d{2})?)?\b|"
               r"\b\d{1,2}:\d{2}(?::\d{2})?\b|\^[A-Za-z0-9-]+")
_MD_LINK = lazy(r"\[([^\[\]]*)\]\([^()\s]*\)")
_TRAILING_GROUP = lazy(r"\s*\([^()]*\)\s*$")
_KEY_WORDS = lazy(r"\w+")
# A link's target and its bar, ``[[target|`` of ``[[target|alias]]``: deleted, the alias stays.
_TARGET = re.compile(r"\[\[[^\[\]\n|]*\|")
_LEAF = lazy(r"\[\[([^\[\]\n|]*/[^\[\]\n|]*)\]\]")  # an unaliased path link
_TARGETS = lazy(r"\[\[([^\[\]\n|#]*)")
_TRAILING = " \t\n\r\f\v.!?;:,…"
# Labels a line may start with ("Gotcha: x"): compaction files the fact without them.
_LABELS = lazy(r"^(?:\**\s*(?:" + schema.label_words(schema.LABEL_SHORT) + r")s?\s*:\s*\**\s*)+")
_POINTER = lazy(r"\(\[\[[^\[\]\n|]*#\^([A-Za-z0-9-]+)\|[^\[\]\n]*\]\]\)$")
_WORD = lazy(r"\w")
# Where a sentence ends: its closing mark (and quotes or brackets closing with it) and blanks.
_SENTENCE_END = lazy(r"(?<=\w)[.!?…]+[\"')\]`*]*[ \t]+(?=[^\s])")


@dataclass(frozen=True)
class Fact:
    """One item of a knowledge section of a note."""

    kind: str  # one of KINDS
    text: str  # as Obsidian shows it, one line (see the module docstring)
    key: str  # fact_key(text): what every copy of the fact shares
    line: int  # 0-based line of the item in the text read
    date: str | None = None  # YYYY-MM-DD of a dated line
    block: str | None = None  # the line's own block id (``vm-…``), without the ``^``
    ref: str | None = None  # a Key Entities row: the block id its link points at
    entity: str | None = None  # the entity it is about: the row's, else the components named
    sessions: tuple[str, ...] = ()  # the session notes its link group names (link targets)


def fact_key(text: str) -> str:
    """The form two statements of one fact share: NFC, case-folded, whitespace collapsed, no
    trailing punctuation (comments already gone: see ``entityparse.fact_key``)."""
    folded = " ".join(unicodedata.normalize("NFC", text).casefold().split()).rstrip(_TRAILING)
    return _LABELS.sub("", folded) if folded[:1] in "*dgp" else folded


def copy_key(text: str) -> str:
    """What every copy of one statement shares, however it was filed: its words, NFC and
    casefolded, one space between each, without dates and times, block ids, link brackets
    (a Markdown link's text stays) and punctuation, nor a trailing ``(…)`` group (the entities
    or sessions a line links). Recall folds and the briefing drops lines by it."""
    text = _TRAILING_GROUP.sub("", unicodedata.normalize("NFC", text))
    text = _STAMPS.sub(" ", _MD_LINK.sub(r"\1", text))
    return " ".join(_KEY_WORDS.findall(text.casefold()))


def searchable(text: str) -> str:
    """``text`` with ``%%…%%`` comments and the targets of aliased wikilinks (``[[target|``)
    deleted: what the index searches, so words inside a link's path or a comment never match.
    Deletions only: a cold index build runs it over every note."""
    if "%%" in text:
        text = _COMMENT.sub("", text)
    if "|" in text and "[[" in text:
        text = _TARGET.sub("", text)
    return text


def visible(text: str, *, leaf: bool = False) -> str:
    """``text`` as a reader sees it: ``searchable`` and the brackets of wikilinks gone (each
    link shows its alias, else its target; ``leaf``: else its target's last path segment, the
    name ``[[entities/Auth]]`` is about, as lines are compared in ``mining.fold``)."""
    text = searchable(text)
    if leaf and "]]" in text:
        text = _LEAF.sub(lambda m: m.group(1).rsplit("/", 1)[-1], text)
    return text.replace("[[", "").replace("]]", "") if "]]" in text else text


def _in_fence(text: str, offset: int) -> bool:
    """Whether ``offset`` of ``text`` lies inside fenced code (an unclosed fence runs on)."""
    opened = ""
    for mark in _FENCE.findall(text, 0, offset):
        if not opened:
            opened = mark
        elif mark[0] == opened[0] and len(mark) >= len(opened):
            opened = ""
    return bool(opened)


def _sections(text: str, fences: bool) -> Iterator[tuple[str, int, int]]:
    """(kind, start, end) offsets of the bodies of the knowledge sections of ``text``: from
    the end of the heading line to the next heading of its level or higher. ``fences``: the
    text may hold fenced code, whose lines are no headings."""
    for head in _SECTION.finditer(text):
        if fences and _in_fence(text, head.start()):
            continue
        kind = SECTION_KINDS[" ".join(head.group(2).casefold().split())]
        ends = _ENDS[len(head.group(1)) - 1]
        found = ends.search(text, head.end())
        while found is not None and fences and _in_fence(text, found.start()):
            found = ends.search(text, found.end())
        yield kind, head.end(), found.start() if found is not None else len(text)


def _session_targets(group: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(session note targets, other names) of the links of a trailing ``([[…]])`` group."""
    targets = [t.strip() for t in _TARGETS.findall(group)]
    return (
        tuple(t for t in targets if "/sessions/" in t),
        tuple(t for t in targets if t and "/sessions/" not in t),
    )


def _fact(
    kind: str, raw: str, line: int, stem: str, note_type: str | None, day: str | None
) -> Fact | None:
    """The fact of one item line's text (after the bullet), or None when nothing is said."""
    block = None
    at = raw.rfind("^")
    if at > 0 and raw[at - 1] in " \t" and _BLOCK_ID.fullmatch(raw, at + 1):
        block, raw = raw[at + 1 :], raw[:at].rstrip(" \t")
    date = day
    if raw[:1].isdigit():
        dated = _DATED.match(raw)
        if dated:
            date, raw = dated.group(1), raw[dated.end() :]
    sessions: tuple[str, ...] = ()
    names: tuple[str, ...] = ()
    ref = None
    if kind == "entity":
        # ``[[Auth]] ([[Auth#^vm-…|<newest decision>]])`` stands for the entity's line it links
        # to; a row linking a heading (``#Overview``) or nothing more says nothing of its own.
        first = _LINK.match(raw)
        if first is None:
            return None
        entity = first.group(1).split("#", 1)[0].strip()
        rest = raw[first.end() :].strip()
        pointer = _POINTER.match(rest)
        if pointer:
            ref, text = pointer.group(1), visible(rest[1:-1])
            kind = schema.Kind.DECISION.value
        elif "#" in rest.split("|", 1)[0] or not _WORD.search(visible(rest)):
            return None
        else:
            text = visible(raw)
    else:
        if raw.endswith("]])"):
            opened = raw.rfind(" ([[")
            group = _GROUP.fullmatch(raw, opened + 1) if opened > 0 else None
            if group:
                sessions, names = _session_targets(group.group(1))
                raw = raw[:opened]
        text = visible(raw) if ("[[" in raw or "%%" in raw) else raw
        entity = stem if note_type == "entity" else (", ".join(names) or None)
    text = " ".join(text.split())
    if not text:
        return None
    return Fact(kind, text, fact_key(text), line, date, block, ref, entity, sessions)


def facts(
    text: str, *, stem: str, note_type: str | None, day: str | None = None, first_line: int = 0
) -> list[Fact]:
    """The facts of a note's ``text`` (private spans already removed), in file order; ``day``
    dates the lines that carry no date of their own (a session's items: the session's day);
    lines count from ``first_line`` (the line of the note ``text`` starts at)."""
    if "#" not in text:
        return []
    text = "\n" + text  # see _SECTION
    fences = "```" in text or "~~~" in text
    out: list[Fact] = []
    at = newlines = 0  # newlines before ``at``
    for kind, start, end in _sections(text, fences):
        fenced = fences and ("```" in text[start:end] or "~~~" in text[start:end])
        for match in _ITEM.finditer(text, start, end):
            if fenced and _in_fence(text, match.start()):
                continue
            # The item's line starts after the "\n" the match starts with.
            newlines += text.count("\n", at, match.start() + 1)
            at = match.start() + 1
            line = first_line + newlines - 1
            fact = _fact(kind, match.group(1), line, stem, note_type, day)
            if fact is not None:
                out.append(fact)
    return out


def marked(text: str, open_mark: str, close_mark: str) -> tuple[str, tuple[tuple[int, int], ...]]:
    """``text`` with its match markers removed, and the (start, end) offsets they enclosed."""
    plain: list[str] = []
    spans: list[tuple[int, int]] = []
    size = 0
    start = -1
    pos = 0
    while pos < len(text):
        opened = text.find(open_mark, pos)
        closed = text.find(close_mark, pos)
        nxt = min(x for x in (opened, closed, len(text)) if x >= 0)
        plain.append(text[pos:nxt])
        size += nxt - pos
        if nxt == len(text):
            break
        if nxt == opened:
            start = size
            pos = nxt + len(open_mark)
        else:
            if start >= 0 and size > start:
                spans.append((start, size))
            start = -1
            pos = nxt + len(close_mark)
    return "".join(plain), tuple(spans)


def _sentences(text: str) -> list[int]:
    """The offsets where the sentences of ``text`` start (0 first)."""
    return [0, *(m.end() for m in _SENTENCE_END.finditer(text))]


def _best_sentence(text: str, spans: Sequence[tuple[int, int]]) -> int:
    """The start of the sentence of ``text`` holding the most different matched words, then
    the most matches, then the first; 0 without matches."""
    starts = _sentences(text)
    if len(starts) == 1 or not spans:
        return 0
    best, best_key = 0, (0, 0)
    for n, start in enumerate(starts):
        end = starts[n + 1] if n + 1 < len(starts) else len(text)
        inside = [text[s:e].casefold() for s, e in spans if start <= s < end]
        key = (len(set(inside)), len(inside))
        if key > best_key:
            best, best_key = start, key
    return best


def window(
    text: str, spans: Sequence[tuple[int, int]], limit: int = SHOWN_CHARS
) -> tuple[str, tuple[tuple[int, int], ...]]:
    """``text`` whole when it fits in ``limit`` characters, else at most ``limit`` characters of
    it, ``…`` included, cut at spaces (never inside a word or identifier): from the start of the
    sentence holding the most different matched words (so a long answer shows the sentence that
    answers, not its first), earlier when that sentence ends the text, around the sentence's first
    match when the sentence is longer than the window; the spans moved to the window's offsets
    (those outside it dropped)."""
    if len(text) <= limit:
        return text, tuple(spans)
    room = limit - 2  # an ellipsis at each cut end at most
    begin = _best_sentence(text, spans)
    first = next((s for s, _ in spans if s >= begin), begin)
    if first - begin > room * 2 // 3:
        begin = first - room // 3  # a long sentence: around its first match
    begin = min(begin, len(text) - room)  # the end of the text fills the window
    if begin > 0:
        begin = text.rfind(" ", 0, begin + 1) + 1
    end = len(text)
    if begin + room + (begin == 0) < len(text):
        cut = text.rfind(" ", begin, begin + room + (begin == 0))
        if cut <= begin:  # one word longer than the window: cut inside it rather than overflow
            cut = begin + room
        end = cut
    head = ELLIPSIS if begin > 0 else ""
    tail = ELLIPSIS if end < len(text) else ""
    shift = len(head) - begin
    kept = tuple((s + shift, e + shift) for s, e in spans if s >= begin and e <= end)
    return head + text[begin:end].rstrip() + tail, kept
