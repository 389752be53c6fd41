"""The real-session corpus of ``python -m bench.eval_real``: its facts, its transcripts, and the
order in which Claude Code ran the hooks while each transcript was written.

Pure: text and values in, values out (reading the corpus files is the only I/O, in
``load_corpus``). ``bench/fixtures/real/facts.json`` lists the sessions (file, sha256, source,
licence, split) and the facts a reader took from them; ``bench/fixtures/real/SOURCES.md`` says
where the transcripts come from, where they are looked for, and the rule of the held-out split.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "real"
CORPUS_ENV = "VAULTMEM_REAL_CORPUS"
KINDS = ("decision", "gotcha", "convention", "outcome", "next_step")
# Rules may be tuned on the first part; the second is only ever measured (SOURCES.md).
SPLITS = ("tuning", "held-out")


class CorpusError(Exception):
    """The corpus cannot be used: a missing or changed transcript, a malformed facts file."""


@dataclass(frozen=True)
class RealSession:
    """One recorded Claude Code session of the corpus."""

    id: str
    project: str  # the folder name of the project the session worked in
    file: str  # relative to the transcript folder
    sha256: str
    split: str = SPLITS[0]


@dataclass(frozen=True)
class RealFact:
    """Something a reader wants kept from one session, with the words that prove it was."""

    session: str
    kind: str
    name: str
    query: str  # what a person types after `vaultmem recall`
    proof: tuple[str, ...]  # every one must occur (case-insensitive) for the fact to count
    open_next_step: bool


@dataclass(frozen=True)
class Corpus:
    """The sessions (in the order they started) whose transcripts were found, their facts, the
    hand-labelled keep list, and the sessions left out because their transcript was not."""

    sessions: tuple[RealSession, ...]
    facts: tuple[RealFact, ...]
    keep: tuple[str, ...]
    paths: Mapping[str, Path]  # session id -> its transcript
    missing: tuple[str, ...] = ()  # "<session id>: why", one per session left out

    def part(self, split: str) -> Corpus:
        """The sessions of one split and their facts."""
        sessions = tuple(s for s in self.sessions if s.split == split)
        ids = {s.id for s in sessions}
        return Corpus(sessions, tuple(f for f in self.facts if f.session in ids), self.keep,
                      {i: p for i, p in self.paths.items() if i in ids})


@dataclass(frozen=True)
class Event:
    """One hook call of the replay: ``hook`` saw the transcript's first ``upto`` lines."""

    when: datetime
    session: str
    seq: int  # position among the session's events
    hook: str  # session-start | stop | pre-compact | session-end
    upto: int
    cwd: str
    extra: tuple[tuple[str, str], ...]  # source / trigger / reason / last_assistant_message


def holds(text: str, proof: Iterable[str]) -> bool:
    """Whether every proof word occurs in ``text``, case-insensitively."""
    folded = text.casefold()
    return all(word.casefold() in folded for word in proof)


def held_by_a_line(text: str, proof: Iterable[str]) -> bool:
    """Whether one line of ``text`` holds every proof word: a briefing states a fact in a line,
    and words spread over its lines (a path in one, a word in another) state none."""
    words = list(proof)
    return any(holds(line, words) for line in text.splitlines())


def transcript_dirs(repo: Path, env: Mapping[str, str]) -> list[Path]:
    """Where the transcripts are looked for, in order: ``$VAULTMEM_REAL_CORPUS``, this checkout's
    ``bench/fixtures/real``, then ``shared/fixtures/real`` beside this checkout or a parent of it
    (CI lays a copy of shared/ beside the clone)."""
    found = [Path(env[CORPUS_ENV])] if env.get(CORPUS_ENV) else []
    found.append(repo / "bench" / "fixtures" / "real")
    found += [parent / "shared" / "fixtures" / "real" for parent in repo.resolve().parents]
    return found


