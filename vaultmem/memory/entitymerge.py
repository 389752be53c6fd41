"""``vaultmem entity merge A B`` and ``vaultmem entity rename A B`` (issue 29).

For the people whose vault already has one component split over near-named entities (``Invoice``
and ``Invoices``) or named after a folder: one entity takes the other's place.

- **merge A B**: A's lines go into B section by section, each line once (the same block id or
  the same fact, date and links aside, is already there); dated lines keep date order; a
  section B lacks is added. A's name becomes an alias of B (so capture files a mention of it
  there). Then every link to A in the vault points to B, and A is removed.
- **rename A B**: A's note is written as B (its title too, A kept as an alias), every link to A
  points to B, and A is removed. B must not exist: that is a merge.

Every link form is rewritten: ``[[A]]``, ``[[A|shown]]``, ``[[path/to/A|shown]]``, ``[[A#heading]]``,
``[[A#^block]]``, embeds; a link shown as A's name shows B's. Which note a link means is decided
the Obsidian way from the note holding it, so another project's ``A`` keeps its links.
Writes go through the conflict-safe store: the target first (nothing is lost if the rest
fails), then the links, then A is removed only if it is still as read. A note changed meanwhile
is reported and left; running the command again finishes the work (a merge never adds a line
twice). ``dry_run`` reads and plans only.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

from vaultmem.errors import InvalidValue, NoteExists, NoteNotFound
from vaultmem.memory import entityparse, linkfix
from vaultmem.notes import links, names, nearnames, propedit, sections
from vaultmem.notes.lazyre import lazy
from vaultmem.store.vault import Vault
from vaultmem.store.vaultread import Note

KEPT_SECTIONS = frozenset({"overview"})  # the target's own says what it is
RELATED_SECTIONS = frozenset({"related entities"})
_ROW = lazy(r"[-*+] ")
_DATED = lazy(r"[-*+] (\d{4}-\d{2}-\d{2})\b")
_BLOCK = lazy(r" \^([A-Za-z0-9-]+)[ \t]*$")
_LEAD = lazy(r"^[-*+] (?:\d{4}-\d{2}-\d{2}(?: — |: | - ))?")
_LINK_GROUP = lazy(r"\s*\((?:\[\[[^\[\]\n]*\]\][,;\s]*)+\)\s*$")


# -- the text, pure -----------------------------------------------------------------------------


def _rows(lines: list[str]) -> list[list[str]]:
    """A section's list rows, each its first line and the indented lines under it."""
    rows: list[list[str]] = []
    for line in lines:
        if _ROW.match(line):
            rows.append([line])
        elif rows and line[:1] in (" ", "\t") and line.strip():
            rows[-1].append(line)
    return rows


def _keys(row: list[str]) -> set[str]:
    """What makes a row the same line as another: its block id, its fact."""
    first = row[0]
    block = _BLOCK.search(first)
    text = _LINK_GROUP.sub("", _BLOCK.sub("", _LEAD.sub("", first)))
    out = {"fact:" + entityparse.fact_key(" ".join([text, *row[1:]]))}
    return out | ({"id:" + block.group(1)} if block else set())


def _section(text: str, title: str) -> sections.Heading | None:
    return next((h for h in sections.headings(text) if h.level == 2
                 and h.title.casefold() == title.casefold()), None)


def _insert(text: str, title: str, rows: list[list[str]]) -> str:
    """``text`` with ``rows`` in its section ``title`` (added at the end when missing): a dated
    row before the first row dated later, any other after the section's last row."""
    head = _section(text, title)
    lines = text.split("\n")
    if head is None:
        body = "\n".join(line for row in rows for line in row)
        return text.rstrip("\n") + f"\n\n## {title}\n\n{body}\n"
    end = head.subtree_end
    while end > head.body_start and not lines[end - 1].strip():
        end -= 1
    for row in rows:
        at = end
        dated = _DATED.match(row[0])
        if dated:
            for i in range(head.body_start, end):
                later = _DATED.match(lines[i])
                if later and later.group(1) > dated.group(1):
                    at = i
                    break
        # A section with no row yet gets its first after a blank line, as the template has it.
        piece = ["", *row] if end == head.body_start else row
        lines[at:at] = piece
        end += len(piece)
    return "\n".join(lines)


def merged(target: str, source: str, *, unwanted: Callable[[str], bool] = lambda _: False
           ) -> tuple[str, int]:
    """The target note's text with every line of the source's sections it lacks (Overview
    aside), and how many were added; ``unwanted(row)`` drops a Related Entities row (a link to
    either note itself)."""
    added = 0
    src_lines = source.split("\n")
    for head in sections.headings(source):
        if head.level != 2 or head.title.casefold() in KEPT_SECTIONS:
            continue
        rows = _rows(src_lines[head.body_start:head.subtree_end])
        if head.title.casefold() in RELATED_SECTIONS:
            rows = [r for r in rows if not unwanted(r[0])]
        existing = _section(target, head.title)
        have: set[str] = set()
        if existing is not None:
            tl = target.split("\n")
            for row in _rows(tl[existing.body_start:existing.subtree_end]):
                have |= _keys(row)
        new = []
        for row in rows:
            keys = _keys(row)
            if not keys & have:
                new.append(row)
                have |= keys
        if new:
            target = _insert(target, head.title, new)
            added += len(new)
    return _without(target, unwanted), added


