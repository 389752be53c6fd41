"""recall answers from an index that matches the notes: what changed behind the index's back
(same size, mtime set back; a copy that kept the mtime), what a killed refresh left, and what
another process was refreshing when the question came (the MCP tool), all with real files."""

from __future__ import annotations

import datetime as dt
import json
import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import filelock
import pytest
from typer.testing import CliRunner

from vaultmem import faults
from vaultmem.cli import app, reading  # noqa: F401  (registers the commands)
from vaultmem.search import index, recall
from vaultmem.serve import tools as mcptools
from vaultmem.store.config import Config, load_config
from vaultmem.store.vault import Vault

TODAY = dt.date(2026, 11, 22)
# Another process holding the index's refresh lock until its stdin closes.
HOLDER = (
    "import sys, filelock\n"
    "lock = filelock.FileLock(sys.argv[1]); lock.acquire()\n"
    "print('held', flush=True); sys.stdin.read()\n"
)
REL = "claude/projects/demo/entities/Auth.md"


def entity(fact: str) -> str:
    return ("---\ntype: entity\nproject: demo\nupdated: 2026-11-20\n---\n# Auth\n\n"
            f"## Gotchas & Troubleshooting\n\n- 2026-11-20 — {fact} ^vm-11111111\n")


OLD = entity("Tokens expire after an hour: refresh them early")
NEW = entity("Tokens expire after a month: refresh them early")  # the same size


def write(root: Path, rel: str, text: str) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def texts(vault: Vault, query: str, **kw: object) -> list[str]:
    found = recall.recall(vault, Config(vault=vault.root, project="demo"), query, today=TODAY,
                          **kw)  # type: ignore[arg-type]
    return [hit.text for hit in found.hits]


def test_old_and_new_have_the_same_size() -> None:
    assert len(OLD.encode()) == len(NEW.encode()) and OLD != NEW


def test_a_same_size_edit_whose_mtime_was_set_back_is_found(vault_root: Path) -> None:
    """A sync tool (or ``rsync -t``, ``touch -r``) writes the note in place and sets its mtime
    back: mtime and size are as the index recorded them, the text is not."""
    vault = Vault(vault_root)
    path = write(vault_root, REL, OLD)
    assert any("an hour" in t for t in texts(vault, "tokens expire"))
    before = os.stat(path)
    path.write_text(NEW, encoding="utf-8")
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert (os.stat(path).st_mtime_ns, os.stat(path).st_size) == (
        before.st_mtime_ns, before.st_size)
    found = texts(vault, "tokens expire")
    assert any("a month" in t for t in found) and not any("an hour" in t for t in found)
    assert texts(vault, "month")


def test_a_note_replaced_by_a_copy_keeping_its_mtime_is_found(vault_root: Path,
                                                               tmp_path: Path) -> None:
    """``cp -p`` / a restore from a backup: another file, same size, the old mtime."""
    vault = Vault(vault_root)
    path = write(vault_root, REL, OLD)
    assert texts(vault, "hour")
    copy = write(tmp_path, "copy.md", NEW)
    st = os.stat(path)
    os.utime(copy, ns=(st.st_atime_ns, st.st_mtime_ns))
    shutil.copy2(copy, tmp_path / "staged.md")
    os.replace(tmp_path / "staged.md", path)
    assert texts(vault, "month") and not texts(vault, "hour")


def test_a_refresh_killed_part_way_leaves_the_index_refreshable(vault_root: Path) -> None:
    """A hook's refresh that stops mid-way (its budget, a kill) writes nothing: the next recall
    reads the notes it did not index."""
    vault = Vault(vault_root)
    write(vault_root, REL, OLD)
    assert texts(vault, "hour")
    write(vault_root, REL, NEW)
    write(vault_root, "claude/projects/demo/entities/Cache.md",
          entity("Cache keys carry the tenant").replace("Auth", "Cache"))
    faults.arm("index:sync")
    try:
        with pytest.raises(faults.InjectedFault):
            index.refresh(vault, wait=False, max_bytes=index.HOOK_NOTE_BYTES)
    finally:
        faults.disarm("index:sync")
    assert texts(vault, "month") and texts(vault, "tenant") and not texts(vault, "hour")


def test_the_mcp_recall_waits_for_a_refresh_under_way(vault_root: Path) -> None:
    """Another process refreshing when the tool is called: the tool waits for it and reads
    the notes as they are, not the index as it was."""
    vault = Vault(vault_root)
    write(vault_root, REL, OLD)
    assert texts(vault, "hour")
    write(vault_root, REL, NEW)
    # Released by another thread: a lock of the process, not of the thread that took it.
    lock = filelock.FileLock(vault.state_dir / "locks" / index.LOCK_NAME, thread_local=False)
    lock.acquire()
    releaser = threading.Timer(1.0, lock.release)
    releaser.start()
    try:
        door = mcptools._Door(load_config(vault=str(vault_root), project="demo"))
        got = mcptools.recall(door, mcptools.RecallArguments(query="tokens expire"))
    finally:
        releaser.join()
    shown = [hit["text"] for hit in got["hits"]]
    assert any("a month" in t for t in shown) and not any("an hour" in t for t in shown)


def test_recall_says_when_it_answers_from_the_index_as_it_was(
        vault_root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Another process holds the refresh lock past recall's wait: recall answers from the old
    index and says so (one line on stderr, ``"stale": true`` in --json); a free lock: it does not."""
    vault = Vault(vault_root)
    write(vault_root, REL, OLD)
    assert texts(vault, "hour")
    write(vault_root, REL, NEW)
    monkeypatch.setattr(index, "DEFAULT_WAIT_S", 0.5)
    args = ["--vault", str(vault_root), "--project", "demo", "recall", "tokens expire", "--json"]
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(vault.state_dir / "locks" / index.LOCK_NAME)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        held = CliRunner().invoke(app, args)
    finally:
        holder.communicate("")
    assert held.exit_code == 0, held.stderr
    got = json.loads(held.stdout)
    assert got["stale"] is True
    assert [hit["text"] for hit in got["hits"] if "an hour" in hit["text"]]
    assert held.stderr.count("\n") == 1 and "index as it was" in held.stderr
    free = CliRunner().invoke(app, args)
    assert free.exit_code == 0 and free.stderr == ""
    got = json.loads(free.stdout)
    assert got["stale"] is False and any("a month" in hit["text"] for hit in got["hits"])
