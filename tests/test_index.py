"""The FTS5 index: incremental refresh, repair, concurrency (real processes)."""

from __future__ import annotations

import datetime as dt
import os
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from vaultmem.errors import InvalidYaml
from vaultmem.notes import frontmatter
from vaultmem.search import index, indexquery, indexrows
from vaultmem.store.vault import Vault

REPO = Path(__file__).resolve().parent.parent
CORPUS = Path(__file__).parent / "corpus" / "roundtrip"
TODAY = dt.date(2026, 11, 22)


def entity(name: str, body: str, *, project: str = "demo", updated: str = "2026-11-20") -> str:
    return (
        f"---\ntype: entity\nproject: {project}\ntags:\n  - claude/entity\n"
        f"created: 2026-01-01\nupdated: {updated}\nstatus: active\n---\n# {name}\n\n"
        f"## Overview\n\n{body}\n"
    )


def write(root: Path, rel: str, text: str | bytes) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, str):
        path.write_text(text, encoding="utf-8")
    else:
        path.write_bytes(text)
    return path


def find(vault: Vault, words: str, **kw: object) -> list[str]:
    match = " ".join(f'"{w}"' for w in words.split())
    hits = indexquery.search(vault, match, current_project="demo", today=TODAY, **kw)  # type: ignore[arg-type]
    return [h.rel for h in hits]


def env_with_repo() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", "")}


def test_fts5_is_available() -> None:
    conn = sqlite3.connect(":memory:")
    conn.execute(f"CREATE VIRTUAL TABLE t USING fts5(x, tokenize = '{index.TOKENIZER}')")


def test_refresh_indexes_new_changed_and_deleted_notes(vault_root: Path) -> None:
    vault = Vault(vault_root)
    a = "claude/projects/demo/entities/Auth Service.md"
    b = "claude/projects/demo/entities/Billing.md"
    write(vault_root, a, entity("Auth Service", "Tokens rotate every hour."))
    write(vault_root, b, entity("Billing", "Invoices go out monthly."))
    first = index.refresh(vault)
    assert (first.scanned, first.stat_changed, first.reread, first.reindexed) == (2, 2, 2, 2)
    assert first.rebuilt and not first.skipped
    assert find(vault, "tokens") == [a]

    again = index.refresh(vault)
    assert (again.scanned, again.stat_changed, again.reread, again.reindexed, again.deleted) == (
        2,
        0,
        0,
        0,
        0,
    )

    # Touched, same bytes: read again (stat moved) but not re-indexed (hash did not).
    st = os.stat(vault_root / a)
    os.utime(vault_root / a, ns=(st.st_atime_ns, st.st_mtime_ns + 5_000_000_000))
    touched = index.refresh(vault)
    assert (touched.stat_changed, touched.reread, touched.reindexed) == (1, 1, 0)

    write(vault_root, a, entity("Auth Service", "Sessions expire after a day."))
    changed = index.refresh(vault)
    assert (changed.reread, changed.reindexed) == (1, 1)
    assert find(vault, "tokens") == []
    assert find(vault, "sessions expire") == [a]

    (vault_root / b).unlink()
    gone = index.refresh(vault)
    assert (gone.scanned, gone.deleted) == (1, 1)
    assert find(vault, "invoices") == []


def test_a_bounded_refresh_leaves_a_note_over_the_bound_unread_and_its_row_kept(
        vault_root: Path) -> None:
    vault = Vault(vault_root)
    a = "claude/projects/demo/entities/Auth Service.md"
    big = "claude/projects/demo/entities/Pushed.md"
    write(vault_root, a, entity("Auth Service", "Tokens rotate every hour."))
    write(vault_root, big, entity("Pushed", "Pigeons carry the mail. " + "x" * 5000))
    bounded = index.refresh(vault, max_bytes=4096)  # a hook's refresh
    assert (bounded.scanned, bounded.reread, bounded.deleted) == (2, 1, 0)
    assert find(vault, "tokens") == [a] and find(vault, "pigeons") == []
    assert index.refresh(vault).reread == 1  # an unbounded one (recall) reads it
    assert find(vault, "pigeons") == [big]
    # Grown past the bound: a bounded refresh neither reads it nor drops the row it has.
    write(vault_root, big, entity("Pushed", "Ravens now. " + "y" * 9000))
    assert index.refresh(vault, max_bytes=4096).deleted == 0
    assert find(vault, "pigeons") == [big] and find(vault, "ravens") == []


