"""The parts of an entity note (and of a project's ``_index.md``) that compaction keeps, rewritten
in one pass over the note's text (pure). See docs/ARCHITECTURE.md "What the memory holds".

- **Dated lines** ``- YYYY-MM-DD — <text> ([[<archive>|<stem>]]) ^vm-<8 hex>`` go into their
  section in date order. The block id depends on the kind and the fact only, so the same fact from
  another session finds its line: the session's link is added inside the parentheses (and the line
  takes the earlier date, moving up) instead of a second line. Lines of the format before dates
  (``- <text> ([[…]]) ^vm-…``, their id made from the session's file name) are recognised: their
  session's line is "there already", and a later session's link joins them. A person's line
  saying the same (no block id) is left alone and counts as there already.
- **Related Entities**: a link to each other component that changed in the same session, once.
- **Overview**: a vaultmem-owned line (ending in ``^vm-overview``) saying which folders the
  component covers and its first and last session. It fills an empty overview or the placeholder
  of a note vaultmem created; a person's overview is never replaced.
- **References**: the backlink to the archived session, once.
- **_index.md**: prerequisites as dated lines; under Key Entities one row per entity,
  ``- [[Auth]] ([[Auth#^vm-…|<newest decision>]]) ^vm-…``, after a person's own lines there.
Lines whose content changes from session to session (the overview, Key Entities rows) keep one
text and carry the changing part as links: ``notemerge`` unites such lines when two machines
sharing the vault through git both changed them, where two texts would be a conflict.
Everything outside the lines touched keeps its bytes; a missing section is added at the end.
"""

from __future__ import annotations

import bisect
import itertools
import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date

from vaultmem.memory import anchors
from vaultmem.notes import fences, frontmatter, names, plainruns, sections

OVERVIEW = "Overview"
RELATED = "Related Entities"
REFERENCES = "References"
KEY_DECISIONS = "Key Decisions"
GOTCHAS = "Gotchas & Troubleshooting"
# The flat counts an entity carries for Obsidian Bases (property -> the section counted).
COUNTED = {"decisions": KEY_DECISIONS, "gotchas": GOTCHAS}
KEY_ENTITIES = "Key Entities"
RECENT_SESSIONS = "Recent Sessions"
RECENT_SESSIONS_SHOWN = 10
OVERVIEW_ID = "vm-overview"
SESSIONS_SAID = "Sessions, first and last"
SUMMARY_CHARS = 160

_DATE = r"\d{4}-\d{2}-\d{2}"
_LINKS_GROUP = re.compile(r" \((\[\[[^\[\]\n]*\]\](?:, \[\[[^\[\]\n]*\]\])*)\)$")
_ONE_LINK = re.compile(r"\[\[([^\[\]\n|]*)(?:\|([^\[\]\n]*))?\]\]")
_BLOCK = re.compile(r" \^([A-Za-z0-9-]+)[ \t]*$")
_ID = re.compile(r"[A-Za-z0-9-]+")
_DATED = re.compile(r"(" + _DATE + r")(?: — |: | - )")
_WHITESPACE = re.compile(r"\s+")
_TRAILING_PUNCT = re.compile(r"[\s.!?;:,…]+$")
_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")
_LIST_LINE = re.compile(r"\s*(?:[-*+]|\d+[.)])(?:\s|$)")
_PLACEHOLDER = re.compile(r"Created by vaultmem when compacting .*")
_CODE = re.compile(r"`([^`\n]+)`")
_SESSION_ROW = re.compile(r"- \[\[[^\[\]\n|#]*/sessions/[^\[\]\n|#]+\|[^\[\]\n]*\]\] \^vm-[0-9a-f]{8}$")
_KEY_ROW = re.compile(r"- \[\[([^\[\]\n|#]+)(?:\|[^\[\]\n]*)?\]\](?: .*)?$")


def fact_key(text: str) -> str:
    """The form two statements of one fact share: NFC, case-folded, whitespace collapsed, no
    trailing punctuation."""
    folded = unicodedata.normalize("NFC", anchors.strip(text)).casefold()
    return _TRAILING_PUNCT.sub("", _WHITESPACE.sub(" ", folded).strip())


