"""``vaultmem doctor --fix``: merge sync-conflict copies into their notes, archive the copies.

Obsidian Sync, Syncthing and Dropbox keep both versions of a note two machines changed at once:
the note and a conflict copy beside it (``X.sync-conflict-20261123-101500-ABC.md``,
``X (conflicted copy 2026-11-23).md``, ``X (1).md``). Each copy is merged into its note with
notemerge, two-way (an empty base: everything either version has is kept, each item once), and
then moved, never deleted, to ``.vaultmem/conflicts/<YYYYMMDDTHHMMSS>/<its vault path>``:
out of Obsidian's sight (no duplicate notes or block ids), never synced or committed.

A copy is one only when its name and its content say so: the same Claude Code session, or
the same properties but those every write changes (see ``_not_a_copy``); otherwise it is left
as a note of its own. The CLI hands it only copies in vaultmem's folder unless ``--all``.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Literal

from vaultmem.errors import InvalidYaml, VaultmemError
from vaultmem.memory.diff3 import NotMergeable
from vaultmem.memory.notemerge import merge, session_ids
from vaultmem.memory.syncnames import original_of
from vaultmem.notes import frontmatter
from vaultmem.store import machine, safefs
from vaultmem.store.vault import Vault

CONFLICTS_DIR = "conflicts"
# Properties every write may change: two versions of one note differ in these only.
VOLATILE = frozenset({"updated", "modified", "claude_last_accessed", "lines", "decisions",
                      "gotchas", "status", "extractor", "extraction_cost_usd", "git_head_end"})
_NUMBERED = re.compile(r" \(\d+\)\.md$", re.IGNORECASE)


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
        why_not = _not_a_copy(note.text, copy.text, numbered=_NUMBERED.match(rel) is not None)
        if why_not:
            return SyncFix(rel, original, "skipped", f"not a conflict copy of it: {why_not}")
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


def _not_a_copy(original: str, copy: str, *, numbered: bool) -> str | None:
    """Why the content says ``copy`` is a note of its own (None: it is a version of
    ``original``). A name alone is not enough: ``Meeting (1).md``, ``Meeting (2).md`` can be a
    person's series. The two record one Claude Code session, or have the same properties but
    the ones that change with every write; without properties, a copy a sync tool named
    unmistakably has the same first line (its title)."""
    try:
        meta_o, meta_c = frontmatter.parse(original), frontmatter.parse(copy)
    except InvalidYaml:
        meta_o = meta_c = {}
    ids_o, ids_c = session_ids(meta_o), session_ids(meta_c)
    if ids_o or ids_c:
        return None if ids_o & ids_c else "they record different sessions"
    if meta_o or meta_c:
        same = {k: v for k, v in meta_o.items() if k not in VOLATILE} == {
            k: v for k, v in meta_c.items() if k not in VOLATILE}
        return None if same else "their properties differ"
    if numbered:
        return "no properties to tell a copy from a note of the same name"
    first = [text.lstrip("\n").split("\n", 1)[0] for text in (original, copy)]
    return None if first[0] == first[1] else "their titles differ"


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