def load_corpus(
    facts_path: Path, candidates: Sequence[Path], only: Sequence[str] = ()
) -> Corpus:
    """The corpus of ``facts_path``, each transcript from the first folder of ``candidates``
    that holds it with its recorded sha256; ``only`` keeps those session ids. A session whose
    transcript is in none of them is left out (with its facts) and named in ``missing``; when
    none is left, or the facts file is malformed, a ``CorpusError``."""
    try:
        doc = json.loads(facts_path.read_text(encoding="utf-8"))
        sessions = tuple(
            RealSession(s["id"], s["project"], s["file"], s["sha256"], s.get("split", SPLITS[0]))
            for s in doc["sessions"]
        )
        facts = tuple(
            RealFact(f["session"], f["kind"], f["name"], f["query"], tuple(f["proof"]),
                     bool(f["open_next_step"]))
            for f in doc["facts"]
        )
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as err:
        raise CorpusError(f"{facts_path}: not a facts file ({err})") from None
    ids = {s.id for s in sessions}
    unknown = sorted({f.session for f in facts} - ids) + sorted(set(only) - ids)
    bad = sorted({f.kind for f in facts} - set(KINDS)) + sorted(
        {s.split for s in sessions} - set(SPLITS))
    if unknown or bad:
        raise CorpusError(f"{facts_path}: unknown session {unknown} or kind/split {bad}")
    if only:
        sessions = tuple(s for s in sessions if s.id in only)
    keep_path = facts_path.with_name("keep.json")
    keep = tuple(json.loads(keep_path.read_text(encoding="utf-8"))["keep"]) \
        if keep_path.is_file() else ()
    paths: dict[str, Path] = {}
    missing: list[str] = []
    for s in sessions:
        found = _transcript(s, candidates)
        if isinstance(found, Path):
            paths[s.id] = found
        else:
            missing.append(f"{s.id}: {found}")
    if not paths:
        more = f" (and {len(missing) - 1} more)" if len(missing) > 1 else ""
        raise CorpusError(f"no corpus transcript can be read: {missing[0] if missing else 'none'}"
                          f"{more}; see {facts_path.with_name('SOURCES.md')}")
    kept = tuple(s for s in sessions if s.id in paths)
    return Corpus(kept, tuple(f for f in facts if f.session in paths), keep, paths,
                  tuple(missing))


def _transcript(session: RealSession, candidates: Sequence[Path]) -> Path | str:
    """The first candidate copy of the session's transcript with its recorded sha256, or why
    there is none."""
    changed = ""
    for folder in candidates:
        path = folder / session.file
        if path.is_file():
            digest = hashlib.sha256(path.read_bytes()).hexdigest()
            if digest == session.sha256:
                return path
            changed = changed or f"{path}: sha256 {digest[:12]}… is not the one recorded"
    return changed or f"{session.file} is not in any of: {', '.join(map(str, candidates))}"


def _row(raw: str) -> dict[str, Any] | None:
    try:
        row = json.loads(raw)
    except ValueError:
        return None  # a line the publisher's redaction cut short: Claude Code's readers skip it
    return row if isinstance(row, dict) else None


def _when(row: Mapping[str, Any] | None, previous: datetime) -> datetime:
    stamp = row.get("timestamp") if row else None
    if isinstance(stamp, str):
        try:
            return datetime.fromisoformat(stamp[:19])
        except ValueError:
            pass
    return previous


def is_prompt(row: Mapping[str, Any] | None) -> bool:
    """A line the user typed: a user message of plain text, not meta, not a compact summary."""
    if not row or row.get("type") != "user" or row.get("isMeta") or row.get("isCompactSummary"):
        return False
    content = (row.get("message") or {}).get("content")
    if isinstance(content, list):
        return any(isinstance(b, dict) and b.get("type") == "text" for b in content)
    return isinstance(content, str)


def session_uuid(session: RealSession, raw_lines: Sequence[str]) -> str:
    """The session id Claude Code gave the transcript (its lines' ``sessionId``), which names
    its file and goes into every hook payload; the corpus id when no line has one."""
    for raw in raw_lines:
        row = _row(raw)
        if row and isinstance(row.get("sessionId"), str) and row["sessionId"]:
            return str(row["sessionId"])
    return session.id