def plain(text: str) -> str:
    """``text`` without wikilink brackets (the alias or target stays) and a block id."""
    text = _BLOCK.sub("", anchors.strip(text))
    return _ONE_LINK.sub(lambda m: m.group(2) or m.group(1), text).strip()


@dataclass(frozen=True)
class Line:
    """One fact bound for a section of a note."""

    heading: str
    day: str  # YYYY-MM-DD, the session's date
    text: str
    block: str  # vm-xxxxxxxx, from the kind and the fact
    old_block: str  # the id the format before dates gave this session's line
    link: str  # [[<archive>|<stem>]]

    @property
    def key(self) -> str:
        return fact_key(self.text)

    def render(self, links_: Sequence[str] | None = None, day: str | None = None) -> str:
        group = ", ".join(links_ or [self.link])
        return f"- {day or self.day} — {self.text} ({group}) ^{self.block}"


@dataclass(frozen=True)
class Overview:
    """What this session says about a component: its folders, and the session itself."""

    folders: tuple[str, ...]
    day: str
    link: str  # [[<archive>|<stem>]]


@dataclass(frozen=True)
class Composed:
    """A note rewritten: its text and what happened to the lines asked for."""

    text: str
    added: int = 0
    merged: int = 0  # a session link added to a line of the same fact
    present: int = 0  # there already (a re-run, or a person wrote it)
    summary: tuple[str, str] = ("", "")  # the newest decision, else the overview (see summary)


# -- reading lines --------------------------------------------------------------------------


@dataclass(frozen=True)
class _Row:
    day: str | None
    text: str
    links: tuple[str, ...]
    block: str | None


def _row(line: str) -> _Row | None:
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
        links_ = tuple(m.group(0) for m in _ONE_LINK.finditer(group.group(1)))
        body = body[: group.start()]
    day = None
    dated = _DATED.match(body)
    if dated:
        day = dated.group(1)
        body = body[dated.end():]
    return _Row(day, body.strip(), links_, block)


def _link_key(link: str) -> str:
    found = _ONE_LINK.fullmatch(link)
    return names.name_key(found.group(1).strip() if found else link)


def _link_sort(link: str) -> str:
    found = _ONE_LINK.fullmatch(link)
    if not found:
        return link
    return (found.group(2) or found.group(1).rsplit("/", 1)[-1]).strip()


def _outside_fences(rows: Sequence[str]) -> list[bool]:
    """For each row, whether it is outside a fenced code block."""
    out: list[bool] = []
    fence: str | None = None
    for row in rows:
        opening = _FENCE.match(row)
        if fence is None:
            out.append(opening is None)
            if opening:
                fence = opening.group(1)
        else:
            out.append(False)
            if opening and opening.group(1)[0] == fence[0] and len(opening.group(1)) >= len(fence) \
                    and not row.strip()[len(opening.group(1)):].strip():
                fence = None
    return out


def _content_end(rows: Sequence[str]) -> int:
    end = len(rows)
    while end > 0 and not rows[end - 1].strip():
        end -= 1
    return end


def _with_tail(rows: list[str], at: int, new: Sequence[str]) -> list[str]:
    """``new`` lines put at ``at`` (the end of the content), a blank line apart from a block
    that is not a list, and one after the heading."""
    if not new:
        return rows
    if at == 0:
        return ["", *new, *rows]
    sep = [] if _LIST_LINE.match(rows[at - 1]) else [""]
    return [*rows[:at], *sep, *new, *rows[at:]]


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


Offsets = dict[int, int]  # line number -> where it starts in the text (see _Note)


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


class _Text:
    """A section body as pieces (of the note's text, and new rows), every row ending in "\\n":
    joined once, with the rest of the note, when the note is rendered. ``same``: the pieces are
    the body as it was."""

    __slots__ = ("pieces", "same")

    def __init__(self, pieces: list[str], same: bool) -> None:
        self.pieces, self.same = pieces, same

    def last_piece(self) -> str:
        return next((piece for piece in reversed(self.pieces) if piece), "")


Facts = tuple[int, tuple[str, str]]  # a merged section's items and newest dated row (block, text)


class _Note:
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
        self.bodies: dict[str, list[str] | _Text] = {}  # title key -> the new body
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

    def put(self, title: str, body: _Text, facts: Facts | None = None) -> None:
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
            joined = "\n" + ("".join(body.pieces) if isinstance(body, _Text) else _joined(body))
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
        if isinstance(body, _Text):
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


