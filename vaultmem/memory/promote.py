"""Promote a project entity to a global one, rewriting the links that pointed to it (DESIGN §7).

``claude/projects/<p>/entities/<E>.md`` moves to ``claude/global/entities/<E>.md`` with
``project: global`` and ``promoted_from: <p>`` in its frontmatter. Then every wikilink in the vault
is checked against two resolutions, the Obsidian way: before (the project note, no global note)
and after (the global note, no project note). A link that resolved to the project note must
resolve to the global one; a link that resolved to any other note must still resolve to it (a
bare ``[[E]]`` meant for another project's ``E`` would otherwise jump to the new, shorter global
path). Only links that would get that wrong are rewritten: their target becomes the shortest
form that resolves right (the name as written, else the note's vault path); ``#heading``,
``#^block``, ``|alias`` and the ``!`` of an embed stay as written. The promoted note's own links
are checked the same way, from its new folder.

Order, each step idempotent: write the global copy, rewrite links, remove the project note.
A run stopped anywhere and run again converges: the global copy carries ``promoted_from``, so a
second run recognises its own copy and finishes the job; once the project note is gone, promote
reports ``already-global``.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from vaultmem import faults
from vaultmem.errors import InvalidYaml, NoteExists, NoteNotFound, NotUtf8, VaultmemError
from vaultmem.notes import links
from vaultmem.notes.frontmatter import parse as parse_frontmatter
from vaultmem.notes.propedit import set_key
from vaultmem.store.config import Config
from vaultmem.store.vault import Vault
from vaultmem.store.vaultread import Note

PROMOTED_FROM = "promoted_from"
MAX_WRITE_ATTEMPTS = 5

PromoteStatus = Literal["promoted", "already-global", "dry-run"]


class PromoteError(VaultmemError):
    """The note cannot be promoted (not a project entity, or a global one of that name exists)."""


@dataclass(frozen=True)
class LinkChange:
    """One rewritten link target."""

    rel: str  # the note holding the link
    line: int  # 1-based
    old: str  # target as written before
    new: str  # target written now


@dataclass(frozen=True)
class PromoteResult:
    """What promote did (or would do, for a dry run)."""

    source: str  # the project entity
    target: str  # the global entity
    status: PromoteStatus
    changes: tuple[LinkChange, ...] = ()
    skipped: tuple[tuple[str, str], ...] = ()  # (note, why) notes whose links were not checked

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return {
            "source": self.source,
            "target": self.target,
            "status": self.status,
            "changes": [
                {"path": c.rel, "line": c.line, "old": c.old, "new": c.new} for c in self.changes
            ],
            "skipped": [{"path": rel, "reason": why} for rel, why in self.skipped],
        }


def _stem(rel: str) -> str:
    return rel.rsplit("/", 1)[-1][:-3]


def _project_of_entity(vault: Vault, rel: str) -> str | None:
    """The project of ``<ns>/projects/<p>/entities/<E>.md``, else None."""
    parts = rel.split("/")
    ns = vault.layout.namespace
    if len(parts) == 5 and parts[0] == ns and parts[1] == "projects" and parts[3] == "entities":
        return parts[2]
    return None


def _global_twin(vault: Vault, name: str) -> str | None:
    """The global entity whose name equals ``name`` case-insensitively, if any."""
    folder = vault.layout.global_entities_dir()
    wanted = (name + ".md").lower()
    try:
        with os.scandir(vault.abspath(folder)) as entries:
            for entry in entries:
                if entry.name.lower() == wanted and entry.is_file():
                    return f"{folder}/{entry.name}"
    except (FileNotFoundError, NotADirectoryError):
        return None
    return None


def _promoted_from(vault: Vault, rel: str) -> str | None:
    try:
        value = vault.read(rel).frontmatter().get(PROMOTED_FROM)
    except (InvalidYaml, NotUtf8, NoteNotFound):
        return None
    return str(value) if value is not None else None


def _leftover(vault: Vault, global_rel: str) -> str | None:
    """The project entity an interrupted promote left behind for ``global_rel``, if any."""
    project = _promoted_from(vault, global_rel)
    if project is None:
        return None
    rel = vault.layout.entity(project, _stem(global_rel))
    return rel if vault.exists(rel) else None


def _source(vault: Vault, entity_ref: str) -> tuple[str, str] | PromoteResult:
    """(project entity, global path) to promote, or the already-global result."""
    try:
        rel = vault.resolve_note(entity_ref)
    except NoteNotFound:
        # The old path of an entity promoted already.
        ref = entity_ref.strip()
        rel = ref if ref.endswith(".md") else ref + ".md"
        project = _project_of_entity(vault, rel)
        if project is not None:
            done = _global_twin(vault, _stem(rel))
            if done is not None and _promoted_from(vault, done) == project:
                return PromoteResult(rel, done, "already-global")
        raise
    if rel.startswith(vault.layout.global_entities_dir() + "/"):
        source = _leftover(vault, rel)
        if source is None:
            return PromoteResult(rel, rel, "already-global")
        return source, rel
    project = _project_of_entity(vault, rel)
    if project is None:
        raise PromoteError(
            "only project entities (<namespace>/projects/<project>/entities/<Name>.md) "
            "can be promoted",
            path=rel,
        )
    return rel, vault.layout.global_entity(_stem(rel))


def promote(
    vault: Vault, config: Config, entity_ref: str, *, dry_run: bool = False
) -> PromoteResult:
    """Move a project entity to the global entities and rewrite inbound links (see module doc)."""
    found = _source(vault, entity_ref)
    if isinstance(found, PromoteResult):
        return found
    source, target = found
    project = _project_of_entity(vault, source)
    assert project is not None
    note = vault.read(source)
    note.frontmatter()  # InvalidYaml: never rewrite a note whose YAML is broken
    def globalise(text: str) -> str:
        return set_key(set_key(text, "project", "global"), PROMOTED_FROM, project)

    promoted = globalise(note.text)
    twin = _global_twin(vault, _stem(source))
    if twin is not None and (twin != target or _promoted_from(vault, twin) != project):
        raise NoteExists(
            f"a global entity of that name exists already ({twin}); merge the two by hand "
            "or rename one",
            path=source,
        )
    if not dry_run:
        vault.write_text(target, promoted, fmt=note.fmt)
        faults.checkpoint("promote:copied")
    changes, skipped = _relink(vault, source, target, promoted, dry_run=dry_run)
    if dry_run:
        return PromoteResult(source, target, "dry-run", changes, skipped)
    faults.checkpoint("promote:relinked")
    # A person's edit of the entity made meanwhile moves with it rather than being deleted.
    vault.retire(source, read=note, copy_to=target, derive=globalise)
    faults.checkpoint("promote:removed")
    return PromoteResult(source, target, "promoted", changes, skipped)


def _target_for(desired: str, written: str, source: str, after: links.NoteIndex) -> str:
    """The shortest link target that resolves to ``desired`` from ``source`` after the move."""
    path = desired[:-3]
    if "/" not in written.strip("/"):
        for name in (written, _stem(desired)):
            if after.resolve(name, source) == desired:
                return name
    return path


def _relink(
    vault: Vault, source: str, target: str, promoted: str, *, dry_run: bool
) -> tuple[tuple[LinkChange, ...], tuple[tuple[str, str], ...]]:
    notes = [n for n in vault.iter_notes() if n not in (source, target)]
    before = links.NoteIndex([*notes, source])
    after = links.NoteIndex([*notes, target])
    changes: list[LinkChange] = []
    skipped: list[tuple[str, str]] = []
    # The promoted note is read as it will be (in dry runs it is not written yet).
    for rel in [target, *notes]:
        old_source = source if rel == target else rel
        for attempt in range(MAX_WRITE_ATTEMPTS):
            if rel == target and dry_run:
                note: Note | None = None
                text = promoted
            else:
                try:
                    note = vault.read(rel)
                except NotUtf8 as err:
                    skipped.append((rel, str(err.message)))
                    break
                except NoteNotFound:
                    break
                text = note.text
            if "[[" not in text:
                break
            found: list[LinkChange] = []
            mapping = _mapping(text, rel, old_source, source, target, before, after, found)
            new_text = links.rewrite(text, mapping)
            if new_text == text:
                break
            try:
                parse_frontmatter(text, path=rel)
            except InvalidYaml as err:
                skipped.append((rel, f"invalid YAML, links not rewritten: {err.message}"))
                break
            if dry_run or note is None:
                changes.extend(found)
                break
            result = vault.write_text(rel, new_text, fmt=note.fmt, expected=note.fingerprint)
            if result.status != "conflicted":
                changes.extend(found)
                faults.checkpoint("promote:relink")
                break
            # Someone wrote the note meanwhile: read it again and redo its links.
        else:
            skipped.append((rel, "kept changing while its links were rewritten"))
    return tuple(changes), tuple(skipped)


def _mapping(
    text: str,
    rel: str,
    old_source: str,
    source: str,
    target: str,
    before: links.NoteIndex,
    after: links.NoteIndex,
    found: list[LinkChange],
) -> Callable[[links.Link], str | None]:
    def mapping(link: links.Link) -> str | None:
        if not link.target:
            return None  # [[#heading]] stays in its own note
        was = before.resolve(link.target, old_source)
        if was is None:
            return None
        desired = target if was == source else was
        if after.resolve(link.target, rel) == desired:
            return None
        new = _target_for(desired, link.target, rel, after)
        found.append(LinkChange(rel, text.count("\n", 0, link.start) + 1, link.target, new))
        return new

    return mapping
