"""flux: a note an editor is saving right now is read once it is still; a save into the file a
replace took away is redone on."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import pytest

from vaultmem.notes.patch import SectionPatch
from vaultmem.store import atomic, flux
from vaultmem.store.vault import Vault

REL = "notes/n.md"
APPEND = SectionPatch(("A",), "append", "- vaultmem")


def _note(vault: Vault, text: str) -> Path:
    path = vault.root / REL
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_a_note_only_vaultmem_wrote_never_waits(vault_root: Path) -> None:
    vault = Vault(vault_root)
    path = _note(vault, "## A\n")
    vault.update(REL, [APPEND])  # the first write may wait: the note was just made by hand
    started = time.monotonic()
    assert not flux.settle(path, flux.recorded(vault._marker(REL)))
    vault.update(REL, [SectionPatch(("A",), "append", "- again")])
    assert time.monotonic() - started < flux.SETTLE_SECONDS / 2


def test_a_half_saved_note_is_read_once_the_save_ends(vault_root: Path) -> None:
    vault = Vault(vault_root)
    path = _note(vault, "## A\n\n- old\n")
    vault.update(REL, [APPEND])
    full = path.read_bytes() + b"- the person's line\n"

    def editor() -> None:
        with open(path, "r+b") as f:
            f.truncate()
            f.flush()
            time.sleep(0.05)  # vaultmem's write comes in here
            f.write(full)

    thread = threading.Thread(target=editor)
    thread.start()
    time.sleep(0.01)
    vault.update(REL, [SectionPatch(("A",), "append", "- second")])
    thread.join()
    text = path.read_text()
    assert text.count("- the person's line") == 1 and text.count("- second") == 1
    assert text.count("- old") == 1


def test_a_save_into_the_replaced_file_is_redone_on(
    vault_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    vault = Vault(vault_root)
    path = _note(vault, "## A\n\n- old\n")
    vault.update(REL, [APPEND])
    real_replace = os.replace
    fired = []

    def replace_after_a_save(src: str, dst: str) -> None:
        if not fired and str(dst) == os.path.realpath(path):
            fired.append(True)
            # The editor saves after vaultmem's last look: into the file about to be replaced.
            with open(dst, "r+b") as f:
                data = f.read() + b"- saved in the instant\n"
                f.seek(0)
                f.truncate()
                f.write(data)
        real_replace(src, dst)

    monkeypatch.setattr(atomic.os, "replace", replace_after_a_save)
    result = vault.update(REL, [SectionPatch(("A",), "append", "- third")])
    text = path.read_text()
    assert fired and result.status == "rebased"
    assert text.count("- saved in the instant") == 1 and text.count("- third") == 1


def test_a_replaced_file_written_moments_later_is_found_within_the_grace(tmp_path: Path) -> None:
    path = tmp_path / "note.md"
    path.write_bytes(b"old\n")
    fd = os.open(path, os.O_RDONLY)
    try:
        before = os.fstat(fd)

        def late_save() -> None:  # an editor that read the note before the replace
            time.sleep(0.03)
            with open(path, "r+b") as f:
                f.truncate()
                f.write(b"old\n- person line\n")

        writer = threading.Thread(target=late_save)
        writer.start()
        assert flux.orphaned(fd, before) is None  # looked at once: too early
        assert flux.orphaned(fd, before, grace=flux.QUIET_SECONDS) == b"old\n- person line\n"
        writer.join()
    finally:
        os.close(fd)



def test_a_replaced_file_is_watched_only_when_someone_else_wrote_it_recently(tmp_path: Path) -> None:
    path = tmp_path / "note.md"
    path.write_bytes(b"x\n")
    st = os.stat(path)
    now = st.st_mtime_ns + 1_000_000
    assert flux.grace(st, flux.stamp_of(st), now) == 0.0  # vaultmem's own last write
    busy = flux.busy_factor(os.getloadavg()[0], os.cpu_count() or 1)
    assert flux.grace(st, None, now) >= flux.QUIET_SECONDS  # a person's, just now
    assert flux.grace(st, None, now) <= flux.QUIET_SECONDS * max(busy, 1.0) * 1.5
    later = st.st_mtime_ns + int(flux.ACTIVE_SECONDS * 1e9) + 1
    assert flux.grace(st, None, later) == 0.0  # one a sync tool brought a while ago


def test_the_watch_of_a_replaced_file_stretches_with_the_run_queue_per_core() -> None:
    assert flux.busy_factor(0.3, 2) == 1.0  # idle: the quiet 0.1 s
    assert flux.busy_factor(2.0, 2) == 1.0  # one runnable process per core: still on time
    assert flux.busy_factor(6.0, 2) == 3.0  # three per core: the editor's step comes later
    assert flux.busy_factor(40.0, 2) == flux.BUSY_FACTOR_MAX  # bounded (hooks have budgets)
    assert flux.busy_factor(5.0, 0) == flux.BUSY_FACTOR_MAX  # no core count: one core