def _ids_present(text: str, ids: Iterable[str]) -> set[str]:
    """Which of the ``vm-…`` ``ids`` end a line of ``text`` (or a stretch of it up to the next
    `` ^vm-``), in one regex pass for all of them: notes are long, and only the ids of the new
    lines are asked about."""
    wanted = sorted({i for i in ids if i.startswith("vm-") and len(i) > 3 and _ID.fullmatch(i)})
    if not wanted:
        return set()
    alternatives = "|".join(re.escape(i[3:]) for i in wanted)
    found = re.findall(r" \^vm-(" + alternatives + r")[ \t]*(?=\n| \^vm-|\Z)", text)
    return {"vm-" + i for i in found}


def _day(row: str) -> str | None:
    """The date a ``- YYYY-MM-DD — …`` row starts with (no other parsing)."""
    found = _DATED.match(row, 2)
    return found.group(1) if found else None


def _vm_block(row: str) -> str | None:
    """The ``^vm-…`` id a row ends with (no other parsing)."""
    at = row.rfind(" ^vm-")
    if at < 0:
        return None
    found = _BLOCK.match(row, at)
    return found.group(1) if found else None


def _dated(note: _Note, heading: str, new: Sequence[Line], blocks: set[str]) -> tuple[int, int, int]:
    """Merge ``new`` into the section ``heading`` of ``note`` in date order; (added, merged,
    present)."""
    found = note.span(heading) if heading.casefold() not in note.bodies else None
    if found is not None:
        quick = _dated_new(note.whole, *found, new, blocks)
        if quick is not None:
            body, facts, counts = quick
            note.put(heading, body, facts)
            return counts
    return _dated_rows(note.section(heading), new, blocks)


_FENCE_LINE = re.compile(r"\n {0,3}(?:`{3,}|~{3,})")  # in "\n" + the rows
_DATED_OURS = _DATE + r"(?: — |: | - )[^\n]* \^vm-[A-Za-z0-9-]*[ \t]*(?:\n|\Z)"
# A "- " row that is not a dated line of ours ending in its id (those are found by the id).
_OTHER_ROW = re.compile(r"\n(- (?!" + _DATED_OURS + r")[^\n]*)")
_DAY_AT = re.compile(r"\n- (" + _DATE + r")(?: — |: | - )")
_FEW_ROWS = 64


def _row_keys(row: str) -> str | None:
    """The fact key ``_dated_rows`` reads a row for (not a dated line of ours), else None."""
    if _day(row) and _vm_block(row):
        return None
    got = _row(row)
    return None if got is None else fact_key(got.text)


class _OtherKeys:
    """Whether a fact key is that of a row read for its text (``_dated_rows``' ours and theirs),
    answered without reading every row: a row with key ``k`` holds the words of ``k`` in order,
    so when the case-folded rows lack them no row has it. Rows holding an anchor comment (left
    out of a fact's key, it may part a key's words) are read whole."""

    def __init__(self, text: str, start: int, end: int) -> None:
        rows = [m.group(1) for m in _OTHER_ROW.finditer(text, start - 1, end)]
        self.joined = "\n".join(rows)
        anchored = "%" in self.joined and "%%vm-anchor" in self.joined
        self.anchored = {_row_keys(row) for row in rows if "%%vm-anchor" in row} if anchored \
            else set()
        self.rows = [row for row in rows if "%%vm-anchor" not in row] if anchored else rows
        # The undated ones among them (the "- " rows the merge did not find dated), when few.
        self.undated = None if len(rows) > _FEW_ROWS else \
            sum(1 for row in rows if _DATED.match(row, 2) is None)
        self.keys: set[str | None] | None = None
        self.folded: str | None = None
        if len(self.rows) <= _FEW_ROWS:
            self.keys = {_row_keys(row) for row in self.rows}

    def __contains__(self, key: object) -> bool:
        if key in self.anchored:
            return True
        if self.keys is None:
            assert isinstance(key, str)
            if self.folded is None:
                joined = "\n".join(self.rows) if self.anchored else self.joined
                self.folded = unicodedata.normalize("NFC", joined).casefold()
            # Its longest word first: one substring search, far quicker than the regex.
            if max(key.split(" "), key=len) not in self.folded:
                return False
            words = r"\s+".join(re.escape(word) for word in key.split(" "))
            if not re.search(words, self.folded):
                return False
            self.keys = {_row_keys(row) for row in self.rows}
        return key in self.keys


