"""Compaction, the pure part (DESIGN §5): the threshold verdict, the deterministic extractor,
the entity each item goes to, and the plan of entity patches. No disk, no clock.

Decisions made here, beyond the design:
- A decision is the first paragraph of a top-level list item under ``## Decisions Made``; the
  ``([[A]], [[B]])`` group that ``vaultmem session decide`` appends is dropped from the text (the
  links still choose the entities) and a trailing block id is dropped too.
- A gotcha is a ``### HH:MM - Title`` work-log entry whose text holds a keyword. Its text is the
  title (time dropped) plus the sentence holding the keyword (else the first sentence of the
  entry).
- A reference is one item per entity linked outside decision items and gotcha entries, with the
  line of its first mention that says something besides links. An entity whose only mentions are
  bare links (``- [[Auth]]`` under ``## Related Entities``) gets a "Linked from the session"
  reference only when no decision or gotcha goes to it.
- An entity link is a bare name (not a dated session name, not ``_index``, not an attachment) or
  a path whose folder is ``entities``. A link that could point outside the entities folder
  (``[[../../x]]``, a name Obsidian cannot hold) is refused: it becomes plain text in the item and
  the report carries a warning; the item goes to its other targets or to the fallback entity.
- Each entity line links the archive copy of the session (``[[<archive path>|<stem>]]``): that
  path holds with and without ``--move``.
"""

from __future__ import annotations

import bisect
import functools
import posixpath
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import date
from typing import TYPE_CHECKING

from . import frontmatter, links, names, patch, plainruns, sections, templating, threshold
from .config import Config
from .errors import UnsafePath
from .extraction import KINDS, TARGET_HEADING, Extraction, Item, Kind
from .layout import Layout, link_target
from .privacy import blank_private

if TYPE_CHECKING:
    from markdown_it import MarkdownIt

# The threshold lives in a light module of its own (hooks ask "is it due?" without importing the
# extractor and the planner); these names stay available here.
Verdict = threshold.Verdict
FORCED_REASON = threshold.FORCED_REASON
verdict = threshold.verdict
created_date = threshold.created_date
canonical = threshold.canonical

REFERENCES_HEADING = "References"
DECISIONS_HEADING = "Decisions Made"
WORK_LOG_HEADING = "Work Log"
RELATED_HEADING = "Related Entities"
BACKLINK_SUFFIX = " - Archived session (compacted)"
MAX_ITEM_CHARS = 400

_SESSION_NAME_RE = re.compile(r"^\d{4}-\d{2}-\d{2}(?:-|$)")
_ATTACHMENT_RE = re.compile(
    r"\.(?:png|jpe?g|gif|svg|webp|bmp|pdf|mp3|mp4|m4a|wav|ogg|webm|mov|canvas|base|zip)$",
    re.IGNORECASE,
)
_MARKER_RE = re.compile(r"^\s*(?:(?:>\s*)|(?:[-*+]|\d+[.)])\s+|\[[ xX]\]\s+|#{1,6}\s+)*")
_TIME_PREFIX_RE = re.compile(r"^\d{1,2}:\d{2}\s*[-–—]\s*")
_DECIDE_LINKS_RE = re.compile(r"\s*\((?:\s*\[\[[^\[\]\n]*\]\]\s*,?)+\s*\)\s*$")
_TRAILING_BLOCK_RE = re.compile(r"\s+\^[A-Za-z0-9-]+\s*$")
_SENTENCE_END_RE = re.compile(r"(?<=[.!?])\s+")
_SPACES_RE = re.compile(r"\s+")


# -- text helpers ---------------------------------------------------------------------------


def one_line(text: str) -> str:
    """Whitespace collapsed, clipped to MAX_ITEM_CHARS on a word boundary, never inside a link."""
    text = _SPACES_RE.sub(" ", text).strip()
    if len(text) <= MAX_ITEM_CHARS:
        return text
    cut = text[:MAX_ITEM_CHARS].rsplit(" ", 1)[0]
    if cut.rfind("[[") > cut.rfind("]]"):
        cut = cut[: cut.rfind("[[")].rstrip()
    return cut + " …"


def normalised(text: str) -> str:
    """The form of an item's text its block id is computed from."""
    return _SPACES_RE.sub(" ", text).strip().casefold()


