"""The search index: SQLite FTS5 in ``.vaultmem/index.sqlite``, refreshed lazily (DESIGN §7).

``refresh`` stats every note, re-reads only notes whose stat moved (``Stamp``: mtime, ctime, size
and inode), re-indexes only those whose sha256 moved, and drops rows of deleted notes, all in one
transaction. The ctime and the inode catch what mtime and size miss: a same-size edit whose
mtime was set back (a sync tool, ``rsync -t``, ``cp -p``, ``touch -r``), or a note replaced by a
copy that kept the old one's mtime; no program can set a ctime back. Nothing is ever
written into a note. The index is a cache: a corrupt or deleted file is moved aside and rebuilt
silently, and a refresh that finds another process refreshing can return at once
(``wait=False``) so a hook never waits on it; searching a slightly stale index is fine.

Tokenizer: ``porter unicode61 remove_diacritics 2``. Notes are mostly English prose about code, so
stemming lets "retries" find "retry"; unicode61 with diacritics removed lets "cafe" find "café".
Made-up words and identifiers are stemmed the same way on both sides, so they still match.

Concurrency: refreshers serialise on a file lock (``.vaultmem/locks/index.lock``) so two
processes never do the same work; SQLite's WAL mode lets searches read a consistent snapshot
while a refresh writes.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import os
import sqlite3
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import filelock

from vaultmem import faults
from vaultmem.errors import VaultmemError
from vaultmem.notes.privacy import has_private
from vaultmem.search.indexrows import note_row
from vaultmem.store import machine, safefs
from vaultmem.store.vault import Vault

INDEX_FILE = "index.sqlite"
LOCK_NAME = "index.lock"
# Bump when the schema or what is indexed changes: an index of another version is rebuilt.
# 2: private text is no longer indexed (rebuilds indexes that held it); 3: bodies indexed
# without link targets and %%comments%% (facts.searchable).
# 4: bodies redacted (an index built before holds a person's secrets); 5: a note's ctime and inode
# kept beside its mtime and size (an index without them missed an edit whose mtime was set back).
SCHEMA_VERSION = 5
TOKENIZER = "porter unicode61 remove_diacritics 2"
# bm25 column weights: a hit in the title (file name and aliases) beats one in the tags, which
# beats one in the body.
BM25_WEIGHTS = (8.0, 3.0, 1.0)
# A cold build writes FTS5's segments in 16 KiB pages (SQLite's default is 4 KiB): a quarter of
# the page writes, and the pages of a segment lie together for searches. It lets 16 segments of
# a level gather before merging them (FTS5's default is 4, set back once the build is done):
# fewer rewrites of the same terms. Together they take about a quarter off SQLite's share of a
# cold build; searches give the same rows and scores (tests/test_index_build.py).
BUILD_PAGE_SIZE = 16384
BUILD_AUTOMERGE = 16
FTS5_AUTOMERGE = 4
# New notes are written this many at a time, so a cold build holds a batch's text in memory,
# not the vault's (the writes cost the same: FTS5 buffers its own).
WRITE_BATCH = 1000
# What a hook's refresh reads of one note at most (SessionStart's, for the moment hooks): a
# bigger note (a pushed 60 MB one cost SessionStart 1 GB) is left for a refresh without a bound
# (``vaultmem recall``); a row it had stays as it was.
HOOK_NOTE_BYTES = 1024 * 1024
# SQLite waits this long for a lock held inside SQLite; the refresh lock is taken before that.
BUSY_TIMEOUT_MS = 1000
DEFAULT_WAIT_S = 30.0

_SQLITE_CORRUPT = 11
_SQLITE_NOTADB = 26

_SCHEMA = f"""
CREATE TABLE IF NOT EXISTS notes (
    id INTEGER PRIMARY KEY,          -- the rowid of the note's row in notes_fts
    rel TEXT NOT NULL UNIQUE,
    mtime_ns INTEGER NOT NULL,
    size INTEGER NOT NULL,
    ctime_ns INTEGER NOT NULL,
    ino INTEGER NOT NULL,
    sha256 TEXT NOT NULL,
    type TEXT,
    project TEXT,
    title TEXT NOT NULL,
    updated TEXT,                    -- YYYY-MM-DD or NULL
    status TEXT
);
CREATE INDEX IF NOT EXISTS notes_project ON notes(project);
CREATE VIRTUAL TABLE IF NOT EXISTS notes_fts USING fts5(
    title, tags, body, tokenize = '{TOKENIZER}'
);
"""


@dataclass(frozen=True)
class RefreshStats:
    """What a refresh did: counts of notes, and whether it was skipped or rebuilt the index."""

    scanned: int  # notes found on disk
    stat_changed: int  # new notes and notes whose stat (``Stamp``) moved
    reread: int  # notes whose bytes were read
    reindexed: int  # notes whose row was (re)written: new or sha256 moved
    deleted: int  # rows dropped because the note is gone
    duration_ms: float
    skipped: bool = False  # another process held the refresh lock and wait=False
    rebuilt: bool = False  # the index file was missing, corrupt or of another version

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return {
            "scanned": self.scanned,
            "stat_changed": self.stat_changed,
            "reread": self.reread,
            "reindexed": self.reindexed,
            "deleted": self.deleted,
            "duration_ms": round(self.duration_ms, 1),
            "skipped": self.skipped,
            "rebuilt": self.rebuilt,
        }


class SearchIndexError(VaultmemError):
    """The index could not be opened or written (other than corruption, which is repaired)."""


# -- the database file -----------------------------------------------------------------------


def index_path(vault: Vault) -> Path:
    """Where the index of ``vault`` lives."""
    return vault.state_dir / INDEX_FILE


def _is_corrupt(err: sqlite3.DatabaseError) -> bool:
    code = getattr(err, "sqlite_errorcode", None)
    if code is not None:
        return code & 0xFF in (_SQLITE_CORRUPT, _SQLITE_NOTADB)
    text = str(err)
    return "not a database" in text or "malformed" in text or "vaultmem built" in text


def connect(path: Path) -> sqlite3.Connection:
    """A connection to the index file with vaultmem's pragmas (untrusted schema, busy wait)."""
    conn = sqlite3.connect(path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None)
    # A shared vault may ship its own index.sqlite: no function of its schema may have effects.
    conn.execute("PRAGMA trusted_schema = OFF")
    conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    # Rows replaced or dropped are zeroed on disk, so an edit that made text private (or the
    # rebuild of an index from before privacy was kept out of it) leaves none of it in the file.
    conn.execute("PRAGMA secure_delete = ON")
    return conn


