"""Gather what the next session should know and render it (the shell around ``context``).

Reads only the project's own folders (sessions, archive, entities, ``_index.md``), so its cost
does not grow with the rest of the vault.
"""

from __future__ import annotations

import os
from collections.abc import Collection

from .. import links
from ..config import Config
from ..errors import VaultmemError
from ..vault import Vault
from . import context

RECENT_SESSIONS = 3
MAX_ENTITIES = 5


def _listing(vault: Vault, folder: str) -> list[tuple[str, float]]:
    """(rel, mtime) of the notes directly in a vault folder; [] when it does not exist."""
    try:
        path = vault.abspath(folder)
        with os.scandir(path) as it:
            return [
                (f"{folder}/{e.name}", e.stat().st_mtime)
                for e in it
                if e.name.endswith(".md") and not e.name.startswith(".") and e.is_file()
            ]
    except (OSError, VaultmemError):
        return []


def _read(vault: Vault, rel: str) -> str | None:
    try:
        return vault.read(rel).text
    except VaultmemError:
        return None


def recent_sessions(vault: Vault, project: str, *, exclude: Collection[str] = ()) -> list[str]:
    """The project's latest session notes, newest first (an archived copy stands in for a moved original)."""
    layout = vault.layout
    by_stem: dict[str, tuple[str, float]] = {}
    for rel, mtime in _listing(vault, layout.archive_dir(project)):
        by_stem[rel.rsplit("/", 1)[1]] = (rel, mtime)
    for rel, mtime in _listing(vault, layout.sessions_dir(project)):
        by_stem[rel.rsplit("/", 1)[1]] = (rel, mtime)  # the original wins over its archive copy
    ranked = sorted(by_stem.items(), key=lambda kv: (kv[0][:10], kv[1][1]), reverse=True)
    return [rel for _, (rel, _) in ranked if rel not in exclude][:RECENT_SESSIONS]


def key_entities(vault: Vault, project: str) -> list[str]:
    """Entities linked from the project's ``_index.md``, else the most recently changed ones."""
    layout = vault.layout
    listed = _listing(vault, layout.entities_dir(project))
    index_text = _read(vault, layout.project_index(project))
    chosen: list[str] = []
    if index_text:
        names = [rel for rel, _ in listed] + [
            rel for rel, _ in _listing(vault, layout.global_entities_dir())
        ]
        notes = links.NoteIndex(names)
        for link in links.parse(index_text):
            rel = notes.resolve(link.target, layout.project_index(project))
            if rel and rel not in chosen:
                chosen.append(rel)
    if not chosen:
        chosen = [rel for rel, _ in sorted(listed, key=lambda item: item[1], reverse=True)]
    return chosen[:MAX_ENTITIES]


def build(vault: Vault, config: Config, *, exclude: Collection[str] = ()) -> str:
    """The text session-start injects: recent sessions and key entities of the project."""
    sessions_ = []
    for rel in recent_sessions(vault, config.project, exclude=exclude):
        text = _read(vault, rel)
        if text is not None:
            sessions_.append(context.session_digest(rel, text))
    entities = []
    for rel in key_entities(vault, config.project):
        text = _read(vault, rel)
        if text is not None:
            entities.append(context.entity_digest(rel, text))
    return context.render(config.project, sessions_, entities, max_chars=config.context_max_chars)