def _has_words(text: str) -> bool:
    without = re.sub(r"!?\[\[[^\[\]\n]*\]\]", "", text)
    return any(ch.isalnum() for ch in without)


# -- links ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class _EntityLink:
    name: str | None  # None: refused (unsafe)
    line: int
    start: int
    end: int
    target: str
    error: str = ""


def classify(link: links.Link) -> str | None:
    """The entity name a link points to; None when it is not an entity link; UnsafePath when
    it is refused (a path out of the entities folder, a name Obsidian cannot hold)."""
    target = link.target
    if link.embed or not target or _ATTACHMENT_RE.search(target):
        return None
    if "/" in target or "\\" in target:
        parts = target.replace("\\", "/").split("/")
        if target.startswith(("/", "\\")) or ".." in parts or "\\" in target:
            raise UnsafePath(f"link [[{target}]] points outside the entities folder")
        if len(parts) >= 2 and parts[-2] == "entities":
            return links.safe_entity_name(parts[-1])
        return None
    bare = target[:-3] if target.lower().endswith(".md") else target
    if _SESSION_NAME_RE.match(bare) or bare == "_index":
        return None
    return links.safe_entity_name(target)


def _entity_links(text: str, first_line: int) -> list[_EntityLink]:
    starts = [0]
    at = text.find("\n")
    while at >= 0:
        starts.append(at + 1)
        at = text.find("\n", at + 1)
    found: list[_EntityLink] = []
    for link in links.parse(text):
        line = bisect.bisect_right(starts, link.start) - 1
        if line < first_line:
            continue  # the frontmatter (continues:, archived_to:) is not the session's content
        try:
            name = classify(link)
        except UnsafePath as err:
            found.append(_EntityLink(None, line, link.start, link.end, link.target, err.message))
            continue
        if name is not None:
            found.append(_EntityLink(name, line, link.start, link.end, link.target))
    return found


def neutralise(text: str) -> tuple[str, list[str]]:
    """Refused entity links turned into plain text (their target), with one message each."""
    problems: list[tuple[int, int, str, str]] = []
    for link in links.parse(text):
        try:
            classify(link)
        except UnsafePath as err:
            problems.append((link.start, link.end, link.target, err.message))
    out = text
    for start, end, target, _ in reversed(problems):
        out = out[:start] + target + out[end:]
    return out, [f"{msg}; kept as plain text" for _, _, _, msg in problems]


def _unique(names_: Iterable[str]) -> tuple[str, ...]:
    seen: set[str] = set()
    out: list[str] = []
    for name in names_:
        if name.casefold() not in seen:
            seen.add(name.casefold())
            out.append(name)
    return tuple(out)


# -- the deterministic extractor --------------------------------------------------------------


def _strip_markers(line: str) -> str:
    return _MARKER_RE.sub("", line, count=1).strip()


@functools.lru_cache(maxsize=1)
def _item_parser() -> MarkdownIt:
    # Built on first use (importing markdown-it costs 40 ms: plain sections never need it).
    # Items are read from the inline tokens' raw content, which the block rules fill in: no
    # inline parsing needed.
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark")
    md.disable("inline")
    return md


def _decision_items(
    text_lines: list[str], heading: sections.Heading
) -> list[tuple[str, int, int]]:
    """(text, first line, end line) of each top-level list item of a section (file lines)."""
    offset = heading.body_start
    chunk = "\n".join(text_lines[heading.body_start : heading.subtree_end])
    plain = plainruns.list_items(chunk)
    if plain is not None:
        return [(text, start + offset, end + offset) for text, start, end in plain]
    return [(text, start + offset, end + offset) for text, start, end in _list_items(chunk)]


def _list_items(chunk: str) -> list[tuple[str, int, int]]:
    """What :func:`plainruns.list_items` gives, read by markdown-it (any Markdown)."""
    tokens = _item_parser().parse(chunk)
    items: list[tuple[str, int, int]] = []
    start: tuple[int, int] | None = None
    for token in tokens:
        if token.type == "list_item_open" and token.level == 1 and token.map:
            start = (token.map[0], token.map[1])
        elif token.type == "inline" and token.level == 3 and start is not None:
            items.append((token.content, start[0], start[1]))
            start = None
    return items