def _answer(rows: Sequence[dict[str, Any] | None]) -> str:
    for row in reversed(rows):
        if row and row.get("type") == "assistant":
            for block in (row.get("message") or {}).get("content") or []:
                if isinstance(block, dict) and block.get("type") == "text":
                    return str(block.get("text", ""))
    return ""


def _stop_marks(rows: Sequence[dict[str, Any] | None]) -> list[int]:
    """Line indexes at which a Stop ran (the hook saw the lines before it): the
    ``stop_hook_summary`` lines when the transcript has them, else the ``turn_duration`` lines,
    else each turn's end (the line before the next prompt, and the end of the file)."""
    for subtype in ("stop_hook_summary", "turn_duration"):
        marks = [i for i, r in enumerate(rows) if r and r.get("subtype") == subtype]
        if marks:
            return marks
    prompts = [i for i, r in enumerate(rows) if is_prompt(r)]
    return [i for i in prompts[1:]] + [len(rows)]


def started(raw_lines: Sequence[str]) -> datetime:
    """When the session began: its first record's timestamp (1970 when no record has one)."""
    return next((_when(row, datetime(1970, 1, 1)) for row in map(_row, raw_lines)
                 if row and isinstance(row.get("timestamp"), str)), datetime(1970, 1, 1))


def plan_events(session: RealSession, raw_lines: Sequence[str]) -> list[Event]:
    """The hook calls Claude Code made while ``raw_lines`` were written, in order: SessionStart
    before the first prompt, a Stop at each turn end, PreCompact before each
    ``compact_boundary`` and SessionStart(compact) after its summary, SessionEnd at the end."""
    rows = [_row(raw) for raw in raw_lines]
    start = datetime(1970, 1, 1)
    times: list[datetime] = []
    for row in rows:
        start = _when(row, start)
        times.append(start)
    first = next((t for r, t in zip(rows, times) if r and r.get("timestamp")), start)
    times = [t if t.year > 1970 else first for t in times]
    cwds: list[str] = []
    cwd = next((str(r["cwd"]) for r in rows if r and r.get("cwd")), "/")
    for row in rows:
        cwd = str(row["cwd"]) if row and row.get("cwd") else cwd
        cwds.append(cwd)

    def at(upto: int) -> tuple[datetime, str]:
        index = min(max(upto - 1, 0), len(rows) - 1) if rows else 0
        return (times[index], cwds[index]) if rows else (first, cwd)

    first_prompt = next((i for i, r in enumerate(rows) if is_prompt(r)), len(rows))
    marks: list[tuple[int, str, tuple[tuple[str, str], ...]]] = [
        (first_prompt, "session-start", (("source", "startup"),))
    ]
    marks += [(i, "stop", ()) for i in _stop_marks(rows)]
    for i, row in enumerate(rows):
        if row and row.get("subtype") == "compact_boundary":
            trigger = str((row.get("compactMetadata") or {}).get("trigger") or "auto")
            marks.append((i, "pre-compact", (("trigger", trigger),)))
            summary = next((j for j, later in enumerate(rows[i + 1:], i + 1)
                            if later and later.get("type") == "user"), i)
            marks.append((summary + 1, "session-start", (("source", "compact"),)))
    ended = any(r and "<command-name>/exit</command-name>" in json.dumps(r) for r in rows[-4:])
    marks.append((len(rows), "session-end",
                  (("reason", "prompt_input_exit" if ended else "other"),)))
    order = {"pre-compact": 0, "session-start": 1, "stop": 2, "session-end": 3}
    marks.sort(key=lambda m: (m[0], order[m[1]]))
    events = []
    for seq, (upto, hook, extra) in enumerate(marks):
        when, where = at(upto)
        if hook == "stop":
            extra = (("last_assistant_message", _answer(rows[:upto])),)
        events.append(Event(when, session.id, seq, hook, upto, where, extra))
    return events


def merge(plans: Iterable[Sequence[Event]]) -> list[Event]:
    """All sessions' events in time order (sessions that overlapped interleave); within a
    session the planned order always holds."""
    merged: list[Event] = []
    for plan in plans:
        latest = datetime(1970, 1, 1)
        for event in plan:  # a clock that went back inside a session does not reorder it
            latest = max(latest, event.when)
            merged.append(Event(latest, event.session, event.seq, event.hook, event.upto,
                                 event.cwd, event.extra))
    return sorted(merged, key=lambda e: (e.when, e.session, e.seq))


