"""The use-cases behind Claude Code's hooks, each a few named steps called in order:

- SessionStart (``on_session_start``): start the note -> mirror the auto memory -> compact what
  is pending -> refresh the index -> brief the session.
- Stop and PreCompact (``on_stop``): record the transcript (``record_transcript``; its steps
  are ``recordsteps``): read the new lines -> ingest them into edits -> write the note -> mark
  them read -> name the note.
- SessionEnd (``on_session_end``): record the rest (the same steps) -> mirror -> drop a note
  left empty -> re-anchor -> close the note, compacting it when due.

Called by ``hooks.py`` (the door). Everything here is local and bounded: no network, no
``anthropic``; the LLM extractor, when configured, runs in a detached ``vaultmem compact``.
"""

from __future__ import annotations

import os
import posixpath
import sys
from datetime import date, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from vaultmem import clock
from vaultmem.memory.sessionnames import awaits_topic
from vaultmem.memory.sessions import Memory
from vaultmem.notes import fences, inline
from vaultmem.store import gitinfo, machine
from vaultmem.store.config import Config, load_config
from vaultmem.store.state import StateData
from vaultmem.store.vaultopen import open_vault

from ..errors import SessionError, VaultmemError
from .events import HookEvent, context_output, session_start_output

if TYPE_CHECKING:
    from vaultmem.memory.automirror import MirrorResult
    from vaultmem.notes import patch

    from .recordsteps import IngestResult

# Time given to mirroring Claude Code's auto memory (a stat-only look costs a millisecond; what
# does not fit is mirrored by the next hook).
MIRROR_START_S = 0.15
MIRROR_END_S = 0.4


def _config(event: HookEvent) -> Config:
    # A cwd that does not exist here still names the project (git detection then falls back
    # to the folder's name).
    return load_config(cwd=Path(event.cwd) if event.cwd else None)


def _memory(event: HookEvent, warnings: list[str] | None = None) -> Memory:
    from vaultmem.store.vaultchoice import may_create, require_vault

    config = _config(event)
    if not may_create(config):
        require_vault(config)  # a mistyped vault: one stderr line, nothing written
    memory = Memory(config, open_vault(config))
    if warnings is not None:
        # What the state has to say (a corrupt state.json set aside) reaches the hook's stderr.
        memory.state.warnings = memory.vault.warnings = warnings
    return memory


def _session_id(memory: Memory, event: HookEvent) -> str:
    sid = event.session_id or memory.state.current(memory.config.project)
    if not sid:
        raise SessionError("the hook payload has no session_id and the project has no current session")
    return sid


def session_meta(event: HookEvent) -> dict[str, str]:
    """The session note's flat metadata: cwd, git branch and HEAD (start and end), host.

    Keys whose value is unknown are left out (no git checkout: no ``git_*`` keys)."""
    meta: dict[str, str] = {}
    if event.cwd:
        meta["cwd"] = inline.one_line(event.cwd)
        git = gitinfo.read(event.cwd)
        if git is not None and git.branch:
            meta["git_branch"] = inline.one_line(git.branch)
        if git is not None and git.head:
            meta["git_head_start"] = meta["git_head_end"] = git.head
    # The name the per-host state and the lazy compaction compare notes by (machine.py).
    meta["host"] = machine.host_name()
    return meta


def record_transcript(memory: Memory, event: HookEvent, sid: str, now: datetime, *,
                      closing: bool = False) -> IngestResult:
    """Record the transcript lines not yet in the session note (dedup by line uuid).

    ``closing`` (SessionEnd): the metadata (``git_head_end``...) is brought up to date even
    when the transcript has nothing new: then by the caller, with the result's ``pending``
    edits in the write of the Session End entry (one write of the note, not two)."""
    from .recordsteps import record_lines  # not at the top: SessionStart reads no transcript

    meta = session_meta(event)
    # A session whose SessionStart never ran gets its note. Closing, the note is written below
    # in any case: its claude_last_accessed goes into that write rather than one of its own.
    started = memory.start_session(sid, now=now, meta=meta, touch=not closing)
    if started.handed:  # grown too big for a hook: compacted apart, the session goes on anew
        spawn_compaction(memory.config, started.handed, "deterministic")
    # The state lock is held while the note is written, so a Stop and a PreCompact racing on
    # one session cannot both add the same turns.
    return memory.state.update(
        lambda data: record_lines(memory, event, data, sid, now, meta, closing))


