"""The search index: SQLite FTS5 in ``.vaultmem/index.sqlite``, refreshed lazily (DESIGN §7).

``refresh`` stats every note, re-reads only notes whose ``(mtime_ns, size)`` moved, re-indexes only
those whose sha256 moved, and drops rows of deleted notes, all in one transaction. Nothing is ever
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
import re
import sqlite3
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path
from typing import Any

import filelock

from vaultmem.errors import VaultmemError
from vaultmem.notes import facts, fences
from vaultmem.notes.privacy import PrivateStream, has_private, strip_private
from vaultmem.store import machine, safefs
from vaultmem.store.vault import Vault

INDEX_FILE = "index.sqlite"
LOCK_NAME = "index.lock"
# Bump when the schema or what is indexed changes: an index of another version is rebuilt.
# 2: private text is no longer indexed (rebuilds indexes that held it); 3: bodies indexed
# without link targets and %%comments%% (facts.searchable).
SCHEMA_VERSION = 3
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
    stat_changed: int  # new notes and notes whose (mtime_ns, size) moved
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


class SearchIndexError(VaultmemError):
    """The index could not be opened or written (other than corruption, which is repaired)."""


# -- frontmatter, fast ------------------------------------------------------------------------

@functools.cache
def _loader() -> type[Any]:
    """ObsidianLoader's resolvers and constructors over libyaml's C parser when there is one.

    The index reads the frontmatter of every note on a cold build; the pure-Python parser
    costs ~4 ms a note there, this ~0.5 ms, and reads every value the same way. Built on first
    use: most notes never need a YAML parser (see ``_simple_meta``), and recall imports none.
    """
    from vaultmem.notes import frontmatter

    try:
        from yaml.constructor import SafeConstructor
        from yaml.cyaml import CParser  # type: ignore[attr-defined]
        from yaml.resolver import Resolver
    except ImportError:  # pragma: no cover - PyYAML built without libyaml
        return frontmatter.ObsidianLoader

    class _FastLoader(CParser, frontmatter.ObsidianLoader):
        def __init__(self, stream: str) -> None:
            CParser.__init__(self, stream)
            SafeConstructor.__init__(self)
            Resolver.__init__(self)

    return _FastLoader


_INDEXED_KEYS = frozenset({"type", "project", "updated", "status", "aliases", "tags"})
_LIST_KEYS = frozenset({"aliases", "tags"})
_KEY = re.compile(r"[A-Za-z_][\w-]*")
# A plain scalar ObsidianLoader reads back as this very string (no quotes, flow, comments,
# anchors, "key: value" inside, or null words); dates read as dates and print back the same.
_PLAIN = re.compile(r"[\w.][\w./+-]*(?: [\w./+-]+)*")
_NULLS = frozenset({"null", "Null", "NULL"})


_CLOSERS = {'"': '"', "'": "'", "[": "]", "{": "}"}


def _one_line_value(value: str) -> bool:
    """True when a value of a key the index skips cannot continue on the next lines."""
    first = value[0]
    if first in _CLOSERS:
        return len(value) > 1 and value.endswith(_CLOSERS[first])
    return first not in "|>&*!%@`#"


# What one frontmatter line says read on its own (what to do with it depends on the lines
# before it; what it says does not): (kind, key, value).
_BLANK, _ITEM, _BAD, _OTHER_KEY, _LIST_KEY, _EMPTY_KEY, _KEY_VALUE = range(7)
_LINES: dict[str, tuple[int, str, str]] = {}
# The lines vaultmem writes repeat from note to note (type, project, tags and their items,
# status): each is read once per process, the rest looked up. Bounded: past this many different
# lines, new ones are read every time.
_LINES_KEPT = 4096


def _line(line: str) -> tuple[int, str, str]:
    """What a non-empty frontmatter line says to the fast reader (see ``_simple_meta``)."""
    if not line.strip():
        return _BLANK, "", ""  # blank but for whitespace ("\r", form feed…)
    if line[0] in " \t-":
        item = line.lstrip(" \t")
        if item[:2] != "- ":
            return _BAD, "", ""
        value = item[2:].rstrip(" \t")
        if value in _NULLS or not _PLAIN.fullmatch(value):
            return _BAD, "", ""
        return _ITEM, "", value
    key, colon, rest = line.partition(":")
    if not colon or (rest and rest[0] not in " \t") or not _KEY.fullmatch(key):
        return _BAD, "", ""
    value = rest.strip(" \t")
    if key not in _INDEXED_KEYS:
        if value and not _one_line_value(value):
            return _BAD, "", ""  # may span lines in ways only YAML can tell
        return _OTHER_KEY, key, ""
    if not value:
        return (_LIST_KEY if key in _LIST_KEYS else _EMPTY_KEY), key, ""
    if value in _NULLS or not _PLAIN.fullmatch(value):
        return _BAD, "", ""
    return _KEY_VALUE, key, value


def _simple_meta(yaml_text: str) -> dict[str, Any] | None:
    """The indexed keys of frontmatter written the simple way vaultmem writes it (``key: word``
    and block lists of words), or None when anything needs the real YAML parser.

    A key line is ``key:`` then nothing, or blanks and a value; an item line is ``- value``
    after blanks; a value is what is left once blanks are stripped from both ends. Lines are
    taken apart with str methods, and each different line once (``_LINES``): a cold build
    reads the frontmatter of every note."""
    data: dict[str, Any] = {}
    items: list[str] | None = None  # the list of an indexed list key whose items follow
    for line in yaml_text.split("\n"):
        if not line:
            continue
        indented = line[0] in " \t-"
        if indented and items is None:
            continue  # a continuation of a key the index does not read (or a blank line)
        kind, key, value = _LINES.get(line) or _read_line(line)
        if kind == _BLANK:
            continue
        if indented:
            if kind != _ITEM or items is None:
                return None
            items.append(value)
            continue
        if kind == _BAD:
            return None
        items = None
        if kind == _OTHER_KEY:
            continue
        if key in data:
            return None  # a duplicate key is invalid YAML: let the parser say so
        if kind == _LIST_KEY:
            data[key] = items = []
        else:
            data[key] = value if kind == _KEY_VALUE else None
    return data


def _read_line(line: str) -> tuple[int, str, str]:
    said = _line(line)
    if len(_LINES) < _LINES_KEPT:
        _LINES[line] = said
    return said


def load_yaml(yaml_text: str) -> Any:
    """The YAML of a frontmatter block read as ObsidianLoader reads it (libyaml when present);
    raises yaml.YAMLError (or ValueError/RecursionError) when invalid."""
    import yaml

    return yaml.load(yaml_text, Loader=_loader())


def read_meta(text: str) -> tuple[dict[str, Any] | None, str]:
    """(frontmatter dict, body) of a note; the dict is None when the YAML is invalid or not a
    mapping (the body is still returned so the note can be searched).

    Frontmatter in the simple form vaultmem writes is read by a line scanner that returns only
    the keys the index uses (type, project, updated, status, aliases, tags); anything else goes
    through the YAML parser and returns every key.
    """
    parts = fences.split(text)
    if not parts.has_frontmatter:
        return {}, text
    simple = _simple_meta(parts.yaml_text)
    if simple is not None:
        return simple, parts.body
    import yaml

    try:
        data = load_yaml(parts.yaml_text)
    except (yaml.YAMLError, ValueError, TypeError, RecursionError):
        return None, parts.body
    if data is None:
        return {}, parts.body
    if not isinstance(data, dict):
        return None, parts.body
    return data, parts.body


def _text_of(value: Any) -> str | None:
    if isinstance(value, str):
        return value  # the common case first: most values are words
    if value is None or isinstance(value, (dict, list)):
        return None
    if isinstance(value, (date, datetime)):
        return value.isoformat()[:10]
    return str(value)


def _strings(value: Any) -> list[str]:
    if isinstance(value, list):
        return [str(v) for v in value if v is not None and not isinstance(v, (dict, list))]
    text = _text_of(value)
    return [text] if text else []


def _path_kind(rel: str, namespace: str) -> tuple[str | None, str | None]:
    """(type, project) told by where a note lives, for notes without usable frontmatter."""
    parts = rel.split("/")
    if parts[0] != namespace or len(parts) < 3:
        return None, None
    if parts[1] == "global":
        kind = {"entities": "entity", "topics": "topic"}.get(parts[2])
        return kind, "global"
    if parts[1] == "projects" and len(parts) >= 4:
        project = parts[2]
        if parts[3] == "_index.md":
            return "project-index", project
        kind = {"entities": "entity", "sessions": "session", "archive": "session"}.get(parts[3])
        return kind, project
    return None, None


_BOM = "\ufeff".encode()


@dataclass(frozen=True)
class _Row:
    type: str | None
    project: str | None
    title: str
    updated: str | None
    status: str | None
    names: str  # the searchable title: file name and aliases
    tags: str
    body: str  # facts.searchable: no link targets, no comments


def _note_text(raw: bytes) -> str:
    """A note's bytes as text: bad bytes replaced, no leading BOM, "\n" line ends."""
    text = raw.decode("utf-8", errors="replace")
    # Asked of the bytes first: a BOM or "\r" decodes only from these very bytes (a replaced bad
    # byte never swallows one), and looking for one byte is a memchr, for two a slower scan.
    if raw.startswith(_BOM):
        text = text.lstrip("\ufeff")
    if b"\r" in raw:
        text = text.replace("\r\n", "\n")
    return text


