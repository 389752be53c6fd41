"""Compaction, the pure part (DESIGN §5, §9): the threshold verdict and the plan of entity
rewrites; the deterministic extractor and the entity each item goes to are ``sessionextract``.
No disk, no clock.

Decisions made here, beyond the design:
- Each entity line links the archive copy of the session (``[[<archive path>|<stem>]]``): that
  path holds with and without ``--move``.
- An entity the session only named (a ``changes.LINKED`` reference) gets its backlink under
  ``## References`` and no ``## Recent Changes`` line: "Linked from the session" says nothing;
  one not yet written is not created for it (a note of no line).
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date

from vaultmem.memory import changes, entitynote, entityparse, routing, threshold
from vaultmem.memory.extraction import KINDS, TARGET_HEADING, Extraction, Item, Kind
from vaultmem.memory.sessionextract import Component, normalised, session_project
from vaultmem.notes import links, names, patch, propedit, schema, templating
from vaultmem.store.layout import Layout, link_target

# The threshold lives in a light module of its own (hooks ask "is it due?" without importing the
# extractor and the planner); these names stay available here.
Verdict = threshold.Verdict
FORCED_REASON = threshold.FORCED_REASON
verdict = threshold.verdict
created_date = threshold.created_date
canonical = threshold.canonical

REFERENCES_HEADING = schema.REFERENCES
BACKLINK_SUFFIX = " - Archived session (compacted)"


# -- the plan -----------------------------------------------------------------------------


entity_targets = routing.entity_targets


@dataclass(frozen=True)
class EntityPlan:
    """What compaction does to one entity note, in one rewrite (see :mod:`entitynote`)."""

    name: str
    rel: str
    create: bool  # the note did not exist when the plan was made
    lines: tuple[entitynote.Line, ...]  # every line bound for it (present ones are skipped)
    related: tuple[str, ...]  # links to the other components of the session
    overview: entitynote.Overview | None
    backlink: str  # the line under ## References
    create_text: str | None  # the note from the template when create (before the lines)

    def compose(self, text: str, today: date) -> entitynote.Composed:
        """The note's new text from its current one (pure; re-applied on a person's edit)."""
        return entitynote.compose(text, self.lines, related=self.related,
                                  overview=self.overview, backlink=self.backlink, today=today)


@dataclass(frozen=True)
class Plan:
    """The ordered steps of one compaction."""

    session_rel: str
    archive_rel: str
    entities: tuple[EntityPlan, ...]
    counts: Mapping[Kind, int]
    index_rel: str = ""  # the project's _index.md
    prerequisites: tuple[entitynote.Line, ...] = ()


def archive_rel(session_rel: str, layout: Layout) -> str:
    """Where the archive copy of a session note goes."""
    stem = posixpath.basename(session_rel)[:-3]
    return layout.archive(session_project(session_rel), stem)


def archive_link(archive: str) -> str:
    """``[[<archive path>|<stem>]]``."""
    target = link_target(archive)
    return links.format(target, alias=posixpath.basename(target))


def backlink_line(archive: str) -> str:
    """The ``## References`` line of an entity touched by a compaction (DESIGN §5 step 5)."""
    return f"- {archive_link(archive)}{BACKLINK_SUFFIX}"


def new_entity_text(name: str, project: str, today: date, archive: str) -> str:
    """A new entity note from the template, as compaction creates it."""
    return templating.render(
        "entity",
        project=project,
        created=today.isoformat(),
        updated=today.isoformat(),
        claude_last_accessed=today.isoformat(),
        title=name,
        overview=f"Created by vaultmem when compacting {archive_link(archive)}.",
    )


def entity_line(item: Item, day: str, link: str, filename: str) -> entitynote.Line:
    """The dated line of an item (DESIGN §9): its block id depends on the kind and the fact
    only; ``old_block`` is the id the format before dates gave this session's line."""
    return entitynote.Line(
        TARGET_HEADING[item.kind], day, item.text,
        names.block_id(item.kind, entityparse.fact_key(item.text)),
        names.block_id(filename, item.kind, normalised(item.text)), link)


