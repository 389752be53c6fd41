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
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import date

from vaultmem.memory import entitylessons, entityparse
from vaultmem.memory.entityquick import LIST_LINE as _LIST_LINE
from vaultmem.memory.entityquick import dated_new as _dated_new
from vaultmem.memory.entityquick import merged as _merged
from vaultmem.notes import fences, names, propedit
from vaultmem.notes.lazyre import lazy

RECENT_SESSIONS_SHOWN = 10
_ID = lazy(r"[A-Za-z0-9-]+")
_SESSION_ROW = lazy(r"- \[\[[^\[\]\n|#]*/sessions/[^\[\]\n|#]+\|[^\[\]\n]*\]\] \^vm-[0-9a-f]{8}$")


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