def _public(text: str, body: str) -> str:
    """The ``body`` of a note ``text`` without its private spans (a span left open in the
    frontmatter keeps the body private too)."""
    if "<" not in text:  # no tag, no private text (one memchr rather than two slices and feeds)
        return body
    private = PrivateStream()
    private.feed(text[: len(text) - len(body)])
    return private.feed(body)


def public_body(raw: bytes) -> str:
    """The body of a note's bytes as the index reads it, private spans removed, Markdown kept
    (wikilinks too: ``vaultmem.notes.facts`` reads the facts of it)."""
    text = _note_text(raw)
    return _public(text, read_meta(text)[1])


def _row(rel: str, raw: bytes, namespace: str) -> _Row:
    """What the index keeps of a note; never raises on bad bytes or bad YAML."""
    text = _note_text(raw)
    meta, body = read_meta(text)
    path_type, path_project = _path_kind(rel, namespace)
    stem = rel.rsplit("/", 1)[-1][:-3]
    meta = meta or {}
    # Private text is never indexed: not searchable, not in a snippet, not in the file.
    body = _public(text, body)
    aliases = _strings(meta.get("aliases"))
    return _Row(
        type=_text_of(meta.get("type")) or path_type,
        project=_text_of(meta.get("project")) or path_project,
        title=strip_private(stem),
        updated=_text_of(meta.get("updated")),
        status=_text_of(meta.get("status")),
        names=strip_private(" ".join([stem, *aliases])),
        tags=strip_private(" ".join(_strings(meta.get("tags")))),
        # What a reader sees: words inside a link's path or a comment never match.
        body=facts.searchable(body),
    )


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


