"""A session's note follows the work into the project it went down into.

Claude Code is often started in the home folder (or a parent of several checkouts) and the work
then happens in one repository below it: the transcript's ``cwd`` goes from ``~`` to
``~/code/shop``. The note was started under the project of ``~``; what the session learnt belongs
to ``shop``. So when a hook's working directory lies strictly inside the one the note last
recorded and names another project, the note moves there (before the new turns are recorded).
Going up or sideways (``cd ..``, another checkout beside) moves nothing: the session stays where
its work was. A note already closed and compacted never moves.

Order under the state lock: write the note at its new place, remove the old one (a person's edit
made meanwhile is carried over), then point the state at the new one; when the old note cannot be
removed, the new copy is and the session stays where it was.
"""

from __future__ import annotations

import posixpath
from dataclasses import replace
from datetime import date

from vaultmem import faults
from vaultmem.memory.sessions import Memory
from vaultmem.notes import links, propedit
from vaultmem.store.layout import link_target
from vaultmem.store.state import StateData
from vaultmem.store.vault import Vault

from ..errors import NoteExists, VaultmemError

MOVE_TRIES = 50


def descends(before: str, now: str) -> bool:
    """Whether the folder ``now`` lies strictly inside ``before`` (both absolute, as Claude
    Code gives them; ``..`` and doubled slashes normalised, no file system access)."""
    if not (before.startswith("/") and now.startswith("/")):
        return False
    before, now = posixpath.normpath(before), posixpath.normpath(now)
    return now != before and now.startswith(before.rstrip("/") + "/")


def refiled(text: str, old: str, new: str, old_index: str, new_index: str, *,
            old_entities: str = "", new_entities: str = "") -> str:
    """The session note's text filed under project ``new``: its ``project`` property, the link
    to the project's index in its Context line, and the links capture wrote to the old
    project's entities (``old_entities``, a folder: they would point at notes compaction will
    make under the new project); the rest moves byte for byte."""
    text = propedit.set_key(text, "project", new)
    old_link = links.format(link_target(old_index), alias=old)
    text = text.replace(old_link, links.format(link_target(new_index), alias=new), 1)
    if not old_entities or old_entities == new_entities:
        return text
    prefix = old_entities.rstrip("/") + "/"

    def moved(link: links.Link) -> str | None:
        if not link.target.startswith(prefix):
            return None
        return new_entities.rstrip("/") + "/" + link.target[len(prefix):]

    return links.rewrite(text, moved)


def follow(memory: Memory, data: StateData, sid: str, cwd: str | None, today: date) -> None:
    """Move the open session ``sid``'s note into the project of ``cwd`` when the session went
    down into it (see the module's docstring). Runs under the state lock."""
    entry = data.sessions.get(sid)
    project = memory.config.project
    if entry is None or not cwd or entry.project == project:
        return
    vault, layout = memory.vault, memory.layout
    if posixpath.dirname(entry.note) != layout.sessions_dir(entry.project):
        return  # archived, or a note placed by hand: left where it is
    try:
        note = vault.read(entry.note)
        meta = note.frontmatter()
    except (VaultmemError, OSError, ValueError):
        return  # a note we cannot read is left where it is
    before = meta.get("cwd")
    if str(meta.get("status") or "active") != "active" or not isinstance(before, str) \
            or not descends(before, cwd):
        return
    memory.ensure_index(project, today)

    def derive(text: str) -> str:
        return refiled(text, entry.project, project, layout.project_index(entry.project),
                       layout.project_index(project),
                       old_entities=layout.entities_dir(entry.project),
                       new_entities=layout.entities_dir(project))

    stem = posixpath.basename(entry.note)[:-3]
    for n in range(1, MOVE_TRIES + 1):
        name = stem if n == 1 else f"{stem}-{n}"
        rel = layout.session(project, name)
        if vault.exists(layout.archive(project, name)):
            continue
        try:
            vault.create(rel, derive(note.text))
        except NoteExists:
            if not _left_copy(vault, rel, sid, derive(note.text)):
                continue
        try:
            faults.checkpoint("relocate:retire")
            vault.retire(entry.note, read=note, copy_to=rel, derive=derive)
        except (VaultmemError, OSError):
            # The old note kept changing (or cannot be removed): it stays the session's note.
            try:
                vault.remove(rel)
            except (VaultmemError, OSError):
                pass
            return
        data.set_session(replace(entry, note=rel, project=project))
        data.clear_current(entry.project, sid)
        data.set_current(project, sid)
        return


def _left_copy(vault: Vault, rel: str, sid: str, text: str) -> bool:
    """Whether ``rel`` is the copy a move of session ``sid`` wrote before it was stopped (a
    crash before the old note was removed): then it is brought up to ``text`` and taken."""
    try:
        found = vault.read(rel)
        ids = found.frontmatter().get("session_ids")
    except (VaultmemError, OSError, ValueError):
        return False
    if not isinstance(ids, list) or sid not in [str(i) for i in ids]:
        return False
    written = vault.write_text(rel, text, fmt=found.fmt, expected=found.fingerprint)
    return written.status != "conflicted"