def test_refresh_never_writes_notes(vault_root: Path) -> None:
    vault = Vault(vault_root)
    for i in range(5):
        write(vault_root, f"claude/projects/demo/entities/E{i}.md", entity(f"E{i}", f"word{i}"))
    before = {p: (p.stat().st_mtime_ns, p.read_bytes()) for p in vault_root.rglob("*.md")}
    index.refresh(vault)
    after = {p: (p.stat().st_mtime_ns, p.read_bytes()) for p in vault_root.rglob("*.md")}
    assert before == after
    assert (vault_root / ".vaultmem" / "index.sqlite").is_file()


def test_title_tags_and_metadata_are_indexed(vault_root: Path) -> None:
    vault = Vault(vault_root)
    rel = "claude/projects/demo/entities/Rate Limiter.md"
    text = entity("Rate Limiter", "Nothing special.").replace(
        "tags:\n", "aliases:\n  - Throttle\ntags:\n  - quotas\n"
    )
    write(vault_root, rel, text)
    index.refresh(vault)
    assert find(vault, "limiter") == [rel]
    assert find(vault, "throttle") == [rel]
    assert find(vault, "quotas") == [rel]
    hit = indexquery.search(vault, '"limiter"', current_project="demo", today=TODAY)[0]
    assert (hit.title, hit.type, hit.project, hit.updated, hit.status) == (
        "Rate Limiter",
        "entity",
        "demo",
        "2026-11-20",
        "active",
    )


def test_stemming_and_diacritics(vault_root: Path) -> None:
    vault = Vault(vault_root)
    rel = "notes/Cafe.md"
    write(vault_root, rel, "The café retries connections.\n")
    index.refresh(vault)
    assert find(vault, "cafe") == [rel]
    assert find(vault, "retry connection") == [rel]


def test_bad_notes_are_indexed_as_far_as_possible(vault_root: Path) -> None:
    vault = Vault(vault_root)
    bad_yaml = "claude/projects/demo/entities/Broken.md"
    write(vault_root, bad_yaml, "---\ntype: [entity\n---\nthe zephyrine body survives\n")
    latin1 = "claude/projects/demo/entities/Latin.md"
    write(vault_root, latin1, "caf\xe9 quixotic words\n".encode("latin-1"))
    stats = index.refresh(vault)
    assert stats.reindexed == 2
    assert find(vault, "zephyrine") == [bad_yaml]
    assert find(vault, "quixotic") == [latin1]
    # Type and project come from the path when the frontmatter cannot be read.
    hit = indexquery.search(vault, '"zephyrine"', current_project="demo", today=TODAY)[0]
    assert (hit.type, hit.project) == ("entity", "demo")


def test_ten_thousand_notes_one_change_rereads_one(tmp_path: Path) -> None:
    root = tmp_path / "big"
    folder = root / "claude" / "projects" / "big" / "sessions"
    folder.mkdir(parents=True)
    for i in range(10_000):
        (folder / f"n{i:05d}.md").write_text(
            f"---\ntype: session\nproject: big\nupdated: 2026-11-{1 + i % 28:02d}\n---\n"
            f"note {i} about item{i}\n",
            encoding="utf-8",
        )
    vault = Vault(root)
    first = index.refresh(vault)
    assert (first.scanned, first.reindexed) == (10_000, 10_000)
    path = folder / "n04242.md"
    path.write_text(path.read_text(encoding="utf-8") + "now mentions kumquat\n", encoding="utf-8")
    second = index.refresh(vault)
    assert (second.scanned, second.stat_changed, second.reread, second.reindexed) == (
        10_000,
        1,
        1,
        1,
    )
    assert find(vault, "kumquat") == ["claude/projects/big/sessions/n04242.md"]


def test_deleted_index_is_rebuilt(vault_root: Path) -> None:
    vault = Vault(vault_root)
    rel = "notes/A.md"
    write(vault_root, rel, "alpha words\n")
    index.refresh(vault)
    for suffix in ("", "-wal", "-shm"):
        Path(str(index.index_path(vault)) + suffix).unlink(missing_ok=True)
    stats = index.refresh(vault)
    assert stats.rebuilt and stats.reindexed == 1
    assert find(vault, "alpha") == [rel]


