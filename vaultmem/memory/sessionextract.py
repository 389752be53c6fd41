"""The deterministic extractor (pure): a session note's items, each given its entities.

Decisions made here, beyond the design (DESIGN §5, §9):
- An item is the first paragraph of a top-level list item under ``## Decisions Made``
  (decision), ``## Gotchas & Fixes`` (gotcha) or ``## Prerequisites`` (prerequisite); the
  trailing ``([[A]], [[B]])`` group (capture's components of the turn, ``session decide``'s
  entities) is dropped from the text (the links still choose the entities), and so are a trailing
  block id and leading labels (``Gotcha: Gotcha:``). One item per kind and fact: a line whose
  words a longer line of its kind holds folds into it (:mod:`vaultmem.mining.fold`; the turns a
  hook read apart state one fact in lines the note cannot merge).
- A work-log gotcha is a hand-written ``### HH:MM - Title`` entry (one without capture's
  ``**Prompt:**``/``**Answer:**`` lines, whose knowledge capture mines itself) whose text holds a
  keyword. Its text is the title (time and a bare "Gotcha" title dropped) plus the sentence
  holding the keyword (else the first sentence); skipped when a section item says the same.
- A reference is one item per entity linked outside items and gotcha entries, with the line of
  its first mention that says something besides links (a trailing link group dropped, the way
  items drop theirs). Items under ``## Open Questions`` and ``## Next Steps`` are what is left to
  do, read by the briefing from the session note: their links make no reference; under ``## Related Entities``
  (``- [[Auth]] — src/auth/``) it is "<topic>: <what the line says>". An entity whose only
  mentions are bare links gets a "Linked from the session" reference only when no other item
  goes to it.
- Routing (:mod:`routing`): an item goes to the entities it links and to the known entities
  (existing ones, and those this session links) whose name or alias it mentions as a word;
  prerequisites go to the project's ``_index.md`` instead.
- An entity link is a bare name (not a dated session name, not ``_index``, not an attachment) or
  a path whose folder is ``entities``. A link that could point outside the entities folder
  (``[[../../x]]``, a name Obsidian cannot hold) is refused: it becomes plain text in the item and
  the report carries a warning; the item goes to its other targets or to the fallback entity.
"""

from __future__ import annotations

import bisect
import functools
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from vaultmem.errors import UnsafePath
from vaultmem.memory import anchors, changes, entityparse, lookahead, routing
from vaultmem.memory.components import CI, failing_script, one_home, speaks_of_ci
from vaultmem.memory.extraction import Extraction, Item, Kind
from vaultmem.memory.routing import Known
from vaultmem.memory.sessionlinks import EntityLink, entity_links, neutralise
from vaultmem.mining import choices, factrule, fold, subjects, tools
from vaultmem.notes import (
    frontmatter,
    inline,
    links,
    names,
    nearnames,
    plainruns,
    schema,
    sections,
)
from vaultmem.notes.privacy import blank_private
from vaultmem.store.config import Config

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
MAX_ITEM_CHARS = 400
LINKED = changes.LINKED

_MARKER_RE = re.compile(r"^\s*(?:(?:>\s*)|(?:[-*+]|\d+[.)])\s+|\[[ xX]\]\s+|#{1,6}\s+)*")
_TIME_PREFIX_RE = re.compile(r"^\d{1,2}:\d{2}\s*[-–—]\s*")
_DECIDE_LINKS_RE = re.compile(r"\s*\((?:\s*\[\[[^\[\]\n]*\]\]\s*,?)+\s*\)\s*$")
_TRAILING_BLOCK_RE = re.compile(r"\s+\^[A-Za-z0-9-]+\s*$")
_SENTENCE_END_RE = re.compile(r"(?<=[.!?])\s+")
_SPACES_RE = re.compile(r"\s+")


# -- text helpers ---------------------------------------------------------------------------


def one_line(text: str) -> str:
    """Whitespace collapsed, clipped to MAX_ITEM_CHARS between words, never inside a link nor
    through the error a failure's quote holds (:func:`inline.clip_keeping_error`)."""
    return inline.clip_keeping_error(inline.one_line(text), MAX_ITEM_CHARS)


