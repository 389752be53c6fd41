"""Gather what the next session should know and render it (the shell around ``context``).

Reads only a few notes of the project's own folders (the newest sessions, the entities they and
the current branch touched, ``_index.md``), so its cost does not grow with the vault: the session
folders are listed (names and dates), never read whole.
"""

from __future__ import annotations

import os
import unicodedata
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass, field, replace
from datetime import date
from functools import partial
from pathlib import Path
from typing import TypeVar

from vaultmem import clock
from vaultmem.memory.components import component_of
from vaultmem.notes import links
from vaultmem.store import branch
from vaultmem.store.config import Config
from vaultmem.store.vault import Vault
from vaultmem.store.vaultread import HOOK_READ_BYTES, HOOK_READ_HEAD

from ..errors import VaultmemError
from . import cleanmemo, context, digest, failquote, staleness

RECENT_SESSIONS = 5  # session notes briefed: the last one and four earlier ones
MAX_SESSION_READS = 25  # notes read to find them (sessions started and left empty are skipped)
MAX_COMPONENTS = 8  # entity notes read
# Lines of each kind a component brings (its newest; the briefing says how many more there are):
# what the briefing costs must not grow with the age of an entity.
COMPONENT_LINES = 30
# Relevance of a component, before the recency of its newest line (up to RECENCY_WEIGHT) is
# added: what the current branch changes is the work now; then the newest session that touched
# it (each earlier session counts SESSION_DECAY as much), a little more for every other one.
BRANCH_WEIGHT = 4.0
LAST_SESSION_WEIGHT = 2.0
SESSION_DECAY = 0.6
REPEAT_WEIGHT = 0.1
INDEX_WEIGHT = 0.2
RECENCY_WEIGHT = 1.0
RECENCY_HALF_LIFE_DAYS = 14


def _listing(vault: Vault, folder: str) -> list[str]:
    """The notes directly in a vault folder (rel paths, no stat); [] when it does not exist."""
    try:
        path = vault.abspath(folder)
        with os.scandir(path) as it:
            return [
                f"{folder}/{e.name}"
                for e in it
                if e.name.endswith(".md") and not e.name.startswith(".") and e.is_file()
            ]
    except (OSError, VaultmemError):
        return []


def _mtime(vault: Vault, rel: str) -> float:
    try:
        return vault.abspath(rel).stat().st_mtime
    except (OSError, VaultmemError):
        return 0.0


def _read(vault: Vault, rel: str) -> str | None:
    """The note's text, or its head and tail when it is bigger than a hook reads."""
    try:
        return vault.glimpse(rel, HOOK_READ_BYTES, HOOK_READ_HEAD).text
    except (VaultmemError, OSError):
        return None


T = TypeVar("T")


def _entity(rel: str, text: str) -> digest.EntityDigest:
    return digest.entity(rel, text, COMPONENT_LINES)


def _digest(read: Callable[[str, str], T], rel: str, text: str | None) -> T | None:
    """``read(rel, text)``, or None for a note nothing can be read from: one note a person (or
    an attacker) made unparseable costs the briefing that note, never the whole briefing."""
    if text is None:
        return None
    try:
        return read(rel, text)
    except Exception:  # noqa: BLE001 - see above; the other notes are still briefed
        return None


def recent_sessions(
    vault: Vault, project: str, *, exclude: Collection[str] = (), limit: int = RECENT_SESSIONS
) -> list[str]:
    """The project's latest session notes, newest first (a compacted session's archive copy
    stands for it: the original is a stub, or gone with --move): by the date in the file name,
    then by modification time."""
    layout = vault.layout
    by_stem: dict[str, str] = {}
    for rel in _listing(vault, layout.sessions_dir(project)):
        by_stem[rel.rsplit("/", 1)[1]] = rel
    for rel in _listing(vault, layout.archive_dir(project)):
        by_stem[rel.rsplit("/", 1)[1]] = rel  # the archive copy is the session's full copy
    # Only the notes of the days that make the cut are stat'ed (a day's notes by mtime).
    days: dict[str, list[str]] = {}
    for stem, rel in sorted(by_stem.items(), reverse=True):
        if rel not in exclude:
            days.setdefault(stem[:10], []).append(rel)
    kept: list[str] = []
    for same in days.values():  # newest day first
        if len(kept) >= limit:
            break
        same.sort(key=lambda rel: _mtime(vault, rel), reverse=True)
        kept += same
    return kept[:limit]


