"""The moment hooks (DESIGN §12): UserPromptSubmit, PostToolUseFailure, and the context after a
compaction. Each reads the index and the injection log, answers with context or nothing, and
logs what it injected (``injections.py``). Called by ``hooks.py`` and ``capture.py``.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from vaultmem import clock
from vaultmem.store.config import Config, load_config
from vaultmem.store.vault import Vault
from vaultmem.store.vaultopen import open_vault

from . import injections
from .events import HookEvent, context_output

if TYPE_CHECKING:
    from vaultmem.memory.sessions import Memory

PROMPT = "UserPromptSubmit"
FAILURE = "PostToolUseFailure"
START = "SessionStart"
TRANSCRIPT_TAIL_BYTES = 4 * 1024 * 1024  # of the transcript read for the compact summary


def _vault(event: HookEvent) -> tuple[Config, Vault] | None:
    """The configuration and the vault, None when there is no vault yet (nothing to tell, and
    a moment hook never creates one)."""
    config = load_config(cwd=Path(event.cwd) if event.cwd else None)
    if not config.vault.is_dir():
        return None
    return config, open_vault(config)


def _log(vault: Vault, event_name: str, sid: str, text: str, keys: tuple[str, ...],
         reason: str, project: str, now: datetime, warnings: list[str]) -> None:
    try:
        injections.record(vault.state_dir, injections.Injection(
            sid, event_name, len(text), reason, keys, injections.now_iso(now), project))
    except OSError as err:
        warnings.append(f"injection not logged: {err}")


def on_user_prompt_submit(event: HookEvent, warnings: list[str]) -> str:
    """UserPromptSubmit: the facts the vault holds about what the prompt names, or nothing."""
    from . import moments, onprompt  # the index lookup: SessionStart's briefing log needs none

    if not (event.session_id and event.prompt and onprompt.terms(event.prompt)):
        return ""
    opened = _vault(event)
    if opened is None or not opened[0].prompt_context:
        return ""
    config, vault = opened
    now = clock.now()
    own = onprompt.terms(event.prompt)
    found = moments.lookup(vault, config.project, [*own, *onprompt.trackers(event.prompt)],
                           kinds=onprompt.KINDS, today=now.date(), compacted=onprompt.COMPACTED,
                           session=event.session_id)
    if not found:
        return ""
    told = onprompt.told(event.prompt, found, injections.given(vault.state_dir, event.session_id),
                         lambda words: moments.rarity_in(vault, config.project, words))
    if told is None:
        return ""
    _log(vault, PROMPT, event.session_id, told.text, told.keys, told.reason, config.project,
         now, warnings)
    return context_output(PROMPT, told.text)


def on_post_tool_use_failure(event: HookEvent, warnings: list[str]) -> str:
    """PostToolUseFailure: the fix recorded for this failure, or nothing."""
    from . import errorline, moments, onfailure

    if not (event.session_id and event.error) or event.is_interrupt:
        return ""
    failure = onfailure.Failure(event.tool_name or "tool", event.command, event.file_path,
                                event.error)
    sig = errorline.signature(failure.error)
    if not sig:
        return ""
    opened = _vault(event)
    if opened is None:
        return ""
    config, vault = opened
    now = clock.now()
    project, also = _failure_projects(event, config)
    # A lesson about the host's tools holds in any project of the machine (DESIGN §12).
    host = onfailure.host_wide(failure)
    found = moments.lookup(vault, project, onfailure.terms(failure, sig), kinds=onfailure.KINDS,
                           today=now.date(), also=also, session=event.session_id,
                           everywhere=host)
    if not found:
        return ""
    told = onfailure.told(failure, found, injections.given(vault.state_dir, event.session_id,
                                                           briefing=False),
                          home=(project, *also) if host else None)
    if told is None:
        return ""
    _log(vault, FAILURE, event.session_id, told.text, told.keys, told.reason, config.project,
         now, warnings)
    return context_output(FAILURE, told.text)


def _failure_projects(event: HookEvent, config: Config) -> tuple[str, tuple[str, ...]]:
    """(the project a failed command ran in, the session's own when another): a session
    started in the home folder runs ``cd ~/code/shop && git commit`` in ``shop``, whose fixes
    are filed there, while what it learnt itself stays with its own note. The session's project
    alone when the command went nowhere or the project is set (``VAULTMEM_PROJECT``)."""
    import os

    from vaultmem.store.config import detect_project

    from . import onfailure

    folder = onfailure.ran_in(event.command, event.cwd, str(Path.home()))
    if folder is None or os.environ.get("VAULTMEM_PROJECT"):
        return config.project, ()
    try:
        ran = detect_project(Path(folder))
    except (OSError, ValueError):
        return config.project, ()
    return (ran, (config.project,)) if ran and ran != config.project else (config.project, ())


def compact_summary(transcript: str | None, offset: int) -> str | None:
    """Claude Code's summary of the compaction that just ran, when the transcript holds it past
    ``offset`` (where the PreCompact hook's read ended); None when it is not written yet."""
    if not transcript:
        return None
    from . import aftercompact

    try:
        with open(transcript, "rb") as handle:
            handle.seek(max(offset, 0))
            tail = handle.read(TRANSCRIPT_TAIL_BYTES)
    except OSError:
        return None
    return aftercompact.summary_of(tail.decode("utf-8", "replace").splitlines())


def after_compaction(memory: Memory, event: HookEvent, sid: str, note: str,
                     warnings: list[str]) -> str:
    """SessionStart(compact): the session's own record its summary lacks ("" when nothing)."""
    from . import aftercompact

    now = clock.now()
    offset = 0
    entry = memory.state.get(sid)
    if entry is not None and event.transcript_path:
        offset = memory.state.load().resume_offset(sid, event.transcript_path)
    summary = compact_summary(event.transcript_path, offset)
    state_dir = memory.vault.state_dir
    record = aftercompact.build(memory.vault.read(note).text, summary,
                               given=injections.given(state_dir, sid))
    if not record.text:
        return ""
    reason = (f"after compaction: {record.items} items of this session"
              + (f", {record.left_out} left out as in the summary" if summary else
                 ", summary not on disk yet"))
    _log(memory.vault, START, sid, record.text, record.keys, reason, memory.config.project, now,
         warnings)
    return record.text


def log_briefing(memory: Memory, sid: str, text: str, source: str | None,
                 warnings: list[str]) -> None:
    """Log the SessionStart briefing (its characters; the facts it gives, so that no later
    moment repeats them)."""
    from vaultmem.notes.facts import fact_key

    keys = tuple(fact_key(line[2:]) for line in text.split("\n") if line.startswith("- "))
    _log(memory.vault, START, sid, text, keys, f"{injections.BRIEFING} ({source or 'startup'})",
         memory.config.project, clock.now(), warnings)
