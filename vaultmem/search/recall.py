"""Recall: search the vault, and notice entities that several projects keep needing (DESIGN §7).

``recall`` refreshes the index lazily, turns the user's words into a safe FTS5 query and answers
with facts first: the items of entity, session and index notes that match (``vaultmem.notes.facts``),
ranked as ``vaultmem.search.factsearch`` says, each fact once however many notes hold a copy of it (the
entity's copy when there is one; a Key Entities row stands for the entity line it links to).
Then the notes that match where no fact of theirs does (a work-log answer), ranked by the
combined score of :mod:`vaultmem.search.index`, by their lines that answer best
(``passages.ranked_lines``; each note's best, then each one's second best..., read from ``POOL``
times as many notes as lines wanted, those holding most of the query's terms kept); when facts fill the
limit, a third of it is kept for such lines, and room facts leave goes to the other lines of the
notes they matched in. Last (``vaultmem.search.hitfold``), a hit that copies one before it is
folded into it (its note under ``also``) and noise goes after the hits that answer. A recall
ranks at least ``RANKED_AT_LEAST`` hits and shows the best ``limit``. Every hit
carries the plain text shown (at most ``facts.SHOWN_CHARS`` characters) and the offsets of the
matched words in it.

It records a cross-project recall on every entity of another project it returns:
``{project, date, context}`` in the entity's ``cross_project_recalls``, at most once per project
per day. That is the one write recall makes. An entity recalled from three or more other
projects earns a suggestion to promote it.

Query syntax for people: words are ANDed (every word must occur, stemmed; the words of a
question that name nothing, ``stopwords``, are left out); when that finds
nothing, any word may match (OR); when it finds fewer facts than asked, a fact holding every
word of three or more but one comes after them, before lines of notes (``with_near_facts``),
and a line of a note whose work log entry holds every word of three or more but one competes with the lines of
notes holding them all (``with_near_lines``). ``word*`` is a prefix search. A word may be written as part of
an identifier: two words find the one they make (``PowerMonitor``), an identifier its words
written apart (``_spellings``). Everything else is literal text:
quotes, ``AND``/``OR``/``NOT``/``NEAR`` and parentheses carry no FTS5 meaning.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import date
from typing import Any

from vaultmem import clock
from vaultmem.errors import VaultmemError
from vaultmem.notes import facts, passages, relevance
from vaultmem.search import (
    crossrecall,
    factsearch,
    hitfold,
    index,
    indexquery,
    indexrows,
    stopwords,
)
from vaultmem.store.config import Config
from vaultmem.store.vault import Vault

MAX_TERMS = 32
_WORD = re.compile(r"\w", re.UNICODE)


class QueryError(VaultmemError):
    """The recall query has nothing to search for, or an option is out of range."""


NOTE = "note"  # the kind of a hit that is a note rather than one of its facts
Span = tuple[int, int]


@dataclass(frozen=True)
class Hit:
    """One recalled fact (a list item of a note), or a note none of whose facts matched."""

    rel: str  # the note it is in
    title: str  # that note's name
    type: str | None  # that note's type
    project: str | None
    updated: str | None  # YYYY-MM-DD
    kind: str  # the fact's kind (facts.KINDS), or NOTE
    text: str  # plain text: the fact whole, or the note's best matching line
    matches: tuple[Span, ...]  # (start, end) offsets of the matched words in ``text``
    score: float  # higher is better: -bm25 of the fact, or the note's combined score
    date: str | None = None  # the fact's date
    entity: str | None = None  # the entity the fact is about
    block: str | None = None  # the fact's block id: [[note#^block]] links to it
    line: int | None = None  # 0-based line of the fact in the note
    sessions: tuple[str, ...] = ()  # the session notes it came from (link targets)
    also: tuple[str, ...] = field(default=())  # other notes holding a copy of the fact
    # A line's: the words matched in its part of the note (``passages.Passage.context``).
    context: frozenset[str] = field(default=frozenset(), repr=False)

    @property
    def snippet(self) -> str:
        """The text shown (the name of this field before facts)."""
        return self.text

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return {
            "kind": self.kind,
            "text": self.text,
            "matches": [list(span) for span in self.matches],
            "date": self.date,
            "note": self.title,
            "path": self.rel,
            "entity": self.entity,
            "type": self.type,
            "project": self.project,
            "updated": self.updated,
            "block": self.block,
            "line": self.line,
            "sessions": list(self.sessions),
            "also": list(self.also),
            "score": float(f"{self.score:.6g}"),
        }


@dataclass(frozen=True)
class RecallResult:
    """Hits best first, suggestions for the person, and what the index refresh did."""

    hits: tuple[Hit, ...]
    suggestions: tuple[str, ...]
    stats: index.RefreshStats
    query: str = ""  # the FTS5 expression that produced the hits
    recorded: tuple[str, ...] = ()  # entities that got a cross-project recall entry

    @property
    def stale(self) -> bool:
        """Whether the hits come from the index as it was: another process held its refresh
        lock past the wait, so notes changed since its last refresh may be missed or old."""
        return self.stats.skipped

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return {
            "hits": [h.to_json() for h in self.hits],
            "stale": self.stale,
            "suggestions": list(self.suggestions),
            "recorded_cross_project": list(self.recorded),
            "query": self.query,
            "index": self.stats.to_json(),
        }


def _terms(text: str) -> list[tuple[str, bool]]:
    """(word, prefix) pairs of the user's text; words with no letter or digit are dropped, and
    the words of a question that name nothing ("where are the tests": ``stopwords``)."""
    out: list[tuple[str, bool]] = []
    for raw in text.split():
        prefix = raw.endswith("*")
        word = raw.rstrip("*").replace('"', " ").strip()
        if word and _WORD.search(word):
            out.append((word, prefix))
    return [out[n] for n in stopwords.searched([w for w, p in out])][:MAX_TERMS]


def _phrase(word: str, prefix: bool) -> str:
    # A double-quoted FTS5 string is literal text: operators, parentheses and colons inside it
    # mean nothing. The tokenizer splits it into tokens matched as a phrase.
    return '"' + word.replace('"', '""') + '"' + ("*" if prefix else "")


def _spellings(terms: Sequence[tuple[str, bool]], at: int) -> list[str]:
    """The ways term ``at`` of a query may be written in a note, as FTS5 strings: itself; its
    parts when it is an identifier (``powerMonitor``, ``power_monitor``: "power monitor"); the
    identifier it makes with the word before or after it, joined (a query "power monitor"
    finds ``PowerMonitor``, which the tokenizer keeps as one word; ``power_monitor`` and
    ``power-monitor`` it splits already). A prefix term (``word*``) is only itself."""
    word, prefix = terms[at]
    out = [_phrase(word, prefix)]
    if prefix:
        return out
    chunks = [chunk for chunk in _SEPARATORS.split(word) if chunk]
    parts = identifier_parts(word)
    if len(parts) > len(chunks):  # camelCase humps, which the tokenizer keeps together
        out.append(_phrase(" ".join(parts), False))
    if len(parts) > 1 and all(chunk.isalpha() for chunk in chunks):
        out.append(_phrase("".join(chunks), False))  # power_monitor, written PowerMonitor
    if _PLAIN_WORD.fullmatch(word):
        for before, after in ((at - 1, at), (at, at + 1)):
            if 0 <= before and after < len(terms) and not terms[after][1] \
                    and all(_PLAIN_WORD.fullmatch(terms[n][0]) for n in (before, after)):
                out.append(_phrase(terms[before][0] + terms[after][0], False))
    return list(dict.fromkeys(out))


def identifier_parts(word: str) -> list[str]:
    """The words an identifier is made of: its parts between separators (``power_monitor``,
    ``power-monitor``), each of letters alone split at its humps (``powerMonitor``,
    ``HTTPServer``); a plain word is one part, and a part with digits (``v0``) stays whole."""
    parts: list[str] = []
    for chunk in _SEPARATORS.split(word):
        if chunk.isascii() and chunk.isalpha():
            parts += _CAMEL.findall(chunk)
        elif chunk:
            parts.append(chunk)
    return parts or [word]


_PLAIN_WORD = re.compile(r"[^\W_]{2,}")  # letters and digits only, two or more
_SEPARATORS = re.compile(r"[\W_]+")
# The humps of a camelCase or PascalCase word of ASCII letters: an acronym before a capitalised
# word (``HTTPServer``: HTTP, Server), a capitalised or lower-case run.
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+")


def fts_query(text: str, *, any_term: bool = False) -> str:
    """The FTS5 expression for a person's query (every word, or any word, each in any of its
    spellings: ``_spellings``); QueryError if empty."""
    terms = _terms(text)
    if not terms:
        raise QueryError(f"nothing to search for in {text!r}: give at least one word")
    groups = [_spellings(terms, n) for n in range(len(terms))]
    if any_term:
        return " OR ".join(dict.fromkeys(s for group in groups for s in group))
    # An explicit AND: FTS5 reads no implicit AND next to a parenthesised group.
    return " AND ".join(group[0] if len(group) == 1 else "(" + " OR ".join(group) + ")"
                        for group in groups)


def _from_snippet(snippet: str) -> tuple[str, tuple[Span, ...]]:
    """An FTS5 snippet as plain text on one line and the offsets of its matches."""
    text = " ".join(facts.visible(snippet).split())
    return facts.marked(text, indexquery.SNIPPET_OPEN, indexquery.SNIPPET_CLOSE)


def scope(config: Config, project: str | None, all_projects: bool) -> tuple[str, ...] | None:
    """The projects a recall searches: None for all, else the given or current one + global."""
    if all_projects:
        return None
    return (project or config.project, "global")


def scope_folders(
    vault: Vault, projects: tuple[str, ...] | None, whole_vault: bool
) -> tuple[str, ...] | None:
    """The folders a recall refreshes and searches: None for the whole vault, vaultmem's folder
    for every project, else each project's folder and the global folder. A scoped recall costs
    what its project costs, however big the vault around it is."""
    if whole_vault:
        return None
    layout = vault.layout
    if projects is None:
        return (layout.namespace,)
    return tuple(
        f"{layout.namespace}/global" if p == "global" else layout.project_dir(p) for p in projects
    )


def distinct(found: Sequence[factsearch.Found]) -> list[tuple[factsearch.Found, list[str]]]:
    """Each fact once, at the place of its best copy (``found`` is best first), with the other
    notes holding a copy. Copies share a project and a fact key; a Key Entities row is a copy
    of the line of its project whose block id it links to, and gives way to that line."""
    blocks = {
        (f.note.project, f.fact.block): f.fact.key
        for f in found if f.fact.block and f.fact.ref is None
    }
    kept: dict[tuple[str | None, str], tuple[factsearch.Found, list[str]]] = {}
    for one in found:
        project, fact = one.note.project, one.fact
        key = blocks.get((project, fact.ref), fact.key) if fact.ref else fact.key
        seen = kept.get((project, key))
        if seen is None:
            kept[(project, key)] = (one, [])
            continue
        best, also = seen
        if best.fact.ref is not None and fact.ref is None:
            # The line itself, not the row that points at it, keeps the place.
            kept[(project, key)] = (one, also)
            best, one = one, best
        if one.note.rel != best.note.rel and one.note.rel not in also:
            also.append(one.note.rel)
    return list(kept.values())


def without_archived_twins(rows: list[indexquery.IndexHit]) -> list[indexquery.IndexHit]:
    """Drop a compacted original when its archive copy is among the hits: one session, one hit
    (the archive copy is the one entity notes link to)."""
    archived = {r.rel for r in rows if "/archive/sessions/" in r.rel}
    return [
        r for r in rows
        if not ("/sessions/" in r.rel and r.rel.replace("/sessions/", "/archive/sessions/", 1)
                in archived)
    ]


# Notes read for their facts per query: at least this many, else five per hit asked for.
CANDIDATES = 50
# Notes none of whose facts match read for their lines: this many per line wanted. The notes
# ranked best hold the query's words most often, not always together: a note ranked lower may
# hold them all on one line.
POOL = 2


@dataclass(frozen=True)
class _Search:
    """One recall's scope and ranking, run with an FTS5 expression (see the module docstring)."""

    current_project: str
    today: date
    projects: tuple[str, ...] | None
    types: tuple[str, ...] | None
    folders: tuple[str, ...] | None
    limit: int  # hits ranked (at least ``RANKED_AT_LEAST``)
    terms: tuple[str, ...] = ()  # the query's words (``hitfold.coverage``)
    shown: int = 0  # hits returned, the first of those ranked (0: ``limit``)

    def run(self, vault: Vault, conn: sqlite3.Connection, match: str) -> tuple[Hit, ...]:
        """The hits of ``match``: facts, then the best lines of notes none of whose facts match,
        then (when facts leave room) other lines of the notes they matched in; each fact once
        (``hitfold.folded``), in the order of ``hitfold.ordered``."""
        notes = without_archived_twins(indexquery.search(
            vault, match, current_project=self.current_project, today=self.today,
            projects=self.projects, types=self.types, folders=self.folders,
            limit=max(CANDIDATES, self.limit * 5), conn=conn,
        ))
        candidates = [(n, factsearch.note_facts(n, _body(vault, n.rel))) for n in notes]
        found = factsearch.ranked(factsearch.match(match, candidates), self.current_project)
        kept = distinct(found)
        # The notes a fact matched in, with the texts of all their facts: their other lines
        # may answer too, but a fact is shown as a fact or not at all.
        matched = {f.note.id for f in found}
        items = {n.id: [f.text.casefold() for f in listed]
                 for n, listed in candidates if n.id in matched}
        loose = [n for n in notes if n.id not in matched]
        room = min(len(loose) * self.limit, max(self.limit - len(kept), self.limit // 3))
        facts_found = [_fact_hit(one, also) for one, also in kept]
        covered = [n for n in notes if n.id in matched]
        more = 0
        while True:
            lines = self._passages(conn, match, loose[: POOL * (room + more)], room + more, {})
            # The other lines of the notes facts matched in (a fact alone may not say what was
            # asked; the note's answer around it may): in the room facts leave, and in place of
            # the loose notes' lines they answer better than.
            spare = max(0, self.limit - len(kept) - min(len(lines), room))
            wanted = min(len(lines), room + more) + spare + more
            if wanted:
                lines = self._better(
                    lines, self._passages(conn, match, covered[:wanted], wanted, items), wanted)
            once = hitfold.folded([*facts_found, *(hit for hit, _ in lines)])
            copied = len(facts_found) + len(lines) - len(once)
            if more or not copied:
                break
            # Lines that copied a hit before them left their places: as many more, once (most
            # queries find no copy and read each note's lines once).
            more = copied
        noise = {id(hit): flag for hit, flag in lines}
        hits = [(replace(hit, also=tuple(also)), noise.get(id(hit), False)) for hit, also in once]
        # A third of the hits shown (or what facts leave) stays for lines of notes, as found.
        shown = self.shown or self.limit
        room = min(len(loose) * shown, max(shown - len(kept), shown // 3))
        reserved = min(room, sum(1 for hit, _ in hits if hit.kind == NOTE))
        out: list[Hit] = []
        facts_left = shown - reserved
        for hit in hitfold.ordered(hits, self.terms):
            if hit.kind != NOTE:
                if facts_left == 0:
                    continue
                facts_left -= 1
            out.append(hit)
            if len(out) == shown:
                break
        return tuple(out)

    def _better(self, loose: list[tuple[Hit, bool]], covered: list[tuple[Hit, bool]],
                room: int) -> list[tuple[Hit, bool]]:
        """At most ``room`` of the lines of loose notes and of covered notes (each best first):
        those ``hitfold.ordered`` puts first, in the order found (loose notes' first)."""
        both = [*loose, *covered]
        if len(both) <= room:
            return both
        best = {id(hit) for hit in hitfold.ordered(both, self.terms)[:room]}
        return [(hit, noise) for hit, noise in both if id(hit) in best]

    def _passages(self, conn: sqlite3.Connection, match: str, notes: Sequence[indexquery.IndexHit],
                  room: int, shown: dict[int, list[str]]) -> list[tuple[Hit, bool]]:
        """Up to ``room`` hits of lines of ``notes``, each with whether it is noise: each note's
        best line in the notes' order, then each one's second best, and so on (a line of a note
        shown once; a line holding one of the note's facts in ``shown``, casefolded texts by note
        id, not at all): a note that alone matches a query fills the room with its lines rather
        than showing one. Of these, the ``room`` that ``hitfold.ordered`` puts first: a line of
        a note ranked lower holding every word of the query before a line holding a few."""
        bodies = factsearch.marked_bodies(conn, match, [n.id for n in notes])
        lines: list[list[passages.Passage]] = []
        for note in notes:
            best = passages.ranked_lines(
                bodies.get(note.id, ""), indexquery.SNIPPET_OPEN, indexquery.SNIPPET_CLOSE,
                room + len(shown.get(note.id, ())), terms=self.terms,
            )
            if note.id in shown:
                best = [b for b in best if not _holds_fact(b.text, shown[note.id])]
            elif not best:  # the words matched the note's name or tags only
                best = [passages.Passage(*_from_snippet(note.snippet), noise=False)]
            lines.append(best)
        out: list[tuple[Hit, bool]] = []
        for rank in range(room):
            out += [(_note_hit(n, found[rank]), found[rank].noise)
                    for n, found in zip(notes, lines) if rank < len(found)]
        # The ``room`` lines ``hitfold.ordered`` puts first (those holding most of the query),
        # in the order found.
        kept = {id(hit) for hit in hitfold.ordered(out, self.terms)[:room]}
        return [(hit, noise) for hit, noise in out if id(hit) in kept]


MORE_WORDS = 3  # a line holding a fact says more than it with at least this many other words


def _holds_fact(text: str, fact_texts: Sequence[str]) -> bool:
    """Whether a line shown (perhaps a window of it) is one of the facts (casefolded texts): the
    fact is shown as a fact. A line holding a fact and saying more (a part of an answer titled
    by it, with the command below: "Step 2: Install the hook: python3 hooks/install.py") is a
    line of its own."""
    core = text.strip(facts.ELLIPSIS).casefold()
    windowed = core != text.casefold()  # a window of a long line may lie inside a long fact
    for fact in fact_texts:
        if windowed and core in fact:
            return True
        if fact in core:
            said = len(facts.copy_key(fact).split())
            whole = len(facts.copy_key(core).split())
            if whole - said < MORE_WORDS or said >= hitfold.CONTAINED * whole:
                return True
    return False


def _body(vault: Vault, rel: str) -> str:
    """The public body of a note found, "" when it cannot be read now."""
    try:
        return indexrows.public_body((vault.root / rel).read_bytes(), vault.redaction)
    except OSError:
        return ""


def _fact_hit(found: factsearch.Found, also: Sequence[str]) -> Hit:
    plain, spans = facts.marked(found.marked, indexquery.SNIPPET_OPEN, indexquery.SNIPPET_CLOSE)
    text, spans = facts.window(plain, spans)
    note, fact = found.note, found.fact
    return Hit(
        note.rel, note.title, note.type, note.project, note.updated, fact.kind, text, spans,
        -found.bm25, date=fact.date, entity=fact.entity, block=fact.block, line=fact.line,
        sessions=fact.sessions, also=tuple(also),
    )


def _note_hit(row: indexquery.IndexHit, line: passages.Passage) -> Hit:
    return Hit(row.rel, row.title, row.type, row.project, row.updated, NOTE, line.text,
               line.spans, row.score, date=row.updated, context=line.context)


def recall(
    vault: Vault,
    config: Config,
    query: str,
    *,
    project: str | None = None,
    all_projects: bool = False,
    type: str | None = None,
    limit: int = 10,
    today: date | None = None,
    wait: bool = True,
    whole_vault: bool = False,
) -> RecallResult:
    """Search vaultmem's notes (current project + global by default, every project with
    ``all_projects``) and record cross-project recalls. ``whole_vault`` searches every note of
    the vault, a person's own notes outside vaultmem's folder included."""
    if limit < 1:
        raise QueryError(f"--limit must be at least 1, not {limit}")
    shown, limit = limit, max(limit, RANKED_AT_LEAST)
    day = today or clock.today()
    match = fts_query(query)
    projects = None if whole_vault else scope(config, project, all_projects)
    folders = scope_folders(vault, projects, whole_vault)
    stats = index.refresh(vault, wait=wait, folders=folders)
    search = _Search(
        # The project searched ranks first, so `--project P` reads like a recall from P.
        current_project=project or config.project,
        today=day,
        projects=projects,
        types=(type,) if type else None,
        folders=folders,
        limit=limit,
        terms=tuple(word for word, _ in _terms(query)),
        shown=shown,
    )
    conn = indexquery.open_reader(vault)
    hits: tuple[Hit, ...] = ()
    if conn is not None:
        try:
            hits = search.run(vault, conn, match)
            if not hits and len(_terms(query)) > 1:
                match = fts_query(query, any_term=True)
                hits = search.run(vault, conn, match)
            elif len(search.terms) >= NEAR_TERMS:
                # A third of the hits shown, not of those ranked.
                loose = replace(search, limit=shown * NEAR_POOL, shown=0).run(
                    vault, conn, fts_query(query, any_term=True))
                if _facts_in(hits) < shown:
                    hits = with_near_facts(hits, loose, search.terms, shown)
                hits = with_near_lines(hits, loose, search.terms, shown)
        finally:
            conn.close()
    recorded, suggestions = crossrecall.note_recalls(
        vault, [hit.rel for hit in hits if crossrecall.foreign_entity(
            hit.type, hit.project, config.project)],
        project=config.project, today=day, query=query,
    )
    if not hits and projects is not None and project is None and not all_projects:
        # The current folder's project may not be the one the memory is about (a session
        # started in ~, a new checkout): say where was searched and how to widen it.
        suggestions.append(f"nothing in project `{config.project}` (the current folder's); "
                           "`--all-projects` searches every project")
    return RecallResult(hits, tuple(suggestions), stats, match, tuple(recorded))


# A recall ranks at least this many hits (the default limit) and shows the best ``limit`` of
# them (facts keeping a third of those shown for lines, as before): the lines of notes and the
# notes read for them grow with the number ranked, so a list of five ranked alone chose among
# as few lines as it showed and missed answers the default list puts in its first five.
RANKED_AT_LEAST = 10
NEAR_POOL = 3  # times the limit, the hits of any word read for facts missing one word
NEAR_TERMS = 3  # words a query needs before a fact missing one of them is worth showing


def _facts_in(hits: Sequence[Hit]) -> int:
    return sum(1 for hit in hits if hit.kind != NOTE)


def _shown(hits: Sequence[Hit]) -> set[tuple[str, str]]:
    """Each (note, text) ``hits`` show, in their own note or in one they fold (``also``)."""
    return {(hit.rel, hit.text) for hit in hits} | {
        (rel, hit.text) for hit in hits for rel in hit.also}


def with_near_facts(hits: Sequence[Hit], loose: Sequence[Hit], terms: Sequence[str],
                    limit: int) -> tuple[Hit, ...]:
    """``hits`` (every word matched) with the facts of ``loose`` (any word matched) that hold
    all the query's words but one, after ``hits``' facts and before its lines of notes, in
    place of the last of those (at most a third of the limit, one at least): a fact filed
    in other words ("Fixed with `--no-gpg-sign`: `git pull` failed (`gpg failed to sign the
    data`)" for "gpg failed to sign commit") answers better than the work-log lines that
    repeat the failure it fixes."""
    shown = _shown(hits)
    near = [hit for hit in loose if hit.kind != NOTE and (hit.rel, hit.text) not in shown
            and hitfold.coverage(hit.text, hit.matches, terms) >= len(terms) - 1]
    room = min(len(near), max(1, limit // 3), limit - _facts_in(hits))
    if not room:
        return tuple(hits)
    at = next((n for n, hit in enumerate(hits) if hit.kind == NOTE), len(hits))
    return tuple([*hits[:at], *near[:room], *hits[at:]][:limit])


def with_near_lines(hits: Sequence[Hit], loose: Sequence[Hit], terms: Sequence[str],
                    limit: int) -> tuple[Hit, ...]:
    """``hits`` (every word matched) with their lines of notes ranked among the lines of
    ``loose`` (any word matched) whose work log entry holds all the query's words but one
    (``Hit.context``), in the order of ``hitfold.ordered`` (``hits``' lines first when equal),
    after ``hits``' facts: a note that says the answer in other words than one of the query's
    is not found by every word, and its line answers better than a line of a note found that
    holds one word of the query."""
    shown = _shown(hits)
    lines = [hit for hit in hits if hit.kind == NOTE]
    near = [hit for hit in loose if hit.kind == NOTE and (hit.rel, hit.text) not in shown
            and len(relevance.held([*(hit.text[a:b] for a, b in hit.matches), *hit.context],
                                   terms)) >= len(terms) - 1]
    if not near:
        return tuple(hits)
    room = max(len(lines), limit - _facts_in(hits))
    best = hitfold.ordered([(hit, False) for hit in [*lines, *near]], terms)[:room]
    return tuple([*(hit for hit in hits if hit.kind != NOTE), *best][:limit])
