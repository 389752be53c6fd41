"""atomic.py: the one atomic file replace (notes, state.json, settings.json)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from vaultmem.store.atomic import TEMP_SUFFIX, replace_file


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_replaces_the_bytes_with_the_given_mode_and_leaves_no_temp_file(tmp_path: Path) -> None:
    dest = tmp_path / "note.md"
    dest.write_bytes(b"old")
    replace_file(dest, b"new", 0o640)
    assert dest.read_bytes() == b"new" and _mode(dest) == 0o640
    assert [p.name for p in tmp_path.iterdir()] == ["note.md"]


def test_a_new_file_gets_0644_less_the_umask(tmp_path: Path) -> None:
    old = os.umask(0o027)
    try:
        replace_file(tmp_path / "new.md", b"x")
    finally:
        os.umask(old)
    assert _mode(tmp_path / "new.md") == 0o640


def test_what_stops_it_before_the_replace_leaves_the_file_and_no_temp(tmp_path: Path) -> None:
    dest = tmp_path / "note.md"
    dest.write_bytes(b"old")

    def changed_meanwhile() -> None:
        assert any(p.name.endswith(TEMP_SUFFIX) for p in tmp_path.iterdir())  # durable by now
        raise RuntimeError("moved")

    with pytest.raises(RuntimeError, match="moved"):
        replace_file(dest, b"new", before_replace=changed_meanwhile)
    assert dest.read_bytes() == b"old"
    assert [p.name for p in tmp_path.iterdir()] == ["note.md"]


def test_a_missing_folder_is_an_oserror_and_writes_nothing(tmp_path: Path) -> None:
    with pytest.raises(OSError):
        replace_file(tmp_path / "nope" / "note.md", b"new")
    assert list(tmp_path.iterdir()) == []


def test_a_write_removes_stale_temp_files_of_killed_writes_only(tmp_path: Path) -> None:
    import time

    from vaultmem.store.atomic import STALE_TEMP_SECONDS

    old = time.time() - STALE_TEMP_SECONDS - 5
    stale = tmp_path / ".Auth.md.ab12cd34.vmtmp"  # a killed write's
    fresh = tmp_path / ".Auth.md.zz99yy88.vmtmp"  # a write in progress
    foreign = tmp_path / ".Auth.md.backup.vmtmp.txt"  # not ours
    person = tmp_path / "notes.vmtmp"  # not ours either (not hidden, no random part)
    for path in (stale, fresh, foreign, person):
        path.write_bytes(b"x")
    for path in (stale, foreign, person):
        os.utime(path, (old, old))
    replace_file(tmp_path / "Auth.md", b"new")
    assert not stale.exists()
    assert fresh.exists() and foreign.exists() and person.exists()