def normalised(text: str) -> str:
    """The form of an item's text its block id is computed from."""
    return _SPACES_RE.sub(" ", text).strip().casefold()


def _has_words(text: str) -> bool:
    without = re.sub(r"!?\[\[[^\[\]\n]*\]\]", "", text)
    return any(ch.isalnum() for ch in without)


def _unique(names_: Iterable[str]) -> tuple[str, ...]:
    seen: set[str] = set()
    out: list[str] = []
    for name in names_:
        key = names.name_key(name)
        if key not in seen:
            seen.add(key)
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


# Labels a line may carry before what it says ("Gotcha: Gotcha: x", "**Decision:** x").
_LABEL_RE = re.compile(
    r"^(?:\**\s*(?:" + schema.label_words(schema.LABEL_SHORT) + r")s?\s*:\s*\**\s*)+",
    re.IGNORECASE,
)
_LABEL_ONLY_RE = re.compile(r"^(?:" + schema.label_words("note") + r")s?\s*:?$", re.IGNORECASE)
# The labels capture puts on a turn's lines (``**Prompt:**``, ``**Answer:**``, a compaction's
# ``**Outcome:**``; ``- Prompt:`` before issue 9): such an entry is a record of a turn, mined by capture itself into the sections
# below, not a hand-written log entry.
_CAPTURED_RE = re.compile(
    r"^\s*(?:[-*]\s+)?(?:\*\*(?:Prompt|Answer|Outcome):\*\*|Prompt: )", re.MULTILINE
)
_LINKS_ANY_RE = re.compile(r"!?\[\[[^\[\]\n]*\]\]")
_FOLDER_RE = re.compile(r"^[\w.@+~-]*/[\w./@+~-]*$")

# Session note sections whose list items are items of a kind (titles compare case-insensitively).
SECTION_KINDS: Mapping[str, Kind] = {
    schema.SESSION_SECTION[kind].casefold(): kind
    for kind in (schema.Kind.DECISION, schema.Kind.GOTCHA, schema.Kind.PREREQUISITE)}
# Sections of what is left to do: their items are no entity's recent change.
FOLLOW_UP_SECTIONS = frozenset(s.casefold() for s in (schema.OPEN_QUESTIONS, schema.NEXT_STEPS))


def unlabel(text: str) -> str:
    """``text`` without the labels it starts with (``Gotcha: Gotcha: x`` -> ``x``)."""
    return _LABEL_RE.sub("", text).strip()


def _gotcha_text(title: str, body: list[str], keywords: Sequence[str]) -> tuple[str, str]:
    """(item text, the sentence it was found by) of a work-log entry."""
    title = unlabel(_TIME_PREFIX_RE.sub("", title).strip())
    if _LABEL_ONLY_RE.match(title):
        title = ""  # an entry titled "Gotcha" says nothing its sentence does not
    lines = [line for line in (_strip_markers(raw) for raw in body) if line]

    def hit(text: str) -> bool:
        return any(k in text.casefold() for k in keywords)

    sentences = [s for line in lines for s in _SENTENCE_END_RE.split(line) if s]
    # The title says what the gotcha is about; the body adds the sentence that names it.
    sentence = unlabel(next((s for s in sentences if hit(s)), ""))
    if not sentence and sentences:
        sentence = unlabel(sentences[0])
    said, named = entityparse.fact_key(sentence), entityparse.fact_key(title.rstrip("…. "))
    # A title made of the entry's first words ("Fixed bug in X: root cause") adds nothing.
    if title and sentence and not said.startswith(named):
        return f"{title}: {sentence}", sentence
    return sentence or title, sentence or title


@dataclass(frozen=True)
class Component:
    """A component the session's ``## Related Entities`` names, and the folders it gives."""

    name: str
    folders: tuple[str, ...]
    said: str  # the text after the link ("src/auth/, tests/auth/"), one line


def components(note_text: str) -> tuple[Component, ...]:
    """The entities under ``## Related Entities`` (``- [[Auth]] — src/auth/``), in order."""
    text = blank_private(note_text)
    found = entity_links(text, frontmatter.split(text).body_start)
    return _components(text.split("\n"), sections.headings(text), found)