def _without(text: str, unwanted: Callable[[str], bool]) -> str:
    """``text`` without the Related Entities rows ``unwanted`` names."""
    head = next((h for h in sections.headings(text) if h.level == 2
                 and h.title.casefold() in RELATED_SECTIONS), None)
    if head is None:
        return text
    lines = text.split("\n")
    kept = [line for line in lines[head.body_start:head.subtree_end]
            if not (_ROW.match(line) and unwanted(line))]
    return "\n".join([*lines[:head.body_start], *kept, *lines[head.subtree_end:]])


def relinked(text: str, rel: str, meant: Callable[[str, str], bool], new_target: str,
             old_name: str, new_name: str) -> tuple[str, int]:
    """``text`` (of note ``rel``) with every link that ``meant(target, rel)`` says points to the
    old note pointing to ``new_target`` (a bare name, or the path for a link written by path);
    heading, block, embed and alias kept, an alias showing the old name shows the new one."""
    out: list[str] = []
    pos = count = 0
    for link in links.parse(text):
        if not link.target or not meant(link.target, rel):
            continue
        raw = text[link.start:link.end]
        target = new_target if "/" in link.target else new_name
        alias = link.alias
        if alias is not None and names.name_key(alias.strip()) == names.name_key(old_name):
            alias = new_name
        if "\\|" in raw:  # inside a table: the escaped bar stays as written
            new = raw.replace(link.target, target, 1)
        else:
            new = ("!" if link.embed else "") + links.format(
                target, heading=link.heading, block=link.block, alias=alias)
        out += [text[pos:link.start], new]
        pos = link.end
        count += 1
    return "".join([*out, text[pos:]]), count


def with_alias(text: str, alias: str) -> str:
    """The note's text with ``alias`` among its frontmatter ``aliases`` (once)."""
    return propedit.add_to_list(text, "aliases", alias)


def retitled(text: str, old: str, new: str) -> str:
    """The note's text with its ``# old`` title reading ``# new``."""
    lines = text.split("\n")
    for i, line in enumerate(lines):
        if line.startswith("# ") and names.name_key(line[2:].strip()) == names.name_key(old):
            lines[i] = f"# {new}"
            break
    return "\n".join(lines)


# -- the use-cases ------------------------------------------------------------------------------


@dataclass(frozen=True)
class EntityChange:
    """What a merge or rename did (or, dry, would do)."""

    action: Literal["merge", "rename"]
    source: str  # the note that goes away
    target: str  # the note that stays or is created
    status: Literal["done", "dry-run", "conflicted"]
    lines_added: int = 0
    relinked: tuple[tuple[str, int], ...] = ()  # (note, links rewritten)
    left: tuple[str, ...] = field(default_factory=tuple)  # notes changed meanwhile

    def to_json(self) -> dict[str, Any]:
        """JSON-ready."""
        return {"action": self.action, "source": self.source, "target": self.target,
                "status": self.status, "lines_added": self.lines_added,
                "relinked": [{"path": r, "links": n} for r, n in self.relinked],
                "left": list(self.left)}

    def __str__(self) -> str:
        verb = {"done": "", "dry-run": "would be ", "conflicted": "stopped: "}[self.status]
        links_ = sum(n for _, n in self.relinked)
        said = (f"{self.source} {verb}{self.action}d into {self.target}: "
                f"{self.lines_added} line(s) added, {links_} link(s) in "
                f"{len(self.relinked)} note(s) rewritten")
        if self.status == "conflicted" or self.left:
            said += "; changed meanwhile, run it again: " + ", ".join(self.left)
        return said


def entity_rel(vault: Vault, name: str, project: str | None) -> str:
    """The entity note ``name`` means: the project's, else a global one; NoteNotFound."""
    layout = vault.layout
    folders = [layout.entities_dir(project)] if project else []
    folders.append(layout.global_entities_dir())
    stem = name.strip().removesuffix(".md")
    for folder in folders:
        found = links.named(stem, vault.iter_notes(folder))
        inside = [r for r in found if posixpath.dirname(r) == folder]
        if inside:
            return inside[0]
    raise NoteNotFound(f"no entity note named {stem!r}" + (f" in project {project}" if project
                                                           else ""), path=stem)


def merge(vault: Vault, source: str, target: str, *, project: str | None,
          dry_run: bool = False) -> EntityChange:
    """Merge entity ``source`` into ``target`` (names or paths of entity notes)."""
    s_rel, t_rel = entity_rel(vault, source, project), entity_rel(vault, target, project)
    if s_rel == t_rel:
        raise InvalidValue(f"{source!r} and {target!r} are the same note", path=s_rel)
    s_note, t_note = vault.read(s_rel), vault.read(t_rel)
    index = links.NoteIndex(vault.iter_notes())
    def selfish(row: str) -> bool:
        return any(_means(vault, index, lk.target, t_rel) in (s_rel, t_rel)
                   for lk in links.parse(row) if lk.target)

    text, added = merged(t_note.text, s_note.text, unwanted=selfish)
    text = with_alias(text, _stem(s_rel))
    return _finish(vault, "merge", s_note, s_rel, t_rel, text, added, index, dry_run,
                   expected=t_note)


