"""What the briefing reads from a note: session, entity and project-index digests. Pure.

The formats are in docs/ARCHITECTURE.md ("The notes") and the templates. A person may
reorganise a note, so every reader here is lenient: sections are found by name in any case, a
duplicated section is read in every copy (never "matches 2 headings"), lines inside fenced code or
HTML are not items, and text a person marked ``<private>`` is gone before anything is read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from vaultmem.memory import anchors, entityparse
from vaultmem.mining import settled
from vaultmem.notes import mdlines, schema, sections
from vaultmem.notes.frontmatter import parse
from vaultmem.notes.lazyre import lazy
from vaultmem.notes.privacy import strip_private

from ..errors import VaultmemError
from . import worklog
from .worklog import Turn

BLOCK_ID = lazy(r"\s*\^vm-[0-9a-zA-Z-]+\s*$")
ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
DATED = re.compile(r"(\d{4}-\d{2}-\d{2})(?:\s+[—–-]+\s+|:\s+)(.*)")
# The trailing ``([[…]], [[…]])`` group: components in a session note, sessions in an entity's.
LINK_GROUP = re.compile(r"\s*\(((?:\s*!?\[\[[^\]\n]*\]\]\s*,?)+)\)\s*$")
WIKILINK = re.compile(r"!?\[\[([^\]|#\n]*)(?:#[^\]|\n]*)?(?:\|([^\]\n]*))?\]\]")
STATUS_WORD = re.compile(r"[a-z][a-z_-]{0,29}")
ENDED = "Session End"  # the work-log entry a session's end writes (memory.sessions.end_session)
# Headings spelled as the templates spell them; older or hand-written notes use the others.
DECISIONS = (schema.DECISIONS_MADE, schema.KEY_DECISIONS, schema.DECISIONS)
GOTCHAS = (schema.GOTCHAS_AND_FIXES, schema.GOTCHAS_AND_TROUBLESHOOTING, schema.GOTCHAS)
PREREQUISITES = (schema.PREREQUISITES,)
OPEN_QUESTIONS = (schema.OPEN_QUESTIONS,)
NEXT_STEPS = (schema.NEXT_STEPS,)
RELATED = (schema.RELATED_ENTITIES,)
KEY_ENTITIES = (schema.KEY_ENTITIES,)
WORK_LOG = (schema.WORK_LOG,)


@dataclass(frozen=True)
class Item:
    """One list line: its date when dated, its text (block id and link group dropped), the names
    its trailing link group lists."""

    text: str
    date: str | None = None
    links: tuple[str, ...] = ()
    anchor: str = ""  # its ``%%vm-anchor …%%`` comment (anchors.py), taken out of the text


@dataclass(frozen=True)
class SessionDigest:
    """The parts of a session note worth carrying into the next session."""

    rel: str
    date: str
    topic: str
    status: str
    branch: str
    turns: tuple[Turn, ...]  # oldest first
    failing: tuple[str, ...]  # failures whose command did not pass later in the session
    decisions: tuple[Item, ...]
    gotchas: tuple[Item, ...]
    prerequisites: tuple[Item, ...]
    open_questions: tuple[Item, ...]
    next_steps: tuple[Item, ...]
    entities: tuple[str, ...]  # link targets: Related Entities, then the items' link groups
    logged: int = 0  # work-log entries
    # Calls the permissions stopped or the person rejected that no later run of theirs passed
    # (``Not run:`` lines; an older note's ``Failed:`` line saying so), as ``failing`` is.
    not_run: tuple[str, ...] = ()
    stopped: str = ""  # Claude Code's notice (usage limit, API error) no later answer followed
    done: tuple[str, ...] = ()  # todo items completed and commits made (``Done:``, ``Committed:``)
    # The person's last request when no answer followed it, or one that only asked back: the
    # session ended (or was cut off) while working on it, so the request is what it left open.
    asked: str = ""
    changed: tuple[str, ...] = ()  # what it installed, removed or set (installs), read if prose

    @property
    def empty(self) -> bool:
        """Nothing to brief (a note that was just started)."""
        return not (self.logged or self.turns or self.failing or self.decisions or self.gotchas
                    or self.prerequisites or self.open_questions or self.next_steps
                    or self.not_run or self.stopped)


@dataclass(frozen=True)
class EntityDigest:
    """An entity's decisions and gotchas, newest first (dated lines by date, then file order)."""

    rel: str
    name: str
    decisions: tuple[Item, ...]
    gotchas: tuple[Item, ...]
    changes: tuple[Item, ...] = ()  # ## Recent Changes
    left_out: int = 0  # older lines past the newest ``limit`` of a kind (see ``entity``)

    @property
    def newest(self) -> str | None:
        """The date of its newest dated line."""
        lines = (*self.decisions, *self.gotchas, *self.changes)
        return max((i.date for i in lines if i.date), default=None)


