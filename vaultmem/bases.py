"""Obsidian Bases views of the memory (pure): sessions, entities, and what needs a person.

Three ``.base`` files in the namespace folder, tables over the flat properties vaultmem writes
(see :data:`PROPERTIES`). vaultmem writes a file only when it is missing: a person's edits to a
view are theirs to keep, and deleting the file brings vaultmem's version back at the next
``init`` or compaction.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from .errors import NoteExists

if TYPE_CHECKING:
    from .vault import Vault

SESSIONS = "sessions.base"
ENTITIES = "entities.base"
ATTENTION = "attention.base"

# The note properties each view shows or filters on, by the note type that carries them. A test
# holds every one of them to a property vaultmem writes.
PROPERTIES: Mapping[str, tuple[str, ...]] = {
    SESSIONS: ("type", "created", "project", "status", "lines", "git_branch", "host",
               "extraction_cost_usd", "updated"),
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


def _in_folder(namespace: str) -> str:
    return _quoted(f'file.inFolder("{namespace}")')


def sessions(namespace: str) -> str:
    """``sessions.base``: every session note, newest first, and the same grouped by project."""
    order = ("file.name", "note.created", "note.project", "note.status", "note.lines",
             "note.git_branch", "note.host", "note.extraction_cost_usd")
    return (
        _HEADER.format(what="session notes")
        + "filters:\n  and:\n"
        + f"    - {_in_folder(namespace)}\n"
        + "    - " + _quoted('type == "session"') + "\n"
        + _display({"file.name": "Session", "note.created": "Date", "note.project": "Project",
                    "note.status": "Status", "note.lines": "Lines", "note.git_branch": "Branch",
                    "note.host": "Host", "note.extraction_cost_usd": "Cost (USD)"})
        + "views:\n"
        + _table("Recent sessions", order, sort="note.created")
        + _table("By project", order, sort="note.created", group="note.project")
    )


def entities(namespace: str) -> str:
    """``entities.base``: every entity (component or concept) with its counts."""
    order = ("file.name", "note.project", "note.updated", "note.decisions", "note.gotchas",
             "note.created")
    return (
        _HEADER.format(what="entity notes")
        + "filters:\n  and:\n"
        + f"    - {_in_folder(namespace)}\n"
        + "    - " + _quoted('type == "entity"') + "\n"
        + _display({"file.name": "Entity", "note.project": "Project",
                    "note.updated": "Last updated", "note.decisions": "Decisions",
                    "note.gotchas": "Gotchas", "note.created": "Since"})
        + "views:\n"
        + _table("Entities", order, sort="note.updated")
        + _table("By project", order, sort="note.updated", group="note.project")
    )


def attention(namespace: str) -> str:
    """``attention.base``: notes a person should look at — failed compactions, archive errors,
    sections vaultmem could not write without overriding a person (``conflicted``)."""
    order = ("file.name", "note.type", "note.project", "note.status", "note.error",
             "note.archive_error", "note.conflicted", "note.updated")
    return (
        _HEADER.format(what="what needs a person")
        + "filters:\n  and:\n"
        + f"    - {_in_folder(namespace)}\n"
        + "    - or:\n"
        + "        - " + _quoted('status == "compaction_failed"') + "\n"
        + "        - " + _quoted('file.hasProperty("error")') + "\n"
        + "        - " + _quoted('file.hasProperty("archive_error")') + "\n"
        + "        - " + _quoted("conflicted == true") + "\n"
        + _display({"file.name": "Note", "note.type": "Type", "note.project": "Project",
                    "note.status": "Status", "note.error": "Error",
                    "note.archive_error": "Archive error", "note.conflicted": "Conflicted",
                    "note.updated": "Updated"})
        + "views:\n"
        + _table("Needs attention", order, sort="note.updated")
    )


def files(namespace: str) -> dict[str, str]:
    """Each ``.base`` file's vault-relative path and its text."""
    return {
        f"{namespace}/{SESSIONS}": sessions(namespace),
        f"{namespace}/{ENTITIES}": entities(namespace),
        f"{namespace}/{ATTENTION}": attention(namespace),
    }


def _display(names: Mapping[str, str]) -> str:
    rows = "".join(f"  {key}:\n    displayName: {_quoted(name)}\n" for key, name in names.items())
    return "properties:\n" + rows


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
