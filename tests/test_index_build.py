"""The cold index build's fast paths (issue 14) give what the slow ones gave.

- ``fences.split`` searches for the closing fence: it finds what the line-by-line loop found.
- ``indexrows._simple_meta`` takes lines apart with str methods: it reads what the regex reader read.
- ``indexrows._note_text`` asks the bytes whether a BOM or "\\r" is there: the same text for any bytes.
- A cold build (16 KiB pages, FTS5 automerge 16 while it runs) searches exactly like an index
  filled note by note through the incremental path on SQLite's default pages: same hits, same
  order, same scores and snippets, for words, prefixes, phrases and column filters.
"""

from __future__ import annotations

import datetime as dt
import re
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from property_kit import examples

from bench.generate import GeneratedVault, generate
from vaultmem.notes import fences
from vaultmem.search import index, indexquery, indexrows
from vaultmem.store.vault import Vault

TODAY = dt.date(2026, 11, 22)

# -- the readers as they were before the fast paths (the reference) -----------------------------

_OLD_OPEN_FENCE = re.compile(r"---[ \t\r]*")
_OLD_CLOSE_FENCE = re.compile(r"(?:---|\.\.\.)[ \t\r]*")


def _old_split(text: str) -> fences.Split:
    end = text.find("\n")
    if end >= 0 and _OLD_OPEN_FENCE.fullmatch(text, 0, end):
        yaml_from = start = end + 1
        line = 1
        while start < len(text):
            end = text.find("\n", start)
            line_end = len(text) if end < 0 else end
            if _OLD_CLOSE_FENCE.fullmatch(text, start, line_end):
                return fences.Split(True, text[yaml_from:start], 1, line + 1,
                                    min(line_end + 1, len(text)), text)
            if end < 0:
                break
            start = end + 1
            line += 1
    return fences.Split(False, "", 0, 0, 0, text)


_OLD_KEY_LINE = re.compile(r"([A-Za-z_][\w-]*):(?:[ \t]+(.*?))?[ \t]*")
_OLD_ITEM_LINE = re.compile(r"[ \t]*- (.*?)[ \t]*")


def _old_simple_meta(yaml_text: str) -> dict[str, Any] | None:
    data: dict[str, Any] = {}
    current: str | None = None
    for line in yaml_text.split("\n"):
        if not line.strip():
            continue
        if line[0] in " \t-":
            if current is None:
                continue
            item = _OLD_ITEM_LINE.fullmatch(line)
            if item is None or not indexrows._PLAIN.fullmatch(item.group(1)) or (
                item.group(1) in indexrows._NULLS
            ):
                return None
            data[current].append(item.group(1))
            continue
        m = _OLD_KEY_LINE.fullmatch(line)
        if m is None:
            return None
        key, value = m.group(1), m.group(2) or ""
        current = None
        if key not in indexrows._INDEXED_KEYS:
            if value and not indexrows._one_line_value(value):
                return None
            continue
        if key in data:
            return None
        if not value:
            data[key] = [] if key in indexrows._LIST_KEYS else None
            current = key if key in indexrows._LIST_KEYS else None
            continue
        if not indexrows._PLAIN.fullmatch(value) or value in indexrows._NULLS:
            return None
        data[key] = value
    return data


def _old_text(raw: bytes) -> str:
    return raw.decode("utf-8", errors="replace").lstrip("\ufeff").replace("\r\n", "\n")


# -- fences.split ---------------------------------------------------------------------------------

_FENCE_LINES = st.sampled_from([
    "---", "--- ", "---\t\r", "---\r", "...", "... ", "....", "----", " ---", "-- -", "x---",
    "a: 1", "", " ", "\r", "body", "---x", "\x85", "\u2028---",
])


@settings(max_examples=examples(600), deadline=None)
@given(st.lists(_FENCE_LINES, max_size=8), st.booleans())
def test_split_finds_what_the_line_by_line_split_found(lines: list[str], newline: bool) -> None:
    text = "\n".join(lines) + ("\n" if newline else "")
    assert fences.split(text) == _old_split(text)