@functools.cache
def _schema_objects() -> frozenset[tuple[str, str, str, str | None]]:
    """(type, name, tbl_name, sql) of every object vaultmem's schema makes (FTS5's own too)."""
    conn = sqlite3.connect(":memory:")
    try:
        conn.executescript(_SCHEMA)
        return frozenset(conn.execute("SELECT type, name, tbl_name, sql FROM sqlite_master"))
    finally:
        conn.close()


def foreign_objects(conn: sqlite3.Connection) -> bool:
    """Whether the index holds an object vaultmem's schema does not make (a trigger, a view,
    a table changed): an index vaultmem did not build, rebuilt rather than trusted."""
    found = _objects(conn)
    return bool(found) and found != _schema_objects()


def _objects(conn: sqlite3.Connection) -> set[tuple[str, str, str, str | None]]:
    try:
        return set(conn.execute("SELECT type, name, tbl_name, sql FROM sqlite_master"))
    except UnicodeDecodeError:  # the schema's text is scribbled over: a corrupt file
        raise sqlite3.DatabaseError("file is not a database vaultmem built") from None


def is_linked(path: Path) -> bool:
    """Whether the index or one of its side files is a symlink (sqlite would write through)."""
    return any(os.path.islink(str(path) + suffix) for suffix in ("", "-wal", "-shm", "-journal"))


def _open_for_write(path: Path) -> tuple[sqlite3.Connection, bool]:
    """A connection to a usable index, creating or rebuilding it; (conn, rebuilt)."""
    rebuilt = not path.exists()
    for attempt in range(2):
        conn = connect(path)
        try:
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            found = _objects(conn) if version == SCHEMA_VERSION else set()
            if found and found != _schema_objects():
                raise sqlite3.DatabaseError("file is not a database vaultmem built")
            if version != SCHEMA_VERSION:
                # Empty (new) or another version: start from nothing.
                conn.executescript("DROP TABLE IF EXISTS notes; DROP TABLE IF EXISTS notes_fts;")
                rebuilt = True
            conn.execute("PRAGMA journal_mode = WAL")
            if not found:  # an index of this version has its tables: no write (a commit, a sync)
                conn.executescript(_SCHEMA)
                conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            conn.execute("SELECT count(*) FROM notes").fetchone()
            return conn, rebuilt
        except sqlite3.DatabaseError as err:
            conn.close()
            if attempt or not _is_corrupt(err):
                raise
            _move_aside(path)
            rebuilt = True
    raise AssertionError("unreachable")


