"""What the moment hooks share: the words a text says, the vault's facts that hold them (read from
the search index only), and the logged, fenced context they hand to Claude (DESIGN §12).

These hooks run on every prompt and every failed tool call, so they are the cheapest code of the
project: one read of the index (no refresh: SessionStart and Stop keep it fresh), the few notes
it ranks, no mining, no compaction, no secret detectors (the vault's text is redacted already).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date
from typing import TYPE_CHECKING

from vaultmem.mining import lang
from vaultmem.notes import facts
from vaultmem.notes.lazyre import lazy
from vaultmem.store.vault import Vault

if TYPE_CHECKING:
    import sqlite3

CANDIDATE_NOTES = 12  # notes the index ranks best, whose facts are read
MAX_QUERY_WORDS = 12

_WORD_RE = lazy(r"[^\W_][\w.-]*[^\W_]|[^\W_]{2,}")
# Words that say nothing about what a text is about: glue and the words of any request.
_STOP = frozenset({
    "a", "about", "above", "after", "again", "all", "also", "am", "an", "and", "any", "are", "as",
    "at", "be", "because", "been", "before", "being", "below", "between", "both", "but", "by",
    "can", "could", "did", "do", "does", "doing", "done", "don", "down", "during", "each", "few",
    "for", "from", "further", "get", "got", "had", "has", "have", "having", "he", "her", "here",
    "hers", "him", "his", "how", "i", "if", "in", "into", "is", "it", "its", "itself", "just",
    "let", "lets", "like", "me", "more", "most", "my", "myself", "need", "needs", "no", "nor",
    "not", "now", "of", "off", "on", "once", "only", "or", "other", "our", "ours", "out", "over",
    "own", "please", "same", "she", "should", "so", "some", "such", "than", "that", "the", "their",
    "them", "then", "there", "these", "they", "this", "those", "through", "to", "too", "under",
    "until", "up", "very", "was", "we", "were", "what", "when", "where", "which", "while", "who",
    "whom", "why", "will", "with", "would", "you", "your", "yours", "yes", "yeah", "ok", "okay",
    "sure", "thanks", "thank", "thx", "great", "good", "nice", "cool", "fine", "go", "ahead",
    "continue", "proceed", "keep", "going", "next", "right", "perfect", "awesome", "lgtm",
    "make", "use", "using", "used", "want", "see", "look", "check", "try", "run", "show",
    "tell", "give", "take", "put", "add", "new", "one", "two",
})


def words(text: str | None) -> list[str]:
    """The words of ``text`` that say what it is about, case-folded, each once, in order."""
    if not text:
        return []
    seen: dict[str, None] = {}
    for raw in _WORD_RE.findall(text):
        word = raw.casefold().strip(".-")
        if len(word) >= 3 and word not in _STOP and not word.isdigit() \
                and word not in lang.no_task_words():  # "danke", "merci", "gracias"
            seen.setdefault(word)
    return list(seen)


def fts_any(terms: Sequence[str]) -> str:
    """An FTS5 expression matching any of ``terms`` (each a literal phrase)."""
    return " OR ".join('"' + t.replace('"', '""') + '"' for t in terms[:MAX_QUERY_WORDS])


@dataclass(frozen=True)
class Found:
    """A fact of the vault an index lookup found."""

    fact: facts.Fact
    note: str  # the note's vault-relative path
    title: str  # the note's title (an entity's name, a session's file stem)
    type: str | None
    project: str | None
    bm25: float


def lookup(vault: Vault, project: str, terms: Sequence[str], *, kinds: Iterable[str],
           today: date, notes: int = CANDIDATE_NOTES,
           compacted: Iterable[str] | None = None, also: Sequence[str] = (),
           session: str | None = None, everywhere: bool = False) -> list[Found]:
    """The facts of ``kinds`` in the notes of ``project`` (and of the projects ``also``, and
    the global ones; of every project when ``everywhere``) that hold any of ``terms``, best
    first, ``project``'s first among equals;
    [] without an index. Reads the index as it is (no refresh). ``compacted``: the kinds read
    from a compacted session's note (None: all of ``kinds``). The note of ``session`` (the
    session asking) is not read: what it holds that session said itself."""
    if not terms:
        return []
    from vaultmem.search import factsearch, indexquery, indexrows

    match = fts_any(terms)
    conn = indexquery.open_reader(vault)
    if conn is None:
        return []
    wanted = set(kinds)
    archived = wanted if compacted is None else wanted & set(compacted)
    layout = vault.layout
    projects = tuple(dict.fromkeys((project, *also)))
    folders = (*(layout.project_dir(p) for p in projects), f"{layout.namespace}/global")
    try:
        hits = indexquery.search(vault, match, current_project=project, today=today,
                                 projects=None if everywhere else (*projects, "global"),
                                 folders=None if everywhere else folders, limit=notes,
                                 under=layout.namespace if everywhere else None, conn=conn)
        # A compacted original and its archive copy: one session, read once (as recall does;
        # search.recall is not imported for it: it costs this hook a tenth of its time).
        rels = {h.rel for h in hits}
        hits = [h for h in hits if "/sessions/" not in h.rel or "/archive/sessions/" in h.rel
                or h.rel.replace("/sessions/", "/archive/sessions/", 1) not in rels]
        candidates = []
        for hit in hits:
            try:
                raw = (vault.root / hit.rel).read_bytes()
            except OSError:
                continue
            if session and hit.type == "session" and _written_by(raw, session):
                continue
            body = indexrows.public_body(raw)
            told = archived if hit.type == "session" and hit.status == "archived" else wanted
            listed = [f for f in factsearch.note_facts(hit, body) if f.kind in told]
            if listed:
                candidates.append((hit, listed))
        found = factsearch.ranked(factsearch.match(match, candidates), project)
    finally:
        conn.close()
    return [Found(f.fact, f.note.rel, f.note.title, f.note.type, f.note.project, f.bm25)
            for f in found]


def _written_by(raw: bytes, session: str) -> bool:
    """Whether a session note's frontmatter names ``session`` (its ``session_ids``)."""
    end = raw.find(b"\n---", 3) if raw.startswith(b"---") else -1
    return end > 0 and session.encode() in raw[:end]


