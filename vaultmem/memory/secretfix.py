"""``vaultmem doctor --fix``: redact the secrets doctor found in vaultmem's notes, in place.

Only vaultmem's own notes are rewritten: a person's own note is reported, never changed (what
vaultmem shows of it, the index, recall, the briefing and MCP answers, is redacted anyway). The
index is refreshed after, so a redacted note's rows follow. A secret that already left the
machine (in a version of the note reachable from a remote-tracking ref) is said so: redacting the
note does not change the history others have, the secret must be rotated. Each note is read, every secret value in it replaced by ``‹redacted:kind›`` (redact.find, with the
config's allowlist), and written back through the vault's conflict-safe write: the bytes read are
the bytes expected, so a note a person saved meanwhile is left for the next run; everything but
the secrets stays byte for byte (line endings, BOM, the rest of the text).
"""

from __future__ import annotations

import contextlib
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
    """Redact the secrets of each of vaultmem's notes (vault-relative), once each; a person's
    own note is left as it is. The index follows (best effort: a busy index is refreshed by the
    next search)."""
    fixes = [_fix(vault, rel) if _ours(vault, rel) else
             SecretFix(rel, "skipped", 0, "your own note: remove the secret yourself")
             for rel in dict.fromkeys(notes)]
    if any(f.status == "redacted" for f in fixes):
        from vaultmem.search import index

        with contextlib.suppress(VaultmemError):
            index.refresh(vault, wait=False)
    return fixes


def pushed_secrets(vault: Vault, notes: Iterable[str]) -> dict[str, str]:
    """Of ``notes`` (vault-relative), those holding a secret that is already in pushed history:
    path -> the remote-tracking ref that reaches it."""
    from vaultmem.memory import secretgit

    if not secretgit.in_git_repo(vault.root):
        return {}
    found: list[tuple[str, str]] = []
    for rel in dict.fromkeys(notes):
        try:
            text = vault.read(rel).text
        except VaultmemError:
            continue
        found.extend((rel, text[f.start:f.end])
                     for f in redact.find(text, allow=vault.redaction.allow))
    return secretgit.pushed(vault.root, found)


def _ours(vault: Vault, rel: str) -> bool:
    return rel.startswith(vault.layout.namespace.rstrip("/") + "/")


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
