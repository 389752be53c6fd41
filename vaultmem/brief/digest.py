"""What the briefing reads from a note: session, entity and project-index digests. Pure.

The formats are in docs/ARCHITECTURE.md ("The notes") and the templates. A person may
reorganise a note, so every reader here is lenient: sections are found by name in any case, a
duplicated section is read in every copy (never "matches 2 headings"), lines inside fenced code or
HTML are not items, and text a person marked ``<private>`` is gone before anything is read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Any

from vaultmem.memory import anchors, entityparse
from vaultmem.mining import notices, settled
from vaultmem.notes import mdlines, schema, sections
from vaultmem.notes.frontmatter import parse
from vaultmem.notes.lazyre import lazy
from vaultmem.notes.noise import ANSWER_NAME, NOTES_TITLE
from vaultmem.notes.privacy import strip_private

from ..errors import VaultmemError
from . import briefrank, installs, recapline, recapnext

BLOCK_ID = lazy(r"\s*\^vm-[0-9a-zA-Z-]+\s*$")
ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
DATED = re.compile(r"(\d{4}-\d{2}-\d{2})(?:\s+[—–-]+\s+|:\s+)(.*)")
# The trailing ``([[…]], [[…]])`` group: components in a session note, sessions in an entity's.
LINK_GROUP = re.compile(r"\s*\(((?:\s*!?\[\[[^\]\n]*\]\]\s*,?)+)\)\s*$")
WIKILINK = re.compile(r"!?\[\[([^\]|#\n]*)(?:#[^\]|\n]*)?(?:\|([^\]\n]*))?\]\]")
ENTRY = re.compile(r"(\d{1,2}:\d{2})\s*[-–—]\s*(.*)")
# A turn's answer, or what Claude Code's compact summary says the session was doing then.
ANSWER = re.compile(r"\*\*(?:Answer|Outcome):\*\*\s*(.*\S)")
PROMPT = re.compile(r"\*\*Prompt:\*\*\s*(.*\S)")
# ``- Failed: `pytest -q` ×2 — `E   assert 1 == 2``` and ``- Ran `pytest -q` ×3``, in time order:
# a command that failed and then passed has its Failed line before its Ran line.
FAILED = lazy(r"Failed(?:\s*×\s*\d+)?:\s*((`+)(.+?)\2.*)")
NOT_RUN = lazy(r"Not run:\s*((`+)(.+?)\2.*)")
STOPPED = lazy(r"Stopped by Claude Code:\s*(`+)\s?(.+?)\s?\1\s*$")
RAN = lazy(r"Ran\s+(`+)(.+?)\1")
# A todo item completed, a commit made (stated.DONE, stated.COMMITTED): a next step they name is
# done; a step a later answer reported done (group 1: stated.STEP_DONE) is closed, not shown.
DONE = lazy(r"(?:Done|Committed|(Step done)):\s+(.*\S)")
DONE_STARTS = ("Done:", "Committed:", "Step done:")
STATUS_WORD = re.compile(r"[a-z][a-z_-]{0,29}")
ENDED = "Session End"  # the work-log entry a session's end writes (memory.sessions.end_session)
# Claude Code's line saying a background command ended (capture no longer makes it an entry).
NOTIFICATION = re.compile(r"\s*<task-notification>")
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
class Turn:
    """A work-log entry with the answer Claude gave in it."""

    time: str
    title: str
    answer: str
    # The points of the answer's recap below it (its list items, headings and bold lines), as
    # words: what a briefing with room to spare says of the answer beyond its line.
    details: tuple[str, ...] = ()
    upcoming: tuple[str, ...] = ()  # what its recap's "Next Steps" part says (recapnext)
    ending: str = ""  # the prose the whole answer ends on (recapnext.closing): the last's only


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


@dataclass
class _Log:
    """What a session's work log says, read in time order."""

    turns: list[Turn]
    failing: dict[str, str]  # run key -> the newest failure line's text
    not_run: dict[str, str]  # run key -> the newest "never ran" line's text
    stopped: str = ""
    done: list[str] = field(default_factory=list)
    closed: list[str] = field(default_factory=list)  # steps a later answer reported done
    logged: int = 0
    asked: str = ""  # the newest prompt no answer followed
    last_entry: str = ""  # the title of its newest entry ("Session End" once it ended)
    answered_at: int = -1  # the line of the newest answer
    changed: installs.Changes = field(default_factory=installs.Changes)