def _dated_new(text: str, start: int, end: int, new: Sequence[Line], blocks: set[str]
               ) -> tuple[_Text, Facts | None, tuple[int, int, int]] | None:
    """``_dated_rows`` on the body ``text[start:end]`` (rows ending in "\\n", one just before)
    in a few regex passes instead of a read of each row, when every line of ``new`` is a new
    fact, there already, or a fact whose dated row (found by its id) only gains this session's
    link: (the merged body, its items and newest row, the counts); None for anything else (a
    row that would move or take its first date, a person's row of the same fact) and for a
    body holding a fence."""
    if start == end:
        return None
    assert text[start - 1] == "\n"
    if (text.find("`", start, end) >= 0 or text.find("~", start, end) >= 0) \
            and _FENCE_LINE.search(text, start - 1, end):
        return None
    others: _OtherKeys | None = None
    adds: list[tuple[str, str]] = []
    added: set[str] = set()
    merges: dict[int, tuple[int, str]] = {}  # row start -> (its end, the row with the link)
    present = 0
    for line in new:
        if line.old_block in blocks or line.old_block in added:
            present += 1
            continue
        if line.block in blocks:
            found = _row_with_id(text, start, end, line.block)
            if found is None:  # elsewhere in the note: there already, unless a row here says it
                others = others or _OtherKeys(text, start, end)
                if line.key in others:
                    return None
                present += 1
                continue
            if found[0] in merges:
                return None  # a second line for one row
            merged_row = _with_link(text[found[0] : found[1]], line)
            if merged_row is None:
                return None
            if merged_row:
                merges[found[0]] = (found[1], merged_row)
            else:
                present += 1
            continue
        others = others or _OtherKeys(text, start, end)
        if line.key in others:
            return None  # a row of the same fact
        if line.block in added:
            present += 1
            continue
        adds.append((line.day, line.render()))
        added.add(line.block)
    if not (adds or merges):
        return _Text([text[start:end]], same=True), None, (0, 0, present)
    # The first dated row later than a day: where prefix maxima pass it (as in _dated_rows).
    highs = list(itertools.accumulate(_DAY_AT.findall(text, start - 1, end), max)) if adds \
        else []
    inserts: dict[int, list[tuple[str, str]]] = {}
    tail: list[tuple[str, str]] = []
    offsets: list[int] = []  # where the dated rows start, read only when a line goes before one
    for day, row in adds:
        at = bisect.bisect_right(highs, day)
        if at < len(highs):
            offsets = offsets or [m.start() + 1 for m in _DAY_AT.finditer(text, start - 1, end)]
            inserts.setdefault(offsets[at], []).append((day, row))
        else:
            tail.append((day, row))
    tail.sort(key=lambda x: x[0])
    pieces: list[str] = []
    done = start
    for offset in sorted({*inserts, *merges}):
        pieces.append(text[done:offset])
        done = offset
        pieces.extend(row + "\n" for _, row in sorted(inserts.get(offset, []), key=lambda x: x[0]))
        if offset in merges:  # the row itself, with the link (it keeps its place and date)
            row_end, row = merges[offset]
            pieces.append(row + "\n")
            done = row_end + 1
    if tail:  # after the last row that is not blank (inserted rows all come before it)
        at, last = _content_end_at(text, start, end)
        if last is None:
            pieces.append("\n")
        else:
            pieces.append(text[done:at])
            done = at
            if not _LIST_LINE.match(text, last, at - 1):
                pieces.append("\n")
        pieces.extend(row + "\n" for _, row in tail)
    pieces.append(text[done:end])
    blocks.update(added)
    # The "- " rows: the dated ones and the others' undated ones, when the others were read.
    dashes = len(highs) + others.undated if others is not None and others.undated is not None \
        else None
    items = _items(text, start, end, dashes if adds else None) + len(adds)
    # A merged row keeps its date, place, text and id: the newest row is as it was, or added.
    top = max((day for day, _ in adds), default="")
    if adds and (not highs or top >= highs[-1]):  # the newest is the last added row of that day
        got = _row([row for day, row in tail if day == top][-1])
        newest = (got.block or "", got.text) if got else ("", "")
    else:
        newest = _newest(text, start, end, highs[-1] if highs else None)
    return _Text(pieces, same=False), (items, newest), (len(adds), len(merges), present)