def _move_aside(path: Path) -> None:
    """Keep a corrupt index for inspection (only the latest one) and start afresh."""
    for suffix in ("", "-wal", "-shm", "-journal"):
        src = Path(str(path) + suffix)
        with contextlib.suppress(FileNotFoundError):
            os.replace(src, Path(str(path) + ".corrupt" + suffix))


@contextlib.contextmanager
def _refresh_lock(vault: Vault, wait: bool, timeout: float) -> Iterator[bool]:
    """Hold the refresh lock; yields False when it is held elsewhere and we may not wait."""
    lock_path = vault.state_dir / "locks" / LOCK_NAME
    try:
        # own_dir makes the folder (OSError on a read-only vault: one line below, no traceback)
        lock_path = machine.own_dir(vault.state_dir, "locks") / LOCK_NAME
        safefs.check_not_link(lock_path)  # older filelock opened it with O_TRUNC, through a link
        lock = filelock.FileLock(lock_path)
        lock.acquire(timeout=timeout if wait else 0)
    except filelock.Timeout:
        yield False
        return
    except OSError as err:  # a read-only vault: one line, not the lock's traceback
        reason = err.strerror or str(err)
        raise SearchIndexError(f"cannot take the search index's lock: {reason} (is the vault "
                               "folder read-only?)", path=lock_path) from None
    try:
        yield True
    finally:
        lock.release()


# -- refresh ---------------------------------------------------------------------------------


def refresh(
    vault: Vault,
    *,
    wait: bool = True,
    timeout: float | None = None,
    folders: Sequence[str] | None = None,
    max_bytes: int | None = None,
) -> RefreshStats:
    """Bring the index up to date with the notes on disk (see the module docstring).

    ``max_bytes`` (a hook's, ``HOOK_NOTE_BYTES``): a note bigger than this is not read; its row,
    if it has one, stays as it was.

    ``wait=False``: when another process is refreshing, return at once with ``skipped=True``;
    waiting, the same once ``timeout`` (None: DEFAULT_WAIT_S) runs out, the index left as it was.
    ``folders`` (vault-relative): refresh only the notes inside them, so a search scoped to one
    project costs what that project costs, not what the vault does; rows of other notes stay
    as the last refresh of their folder left them.
    """
    started = time.perf_counter()
    try:
        machine.ensure_state_dir(vault.state_dir)
    except OSError as err:
        raise SearchIndexError(f"cannot create {vault.state_dir}: {err.strerror}") from None
    with _refresh_lock(vault, wait, DEFAULT_WAIT_S if timeout is None else timeout) as held:
        if not held:
            return RefreshStats(0, 0, 0, 0, 0, _ms(started), skipped=True)
        path = index_path(vault)
        try:
            return _refresh_once(vault, path, started, folders, max_bytes)
        except sqlite3.DatabaseError as err:
            if not _is_corrupt(err):
                raise SearchIndexError(f"search index: {err}", path=path) from None
            # Corruption found past the header (mid-table): rebuild from scratch, once.
            _move_aside(path)
            try:
                stats = _refresh_once(vault, path, started, folders, max_bytes)
            except sqlite3.DatabaseError as again:
                raise SearchIndexError(f"search index: {again}", path=path) from None
            return _with(stats, rebuilt=True)


def _with(stats: RefreshStats, *, rebuilt: bool) -> RefreshStats:
    return RefreshStats(
        stats.scanned,
        stats.stat_changed,
        stats.reread,
        stats.reindexed,
        stats.deleted,
        stats.duration_ms,
        stats.skipped,
        rebuilt or stats.rebuilt,
    )


def _ms(started: float) -> float:
    return (time.perf_counter() - started) * 1000


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_BINARY", 0))
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _fts_automerge(conn: sqlite3.Connection, segments: int) -> None:
    conn.execute("INSERT INTO notes_fts (notes_fts, rank) VALUES ('automerge', ?)", (segments,))


