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

# Section title (casefolded) -> the kind of its items.
SECTION_KINDS: dict[str, str] = {
    "decisions made": "decision",
    "key decisions": "decision",
    "decisions": "decision",
    "gotchas & fixes": "gotcha",
    "gotchas & troubleshooting": "gotcha",
    "gotchas": "gotcha",
    "prerequisites": "prerequisite",
    "open questions": "question",
    "next steps": "next-step",
    "recent changes": "change",
    "key entities": "entity",
}
KINDS = ("decision", "gotcha", "prerequisite", "question", "next-step", "change", "entity")
SHOWN_CHARS = 300  # a fact longer than this is shown as a window around its first match
ELLIPSIS = "…"

# Patterns over the text with a "\n" put before it, so that each starts with a literal "\n"
# (which the regex engine finds fast) rather than ``^`` in MULTILINE mode, tried at every
# character. The headings of the sections read; any heading that may end one, by its level.
_SECTION = re.compile(
    r"\n(#{1,6})[ \t]+((?i:"
    + "|".join(re.escape(t) for t in SECTION_KINDS).replace(r"\ ", "[ \t]+")
    + r"))[ \t]*#*[ \t]*(?=\n|$)"
)
_ENDS = tuple(re.compile(rf"\n#{{1,{n}}}(?=[ \t\n]|$)") for n in range(1, 7))
_FENCE = re.compile(r"\n {0,3}(`{3,}|~{3,})")
_ITEM = re.compile(r"\n[-*+][ \t]+(?:\[.\][ \t]+)?([^\n]*[^\s])")
_BLOCK = re.compile(r"[ \t]+\^([A-Za-z0-9-]+)$")
_BLOCK_ID = re.compile(r"[A-Za-z0-9-]+")
_DATED = re.compile(r"(\d{4}-\d{2}-\d{2})(?:[ \t]+[—–-]+[ \t]+|:[ \t]+)")
_GROUP = re.compile(r"\(((?:[ \t]*!?\[\[[^\[\]\n]*\]\][ \t]*,?)+)\)")
_COMMENT = re.compile(r"%%.*?(?:%%|\Z)", re.DOTALL)
_LINK = re.compile(r"!?\[\[([^\[\]\n|]*)(?:\|([^\[\]\n]*))?\]\]")
# A link's target and its bar, ``[[target|`` of ``[[target|alias]]``: deleted, the alias stays.
_TARGET = re.compile(r"\[\[[^\[\]\n|]*\|")
_TARGETS = re.compile(r"\[\[([^\[\]\n|#]*)")
_WHITESPACE = re.compile(r"\s+")
_TRAILING = " \t\n\r\f\v.!?;:,…"
# Labels a line may start with ("Gotcha: x"): compaction files the fact without them.
_LABELS = re.compile(r"^(?:\**\s*(?:decision|gotcha|prerequisite|prereq)s?\s*:\s*\**\s*)+")
_POINTER = re.compile(r"\(\[\[[^\[\]\n|]*#\^([A-Za-z0-9-]+)\|[^\[\]\n]*\]\]\)$")
_WORD = re.compile(r"\w")


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


def searchable(text: str) -> str:
    """``text`` with ``%%…%%`` comments and the targets of aliased wikilinks (``[[target|``)
    deleted: what the index searches, so words inside a link's path or a comment never match.
    Deletions only: a cold index build runs it over every note."""
    if "%%" in text:
        text = _COMMENT.sub("", text)
    if "|" in text and "[[" in text:
        text = _TARGET.sub("", text)
    return text


def visible(text: str) -> str:
    """``text`` as a reader sees it: ``searchable`` and the brackets of wikilinks gone (each
    link shows its alias, else its target)."""
    text = searchable(text)
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
            kind = "decision"
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


