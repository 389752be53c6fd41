"""``vaultmem doctor --fix``: merge sync-conflict copies into their notes, archive the copies.

Obsidian Sync, Syncthing and Dropbox keep both versions of a note two machines changed at once:
the note and a conflict copy beside it (``X.sync-conflict-20261123-101500-ABC.md``,
``X (conflicted copy 2026-11-23).md``, ``X (1).md``). Each copy is merged into its note with
notemerge, two-way (an empty base: everything either version has is kept, each item once), and
then moved, never deleted, to ``.vaultmem/conflicts/<YYYYMMDDTHHMMSS>/<its vault path>``:
out of Obsidian's sight (no duplicate notes or block ids), never synced or committed.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Literal

from vaultmem.errors import VaultmemError
from vaultmem.memory.doctor import original_of
from vaultmem.memory.notemerge import NotMergeable, merge
from vaultmem.store import machine, safefs
from vaultmem.store.vault import Vault

CONFLICTS_DIR = "conflicts"


@dataclass(frozen=True)
class SyncFix:
    """What happened to one conflict copy."""

    copy: str
    original: str | None
    status: Literal["merged", "skipped"]
    detail: str  # where the copy went, or why it was left
    conflicts: int = 0  # places both versions changed differently (kept in callouts)

    def __str__(self) -> str:
        if self.status == "merged":
            extra = f"; {self.conflicts} [!conflict] callout(s) to resolve" if self.conflicts else ""
            return f"{self.copy}: merged into {self.original}, copy moved to {self.detail}{extra}"
        return f"{self.copy}: left as it is ({self.detail})"

    def to_json(self) -> dict[str, object]:
        """JSON-ready."""
        return {"copy": self.copy, "original": self.original, "status": self.status,
                "detail": self.detail, "conflicts": self.conflicts}


def fix_sync_conflicts(vault: Vault, copies: Iterable[str], *, now: datetime) -> list[SyncFix]:
    """Merge each conflict copy (vault-relative) into its note and archive it."""
    stamp = now.strftime("%Y%m%dT%H%M%S")
    return [_fix(vault, rel, stamp) for rel in copies]


def _fix(vault: Vault, rel: str, stamp: str) -> SyncFix:
    original = original_of(rel)
    if not rel.lower().endswith(".md"):
        return SyncFix(rel, original, "skipped", "not a note: compare it by hand")
    if original is None or not vault.exists(original):
        return SyncFix(rel, original, "skipped", "its original note is not there")
    try:
        note, copy = vault.read(original), vault.read(rel)
        text = merge("", note.text, copy.text, path=original)
    except NotMergeable as err:
        return SyncFix(rel, original, "skipped", f"cannot merge: {err.message}")
    except VaultmemError as err:
        return SyncFix(rel, original, "skipped", err.message)
    written = vault.write_text(original, text.text, fmt=note.fmt, expected=note.fingerprint)
    if written.status == "conflicted":
        return SyncFix(rel, original, "skipped", "the note changed meanwhile: run it again")
    dest = _archive(vault, rel, stamp)
    return SyncFix(rel, original, "merged", dest, text.conflicts)


def _archive(vault: Vault, rel: str, stamp: str) -> str:
    """Move the copy under ``.vaultmem/conflicts/<stamp>/``; returns its new vault path."""
    base = machine.own_dir(vault.state_dir, CONFLICTS_DIR)
    *folders, name = rel.split("/")
    batch, n = stamp, 1
    while os.path.lexists(base / batch / rel):
        n += 1
        batch = f"{stamp}-{n}"
    # Real folders only: a symlink on the way would move the copy out of the vault.
    dest = safefs.real_dirs(base, batch, *folders) / name
    os.replace(vault.abspath(rel), dest)
    return Path(os.path.relpath(dest, vault.root)).as_posix()