def _work_log(note: _Note, prose: bool = True) -> _Log:
    """Turns with answers (their recap's points and, with ``prose``, its telling sentences as
    details), command failures (and calls that never ran) no later run of that
    command passed, Claude Code's notice that ended the work, the number of entries.

    The log reads in time order: a ``Ran`` line after a command's ``Failed`` line is a run that
    passed. Only commands count: a tool that failed (an edit that did not apply) has no "pass".
    """
    log = _Log([], {}, {})
    turns, failing = log.turns, log.failing
    logged = 0
    heads = {h.line: h for h in note.heads}
    # Of each turn, its recap's points beyond its line and what it says comes next, set on the
    # turn once it is read (one copy of the turn each, not one per point).
    told: list[tuple[list[str], recapnext.Upcoming]] = []
    # The words of the newest answer's line (its recap points joined in), read when a point of
    # its recap is weighed first.
    answer_words: str | None = None
    for start, end in note.ranges(WORK_LOG):
        time, title = "", ""
        points: list[str] | None = None  # the recap points of the entry's lead-in answer
        details: list[str] | None = None  # the points of the recap of the entry's answer
        upcoming: recapnext.Upcoming | None = None  # what that recap says comes next
        asking = False  # in the recap, below a question: its list items are its options
        fenced = False  # in a fenced block of a quote
        answered: int | None = None  # the entry's turn (its place in ``told``) once answered
        # Sentences of a quote's prose kept as details (none read without ``prose``).
        told_prose = 0 if prose else recapline.PROSE_DETAILS
        lead, header = "", list[str]()  # an answer's first line; a table's header in its recap
        for n in range(start, end):
            line = note.lines[n].rstrip("\r")
            head = heads.get(n)
            if head is not None:
                points = details = upcoming = answered = None
                told_prose = 0 if prose else recapline.PROSE_DETAILS
                logged += 1
                match = ENTRY.fullmatch(head.title)
                time, title = (match.group(1), match.group(2)) if match else ("", head.title)
                log.last_entry = title.strip()
                if NOTIFICATION.match(title):
                    title = ""  # an older note's entry for a background command's end: no prompt
                continue
            kind = note.kind[n]
            if kind not in ("blockquote", ""):
                points = None  # the recap is the block right below its answer, or none
                details = upcoming = None
            if kind == "paragraph":
                prompt = PROMPT.match(line)
                if prompt:
                    log.asked = prompt.group(1)
                answer = ANSWER.match(line)
                # An older note may hold Claude Code's usage-limit notice as an answer: none.
                if answer and not notices.api_notice(answer.group(1)):
                    log.stopped = ""
                    if not briefrank.asks_back(answer.group(1)):
                        log.asked = ""  # answered; a question back leaves the request open
                    lead = answer.group(1)
                    turns.append(Turn(time, title, lead))
                    log.answered_at = n
                    points = [] if lead.endswith(":") else None
                    details = []
                    upcoming = recapnext.Upcoming()
                    told.append((details, upcoming))
                    answered = len(told) - 1
                    answer_words = None
            if kind == "blockquote" and line.startswith("> [!") and ANSWER_NAME not in line:
                # What Claude reported along the way, a plan approved, a prompt kept whole: no
                # recap of the answer; what Claude found along the way tells its details too.
                points = details = upcoming = None
                if answered is not None and NOTES_TITLE in line:
                    details = told[answered][0]
            if kind == "blockquote" and line.startswith("> [!"):
                told_prose = 0 if prose else recapline.PROSE_DETAILS
                fenced = False
            # A fence in the quote: its lines are code or output (a string test: an answer has
            # hundreds of lines).
            fence = details is not None and kind == "blockquote" \
                and line[1:].lstrip().startswith(("```", "~~~"))
            if fence:
                fenced = not fenced
            if kind == "blockquote" and points is not None and turns:
                # An answer that ends leading into a list ("Here's what changed:") says its
                # outcome in the recap kept below it: its headings and bold lines, in order.
                said = recapline.point(line)
                if said and said not in points and said not in lead \
                        and len(points) < recapline.RECAP_POINTS:
                    points.append(said)
                    turns[-1] = replace(turns[-1], answer=f"{lead} — " + "; ".join(points))
                    answer_words = None
            if kind == "blockquote" and upcoming is not None and turns:
                upcoming.feed(line)
            if kind == "blockquote" and details is not None and turns:
                said, asking, listed = recapline.detail(line, asking)
                below = note.lines[n + 1] if n + 1 < end else ""
                said, header = recapline.row(line, below, header) \
                    if line.startswith("> |") and not fenced else (said, [])  # a table's rows
                # Its prose's sentences that tell a name, a path or a number (a fenced block's
                # lines are code or output, a table's its cells).
                if not listed and not (fenced or fence) \
                        and told_prose < recapline.PROSE_DETAILS \
                        and not line.startswith(("> [!", "> |")):
                    for sentence in recapline.telling_sentences(line[1:]):
                        if told_prose < recapline.PROSE_DETAILS and sentence not in details:
                            if answer_words is None:
                                answer_words = recapline.words(turns[-1].answer)
                            if recapline.words(sentence) not in answer_words:
                                details.append(sentence)
                                told_prose += 1
                # Its answer line may say it with emphasis or a dash ("**254** installs"): the
                # words are compared, not the marks.
                if len(details) < recapline.DETAILS and recapline.telling(said) \
                        and said not in details:
                    if answer_words is None:
                        answer_words = recapline.words(turns[-1].answer)
                    if recapline.words(said) not in answer_words:
                        details.append(said)
            elif kind == "bullet_list" and line.startswith(("- ", "* ")):
                body = line[2:].strip()
                if prose:
                    log.changed.add(body)
                # Its first word tells which may match (each compiled on first use, if ever).
                failed = (FAILED.match(body) if body.startswith("Failed") else None) or (
                    NOT_RUN.match(body) if body.startswith("Not run") else None)
                ran = RAN.match(body) if not failed and body.startswith("Ran") else None
                stopped = STOPPED.match(body) if body.startswith("Stopped") else None
                done = DONE.match(body) if body.startswith(DONE_STARTS) else None
                if done:
                    (log.closed if done.group(1) else log.done).append(done.group(2))
                # Keyed by run: ``REDIS_URL=… pytest -q`` passing passes ``pytest -q`` too.
                never = failed is not None and (body.startswith("Not run") or notices.denial(
                    _failure_error(failed.group(1))) is not None)
                # A lookup that found nothing (or never ran) leaves nothing to pick up; a call
                # that never ran is kept apart (an older note wrote one the permissions stopped
                # as a failure).
                if failed or (ran and (failing or log.not_run)):
                    from vaultmem.mining import fixes  # a log without failures needs none of it
                if failed and not fixes.looks_up_only(failed.group(3).strip()):
                    into = log.not_run if never else failing
                    command = fixes.state_key(failed.group(3).strip())
                    into.pop(command, None)  # the newest last
                    into[command] = failed.group(1)
                elif ran and (failing or log.not_run):
                    # ``uv run pytest``, ``cd x && pytest``, ``make db && pytest`` pass ``pytest``
                    # (read only while a failure waits for it: a session runs hundreds).
                    for key in fixes.passes(ran.group(2).strip()):
                        failing.pop(key, None)
                        log.not_run.pop(key, None)
                elif stopped:
                    log.stopped = stopped.group(2)
    log.logged = logged
    for n, (details, upcoming) in enumerate(told):
        if details or upcoming.lines:
            turns[n] = replace(turns[n], details=tuple(details), upcoming=tuple(upcoming.lines))
    if turns and log.answered_at >= 0:
        ending = recapnext.closing(_answer_text(note, log.answered_at))
        turns[-1] = replace(turns[-1], ending=ending)
    return log


def _answer_text(note: _Note, at: int) -> list[str]:
    """The lines of the callout holding the whole answer whose line is ``at`` (none when the
    quote below it is another: what Claude said along the way, a prompt or a plan kept whole)."""
    n = at + 1
    while n < len(note.lines) and not note.lines[n].strip():
        n += 1
    end = n
    while end < len(note.lines) and note.kind[end] == "blockquote":
        end += 1
    return [] if n == end or ANSWER_NAME not in note.lines[n] else note.lines[n:end]


def _failure_error(failure: str) -> str:
    """The error of a ``Failed:`` line's text (after its command and ``— ``), without its code
    span's backticks."""
    _, dash, error = failure.partition(" — ")
    return error.strip().strip("`").strip() if dash else ""


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
    log = _work_log(note, prose)
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