def window(
    text: str, spans: Sequence[tuple[int, int]], limit: int = SHOWN_CHARS
) -> tuple[str, tuple[tuple[int, int], ...]]:
    """``text`` whole when it fits in about ``limit`` characters, else a window of it around its
    first match cut at spaces (never inside a word or identifier), with ``…`` at a cut end; the
    spans moved to the window's offsets (those outside it dropped)."""
    if len(text) <= limit + limit // 10:
        return text, tuple(spans)
    first = spans[0][0] if spans else 0
    begin = 0
    if first > limit // 3:
        begin = text.rfind(" ", 0, first - limit // 3) + 1
    end = len(text)
    if begin + limit < len(text):
        cut = text.rfind(" ", begin, begin + limit)
        if cut <= begin:  # one word longer than the window: cut after it, not inside it
            cut = text.find(" ", begin + limit)
        end = cut if cut > begin else len(text)
    head = ELLIPSIS if begin > 0 else ""
    tail = ELLIPSIS if end < len(text) else ""
    shift = len(head) - begin
    kept = tuple((s + shift, e + shift) for s, e in spans if s >= begin and e <= end)
    return head + text[begin:end] + tail, kept


_MARKUP = re.compile(
    r"^\s*(?:(?:[-*+]|\d+[.)])\s+(?:\[.\]\s+)?|#{1,6}\s+|>\s*)+|\*\*|__|\[\[|\]\]"
)


# A line that restates what was asked rather than what was found: the prompt of a session's
# work log (``**Prompt:** …``) and the ``### HH:MM - <prompt>`` heading that names it; any
# heading outside an answer's callout names a part rather than saying something. A query is
# phrased like a question, so these lines match it best while holding no answer.
_ANSWER = re.compile(r"^\s*\*\*Answer:\*\*")
_ECHO = re.compile(r"^\s*(?:#{1,6}\s|\*\*Prompt:\*\*)")
# The tool log vaultmem writes of a turn (``- Ran `cmd```, ``- Edited `file```): what was done,
# named by its command and paths; a line of an answer saying as much of the query says what
# came of it. (A ``- Failed: …`` line says what went wrong: an answer.)
_TOOL_LOG = re.compile(r"^[-*+][ \t]+(?:Ran|Edited)[ \t]")
# A heading, or a line all in bold, inside an answer's callout (``> ### 1. Auto-redaction``,
# ``> **3. Made the workflows non-blocking**``): it names a part of the answer, which follows it.
_PART = re.compile(r"^\s*(?:>[ \t]*)+(?:#{1,6}[ \t]+\S|(?:\d{1,3}[.)][ \t]+)?\*\*[^*]+\*\*[ \t]*$)")
_PASSAGE_LINES = 40  # lines a line introduces that are read at most
_PROSE, _LOG, _ECHOED = 2, 1, 0


def _shown_line(line: str) -> str:
    """A body line without list, heading, quote or emphasis markup and block id, on one line."""
    return _BLOCK.sub("", _WHITESPACE.sub(" ", _MARKUP.sub("", line)).strip())


def _passage(lines: Sequence[str], at: int, marks: str) -> list[tuple[int, str]]:
    """Line ``at`` shown, and when it introduces what follows (it ends in a colon: "You need to
    run:"; or it names a part of an answer: a heading or bold line in a callout) the lines it
    introduces, fenced code included, each shown: such a line alone says nothing. A blank line
    after them, a heading of the line's level or above (the level of the heading it is under;
    the parts headed deeper than that are what it introduces), or the end (start) of the
    callout the line is in ends what it introduces; a work log's ``**Answer:**`` line introduces
    nothing. (line number, shown) each (a part's title gets a colon: ``marks`` are the match
    marks to look past for its end)."""
    shown = _shown_line(lines[at])
    part = _PART.match(lines[at]) is not None
    if not (shown.endswith(":") or part) or _ANSWER.match(lines[at]):
        return [(at, shown)]  # a work log's answer line is a cut first sentence, then the log
    quoted = lines[at].lstrip().startswith(">")
    level = _level(lines, at, quoted)
    out = [(at, _titled(shown, marks) if part else shown)]
    for n, line in enumerate(lines[at + 1 : at + 1 + _PASSAGE_LINES], at + 1):
        stripped = line.strip()
        bare = stripped.lstrip(">").strip()
        if not bare:
            if len(out) > 1 and not stripped.startswith(">"):
                break  # a blank line (an empty quote line is inside its callout)
            continue
        if stripped.startswith(">") != quoted or 0 < _heading_level(bare) <= level:
            break  # out of (into) the callout the line is in, or the next part at its level
        if part and len(out) > 1 and _PART.match(line):
            break  # the next part of the answer
        if not bare.startswith(("```", "~~~")):
            shown = _shown_line(line)
            out.append((n, _titled(shown, marks) if _heading_level(bare) else shown))
    return out


def _titled(shown: str, marks: str) -> str:
    """A part's title as the start of what follows it: with a colon unless it ends a sentence
    (``marks``: the match marks to look past)."""
    return shown if shown.rstrip(marks)[-1:] in (":", ".", "!", "?", "") else shown + ":"


def _heading_level(bare: str) -> int:
    """The level of a heading line (without its quote marks), 0 for any other line."""
    hashes = len(bare) - len(bare.lstrip("#"))
    return hashes if 0 < hashes <= 6 and bare[hashes : hashes + 1] in (" ", "\t") else 0


def _level(lines: Sequence[str], at: int, quoted: bool) -> int:
    """The level of line ``at``: its own as a heading, else that of the heading it is under in
    its callout (or outside callouts); 6 when there is none (any heading ends its passage)."""
    for n in range(at, max(-1, at - 5 * _PASSAGE_LINES), -1):
        stripped = lines[n].strip()
        if stripped and stripped.startswith(">") != quoted:
            break
        found = _heading_level(stripped.lstrip(">").strip())
        if found:
            return found
    return 6


def _words(text: str, open_mark: str, close_mark: str) -> set[str]:
    """The different words matched in a marked text, casefolded."""
    return {part.split(close_mark, 1)[0].casefold() for part in text.split(open_mark)[1:]}


def _fit(
    passage: Sequence[tuple[int, str]], open_mark: str, close_mark: str, limit: int
) -> tuple[str, frozenset[int]]:
    """A passage's lines joined in about ``limit`` characters, and the line numbers kept: all
    when they fit, else its first line, then while they fit the lines matching words the first
    does not, the other lines holding a match, the rest, each in order; ``…`` where lines were
    left out."""
    parts = [p for _, p in passage]
    sizes = [len(p) - 2 * p.count(open_mark) for p in parts]
    if sum(sizes) + len(parts) <= limit + limit // 10:
        return " ".join(parts), frozenset(n for n, _ in passage)
    head = _words(parts[0], open_mark, close_mark)
    rank = [0] + [
        1 if _words(p, open_mark, close_mark) - head else 2 if open_mark in p else 3
        for p in parts[1:]
    ]
    kept = {0}
    used = sizes[0]
    for wanted in (1, 2, 3):
        for n in range(1, len(parts)):
            if rank[n] == wanted and used + 1 + sizes[n] <= limit:
                kept.add(n)
                used += 1 + sizes[n]
    out: list[str] = []
    for n in range(len(parts)):
        if n in kept:
            out.append(parts[n])
        elif not out or out[-1] != ELLIPSIS:
            out.append(ELLIPSIS)
    return " ".join(out), frozenset(passage[n][0] for n in kept)


def best_lines(
    text: str, open_mark: str, close_mark: str, count: int = 1, limit: int = SHOWN_CHARS
) -> list[tuple[str, tuple[tuple[int, int], ...]]]:
    """The ``count`` lines of a marked note body that answer best, best first, each once: most
    different matched words (in the line and what it introduces, see ``_passage``), then a line
    of an answer before one of the tool log (``- Ran …``) before the prompt (``**Prompt:**``) or
    a heading, then most matches, then the first. Each as plain text without list, heading,
    quote or emphasis markup, with what it introduces: whole when it fits, else its first line
    and the lines that match (``_fit``), and a window around the first match of what is still
    too long (``window``). A line shown with the passage of another is not shown again."""
    lines = text.split("\n")
    scored: list[tuple[int, int, int, int, str, frozenset[int]]] = []
    for at, line in enumerate(lines):
        if open_mark not in line:
            continue
        passage = _passage(lines, at, open_mark + close_mark)
        joined = " ".join(p for _, p in passage)
        words = _words(joined, open_mark, close_mark)
        tier = (_ECHOED if _ECHO.match(line) else _LOG if _TOOL_LOG.match(line) else _PROSE)
        scored.append((-len(words), -tier, -joined.count(open_mark), at,
                       *_fit(passage, open_mark, close_mark, limit)))
    out: list[tuple[str, tuple[tuple[int, int], ...]]] = []
    seen: set[str] = set()
    covered: set[int] = set()
    for *_, at, shown, kept in sorted(scored):
        plain, spans = marked(shown, open_mark, close_mark)
        if not spans or plain.casefold() in seen or at in covered:
            continue
        seen.add(plain.casefold())
        covered |= kept
        out.append(window(plain, spans, limit))
        if len(out) == count:
            break
    return out
