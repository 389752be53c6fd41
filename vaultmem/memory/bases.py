"""Obsidian Bases views of the memory (pure): sessions, entities, and what needs a person.

Three ``.base`` files in the namespace folder, tables over the flat properties vaultmem writes
(see :data:`PROPERTIES`). vaultmem writes a file only when it is missing: a person's edits to a
view are theirs to keep, and deleting the file brings vaultmem's version back at the next
``init`` or compaction.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from vaultmem.errors import NoteExists

if TYPE_CHECKING:
    from vaultmem.store.vault import Vault

SESSIONS = "sessions.base"
ENTITIES = "entities.base"
ATTENTION = "attention.base"

# The note properties each view shows or filters on, by the note type that carries them. A test
# holds every one of them to a property vaultmem writes.
PROPERTIES: Mapping[str, tuple[str, ...]] = {
    SESSIONS: ("type", "created", "project", "status", "lines", "git_branch", "host",
               "extraction_cost_usd", "updated", "archived_to"),
    ENTITIES: ("type", "project", "updated", "decisions", "gotchas", "status", "created"),
    ATTENTION: ("type", "project", "status", "error", "archive_error", "conflicted", "updated"),
}

_HEADER = (
    "# Made by vaultmem ({what}). vaultmem writes this file only when it is missing:\n"
    "# edit it freely; delete it to get vaultmem's version back at the next compaction.\n"
)


def _quoted(text: str) -> str:
    """A YAML single-quoted scalar (a filter expression holds double quotes)."""
    return "'" + text.replace("'", "''") + "'"


def _start(what: str, namespace: str, condition: str) -> str:
    """The header and the filters: notes in the namespace folder that meet ``condition`` (one
    YAML list item, already indented)."""
    folder = _quoted(f'file.inFolder("{namespace}")')
    return _HEADER.format(what=what) + f"filters:\n  and:\n    - {folder}\n" + condition


def _columns(names: Mapping[str, str]) -> tuple[str, tuple[str, ...]]:
    """The ``properties`` block (each column's display name) and the column order, one source."""
    rows = "".join(f"  {key}:\n    displayName: {_quoted(name)}\n" for key, name in names.items())
    return "properties:\n" + rows, tuple(names)


def sessions(namespace: str) -> str:
    """``sessions.base``: every session note, newest first, and the same grouped by project."""
    return _of_type("session notes", namespace, "session", {
        "file.name": "Session", "note.created": "Date", "note.project": "Project",
        "note.status": "Status", "note.lines": "Lines", "note.git_branch": "Branch",
        "note.host": "Host", "note.extraction_cost_usd": "Cost (USD)"},
        title="Recent sessions", sort="note.created",
        # A compacted original (a stub since issue 21) points to its archive copy: one row each.
        also='!file.hasProperty("archived_to")')


def entities(namespace: str) -> str:
    """``entities.base``: every entity (component or concept) with its counts."""
    return _of_type("entity notes", namespace, "entity", {
        "file.name": "Entity", "note.project": "Project", "note.updated": "Last updated",
        "note.decisions": "Decisions", "note.gotchas": "Gotchas", "note.created": "Since"},
        title="Entities", sort="note.updated")


def _of_type(what: str, namespace: str, note_type: str, columns: Mapping[str, str], *,
             title: str, sort: str, also: str | None = None) -> str:
    """A base of the notes of one ``type`` (that meet ``also``): a table of them, and the same
    grouped by project."""
    display, order = _columns(columns)
    conditions = [f'type == "{note_type}"', *([also] if also else [])]
    return (
        _start(what, namespace, "".join(f"    - {_quoted(c)}\n" for c in conditions))
        + display + "views:\n"
        + _table(title, order, sort=sort)
        + _table("By project", order, sort=sort, group="note.project")
    )


def attention(namespace: str) -> str:
    """``attention.base``: notes a person should look at — failed compactions, archive errors,
    sections vaultmem could not write without overriding a person (``conflicted``)."""
    display, order = _columns({
        "file.name": "Note", "note.type": "Type", "note.project": "Project",
        "note.status": "Status", "note.error": "Error", "note.archive_error": "Archive error",
        "note.conflicted": "Conflicted", "note.updated": "Updated"})
    needs = ('status == "compaction_failed"', 'file.hasProperty("error")',
             'file.hasProperty("archive_error")', "conflicted == true")
    return (
        _start("what needs a person", namespace,
               "    - or:\n" + "".join(f"        - {_quoted(c)}\n" for c in needs))
        + display + "views:\n"
        + _table("Needs attention", order, sort="note.updated")
    )


def files(namespace: str) -> dict[str, str]:
    """Each ``.base`` file's vault-relative path and its text."""
    return {
        f"{namespace}/{SESSIONS}": sessions(namespace),
        f"{namespace}/{ENTITIES}": entities(namespace),
        f"{namespace}/{ATTENTION}": attention(namespace),
    }


def _table(name: str, order: tuple[str, ...], *, sort: str, group: str | None = None) -> str:
    text = f"  - type: table\n    name: {_quoted(name)}\n"
    if group is not None:
        text += f"    groupBy:\n      property: {group}\n      direction: ASC\n"
    text += "    order:\n" + "".join(f"      - {column}\n" for column in order)
    text += f"    sort:\n      - property: {sort}\n        direction: DESC\n"
    return text


def ensure(vault: Vault) -> list[str]:
    """Write the ``.base`` files that are missing (never one a person has); the paths written."""
    written: list[str] = []
    for rel, text in files(vault.layout.namespace).items():
        if vault.exists(rel):
            continue
        try:
            vault.create(rel, text)
        except NoteExists:
            continue  # made meanwhile, or a case twin a person named
        written.append(rel)
    return written
