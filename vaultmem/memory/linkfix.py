"""``vaultmem doctor --fix``: the bare links of vaultmem's notes that became ambiguous are
written by path.

vaultmem writes every link by path, ``[[claude/projects/p/entities/Billing|Billing]]``
(``links.entity_link``); older versions wrote ``[[Billing]]`` while one note of the vault was
named Billing. Such a bare link turns ambiguous when another project later makes its own
Billing: Obsidian then opens whichever it picks. ``doctor`` reports them (``ambiguous-link``)
and ``--fix`` rewrites them.

A bare link in a note of project P means P's note of that name, else the global one
(``links.scoped``, the order vaultmem resolves a bare name in): it becomes that note's path, with
the name it showed as alias (heading, block and embed kept), so the note reads the same. A link
no such note decides, and one inside a table cell (its bar is escaped), is left as it is. Only
notes in vaultmem's folder are rewritten, through the conflict-safe write.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from vaultmem.errors import VaultmemError
from vaultmem.notes import links
from vaultmem.store.vault import Vault


@dataclass(frozen=True)
class LinkFix:
    """What happened to one note's ambiguous links."""

    rel: str
    status: Literal["rewritten", "skipped"]
    count: int  # links written by path
    detail: str = ""  # why it was left

    def __str__(self) -> str:
        if self.status == "rewritten":
            return f"{self.rel}: {self.count} ambiguous link(s) written by path"
        return f"{self.rel}: left as it is ({self.detail})"

    def to_json(self) -> dict[str, object]:
        """JSON-ready."""
        return {"path": self.rel, "status": self.status, "count": self.count,
                "detail": self.detail}


def qualified(text: str, rel: str, scopes: tuple[str, ...], notes: links.NoteIndex
              ) -> tuple[str, int]:
    """``text`` (of note ``rel``) with each ambiguous bare link that ``scopes`` decide written by
    path, and how many were."""
    out: list[str] = []
    pos = count = 0
    for link in links.parse(text):
        if not links.ambiguous(link.target, rel, notes) or "\\|" in text[link.start:link.end]:
            continue
        meant = links.scoped(link.target, scopes, notes)
        if meant is None:
            continue
        new = links.format(meant[:-3] if meant.lower().endswith(".md") else meant,
                           heading=link.heading, block=link.block,
                           alias=link.alias or link.target)
        out += [text[pos:link.start], "!" if link.embed else "", new]
        pos = link.end
        count += 1
    return "".join([*out, text[pos:]]), count


def fix_links(vault: Vault, notes: Iterable[str]) -> list[LinkFix]:
    """Write by path the ambiguous links of each note (vault-relative) of vaultmem's folder."""
    listed = [r for r in dict.fromkeys(notes) if r.startswith(vault.layout.namespace + "/")]
    if not listed:
        return []
    index = links.NoteIndex(vault.iter_notes())
    return [_fix(vault, rel, index) for rel in listed]


def scopes(vault: Vault, rel: str) -> tuple[str, ...]:
    """The folders a bare name in note ``rel`` is looked for in: its project's, then global."""
    layout = vault.layout
    projects = f"{layout.namespace}/projects/"
    project = rel[len(projects):].split("/", 1)[0] if rel.startswith(projects) else ""
    own = (layout.project_dir(project),) if project else ()
    return (*own, f"{layout.namespace}/global")


def _fix(vault: Vault, rel: str, index: links.NoteIndex) -> LinkFix:
    try:
        note = vault.read(rel)
    except VaultmemError as err:
        return LinkFix(rel, "skipped", 0, err.message)
    text, count = qualified(note.text, rel, scopes(vault, rel), index)
    if not count:
        return LinkFix(rel, "skipped", 0, "no ambiguous link that its project or global decides")
    written = vault.write_text(rel, text, fmt=note.fmt, expected=note.fingerprint)
    if written.status == "conflicted":
        return LinkFix(rel, "skipped", 0, "the note changed meanwhile: run it again")
    return LinkFix(rel, "rewritten", count)