def test_split_on_the_generated_notes(generated: GeneratedVault) -> None:
    for rel in generated.notes:
        text = (generated.root / rel).read_text(encoding="utf-8")
        assert fences.split(text) == _old_split(text), rel


# -- _simple_meta ---------------------------------------------------------------------------------

_GOOD_KEYS = st.sampled_from([
    "type", "project", "updated", "status", "tags", "aliases", "created", "session_ids", "x-y",
])
_ODD_KEYS = st.sampled_from(["_k", "1bad", "é", "Type", "tags ", "a b", ""])
_KEYS = st.one_of(_GOOD_KEYS, _GOOD_KEYS, _ODD_KEYS)
# Mostly values the fast path accepts (a line it refuses ends the reading for both readers).
_WORDS = st.sampled_from([
    "entity", "session", "demo-app", "claude/entity", "2026-01-01", "é.b/c+d", "a b", "x1",
    "null", "Null", "NULL", "~", "'q'", '"dq"', "[a, b]",
])
_ODD_VALUES = st.one_of(
    st.sampled_from([
        "{a: 1}", "|", ">", "&x y", "*x", "a #c", "a: b", "x\ty", "a  b", " a", "a ", "\t", "",
        "[[Link|Alias]]", '"[[Link|Alias]]"', "- x", "'open", "[open",
    ]),
    st.text(alphabet="ab :#'\"-[]{}&*!|>\t\r\x0c\x85\u2028é.0/", max_size=8),
)
_VALUES = st.one_of(_WORDS, _WORDS, _WORDS, _ODD_VALUES)
_META_LINE = st.one_of(
    st.tuples(_KEYS, st.sampled_from([": ", ": ", ":", ":  ", ":\t", "\t: "]), _VALUES).map(
        lambda kv: kv[0] + kv[1] + kv[2]),
    st.sampled_from(["", " ", "\t", "\r", "\x0c", "# comment", "key:value", "  more", "-"]),
)
_ITEM = st.tuples(st.sampled_from(["  ", "  ", "", "\t", "    "]),
                  st.sampled_from(["- ", "- ", "-  ", "-"]), _VALUES).map(
    lambda iv: iv[0] + iv[1] + iv[2])
# A key and the items under it, so list items meet the keys that read them.
_LIST_BLOCK = st.tuples(
    st.sampled_from(["tags:", "aliases:", "session_ids:", "tags: ", "type:", "x:"]),
    st.lists(_ITEM, min_size=1, max_size=3),
).map(lambda kb: "\n".join([kb[0], *kb[1]]))
_READ: list[bool] = []  # whether each example was read by the fast path (not None)


@settings(max_examples=examples(1500), deadline=None)
@given(st.lists(st.one_of(_META_LINE, _LIST_BLOCK), max_size=6))
def test_simple_meta_reads_what_the_regex_reader_read(lines: list[str]) -> None:
    yaml_text = "".join(line + "\n" for line in lines)
    fast = indexrows._simple_meta(yaml_text)
    assert fast == _old_simple_meta(yaml_text)
    _READ.append(fast is not None)


def test_the_examples_reach_both_outcomes() -> None:
    if not _READ:
        pytest.skip("run with the test above")
    assert 0.1 < sum(_READ) / len(_READ) < 0.9


# -- note text ------------------------------------------------------------------------------------

_RAW_PIECES = st.sampled_from([
    b"\xef\xbb\xbf", b"\r\n", b"\r", b"\n", b"---\n", b"type: entity\n", b"tags:\n  - a\n",
    b"\xe2\x0d", b"\xff", b"caf\xc3\xa9", b"<private>s</private>", b"<private>", b"word ",
    b"\xef\xbb", b"\xbf",
])


