"""A session whose SessionEnd never ran (Claude Code killed, the hook cancelled) is closed by
the next session start once it is over: the rest of its transcript (a turn interrupted before
its Stop) is recorded and its Session End entry written, so the next briefing holds its last
turn; a session still being written, or the one resumed now, is left open; one that goes on
after all is reopened by its next hook. In-process hooks on made-up transcripts, in a temporary
vault."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from hook_kit import SESSIONS
from transcript_kit import CWD, Transcript, briefing, note, stop

from vaultmem.claude import capture
from vaultmem.claude.capture import LEFT_OPEN
from vaultmem.claude.events import HookEvent

TAIL = "The staging database is migrated; the 2.0 tag is not pushed yet."


def _state(vault: Path) -> dict[str, dict[str, str]]:
    (path,) = (vault / ".vaultmem/hosts").glob("*/state.json")
    return json.loads(path.read_text())  # type: ignore[no-any-return]


def _left(vault: Path, log: Transcript) -> None:
    """Session sid-a: one turn its Stop recorded, then one cut off before its Stop."""
    log.prompt("plan the release")
    log.say("Here is the release plan: migrate staging, then tag 2.0.")
    stop(log)
    log.prompt("go ahead with the migration")
    log.say(TAIL)
    assert "go ahead with the migration" not in note(vault)


def _age(vault: Path, log: Transcript, seconds: float = 3600) -> None:
    then = time.time() - seconds
    for path in (log.path, *(vault / SESSIONS).glob("*.md")):
        os.utime(path, (then, then))


def test_the_next_start_records_the_rest_and_ends_a_session_left_open(
        env: Path, log: Transcript) -> None:
    _left(env, log)
    _age(env, log)
    told = briefing("sid-b")
    (left,) = [p for p in (env / SESSIONS).glob("*.md") if "plan the release" in p.read_text()]
    text = left.read_text()
    assert "go ahead with the migration" in text and TAIL in text
    assert f"- Session End\n\nReason: {LEFT_OPEN}" in text
    assert text.index(TAIL) < text.index("- Session End")
    state = _state(env)
    assert state["sessions"]["sid-a"].get("ended") and state["current"]["shop"] == "sid-b"
    assert TAIL in told  # the next session is told how the last one ended


def test_a_session_still_being_written_is_left_open(env: Path, log: Transcript) -> None:
    _left(env, log)
    _age(env, log, 60)  # a minute ago: it may be running in another terminal
    briefing("sid-b")
    assert "Session End" not in note_of(env, "plan the release")
    assert "ended" not in _state(env)["sessions"]["sid-a"]


def test_the_session_resumed_now_is_not_closed(env: Path, log: Transcript) -> None:
    _left(env, log)
    _age(env, log)
    capture.on_session_start(HookEvent(name="session-start", session_id="sid-a", cwd=CWD,
                                       transcript_path=str(log.path), source="resume"))
    assert "Session End" not in note(env)
    assert "ended" not in _state(env)["sessions"]["sid-a"]


def test_a_closed_session_that_goes_on_is_reopened_by_its_next_hook(
        env: Path, log: Transcript) -> None:
    _left(env, log)
    _age(env, log)
    briefing("sid-b")
    log.prompt("now tag the release")
    log.say("Tagged 2.0 and pushed the tag.")
    stop(log)
    text = note_of(env, "plan the release")
    assert text.index("- Session End") < text.index("now tag the release")
    assert "ended" not in _state(env)["sessions"]["sid-a"]


def note_of(vault: Path, words: str) -> str:
    (found,) = [p.read_text() for p in (vault / SESSIONS).glob("*.md") if words in p.read_text()]
    return found


def test_a_start_closes_the_newest_few_and_the_next_starts_the_rest(
        env: Path, tmp_path: Path) -> None:
    count = capture.CLOSE_PER_START + 2
    logs = []
    for n in range(count):  # session sid-0 is the oldest, each one an hour newer
        log = Transcript(tmp_path / f"t{n}.jsonl")
        log.prompt(f"task number {n} of the release")
        log.say(f"Started task {n}.")
        stop(log, f"sid-{n}")
        logs.append(log)
    for n, log in enumerate(logs):
        then = time.time() - 3600 * (count + 1 - n)
        for path in (log.path, next(p for p in (env / SESSIONS).glob("*.md")
                                    if f"task number {n} " in p.read_text())):
            os.utime(path, (then, then))
    briefing("sid-b")
    closed = {sid for sid, entry in _state(env)["sessions"].items() if entry.get("ended")}
    assert closed == {f"sid-{n}" for n in range(2, count)}  # the newest first, a few a start
    briefing("sid-c")
    closed = {sid for sid, entry in _state(env)["sessions"].items() if entry.get("ended")}
    assert {f"sid-{n}" for n in range(count)} <= closed
