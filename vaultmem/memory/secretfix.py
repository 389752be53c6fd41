"""``vaultmem doctor --fix``: redact the secrets doctor found, in place.

Each note is read, every secret value in it replaced by ``‹redacted:kind›`` (redact.find, with the
config's allowlist), and written back through the vault's conflict-safe write: the bytes read are
the bytes expected, so a note a person saved meanwhile is left for the next run; everything but
the secrets stays byte for byte (line endings, BOM, the rest of the text).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from vaultmem.errors import VaultmemError
from vaultmem.notes import redact
from vaultmem.store.vault import Vault


@dataclass(frozen=True)
class SecretFix:
    """What happened to one note's secrets."""

    rel: str
    status: Literal["redacted", "skipped"]
    count: int  # secrets redacted
    detail: str = ""  # why it was left

    def __str__(self) -> str:
        if self.status == "redacted":
            return f"{self.rel}: {self.count} secret(s) redacted"
        return f"{self.rel}: left as it is ({self.detail})"

    def to_json(self) -> dict[str, object]:
        """JSON-ready."""
        return {"path": self.rel, "status": self.status, "count": self.count,
                "detail": self.detail}


def fix_secrets(vault: Vault, notes: Iterable[str]) -> list[SecretFix]:
    """Redact the secrets of each note (vault-relative), once each."""
    return [_fix(vault, rel) for rel in dict.fromkeys(notes)]


def _fix(vault: Vault, rel: str) -> SecretFix:
    try:
        note = vault.read(rel)
    except VaultmemError as err:
        return SecretFix(rel, "skipped", 0, err.message)
    allow = vault.redaction.allow
    found = redact.find(note.text, allow=allow)
    if not found:
        return SecretFix(rel, "skipped", 0, "no secret left")
    text = redact.redact(note.text, allow=allow)
    written = vault.write_text(rel, text, fmt=note.fmt, expected=note.fingerprint)
    if written.status == "conflicted":
        return SecretFix(rel, "skipped", 0, "the note changed meanwhile: run it again")
    return SecretFix(rel, "redacted", len(found))