def _components(text_lines: Sequence[str], heads: Sequence[sections.Heading],
                found: Sequence[EntityLink]) -> tuple[Component, ...]:
    out: dict[str, Component] = {}
    for head in heads:
        if head.title != schema.RELATED_ENTITIES or len(head.path) > 2:
            continue
        for lk in found:
            if lk.name and head.body_start <= lk.line < head.subtree_end:
                said = _strip_markers(_LINKS_ANY_RE.sub("", text_lines[lk.line]))
                said = one_line(said.lstrip("—–-:, ").replace("`", ""))
                folders = tuple(part for part in (p.strip() for p in said.split(","))
                                if _FOLDER_RE.match(part))
                key = names.name_key(lk.name)
                if key not in out:
                    out[key] = Component(lk.name, folders, said)
    return tuple(out.values())


def _content_lines(text_lines: Sequence[str], heads: Sequence[sections.Heading],
                   body_start: int) -> int:
    """Lines that say something: not blank, not a heading, not the frontmatter."""
    heading_lines = {h.line for h in heads}
    return sum(1 for i in range(body_start, len(text_lines))
               if text_lines[i].strip() and i not in heading_lines)


def extract_report(
    note_text: str, session_rel: str, config: Config, *, known: Sequence[Known] = (),
    projects: Sequence[str] = (),
) -> tuple[Extraction, tuple[str, ...]]:
    """The deterministic extraction of a session note, and warnings (refused links, nothing
    found). ``known``: the entities that exist (names and aliases), found by mention;
    ``projects``: the vault's other projects (:func:`_assign`)."""
    text = blank_private(note_text)
    split = frontmatter.split(text)
    text_lines = text.split("\n")
    all_links = entity_links(text, split.body_start)
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
        return one_line(unlabel(neutralise(raw)[0]))

    items: list[Item] = []
    facts: set[tuple[str, str]] = set()  # (kind, fact key): one item per fact and kind
    claimed: list[tuple[int, int]] = []  # line ranges whose links belong to an item already
    for head in heads:
        if head.title.casefold() in FOLLOW_UP_SECTIONS and len(head.path) <= 2:
            claimed.extend((first, end) for _, first, end in _decision_items(text_lines, head))
            continue
        kind = SECTION_KINDS.get(head.title.casefold())
        if kind is None or len(head.path) > 2:
            continue
        for raw, first, end in _decision_items(text_lines, head):
            body = _TRAILING_BLOCK_RE.sub("", _DECIDE_LINKS_RE.sub("", raw))
            # The anchor rides along uncut after the text (anchors.py); never part of the fact.
            body, anchor = anchors.split(body)
            item_text = clean(body)
            item_text = f"{item_text} {anchor}" if item_text and anchor else item_text
            claimed.append((first, end))
            fact = (kind, entityparse.fact_key(item_text))
            if item_text and fact not in facts:
                facts.add(fact)
                entities = () if kind == schema.Kind.PREREQUISITE else names_in(first, end)
                items.append(Item(kind, item_text, entities, first))
    items = _folded(items, fold.folds([(item.kind, item.text) for item in items],
                                      failures=True))
    items = _settled(items)
    said = [key for _, key in facts]
    keywords = tuple(k.casefold() for k in config.gotcha_keywords if k.strip())
    for head in heads:
        if len(head.path) < 2 or head.path[-2] != schema.WORK_LOG:
            continue
        entry = "\n".join(text_lines[head.line : head.subtree_end])
        if _CAPTURED_RE.search(entry) or not any(k in entry.casefold() for k in keywords):
            continue
        entry_body = text_lines[head.body_start : head.subtree_end]
        raw_text, sentence = _gotcha_text(head.title, entry_body, keywords)
        item_text = clean(raw_text)
        claimed.append((head.line, head.subtree_end))
        key, found_by = entityparse.fact_key(item_text), entityparse.fact_key(clean(sentence))
        # The same text under a section of the note: one item (the section's).
        if not item_text or any(found_by in k or k in key for k in said if k) or \
                (schema.Kind.GOTCHA, key) in facts:
            continue
        facts.add((schema.Kind.GOTCHA, key))
        items.append(Item(schema.Kind.GOTCHA, item_text, names_in(head.line, head.subtree_end), head.line))
    targeted = {names.name_key(name) for item in items for name in item.entities}
    found_components = _components(text_lines, heads, safe)
    changed = {names.name_key(c.name): c for c in found_components if c.said}
    log = changes.turns(text_lines, heads)
    references: dict[str, Item] = {}
    bare: dict[str, int] = {}
    in_item = bytearray(len(text_lines) + 1)  # 1 on the lines of an item
    for first, end in claimed:
        in_item[first:end] = b"\1" * (end - first)
    related_lines = {h.line for h in heads if h.title == schema.RELATED_ENTITIES}
    for lk in safe:
        assert lk.name is not None
        if in_item[lk.line]:
            continue
        key = names.name_key(lk.name)
        if key in references:
            continue
        component = changed.get(key)
        if component is not None and sections.under(heads, lk.line, related_lines):
            # "- [[Auth]] — src/auth/": what came of the turns that changed its files (the
            # session's prompt and the folders say neither what was done nor how it ended).
            what = changes.change(component.folders, log)
            if what:
                references[key] = Item("reference", clean(what), (lk.name,), lk.line)
            else:
                bare.setdefault(key, lk.line)
            continue
        line_text = _TIME_PREFIX_RE.sub("", _strip_markers(text_lines[lk.line]))
        line_text = _DECIDE_LINKS_RE.sub("", _TRAILING_BLOCK_RE.sub("", line_text))
        if _has_words(line_text):
            references[key] = Item("reference", clean(line_text), (lk.name,), lk.line)
        else:
            bare.setdefault(key, lk.line)
    for lk in safe:
        assert lk.name is not None
        key = names.name_key(lk.name)
        if key in bare and key not in references and key not in targeted:
            references[key] = Item("reference", LINKED, (lk.name,), bare[key])
    items.extend(sorted(references.values(), key=lambda item: item.line))
    extraction = Extraction(tuple(items), "deterministic")
    if not any(item.kind in schema.ENTITY_SECTION for item in items):
        lines = _content_lines(text_lines, heads, split.body_start)
        if lines:
            warnings.append(f"no decisions, gotchas or prerequisites found in {lines} lines")
    linked = [(n, ()) for n in _unique(lk.name for lk in safe if lk.name)]
    entries = lookahead.entries(text_lines, heads)
    assigned, more = _assign(extraction, found_components, entries, session_rel, config,
                             [*known, *linked], tools.ssh_hosts(text), text, projects)
    return assigned, tuple(warnings + more)