def _row_with_id(text: str, start: int, end: int, block: str) -> tuple[int, int] | None:
    """Where the first ``- `` row of the body ``text[start:end]`` whose id is ``block`` starts
    and ends (its "\\n"), as ``_dated_rows`` finds it; None when no row has it."""
    needle = " ^" + block
    at = text.find(needle, start, end)
    while at >= 0:
        row = text.rfind("\n", start - 1, at) + 1
        stop = text.find("\n", at, end)
        if text.startswith("- ", row) and _vm_block(text[row:stop]) == block:
            return row, stop
        at = text.find(needle, at + 1, end)
    return None


def _with_link(row: str, line: Line) -> str | None:
    """``row`` (a dated row of the fact of ``line``) with the session's link added, as
    ``_dated_rows`` writes it; "" when the link is there already; None when the merge would
    date or move the row (left to ``_dated_rows``)."""
    got = _row(row)
    if got is None or not got.day or line.day < got.day:
        return None
    merge = _merged(got, line)
    return "" if merge is None else merge[1]


def _merged(got: _Row, line: Line) -> tuple[str, str] | None:
    """(its date, the row) of the row ``got`` with the session link of ``line`` added: the
    earlier of the two dates (a row of the format before dates takes the date of its first
    session); None when the link is there already."""
    if _link_key(line.link) in {_link_key(x) for x in got.links}:
        return None
    group = sorted([*got.links, line.link], key=_link_sort)
    first = got.day or min((link_day(x) for x in got.links if link_day(x)), default=line.day)
    day = min(first, line.day)
    return day, f"- {day} — {got.text} ({', '.join(group)}) ^{got.block or line.block}"


def _content_end_at(text: str, start: int, end: int) -> tuple[int, int | None]:
    """Where the rows of ``text[start:end]`` after the last one that is not blank begin, and
    where that row starts (None when every row is blank: then ``start``)."""
    at = end
    while at > start:
        row = text.rfind("\n", start, at - 1) + 1 or start
        if text[row : at - 1].strip():
            return at, row
        at = row
    return start, None


def _dated_rows(rows: list[str], new: Sequence[Line], blocks: set[str]) -> tuple[int, int, int]:
    """``_dated``, reading every row."""
    outside = _outside_fences(rows)
    by_block: dict[str, int] = {}
    ours: dict[str, int] = {}  # fact key -> row, of our rows in the format before dates
    theirs: set[str] = set()  # fact keys of a person's rows
    dated: list[tuple[str, int]] = []
    for i, row in enumerate(rows):
        if not (outside[i] and row.startswith("- ")):
            continue
        day, block = _day(row), _vm_block(row)
        if day:
            dated.append((day, i))
        if block:
            by_block.setdefault(block, i)
        # A dated line of ours is found by its id (made from its fact): only the others are
        # read to the end, for their text.
        if not (day and block):
            got = _row(row)
            if got is not None:
                (ours.setdefault(fact_key(got.text), i) if block else
                 theirs.add(fact_key(got.text)))
    # The first dated row later than a day: where prefix maxima pass it (bisect works on them
    # even when a person put dates out of order).
    highs: list[str] = []
    for day, _ in dated:
        highs.append(max(day, highs[-1]) if highs else day)
    replaced: dict[int, str] = {}
    removed: set[int] = set()
    inserts: dict[int, list[tuple[str, str]]] = {}
    tail: list[tuple[str, str]] = []
    added = merged = present = 0

    def place(day: str, text: str) -> None:
        at = bisect.bisect_right(highs, day)
        if at < len(dated):
            inserts.setdefault(dated[at][1], []).append((day, text))
        else:
            tail.append((day, text))

    for line in new:
        if line.old_block in blocks:
            present += 1
            continue
        at = by_block.get(line.block, ours.get(line.key))
        if at is None:
            if line.block in blocks or line.key in theirs:
                present += 1  # there already: elsewhere in the note, or a person's line
                continue
            place(line.day, line.render())
            blocks.add(line.block)
            added += 1
            continue
        got = _row(replaced.get(at, rows[at]))
        assert got is not None
        merge = _merged(got, line)
        if merge is None:
            present += 1
            continue
        day, text = merge
        if got.day and day < got.day:
            removed.add(at)
            place(day, text)
        else:
            replaced[at] = text
        merged += 1
    if not (replaced or removed or inserts or tail):
        return added, merged, present
    out: list[str] = []
    for i, row in enumerate(rows):
        out.extend(text for _, text in sorted(inserts.get(i, []), key=lambda x: x[0]))
        if i not in removed:
            out.append(replaced.get(i, row))
    end = _content_end(out)
    rows[:] = _with_tail(out, end, [text for _, text in sorted(tail, key=lambda x: x[0])])
    return added, merged, present