def _connect(path: Path) -> sqlite3.Connection:
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


def _foreign(conn: sqlite3.Connection) -> bool:
    """Whether the index holds an object vaultmem's schema does not make (a trigger, a view,
    a table changed): an index vaultmem did not build, rebuilt rather than trusted."""
    found = set(conn.execute("SELECT type, name, tbl_name, sql FROM sqlite_master"))
    return bool(found) and found != _schema_objects()


def _linked(path: Path) -> bool:
    """Whether the index or one of its side files is a symlink (sqlite would write through)."""
    return any(os.path.islink(str(path) + suffix) for suffix in ("", "-wal", "-shm", "-journal"))


def _open_for_write(path: Path) -> tuple[sqlite3.Connection, bool]:
    """A connection to a usable index, creating or rebuilding it; (conn, rebuilt)."""
    rebuilt = not path.exists()
    for attempt in range(2):
        conn = _connect(path)
        try:
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            if version == SCHEMA_VERSION and _foreign(conn):
                raise sqlite3.DatabaseError("file is not a database vaultmem built")
            if version != SCHEMA_VERSION:
                # Empty (new) or another version: start from nothing.
                conn.executescript("DROP TABLE IF EXISTS notes; DROP TABLE IF EXISTS notes_fts;")
                rebuilt = True
            conn.execute("PRAGMA journal_mode = WAL")
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
    timeout: float = DEFAULT_WAIT_S,
    folders: Sequence[str] | None = None,
) -> RefreshStats:
    """Bring the index up to date with the notes on disk (see the module docstring).

    ``wait=False``: when another process is refreshing, return at once with ``skipped=True``.
    ``folders`` (vault-relative): refresh only the notes inside them, so a search scoped to one
    project costs what that project costs, not what the vault does; rows of other notes stay
    as the last refresh of their folder left them.
    """
    started = time.perf_counter()
    try:
        machine.ensure_state_dir(vault.state_dir)
    except OSError as err:
        raise SearchIndexError(f"cannot create {vault.state_dir}: {err.strerror}") from None
    with _refresh_lock(vault, wait, timeout) as held:
        if not held:
            return RefreshStats(0, 0, 0, 0, 0, _ms(started), skipped=True)
        path = index_path(vault)
        try:
            return _refresh_once(vault, path, started, folders)
        except sqlite3.DatabaseError as err:
            if not _is_corrupt(err):
                raise SearchIndexError(f"search index: {err}", path=path) from None
            # Corruption found past the header (mid-table): rebuild from scratch, once.
            _move_aside(path)
            try:
                stats = _refresh_once(vault, path, started, folders)
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
    vault: Vault, path: Path, started: float, folders: Sequence[str] | None
) -> RefreshStats:
    """A missing index is built in a file of its own without a journal (nothing to roll back:
    a failed build is just deleted), switched to WAL, synced and renamed into place, so the
    notes are written once instead of through the WAL, and a search sees no index or a whole
    one."""
    build = path.with_name(path.name + ".build")
    for stale in (build, Path(str(build) + "-journal")):
        stale.unlink(missing_ok=True)
    conn = _connect(build)
    try:
        conn.execute(f"PRAGMA page_size = {BUILD_PAGE_SIZE}")  # before the file's first page
        conn.execute("PRAGMA journal_mode = OFF")
        conn.execute("PRAGMA synchronous = OFF")
        conn.executescript(_SCHEMA)
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        conn.execute("BEGIN IMMEDIATE")
        _fts_automerge(conn, BUILD_AUTOMERGE)
        counts = _sync(conn, vault, folders)
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
    vault: Vault, path: Path, started: float, folders: Sequence[str] | None
) -> RefreshStats:
    if _linked(path):
        _move_aside(path)  # the link itself is moved; nothing is written through it
    if not path.exists():
        return _build_aside(vault, path, started, folders)
    conn, rebuilt = _open_for_write(path)
    try:
        conn.execute("BEGIN IMMEDIATE")
        try:
            counts = _sync(conn, vault, folders)
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