def _key(name: str) -> str:
    return unicodedata.normalize("NFC", name).strip().casefold()


@dataclass
class _Candidate:
    target: str  # a link target or component name as written
    score: float = 0.0
    reasons: list[str] = field(default_factory=list)

    def add(self, weight: float, reason: str) -> None:
        self.score += weight
        if reason and reason not in self.reasons:
            self.reasons.append(reason)


def _candidates(
    sessions_: Sequence[digest.SessionDigest],
    index_entities: Sequence[str],
    branch_components: Sequence[str] = (),
) -> list[_Candidate]:
    """Components worth briefing with why, most relevant first (before reading them)."""
    found: dict[str, _Candidate] = {}

    def note(target: str, weight: float, reason: str) -> None:
        key = _key(target.rsplit("/", 1)[-1])
        if key:
            found.setdefault(key, _Candidate(target)).add(weight, reason)

    for name in branch_components:
        note(name, BRANCH_WEIGHT, "changed on this branch")
    for k, s in enumerate(sessions_):
        reason = "touched in the last session" if k == 0 else f"touched {s.date}"
        for target in s.entities:
            key = _key(target.rsplit("/", 1)[-1])
            if key in found and any(r.startswith("touched") for r in found[key].reasons):
                note(target, REPEAT_WEIGHT, "")
            else:
                note(target, LAST_SESSION_WEIGHT * SESSION_DECAY**k, reason)
    for target in index_entities:
        note(target, INDEX_WEIGHT, "")
    return sorted(found.values(), key=lambda c: c.score, reverse=True)


def _days(newer: str, older: str | None) -> int | None:
    try:
        return (date.fromisoformat(newer) - date.fromisoformat(older or "")).days
    except ValueError:
        return None


def _ranked(picked: Iterable[tuple[_Candidate, digest.EntityDigest]], catch_all: str = ""
            ) -> list[context.Component]:
    """Relevance plus the recency of each entity's newest dated line (relative to the newest one
    among them, so no clock is needed); the ``catch_all`` entity (where items naming no
    component go) after every component."""
    pairs = list(picked)
    newest = max((e.newest for _, e in pairs if e.newest), default=None)

    def score(pair: tuple[_Candidate, digest.EntityDigest]) -> float:
        candidate, entity = pair
        age = _days(newest, entity.newest) if newest else None
        fresh = 0.0 if age is None else RECENCY_WEIGHT * 0.5 ** (age / RECENCY_HALF_LIFE_DAYS)
        return candidate.score + fresh

    def other(entity: digest.EntityDigest) -> bool:
        return bool(catch_all) and _key(entity.name) == _key(catch_all)

    pairs.sort(key=lambda pair: (not other(pair[1]), score(pair)), reverse=True)
    return [context.Component(e, tuple(c.reasons)) for c, e in pairs]


def components(
    vault: Vault,
    project: str,
    sessions_: Sequence[digest.SessionDigest],
    index: digest.IndexDigest,
    branch_components: Sequence[str] = (),
    catch_all: str = "",
) -> list[context.Component]:
    """The entities relevant now, read and ranked: touched by the current branch or the recent
    sessions, else linked from ``_index.md``, else the most recently changed ones; the
    ``catch_all`` entity last."""
    layout = vault.layout
    listed = _listing(vault, layout.entities_dir(project))
    notes = links.NoteIndex(listed + _listing(vault, layout.global_entities_dir()))
    source = layout.project_index(project)
    candidates = _candidates(sessions_, index.entities, branch_components)
    if not candidates:
        # Nothing says what matters: the entities changed last stand in (mtime only picks which
        # to read; their dated lines rank them).
        recent = sorted(listed, key=lambda rel: _mtime(vault, rel), reverse=True)
        candidates = [_Candidate(rel.rsplit("/", 1)[1][:-3]) for rel in recent[:MAX_COMPONENTS]]
    picked: list[tuple[_Candidate, digest.EntityDigest]] = []
    seen: set[str] = set()
    for candidate in candidates:
        if len(picked) == MAX_COMPONENTS:
            break
        try:
            rel = notes.resolve(candidate.target, source)
        except (VaultmemError, ValueError):
            rel = None
        if rel is None or rel in seen:
            continue
        seen.add(rel)
        found = _digest(_entity, rel, _read(vault, rel))
        if found is not None:
            picked.append((candidate, found))
    return _ranked(picked, catch_all)


