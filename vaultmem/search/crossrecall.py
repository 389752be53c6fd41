"""Cross-project recalls: an entity of another project that a recall found is recorded in its
frontmatter (``cross_project_recalls``, once per project a day), and once ``PROMOTE_AT`` other
projects recalled it, recall suggests ``vaultmem promote``."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from typing import Any

from vaultmem.errors import AmbiguousNote, NoteNotFound, VaultmemError
from vaultmem.store.vault import Vault

PROMOTE_AT = 3  # distinct other projects that recalled an entity before promotion is suggested
CROSS_KEY = "cross_project_recalls"


def note_recalls(vault: Vault, rels: Sequence[str], *, project: str, today: date,
                 query: str) -> tuple[list[str], list[str]]:
    """Record that ``project`` recalled the entities ``rels`` (of other projects): the ones that
    got an entry, and the promote suggestions for them."""
    recorded: list[str] = []
    suggestions: list[str] = []
    namespace = vault.layout.namespace + "/"
    for rel in dict.fromkeys(rels):
        # Only vaultmem's own entities carry its cross-project records.
        if not rel.startswith(namespace):
            continue
        try:
            projects_seen = record_cross_project(
                vault, rel, project=project, today=today, context=query
            )
        except VaultmemError:
            # The note changed shape under us (invalid YAML now, removed): recall still answers.
            continue
        if projects_seen is None:
            continue
        if projects_seen[0]:
            recorded.append(rel)
        suggestion = promote_suggestion(vault, rel, projects_seen[1])
        if suggestion:
            suggestions.append(suggestion)
    return recorded, suggestions


def foreign_entity(kind: str | None, owner: str | None, current: str) -> bool:
    """Whether a hit of ``kind`` owned by ``owner`` is an entity of another project."""
    return kind == "entity" and owner not in (None, "global", current)


def other_projects(recalls: Any, owner: str | None) -> set[str]:
    """The distinct projects, other than the entity's own, in a cross_project_recalls value."""
    found: set[str] = set()
    if isinstance(recalls, list):
        for entry in recalls:
            if isinstance(entry, dict) and entry.get("project") not in (None, "", owner):
                found.add(str(entry["project"]))
    return found


def _same_day(entry: Any, project: str, today: date) -> bool:
    if not isinstance(entry, dict) or str(entry.get("project")) != project:
        return False
    when = entry.get("date")
    return when == today or str(when) == today.isoformat()


def record_cross_project(
    vault: Vault, rel: str, *, project: str, today: date, context: str
) -> tuple[bool, set[str]] | None:
    """Record that ``project`` loaded entity ``rel`` today (once per project per day).

    Returns (whether an entry was added, the distinct other projects that recalled it), or None
    when ``rel`` is not an entity of another project.
    """
    from vaultmem.notes.patch import AddToProperty  # the one write recall makes, rarely

    with vault.lock(rel):
        note = vault.read(rel)
        meta = note.frontmatter()
        owner = meta.get("project")
        owner = str(owner) if owner is not None else None
        if meta.get("type") != "entity" or owner in (None, "global", project):
            return None
        recalls = meta.get(CROSS_KEY)
        entries = recalls if isinstance(recalls, list) else []
        added = False
        if not any(_same_day(e, project, today) for e in entries):
            entry = {"project": project, "date": today, "context": " ".join(context.split())}
            # The lock is re-entrant: update() re-reads under it, so nothing can slip between.
            result = vault.update(rel, [AddToProperty(CROSS_KEY, entry)])
            added = result.changed
            entries = [*entries, entry]
        return added, other_projects(entries, owner)


def promote_suggestion(vault: Vault, rel: str, projects: set[str]) -> str | None:
    """The promote suggestion for an entity recalled from ``PROMOTE_AT`` or more projects."""
    if len(projects) < PROMOTE_AT:
        return None
    name = rel.rsplit("/", 1)[-1][:-3]
    ref = name
    try:
        if vault.resolve_note(name) != rel:
            ref = rel[:-3]
    except (AmbiguousNote, NoteNotFound):
        ref = rel[:-3]  # the name alone would not pick this note
    shown = f'"{ref}"' if " " in ref else ref
    listed = ", ".join(sorted(projects))
    return (
        f"{name} was recalled from {len(projects)} other projects ({listed}): "
        f"run `vaultmem promote {shown}` to make it global"
    )