def _newest(text: str, start: int, end: int, latest: str | None = None) -> tuple[str, str]:
    """(block id, text) of the last row of the latest date (``latest``, when known) in the body
    ``text[start:end]`` (a "\\n" just before it)."""
    if latest is None:
        days = _DAY_AT.findall(text, start - 1, end)
        if not days:
            return "", ""
        latest = max(days)
    at = end
    while True:  # the last row of that date, found from the end
        at = text.rfind("\n- " + latest, start - 1, at)
        if at < 0:
            return "", ""
        found = _DAY_AT.match(text, at, end)
        if found and found.group(1) == latest:
            break
    row = at + 1
    stop = text.find("\n", row, end)
    got = _row(text[row : stop if stop >= 0 else end])
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
            folders = _CODE.findall(row.split(SESSIONS_SAID)[0])
            return ("Code in " + ", ".join(folders)) if folders else ""
        if _PLACEHOLDER.fullmatch(row.strip()):
            return ""
        return row
    return ""


Summary = tuple[str, str]  # (where in the entity note: "^vm-…" or a heading, one line)


def summary(text: str) -> Summary:
    """What ``_index.md`` says of an entity: its newest dated decision, else its overview."""
    return _summary(_Note(text))


def _summary(note: _Note) -> Summary:
    facts = note.facts.get(KEY_DECISIONS.casefold())
    block, text = facts[1] if facts else _newest(*note.view(KEY_DECISIONS))
    if text:
        return ("^" + block if block else KEY_DECISIONS), summary_line(text)
    said = summary_line(_overview_summary(_peek(note, OVERVIEW)))
    return (OVERVIEW if said else ""), said


def _overview_line(folders: Iterable[str], sessions_: Sequence[tuple[str, str]]) -> str:
    # "<text> (<links>) ^vm-…" with a text that does not change with each session: the form
    # notemerge unites when two machines add a session each.
    code = sorted(set(folders))
    links_ = [sessions_[0][1]] + ([sessions_[-1][1]] if len(sessions_) > 1 else [])
    lead = ("Code in " + ", ".join(f"`{f}`" for f in code) + ". ") if code else ""
    return f"{lead}{SESSIONS_SAID} ({', '.join(links_)}) ^{OVERVIEW_ID}"


def _overview(rows: list[str], seen: Overview) -> None:
    content = [i for i, row in enumerate(rows) if row.strip()]
    ours = [i for i in content if rows[i].rstrip().endswith("^" + OVERVIEW_ID)]
    placeholder = bool(content) and all(_PLACEHOLDER.fullmatch(rows[i].strip()) for i in content)
    if content and not ours and not placeholder:
        return  # a person's overview
    folders = set(seen.folders)
    found: list[tuple[str, str]] = [(seen.day, seen.link)]
    for i in ours or content:
        old = rows[i]
        if i in ours:
            folders.update(_CODE.findall(old.split(SESSIONS_SAID)[0]))
        found.extend((link_day(m.group(0)), m.group(0)) for m in _ONE_LINK.finditer(old))
    first_day: dict[str, tuple[str, str]] = {}  # one entry per session, its earliest date
    for day, link in found:
        key = _link_key(link)
        if key not in first_day or (day and day < first_day[key][0]):
            first_day[key] = (day, link)
    line = _overview_line(folders, sorted(first_day.values(),
                                          key=lambda s: (s[0], _link_sort(s[1]))))
    if ours:
        rows[ours[0]] = line
        for i in reversed(ours[1:]):
            del rows[i]
    elif content:
        rows[content[0] : content[-1] + 1] = [line]
    else:
        rows[:] = ["", line, *[r for r in rows if not r.strip()][1:]]