def test_a_refresh_with_nothing_new_leaves_the_index_file_as_it_was(vault_root: Path) -> None:
    """Every SessionStart refreshes the index: with nothing changed it writes nothing (no schema
    or version rewritten: each was a commit and a sync), and the index still answers."""
    vault = Vault(vault_root)
    write(vault_root, "notes/A.md", "alpha words\n")
    index.refresh(vault)
    path = index.index_path(vault)
    files = [Path(str(path) + suffix) for suffix in ("", "-wal")]
    before = [(p.read_bytes() if p.exists() else None) for p in files]
    stats = index.refresh(vault)
    assert (stats.reindexed, stats.rebuilt) == (0, False)
    assert [(p.read_bytes() if p.exists() else None) for p in files] == before
    assert find(vault, "alpha") == ["notes/A.md"]


def test_an_index_of_another_version_is_rebuilt_in_place(vault_root: Path) -> None:
    vault = Vault(vault_root)
    write(vault_root, "notes/A.md", "alpha words\n")
    index.refresh(vault)
    conn = sqlite3.connect(index.index_path(vault))
    conn.execute(f"PRAGMA user_version = {index.SCHEMA_VERSION + 1}")
    conn.close()
    stats = index.refresh(vault)
    assert stats.rebuilt and stats.reindexed == 1
    conn = sqlite3.connect(index.index_path(vault))
    assert conn.execute("PRAGMA user_version").fetchone()[0] == index.SCHEMA_VERSION
    conn.close()
    assert find(vault, "alpha") == ["notes/A.md"]


def test_garbage_index_is_moved_aside_and_rebuilt(vault_root: Path) -> None:
    vault = Vault(vault_root)
    rel = "notes/A.md"
    write(vault_root, rel, "alpha words\n")
    index.refresh(vault)
    path = index.index_path(vault)
    for suffix in ("-wal", "-shm"):
        Path(str(path) + suffix).unlink(missing_ok=True)
    path.write_bytes(b"this is not a database at all " * 200)
    stats = index.refresh(vault)
    assert stats.rebuilt and stats.reindexed == 1
    assert find(vault, "alpha") == [rel]
    assert Path(str(path) + ".corrupt").read_bytes().startswith(b"this is not a database")


def test_index_corrupted_past_the_header_is_rebuilt(vault_root: Path) -> None:
    vault = Vault(vault_root)
    for i in range(300):
        write(vault_root, f"notes/N{i}.md", f"word{i} " * 200 + "\n")
    index.refresh(vault)
    path = index.index_path(vault)
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    data = bytearray(path.read_bytes())
    assert len(data) > 64 * 1024
    # Keep the header page, scribble over everything after it.
    data[4096:] = bytes((i * 7 + 3) % 256 for i in range(len(data) - 4096))
    path.write_bytes(bytes(data))
    write(vault_root, "notes/New.md", "freshword\n")
    stats = index.refresh(vault)
    assert stats.rebuilt
    assert find(vault, "freshword") == ["notes/New.md"]
    assert find(vault, "word7") == ["notes/N7.md"]


LOCK_HOLDER = textwrap.dedent(
    """
    import sys, filelock
    lock = filelock.FileLock(sys.argv[1])
    lock.acquire()
    print("held", flush=True)
    sys.stdin.readline()
    lock.release()
    """
)


