"""Which facts of the notes a search found match it, and in what order (see ``vaultmem.search.recall``).

The facts are read when a query runs, from the notes the index ranked best (``candidates``),
not kept in the index: a cold build of the index reads every note of a vault, a query only the
few dozen it answers from, and reading a note's facts costs about what indexing it does. They
are matched in an in-memory FTS5 table with the index's own tokenizer, so a fact matches
exactly when the note would (stemming, prefixes, the same query expression), and its matched
words are found by FTS5's ``highlight``.

Order: the current project before global before the others; an entity's (a topic's, the project
index's) fact before a session's; newer before older (a fact without a date last); then bm25.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass

from vaultmem.notes import facts
from vaultmem.search import index, indexquery

# The note types whose facts are the compacted memory: ranked before sessions'.
MEMORY_TYPES = frozenset({"entity", "topic", "project-index"})


@dataclass(frozen=True)
class Found:
    """A fact that matched, with the note it is in."""

    fact: facts.Fact
    note: indexquery.IndexHit
    bm25: float  # lower is better
    marked: str  # the fact's text with the matched words between the index's snippet marks


def session_day(note: indexquery.IndexHit) -> str | None:
    """The day a session note's facts are of: its name's date, else its ``updated``."""
    head = note.title[:10]
    if len(head) == 10 and head[4] == head[7] == "-" and (head[:4] + head[5:7] + head[8:]).isdigit():
        return head
    return note.updated


def note_facts(note: indexquery.IndexHit, body: str) -> list[facts.Fact]:
    """The facts of a found note's public body."""
    day = session_day(note) if note.type == "session" else None
    return facts.facts(body, stem=note.title, note_type=note.type, day=day)


def match(expression: str, candidates: Sequence[tuple[indexquery.IndexHit, Sequence[facts.Fact]]]
          ) -> list[Found]:
    """The candidates' facts that the FTS5 ``expression`` matches, in no order."""
    rows = [(note, fact) for note, found in candidates for fact in found]
    if not rows:
        return []
    conn = sqlite3.connect(":memory:", isolation_level=None)
    try:
        conn.execute(f"CREATE VIRTUAL TABLE f USING fts5(text, tokenize = '{index.TOKENIZER}')")
        conn.executemany(
            "INSERT INTO f (rowid, text) VALUES (?, ?)",
            ((n, fact.text) for n, (_, fact) in enumerate(rows)),
        )
        hits = indexquery.query(
            conn,
            "SELECT rowid, bm25(f), highlight(f, 0, ?, ?) FROM f WHERE f MATCH ?",
            [indexquery.SNIPPET_OPEN, indexquery.SNIPPET_CLOSE, expression],
            match=expression,
        )
    finally:
        conn.close()
    return [Found(rows[n][1], rows[n][0], float(bm25), marked) for n, bm25, marked in hits]


def _order(found: Found, current_project: str) -> tuple[int, int, str, float, str, int]:
    note = found.note
    place = 0 if note.project == current_project else 1 if note.project == "global" else 2
    kind = 0 if note.type in MEMORY_TYPES else 1 if note.type == "session" else 2
    # Newer first: the date's characters complemented, so an ascending sort puts it first and
    # a fact without a date ("") last.
    newer = "".join(chr(0x7F - ord(c)) for c in found.fact.date) if found.fact.date else "\x7f"
    return place, kind, newer, found.bm25, note.rel, found.fact.line


def ranked(found: Sequence[Found], current_project: str) -> list[Found]:
    """``found`` best first (see the module docstring)."""
    return sorted(found, key=lambda f: _order(f, current_project))


def marked_bodies(conn: sqlite3.Connection, expression: str, ids: Sequence[int]) -> dict[int, str]:
    """notes.id -> the note's indexed body with the words ``expression`` matched between the
    index's snippet marks."""
    listed = sorted(set(ids))
    if not listed:
        return {}
    sql = (
        "SELECT rowid, highlight(notes_fts, 2, ?, ?) FROM notes_fts "
        f"WHERE notes_fts MATCH ? AND rowid IN ({', '.join('?' * len(listed))})"
    )
    args = [indexquery.SNIPPET_OPEN, indexquery.SNIPPET_CLOSE, expression, *listed]
    return {r[0]: r[1] or "" for r in indexquery.query(conn, sql, args, match=expression)}