def link_day(link: str) -> str:
    """The date a session link's name starts with (``…|2026-11-20-auth]]``), else ""."""
    found = re.match(_DATE, _link_sort(link))
    return found.group(0) if found else ""


def _entity_key(link: str) -> str:
    # [[Auth]] and [[claude/projects/p/entities/Auth|Auth]] are one entity here.
    return _link_key(link).rsplit("/", 1)[-1]


def _related(rows: list[str], links_: Sequence[str]) -> None:
    have = {_entity_key(m.group(0)) for row in rows for m in _ONE_LINK.finditer(row)}
    new: list[str] = []
    for link in links_:
        key = _entity_key(link)
        if key not in have:
            have.add(key)
            new.append(f"- {link}")
    rows[:] = _with_tail(rows, _content_end(rows), new)


def _has_line(text: str, line: str) -> bool:
    """Whether a line of ``text`` is ``line`` (spaces after it aside)."""
    at = text.find(line)
    while at >= 0:
        end = text.find("\n", at)
        if (at == 0 or text[at - 1] == "\n") and text[at : end if end >= 0 else len(text)].rstrip() == line:
            return True
        at = text.find(line, at + 1)
    return False


def _ids_of(new: Iterable[Line]) -> list[str]:
    """The block ids the lines of ``new`` may already have in a note (theirs and the older
    form's)."""
    return [i for line in new for i in (line.block, line.old_block)]


def _written(note: _Note, today: date, counts: Mapping[str, int]) -> str:
    """The note rendered, with ``updated: today`` and the item ``counts`` (``decisions``,
    ``gotchas``: flat numbers Obsidian Bases and Dataview read) when it changed; only the
    frontmatter is rewritten, and the note joined once, so the cost does not grow with it."""
    if not note.changed():
        return note.text
    head_end = fences.split(note.text).body_offset
    if any(start < head_end for start, _ in note.spans.values()):
        # The fences close past a heading (markdown-it closed the frontmatter earlier): the
        # frontmatter is read from the text as rendered, as the fences see it there.
        out = note.render()
        head_end = fences.split(out).body_offset
        return _stamp(out[:head_end], today, counts) + out[head_end:]
    return note.render(_stamp(note.text[:head_end], today, counts), head_end)


def _stamp(head: str, today: date, counts: Mapping[str, int]) -> str:
    head = frontmatter.set_key(head, "updated", today)
    for key, value in counts.items():
        head = frontmatter.set_key(head, key, value)
    return head


def _peek(note: _Note, title: str) -> list[str]:
    """The body rows of the first section of that title as they are now (nothing created)."""
    text, start, end = note.view(title)
    return _rows(text[start:end])


def _counts(note: _Note) -> dict[str, int]:
    """How many top-level items the Key Decisions and Gotchas sections hold."""
    return {key: facts[0] if (facts := note.facts.get(title.casefold())) else _items(*note.view(title))
            for key, title in COUNTED.items()}


def _items(text: str, start: int, end: int, dashes: int | None = None) -> int:
    """How many rows of the body ``text[start:end]`` (a "\\n" just before it) start a top-level
    item (``- ``, ``* ``, ``+ ``; ``dashes``: the ``- `` ones, when known); the rarer markers
    are counted only when their character occurs at all."""
    if dashes is None:
        dashes = text.count("\n- ", start - 1, end)
    return dashes + sum(
        text.count("\n" + c + " ", start - 1, end) for c in "*+" if text.find(c, start, end) >= 0)


def item_counts(text: str) -> dict[str, int]:
    """The ``decisions`` and ``gotchas`` counts an entity note's frontmatter carries."""
    return _counts(_Note(text))


def compose(
    text: str,
    new: Sequence[Line],
    *,
    related: Sequence[str] = (),
    overview: Overview | None = None,
    backlink: str | None = None,
    today: date,
) -> Composed:
    """An entity note with ``new`` lines merged into their sections, the ``related`` links under
    Related Entities, the overview kept and the backlink under References; ``updated`` is set
    when anything changed."""
    note = _Note(text)
    blocks = _ids_present(text, _ids_of(new))
    added = merged = present = 0
    for heading in dict.fromkeys(line.heading for line in new):
        counts = _dated(note, heading, [x for x in new if x.heading == heading], blocks)
        added, merged, present = added + counts[0], merged + counts[1], present + counts[2]
    if overview is not None:
        _overview(note.section(OVERVIEW), overview)
    if related:
        _related(note.section(RELATED), related)
    if backlink is not None and not _has_line(text, backlink):
        rows = note.section(REFERENCES)
        rows[:] = _with_tail(rows, _content_end(rows), [backlink])
    return Composed(_written(note, today, _counts(note)), added, merged, present, _summary(note))