def _folded(items: Sequence[Item], into: Sequence[int | None]) -> list[Item]:
    """The items ``fold`` kept; a report of the person's fix folded into a line makes it done
    (``fold.done``) and adds its failure, cut to make room (one lesson, one line)."""
    texts = [item.text for item in items]
    for n, item in enumerate(items):
        holder = into[n]
        failure = fold.reported_failure(item.text) if holder not in (None, n) else ""
        if holder is None or not failure:
            continue
        texts[holder] = fold.done(texts[holder])
        if failure in texts[holder]:
            continue
        body, anchor = anchors.split(texts[holder])
        body = inline.clip_keeping_error(body, max(MAX_ITEM_CHARS - len(failure) - 3, 0))
        body = body.replace("……", "…")  # a cut line cut again: one "…"
        texts[holder] = " ".join(filter(None, (f"{body} ({failure})", anchor)))
    return [replace(item, text=texts[n]) for n, item in enumerate(items) if into[n] == n]


def _settled(items: Sequence[Item]) -> list[Item]:
    """The items with each state set up that a later decision line sets again left out (the
    session's turns were written by several reads: each read settles only its own)."""
    if not any(i.text.startswith(schema.SET_UP) for i in items):
        return list(items)
    from vaultmem.mining import setups  # only for a note that set something up

    split = [anchors.split(i.text) if i.kind == schema.Kind.DECISION else ("", "") for i in items]
    left = setups.superseded([body for body, _ in split])
    return [item if not body.startswith(schema.SET_UP) or now == body else
            replace(item, text=f"{now} {anchor}".strip())
            for item, (body, anchor), now in zip(items, split, left, strict=True)
            if now or not body.startswith(schema.SET_UP)]


