"""The names sync tools give the conflict copies they make (DESIGN §7; doctor and syncfix).

Patterns (case-insensitive): ``X (… conflicted copy …).md`` (Dropbox, Nextcloud/ownCloud,
Obsidian Sync), ``X.sync-conflict-YYYYMMDD-HHMMSS[-DEVICE].md`` (Syncthing), and ``X (1).md``
next to ``X.md`` (Google Drive, OneDrive, browsers). iCloud's ``X 2.md`` is not one: names like
"Auth Service 2" are legitimate.
"""

from __future__ import annotations

import re

_CONFLICTED_COPY = re.compile(r"\((?:[^()]*\s)?conflicted copy\b[^()]*\)", re.IGNORECASE)
_SYNCTHING = re.compile(r"\.sync-conflict-\d{8}-\d{6}(?:-[A-Za-z0-9]+)?(?=\.|$)", re.IGNORECASE)
_NUMBERED = re.compile(r"^(?P<base>.+?) \(\d+\)$")


def conflict_copy(folder: str, name: str, existing: set[str]) -> str | None:
    """Why ``folder/name`` is a sync tool's conflict copy (``existing``: every path of the vault,
    lower-cased), or None when it is not one."""
    stem, dot, ext = name.rpartition(".")
    if not dot:
        stem, ext = name, ""
    if _CONFLICTED_COPY.search(stem):
        return "a sync tool's conflicted copy: merge it into the original and delete it"
    if _SYNCTHING.search(name):
        return "a Syncthing conflict copy: merge it into the original and delete it"
    numbered = _NUMBERED.match(stem)
    if numbered:
        original = numbered.group("base") + (f".{ext}" if ext else "")
        original_rel = f"{folder}/{original}" if folder else original
        if original_rel.lower() in existing:
            return f"a duplicate of {original_rel} made by a sync tool: merge it and delete it"
    return None


def original_of(rel: str) -> str | None:
    """The note a sync tool's conflict copy belongs to (vault-relative), by its name alone."""
    folder, _, name = rel.rpartition("/")
    stem, dot, ext = name.rpartition(".")
    if not dot:
        stem, ext = name, ""
    suffix = f".{ext}" if ext else ""
    original: str | None = None
    if _CONFLICTED_COPY.search(stem):
        original = _CONFLICTED_COPY.sub("", stem).rstrip() + suffix
    elif _SYNCTHING.search(name):
        original = _SYNCTHING.sub("", name)
    else:
        numbered = _NUMBERED.match(stem)
        if numbered:
            original = numbered.group("base") + suffix
    if not original or original == name:
        return None
    return f"{folder}/{original}" if folder else original