def _drop_if_empty(memory: Memory, sid: str, note: str) -> bool:
    """Remove the note of a session that ended before its first prompt (still ``<date>-session``,
    nothing in it but the template's headings and context line) and forget the session."""
    if not awaits_topic(note):
        return False
    read = memory.vault.read(note)
    body = fences.split(read.text).body
    if any(line.strip() and not line.startswith(("#", "Project [[")) for line in body.split("\n")):
        return False

    def forget(data: StateData) -> bool:
        # Only if no one wrote in it since it was read (a person typing in Obsidian keeps it).
        if not memory.vault.remove(note, expected=read.fingerprint):
            return False
        data.forget(sid)
        return True

    return memory.state.update(forget)


def on_session_start(event: HookEvent, warnings: list[str] | None = None) -> str:
    """SessionStart: the note exists, pending notes get compacted (time-boxed), context printed.

    The briefing is what Claude needs most: a note that cannot be written (invalid YAML a person
    left, a read-only vault) or a compaction that stops adds to ``warnings`` instead of costing
    the session its context.
    """
    problems = warnings if warnings is not None else []
    memory = _memory(event, problems)
    now = clock.now()
    if event.session_id and event.source != "compact":
        _close_left_open(memory, event.session_id, now, problems)
    started_note = _start_note(memory, event, now, problems)
    if memory.config.redaction.enabled:
        from vaultmem.notes.secretrules import warm

        warm()  # once per machine and detect-secrets version: see secretrules
    # Changes found after a compaction are this session's; at a start, nobody's in particular.
    _mirror(memory, event.cwd, today=now.date(),
            session_note=started_note if event.source == "compact" else None,
            budget_s=MIRROR_START_S, warnings=problems)
    _compact_pending(memory, now, problems)
    if event.session_id:  # a payload without one is junk: nothing written for it
        _refresh_index(memory, problems)
    return _brief(memory, event, started_note, now, problems)


def _start_note(memory: Memory, event: HookEvent, now: datetime,
                problems: list[str]) -> str | None:
    """The session's note, started or resumed (none without a session id, or unwritable)."""
    if not event.session_id:
        return None
    try:
        started = memory.start_session(event.session_id, now=now, meta=session_meta(event))
        if started.handed:
            spawn_compaction(memory.config, started.handed, "deterministic")
        if started.resumed and event.source == "resume":
            from vaultmem.notes import patch  # a new session's start edits no note

            from . import ingest

            # The same story goes on: one marker, the note's sections stay as they are.
            memory.vault.update(started.note, [patch.SectionPatch(
                ingest.WORK_LOG, "append", f"### {now:%H:%M} - Resumed", subtree=True,
                create=True, prefer="first")], label="vaultmem resume")
    except (VaultmemError, OSError) as err:
        problems.append(f"session note not updated: {err}")
        return None
    return started.note


# The reason a Session End entry gives when the next session start closed the session.
LEFT_OPEN = "never ended (no SessionEnd ran); closed at the next session start"
# How many such sessions one start closes, the newest first: a vault that piled them up before
# (an upgrade, a month of killed windows) is closed over the next starts, each start kept short.
CLOSE_PER_START = 3