@dataclass(frozen=True)
class IndexDigest:
    """The project index: its prerequisites and the entities it links."""

    prerequisites: tuple[Item, ...]
    entities: tuple[str, ...]


# A line an ordered list item could start: in a note that has one, which lines are items is
# markdown-it's to say ("2." after a paragraph continues it).
_ORDERED_LINE = re.compile(r"^\d+[.)]\s", re.MULTILINE)
_BULLETS = ("- ", "* ", "+ ")


class _Note:
    """A note's text (private spans removed) with its sections and block kinds, parsed once.
    ``lists_only``: only list items will be asked for, so a vaultmem-shaped note without ordered
    lists is not parsed: its headings are found by a line scan, and its items are its bullet
    lines (an entity holds years of them)."""

    def __init__(self, text: str, *, lists_only: bool = False) -> None:
        self.text = strip_private(text)
        self.lines = self.text.split("\n")
        plain = entityparse.plain_headings(self.text) \
            if lists_only and not _ORDERED_LINE.search(self.text) else None
        if plain is not None:
            self.heads = plain
            self.kind = ["bullet_list" if line[:2] in _BULLETS else "" for line in self.lines]
            return
        self.heads = sections.headings(self.text)
        # The kind of top-level block each line belongs to ("" outside any block).
        self.kind = [""] * len(self.lines)
        for block in sections.blocks(self.text):
            for n in range(block.start, min(block.end, len(self.lines))):
                self.kind[n] = block.kind

    def ranges(self, names: tuple[str, ...]) -> list[tuple[int, int]]:
        """(body start, subtree end) of every section with one of ``names``, duplicates included."""
        wanted = {n.casefold() for n in names}
        return [(h.body_start, h.subtree_end) for h in self.heads if h.title.casefold() in wanted]

    def items(self, names: tuple[str, ...], limit: int | None = None) -> tuple[list[Item], int]:
        """The top-level list items of the named sections, in file order: all of them, or the
        newest ``limit`` (by date, then file order); and how many were left out. Only the lines
        kept are read whole: an entity holds years of lines."""
        raws: list[str] = []
        for start, end in self.ranges(names):
            for n in range(start, end):
                if self.kind[n] in ("bullet_list", "ordered_list"):
                    line = self.lines[n]
                    marker = mdlines.LIST_ITEM.match(line)  # a top-level item: not indented
                    if marker and not marker.group(1) and line[marker.end():].strip():
                        raws.append(line[marker.end():].strip())
        if limit is None or len(raws) <= limit:
            return [item(raw) for raw in raws], 0
        days = [_dated(raw)[0] or "" for raw in raws]
        kept = sorted(range(len(raws)), key=lambda n: (days[n], n), reverse=True)[:limit]
        return [item(raws[n]) for n in sorted(kept)], len(raws) - limit

    def title(self) -> str:
        """The text of the first H1."""
        return next((h.title for h in self.heads if h.level == 1), "")


_BLOCK_AT = re.compile(BLOCK_ID.pattern.removeprefix(r"\s*"))


def _dated(raw: str) -> tuple[str | None, str]:
    """A list line's date (None when undated) and its text after it, block id dropped (looked
    for at its last ``^vm-``: BLOCK_ID's leading spaces would have the regex try every space)."""
    text = raw.rstrip("\r")
    at = text.rfind("^vm-")
    if at >= 0 and _BLOCK_AT.match(text, at):
        text = text[:at]
    text = text.strip()
    dated = DATED.fullmatch(text)
    return (dated.group(1), dated.group(2)) if dated else (None, text)