def plan(
    extraction: Extraction,
    session_rel: str,
    targets: Mapping[str, str],
    texts: Mapping[str, str],
    *,
    layout: Layout,
    today: date,
    day: date | None = None,
    components_: Sequence[Component] = (),
    default_entity: str = "Inbox",
    link_to: Callable[[str, str], str] | None = None,
) -> Plan:
    """The entity steps of a compaction. ``targets`` maps each entity name of the extraction to
    its note (see :func:`entity_targets`); ``texts`` holds the current text of those that exist;
    ``day`` is the session's date (its lines' date), ``components_`` what ``## Related
    Entities`` says of each component; ``link_to(name, rel)`` writes an entity's link
    (default ``links.entity_link``: its path, the name as alias)."""
    archive = archive_rel(session_rel, layout)
    project = session_project(session_rel)
    filename = posixpath.basename(session_rel)
    link = archive_link(archive)
    stamp = (day or today).isoformat()
    order: list[str] = []  # rels, in order of first use
    # Each entity's lines in order, each once (a dict: a note with 15,000 decisions for one
    # component made a list's ``in`` test quadratic, 10 s and more inside SessionStart).
    by_rel: dict[str, dict[entitynote.Line, None]] = {}
    names_of: dict[str, str] = {}
    prerequisites: list[entitynote.Line] = []
    shared: dict[str, set[str]] = {}  # rel -> the rels it shares an item with
    for item in extraction.items:
        line = entity_line(item, stamp, link, filename)
        if item.kind == schema.Kind.PREREQUISITE:
            prerequisites.append(line)
            continue
        rels = [targets[name] for name in item.entities]
        for name, rel in zip(item.entities, rels, strict=True):
            if rel not in by_rel:
                order.append(rel)
                by_rel[rel] = {}
                names_of[rel] = name
            if item.text != changes.LINKED:  # only named: its backlink, no line (no content)
                by_rel[rel].setdefault(line)
            shared.setdefault(rel, set()).update(r for r in rels if r != rel)
    order = [rel for rel in order if by_rel[rel] or rel in texts]  # no note made for a name
    folders = {names.name_key(c.name): c.folders for c in components_}
    fallback = names.name_key(default_entity)
    stem_of = {rel: posixpath.basename(rel)[:-3] for rel in order}
    parts = [rel for rel in order if names.name_key(stem_of[rel]) != fallback]
    steps: list[EntityPlan] = []
    for rel in order:
        stem = stem_of[rel]
        related: tuple[str, ...] = ()
        overview = None
        if rel in parts:
            # The entities it shares an item with, not every one the session touched.
            related = tuple((link_to or links.entity_link)(stem_of[r], r)
                            for r in parts if r in shared.get(rel, ()))
            seen = folders.get(names.name_key(stem)) or folders.get(names.name_key(names_of[rel]))
            overview = entitynote.Overview(seen or (), stamp, link)
        # The template's dates are today's already.
        base = new_entity_text(stem, project, today, archive) if rel not in texts else None
        steps.append(EntityPlan(names_of[rel], rel, base is not None, tuple(by_rel[rel]),
                                related, overview, backlink_line(archive), base))
    counts = {kind: extraction.count(kind) for kind in KINDS}
    return Plan(session_rel, archive, tuple(steps), counts, layout.project_index(project),
                tuple(prerequisites))


def archive_text(canonical_text: str, reason: str, today: date) -> str:
    """The archive copy (DESIGN §5 step 4): the note with ``status: archived`` and why/when."""
    out = propedit.set_key(canonical_text, "status", "archived")
    out = propedit.set_key(out, "archived_date", today)
    return propedit.set_key(out, "archived_reason", reason)


def mark_edits(archive: str, reason: str, today: date) -> tuple[patch.Edit, ...]:
    """The step 6 edits of the original: archived, where to, when and why; old errors gone."""
    return (
        patch.DeleteProperty("error"),
        patch.DeleteProperty("archive_error"),
        patch.SetProperty("status", "archived"),
        patch.SetProperty("archived_to", links.format(link_target(archive))),
        patch.SetProperty("archived_date", today),
        patch.SetProperty("archived_reason", reason),
    )


def stub_text(text: str, archive: str, archived_body: str, today: date) -> str:
    """The original once its archive copy is verified: its properties (marked archived), its
    title and one line linking the archive — the session's one full copy, so Obsidian's search,
    quick switcher, graph and Bases show it once, while links to the original still open a note
    that leads there. A body that is not the one archived (a person wrote in it meanwhile) is
    kept whole: nothing of theirs is ever dropped."""
    from vaultmem.notes.fences import split

    parts = split(text)
    body = parts.body
    if body != archived_body:
        return text
    title = next((line for line in body.split("\n") if line.startswith("# ")), None)
    lead = body[: len(body) - len(body.lstrip("\n"))]
    said = (f"Compacted on {today.isoformat()}: the whole session, its work log, decisions and "
            f"next steps, is in {archive_link(archive)}.")
    return text[: parts.body_offset] + lead + (f"{title}\n\n" if title else "") + said + "\n"


def failed_edits(error: str) -> tuple[patch.Edit, ...]:
    """The edits that record a failed compaction on the original."""
    return (patch.SetProperty("status", "compaction_failed"), patch.SetProperty("error", error))
