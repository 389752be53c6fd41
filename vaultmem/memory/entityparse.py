"""Reading an entity note or ``_index.md`` (pure): rows, links, sections found fast, summary."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

from vaultmem.memory import anchors
from vaultmem.notes import mdlines, names, plainruns, schema, sections
from vaultmem.notes.lazyre import lazy

OVERVIEW = schema.OVERVIEW
RELATED = schema.RELATED_ENTITIES
REFERENCES = schema.REFERENCES
KEY_DECISIONS = schema.KEY_DECISIONS
GOTCHAS = schema.GOTCHAS_AND_TROUBLESHOOTING
# The flat counts an entity carries for Obsidian Bases (property -> the section counted).
COUNTED = {"decisions": KEY_DECISIONS, "gotchas": GOTCHAS}
KEY_ENTITIES = schema.KEY_ENTITIES
RECENT_SESSIONS = "Recent Sessions"
OVERVIEW_ID = "vm-overview"
SESSIONS_SAID = "Sessions, first and last"
SUMMARY_CHARS = 160

DATE = r"\d{4}-\d{2}-\d{2}"
_LINKS_GROUP = lazy(r" \((\[\[[^\[\]\n]*\]\](?:, \[\[[^\[\]\n]*\]\])*)\)$")
ONE_LINK = lazy(r"\[\[([^\[\]\n|]*)(?:\|([^\[\]\n]*))?\]\]")
_BLOCK = lazy(r" \^([A-Za-z0-9-]+)[ \t]*$")
DATED = lazy(r"(" + DATE + r")(?: — |: | - )")
_WHITESPACE = re.compile(r"\s+")
_TRAILING_PUNCT = lazy(r"[\s.!?;:,…]+$")
PLACEHOLDER = lazy(r"Created by vaultmem when compacting .*")
CODE = lazy(r"`([^`\n]+)`")
KEY_ROW = lazy(r"- \[\[([^\[\]\n|#]+)(?:\|[^\[\]\n]*)?\]\](?: .*)?$")


def fact_key(text: str) -> str:
    """The form two statements of one fact share: NFC, case-folded, whitespace collapsed, no
    trailing punctuation."""
    folded = unicodedata.normalize("NFC", anchors.strip(text)).casefold()
    return _TRAILING_PUNCT.sub("", _WHITESPACE.sub(" ", folded).strip())


def plain(text: str) -> str:
    """``text`` without wikilink brackets (the alias or target stays) and a block id."""
    text = _BLOCK.sub("", anchors.strip(text))
    return ONE_LINK.sub(lambda m: m.group(2) or m.group(1), text).strip()


# -- reading lines --------------------------------------------------------------------------


@dataclass(frozen=True)
class Row:
    """A ``- `` row read as vaultmem writes them: date, text, session links, block id."""

    day: str | None
    text: str
    links: tuple[str, ...]
    block: str | None


def read_row(line: str) -> Row | None:
    """A ``- `` list line read as vaultmem writes them (any part may be missing)."""
    if not line.startswith("- "):
        return None
    body = line[2:].rstrip()
    block = None
    found = _BLOCK.search(body)
    if found:
        block = found.group(1)
        body = body[: found.start()]
    group = _LINKS_GROUP.search(body)
    links_: tuple[str, ...] = ()
    if group:
        links_ = tuple(m.group(0) for m in ONE_LINK.finditer(group.group(1)))
        body = body[: group.start()]
    day = None
    dated = DATED.match(body)
    if dated:
        day = dated.group(1)
        body = body[dated.end():]
    return Row(day, body.strip(), links_, block)


def link_key(link: str) -> str:
    """The name key of a wikilink's target (the link itself when it is not one)."""
    found = ONE_LINK.fullmatch(link)
    return names.name_key(found.group(1).strip() if found else link)


def link_sort(link: str) -> str:
    """What session links sort by: the alias, else the target's file name."""
    found = ONE_LINK.fullmatch(link)
    if not found:
        return link
    return (found.group(2) or found.group(1).rsplit("/", 1)[-1]).strip()


