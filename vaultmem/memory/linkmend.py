"""Path links follow their note: a link vaultmem wrote by path to a note that has moved since is
written to the note's new path (issue 33).

vaultmem writes every link by path, ``[[claude/projects/p/entities/Billing|Billing]]``, so no
two projects' ``Billing`` make it ambiguous. A path stops resolving when its note moves. The
moves vaultmem makes itself rewrite the links of the vault they run in (promote, entity merge
and rename, relocate, archive); a link written meanwhile on another machine arrives with a pull
and points at the old path. This pass finds where such a note went, the way vaultmem moves
notes:

- a project entity ``p/entities/E``: the entity of ``p`` that took ``E`` as an alias (merged
  or renamed), else the global ``E`` (promoted), else the global entity with the alias ``E``;
- a global entity ``E``: the global entity with the alias ``E``;
- a session ``p/sessions/S`` (archived or relocated): the one note of vaultmem's folder named
  ``S`` (a session's name is unique: its date and topic).

Only links into vaultmem's folder that resolve to no note are rewritten, and only in vaultmem's
notes, through the conflict-safe write; heading, block, embed and alias stay (an alias showing
the old name of a renamed entity shows the new one). ``vaultmem init --git`` runs it after each
merge (git's ``post-merge`` hook: ``vaultmem mend-links``); ``doctor --fix`` runs it too.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from vaultmem.errors import VaultmemError
from vaultmem.notes import links, names
from vaultmem.store.layout import Layout, link_target
from vaultmem.store.vault import Vault


@dataclass(frozen=True)
class Mended:
    """The links of one note written to where their notes went."""

    rel: str
    count: int
    status: str = "rewritten"  # or "skipped" (the note changed meanwhile, or is unreadable)

    def __str__(self) -> str:
        if self.status == "rewritten":
            return f"{self.rel}: {self.count} link(s) to a moved note follow it"
        return f"{self.rel}: links to moved notes left ({self.status})"


def _stem(rel: str) -> str:
    return posixpath.basename(rel)[:-3] if rel.lower().endswith(".md") else posixpath.basename(rel)


class Whereabouts:
    """Where vaultmem's moved notes are now, from the vault's note list (and, when an entity
    link needs it, the aliases of its entities)."""

    def __init__(self, layout: Layout, notes: links.NoteIndex,
                 aliases_of: Callable[[str], Iterable[str]]) -> None:
        self.layout = layout
        self.notes = notes
        self._aliases_of = aliases_of
        self._aliased: dict[str, dict[str, str]] = {}  # entities folder -> alias key -> note

    def _aliases(self, folder: str) -> dict[str, str]:
        """Alias (name key) -> entity note of ``folder`` that carries it; read once a folder."""
        known = self._aliased.get(folder)
        if known is None:
            known = {}
            prefix = folder + "/"
            for rel in self.notes:
                if rel.startswith(prefix) and "/" not in rel[len(prefix):]:
                    for alias in self._aliases_of(rel):
                        known.setdefault(names.name_key(alias), rel)
            self._aliased[folder] = known
        return known

    def _existing(self, rel: str) -> str | None:
        found = self.notes.exact(links.link_key(rel))
        return min(found) if found else None

    def now(self, target: str) -> str | None:
        """The note a path ``target`` into vaultmem's folder meant, where it is now; None when
        it is not vaultmem's or vaultmem did not move it."""
        parts = target.removesuffix(".md").split("/")
        ns = self.layout.namespace
        if len(parts) < 3 or parts[0] != ns or "" in parts:
            return None
        name = parts[-1]
        glob = self.layout.global_entities_dir()
        if len(parts) == 5 and parts[1] == "projects" and parts[3] == "entities":
            own = self._aliases(self.layout.entities_dir(parts[2])).get(names.name_key(name))
            return (own or self._existing(self.layout.global_entity(name))
                    or self._aliases(glob).get(names.name_key(name)))
        if "/".join(parts[:-1]) == glob:
            return self._aliases(glob).get(names.name_key(name))
        if len(parts) >= 5 and parts[1] == "projects" and parts[-2] == "sessions":
            mine = [n for n in self.notes.by_name(links.link_key(name))
                    if n.startswith(ns + "/") and "/sessions/" in n]
            if len(mine) > 1:  # a compacted session: its stub and its archive copy
                archived = "/archive/sessions/" in target
                mine = [n for n in mine if ("/archive/sessions/" in n) == archived]
            return mine[0] if len(mine) == 1 else None
        return None


def mended(text: str, rel: str, where: Whereabouts) -> tuple[str, int]:
    """``text`` (of note ``rel``) with each path link to a moved note of vaultmem's written to
    the note's path now, and how many were."""
    out: list[str] = []
    pos = count = 0
    for link in links.parse(text):
        if "/" not in link.target or where.notes.resolve(link.target, rel) is not None:
            continue
        now = where.now(link.target)
        if now is None or "\\|" in text[link.start:link.end]:
            continue
        old_name, new_name = _stem(link.target), _stem(now)
        alias = link.alias
        if alias is not None and names.name_key(alias.strip()) == names.name_key(old_name):
            alias = new_name
        new = links.format(link_target(now), heading=link.heading, block=link.block, alias=alias)
        out += [text[pos:link.start], "!" if link.embed else "", new]
        pos = link.end
        count += 1
    return "".join([*out, text[pos:]]), count


def _aliases_reader(vault: Vault) -> Callable[[str], Iterable[str]]:
    def aliases(rel: str) -> list[str]:
        try:
            value = vault.read(rel).frontmatter().get("aliases")
        except VaultmemError:
            return []
        if isinstance(value, str):
            return [value]
        return [str(v) for v in value] if isinstance(value, list) else []

    return aliases


def mend(vault: Vault, rels: Iterable[str] | None = None) -> list[Mended]:
    """Write the links to moved notes of each of vaultmem's notes (``rels``, else all of them)
    to where the notes are now; the notes changed, and those left."""
    notes = links.NoteIndex(vault.iter_notes())
    ns = vault.layout.namespace + "/"
    listed = [r for r in dict.fromkeys(notes if rels is None else rels) if r.startswith(ns)]
    where = Whereabouts(vault.layout, notes, _aliases_reader(vault))
    out: list[Mended] = []
    for rel in listed:
        try:
            note = vault.read(rel)
        except VaultmemError as err:
            out.append(Mended(rel, 0, err.message))
            continue
        if "/" not in note.text or "[[" not in note.text:
            continue
        text, count = mended(note.text, rel, where)
        if not count:
            continue
        written = vault.write_text(rel, text, fmt=note.fmt, expected=note.fingerprint)
        out.append(Mended(rel, count) if written.status != "conflicted"
                   else Mended(rel, 0, "it changed meanwhile: run it again"))
    return out
