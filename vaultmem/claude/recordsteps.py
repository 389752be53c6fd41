"""Recording a transcript into its session note, step by step, under the state lock.

``capture.record_transcript`` takes the lock and calls :func:`record_lines`, which runs the steps
in order: follow the session to its project -> read the new lines (:func:`_read`) -> ingest them
into edits and write the note (:func:`_write`) -> mark them read (:func:`_mark_read`) -> name a
note still waiting for its topic (:func:`_retopic`).
"""

from __future__ import annotations

import posixpath
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import TYPE_CHECKING

from vaultmem.memory.sessionnames import awaits_topic, retopic
from vaultmem.memory.sessions import Memory
from vaultmem.notes import frontmatter, patch
from vaultmem.store.state import StateData

from ..errors import NoteArchived, VaultmemError
from . import transcript
from .events import HookEvent

if TYPE_CHECKING:
    from . import ingest

# A note still without a topic has its transcript read from the start (its first prompt names
# it) only while what was read is this short: a bounded re-read, within the uuids the state keeps.
RETOPIC_BYTES = 256 * 1024


@dataclass(frozen=True)
class IngestResult:
    """What one ingest added to the session note."""

    note: str
    turns: int
    status: str  # the write status, or "nothing new"
    # Closing with no turn to record: the metadata edits left to the Session End entry's write.
    pending: tuple[patch.Edit, ...] = ()


def record_lines(memory: Memory, event: HookEvent, data: StateData, sid: str, now: datetime,
                 meta: dict[str, str], closing: bool) -> IngestResult:
    """The steps of one record, in order, under the state lock."""
    _follow_project(memory, event, data, sid, now)
    new = _read(memory, event, data, sid)
    status, pending = _write(memory, event, data, sid, new, now, meta, closing)
    _mark_read(data, sid, new)
    note = _retopic(memory, data, sid, new.read.first_prompt) if new.read.first_prompt else (
        data.sessions[sid].note)
    return IngestResult(note, len(new.turns), status, pending)


@dataclass(frozen=True)
class NewLines:
    """What one read of the transcript found that the session note does not hold yet."""

    path: str | None  # the transcript read (none: the payload names no transcript)
    read: transcript.Transcript
    # The read's turns, and the Stop payload's last message when the transcript lacks it
    turns: tuple[transcript.Turn, ...]
    keys: frozenset[str]  # the last message's key, marked read beside the turns' own
    private: tuple[str, ...]  # what the person marked private, which a summary may restate


def _follow_project(memory: Memory, event: HookEvent, data: StateData, sid: str,
                    now: datetime) -> None:
    """A session whose cwd now names another project follows it there."""
    if data.sessions[sid].project != memory.config.project:
        from . import relocate  # only a session whose cwd now names another project

        relocate.follow(memory, data, sid, event.cwd, now.date())


def _read(memory: Memory, event: HookEvent, data: StateData, sid: str) -> NewLines:
    """Step 1: the transcript lines the session has not recorded yet."""
    entry = data.sessions[sid]
    path = event.transcript_path
    # Go on from where the last read ended; from the start while the note still waits for
    # its topic (the first prompt names it), unless the session is long past its first
    # prompt (one that names nothing): every Stop would re-read the whole session.
    start = data.resume_offset(sid, path) if path else 0
    if start and awaits_topic(entry.note) and start <= RETOPIC_BYTES:
        start = 0
    scrub = memory.config.redaction
    # Read from the start, a transcript may hold the turns of another session of the
    # project: ``--resume --fork-session`` copies them, uuids and all, under a new id.
    skip = entry.ingested if start else data.project_uuids(entry.project, entry.ingested)
    # The first prompt names only a note still waiting for its topic (_retopic).
    read = transcript.read(path, skip_uuids=skip, start=start, private=entry.private,
                           scrub=scrub, mark=entry.mark, topic=awaits_topic(entry.note)) if path else (
        transcript.Transcript((), None, 0, 0, private=entry.private))
    # The Stop payload's last message may be ahead of the transcript (or there is none).
    turns, keys = transcript.with_last_message(
        read.turns, event.last_assistant_message, entry.ingested, private=max(read.private),
        scrub=scrub)
    # A compact summary may restate what the person marked private, without the tags.
    private = transcript.private_texts(path, read.end) if path and any(
        t.summary for t in turns) else ()
    return NewLines(path, read, turns, keys, private)


def _write(memory: Memory, event: HookEvent, data: StateData, sid: str, new: NewLines,
           now: datetime, meta: dict[str, str],
           closing: bool) -> tuple[str, tuple[patch.Edit, ...]]:
    """Steps 2 and 3: the new turns ingested and written into the session note. Its write
    status (or "nothing new"), and the edits left to the Session End entry's write."""
    # Claude Code's title for the session: its frontmatter title and an alias (the note's
    # file name and heading stay as the first prompt named them).
    props = {**meta, "title": new.read.title} if new.read.title else meta
    if closing and not new.turns:
        return "nothing new", (_touched(now), *_meta_edits(props))
    try:
        return _write_turns(memory, event, data.sessions[sid].note, new.turns, now, props,
                            new.private, closing), ()
    except NoteArchived:
        # Compacted between our look and our write (`vaultmem compact --force` on a live
        # note): the turns go to the note that continues it, never into the archived one.
        if not new.turns:
            return "nothing new", ()
        rel = memory.continue_archived(data, sid, now=now, meta=meta)
        return _write_turns(memory, event, rel, new.turns, now, props, new.private,
                            closing), ()