def _gotcha_text(title: str, body: list[str], keywords: Sequence[str]) -> str:
    title = _TIME_PREFIX_RE.sub("", title).strip()
    lines = [line for line in (_strip_markers(raw) for raw in body) if line]

    def hit(text: str) -> bool:
        return any(k in text.casefold() for k in keywords)

    sentences = [s for line in lines for s in _SENTENCE_END_RE.split(line) if s]
    # The title says what the gotcha is about; the body adds the sentence that names it.
    sentence = next((s for s in sentences if hit(s)), "")
    if not sentence and sentences:
        sentence = sentences[0]
    if title and sentence:
        return f"{title}: {sentence}"
    return title or sentence


def extract_report(
    note_text: str, session_rel: str, config: Config
) -> tuple[Extraction, tuple[str, ...]]:
    """The deterministic extraction of a session note, and warnings (refused links)."""
    text = blank_private(note_text)
    split = frontmatter.split(text)
    text_lines = text.split("\n")
    all_links = _entity_links(text, split.body_start)
    heads = sections.headings(text)
    warnings = [
        f"{session_rel}:{lk.line + 1}: {lk.error}; kept as plain text"
        for lk in all_links
        if lk.name is None
    ]
    safe = [lk for lk in all_links if lk.name is not None]

    safe_lines = [lk.line for lk in safe]  # in line order, as links.parse finds them

    def names_in(first: int, end: int) -> tuple[str, ...]:
        lo, hi = bisect.bisect_left(safe_lines, first), bisect.bisect_left(safe_lines, end)
        return _unique(lk.name for lk in safe[lo:hi] if lk.name)

    def clean(raw: str) -> str:
        return one_line(neutralise(raw)[0])

    items: list[Item] = []
    claimed: list[tuple[int, int]] = []  # line ranges whose links belong to an item already
    for head in heads:
        if head.title != DECISIONS_HEADING or len(head.path) > 2:
            continue
        for raw, first, end in _decision_items(text_lines, head):
            body = _TRAILING_BLOCK_RE.sub("", _DECIDE_LINKS_RE.sub("", raw))
            item_text = clean(body)
            claimed.append((first, end))
            if item_text:
                items.append(Item("decision", item_text, names_in(first, end), first))
    keywords = tuple(k.casefold() for k in config.gotcha_keywords if k.strip())
    for head in heads:
        if len(head.path) < 2 or head.path[-2] != WORK_LOG_HEADING:
            continue
        entry = "\n".join(text_lines[head.line : head.subtree_end]).casefold()
        if not any(k in entry for k in keywords):
            continue
        entry_body = text_lines[head.body_start : head.subtree_end]
        item_text = clean(_gotcha_text(head.title, entry_body, keywords))
        claimed.append((head.line, head.subtree_end))
        if item_text:
            items.append(Item("gotcha", item_text, names_in(head.line, head.subtree_end), head.line))
    targeted = {name.casefold() for item in items for name in item.entities}
    references: dict[str, Item] = {}
    bare: dict[str, int] = {}
    in_item = bytearray(len(text_lines) + 1)  # 1 on the lines of a decision or gotcha
    for first, end in claimed:
        in_item[first:end] = b"\1" * (end - first)
    for lk in safe:
        assert lk.name is not None
        if in_item[lk.line]:
            continue
        key = lk.name.casefold()
        if key in references:
            continue
        line_text = _TIME_PREFIX_RE.sub("", _strip_markers(text_lines[lk.line]))
        if _has_words(line_text):
            references[key] = Item("reference", clean(line_text), (lk.name,), lk.line)
        else:
            bare.setdefault(key, lk.line)
    for lk in safe:
        assert lk.name is not None
        key = lk.name.casefold()
        if key in bare and key not in references and key not in targeted:
            references[key] = Item("reference", "Linked from the session", (lk.name,), bare[key])
    items.extend(sorted(references.values(), key=lambda item: item.line))
    extraction = Extraction(tuple(items), "deterministic")
    related = _related(heads, safe)
    assigned, more = _assign(extraction, related, session_rel, config)
    return assigned, tuple(warnings + more)


def extract(note_text: str, session_rel: str, config: Config) -> Extraction:
    """The deterministic extraction of a session note (DESIGN §5 step 1)."""
    return extract_report(note_text, session_rel, config)[0]