def outside_fences(rows: Sequence[str]) -> list[bool]:
    """For each row, whether it is outside a fenced code block (``mdlines.fenced``)."""
    return [not inside for inside in mdlines.fenced(rows)[0]]


def content_end(rows: Sequence[str]) -> int:
    """Where the rows end once trailing blank rows are left out."""
    end = len(rows)
    while end > 0 and not rows[end - 1].strip():
        end -= 1
    return end


# -- sections -------------------------------------------------------------------------------

# An entity note grows by one line per fact, for years; parsing it whole for each compaction
# would make compaction as slow as the note is long. Past its first run of lines (front matter,
# title), a vaultmem-shaped note holds only column-0 ATX headings, blank lines, and paragraph
# and list lines (``- ``, ``* ``, ``+ ``, ``1. ``, ``1) ``) that open no block: exactly the lines
# ``plainruns`` reads as such. When a few cheap scans find no other line, ``sections`` would cut
# the note into runs at those headings and read each run as one heading and plain lines, so the
# headings are those lines, found without reading the rest. Anything else (a fence, HTML, a
# quote, a table, indented code, a setext underline, a tab, a carriage return, a line that may
# open a reference definition...) takes the full parse; tests/test_entitynote_fast.py compares
# the two on generated notes.
_HEADING_AT = re.compile(r"\n#{1,6}(?= |\n|\Z)")  # a column-0 ATX line after the first
# A line whose text (after a list marker) starts with "[" may open a reference definition, whose
# title can run over the next lines: unusual, unless it starts a wikilink ("[[", never a label)
# or a task box ("[ ] ", "[x] ").
_UNUSUAL_LINE = re.compile(
    r"\n(?! *(?:\n|$)|#{1,6}(?: |\n|$)|(?:[-*+] |\d{1,9}[.)] )?"
    r"(?!\[(?!\[|[ xX]\] ))" + plainruns._START + r")"
)
_FRONT_CLOSE = re.compile(r"\n(?:\.\.\.| {0,3}-{3,}) *(?=\n|$)")


def _unusual_text(text: str, start: int) -> bool:
    """Whether ``text`` holds from ``start`` on what plain runs leave to markdown-it: a tab or
    ``$$`` (a carriage return anywhere is looked for first; one character is searched first: on
    a long note each multi-character search is a pass of its own)."""
    return text.find("\t", start) >= 0 or (
        text.find("$", start) >= 0 and text.find("$$", start) >= 0)


Offsets = dict[int, int]  # line number -> where it starts in the text (see Note)


def _fast_headings(text: str, total: int) -> tuple[list[sections.Heading], Offsets] | None:
    """``sections.headings(text)`` for a vaultmem-shaped note of ``total`` lines, read by a line
    scan, with where each heading line starts; None for any other note."""
    if "\r" in text:
        return None
    start = 0
    if text.startswith("-"):  # front matter: its lines may start with "#"
        close = _FRONT_CLOSE.search(text)
        if not text.startswith("---\n") or close is None:
            return None
        start = close.end()
    after = _HEADING_AT.search(text, start)
    cut = after.start() + 1 if after else len(text)
    if _unusual_text(text, cut) or _UNUSUAL_LINE.search(text, cut - 1 if cut else 0):
        return None
    first = text[:cut]
    first_lines = sections.line_count(first)
    read = plainruns.scan(first, first_lines)
    if read is None:
        return None
    first_blocks, found = read
    kinds = [kind for kind, *_ in first_blocks]
    if "fence" in kinds or (text.startswith("-") and kinds[:1] != ["front_matter"]):
        return None  # sections would join this run to the next
    first_starts = [0, *(m.end() for m in re.finditer("\n", first))]
    offsets: Offsets = {line: first_starts[line] for _, _, line, _ in found}
    line = first_lines
    pos = cut
    for match in _HEADING_AT.finditer(text, cut - 1):
        line += text.count("\n", pos, match.start() + 1)
        pos = match.start() + 1
        end = text.find("\n", pos)
        heading = plainruns.scan(text[pos : end if end >= 0 else len(text)], 1)
        assert heading is not None and len(heading[1]) == 1
        level, title, _, _ = heading[1][0]
        found.append((level, title, line, line + 1))
        offsets[line] = pos
    # The headings' ranges and paths exactly as sections.headings makes them from the same list.
    return list(sections._assemble([], found, total).headings), offsets