def _close_left_open(memory: Memory, starting: str, now: datetime,
                     problems: list[str]) -> None:
    """The sessions of this machine left open and over (``Upkeep.left_open``) closed as their
    SessionEnd would have: the rest of their transcript recorded (a turn interrupted before its
    Stop), then their Session End entry, dated when they were last active. Before the starting
    session's note, which stays the project's current one. Compaction follows as for any
    ended note; a session that goes on after all is reopened by its next hook."""
    try:
        left = memory.left_open(starting)
    except (VaultmemError, OSError):
        return  # the state cannot be read (a read-only vault): starting the note says so
    for entry, last in sorted(left, key=lambda found: found[1], reverse=True)[:CLOSE_PER_START]:
        sid, when = entry.session_id, min(last, now)
        try:
            event = HookEvent(name="session-end", session_id=sid, cwd=None,
                              transcript_path=entry.transcript, reason=LEFT_OPEN)
            ended = record_transcript(memory, event, sid, when, closing=True)
            if not _drop_if_empty(memory, sid, ended.note):
                memory.end_session(reason=LEFT_OPEN, compact=False, first_edits=ended.pending,
                                   session_id=sid, now=when)
        except (VaultmemError, OSError) as err:
            problems.append(f"session {sid[:8]} left open, not closed: {err}")


def _compact_pending(memory: Memory, now: datetime, problems: list[str]) -> None:
    """Notes left pending compacted within the start's budget; one too big is handed over."""
    too_big: list[str] = []
    try:
        memory.compact_pending(budget_s=memory.config.start_compaction_budget, now=now,
                               too_big=too_big)
    except (VaultmemError, OSError) as err:
        problems.append(f"pending compaction stopped: {err}")
    for rel in too_big[:1]:  # one at a time: the next session start hands over the next
        spawn_compaction(memory.config, rel, "deterministic")


def _brief(memory: Memory, event: HookEvent, started_note: str | None, now: datetime,
           problems: list[str]) -> str:
    """The hook's output: the project's briefing; after a compaction, the session's own record."""
    from . import momenthooks

    if event.source == "compact" and started_note and event.session_id:
        # The project's briefing is in the context already: only the session's own record.
        return context_output("SessionStart", momenthooks.after_compaction(
            memory, event, event.session_id, started_note, problems))
    from vaultmem.brief import briefing  # only session-start renders the briefing

    cwd = Path(event.cwd) if event.cwd else None
    # The briefing tells what Claude does not know: a resumed or compacted session's own story
    # is in its context already; a new note has nothing to tell yet.
    exclude = {started_note} if started_note else set()
    text = briefing.build(memory.vault, memory.config, exclude=exclude, cwd=cwd,
                          today=now.date())
    if event.session_id and text:
        momenthooks.log_briefing(memory, event.session_id, text, event.source, problems)
    return session_start_output(text) if text else ""


def _refresh_index(memory: Memory, warnings: list[str],
                   folders: tuple[str, ...] | None = None) -> None:
    """The search index of ``folders`` (the project and the global notes) brought up to date,
    unless another process is at it: the moment hooks read it as it is (claude/moments.py)."""
    from vaultmem.search import index

    layout = memory.vault.layout
    try:
        index.refresh(memory.vault, wait=False, max_bytes=index.HOOK_NOTE_BYTES, folders=folders
                      or (layout.project_dir(memory.config.project), f"{layout.namespace}/global"))
    except (VaultmemError, OSError) as err:
        warnings.append(f"search index not refreshed: {err}")


def on_stop(event: HookEvent, warnings: list[str] | None = None) -> str:
    """Stop and PreCompact: record the new transcript turns, and index the session notes of
    the note's project: a fix recorded now is told at a failure of a session that runs beside
    this one, or that went down into this project after its start (SessionStart indexes the
    project it starts in)."""
    problems = warnings if warnings is not None else []
    memory = _memory(event, problems)
    done = record_transcript(memory, event, _session_id(memory, event), clock.now())
    if done.turns:
        _refresh_index(memory, problems, folders=(posixpath.dirname(done.note),))
    return ""