def _related(heads: Sequence[sections.Heading], found: Sequence[_EntityLink]) -> tuple[str, ...]:
    names_: list[str] = []
    for head in heads:
        if head.title == RELATED_HEADING and len(head.path) <= 2:
            names_.extend(
                lk.name for lk in found if lk.name and head.body_start <= lk.line < head.subtree_end
            )
    return _unique(names_)


def related_entities(note_text: str) -> tuple[str, ...]:
    """The safe entity names linked under ``## Related Entities``."""
    text = blank_private(note_text)
    found = _entity_links(text, frontmatter.split(text).body_start)
    return _related(sections.headings(text), found)


def assign_targets(
    extraction: Extraction, note_text: str, session_rel: str, config: Config
) -> tuple[Extraction, list[str]]:
    """Every item given its entities (DESIGN §5 step 2): the ones it links; else the single
    entity under ``## Related Entities``; else ``config.default_entity``. Names are checked,
    refused links in the text are neutralised (this also guards LLM output)."""
    return _assign(extraction, related_entities(note_text), session_rel, config)


def _assign(
    extraction: Extraction, related: tuple[str, ...], session_rel: str, config: Config
) -> tuple[Extraction, list[str]]:
    fallback = (related[0],) if len(related) == 1 else (config.default_entity,)
    warnings: list[str] = []
    items: list[Item] = []
    for item in extraction.items:
        kept: list[str] = []
        for name in item.entities:
            try:
                kept.append(links.safe_entity_name(name))
            except UnsafePath as err:
                warnings.append(f"{session_rel}: {err.message}; item sent to another entity")
        text, problems = neutralise(item.text) if "[[" in item.text else (item.text, [])
        if item.line < 0:  # the deterministic extractor reported these already
            warnings.extend(f"{session_rel}: {p}" for p in problems)
        text = one_line(text)
        if not text:
            continue
        items.append(replace(item, text=text, entities=_unique(kept) or fallback))
    return replace(extraction, items=tuple(items)), warnings


# -- the plan -----------------------------------------------------------------------------


def entity_targets(
    names_: Iterable[str], project: str, layout: Layout, known: Iterable[str]
) -> dict[str, str]:
    """Entity name -> note rel: the project's entity, else the global one, else a new note in
    the project. Names compare case-insensitively, as Obsidian does."""
    project_dir = layout.entities_dir(project) + "/"
    global_dir = layout.global_entities_dir() + "/"
    in_project: dict[str, str] = {}
    in_global: dict[str, str] = {}
    for rel in sorted(known):
        stem = posixpath.basename(rel)[:-3].casefold()
        if rel.startswith(project_dir) and "/" not in rel[len(project_dir):]:
            in_project.setdefault(stem, rel)
        elif rel.startswith(global_dir) and "/" not in rel[len(global_dir):]:
            in_global.setdefault(stem, rel)
    out: dict[str, str] = {}
    for name in names_:
        key = name.casefold()
        out[name] = in_project.get(key) or in_global.get(key) or layout.entity(project, name)
    return out


@dataclass(frozen=True)
class EntityLine:
    """One line bound for an entity."""

    kind: Kind
    heading: str
    block: str
    line: str  # "- text ([[archive|stem]]) ^vm-xxxxxxxx"


@dataclass(frozen=True)
class EntityPlan:
    """What compaction does to one entity note."""

    name: str
    rel: str
    create: bool  # the note did not exist when the plan was made
    lines: tuple[EntityLine, ...]  # lines not present yet, in extraction order
    skipped: int  # lines already present (applied by an earlier run)
    edits: tuple[patch.Edit, ...]  # the step 3 patch (empty when nothing to add)
    create_text: str | None  # the whole new note (template + lines) when create
    backlink: str  # the step 5 line under ## References


@dataclass(frozen=True)
class Plan:
    """The ordered steps of one compaction."""

    session_rel: str
    archive_rel: str
    entities: tuple[EntityPlan, ...]
    counts: Mapping[Kind, int]


