"""The parts of an entity note (and of a project's ``_index.md``) that compaction keeps, rewritten
in one pass over the note's text (pure). See docs/ARCHITECTURE.md "The notes".

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
from dataclasses import dataclass, replace
from datetime import date

from vaultmem.memory import entitylessons, entityparse
from vaultmem.notes import fences, names, propedit

RECENT_SESSIONS_SHOWN = 10
_ID = re.compile(r"[A-Za-z0-9-]+")
_LIST_LINE = re.compile(r"\s*(?:[-*+]|\d+[.)])(?:\s|$)")
_SESSION_ROW = re.compile(r"- \[\[[^\[\]\n|#]*/sessions/[^\[\]\n|#]+\|[^\[\]\n]*\]\] \^vm-[0-9a-f]{8}$")


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
        return entityparse.fact_key(self.text)

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
    # The newest decision, else the overview (see entityparse.summary).
    summary: tuple[str, str] = ("", "")


def _with_tail(rows: list[str], at: int, new: Sequence[str]) -> list[str]:
    """``new`` lines put at ``at`` (the end of the content), a blank line apart from a block
    that is not a list, and one after the heading."""
    if not new:
        return rows
    if at == 0:
        return ["", *new, *rows]
    sep = [] if _LIST_LINE.match(rows[at - 1]) else [""]
    return [*rows[:at], *sep, *new, *rows[at:]]


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


def _dated(note: entityparse.Note, heading: str, new: Sequence[Line], blocks: set[str]
           ) -> tuple[int, int, int]:
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
_DATED_OURS = entityparse.DATE + r"(?: — |: | - )[^\n]* \^vm-[A-Za-z0-9-]*[ \t]*(?:\n|\Z)"
# A "- " row that is not a dated line of ours ending in its id (those are found by the id).
_OTHER_ROW = re.compile(r"\n(- (?!" + _DATED_OURS + r")[^\n]*)")
_FEW_ROWS = 64


def _row_keys(row: str) -> str | None:
    """The fact key ``_dated_rows`` reads a row for (not a dated line of ours), else None."""
    if entityparse.row_day(row) and entityparse.row_block(row):
        return None
    got = entityparse.read_row(row)
    return None if got is None else entityparse.fact_key(got.text)


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
            sum(1 for row in rows if entityparse.DATED.match(row, 2) is None)
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
               ) -> tuple[entityparse.Pieces, entityparse.Facts | None, tuple[int, int, int]] \
        | None:
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
        return entityparse.Pieces([text[start:end]], same=True), None, (0, 0, present)
    # The first dated row later than a day: where prefix maxima pass it (as in _dated_rows).
    highs = list(itertools.accumulate(entityparse.DAY_AT.findall(text, start - 1, end), max)) \
        if adds else []
    inserts: dict[int, list[tuple[str, str]]] = {}
    tail: list[tuple[str, str]] = []
    offsets: list[int] = []  # where the dated rows start, read only when a line goes before one
    for day, row in adds:
        at = bisect.bisect_right(highs, day)
        if at < len(highs):
            offsets = offsets or [m.start() + 1
                                  for m in entityparse.DAY_AT.finditer(text, start - 1, end)]
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
        at, last = entityparse.content_end_at(text, start, end)
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
    items = entityparse.item_count(text, start, end, dashes if adds else None) + len(adds)
    # A merged row keeps its date, place, text and id: the newest row is as it was, or added.
    top = max((day for day, _ in adds), default="")
    if adds and (not highs or top >= highs[-1]):  # the newest is the last added row of that day
        got = entityparse.read_row([row for day, row in tail if day == top][-1])
        newest = (got.block or "", got.text) if got else ("", "")
    else:
        newest = entityparse.newest_row(text, start, end, highs[-1] if highs else None)
    return (entityparse.Pieces(pieces, same=False), (items, newest),
            (len(adds), len(merges), present))


def _row_with_id(text: str, start: int, end: int, block: str) -> tuple[int, int] | None:
    """Where the first ``- `` row of the body ``text[start:end]`` whose id is ``block`` starts
    and ends (its "\\n"), as ``_dated_rows`` finds it; None when no row has it."""
    needle = " ^" + block
    at = text.find(needle, start, end)
    while at >= 0:
        row = text.rfind("\n", start - 1, at) + 1
        stop = text.find("\n", at, end)
        if text.startswith("- ", row) and entityparse.row_block(text[row:stop]) == block:
            return row, stop
        at = text.find(needle, at + 1, end)
    return None


def _with_link(row: str, line: Line) -> str | None:
    """``row`` (a dated row of the fact of ``line``) with the session's link added, as
    ``_dated_rows`` writes it; "" when the link is there already; None when the merge would
    date or move the row (left to ``_dated_rows``)."""
    got = entityparse.read_row(row)
    if got is None or not got.day or line.day < got.day:
        return None
    merge = _merged(got, line)
    return "" if merge is None else merge[1]


def _merged(got: entityparse.Row, line: Line) -> tuple[str, str] | None:
    """(its date, the row) of the row ``got`` with the session link of ``line`` added: the
    earlier of the two dates (a row of the format before dates takes the date of its first
    session); None when the link is there already."""
    if entityparse.link_key(line.link) in {entityparse.link_key(x) for x in got.links}:
        return None
    group = sorted([*got.links, line.link], key=entityparse.link_sort)
    first = got.day or min((entityparse.link_day(x) for x in got.links if entityparse.link_day(x)),
                           default=line.day)
    day = min(first, line.day)
    return day, f"- {day} — {got.text} ({', '.join(group)}) ^{got.block or line.block}"


def _dated_rows(rows: list[str], new: Sequence[Line], blocks: set[str]) -> tuple[int, int, int]:
    """``_dated``, reading every row."""
    outside = entityparse.outside_fences(rows)
    by_block: dict[str, int] = {}
    ours: dict[str, int] = {}  # fact key -> row, of our rows in the format before dates
    theirs: set[str] = set()  # fact keys of a person's rows
    dated: list[tuple[str, int]] = []
    for i, row in enumerate(rows):
        if not (outside[i] and row.startswith("- ")):
            continue
        day, block = entityparse.row_day(row), entityparse.row_block(row)
        if day:
            dated.append((day, i))
        if block:
            by_block.setdefault(block, i)
        # A dated line of ours is found by its id (made from its fact): only the others are
        # read to the end, for their text.
        if not (day and block):
            got = entityparse.read_row(row)
            if got is not None:
                (ours.setdefault(entityparse.fact_key(got.text), i) if block else
                 theirs.add(entityparse.fact_key(got.text)))
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
        got = entityparse.read_row(replaced.get(at, rows[at]))
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
    end = entityparse.content_end(out)
    rows[:] = _with_tail(out, end, [text for _, text in sorted(tail, key=lambda x: x[0])])
    return added, merged, present


def _overview_line(folders: Iterable[str], sessions_: Sequence[tuple[str, str]]) -> str:
    # "<text> (<links>) ^vm-…" with a text that does not change with each session: the form
    # notemerge unites when two machines add a session each.
    code = sorted(set(folders))
    links_ = [sessions_[0][1]] + ([sessions_[-1][1]] if len(sessions_) > 1 else [])
    lead = ("Code in " + ", ".join(f"`{f}`" for f in code) + ". ") if code else ""
    return f"{lead}{entityparse.SESSIONS_SAID} ({', '.join(links_)}) ^{entityparse.OVERVIEW_ID}"


def _overview(rows: list[str], seen: Overview) -> None:
    content = [i for i, row in enumerate(rows) if row.strip()]
    ours = [i for i in content if rows[i].rstrip().endswith("^" + entityparse.OVERVIEW_ID)]
    placeholder = bool(content) and all(entityparse.PLACEHOLDER.fullmatch(rows[i].strip())
                                        for i in content)
    if content and not ours and not placeholder:
        return  # a person's overview
    folders = set(seen.folders)
    found: list[tuple[str, str]] = [(seen.day, seen.link)]
    for i in ours or content:
        old = rows[i]
        if i in ours:
            folders.update(entityparse.CODE.findall(old.split(entityparse.SESSIONS_SAID)[0]))
        found.extend((entityparse.link_day(m.group(0)), m.group(0))
                     for m in entityparse.ONE_LINK.finditer(old))
    first_day: dict[str, tuple[str, str]] = {}  # one entry per session, its earliest date
    for day, link in found:
        key = entityparse.link_key(link)
        if key not in first_day or (day and day < first_day[key][0]):
            first_day[key] = (day, link)
    line = _overview_line(folders, sorted(first_day.values(),
                                          key=lambda s: (s[0], entityparse.link_sort(s[1]))))
    if ours:
        rows[ours[0]] = line
        for i in reversed(ours[1:]):
            del rows[i]
    elif content:
        rows[content[0] : content[-1] + 1] = [line]
    else:
        rows[:] = ["", line, *[r for r in rows if not r.strip()][1:]]


def _entity_key(link: str) -> str:
    # [[Auth]] and [[claude/projects/p/entities/Auth|Auth]] are one entity here.
    return entityparse.link_key(link).rsplit("/", 1)[-1]


def _related(rows: list[str], links_: Sequence[str]) -> None:
    have = {_entity_key(m.group(0)) for row in rows for m in entityparse.ONE_LINK.finditer(row)}
    new: list[str] = []
    for link in links_:
        key = _entity_key(link)
        if key not in have:
            have.add(key)
            new.append(f"- {link}")
    rows[:] = _with_tail(rows, entityparse.content_end(rows), new)


def _one_per_lesson(note: entityparse.Note, new: Sequence[Line], blocks: set[str]
                    ) -> list[Line]:
    """``new`` with each line that tells what another tells made that line
    (:func:`entitylessons.folds`: a row of its section, which gains the session's link, or the
    line of ``new`` telling more), and without the setup lines another line states
    (:func:`entitylessons.told_setups`); lines there already (by id) are left as they are."""
    bound = [(line.heading, line.text, line.block, line.block in blocks or
              line.old_block in blocks) for line in new]
    told = entitylessons.told_setups(note, bound)  # left out: no line folds into them
    into = entitylessons.folds(note, [(*b[:3], b[3] or n in told) for n, b in enumerate(bound)])
    return [replace(line, text=into[n][0], block=into[n][1] or line.block) if n in into
            else line for n, line in enumerate(new) if n not in told]


def _ids_of(new: Iterable[Line]) -> list[str]:
    """The block ids the lines of ``new`` may already have in a note (theirs and the older
    form's)."""
    return [i for line in new for i in (line.block, line.old_block)]


def _written(note: entityparse.Note, today: date, counts: Mapping[str, int]) -> str:
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
    head = propedit.set_key(head, "updated", today)
    for key, value in counts.items():
        head = propedit.set_key(head, key, value)
    return head


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
    note = entityparse.Note(text)
    new = _one_per_lesson(note, new, _ids_present(text, _ids_of(new)))
    blocks = _ids_present(text, _ids_of(new))
    added = merged = present = 0
    for heading in dict.fromkeys(line.heading for line in new):
        counts = _dated(note, heading, [x for x in new if x.heading == heading], blocks)
        added, merged, present = added + counts[0], merged + counts[1], present + counts[2]
    if overview is not None:
        _overview(note.section(entityparse.OVERVIEW), overview)
    if related:
        _related(note.section(entityparse.RELATED), related)
    if backlink is not None and not entityparse.has_line(text, backlink):
        rows = note.section(entityparse.REFERENCES)
        rows[:] = _with_tail(rows, entityparse.content_end(rows), [backlink])
    return Composed(_written(note, today, entityparse.note_counts(note)), added, merged, present,
                    entityparse.note_summary(note))


# -- the project's _index.md ----------------------------------------------------------------


_ALIAS_UNSAFE = str.maketrans({"[": "(", "]": ")", "|": "/", "\n": " "})


def key_entity_row(stem: str, said: entityparse.Summary, target: str | None = None) -> str:
    """The Key Entities row of one entity: ``- [[Auth]] ([[Auth#^vm-…|<newest decision>]])
    ^vm-…``. Its text never changes and the summary is a link, with an id of its own: the form
    notemerge unites when two machines changed the summary (one row, both links). ``target``:
    the note's path without ``.md`` (vaultmem links an entity by path: ``links.entity_link``),
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
    end = entityparse.content_end(kept)
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
    note = entityparse.Note(text)
    blocks = _ids_present(text, _ids_of(new))
    added, merged, present = _dated(note, new[0].heading, list(new), blocks) if new \
        else (0, 0, 0)
    body = note.section(entityparse.KEY_ENTITIES)
    kept: list[str] = []
    for row in body:
        found = entityparse.KEY_ROW.match(row.rstrip())
        # A path link is the row of the note it names (key_entity_rows keys it so too).
        if found and names.name_key(found.group(1).strip().rsplit("/", 1)[-1]) in rows:
            continue
        kept.append(row)
    end = entityparse.content_end(kept)
    ordered = [rows[k] for k in sorted(rows)]
    if end:
        body[:] = _with_tail(kept[:end], end, ordered) + kept[end:]
    elif ordered:
        body[:] = ["", *ordered]
    if sessions is not None:
        _recent(note.section(entityparse.RECENT_SESSIONS), sessions)
    return Composed(_written(note, today, {}), added, merged, present)