def plain_headings(text: str) -> list[sections.Heading] | None:
    """``sections.headings(text)`` for a vaultmem-shaped note (see ``_fast_headings``), found by
    a few scans instead of a parse; None for any other note."""
    fast = _fast_headings(text, sections.line_count(text))
    return None if fast is None else fast[0]


def _terminated(text: str) -> str:
    """``text`` with every line ending in "\\n" (the last one too)."""
    return text + "\n" if text and not text.endswith("\n") else text


def _rows(body: str) -> list[str]:
    """The rows of a body held as text whose every row ends in "\\n"."""
    return body.split("\n")[:-1]


def _joined(rows: Sequence[str]) -> str:
    return "".join(row + "\n" for row in rows)


class Pieces:
    """A section body as pieces (of the note's text, and new rows), every row ending in "\\n":
    joined once, with the rest of the note, when the note is rendered. ``same``: the pieces are
    the body as it was."""

    __slots__ = ("pieces", "same")

    def __init__(self, pieces: list[str], same: bool) -> None:
        self.pieces, self.same = pieces, same

    def last_piece(self) -> str:
        return next((piece for piece in reversed(self.pieces) if piece), "")


Facts = tuple[int, tuple[str, str]]  # a merged section's items and newest dated row (block, text)


class Note:
    """A note with the sections compaction touches; edits collected, applied once.

    Sections are cut out of the note by character offsets, every row ending in "\\n" (the last
    line of a note without a final newline is given one here, and render takes it away again):
    the dated sections of a long entity are most of the note, so they are merged as pieces of
    its text and joined once, never split into rows. ``section`` gives the rows of the small
    sections as a list to edit in place."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.whole = _terminated(text)
        self.total = sections.line_count(text)
        fast = _fast_headings(text, self.total)
        if fast is None:
            self.heads = sections.headings(text)
            starts = [0, *(m.end() for m in re.finditer("\n", self.whole))]
            self._starts: Offsets | list[int] = starts
        else:
            self.heads, self._starts = fast
        self.bodies: dict[str, list[str] | Pieces] = {}  # title key -> the new body
        self.spans: dict[str, tuple[int, int]] = {}  # title key -> where its body was
        self.missing: list[str] = []
        self.facts: dict[str, Facts] = {}  # title key -> what a quick merge knew of its body

    def _offset(self, line: int, after: sections.Heading) -> int:
        """Where ``line`` starts: a heading line, the line after ``after`` (its body), or the
        end."""
        if line >= self.total:
            return len(self.whole)
        if isinstance(self._starts, list):
            return self._starts[line]
        if line in self._starts:
            return self._starts[line]
        assert line == after.line + 1
        return self.whole.find("\n", self._starts[after.line]) + 1

    def span(self, title: str) -> tuple[int, int] | None:
        """Where the body of the first section of that title is in ``whole``, or None."""
        key = title.casefold()
        head = next((h for h in self.heads if h.title.casefold() == key and len(h.path) <= 2),
                    None)
        if head is None:
            return None
        return self._offset(head.body_start, head), self._offset(head.own_end, head)

    def put(self, title: str, body: Pieces, facts: Facts | None = None) -> None:
        """Take ``body`` as the new body of the section (found by ``span``)."""
        key = title.casefold()
        found = self.span(title)
        assert found is not None and key not in self.bodies
        self.spans[key], self.bodies[key] = found, body
        if facts is not None:
            self.facts[key] = facts

    def section(self, title: str) -> list[str]:
        """The body rows of the first section of that title (created at the end if missing);
        the list returned is the one written back."""
        key = title.casefold()
        body = self.bodies.get(key)
        if isinstance(body, list):
            return body
        if body is None:
            found = self.span(title)
            if found is None:
                self.missing.append(title)
            else:
                self.spans[key] = found
        text, start, end = self.view(title)
        rows = _rows(text[start:end])
        self.bodies[key] = rows
        self.facts.pop(key, None)
        return rows

    def view(self, title: str) -> tuple[str, int, int]:
        """The body of the first section of that title as it is now: a text, and where the body
        is in it; a "\\n" always comes just before (nothing created)."""
        key = title.casefold()
        body = self.bodies.get(key)
        if body is not None:
            joined = "\n" + ("".join(body.pieces) if isinstance(body, Pieces) else _joined(body))
            return joined, 1, len(joined)
        found = self.span(title)
        if found is None:
            return "\n", 1, 1
        return self.whole, found[0], found[1]

    def level(self) -> int:
        h1 = [h for h in self.heads if h.level == 1]
        rest = [h.level for h in self.heads if h.level > 1 or len(h1) != 1]
        return min(rest) if rest else 2

    def _pieces(self, key: str, closed: bool) -> tuple[list[str], bool]:
        """A section's new body as pieces and whether it differs from the body it replaces;
        ``closed``: a heading follows, and gets a blank line before it."""
        body = self.bodies[key]
        start, end = self.spans.get(key, (0, 0))
        if isinstance(body, Pieces):
            pieces, same, last = list(body.pieces), body.same, body.last_piece()
        else:
            text = _joined(body)
            pieces, last = [text], text
            same = key in self.spans and text == self.whole[start:end]
        if closed and last[last.rfind("\n", 0, len(last) - 1) + 1 :].strip():
            pieces.append("\n")
            same = False
        return pieces, same

    def changed(self) -> bool:
        """Whether rendering gives another text."""
        return bool(self.missing) or any(
            not self._pieces(key, end < len(self.whole))[1] for key, (_, end) in self.spans.items()
        )

    def render(self, head: str | None = None, head_end: int = 0) -> str:
        """The note with the new bodies; ``head`` replaces its first ``head_end`` characters
        (the frontmatter, which no section holds)."""
        whole = self.whole
        out: list[str] = [] if head is None else [head]
        done = 0 if head is None else head_end
        for key, (start, end) in sorted(self.spans.items(), key=lambda kv: kv[1][0]):
            out.append(whole[done:start])
            out += self._pieces(key, end < len(whole))[0]
            done = end
        out.append(whole[done:])
        if not self.missing:
            text = "".join(out)
            return text if self.text.endswith("\n") else text[:-1]
        # Blank rows at the end go; each missing section follows a blank line.
        text = "".join(out)
        stripped = text.rstrip()
        text = text[: text.find("\n", len(stripped)) + 1] if stripped else ""
        for title in self.missing:
            body = self.bodies[title.casefold()]
            rows = _joined(body) if isinstance(body, list) else "".join(body.pieces)
            text += "\n" + "#" * self.level() + " " + title + "\n"
            if rows:
                text += rows if rows.startswith("\n") else "\n" + rows
        return text


def row_day(row: str) -> str | None:
    """The date a ``- YYYY-MM-DD — …`` row starts with (no other parsing)."""
    found = DATED.match(row, 2)
    return found.group(1) if found else None


def row_block(row: str) -> str | None:
    """The ``^vm-…`` id a row ends with (no other parsing)."""
    at = row.rfind(" ^vm-")
    if at < 0:
        return None
    found = _BLOCK.match(row, at)
    return found.group(1) if found else None
DAY_AT = lazy(r"\n- (" + DATE + r")(?: — |: | - )")


def content_end_at(text: str, start: int, end: int) -> tuple[int, int | None]:
    """Where the rows of ``text[start:end]`` after the last one that is not blank begin, and
    where that row starts (None when every row is blank: then ``start``)."""
    at = end
    while at > start:
        row = text.rfind("\n", start, at - 1) + 1 or start
        if text[row : at - 1].strip():
            return at, row
        at = row
    return start, None


def newest_row(text: str, start: int, end: int, latest: str | None = None) -> tuple[str, str]:
    """(block id, text) of the last row of the latest date (``latest``, when known) in the body
    ``text[start:end]`` (a "\\n" just before it)."""
    if latest is None:
        days = DAY_AT.findall(text, start - 1, end)
        if not days:
            return "", ""
        latest = max(days)
    at = end
    while True:  # the last row of that date, found from the end
        at = text.rfind("\n- " + latest, start - 1, at)
        if at < 0:
            return "", ""
        found = DAY_AT.match(text, at, end)
        if found and found.group(1) == latest:
            break
    row = at + 1
    stop = text.find("\n", row, end)
    got = read_row(text[row : stop if stop >= 0 else end])
    return (got.block or "", got.text) if got else ("", "")


def summary_line(text: str) -> str:
    """One line, at most SUMMARY_CHARS, without links."""
    text = _WHITESPACE.sub(" ", plain(text)).strip()
    if len(text) <= SUMMARY_CHARS:
        return text
    return text[:SUMMARY_CHARS].rsplit(" ", 1)[0].rstrip(" ,;:") + " …"


def _overview_summary(rows: Sequence[str]) -> str:
    for row in rows:
        if not row.strip():
            continue
        if row.rstrip().endswith("^" + OVERVIEW_ID):
            folders = CODE.findall(row.split(SESSIONS_SAID)[0])
            return ("Code in " + ", ".join(folders)) if folders else ""
        if PLACEHOLDER.fullmatch(row.strip()):
            return ""
        return row
    return ""


Summary = tuple[str, str]  # (where in the entity note: "^vm-…" or a heading, one line)


def summary(text: str) -> Summary:
    """What ``_index.md`` says of an entity: its newest dated decision, else its overview."""
    return note_summary(Note(text))


def note_summary(note: Note) -> Summary:
    """``summary`` of a note already read (its newest decision, else its overview)."""
    facts = note.facts.get(KEY_DECISIONS.casefold())
    block, text = facts[1] if facts else newest_row(*note.view(KEY_DECISIONS))
    if text:
        return ("^" + block if block else KEY_DECISIONS), summary_line(text)
    said = summary_line(_overview_summary(peek(note, OVERVIEW)))
    return (OVERVIEW if said else ""), said


def link_day(link: str) -> str:
    """The date a session link's name starts with (``…|2026-11-20-auth]]``), else ""."""
    found = re.match(DATE, link_sort(link))
    return found.group(0) if found else ""