def _build_aside(
    vault: Vault, path: Path, started: float, folders: Sequence[str] | None,
    max_bytes: int | None,
) -> RefreshStats:
    """A missing index is built in a file of its own without a journal (nothing to roll back:
    a failed build is just deleted), switched to WAL, synced and renamed into place, so the
    notes are written once instead of through the WAL, and a search sees no index or a whole
    one."""
    build = path.with_name(path.name + ".build")
    for stale in (build, Path(str(build) + "-journal")):
        stale.unlink(missing_ok=True)
    conn = connect(build)
    try:
        conn.execute(f"PRAGMA page_size = {BUILD_PAGE_SIZE}")  # before the file's first page
        conn.execute("PRAGMA journal_mode = OFF")
        conn.execute("PRAGMA synchronous = OFF")
        conn.executescript(_SCHEMA)
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        conn.execute("BEGIN IMMEDIATE")
        _fts_automerge(conn, BUILD_AUTOMERGE)
        counts = _sync(conn, vault, folders, max_bytes)
        _fts_automerge(conn, FTS5_AUTOMERGE)
        conn.execute("COMMIT")
        conn.execute("PRAGMA journal_mode = WAL")
        conn.close()
        # Written without syncs: the bytes reach the disk before the rename makes them the
        # index, so a crash leaves no index (rebuilt) or a whole one, never a torn one that
        # would fail every search. One fsync: a few ms of wall time, no CPU to speak of.
        _fsync(build)
        os.replace(build, path)
    except BaseException:
        conn.close()
        build.unlink(missing_ok=True)
        raise
    return RefreshStats(*counts, _ms(started), rebuilt=True)


def _refresh_once(
    vault: Vault, path: Path, started: float, folders: Sequence[str] | None,
    max_bytes: int | None,
) -> RefreshStats:
    if is_linked(path):
        _move_aside(path)  # the link itself is moved; nothing is written through it
    if not path.exists():
        return _build_aside(vault, path, started, folders, max_bytes)
    conn, rebuilt = _open_for_write(path)
    try:
        conn.execute("BEGIN IMMEDIATE")
        try:
            counts = _sync(conn, vault, folders, max_bytes)
            conn.execute("COMMIT")
        except BaseException:
            with contextlib.suppress(sqlite3.Error):
                conn.execute("ROLLBACK")
            raise
    finally:
        conn.close()
    scanned, stat_changed, reread, reindexed, deleted = counts
    return RefreshStats(
        scanned, stat_changed, reread, reindexed, deleted, _ms(started), rebuilt=rebuilt
    )


Stamp = tuple[int, int, int, int]  # (mtime_ns, size, ctime_ns, inode): a version of a note


def stamp(st: os.stat_result) -> Stamp:
    """What the index keeps of a note's stat to tell, by a stat alone, that it is as it was."""
    return (st.st_mtime_ns, st.st_size, st.st_ctime_ns, st.st_ino)


def _known(
    conn: sqlite3.Connection, folders: Sequence[str] | None
) -> dict[str, tuple[int, Stamp, str]]:
    """rel -> (id, stamp, sha256) of the rows of the notes in ``folders`` (all: None)."""
    query = "SELECT id, rel, mtime_ns, size, ctime_ns, ino, sha256 FROM notes"
    if folders is None:
        rows = list(conn.execute(query))
    else:
        rows = []
        for folder in folders:
            # rel's UNIQUE index answers the range: "a/b/" <= rel < "a/b0" ("0" follows "/").
            prefix = folder.rstrip("/") + "/"
            rows += conn.execute(
                f"{query} WHERE rel >= ? AND rel < ?", (prefix, prefix[:-1] + "0")
            )
    return {rel: (row_id, (mtime_ns, size, ctime_ns, ino), sha)
            for row_id, rel, mtime_ns, size, ctime_ns, ino, sha in rows}


def _listing(vault: Vault, folders: Sequence[str] | None) -> list[str]:
    if folders is None:
        return list(vault.iter_notes())
    found: dict[str, None] = {}  # folders may overlap: each note once
    for folder in folders:
        found.update(dict.fromkeys(vault.iter_notes(folder)))
    return list(found)


