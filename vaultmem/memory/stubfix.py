"""``vaultmem doctor --fix``: the full originals of sessions compacted before originals became
stubs are made stubs, so each session exists once (its archive copy).

An original qualifies when it is marked archived, its ``archived_to`` names a note that exists,
and its body is the archive's body, byte for byte: then it becomes what compaction makes of an
original today (``compaction.stub_text``: its properties, its title and one line linking the
archive, dated by its ``archived_date``). An original a person wrote in after it was archived
is left whole: nothing of theirs is dropped. The write is the vault's conflict-safe one: a note
saved meanwhile is left for the next run.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, datetime
from typing import Literal

from vaultmem.errors import VaultmemError
from vaultmem.notes import fences, frontmatter, links, schema
from vaultmem.store.vault import Vault

# A compacted original still holding its session: its work log is there (a stub has none).
_FULL = re.compile(rf"^## {re.escape(schema.WORK_LOG)}[ \t]*$", re.MULTILINE)


@dataclass(frozen=True)
class StubFix:
    """What happened to one compacted original."""

    rel: str
    status: Literal["stubbed", "skipped"]
    archive: str = ""  # the archive copy it now links to
    detail: str = ""  # why it was left

    def __str__(self) -> str:
        if self.status == "stubbed":
            return f"{self.rel}: now a stub linking its archive {self.archive}"
        return f"{self.rel}: left as it is ({self.detail})"

    def to_json(self) -> dict[str, object]:
        """JSON-ready."""
        return {"path": self.rel, "status": self.status, "archive": self.archive,
                "detail": self.detail}


def is_full_original(meta: dict[str, object], text: str) -> bool:
    """Whether a note marked archived, read as ``meta`` and ``text`` (or its body), still holds
    its whole session (an original compacted before stubs), rather than being a stub."""
    return (meta.get("status") == "archived" and meta.get("type") in (None, "session")
            and bool(meta.get("archived_to")) and _FULL.search(text) is not None)


def fix_originals(vault: Vault, notes: Iterable[str], *, today: date) -> list[StubFix]:
    """Make each compacted original (vault-relative) a stub when its archive holds it whole."""
    listed = list(dict.fromkeys(notes))
    index = links.NoteIndex(vault.iter_notes()) if listed else None
    return [_fix(vault, rel, index, today) for rel in listed if index is not None]


def _fix(vault: Vault, rel: str, index: links.NoteIndex, today: date) -> StubFix:
    from vaultmem.memory import (
        compaction,  # doctor imports this module; only a fix needs compaction
    )

    try:
        note = vault.read(rel)
        meta = frontmatter.parse(note.text, path=rel)
    except VaultmemError as err:
        return StubFix(rel, "skipped", detail=err.message)
    body = fences.split(note.text).body
    if not is_full_original(meta, body):
        return StubFix(rel, "skipped", detail="not a compacted original holding its session")
    found = links.parse(str(meta["archived_to"]))
    archive = index.resolve(found[0].target if found else str(meta["archived_to"]), rel)
    if archive is None or archive == rel:
        return StubFix(rel, "skipped", detail=f"its archive {meta['archived_to']} does not exist")
    try:
        archived_body = fences.split(vault.read(archive).text).body
    except VaultmemError as err:
        return StubFix(rel, "skipped", archive, err.message)
    day = meta.get("archived_date")
    if isinstance(day, datetime):
        day = day.date()
    stub = compaction.stub_text(note.text, archive, archived_body,
                                day if isinstance(day, date) else today)
    if stub == note.text:
        return StubFix(rel, "skipped", archive,
                       "it holds text its archive does not (written after it was archived)")
    written = vault.write_text(rel, stub, fmt=note.fmt, expected=note.fingerprint)
    if written.status == "conflicted":
        return StubFix(rel, "skipped", archive, "the note changed meanwhile: run it again")
    return StubFix(rel, "stubbed", archive)