def _mark_read(data: StateData, sid: str, new: NewLines) -> None:
    """Step 4: the lines read are marked ingested, and where the next read goes on."""
    read, path = new.read, new.path
    data.count_unknown(sid, (kind for kind, _ in read.unknown))
    data.mark_ingested(sid, [*(k for t in new.turns for k in t.keys), *new.keys,
                             *(key for _, key in read.unknown)],
                       last_offset=read.end if path else None, transcript=path,
                       private=read.private if path else None,
                       mark=read.mark if path else None)


def _write_turns(memory: Memory, event: HookEvent, note: str, turns: Sequence[transcript.Turn],
                 now: datetime, meta: dict[str, str], private: Sequence[str],
                 closing: bool) -> str:
    """Add ``turns`` to ``note``; its write status, or "nothing new". NoteArchived when the
    note is archived at the moment of the write (checked under the note's lock)."""
    base = memory.vault.read(note) if turns else None
    # No new turn tells nothing: the ingest and its miner are not even imported then.
    edits = _ingest(memory, event, turns, note, base.text, now, private) if base else []
    if not (edits or closing or "title" in meta):
        return "nothing new"
    touch = [_touched(now)] if closing else []
    written = memory.vault.update(note, [patch.Rewrite(_unless_archived), *touch, *edits,
                                         *_meta_edits(meta)], base=base, label="vaultmem ingest")
    return written.status if edits else "nothing new"


def _touched(now: datetime) -> patch.Edit:
    return patch.SetProperty("claude_last_accessed", now.date())


def _ingest(memory: Memory, event: HookEvent, turns: Sequence[transcript.Turn], note: str,
            text: str, now: datetime, private: Sequence[str]) -> list[patch.Edit]:
    """The edits that add ``turns`` to the session note ``note`` holding ``text`` (none when
    they say nothing new). Its links go to the entities of the note's own project (its folder:
    the configured project may be another when the session began in another directory)."""
    from . import callout, failfix, ingest, notelisted, stated

    project = posixpath.basename(posixpath.dirname(posixpath.dirname(note)))
    told = ingest.story(turns, now=now, cwd=event.cwd, rules=memory.config.components,
                        failing=notelisted.open_failures(text), private=private,
                        known=notelisted.linked_components(text),
                        met=failfix.met_in_note(text), project=project,
                        steps=stated.open_steps(text),
                        asked=callout.last_answer(text))
    # A turn or summary the note holds already is not written twice: the state that said
    # which lines were read was lost (deleted, set aside) and the transcript is read again.
    told, held = anchored(told, event.cwd), _entries_of(text)
    told = replace(told, entries=tuple(e for e in told.entries if e.rstrip() not in held),
                   summaries=tuple(s for s in told.summaries if s not in text))
    linked = memory.entity_links(ingest.component_names(told), project)
    edits = ingest.edits_for(told, text, link=lambda name: linked[name])
    if edits:
        edits += [patch.SetProperty("updated", now.date()),
                  patch.SetProperty("claude_last_accessed", now.date())]
    return edits


def _entries_of(text: str) -> set[str]:
    """The work-log entries a note holds, whole (``### HH:MM - …`` up to the next heading):
    an entry that only begins as another does is another."""
    return {"### " + block.split("\n## ", 1)[0].rstrip()
            for block in ("\n" + text).split("\n### ")[1:]}


def _unless_archived(text: str) -> str:
    """The note unchanged, or NoteArchived when compaction archived it: this runs on the text
    read under the note's lock, which compaction holds from its last look to its mark."""
    if frontmatter.parse(text).get("status") == "archived":
        raise NoteArchived("the session note was archived meanwhile")
    return text


def anchored(told: ingest.Story, cwd: str | None) -> ingest.Story:
    """The story with each item that came from a turn touching files anchored to them (their
    content now and HEAD; one ``git rev-parse`` when there is anything to anchor)."""
    from vaultmem.memory import anchors  # only with files to anchor: a git process follows

    found = anchors.anchors_of([item.files for item in told.items], cwd)
    if found is None:
        return told
    return replace(told, items=tuple(replace(item, anchor=anchor) if anchor else item
                                     for item, anchor in zip(told.items, found, strict=True)))


def _meta_edits(meta: dict[str, str]) -> list[patch.Edit]:
    # What a Stop or SessionEnd updates; the *_start keys stay as the session began. A title
    # is an alias too (Obsidian and recall find the note by it); older titles stay aliases.
    edits: list[patch.Edit] = [patch.SetProperty(k, v) for k, v in meta.items()
                               if not k.endswith("_start")]
    if "title" in meta:
        title = meta["title"]
        edits.append(patch.Rewrite(lambda text: _with_alias(text, title)))
    return edits


def _with_alias(text: str, alias: str) -> str:
    """The note with ``alias`` in its ``aliases``; unchanged when a person made ``aliases``
    something a name cannot be added to (a mapping): the turns are recorded all the same."""
    from vaultmem.notes import propedit

    try:
        return propedit.add_to_list(text, "aliases", alias)
    except VaultmemError:
        return text


def _retopic(memory: Memory, data: StateData, sid: str, first_prompt: str) -> str:
    return retopic(memory.vault, data, sid, first_prompt, _title_of)


def _title_of(prompt: str) -> str:
    from . import ingest  # the work log's titles: only for a note that gets its topic

    return ingest.title_of(prompt)
