"""Queries on the index: open it to read, match with FTS5, rank by bm25 and the bonuses."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any

from vaultmem.search.index import (
    BM25_WEIGHTS,
    SearchIndexError,
    connect,
    foreign_objects,
    index_path,
    is_linked,
)
from vaultmem.store.vault import Vault


@dataclass(frozen=True)
class IndexHit:
    """One search result row, before recall turns it into a Hit."""

    rel: str
    title: str
    type: str | None
    project: str | None
    updated: str | None
    status: str | None
    snippet: str
    bm25: float  # SQLite's bm25(): lower is better (negative)
    score: float  # the combined score (higher is better), see ``search``
    id: int = 0  # the note's row id (notes.id)


# -- search ----------------------------------------------------------------------------------

# Combined score (higher is better):
#   relevance * (1 + type bonus + project bonus + recency bonus)
# relevance = -bm25 (bm25 is negative, more negative = better match). Bonuses:
#   type: entity and auto-memory (Claude Code's own curated notes, mirrored) 0.5, topic 0.3,
#   session 0.25, anything else 0;
#   project: the current project 0.25, global 0.1, others 0;
#   recency: 0.2 * 0.5 ** (days since `updated` / 30): a 30-day half-life, 0 without a date.
# The bonuses multiply relevance, so a much better text match still wins; between comparable
# matches, entities come before sessions and the current project before the others.
TYPE_BONUS = {"entity": 0.5, "auto-memory": 0.5, "topic": 0.3, "session": 0.25}
CURRENT_PROJECT_BONUS = 0.25
GLOBAL_BONUS = 0.1
RECENCY_BONUS = 0.2
RECENCY_HALF_LIFE_DAYS = 30.0


def _boost(
    kind: str | None, project: str | None, updated: str | None, current: str, today: str
) -> float:
    bonus = TYPE_BONUS.get(kind or "", 0.0)
    if project is not None and project == current:
        bonus += CURRENT_PROJECT_BONUS
    elif project == "global":
        bonus += GLOBAL_BONUS
    if updated:
        try:
            age = (date.fromisoformat(today) - date.fromisoformat(updated)).days
        except ValueError:
            age = None
        if age is not None:
            bonus += RECENCY_BONUS * 0.5 ** (max(0, age) / RECENCY_HALF_LIFE_DAYS)
    return 1.0 + bonus


SNIPPET_OPEN = "\x02"
SNIPPET_CLOSE = "\x03"
SNIPPET_ELLIPSIS = "…"
SNIPPET_TOKENS = 16
# One query is interrupted past this (a hostile index cannot hang recall). Each query has its
# own: a recall's queries come with reading and ranking notes between them, and a deadline for
# them all stopped the last of them on a loaded machine (a recall taking 15-50 s at nice 19
# beside busy processes), which failed the whole recall.
SEARCH_SECONDS = 10.0
PROGRESS_STEPS = 10_000  # SQLite steps between two looks at the deadline


def bound(conn: sqlite3.Connection) -> None:
    """The next statement on ``conn`` is interrupted past SEARCH_SECONDS from now."""
    deadline = time.monotonic() + SEARCH_SECONDS
    conn.set_progress_handler(lambda: int(time.monotonic() > deadline), PROGRESS_STEPS)


def open_reader(vault: Vault) -> sqlite3.Connection | None:
    """A connection to read the index with, or None when there is no index yet."""
    path = index_path(vault)
    if not path.exists():
        return None
    if is_linked(path):
        raise SearchIndexError("the index is a symlink; a refresh rebuilds it", path=path)
    conn = connect(path)
    # Checked every few thousand steps: a search past its time is interrupted, never hangs.
    bound(conn)
    try:
        foreign = foreign_objects(conn)
    except sqlite3.DatabaseError as err:
        conn.close()
        raise SearchIndexError(f"search index: {err}", path=path) from None
    if foreign:
        conn.close()
        raise SearchIndexError("the index holds objects vaultmem did not make; a refresh "
                               "rebuilds it", path=path)
    return conn


def query(
    conn: sqlite3.Connection, sql: str, args: Sequence[Any], *, match: str
) -> list[Any]:
    """The rows of a read-only query with the FTS5 expression ``match``; [] while the tables
    do not exist yet; a bad expression, a broken index or a query past SEARCH_SECONDS is a
    SearchIndexError."""
    bound(conn)
    try:
        return conn.execute(sql, args).fetchall()
    except sqlite3.OperationalError as err:
        if "interrupted" in str(err):
            raise SearchIndexError(f"search took longer than {SEARCH_SECONDS:g} s; stopped") \
                from None
        if "no such table" in str(err):
            return []  # created by a refresh that has not committed yet
        if "fts5" in str(err) or "syntax" in str(err):
            raise SearchIndexError(f"bad search expression {match!r}: {err}") from None
        raise SearchIndexError(f"search index: {err}") from None
    except sqlite3.DatabaseError as err:
        raise SearchIndexError(f"search index: {err}") from None


def scope_where(
    projects: Sequence[str] | None = None,
    types: Sequence[str] | None = None,
    under: str | None = None,
    folders: Sequence[str] | None = None,
) -> tuple[list[str], list[Any]]:
    """SQL conditions on ``notes AS n`` keeping the notes a search covers, and their parameters
    (see ``search``)."""
    where: list[str] = []
    params: list[Any] = []
    if projects is not None:
        where.append(f"n.project IN ({', '.join('?' * len(projects))})")
        params.extend(projects)
    if types:
        where.append(f"n.type IN ({', '.join('?' * len(types))})")
        params.extend(types)
    if under:
        prefix = under.rstrip("/") + "/"
        where.append("substr(n.rel, 1, ?) = ?")
        params.extend([len(prefix), prefix])
    if folders is not None:
        inside = []
        for folder in folders:
            prefix = folder.rstrip("/") + "/"
            inside.append("(n.rel >= ? AND n.rel < ?)")
            params.extend([prefix, prefix[:-1] + "0"])
        where.append("(" + (" OR ".join(inside) or "0") + ")")
    return where, params


def search(
    vault: Vault,
    match: str,
    *,
    current_project: str,
    today: date,
    projects: Sequence[str] | None = None,
    types: Sequence[str] | None = None,
    limit: int = 10,
    under: str | None = None,
    folders: Sequence[str] | None = None,
    conn: sqlite3.Connection | None = None,
) -> list[IndexHit]:
    """Notes matching the FTS5 expression ``match``, best first by the combined score.

    ``projects`` None searches every note; otherwise only notes of those projects. ``under``
    (a folder, e.g. the namespace) keeps notes whose path is inside it; ``folders`` keeps notes
    inside any of them (the folders a scoped refresh brought up to date). The snippet
    marks matched terms with ``SNIPPET_OPEN``/``SNIPPET_CLOSE``. A missing index gives [].
    ``conn``: a connection of ``open_reader`` to use (else one is opened and closed).
    """
    own = conn is None
    reader = open_reader(vault) if conn is None else conn
    if reader is None:
        return []
    where, params = scope_where(projects, types, under, folders)
    w_title, w_tags, w_body = BM25_WEIGHTS
    sql = (
        "SELECT n.rel, n.title, n.type, n.project, n.updated, n.status, "
        f"snippet(notes_fts, -1, ?, ?, ?, {SNIPPET_TOKENS}), "
        f"bm25(notes_fts, {w_title}, {w_tags}, {w_body}) AS rank, "
        "-bm25(notes_fts, {0}, {1}, {2}) * vm_boost(n.type, n.project, n.updated, ?, ?) AS score, "
        "n.id "
        "FROM notes_fts JOIN notes AS n ON n.id = notes_fts.rowid "
        f"WHERE {' AND '.join(['notes_fts MATCH ?', *where])} "
        "ORDER BY score DESC, n.rel LIMIT ?"
    ).format(w_title, w_tags, w_body)
    args: list[Any] = [SNIPPET_OPEN, SNIPPET_CLOSE, SNIPPET_ELLIPSIS, current_project,
                       today.isoformat()]
    args += [match, *params, max(1, limit)]
    try:
        reader.create_function("vm_boost", 5, _boost, deterministic=True)
        rows = query(reader, sql, args, match=match)
    finally:
        if own:
            reader.close()
    return [
        IndexHit(
            rel=r[0],
            title=r[1],
            type=r[2],
            project=r[3],
            updated=r[4],
            status=r[5],
            snippet=r[6] or "",
            bm25=float(r[7]),
            score=float(r[8]),
            id=int(r[9]),
        )
        for r in rows
    ]


def with_status(vault: Vault, folder: str, status: str) -> dict[str, tuple[int, int]]:
    """rel -> (mtime_ns, size) of the notes in ``folder`` whose ``status`` property the index
    read as ``status``, as the last refresh saw them ({} without a readable index): a note whose
    stat still matches has that status without being read (SessionStart's pending look)."""
    try:
        conn = open_reader(vault)
    except SearchIndexError:
        return {}
    if conn is None:
        return {}
    prefix = folder.rstrip("/") + "/"
    try:
        rows = conn.execute(
            "SELECT rel, mtime_ns, size FROM notes WHERE rel >= ? AND rel < ? AND status = ?",
            (prefix, prefix[:-1] + "0", status)).fetchall()
    except sqlite3.Error:
        return {}  # no table yet (a build not committed), or a broken file: look at the notes
    finally:
        conn.close()
    return {rel: (mtime_ns, size) for rel, mtime_ns, size in rows}
