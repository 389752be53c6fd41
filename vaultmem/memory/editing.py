"""Use-cases on one note: show, set a property, patch a section, initialise a vault."""

from __future__ import annotations

import posixpath
from dataclasses import dataclass
from datetime import date
from typing import Any

from vaultmem.errors import InvalidValue
from vaultmem.notes import sections
from vaultmem.notes.patch import Edit, Op, SectionPatch, SetProperty
from vaultmem.store.vault import Vault, WriteResult
from vaultmem.store.vaultread import Note


@dataclass(frozen=True)
class NoteView:
    """What ``vaultmem show`` reports about a note."""

    rel: str
    text: str
    frontmatter: dict[str, Any]
    lines: int
    headings: tuple[sections.Heading, ...]
    sha256: str

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict (dates as ISO strings)."""
        return {
            "path": self.rel,
            "frontmatter": _jsonable(self.frontmatter),
            "lines": self.lines,
            "sha256": self.sha256,
            "headings": [
                {"level": h.level, "title": h.title, "line": h.line + 1, "path": list(h.path)}
                for h in self.headings
            ],
            "text": self.text,
        }


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, date):
        return value.isoformat()
    return value


def resolve(vault: Vault, ref: str, project: str | None = None) -> str:
    """The note a NOTE argument means. A bare name is looked up in the current ``project``'s
    folder first, then in global, then the Obsidian way over the whole vault (another
    project's note, a person's own note): with one ``Auth`` per project, ``--project shop2
    show Auth`` opens shop2's."""
    name = ref.strip()
    if project and name and "/" not in name and not vault.exists(
        name if name.endswith(".md") else name + ".md"
    ):
        from vaultmem.notes import links

        layout = vault.layout
        found = links.scoped(
            name.removesuffix(".md"),
            (layout.project_dir(project), posixpath.dirname(layout.global_entities_dir())),
            vault.iter_notes(layout.namespace),
        )
        if found:
            return found
    return vault.resolve_note(ref)


def show(vault: Vault, ref: str, current_project: str | None = None) -> NoteView:
    """Load a note by path or name (``resolve``), with its parsed frontmatter and headings.

    With ``current_project``, loading an entity of another project records a cross-project
    recall in it (once per project per day, DESIGN §7); the view is of the note as loaded.
    """
    note = vault.read(resolve(vault, ref, current_project))
    shown = view(note)
    if current_project:
        from vaultmem import clock
        from vaultmem.search.crossrecall import record_cross_project

        owner = shown.frontmatter.get("project")
        foreign = owner not in (None, "global", current_project)
        if shown.frontmatter.get("type") == "entity" and foreign:
            record_cross_project(
                vault, note.rel, project=current_project, today=clock.today(), context="show"
            )
    return shown


def view(note: Note) -> NoteView:
    """The view of an already loaded note."""
    return NoteView(
        rel=note.rel,
        text=note.text,
        frontmatter=note.frontmatter(),
        lines=note.lines,
        headings=tuple(sections.headings(note.text)),
        sha256=note.fingerprint.sha256,
    )


def set_property(
    vault: Vault, ref: str, key: str, value: Any, *, dry_run: bool = False,
    project: str | None = None,
) -> WriteResult:
    """Set one frontmatter key of a note, changing only that key's lines."""
    rel = resolve(vault, ref, project)
    try:
        return vault.update(rel, [SetProperty(key, value)], dry_run=dry_run, want_diff=True)
    except (TypeError, ValueError) as err:
        raise InvalidValue(str(err), path=rel) from None


def patch_section(
    vault: Vault,
    ref: str,
    heading: tuple[str, ...],
    op: Op,
    content: str,
    *,
    subtree: bool = False,
    create: bool = False,
    dry_run: bool = False,
    project: str | None = None,
) -> WriteResult:
    """Append, prepend or replace under a heading of a note; the result carries the diff."""
    rel = resolve(vault, ref, project)
    edit: Edit = SectionPatch(heading=heading, op=op, content=content, subtree=subtree, create=create)
    return vault.update(rel, [edit], dry_run=dry_run, want_diff=True, label="vaultmem patch")

