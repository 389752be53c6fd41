"""Recall: search the vault, and notice entities that several projects keep needing (DESIGN §7).

``recall`` refreshes the index lazily, turns the user's words into a safe FTS5 query, ranks with
the combined score of :mod:`vaultmem.index`, and records a cross-project recall on every entity of
another project it returns: ``{project, date, context}`` in the entity's
``cross_project_recalls``, at most once per project per day. That is the one write recall makes.
An entity recalled from three or more other projects earns a suggestion to promote it.

Query syntax for people: words are ANDed (every word must occur, stemmed); when that finds
nothing, any word may match (OR). ``word*`` is a prefix search. Everything else is literal text:
quotes, ``AND``/``OR``/``NOT``/``NEAR`` and parentheses carry no FTS5 meaning.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from typing import Any

from . import clock, index
from .config import Config
from .errors import AmbiguousNote, NoteNotFound, VaultmemError
from .vault import Vault

PROMOTE_AT = 3  # distinct other projects that recalled an entity before promotion is suggested
MAX_TERMS = 32
CROSS_KEY = "cross_project_recalls"
_WORD = re.compile(r"\w", re.UNICODE)


class QueryError(VaultmemError):
    """The recall query has nothing to search for, or an option is out of range."""


@dataclass(frozen=True)
class Hit:
    """One recalled note."""

    rel: str
    title: str
    type: str | None
    project: str | None
    updated: str | None  # YYYY-MM-DD
    snippet: str  # plain text; matched terms in **bold**
    score: float  # higher is better; see vaultmem.index for the formula

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return {
            "path": self.rel,
            "title": self.title,
            "type": self.type,
            "project": self.project,
            "updated": self.updated,
            "snippet": self.snippet,
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

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return {
            "hits": [h.to_json() for h in self.hits],
            "suggestions": list(self.suggestions),
            "recorded_cross_project": list(self.recorded),
            "query": self.query,
            "index": self.stats.to_json(),
        }


def _terms(text: str) -> list[tuple[str, bool]]:
    """(word, prefix) pairs of the user's text; words with no letter or digit are dropped."""
    out: list[tuple[str, bool]] = []
    for raw in text.split():
        prefix = raw.endswith("*")
        word = raw.rstrip("*").replace('"', " ").strip()
        if word and _WORD.search(word):
            out.append((word, prefix))
    return out[:MAX_TERMS]


def _phrase(word: str, prefix: bool) -> str:
    # A double-quoted FTS5 string is literal text: operators, parentheses and colons inside it
    # mean nothing. The tokenizer splits it into tokens matched as a phrase.
    return '"' + word.replace('"', '""') + '"' + ("*" if prefix else "")


def fts_query(text: str, *, any_term: bool = False) -> str:
    """The FTS5 expression for a person's query (every word, or any word); QueryError if empty."""
    terms = _terms(text)
    if not terms:
        raise QueryError(f"nothing to search for in {text!r}: give at least one word")
    joiner = " OR " if any_term else " "
    return joiner.join(_phrase(w, p) for w, p in terms)


def plain_snippet(snippet: str) -> str:
    """FTS5 snippet markers to **bold**, whitespace runs (line breaks too) to one space."""
    text = snippet.replace(index.SNIPPET_OPEN, "**").replace(index.SNIPPET_CLOSE, "**")
    return " ".join(text.split())


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