def _read_note(path: str) -> tuple[os.stat_result, bytes]:
    """The fstat and bytes of an open note: the stamp of the very bytes read (taken before
    them), so a write racing this one is seen as a change by the next refresh.

    Raw system calls (open, fstat, read, close), not a buffered file object, which adds a
    few calls of its own per file that a cold build pays 10,000 times."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_BINARY", 0))
    try:
        st = os.fstat(fd)
        raw = os.read(fd, st.st_size + 1)
        if len(raw) != st.st_size:  # grew or shrank since the fstat, or a short read
            chunks = [raw]
            while chunk := os.read(fd, 1 << 20):
                chunks.append(chunk)
            raw = b"".join(chunks)
    finally:
        os.close(fd)
    return st, raw


def _sync(
    conn: sqlite3.Connection, vault: Vault, folders: Sequence[str] | None = None,
    max_bytes: int | None = None,
) -> tuple[int, int, int, int, int]:
    """Bring the rows of the notes in ``folders`` (every note: None) up to date; a note over
    ``max_bytes`` is left as it is (not read, its old row kept)."""
    known = _known(conn, folders)
    root = os.path.join(vault.root, "")  # then root + rel: a concatenation, not a join, per note
    namespace = vault.layout.namespace
    scanned = stat_changed = reread = 0
    scrub = False  # a note re-indexed with private text: its old terms must leave the file
    seen: set[str] = set()
    next_id = (conn.execute("SELECT max(id) FROM notes").fetchone()[0] or 0) + 1
    inserts: list[tuple[Any, ...]] = []  # new notes: their notes rows and texts, batched
    new_texts: list[tuple[int, str, str, str]] = []
    added = 0  # new notes written so far
    fts_changed: list[tuple[int, str, str, str]] = []  # changed notes: their new texts
    touched: list[tuple[int, ...]] = []  # same bytes, new stamp
    updates: list[tuple[Any, ...]] = []  # changed notes: their notes row
    fts_deletes: list[tuple[int]] = []
    for rel in _listing(vault, folders):
        full = root + rel
        old = known.get(rel)
        if old is not None or max_bytes is not None:
            try:
                st = os.stat(full)
            except OSError:
                continue  # gone since the listing: dropped below like any deleted note
            if (old is not None and old[1] == stamp(st)) or (
                    max_bytes is not None and st.st_size > max_bytes):
                scanned += 1
                seen.add(rel)
                continue
        # A new note needs no stat of its own: the fstat of the open file is the one kept.
        try:
            fst, raw = _read_note(full)
        except OSError:
            continue
        scanned += 1
        seen.add(rel)
        stat_changed += 1
        reread += 1
        sha = hashlib.sha256(raw).hexdigest()
        if old is not None and old[2] == sha:
            touched.append((*stamp(fst), old[0]))
            continue
        row = note_row(rel, raw, namespace, vault.redaction)
        values = (
            *stamp(fst),
            sha,
            row.type,
            row.project,
            row.title,
            row.updated,
            row.status,
        )
        if old is None:
            inserts.append((next_id, *values, rel))
            new_texts.append((next_id, row.names, row.tags, row.body))
            next_id += 1
            if len(inserts) == WRITE_BATCH:
                added += _insert(conn, inserts, new_texts)
        else:
            row_id = old[0]
            updates.append((*values, row_id))
            fts_deletes.append((row_id,))
            fts_changed.append((row_id, row.names, row.tags, row.body))
            scrub = scrub or has_private(raw.decode("utf-8", errors="replace"))
    gone = [(known[rel][0],) for rel in known.keys() - seen]
    conn.executemany(
        "UPDATE notes SET mtime_ns = ?, size = ?, ctime_ns = ?, ino = ? WHERE id = ?", touched)
    conn.executemany("DELETE FROM notes WHERE id = ?", gone)
    conn.executemany("DELETE FROM notes_fts WHERE rowid = ?", gone + fts_deletes)
    conn.executemany(
        "UPDATE notes SET mtime_ns = ?, size = ?, ctime_ns = ?, ino = ?, sha256 = ?, "
        "type = ?, project = ?, title = ?, updated = ?, status = ? WHERE id = ?",
        updates,
    )
    faults.checkpoint("index:sync")  # half the rows written: a hook killed here writes none
    added += _insert(conn, inserts, new_texts)
    conn.executemany(_INSERT_TEXTS, fts_changed)
    if scrub:
        # FTS5 keeps a replaced row's terms in its old segments until they are merged (its
        # secure-delete option needs SQLite 3.42): merge them now; secure_delete zeroes the rest.
        conn.execute("INSERT INTO notes_fts (notes_fts) VALUES ('optimize')")
    return scanned, stat_changed, reread, added + len(fts_changed), len(gone)


_INSERT_TEXTS = "INSERT INTO notes_fts (rowid, title, tags, body) VALUES (?, ?, ?, ?)"


def _insert(
    conn: sqlite3.Connection,
    rows: list[tuple[Any, ...]],
    texts: list[tuple[int, str, str, str]],
) -> int:
    """Write new notes' rows and texts and empty both lists; how many were written."""
    conn.executemany(
        "INSERT INTO notes (id, mtime_ns, size, ctime_ns, ino, sha256, type, project, title, "
        "updated, status, rel) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        rows,
    )
    conn.executemany(_INSERT_TEXTS, texts)
    count = len(rows)
    rows.clear()
    texts.clear()
    return count