def rename(vault: Vault, source: str, new_name: str, *, project: str | None,
           dry_run: bool = False) -> EntityChange:
    """Rename entity ``source`` to ``new_name`` (a new note in the same folder)."""
    s_rel = entity_rel(vault, source, project)
    clean = names.sanitize_filename(new_name.strip().removesuffix(".md"))
    t_rel = f"{posixpath.dirname(s_rel)}/{clean}.md"
    index = links.NoteIndex(vault.iter_notes())
    if names.name_key(t_rel) == names.name_key(s_rel):
        raise InvalidValue("the new name differs from the old one only by case or not at all",
                           path=s_rel)
    if index.exact(t_rel[:-3].lower()) or vault.exists(t_rel):
        raise NoteExists(f"{t_rel} exists: `vaultmem entity merge {source} {clean}` merges "
                         "them", path=t_rel)
    s_note = vault.read(s_rel)
    text = with_alias(retitled(s_note.text, _stem(s_rel), clean), _stem(s_rel))
    return _finish(vault, "rename", s_note, s_rel, t_rel, text, 0, index, dry_run)


def _means(vault: Vault, index: links.NoteIndex, target: str, rel: str) -> str | None:
    """The note a link in ``rel`` means, as vaultmem reads it: a bare name in a project's note
    is that project's note of the name, else the global one, else Obsidian's choice."""
    if "/" not in target:
        found = links.scoped(target.removesuffix(".md"), linkfix.scopes(vault, rel), index)
        if found is not None:
            return found
    return index.resolve(target, rel)


def near_names(notes: Iterable[str]) -> list[tuple[str, str]]:
    """(note, suggestion) for each pair of entities of one ``entities`` folder named alike."""
    folders: dict[str, list[str]] = {}
    for rel in notes:
        folder, _, name = rel.rpartition("/")
        if folder.endswith("/entities") and name.lower().endswith(".md"):
            folders.setdefault(folder, []).append(name[:-3])
    out = []
    for folder, stems in sorted(folders.items()):
        parts = folder.split("/")
        own = parts[-2] if len(parts) >= 3 and parts[-3] == "projects" else ""
        project = f"--project {own} " if own else ""
        for a, b in nearnames.near_pairs(stems):
            if names.name_key(a) == names.name_key(b):
                continue  # a case-collision, reported as such
            if nearnames.same(a, own):
                a, b = b, a  # the project itself is no component of it: its note goes
            said = (f"{b!r} and {a!r} look like one component: `vaultmem {project}entity merge "
                    f"{_quoted(b)} {_quoted(a)}` joins them (or `entity rename`)")
            out.append((f"{folder}/{b}.md", said))
    return out


def _quoted(name: str) -> str:
    return f'"{name}"' if " " in name else name


def _stem(rel: str) -> str:
    return posixpath.basename(rel)[:-3]


def _finish(vault: Vault, action: Literal["merge", "rename"], s_note: Note, s_rel: str,
            t_rel: str, t_text: str, added: int, index: links.NoteIndex, dry_run: bool,
            *, expected: Note | None = None) -> EntityChange:
    s_name, t_name = _stem(s_rel), _stem(t_rel)
    path_target = t_rel[:-3]

    def meant(target: str, rel: str) -> bool:
        return _means(vault, index, target, rel) == s_rel

    t_text, own = relinked(t_text, t_rel, meant, path_target, s_name, t_name)
    plans: list[tuple[Note, str, int]] = []
    for rel in index:
        if rel in (s_rel, t_rel):
            continue
        note = vault.read(rel)
        if s_name.casefold() not in note.text.casefold():
            continue  # no link to it can be here: its name is in every link to it
        new, count = relinked(note.text, rel, meant, path_target, s_name, t_name)
        if count:
            plans.append((note, new, count))
    done = tuple((n.rel, c) for n, _, c in plans) + (((t_rel, own),) if own else ())
    if dry_run:
        return EntityChange(action, s_rel, t_rel, "dry-run", added, done)
    if expected is not None:
        wrote = vault.write_text(t_rel, t_text, fmt=expected.fmt, expected=expected.fingerprint)
        if wrote.status == "conflicted":
            return EntityChange(action, s_rel, t_rel, "conflicted", 0, (), (t_rel,))
    else:
        vault.create(t_rel, t_text)
    left = []
    for note, new, _ in plans:
        if vault.write_text(note.rel, new, fmt=note.fmt,
                            expected=note.fingerprint).status == "conflicted":
            left.append(note.rel)
    if not vault.remove(s_rel, expected=s_note.fingerprint):
        left.append(s_rel)
    return EntityChange(action, s_rel, t_rel, "done", added, done, tuple(left))