def _last_work_first(sessions_: Sequence[digest.SessionDigest]) -> list[digest.SessionDigest]:
    """The sessions, newest first, with the last one that worked (a work log: Claude's session)
    first: a note that only holds what ``vaultmem remember`` recorded since then joins its items
    to it instead of standing in for it."""
    worked = next((n for n, s in enumerate(sessions_) if s.logged), None)
    if not worked:
        return list(sessions_)
    last = sessions_[worked]
    for jotted in sessions_[:worked]:
        last = replace(
            last,
            decisions=(*jotted.decisions, *last.decisions),
            gotchas=(*jotted.gotchas, *last.gotchas),
            prerequisites=(*jotted.prerequisites, *last.prerequisites),
            open_questions=(*jotted.open_questions, *last.open_questions),
            next_steps=(*jotted.next_steps, *last.next_steps),
            entities=tuple(dict.fromkeys((*last.entities, *jotted.entities))),
        )
    return [last, *sessions_[worked + 1:]]


def branch_components(cwd: Path | None, config: Config) -> list[str]:
    """The components of the files the current git branch changed, most files first."""
    found = branch.changed_files(cwd)
    if not found:
        return []
    root, paths = found
    counts: dict[str, int] = {}
    for path in paths:
        name = component_of(path, root=str(root), rules=config.components)
        if name:
            counts[name] = counts.get(name, 0) + 1
    return sorted(counts, key=lambda name: counts[name], reverse=True)


def build(
    vault: Vault, config: Config, *, exclude: Collection[str] = (), cwd: Path | None = None,
    today: date | None = None,
) -> str:
    """The text session-start injects: the last sessions, prerequisites and relevant components
    (``cwd``: the working directory, whose git branch's changes count as relevant; ``today``:
    the day failures are old by, the clock's when not given)."""
    project = config.project
    sessions_: list[digest.SessionDigest] = []
    # A note just started (another window's, a session opened and closed before any prompt, or
    # this one's seen by `vaultmem context`) has nothing to tell: the next one stands in.
    for rel in recent_sessions(vault, project, exclude=exclude, limit=MAX_SESSION_READS):
        text = _read(vault, rel)
        if text is not None and digest.just_started(text):
            continue  # not parsed: every session opened and closed without a prompt leaves one
        # The prose of the answers is read of the last session only: what it established is
        # worth the room (and the time: an answer kept whole has hundreds of lines), an earlier
        # one's recap points stand for it.
        found = _digest(partial(digest.session, prose=not sessions_), rel, text)
        if found is not None and not found.empty:
            sessions_.append(found)
        if len(sessions_) == RECENT_SESSIONS:
            break
    sessions_ = failquote.fresh_failures(_last_work_first(sessions_), today or clock.now().date())
    index_text = _read(vault, vault.layout.project_index(project))
    index = _digest(lambda _, text: digest.project_index(text), "_index.md", index_text)
    index = index or digest.IndexDigest((), ())
    prerequisites = [*index.prerequisites, *(p for s in sessions_ for p in s.prerequisites)]
    relevant = components(vault, project, sessions_, index, branch_components(cwd, config),
                          config.default_entity)
    # Items whose code changed since are marked, retired ones left out (one git call, bounded).
    sessions_, relevant = staleness.vet(sessions_, relevant, cwd)
    text = context.render(
        project, sessions_, prerequisites, relevant, max_chars=config.context_max_chars,
        loaded=_claude_loads(cwd),
    )
    # A note written before redaction, or a person's own line, may still hold a secret: the
    # briefing goes into every later session's context (and the model provider's logs). The
    # same text found clean before is not redacted again (cleanmemo).
    return cleanmemo.redacted(text, config.redaction, vault.state_dir)


def _claude_loads(cwd: Path | None) -> str:
    """What of ``MEMORY.md`` Claude Code loads into the session in ``cwd`` ("" when none)."""
    if cwd is None:
        return ""
    from vaultmem.memory import automemory, autowhere

    found = autowhere.where(str(cwd))
    if not found.enabled or not os.path.lexists(os.path.join(found.folder,
                                                             automemory.INDEX_NAME)):
        return ""  # none to load: the mirror's module is left unimported
    from vaultmem.memory import automirror

    return automirror.loaded_index(str(cwd))