@settings(max_examples=examples(600), deadline=None)
@given(st.lists(_RAW_PIECES, max_size=10))
def test_note_text_is_the_text_decoded_before(pieces: list[bytes]) -> None:
    raw = b"".join(pieces)
    assert indexrows._note_text(raw) == _old_text(raw)


def test_read_note_reads_every_byte(tmp_path: Path) -> None:
    for size in (0, 1, 4096, 3_000_001):
        path = tmp_path / f"n{size}.md"
        data = bytes(range(256)) * (size // 256) + b"x" * (size % 256)
        path.write_bytes(data)
        st, raw = index._read_note(str(path))
        assert raw == data and st.st_size == size
    with pytest.raises(OSError):
        index._read_note(str(tmp_path))  # a folder is not a note
    with pytest.raises(OSError):
        index._read_note(str(tmp_path / "missing.md"))


# -- the cold build against the note-by-note path --------------------------------------------------

ODD_NOTES: dict[str, bytes] = {
    "claude/projects/p0/entities/Crlf.md": (
        b"---\r\ntype: entity\r\ntags:\r\n  - crlfword\r\n---\r\n# Crlf\r\n\r\nwindows lines\r\n"),
    "claude/projects/p0/entities/Bom.md": b"\xef\xbb\xbf---\ntype: entity\n---\nbommed text\n",
    "claude/projects/p0/entities/Latin.md": b"caf\xe9 r\xe9sum\xe9 retry\n",
    "claude/projects/p0/entities/Yaml.md": (
        b"---\ntype: entity\naliases: [Other Name, Third]\ntags: [x, y]\n---\nflow lists\n"),
    "claude/projects/p0/entities/Private.md": (
        b"---\ntype: entity\n---\nshown <private>hiddenword</private> retry\n"),
    "claude/projects/p0/entities/Open.md": b"---\ntype: entity\nnote: <private>\n---\nsecret\n",
    "claude/global/topics/Caf\xc3\xa9.md": b"# Caf\xc3\xa9\n\nr\xc3\xa9sum\xc3\xa9 cache retry\n",
}

QUERIES = [
    '"retry"', '"timeout"', '"cache" OR "deploy"', "retr*", "conf*", '"login flow"',
    '"pool" "exhausted"', "title: retry", "tags: crlfword", '"cafe"', '"resume"', "NEAR(cache lock)",
    '"bommed"', '"hiddenword"', '"secret"', '"other name"', '"windows lines"', "deploy NOT cache",
]


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> GeneratedVault:
    g = generate(tmp_path_factory.mktemp("build") / "v", notes=800, seed=11, projects=5)
    for rel, raw in ODD_NOTES.items():
        (g.root / rel).parent.mkdir(parents=True, exist_ok=True)
        (g.root / rel).write_bytes(raw)
    return g


def _searches(vault: Vault, g: GeneratedVault) -> list[list[tuple[Any, ...]]]:
    found = []
    for query in QUERIES + [f'"{a.query}"' for a in g.answers]:
        for projects in (None, ("p0", "global")):
            hits = indexquery.search(vault, query, current_project="p0", today=TODAY,
                                projects=projects, limit=50)
            found.append([(h.rel, h.title, h.type, h.project, h.updated, h.status, h.snippet,
                           h.bm25, h.score) for h in hits])
    return found


def _rows(vault: Vault) -> list[tuple[Any, ...]]:
    with sqlite3.connect(index.index_path(vault)) as conn:
        return list(conn.execute(
            "SELECT n.id, n.rel, n.mtime_ns, n.size, n.sha256, n.type, n.project, n.title, "
            "n.updated, n.status, f.title, f.tags, f.body FROM notes AS n JOIN notes_fts AS f "
            "ON f.rowid = n.id ORDER BY n.id"))


def _pragma(vault: Vault, sql: str) -> Any:
    conn = sqlite3.connect(index.index_path(vault))
    try:
        return conn.execute(sql).fetchone()[0]
    finally:
        conn.close()


def test_cold_build_searches_like_the_note_by_note_index(
    generated: GeneratedVault, monkeypatch: pytest.MonkeyPatch
) -> None:
    vault = Vault(generated.root)
    index.index_path(vault).unlink(missing_ok=True)
    with monkeypatch.context() as patch:
        patch.setattr(index, "WRITE_BATCH", 97)  # written in batches, the last one short
        cold = index.refresh(vault)
    assert cold.rebuilt and cold.reindexed == len(generated.notes) + len(ODD_NOTES)
    assert _pragma(vault, "PRAGMA page_size") == index.BUILD_PAGE_SIZE
    assert _pragma(vault, "SELECT v FROM notes_fts_config WHERE k = 'automerge'") == (
        index.FTS5_AUTOMERGE)  # set back: later refreshes merge as FTS5 does by default
    assert _pragma(vault, "PRAGMA journal_mode") == "wal"
    built, rows = _searches(vault, generated), _rows(vault)

    # The path before the aside build: an existing (here empty, unversioned) file on SQLite's
    # default pages, filled through the incremental refresh in one batch.
    index.index_path(vault).unlink()
    sqlite3.connect(index.index_path(vault)).close()
    slow = index.refresh(vault)
    assert slow.rebuilt and slow.reindexed == cold.reindexed
    assert _pragma(vault, "PRAGMA page_size") == 4096
    assert _rows(vault) == rows
    assert _searches(vault, generated) == built
    assert sum(map(len, built)) > 200  # the queries find things
    assert not any("hiddenword" in str(hit) or "secret" in str(hit) for hits in built
                   for hit in hits)


def test_an_edit_after_a_cold_build_is_found_as_before(generated: GeneratedVault) -> None:
    vault = Vault(generated.root)
    index.index_path(vault).unlink(missing_ok=True)
    index.refresh(vault)
    rel = generated.notes[3]
    path = generated.root / rel
    path.write_text(path.read_text(encoding="utf-8") + "\nquokkaword appears\n", encoding="utf-8")
    assert index.refresh(vault).reindexed == 1
    hits = indexquery.search(vault, '"quokkaword"', current_project="p0", today=TODAY)
    assert [h.rel for h in hits] == [rel]
    conn = sqlite3.connect(index.index_path(vault))
    try:
        conn.execute("INSERT INTO notes_fts(notes_fts) VALUES('integrity-check')")
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    finally:
        conn.close()


def test_the_line_cache_stays_bounded() -> None:
    for i in range(indexrows._LINES_KEPT + 50):
        assert indexrows._simple_meta(f"type: entity\ncreated: 2026-01-{i}\ntags:\n  - t{i}\n") == {
            "type": "entity", "tags": [f"t{i}"]}
    assert len(indexrows._LINES) <= indexrows._LINES_KEPT


def test_new_changed_and_deleted_notes_in_batches_index_as_a_cold_build(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    g = generate(tmp_path / "v", notes=300, seed=3, projects=3)
    vault = Vault(g.root)
    index.refresh(vault)
    for i, rel in enumerate(g.notes[:120]):  # new notes: three batches and a short one
        text = (g.root / rel).read_text(encoding="utf-8")
        (g.root / rel).with_name(f"copy-{i}.md").write_text(text + f"\nnewword{i}\n")
    for rel in g.notes[150:160]:
        path = g.root / rel
        path.write_text(path.read_text(encoding="utf-8") + "\nchangedword <private>hid</private>\n")
    for rel in g.notes[200:210]:
        (g.root / rel).unlink()
    monkeypatch.setattr(index, "WRITE_BATCH", 40)
    stats = index.refresh(vault)
    assert (stats.reindexed, stats.deleted) == (130, 10)
    incremental = _searches(vault, g), sorted(row[1:] for row in _rows(vault))
    assert len(indexquery.search(vault, '"changedword"', current_project="p0", today=TODAY,
                            limit=50)) == 10
    index.index_path(vault).unlink()
    index.refresh(vault)
    assert (_searches(vault, g), sorted(row[1:] for row in _rows(vault))) == incremental