def extract(note_text: str, session_rel: str, config: Config) -> Extraction:
    """The deterministic extraction of a session note (DESIGN §5 step 1)."""
    return extract_report(note_text, session_rel, config)[0]


def related_entities(note_text: str) -> tuple[str, ...]:
    """The safe entity names linked under ``## Related Entities``."""
    return tuple(c.name for c in components(note_text))


def assign_targets(
    extraction: Extraction, note_text: str, session_rel: str, config: Config,
    *, known: Sequence[Known] = (), projects: Sequence[str] = (),
) -> tuple[Extraction, list[str]]:
    """Every item given its entities (DESIGN §5 step 2, §9): the ones it links, and the known
    entities it mentions; else the single entity under ``## Related Entities``; else
    ``config.default_entity``. Names are checked, refused links in the text are neutralised
    (this also guards LLM output)."""
    homes = components(note_text)
    text = blank_private(note_text)
    log = lookahead.entries(text.split("\n"), sections.headings(text))
    return _assign(extraction, homes, log, session_rel, config,
                   [*known, *((c.name, ()) for c in homes)], tools.ssh_hosts(text), text,
                   projects)


def session_project(session_rel: str) -> str:
    """The project a session note belongs to (``<ns>/projects/<p>/sessions/<stem>.md``)."""
    parts = session_rel.split("/")
    if len(parts) >= 4 and parts[-2] == "sessions" and parts[-4] == "projects":
        return parts[-3]
    if len(parts) >= 5 and parts[-3:-1] == ["archive", "sessions"] and parts[-5] == "projects":
        return parts[-4]
    raise UnsafePath("not a session note (expected <ns>/projects/<p>/sessions/<name>.md)",
                     path=session_rel)


def _subjects(log: Sequence[lookahead.Entry], known: Sequence[Known], failed: Sequence[str],
              own: str, default: str, name: Mapping[str, str],
              ran: Sequence[Sequence[subjects.Subject]]
              ) -> tuple[routing.Subjects, list[list[str]]]:
    """The session's names (its known entities and the programs, services and machines its
    commands name, ``ran`` per work-log entry, ``failed`` the tools its items' failures ran;
    ``name``: each one's entity name by its case-folded name, :func:`subjects.spelled`) and,
    per work-log entry, the entities of the services and machines its commands work on."""
    said = list(dict.fromkeys(s for s in [*(s for entry in ran for s in entry),
                                          *(subjects.Subject(t, "program") for t in failed)]
                              if s.in_prose))
    known_ = routing.Mentions.of(known, exclude=default)
    programs = routing.Mentions.of([(name[s.name.casefold()], (s.name,)) for s in said],
                                   exclude=default, in_names=True)
    worked = routing.Mentions.of([(name[s.name.casefold()], (s.name,)) for s in said
                                  if s.worked_on], exclude=default)
    return (routing.Subjects(known_, programs, worked, own, CI),
            [[name[s.name.casefold()] for s in entry if s.worked_on] for entry in ran])