def has_line(text: str, line: str) -> bool:
    """Whether a line of ``text`` is ``line`` (spaces after it aside)."""
    at = text.find(line)
    while at >= 0:
        end = text.find("\n", at)
        if (at == 0 or text[at - 1] == "\n") and text[at : end if end >= 0 else len(text)].rstrip() == line:
            return True
        at = text.find(line, at + 1)
    return False


def peek(note: Note, title: str) -> list[str]:
    """The body rows of the first section of that title as they are now (nothing created)."""
    text, start, end = note.view(title)
    return _rows(text[start:end])


def note_counts(note: Note) -> dict[str, int]:
    """How many top-level items the Key Decisions and Gotchas sections hold."""
    return {key: facts[0] if (facts := note.facts.get(title.casefold()))
            else item_count(*note.view(title))
            for key, title in COUNTED.items()}


def item_count(text: str, start: int, end: int, dashes: int | None = None) -> int:
    """How many rows of the body ``text[start:end]`` (a "\\n" just before it) start a top-level
    item (``- ``, ``* ``, ``+ ``; ``dashes``: the ``- `` ones, when known); the rarer markers
    are counted only when their character occurs at all."""
    if dashes is None:
        dashes = text.count("\n- ", start - 1, end)
    return dashes + sum(
        text.count("\n" + c + " ", start - 1, end) for c in "*+" if text.find(c, start, end) >= 0)


def item_counts(text: str) -> dict[str, int]:
    """The ``decisions`` and ``gotchas`` counts an entity note's frontmatter carries."""
    return note_counts(Note(text))


# -- the project's _index.md ----------------------------------------------------------------


def key_entity_rows(text: str) -> dict[str, str]:
    """The ``- [[Name]] …`` rows under Key Entities, by name key."""
    out: dict[str, str] = {}
    for row in peek(Note(text), KEY_ENTITIES):
        found = KEY_ROW.match(row.rstrip())
        if found:
            # A path link (another note has the name) is keyed by its note's name too.
            stem = found.group(1).strip().rsplit("/", 1)[-1]
            out.setdefault(names.name_key(stem), row.rstrip())
    return out