def item(raw: str) -> Item:
    """A list line's text split into date, text and trailing links (block id dropped)."""
    date, text = _dated(raw)
    links: tuple[str, ...] = ()
    group = LINK_GROUP.search(text)
    if group and group.start() > 0:
        links = tuple(link_targets(group.group(1)))
        text = text[: group.start()].rstrip()
    text, anchor = anchors.split(text)
    if group and group.start() > 0:
        # A session's "text ([[Billing]])" filed into an entity: its components are not text.
        inner = LINK_GROUP.search(text)
        if inner and inner.start() > 0:
            text = text[: inner.start()].rstrip()
    return Item(text=text.rstrip(), date=date, links=links, anchor=anchor)


def link_targets(text: str) -> list[str]:
    """The targets of the wikilinks in ``text`` (one line), in order."""
    return [m.group(1).strip() for m in WIKILINK.finditer(text) if m.group(1).strip()]


def _meta(text: str, rel: str) -> dict[str, Any]:
    try:
        return parse(text, path=rel)
    except VaultmemError:
        return {}


def _stem(rel: str) -> str:
    return rel.rsplit("/", 1)[-1].removesuffix(".md")


_FRONT = lazy(r"\A---[ \t]*\r?\n.*?^---[ \t]*\r?$", re.MULTILINE | re.DOTALL)
# A line that may hold something to brief: a list item, a heading (an entry of the work log, a
# section a person added), a quote (a recap), an answer.
_CONTENT_LINE = lazy(r"^[ \t]*(?:(?:[-*+]|\d{1,9}[.)])[ \t]+\S|(#{1,6})[ \t]+(.*?)[ \t#]*\r?$|>|\*\*)",
                     re.MULTILINE)
_TEMPLATE_HEADINGS = frozenset(h.casefold() for h in schema.SESSION_SECTIONS)


def just_started(text: str) -> bool:
    """Whether a session note certainly has nothing to brief (the template as capture writes it
    at the session's start: its title, its sections, the Context line), told without parsing
    it; False whenever it may hold more (then :func:`session` reads it)."""
    front = _FRONT.match(text)
    if front is not None and "\n\n" in front.group(0).replace("\r", ""):
        front = None  # no frontmatter has a blank line: read all of it (its lists count)
    body = text[front.end():] if front else text
    titled = False
    for line in _CONTENT_LINE.finditer(body):
        level, title = line.group(1), line.group(2)
        if title is not None and title.strip().casefold() in _TEMPLATE_HEADINGS:
            continue
        if level != "#" or titled:
            return False
        titled = True  # the note's own title, once
    return True


def session(rel: str, text: str, *, prose: bool = True) -> SessionDigest:
    """Digest a session note (tolerates missing or duplicated sections and invalid YAML);
    ``prose``: the sentences of its answers' prose that name something are details too."""
    meta = _meta(text, rel)
    note = _Note(text)
    stem = _stem(rel)
    created = ISO_DATE.match(str(meta.get("created") or ""))
    date = created.group(0) if created else stem[:10]
    # Claude Code's own title for the session (ai-title) when capture recorded one, else the
    # heading the first prompt gave the note.
    titled = meta.get("title")
    titled = " ".join(strip_private(titled).split()) if isinstance(titled, str) else ""
    topic = titled or note.title() or (
        stem[11:] if re.match(r"\d{4}-\d{2}-\d{2}-", stem) else stem)
    status = str(meta.get("status") or "active").strip().lower()
    log = worklog.read(note.lines, note.kind, note.heads, note.ranges(WORK_LOG), prose)
    if status == "active" and log.last_entry == ENDED:
        status = "ended"  # below the compaction threshold, its session over: not running
    kinds = {name: tuple(note.items(names)[0]) for name, names in (
        ("decisions", DECISIONS), ("gotchas", GOTCHAS), ("prerequisites", PREREQUISITES),
        ("open_questions", OPEN_QUESTIONS), ("next_steps", NEXT_STEPS))}
    kinds["open_questions"] = _unanswered(note, kinds["open_questions"])
    # A step done later in the session (a todo item completed, a commit, the final answer saying
    # so) is no longer open.
    final = log.turns[-1] if log.turns else None
    done = [*log.done, *log.closed, *(settled.said_done(final.answer, final.details)
                                      if final else ())]
    steps = [i for i in kinds["next_steps"] if not settled.completed(i.text, done)]
    # One step said twice (by the summary and the answer after it) is listed in its newest words.
    again = settled.restated([i.text for i in steps])
    kinds["next_steps"] = tuple(i for n, i in enumerate(steps) if n not in again)
    entities: list[str] = []
    for start, end in note.ranges(RELATED):
        for n in range(start, end):
            if note.kind[n] in ("bullet_list", "ordered_list", "paragraph"):
                entities += link_targets(note.lines[n])
    for items in kinds.values():
        # A state set up names what it configures, not a component the session worked on.
        entities += [n for i in items if not i.text.startswith(schema.SET_UP) for n in i.links]
    return SessionDigest(
        rel=rel,
        date=date,
        topic=topic or stem,
        status=status if STATUS_WORD.fullmatch(status) else "unknown",
        branch=str(meta.get("git_branch") or "").strip(),
        turns=tuple(log.turns),
        failing=tuple(log.failing.values()),
        entities=tuple(dict.fromkeys(entities)),
        logged=log.logged,
        not_run=tuple(log.not_run.values()),
        stopped=log.stopped,
        done=tuple(log.done),
        asked=log.asked,
        changed=log.changed.lines(),
        **kinds,
    )