def test_refresh_does_not_wait_when_another_process_refreshes(vault_root: Path) -> None:
    vault = Vault(vault_root)
    write(vault_root, "notes/A.md", "alpha\n")
    index.refresh(vault)
    lock = vault.state_dir / "locks" / index.LOCK_NAME
    holder = subprocess.Popen(
        [sys.executable, "-c", LOCK_HOLDER, str(lock)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        write(vault_root, "notes/B.md", "beta\n")
        stats = index.refresh(vault, wait=False)
        assert stats.skipped and stats.reindexed == 0
        # The stale index still answers.
        assert find(vault, "alpha") == ["notes/A.md"]
        assert find(vault, "beta") == []
    finally:
        assert holder.stdin is not None
        holder.stdin.write("\n")
        holder.stdin.flush()
        holder.wait(timeout=30)
    assert index.refresh(vault, wait=False).reindexed == 1
    assert find(vault, "beta") == ["notes/B.md"]


WORKER = textwrap.dedent(
    """
    import datetime, sys
    from pathlib import Path
    from vaultmem.search import index, indexquery, indexrows
    from vaultmem.store.vault import Vault
    vault = Vault(Path(sys.argv[1]))
    wait = sys.argv[2] == "wait"
    found = 0
    for round in range(6):
        index.refresh(vault, wait=wait)
        hits = indexquery.search(vault, '"common"', current_project="demo",
                            today=datetime.date(2026, 11, 22), limit=1000)
        found = max(found, len(hits))
    print(found)
    """
)


def test_concurrent_refreshes_and_searches_corrupt_nothing(vault_root: Path) -> None:
    vault = Vault(vault_root)
    for i in range(400):
        write(vault_root, f"notes/N{i:03d}.md", f"common note {i} unique{i}\n")
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", WORKER, str(vault_root), "wait" if w % 2 else "nowait"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env_with_repo(),
        )
        for w in range(4)
    ]
    # Meanwhile the notes keep changing.
    for i in range(0, 400, 7):
        write(vault_root, f"notes/N{i:03d}.md", f"common note {i} changed{i}\n")
    for i in range(400, 420):
        write(vault_root, f"notes/N{i:03d}.md", f"common note {i} unique{i}\n")
    for proc in procs:
        out, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err
        assert 0 <= int(out.strip()) <= 420
    final = index.refresh(vault)
    assert final.scanned == 420
    conn = sqlite3.connect(index.index_path(vault))
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        conn.execute("INSERT INTO notes_fts(notes_fts) VALUES('integrity-check')")
        rows = conn.execute("SELECT count(*) FROM notes").fetchone()[0]
        fts_rows = conn.execute("SELECT count(*) FROM notes_fts").fetchone()[0]
    finally:
        conn.close()
    assert rows == fts_rows == 420
    assert len(find(vault, "common", limit=1000)) == 420
    assert find(vault, "changed14") == ["notes/N014.md"]
    assert find(vault, "unique14") == []


def corpus_notes() -> list[Path]:
    return sorted(CORPUS.glob("*.md")) + sorted((CORPUS / "invalid").glob("*.md"))


@pytest.mark.parametrize("path", corpus_notes(), ids=lambda p: p.name)
def test_read_meta_agrees_with_the_frontmatter_parser(path: Path) -> None:
    text = path.read_bytes().decode("utf-8").lstrip("\ufeff").replace("\r\n", "\n")
    meta, _body = indexrows.read_meta(text)
    try:
        full = frontmatter.parse(text)
    except InvalidYaml:
        assert meta is None or not meta.keys() - indexrows._INDEXED_KEYS
        return
    assert meta is not None
    for key, value in meta.items():
        assert indexrows._text_of(full.get(key)) == indexrows._text_of(value) or full.get(key) == value


def test_simple_meta_falls_back_on_anything_unusual() -> None:
    assert indexrows._simple_meta("type: entity\nproject: demo\n") == {
        "type": "entity",
        "project": "demo",
    }
    for yaml_text in (
        "type: entity\ntype: session\n",  # duplicate key
        "type: 'quoted'\n",
        "type: entity # comment\n",
        "note: |\n  block\n",
        "tags: [a, b]\n",
        "status: ~\n",
        "# a comment\ntype: entity\n",
    ):
        assert indexrows._simple_meta(yaml_text) is None, yaml_text


def _index_bytes(vault: Vault) -> bytes:
    return b"".join(
        p.read_bytes() for p in vault.state_dir.glob(index.INDEX_FILE + "*") if p.is_file()
    )


def test_private_text_never_reaches_the_index_file(vault_root: Path) -> None:
    vault = Vault(vault_root)
    rel = "claude/projects/demo/entities/Auth.md"
    write(vault_root, rel, entity("Auth", "public words zebrafish"))
    index.refresh(vault)
    assert find(vault, "zebrafish") == [rel]
    # The same note, now with the word inside nested, unclosed and attribute-laden spans.
    body = (
        "public <private>a <private>b</private> zebrafish </private> shown\n"
        '<PRIVATE class="x">wombatcode</Private > and <private>kangaroopass'
    )
    write(vault_root, rel, entity("Auth", body).replace("  - claude/entity", "  - claude/entity\n  - '<private>tagsecret</private>'"))
    index.refresh(vault)
    assert find(vault, "shown") == [rel]
    for word in ("zebrafish", "wombatcode", "kangaroopass", "tagsecret"):
        assert find(vault, word) == [], word
    with sqlite3.connect(index.index_path(vault)) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    data = _index_bytes(vault)
    for word in (b"zebrafish", b"wombatcode", b"kangaroopass", b"tagsecret"):
        assert word not in data, word