def _known(
    conn: sqlite3.Connection, folders: Sequence[str] | None
) -> dict[str, tuple[int, int, int, str]]:
    """rel -> (id, mtime_ns, size, sha256) of the rows of the notes in ``folders`` (all: None)."""
    query = "SELECT id, rel, mtime_ns, size, sha256 FROM notes"
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
    return {rel: (row_id, mtime_ns, size, sha) for row_id, rel, mtime_ns, size, sha in rows}


def _listing(vault: Vault, folders: Sequence[str] | None) -> list[str]:
    if folders is None:
        return list(vault.iter_notes())
    found: dict[str, None] = {}  # folders may overlap: each note once
    for folder in folders:
        found.update(dict.fromkeys(vault.iter_notes(folder)))
    return list(found)


def _read_note(path: str) -> tuple[os.stat_result, bytes]:
    """The fstat and bytes of an open note: mtime and size of the very bytes read, so a write
    racing this one is seen as a change by the next refresh.

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
    conn: sqlite3.Connection, vault: Vault, folders: Sequence[str] | None = None
) -> tuple[int, int, int, int, int]:
    """Bring the rows of the notes in ``folders`` (every note: None) up to date."""
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
    touched: list[tuple[int, int, int]] = []  # same bytes, new mtime/size
    updates: list[tuple[Any, ...]] = []  # changed notes: their notes row
    fts_deletes: list[tuple[int]] = []
    for rel in _listing(vault, folders):
        full = root + rel
        old = known.get(rel)
        if old is not None:
            try:
                st = os.stat(full)
            except OSError:
                continue  # gone since the listing: dropped below like any deleted note
            if (old[1], old[2]) == (st.st_mtime_ns, st.st_size):
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
        if old is not None and old[3] == sha:
            touched.append((fst.st_mtime_ns, fst.st_size, old[0]))
            continue
        row = _row(rel, raw, namespace)
        values = (
            fst.st_mtime_ns,
            fst.st_size,
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
    conn.executemany("UPDATE notes SET mtime_ns = ?, size = ? WHERE id = ?", touched)
    conn.executemany("DELETE FROM notes WHERE id = ?", gone)
    conn.executemany("DELETE FROM notes_fts WHERE rowid = ?", gone + fts_deletes)
    conn.executemany(
        "UPDATE notes SET mtime_ns = ?, size = ?, sha256 = ?, type = ?, project = ?, "
        "title = ?, updated = ?, status = ? WHERE id = ?",
        updates,
    )
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
        "INSERT INTO notes (id, mtime_ns, size, sha256, type, project, title, updated, "
        "status, rel) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        rows,
    )
    conn.executemany(_INSERT_TEXTS, texts)
    count = len(rows)
    rows.clear()
    texts.clear()
    return count


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
SEARCH_SECONDS = 10.0  # a search is interrupted past this (a hostile index cannot hang recall)


def open_reader(vault: Vault) -> sqlite3.Connection | None:
    """A connection to read the index with, or None when there is no index yet."""
    path = index_path(vault)
    if not path.exists():
        return None
    if _linked(path):
        raise SearchIndexError("the index is a symlink; a refresh rebuilds it", path=path)
    conn = _connect(path)
    deadline = time.monotonic() + SEARCH_SECONDS
    # Checked every few thousand steps: a search past its time is interrupted, never hangs.
    conn.set_progress_handler(lambda: int(time.monotonic() > deadline), 10_000)
    try:
        foreign = _foreign(conn)
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
    do not exist yet; a bad expression or a broken index is a SearchIndexError."""
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