_NOT_MATCHED = re.compile(r"[*_`>\s]+")
QUESTION_KEY_CHARS = 80  # a question is found in its work-log entry by its first characters


def _unanswered(note: _Note, questions: tuple[Item, ...]) -> tuple[Item, ...]:
    """The questions no later prompt replied to. A question asked in a work-log entry (its
    answer line or its recap) that a later entry with a prompt follows was answered by that
    prompt ("Which would you prefer?" -> "1"): the note keeps it, the briefing has no use for
    it. A question found in no entry is kept."""
    if not questions:
        return questions
    entries: list[list[str]] = []  # per work-log entry: its lines as matched
    last_prompt = -1  # the last entry with a prompt
    heads = {h.line for h in note.heads}
    for start, end in note.ranges(WORK_LOG):
        for n in range(start, end):
            if n in heads:
                entries.append([])
            elif entries:
                line = note.lines[n]
                entries[-1].append(_NOT_MATCHED.sub(" ", line).casefold())
                if line.startswith("**Prompt:**"):
                    last_prompt = len(entries) - 1
    texts = [" ".join(lines) for lines in entries]
    kept: list[Item] = []
    for question in questions:
        key = _NOT_MATCHED.sub(" ", question.text).casefold().strip()[:QUESTION_KEY_CHARS]
        asked = max((i for i, text in enumerate(texts) if key and key in text), default=None)
        if asked is None or asked >= last_prompt:
            kept.append(question)
    return tuple(kept)


def _newest_first(items: list[Item]) -> tuple[Item, ...]:
    # Lines are kept in date order, so among equal dates (and undated lines) the later is newer.
    ordered = list(reversed(items))
    return tuple(sorted(ordered, key=lambda i: i.date or "", reverse=True))


def entity(rel: str, text: str, limit: int | None = None) -> EntityDigest:
    """Digest an entity note: every line of each kind, or its newest ``limit``."""
    note = _Note(text, lists_only=True)
    decisions, a = note.items((schema.KEY_DECISIONS,), limit)
    gotchas, b = note.items((schema.GOTCHAS_AND_TROUBLESHOOTING, schema.GOTCHAS), limit)
    changes, c = note.items((schema.RECENT_CHANGES,), limit)
    return EntityDigest(
        rel=rel,
        name=_stem(rel),
        decisions=_newest_first(decisions),
        gotchas=_newest_first(gotchas),
        changes=_newest_first(changes),
        left_out=a + b + c,
    )


def project_index(text: str) -> IndexDigest:
    """Digest the project's ``_index.md``."""
    note = _Note(text)
    # The links of ``## Key Entities``; an index without that section: every link outside code.
    spans = note.ranges(KEY_ENTITIES) or [(0, len(note.lines))]
    entities: list[str] = []
    for start, end in spans:
        for n in range(start, end):
            if note.kind[n] in ("bullet_list", "ordered_list", "paragraph", "heading"):
                entities += link_targets(note.lines[n])
    return IndexDigest(
        prerequisites=_newest_first(note.items(PREREQUISITES)[0]),
        entities=tuple(dict.fromkeys(entities)),
    )