def _assign(
    extraction: Extraction, homes: Sequence[Component], log: Sequence[lookahead.Entry],
    session_rel: str, config: Config, known: Sequence[Known], hosts: Sequence[str] = (),
    note: str = "", projects: Sequence[str] = (),
) -> tuple[Extraction, list[str]]:
    """Each item's entities (:func:`routing.about`): those it links; else what its own words
    name (the tool its failure ran or the git hook it names, the known entities, programs,
    services and machines of the session it mentions, else the project's own script its failure
    ran: :func:`components.failing_script`); a decision naming none, the components the next
    turns of ``log`` edit (:func:`lookahead.ahead`); else the one thing its turn names (its
    prompt, else its prose and its commands: :func:`lookahead.turn_names`); else the session's
    one component (``homes``: its ``## Related Entities``), else, when it has none, the one
    machine it worked on over ssh (``hosts``: ``tools.ssh_hosts``); else the fallback entity. A program, service or machine
    is named as the session's ``note`` spells it (:func:`subjects.spelled`). A folder that
    is another of the vault's ``projects`` (``Documents/M-Claude`` of a session in ``~``, while
    ``m-claude`` is a project) is a side job of a session that also worked elsewhere
    (:func:`lookahead.worked_outside`): no home of it nor the component next turns edit (a
    router's DNS fix is no lesson of the repository it saved a report in); an item naming it
    still goes to it, and a session whose every working turn was there keeps it as its home."""
    # The project itself is no component of it: a session begun in ~ that touched
    # ~/shop/src/… before it moved into ~/shop named the folder "Shop" (issue 29).
    try:
        own = session_project(session_rel)
    except UnsafePath:
        own = ""  # a note read outside a vault's layout (a test, ``extract`` of any file)
    aside = {c.name for c in homes if any(nearnames.same(c.name, p) for p in projects)
             and lookahead.worked_outside(c.folders, log)}
    parts = [c for c in homes if not nearnames.same(c.name, own) and c.name not in aside]
    related = tuple(c.name for c in parts)
    machines = [h for h in hosts if not nearnames.same(h, own)]
    # The CI holds what speaks of it, never the rest of a session that also edited a workflow.
    ci_only = len(related) == 1 and names.name_key(related[0]) == names.name_key(CI)
    folders = [(c.name, c.folders) for c in homes if c.name not in aside]
    warnings: list[str] = []
    # Each item with the entities it links (names checked), its text and its failure's tool.
    cleaned: list[tuple[Item, list[str], str, str | None]] = []
    for item in extraction.items:
        linked: list[str] = []
        for name in item.entities:
            try:
                linked.append(links.safe_entity_name(name))
            except UnsafePath as err:
                warnings.append(f"{session_rel}: {err.message}; item sent to another entity")
        text, problems = neutralise(item.text) if "[[" in item.text else (item.text, [])
        if item.line < 0:  # the deterministic extractor reported these already
            warnings.extend(f"{session_rel}: {p}" for p in problems)
        text = factrule.trim(one_line(unlabel(text)))  # "I can't run sudo …, but": a lead
        if text and factrule.flaw(text) is None:  # else markup, thinking aloud, only folders
            cleaned.append((item, linked, text, tools.tool_of(text)))
    failed_tools = [t for *_, t in cleaned if t]
    worked_on = [[s for command in entry.commands for s in subjects.of_command(command)]
                 for entry in log]
    hooks = [hook for _, _, text, _ in cleaned if (hook := tools.hook_of(text))]
    spelling = subjects.spelled(note, [*machines, *failed_tools, *hooks,
                                       *(s.name for entry in worked_on for s in entry)])
    machines = [spelling.get(h.casefold(), h) for h in machines]
    session = one_home([(c.name, c.folders) for c in parts]) or (
        machines[:1] if not related and len(machines) == 1 else ())
    said, ran = _subjects(log, known, failed_tools, own, config.default_entity, spelling,
                          worked_on)
    items: list[Item] = []
    for item, linked, text, failed in cleaned:
        if item.kind == schema.Kind.PREREQUISITE:
            items.append(replace(item, text=text, entities=()))
            continue
        linked = [name for name in linked if not nearnames.same(name, own)]
        knowledge = item.kind in (schema.Kind.DECISION, schema.Kind.GOTCHA)
        words: list[str] = []
        turn: tuple[str, ...] = ()
        if item.kind != "reference":
            tool = (tools.hook_of(text) if knowledge else None) or failed
            words = [spelling.get(tool, tool)] if tool and not nearnames.same(tool, own) \
                else []
            words += said.named(text) or failing_script(text, own)
            if not (linked or words) and item.kind == schema.Kind.DECISION:
                turn = lookahead.ahead(text, log, folders, own)
            if not (linked or words or turn) and knowledge:
                turn = lookahead.turn_names(text, log, said, ran)
        elif not linked:
            continue  # what the session said of the project itself: its notes hold it
        # The CI is an item's only by its own words, never its session's nor its turn's.
        home = () if ci_only and not speaks_of_ci(text) else session
        entities = routing.about(linked, words, turn, home, factrule.MAX_COPIES)
        entities = _unique(entities) or (config.default_entity,)
        if item.kind == schema.Kind.DECISION:
            text = choices.plain(text)  # "Which option would you like? — chose: X" -> "Chose: X"
        items.append(replace(item, text=text, entities=entities))
    return replace(extraction, items=tuple(items)), warnings