# --- judging entity lines ---------------------------------------------------------------------

STRUCTURAL_SECTIONS = ("overview", "recent changes", "related entities", "references")
# Folders that hold code rather than name a part of it; an entity named so is a layout artefact.
SOURCE_ROOTS = frozenset({
    "src", "source", "sources", "lib", "libs", "priv", "test", "tests", "spec", "specs",
    "assets", "config", "app", "pkg", "internal", "cmd", "include", "bin", "public", "static",
    "resources", "vendor",
})
# "The issue is …" in the present tense is the model reasoning mid-turn ("I see - the issue is
# that …"); a stated cause reads "… failed because …" or "The issue was …".
_THINKING = (
    r"^(?:I see\b|Let me\b|Let's\b|Now (?:I|let me|let's|we)\b|I need to\b|I'll\b|I will\b"
    r"|I'm going to\b|Wait\b|Hmm\b|Okay\b|OK,|Perfect!|Great!|Excellent!|Good!|Actually,"
    r"|Looking at\b|It (?:looks|seems) like\b|I think\b|I should\b|First,? (?:I|let)\b)"
    r"|^The (?:issue|problem) is\b|\bThe (?:issue|problem) (?:is|was) that I\b"
)


@dataclass(frozen=True)
class EntityItem:
    """One knowledge line of an entity note: its note, its section and its text."""

    entity: str
    section: str
    text: str


def entity_items(name: str, text: str) -> list[EntityItem]:
    """The bullet lines of an entity note outside its structural sections, each as its bare
    text (no date prefix, source link or block id)."""
    items, section = [], ""
    for line in text.splitlines():
        if line.startswith("## "):
            section = line[3:].strip()
        elif line.startswith("- ") and section and section.casefold() not in STRUCTURAL_SECTIONS:
            items.append(EntityItem(name, section, bare_item(line)))
    return items


def bare_item(line: str) -> str:
    """The item of a bullet line without its bullet, date, trailing links and block id."""
    text = re.sub(r"\s*\^vm-[0-9A-Za-z-]+\s*$", "", line[2:])
    text = re.sub(r"\s*\((?:\[\[[^\]]*\]\][,;\s]*)+\)\s*$", "", text)
    text = re.sub(r"^\d{4}-\d{2}-\d{2}\s*[—–-]\s*", "", text)
    return " ".join(text.split())


def thinking_aloud(text: str) -> bool:
    """Whether an item reads as the model thinking aloud rather than stating a fact."""
    return re.search(_THINKING, text) is not None


def rule_facts(items: Iterable[EntityItem]) -> int:
    """How many entity lines are facts by vaultmem's written rule (``mining.factrule``: no
    markup, no thinking aloud, not only folders, in at most two entities)."""
    from vaultmem.mining import factrule

    return factrule.facts((i.entity, i.text) for i in items)[0]


def is_kept(item: str, facts: Iterable[RealFact], keep: Iterable[str]) -> bool:
    """An item is a fact a reader would keep: it holds one corpus fact's proof words, or a
    hand-labelled keep entry occurs in it."""
    folded = " ".join(item.split()).casefold()
    return any(holds(item, f.proof) for f in facts) or any(
        " ".join(k.split()).casefold() in folded for k in keep
    )


def environ_corpus() -> list[Path]:
    """The transcript folders to try for this checkout and environment."""
    return transcript_dirs(Path(__file__).resolve().parents[1], os.environ)


def used_keep(keep: Path | None, parts: Sequence[str]) -> Path | None:
    """The folder of one of ``parts`` under ``keep`` that an earlier run left (not empty), if any:
    a replay appends to its transcripts and resumes its vault, so into such a folder every
    session is captured twice over (each again, as a note that continues the first)."""
    if keep is None:
        return None
    return next((keep / name for name in parts
                 if (keep / name).is_dir() and any((keep / name).iterdir())), None)