# -- the project's _index.md ----------------------------------------------------------------


def key_entity_rows(text: str) -> dict[str, str]:
    """The ``- [[Name]] …`` rows under Key Entities, by name key."""
    out: dict[str, str] = {}
    for row in _peek(_Note(text), KEY_ENTITIES):
        found = _KEY_ROW.match(row.rstrip())
        if found:
            # A path link (another note has the name) is keyed by its note's name too.
            stem = found.group(1).strip().rsplit("/", 1)[-1]
            out.setdefault(names.name_key(stem), row.rstrip())
    return out


_ALIAS_UNSAFE = str.maketrans({"[": "(", "]": ")", "|": "/", "\n": " "})


def key_entity_row(stem: str, said: Summary, target: str | None = None) -> str:
    """The Key Entities row of one entity: ``- [[Auth]] ([[Auth#^vm-…|<newest decision>]])
    ^vm-…``. Its text never changes and the summary is a link, with an id of its own: the form
    notemerge unites when two machines changed the summary (one row, both links). ``target``:
    the note's path without ``.md`` when another note has its name (``links.entity_link``),
    so the row says ``[[claude/projects/p/entities/Auth|Auth]]``."""
    block = names.block_id("key-entity", names.name_key(stem))
    anchor, text = said
    to, shown = (target, f"|{stem}") if target and target != stem else (stem, "")
    if not text:
        return f"- [[{to}{shown}]] ^{block}"
    alias = text.translate(_ALIAS_UNSAFE)
    return f"- [[{to}{shown}]] ([[{to}#{anchor}|{alias}]]) ^{block}"


def session_row(rel: str) -> str:
    """A Recent Sessions row of ``_index.md``: a path link to the session note (its archive copy
    once compacted) with its stem as the alias; the block id lets a merge unite two machines'
    lists."""
    stem = rel.rsplit("/", 1)[-1].removesuffix(".md")
    return f"- [[{rel.removesuffix('.md')}|{stem}]] ^{names.block_id('recent-session', stem)}"


def _recent(body: list[str], sessions: Sequence[str]) -> None:
    """``body`` (Recent Sessions) with vaultmem's rows replaced by ``sessions``' rows, newest
    first; lines a person wrote there stay, ahead of the list."""
    kept = [row for row in body if not _SESSION_ROW.match(row.rstrip())]
    end = _content_end(kept)
    rows = [session_row(rel) for rel in sessions]
    if end:
        body[:] = _with_tail(kept[:end], end, rows) + kept[end:]
    elif rows:
        body[:] = ["", *rows]


def compose_index(
    text: str, new: Sequence[Line], rows: Mapping[str, str], *, today: date,
    sessions: Sequence[str] | None = None,
) -> Composed:
    """The project's ``_index.md`` with the prerequisites merged (dated, unique) and Key Entities
    holding ``rows`` (name key -> row, one per entity of the project, sorted by name) after the
    lines a person wrote there."""
    note = _Note(text)
    blocks = _ids_present(text, _ids_of(new))
    added, merged, present = _dated(note, new[0].heading, list(new), blocks) if new \
        else (0, 0, 0)
    body = note.section(KEY_ENTITIES)
    kept: list[str] = []
    for row in body:
        found = _KEY_ROW.match(row.rstrip())
        if found and names.name_key(found.group(1).strip()) in rows:
            continue
        kept.append(row)
    end = _content_end(kept)
    ordered = [rows[k] for k in sorted(rows)]
    if end:
        body[:] = _with_tail(kept[:end], end, ordered) + kept[end:]
    elif ordered:
        body[:] = ["", *ordered]
    if sessions is not None:
        _recent(note.section(RECENT_SESSIONS), sessions)
    return Composed(_written(note, today, {}), added, merged, present)