def rarity_in(vault: Vault, project: str, terms: Sequence[str]) -> dict[str, float]:
    """:func:`rarity` of ``terms`` in the notes of ``project`` and the global ones; {} without
    an index."""
    from vaultmem.search import indexquery

    conn = indexquery.open_reader(vault)
    if conn is None:
        return {}
    try:
        return rarity(conn, (project, "global"), terms)
    finally:
        conn.close()


def rarity(conn: sqlite3.Connection, projects: Sequence[str], terms: Sequence[str]
           ) -> dict[str, float]:
    """term -> its inverse document frequency among the notes of ``projects``,
    ``ln((n + 1) / (notes holding it + 1))``: a word most of a project's notes hold ("logs" in
    a project about chat logs) says little about which of them a text is about."""
    from vaultmem.search import indexquery

    scope = f"n.project IN ({', '.join('?' * len(projects))})"
    total = indexquery.query(conn, f"SELECT count(*) FROM notes AS n WHERE {scope}",
                             list(projects), match="")[0][0]
    weights = {}
    for term in terms[:MAX_QUERY_WORDS]:
        phrase = fts_any([term])
        held = indexquery.query(
            conn, "SELECT count(*) FROM notes_fts JOIN notes AS n ON n.id = notes_fts.rowid "
                  f"WHERE notes_fts MATCH ? AND {scope}", [phrase, *projects], match=phrase)[0][0]
        weights[term] = math.log((total + 1) / (held + 1))
    return weights


def quotable(text: str, max_chars: int) -> str | None:
    """A fact of the vault as one line of at most ``max_chars``; None when it reads like orders
    for the model (a note is data: one that addresses Claude is not quoted)."""
    from vaultmem.notes.inline import one_line
    from vaultmem.notes.quoting import instruction_shaped

    return None if instruction_shaped(text) else one_line(text, max_chars)


def shared(terms: Iterable[str], text: str) -> set[str]:
    """The ``terms`` that ``text`` holds as words (case-blind, whole words)."""
    held = set(words(text))
    # A term of many parts ("pytest_asyncio", "src/app.rs") is held when the text names it.
    folded = text.casefold()
    return {t for t in terms if t in held or (not t.isalnum() and t in folded)}


def source(found: Found) -> str:
    """Where a fact was found, for the reader: the note's name and, when the fact names them,
    the session notes it came from."""
    kind = "entity" if found.type in ("entity", "topic") else found.type or "note"
    where = f"{kind} [[{found.title}]]"
    sessions = [s.rsplit("/", 1)[-1] for s in found.fact.sessions]
    if found.type == "session":
        return where + (f", {found.fact.date}" if found.fact.date else "")
    if sessions:
        where += ", found in session " + ", ".join(f"[[{s}]]" for s in sessions[:2])
    return where + (f", {found.fact.date}" if found.fact.date else "")


@dataclass(frozen=True)
class Told:
    """The context a moment hook hands to Claude, the facts it gives and why."""

    text: str
    keys: tuple[str, ...]
    reason: str


def fitted(head: str, lines: Iterable[tuple[str, str]], max_chars: int
           ) -> tuple[str, tuple[str, ...]]:
    """``head`` and a fence of those of the (line, fact key) pairs that fit in ``max_chars``,
    in order; ("", ()) when none does."""
    from vaultmem.notes.quoting import data_block

    kept: list[str] = []
    keys: list[str] = []
    size = len(head) + 20  # the head, the fence and its newlines
    for line, key in lines:
        if size + len(line) + 1 > max_chars:
            continue
        size += len(line) + 1
        kept.append(line)
        keys.append(key)
    if not kept:
        return "", ()
    return f"{head}\n{data_block(kept)}", tuple(keys)