def without_archived_twins(rows: list[index.IndexHit]) -> list[index.IndexHit]:
    """Drop a compacted original when its archive copy is among the hits: one session, one hit
    (the archive copy is the one entity notes link to)."""
    archived = {r.rel for r in rows if "/archive/sessions/" in r.rel}
    return [
        r for r in rows
        if not ("/sessions/" in r.rel and r.rel.replace("/sessions/", "/archive/sessions/", 1)
                in archived)
    ]


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
    day = today or clock.today()
    match = fts_query(query)
    projects = None if whole_vault else scope(config, project, all_projects)
    folders = scope_folders(vault, projects, whole_vault)
    stats = index.refresh(vault, wait=wait, folders=folders)
    types = (type,) if type else None

    def run(expr: str) -> list[index.IndexHit]:
        return index.search(
            vault,
            expr,
            # The project searched ranks first, so `--project P` reads like a recall from P.
            current_project=project or config.project,
            today=day,
            projects=projects,
            types=types,
            # Room for the archived originals dropped below.
            limit=limit * 2,
            folders=folders,
        )

    rows = run(match)
    if not rows and len(_terms(query)) > 1:
        match = fts_query(query, any_term=True)
        rows = run(match)
    hits = tuple(
        Hit(r.rel, r.title, r.type, r.project, r.updated, plain_snippet(r.snippet), r.score)
        for r in without_archived_twins(rows)[:limit]
    )
    recorded: list[str] = []
    suggestions: list[str] = []
    namespace = vault.layout.namespace + "/"
    for hit in hits:
        # Only vaultmem's own entities carry its cross-project records.
        if not hit.rel.startswith(namespace) or not _foreign_entity(
            hit.type, hit.project, config.project
        ):
            continue
        try:
            projects_seen = record_cross_project(
                vault, hit.rel, project=config.project, today=day, context=query
            )
        except VaultmemError:
            # The note changed shape under us (invalid YAML now, removed): recall still answers.
            continue
        if projects_seen is None:
            continue
        if projects_seen[0]:
            recorded.append(hit.rel)
        suggestion = promote_suggestion(vault, hit.rel, projects_seen[1])
        if suggestion:
            suggestions.append(suggestion)
    return RecallResult(hits, tuple(suggestions), stats, match, tuple(recorded))


def _foreign_entity(kind: str | None, owner: str | None, current: str) -> bool:
    return kind == "entity" and owner not in (None, "global", current)


def other_projects(recalls: Any, owner: str | None) -> set[str]:
    """The distinct projects, other than the entity's own, in a cross_project_recalls value."""
    found: set[str] = set()
    if isinstance(recalls, list):
        for entry in recalls:
            if isinstance(entry, dict) and entry.get("project") not in (None, "", owner):
                found.add(str(entry["project"]))
    return found


def _same_day(entry: Any, project: str, today: date) -> bool:
    if not isinstance(entry, dict) or str(entry.get("project")) != project:
        return False
    when = entry.get("date")
    return when == today or str(when) == today.isoformat()


def record_cross_project(
    vault: Vault, rel: str, *, project: str, today: date, context: str
) -> tuple[bool, set[str]] | None:
    """Record that ``project`` loaded entity ``rel`` today (once per project per day).

    Returns (whether an entry was added, the distinct other projects that recalled it), or None
    when ``rel`` is not an entity of another project.
    """
    from .patch import AddToProperty  # the one write recall makes, rarely

    with vault.lock(rel):
        note = vault.read(rel)
        meta = note.frontmatter()
        owner = meta.get("project")
        owner = str(owner) if owner is not None else None
        if meta.get("type") != "entity" or owner in (None, "global", project):
            return None
        recalls = meta.get(CROSS_KEY)
        entries = recalls if isinstance(recalls, list) else []
        added = False
        if not any(_same_day(e, project, today) for e in entries):
            entry = {"project": project, "date": today, "context": " ".join(context.split())}
            # The lock is re-entrant: update() re-reads under it, so nothing can slip between.
            result = vault.update(rel, [AddToProperty(CROSS_KEY, entry)])
            added = result.changed
            entries = [*entries, entry]
        return added, other_projects(entries, owner)


def promote_suggestion(vault: Vault, rel: str, projects: set[str]) -> str | None:
    """The promote suggestion for an entity recalled from ``PROMOTE_AT`` or more projects."""
    if len(projects) < PROMOTE_AT:
        return None
    name = rel.rsplit("/", 1)[-1][:-3]
    ref = name
    try:
        if vault.resolve_note(name) != rel:
            ref = rel[:-3]
    except (AmbiguousNote, NoteNotFound):
        ref = rel[:-3]  # the name alone would not pick this note
    shown = f'"{ref}"' if " " in ref else ref
    listed = ", ".join(sorted(projects))
    return (
        f"{name} was recalled from {len(projects)} other projects ({listed}): "
        f"run `vaultmem promote {shown}` to make it global"
    )