def session_project(session_rel: str) -> str:
    """The project a session note belongs to (``<ns>/projects/<p>/sessions/<stem>.md``)."""
    parts = session_rel.split("/")
    if len(parts) >= 4 and parts[-2] == "sessions" and parts[-4] == "projects":
        return parts[-3]
    if len(parts) >= 5 and parts[-3:-1] == ["archive", "sessions"] and parts[-5] == "projects":
        return parts[-4]
    raise UnsafePath("not a session note (expected <ns>/projects/<p>/sessions/<name>.md)",
                     path=session_rel)


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


_BLOCK_ID_RE = re.compile(r"\^([A-Za-z0-9-]+)[ \t]*$", re.MULTILINE)


def has_line(text: str, line: str) -> bool:
    """True when ``text`` has ``line`` as a whole line (trailing spaces ignored)."""
    return any(existing.rstrip() == line for existing in text.split("\n"))


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


def plan(
    extraction: Extraction,
    session_rel: str,
    targets: Mapping[str, str],
    texts: Mapping[str, str],
    *,
    layout: Layout,
    today: date,
) -> Plan:
    """The entity steps of a compaction. ``targets`` maps each entity name of the extraction to
    its note (see :func:`entity_targets`); ``texts`` holds the current text of those that exist."""
    archive = archive_rel(session_rel, layout)
    project = session_project(session_rel)
    filename = posixpath.basename(session_rel)
    link = archive_link(archive)
    order: list[str] = []  # rels, in order of first use
    by_rel: dict[str, list[EntityLine]] = {}
    skipped: dict[str, int] = {}
    names_of: dict[str, str] = {}
    blocks_of: dict[str, set[str]] = {}  # block ids in the entity now or planned for it
    for item in extraction.items:
        block = names.block_id(filename, item.kind, normalised(item.text))
        line = EntityLine(item.kind, TARGET_HEADING[item.kind], block,
                          f"- {item.text} ({link}) ^{block}")
        for name in item.entities:
            rel = targets[name]
            if rel not in by_rel:
                order.append(rel)
                by_rel[rel] = []
                skipped[rel] = 0
                names_of[rel] = name
            if rel not in blocks_of:
                blocks_of[rel] = set(_BLOCK_ID_RE.findall(texts.get(rel, "")))
            if block in blocks_of[rel]:
                skipped[rel] += 1
            else:
                by_rel[rel].append(line)
                blocks_of[rel].add(block)
    steps: list[EntityPlan] = []
    for rel in order:
        lines = tuple(by_rel[rel])
        edits: list[patch.Edit] = []
        for heading in dict.fromkeys(x.heading for x in lines):
            content = "\n".join(x.line for x in lines if x.heading == heading)
            edits.append(patch.SectionPatch((heading,), "append", content, create=True, prefer="first"))
        create = rel not in texts
        create_text = None
        if create:
            stem = posixpath.basename(rel)[:-3]
            # The template's dates are today's already.
            base = new_entity_text(stem, project, today, archive)
            create_text = patch.apply_all(base, edits, file=rel).text
        elif edits:
            edits.append(patch.SetProperty("updated", today))
        steps.append(EntityPlan(names_of[rel], rel, create, lines, skipped[rel], tuple(edits),
                                create_text, backlink_line(archive)))
    counts = {kind: extraction.count(kind) for kind in KINDS}
    return Plan(session_rel, archive, tuple(steps), counts)


def backlink_edits(entity_text: str, archive: str, today: date) -> tuple[patch.Edit, ...]:
    """The step 5 edits for one entity: nothing when the backlink is there already.
    (``updated`` was set with the entity's lines in step 3.)"""
    line = backlink_line(archive)
    if has_line(entity_text, line):
        return ()
    return (patch.SectionPatch((REFERENCES_HEADING,), "append", line, create=True, prefer="first"),)


def archive_text(canonical_text: str, reason: str, today: date) -> str:
    """The archive copy (DESIGN §5 step 4): the note with ``status: archived`` and why/when."""
    out = frontmatter.set_key(canonical_text, "status", "archived")
    out = frontmatter.set_key(out, "archived_date", today)
    return frontmatter.set_key(out, "archived_reason", reason)


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


def failed_edits(error: str) -> tuple[patch.Edit, ...]:
    """The edits that record a failed compaction on the original."""
    return (patch.SetProperty("status", "compaction_failed"), patch.SetProperty("error", error))