def on_session_end(event: HookEvent, warnings: list[str] | None = None, *,
                   compact_by: float | None = None) -> str:
    """SessionEnd: record the rest, close the note, compact inline (or detached for the LLM).

    ``compact_by`` (a ``time.monotonic()`` value, see ``hookclock``): a compaction that would
    pass it is handed to a detached ``vaultmem compact`` (``memory/handover.py``)."""
    memory = _memory(event, warnings)
    now = clock.now()
    sid = _session_id(memory, event)
    ended = record_transcript(memory, event, sid, now, closing=True)
    mirrored = _mirror(memory, event.cwd, today=now.date(), session_note=ended.note,
                       budget_s=MIRROR_END_S, warnings=memory.vault.warnings)
    # Opened and closed without a prompt, and Claude wrote no memory: it leaves nothing.
    if not (mirrored and mirrored.written) and _drop_if_empty(memory, sid, ended.note):
        return ""
    _reanchor(memory, ended.note, event.cwd)
    _close(memory, event, sid, ended.pending, now, compact_by)
    return ""


def _reanchor(memory: Memory, note: str, cwd: str | None) -> None:
    """The note's anchors re-taken, so they hold the content the session ended with."""
    try:
        if "%%vm-anchor" not in memory.vault.read(note).text:
            return  # nothing anchored: no git process, the anchors not even imported
        from vaultmem.memory import anchors

        anchors.reanchor_note(memory.vault, note, cwd)
    except (VaultmemError, OSError) as err:
        memory.vault.warnings.append(f"anchors not re-taken: {err}")


def _close(memory: Memory, event: HookEvent, sid: str, pending: tuple[patch.Edit, ...],
           now: datetime, compact_by: float | None) -> None:
    """The Session End entry written (with ``pending``), the note compacted when it is due."""
    # A model extractor (the API, or the user's own claude) runs detached: never in the hook.
    detached = memory.config.extractor in ("llm", "claude")
    result = memory.end_session(reason=event.reason or "other", compact=not detached,
                                first_edits=pending, session_id=sid, now=now,
                                compact_by=compact_by)
    # A note too big to compact inside the hook, or whose compaction would pass the deadline,
    # is due and not (wholly) compacted: detached as well.
    if result.due:  # not memory.pending(): that reads every session note
        spawn_compaction(memory.config, result.note,
                         memory.config.extractor if detached else "deterministic")


def _mirror(memory: Memory, cwd: str | None, *, today: date, session_note: str | None,
            budget_s: float, warnings: list[str]) -> MirrorResult | None:
    """Claude Code's auto memory mirrored (SessionStart and SessionEnd only). The mirror is not
    even imported when there is nothing to look at: no folder, and none mirrored before."""
    from vaultmem.memory import autowhere

    found = autowhere.worth_a_look(memory.vault.state_dir, memory.config.project, cwd, warnings)
    if found is None:
        return None
    from vaultmem.memory import automirror

    return automirror.on_hook(memory.vault, memory.config.project, found, today=today,
                              session_note=session_note, budget_s=budget_s, warnings=warnings,
                              scrub=memory.config.redaction)


def spawn_compaction(config: Config, note: str, extractor: str = "llm") -> None:
    """Start ``vaultmem compact NOTE --extractor X`` detached: the hook does not wait for it."""
    # Never the hook's cwd on sys.path (a project's own vaultmem/ folder would be imported):
    # -P where Python has it, else isolated; and a folder of no project as the cwd.
    import subprocess  # only when a compaction is handed over: kept off the hooks' start-up

    safe = ["-P"] if sys.version_info >= (3, 11) else ["-I"]
    args = [sys.executable, *safe, "-m", "vaultmem", "--vault", os.path.abspath(config.vault),
            "--project", config.project, "compact", note, "--extractor", extractor]
    subprocess.Popen(
        args,
        cwd="/",
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
        close_fds=True,
    )
