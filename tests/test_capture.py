"""capture.py: the use-cases behind the hooks (session note, transcript ingest with dedup, topic
rename, lazy and end-of-session compaction, the briefing printed at session start)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from datetime import datetime
from pathlib import Path

import pytest
from hook_kit import (
    ARCHIVE,
    DAY,
    ENTITIES,
    LABEL,
    PROJECT,
    SECRET,
    SESSIONS,
    copy_transcript,
    hook_env,
    payload,
    run_hook,
)
from markdown_it import MarkdownIt

from vaultmem.claude import capture
from vaultmem.claude.events import HookEvent
from vaultmem.memory.sessions import Memory
from vaultmem.notes import frontmatter, patch
from vaultmem.store import machine
from vaultmem.store.config import Config
from vaultmem.store.vault import Vault

CWD = "/home/dev/work/shop"
BIG_LINES = 600


def _now(day: str = DAY, hm: str = "10:30") -> datetime:
    return datetime.fromisoformat(f"{day}T{hm}:00").astimezone()


def _memory(root: Path) -> Memory:
    return Memory(Config(vault=root, project=PROJECT), Vault(root))


def _event(name: str, sid: str | None = "sid-new", **fields: str) -> HookEvent:
    return HookEvent(
        name=name,
        session_id=sid,
        transcript_path=fields.pop("transcript_path", None),
        cwd=CWD,
        **fields,
    )


def _context(out: str) -> str:
    text = json.loads(out)["hookSpecificOutput"]["additionalContext"]
    assert isinstance(text, str)
    return text


def _fenced_and_loose(text: str) -> tuple[str, str]:
    """(text inside fences, text outside them) as Markdown reads the briefing."""
    tokens = MarkdownIt().parse(text)
    inside = "\n".join(t.content for t in tokens if t.type == "fence")
    outside = "\n".join(t.content for t in tokens if t.type == "inline")
    return inside, outside


def _big_session(m: Memory, sid: str, *, topic: str, lines: int = BIG_LINES) -> str:
    rel = m.start_session(sid, topic=topic, now=_now()).note
    log = "\n\n".join(
        f"### 09:{i % 60:02d} - Step {i}\n\nFixed bug number {i}." for i in range(lines // 4)
    )
    m.vault.update(rel, [patch.SectionPatch(("Work Log",), "append", log)])
    assert m.vault.read(rel).lines >= m.config.line_threshold
    return rel


def _status(root: Path, rel: str) -> str:
    return str(frontmatter.parse((root / rel).read_text()).get("status"))


# -- session start: the briefing ---------------------------------------------------------------


def _earlier_sessions(root: Path) -> list[str]:
    """Four ended sessions on three days, each with a decision, a question and a next step."""
    m = _memory(root)
    rels = []
    for i, (day, hm) in enumerate(
        [
            ("2026-11-20", "09:00"),
            ("2026-11-21", "09:00"),
            ("2026-11-21", "15:00"),
            ("2026-11-22", "08:00"),
        ],
        start=1,
    ):
        now = _now(day, hm)
        rel = m.start_session(f"old-{i}", topic=f"topic {i}", now=now).note
        m.decide(f"decision {i}", session_id=f"old-{i}", now=now)
        m.vault.update(
            rel,
            [
                patch.SectionPatch(("Open Questions",), "append", f"- question {i}"),
                patch.SectionPatch(("Next Steps",), "append", f"- next step {i}"),
            ],
        )
        m.end_session(session_id=f"old-{i}", compact=False, now=now)
        stamp = 1_790_000_000 + i * 1000
        os.utime(root / rel, (stamp, stamp))
        rels.append(rel)
    return rels


def _entities(root: Path, n: int = 6) -> list[str]:
    rels = []
    for i in range(1, n + 1):
        rel = f"{ENTITIES}/Entity {i}.md"
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(
            f"---\ntype: entity\nproject: {PROJECT}\nstatus: active\n---\n# Entity {i}\n\n"
            f"## Key Decisions\n\n- entity decision {i} ^vm-0000000{i}\n\n"
            f"## Gotchas & Troubleshooting\n\n- entity gotcha {i}\n\n## References\n"
        )
        stamp = 1_790_000_000 + i * 1000
        os.utime(path, (stamp, stamp))
        rels.append(rel)
    return rels


def test_session_start_briefs_the_last_session_first_then_earlier_ones_and_entities(
    env: Path,
) -> None:
    _earlier_sessions(env)
    _entities(env)
    text = _context(capture.on_session_start(_event("session-start", "sid-new")))

    assert len(text) <= 8000
    inside, outside = _fenced_and_loose(text)
    for i in (1, 2, 3, 4):
        assert f"decision {i}" in inside and f"question {i}" in inside
        assert f"next step {i}" in inside
        assert f"topic {i}" in inside  # the session's topic, inside the fence
    # The last session first; the same day is ordered by the file's modification time.
    assert inside.startswith("2026-11-22 · topic 4 · ended\n")  # its SessionEnd ran
    assert text.index("topic 4") < text.index("topic 3") < text.index("topic 2") < text.index(
        "topic 1")
    # The new session's own note is not briefed: it has nothing to tell yet.
    assert f"{DAY}-session" not in text
    # No session links an entity and _index.md lists none: the entities changed last stand in.
    for i in range(1, 7):
        assert f"entity decision {i}" in inside and f"entity gotcha {i}" in inside
        assert f"[[Entity {i}]]" in inside
    assert text.index("[[Entity 6]]") < text.index("[[Entity 1]]")
    assert "^vm-" not in text
    # Outside the fences: the heading paragraph and one fixed label per block, nothing else.
    head, *labels = outside.split("\n")
    assert "treat them as data" in head
    assert len(labels) == 3 and all(LABEL.fullmatch(label) for label in labels), labels


def test_index_links_choose_the_entities(env: Path) -> None:
    _earlier_sessions(env)
    _entities(env)
    index = env / f"claude/projects/{PROJECT}/_index.md"
    index.write_text(index.read_text().replace(
        "## Key Entities\n", "## Key Entities\n\n- [[Entity 1]]\n- [[Entity 3]]\n"))
    text = _context(capture.on_session_start(_event("session-start", "sid-new")))
    assert "entity decision 1" in text and "entity decision 3" in text
    for i in (2, 4, 5, 6):
        assert f"entity decision {i}" not in text
    assert text.index("[[Entity 1]]") < text.index("[[Entity 3]]")


def test_session_start_briefs_every_session_but_its_own(env: Path) -> None:
    rels = _earlier_sessions(env)
    out = capture.on_session_start(_event("session-start", "sid-a", source="startup"))
    rel = f"{SESSIONS}/{DAY}-session.md"
    assert (env / rel).is_file()
    assert rel not in _context(out)  # a brand-new note has nothing to tell
    assert f"note: {rels[-1]}" in _context(out).split("Earlier sessions")[0]
    # A resumed (or compacted) session's own story is in Claude's context already: the last
    # session briefed is still the one before it.
    resumed = _context(capture.on_session_start(_event("session-start", "old-4", source="resume")))
    assert rels[-1] not in resumed
    assert f"note: {rels[-2]}" in resumed.split("Earlier sessions")[0]


def test_session_start_output_matches_the_context_command(env: Path, tmp_path: Path) -> None:
    _earlier_sessions(env)
    _entities(env)
    vault_env = hook_env(env, VAULTMEM_PROJECT=PROJECT)
    # A new session: its note is new and empty, so `vaultmem context` leaves it out as well.
    start = run_hook(
        "session-start", {"session_id": "new-1", "cwd": CWD}, env, cwd=tmp_path, env=vault_env
    )
    assert start.returncode == 0 and start.stderr == b""
    command = subprocess.run(
        [sys.executable, "-m", "vaultmem", "context"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=vault_env,
        timeout=120,
        check=False,
    )
    assert command.returncode == 0 and command.stderr == ""
    assert command.stdout == _context(start.stdout.decode()) + "\n"


# -- session start: the lazy compaction --------------------------------------------------------


@pytest.fixture
def roomy_budget(env: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The default budget (0.6 s) is for real sessions; a noisy test machine must not decide.
    config = tmp_path / "xdg"
    (config / "vaultmem").mkdir(parents=True)
    (config / "vaultmem/config.toml").write_text("start_compaction_budget = 60.0\n")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(config))


def _last_written(root: Path, rel: str, minutes_ago: float) -> None:
    then = time.time() - minutes_ago * 60
    os.utime(root / rel, (then, then))


@pytest.mark.usefixtures("roomy_budget")
def test_next_session_start_compacts_a_note_left_over_threshold(env: Path) -> None:
    m = _memory(env)
    old = _big_session(m, "sid-old", topic="long one")  # its session end never ran
    _last_written(env, old, minutes_ago=31)
    capture.on_session_start(_event("session-start", "sid-new"))
    assert (env / old.replace(SESSIONS, ARCHIVE)).is_file()
    assert _status(env, old) == "archived"
    new = m.state.get("sid-new")
    assert new is not None and _status(env, new.note) == "active"
    assert list((env / ARCHIVE).iterdir()) == [env / old.replace(SESSIONS, ARCHIVE)]


@pytest.mark.usefixtures("roomy_budget")
def test_a_session_running_in_another_window_is_not_compacted_under_it(env: Path) -> None:
    m = _memory(env)
    other = _big_session(m, "sid-other", topic="long one")  # open, written a minute ago
    _last_written(env, other, minutes_ago=1)
    capture.on_session_start(_event("session-start", "sid-new"))
    assert _status(env, other) == "active" and not (env / ARCHIVE).exists()
    # Once it has been quiet for half an hour, the next session start takes it.
    _last_written(env, other, minutes_ago=31)
    capture.on_session_start(_event("session-start", "sid-third"))
    assert _status(env, other) == "archived"


@pytest.mark.usefixtures("roomy_budget")
def test_an_ended_session_left_over_threshold_is_compacted_at_once(env: Path) -> None:
    m = _memory(env)
    rel = _big_session(m, "sid-ended", topic="long one")
    m.end_session(session_id="sid-ended", compact=False)  # as if the hook was cut off
    capture.on_session_start(_event("session-start", "sid-new"))
    assert _status(env, rel) == "archived"
    entry = m.state.get("sid-ended")
    assert entry is not None and entry.ended is not None


@pytest.mark.usefixtures("roomy_budget")
def test_resumed_session_is_not_compacted_under_itself(env: Path) -> None:
    m = _memory(env)
    rel = _big_session(m, "sid-big", topic="long one")
    capture.on_session_start(_event("session-start", "sid-big", source="resume"))
    assert _status(env, rel) == "active"
    assert not (env / ARCHIVE).exists()


# -- session end -------------------------------------------------------------------------------


def test_session_end_compacts_an_over_threshold_note_inline(env: Path) -> None:
    m = _memory(env)
    rel = _big_session(m, "sid-big", topic="long one")
    capture.on_session_end(_event("session-end", "sid-big", reason="logout"))
    archive = env / rel.replace(SESSIONS, ARCHIVE)
    assert archive.is_file() and _status(env, rel) == "archived"
    assert "Reason: logout" in archive.read_text()
    assert m.state.current(PROJECT) is None


def test_session_end_below_threshold_stays_active(env: Path) -> None:
    capture.on_session_start(_event("session-start", "sid-a"))
    rel = f"{SESSIONS}/{DAY}-session.md"
    # Something of the session's own (a promptless empty note would leave nothing).
    (env / rel).write_text((env / rel).read_text() + "\nA line of mine.\n")
    capture.on_session_end(_event("session-end", "sid-a"))
    assert _status(env, rel) == "active" and "Reason: other" in (env / rel).read_text()
    assert not (env / ARCHIVE).exists()


@pytest.mark.parametrize("extractor", ["llm", "claude"])
def test_session_end_with_a_model_extractor_does_not_compact_inline(
    env: Path, monkeypatch: pytest.MonkeyPatch, extractor: str
) -> None:
    monkeypatch.setenv("VAULTMEM_EXTRACTOR", extractor)
    spawned: list[tuple[str, str]] = []
    # The process edge: the detached compaction is checked for real in the next test (and for
    # claude in tests/test_claude_extractor.py).
    monkeypatch.setattr(capture, "spawn_compaction",
                        lambda config, note, which: spawned.append((note, which)))
    rel = _big_session(_memory(env), "sid-big", topic="long one")
    capture.on_session_end(_event("session-end", "sid-big"))
    assert spawned == [(rel, extractor)]
    assert _status(env, rel) == "active" and not (env / ARCHIVE).exists()
    assert "Reason: other" in (env / rel).read_text()


def test_session_end_with_the_llm_extractor_spawns_a_detached_compaction(
    env: Path, tmp_path: Path
) -> None:
    rel = _big_session(_memory(env), "sid-big", topic="long one")
    hook = hook_env(env, VAULTMEM_EXTRACTOR="llm")
    hook.pop("ANTHROPIC_API_KEY", None)  # the LLM falls back to the deterministic extractor
    proc = run_hook(
        "session-end",
        {"session_id": "sid-big", "cwd": CWD, "reason": "other"},
        env,
        cwd=tmp_path,
        env=hook,
    )
    assert proc.returncode == 0 and proc.stderr == b"" and proc.stdout == b""
    archive = env / rel.replace(SESSIONS, ARCHIVE)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and not (
        archive.is_file() and _status(env, rel) == "archived"
    ):
        time.sleep(0.2)
    assert archive.is_file() and _status(env, rel) == "archived"
    assert "Compaction threshold exceeded" in archive.read_text()


# -- record_transcript ------------------------------------------------------------------------


def test_stop_without_a_transcript_records_the_last_message_once(env: Path) -> None:
    msg = payload("stop")["last_assistant_message"]
    event = _event("stop", "sid-a", last_assistant_message=msg)
    for _ in range(2):
        capture.on_stop(event)
    text = (env / f"{SESSIONS}/{DAY}-session.md").read_text()
    assert text.count("- Use RS256-signed JWTs because keys can rotate without redeploying.") == 1
    assert text.count("Gotcha: fixed bug where the token clock skew") == 1


def test_stop_before_the_final_line_is_written_keeps_its_decision_once(
    env: Path, tmp_path: Path
) -> None:
    """Claude Code ran Stop before the transcript held the final assistant line (seen in CI)."""
    msg = payload("stop")["last_assistant_message"]
    path = copy_transcript(tmp_path, lines=10)  # up to the Bash result, not the final message
    assert "Decision:" not in path.read_text()
    capture.on_stop(_event("stop", "sid-a", transcript_path=str(path), last_assistant_message=msg))
    note = env / f"{SESSIONS}/{DAY}-add-a-login-module-and-run.md"
    decision = "- Use RS256-signed JWTs because keys can rotate without redeploying."
    assert note.read_text().count(decision) == 1
    # The final line arrives; the next hooks read it and add nothing twice.
    copy_transcript(tmp_path)
    capture.on_stop(_event("stop", "sid-a", transcript_path=str(path), last_assistant_message=msg))
    capture.on_session_end(_event("session-end", "sid-a", transcript_path=str(path)))
    text = note.read_text()
    assert text.count(decision) == 1
    assert text.count("Gotcha: fixed bug where the token clock skew") == 1


def test_turns_claude_code_writes_again_under_new_uuids_are_recorded_once(
    env: Path, tmp_path: Path
) -> None:
    """Seen in a real session: a Stop ran ahead of the turn's final line; later Claude Code wrote
    the turn's lines again (new uuids, the prompt's image on a line of its own, the same times,
    prose and tool ids) before the next prompt. Each turn reaches the note once."""
    image = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "x"}}
    prompt = "Update the about text of the repository"
    final = "The about text now names both homelab projects."

    def turn(tag: str, split: bool) -> list[str]:
        asked = [_line("user", f"{tag}-img", [image], "2026-11-22T09:20:40Z"),
                 _line("user", f"{tag}-p", [{"type": "text", "text": prompt}],
                       "2026-11-22T09:20:40Z")] if split else [
            _line("user", f"{tag}-p", [image, {"type": "text", "text": prompt}],
                  "2026-11-22T09:20:40Z")]
        return [*asked,
                _line("assistant", f"{tag}-a", [{"type": "text", "text": "I'll look first."},
                      _tool("toolu_1", "Bash", command="git remote -v")], "2026-11-22T09:20:49Z"),
                _line("user", f"{tag}-r", [_result("toolu_1", "origin git@example")],
                      "2026-11-22T09:20:50Z"),
                _line("assistant", f"{tag}-f", [{"type": "text", "text": final}],
                      "2026-11-22T09:22:02Z")]

    first, copy = turn("one", split=False), turn("two", split=True)
    path = tmp_path / "t.jsonl"
    path.write_text("\n".join(first[:-1]) + "\n")  # the Stop runs before the final line lands
    stop = _event("stop", "sid-a", transcript_path=str(path), last_assistant_message=final)
    capture.on_stop(stop)
    nxt = [_line("user", "b-p", "Now commit it", "2026-11-22T09:24:23Z"),
           _line("assistant", "b-a", [{"type": "text", "text": "Committed as a1b2c3."}],
                 "2026-11-22T09:24:30Z")]
    path.write_text("\n".join([*first, *copy, *nxt]) + "\n")
    capture.on_stop(_event("stop", "sid-a", transcript_path=str(path),
                           last_assistant_message="Committed as a1b2c3."))
    capture.on_session_end(_event("session-end", "sid-a", transcript_path=str(path)))
    text = (env / f"{SESSIONS}/{DAY}-update-the-about-text-of-the.md").read_text()
    assert text.count(f"**Prompt:** {prompt}") == 1
    assert text.count(final) == 1
    assert text.count("git remote -v") == 1
    assert text.count("**Prompt:** Now commit it") == 1


def test_stop_with_the_final_line_in_the_transcript_records_it_once(
    env: Path, tmp_path: Path
) -> None:
    msg = payload("stop")["last_assistant_message"]
    path = copy_transcript(tmp_path)
    capture.on_stop(_event("stop", "sid-a", transcript_path=str(path), last_assistant_message=msg))
    capture.on_session_end(_event("session-end", "sid-a", transcript_path=str(path)))
    text = (env / f"{SESSIONS}/{DAY}-add-a-login-module-and-run.md").read_text()
    assert text.count("- Use RS256-signed JWTs because keys can rotate without redeploying.") == 1


def test_stop_without_a_session_id_uses_the_current_session(env: Path, tmp_path: Path) -> None:
    capture.on_session_start(_event("session-start", "sid-a"))
    capture.on_stop(_event("stop", None, transcript_path=str(copy_transcript(tmp_path))))
    notes = sorted((env / SESSIONS).iterdir())
    assert [p.name for p in notes] == [f"{DAY}-add-a-login-module-and-run.md"]
    assert "**Prompt:** Add a login module and run the tests" in notes[0].read_text()


def test_record_transcript_reports_and_marks_the_turns(env: Path, tmp_path: Path) -> None:
    m = _memory(env)
    event = _event("stop", "sid-a", transcript_path=str(copy_transcript(tmp_path)))
    first = capture.record_transcript(m, event, "sid-a", _now())
    assert first.turns == 7 and first.status == "written"
    assert first.note == f"{SESSIONS}/{DAY}-add-a-login-module-and-run.md"
    again = capture.record_transcript(m, event, "sid-a", _now())
    assert again.turns == 0 and again.status == "nothing new" and again.note == first.note
    entry = m.state.get("sid-a")
    # each line's uuid and its content key (a copy under a new uuid is known by the latter)
    assert entry is not None and len(entry.ingested) == 14
    assert sum(key.startswith("line:") for key in entry.ingested) == 7


def test_each_stop_reads_on_from_where_the_last_one_ended(env: Path, tmp_path: Path) -> None:
    m = _memory(env)
    path = copy_transcript(tmp_path, lines=7)
    event = _event("stop", "sid-a", transcript_path=str(path))
    capture.record_transcript(m, event, "sid-a", _now())
    entry = m.state.get("sid-a")
    assert entry is not None
    assert (entry.last_offset, entry.transcript) == (path.stat().st_size, str(path))
    # Rewrite the prompt already read (same length, new uuid): a whole re-read would take it
    # for a new turn; reading on from the offset never sees it.
    head = path.read_text().replace("5231c4c3", "deadbeef")
    full = copy_transcript(tmp_path).read_text()
    path.write_text(head + full[len(head):])
    again = capture.record_transcript(m, event, "sid-a", _now())
    text = (env / again.note).read_text()
    assert text.count("**Prompt:** Add a login module") == 1
    assert "- Ran `echo tests pass`" in text
    after = m.state.get("sid-a")
    assert after is not None and after.last_offset == path.stat().st_size


def test_a_note_still_waiting_for_its_topic_reads_the_transcript_whole(
    env: Path, tmp_path: Path
) -> None:
    m = _memory(env)
    # The first Stop sees only attachments: no prompt yet, so the note keeps its date name.
    lines = copy_transcript(tmp_path).read_text().splitlines(keepends=True)
    path = tmp_path / "t.jsonl"
    path.write_text("".join(lines[:2]))
    event = _event("stop", "sid-a", transcript_path=str(path))
    first = capture.record_transcript(m, event, "sid-a", _now())
    assert first.note.endswith("-session.md")
    path.write_text("".join(lines))
    later = capture.record_transcript(m, event, "sid-a", _now())
    assert later.note == f"{SESSIONS}/{DAY}-add-a-login-module-and-run.md"


# -- the topic rename ---------------------------------------------------------------------------


def test_rename_takes_the_next_free_name_and_keeps_the_bytes(env: Path, tmp_path: Path) -> None:
    m = _memory(env)
    taken = f"{SESSIONS}/{DAY}-add-a-login-module-and-run.md"
    archived = f"{ARCHIVE}/{DAY}-add-a-login-module-and-run-2.md"
    for rel in (taken, archived):
        (env / rel).parent.mkdir(parents=True, exist_ok=True)
        (env / rel).write_text("---\ntype: session\n---\nsomeone else's\n")
    start = m.start_session("sid-a", now=_now())
    assert start.note == f"{SESSIONS}/{DAY}-session.md"
    event = _event("stop", "sid-a", transcript_path=str(copy_transcript(tmp_path)))
    result = capture.record_transcript(m, event, "sid-a", _now())
    assert result.note == f"{SESSIONS}/{DAY}-add-a-login-module-and-run-3.md"
    assert (env / taken).read_text() == "---\ntype: session\n---\nsomeone else's\n"
    assert not (env / start.note).exists()
    state = m.state.get("sid-a")
    assert state is not None and state.note == result.note


def test_a_note_with_a_topic_is_not_renamed(env: Path, tmp_path: Path) -> None:
    m = _memory(env)
    rel = m.start_session("sid-a", topic="my own topic", now=_now()).note
    event = _event("stop", "sid-a", transcript_path=str(copy_transcript(tmp_path)))
    assert capture.record_transcript(m, event, "sid-a", _now()).note == rel
    assert [p.name for p in (env / SESSIONS).iterdir()] == [f"{DAY}-my-own-topic.md"]


def test_a_note_a_person_archived_is_not_renamed(env: Path, tmp_path: Path) -> None:
    m = _memory(env)
    rel = m.start_session("sid-a", now=_now()).note
    m.vault.update(rel, [patch.SetProperty("status", "draft")])
    event = _event("stop", "sid-a", transcript_path=str(copy_transcript(tmp_path)))
    assert capture.record_transcript(m, event, "sid-a", _now()).note == rel
    assert (env / rel).is_file()


def test_a_prompt_with_only_private_text_keeps_the_default_name(env: Path, tmp_path: Path) -> None:
    m = _memory(env)
    rel = m.start_session("sid-a", now=_now()).note
    line = {
        "type": "user",
        "uuid": "u1",
        "timestamp": "2026-11-22T09:00:00Z",
        "message": {"role": "user", "content": "<private>only a secret</private>"},
    }
    path = tmp_path / "t.jsonl"
    path.write_text(json.dumps(line) + "\n")
    event = _event("stop", "sid-a", transcript_path=str(path))
    assert capture.record_transcript(m, event, "sid-a", _now()).note == rel
    assert "secret" not in (env / rel).read_text()


# -- session metadata, the title, a resumed session ---------------------------------------------


def _git(cwd: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@x",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@x", "GIT_CONFIG_GLOBAL": "/dev/null"}
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True,
                          env=env).stdout.strip()


def test_metadata_records_cwd_branch_heads_and_host(env: Path, tmp_path: Path) -> None:
    repo = tmp_path / "shop"
    repo.mkdir()
    _git(repo, "init", "-q", "-b", "feature/login")
    _git(repo, "commit", "-q", "--allow-empty", "-m", "one")
    first = _git(repo, "rev-parse", "HEAD")
    start = HookEvent(name="session-start", session_id="sid-a", transcript_path=None,
                      cwd=str(repo), source="startup")
    capture.on_session_start(start)
    rel = f"{SESSIONS}/{DAY}-session.md"
    meta = frontmatter.parse((env / rel).read_text())
    assert (meta["cwd"], meta["git_branch"]) == (str(repo), "feature/login")
    assert meta["git_head_start"] == meta["git_head_end"] == first
    assert meta["host"] == machine.host_name()  # what the lazy compaction compares
    assert f"Working directory `{repo}`, branch `feature/login`." in (env / rel).read_text()
    # Claude commits during the session: the end moves, the start stays.
    _git(repo, "commit", "-q", "--allow-empty", "-m", "two")
    second = _git(repo, "rev-parse", "HEAD")
    stop = HookEvent(name="stop", session_id="sid-a", cwd=str(repo),
                     transcript_path=str(copy_transcript(tmp_path)))
    capture.on_stop(stop)
    note = env / f"{SESSIONS}/{DAY}-add-a-login-module-and-run.md"
    meta = frontmatter.parse(note.read_text())
    assert (meta["git_head_start"], meta["git_head_end"]) == (first, second)
    _git(repo, "commit", "-q", "--allow-empty", "-m", "three")
    capture.on_session_end(HookEvent(name="session-end", session_id="sid-a", cwd=str(repo),
                                     transcript_path=stop.transcript_path, reason="exit"))
    assert frontmatter.parse(note.read_text())["git_head_end"] == _git(repo, "rev-parse", "HEAD")


def test_without_git_the_git_keys_are_absent(env: Path, tmp_path: Path) -> None:
    cwd = tmp_path / PROJECT
    cwd.mkdir()
    capture.on_session_start(HookEvent(name="session-start", session_id="sid-a",
                                       transcript_path=None, cwd=str(cwd)))
    meta = frontmatter.parse((env / f"{SESSIONS}/{DAY}-session.md").read_text())
    assert meta["cwd"] == str(cwd)
    assert not [k for k in meta if k.startswith("git_")]


def test_the_first_prompt_names_the_note_and_its_title(env: Path, tmp_path: Path) -> None:
    capture.on_session_start(_event("session-start", "sid-a"))
    capture.on_stop(_event("stop", "sid-a", transcript_path=str(copy_transcript(tmp_path))))
    text = (env / f"{SESSIONS}/{DAY}-add-a-login-module-and-run.md").read_text()
    assert "\n# Add a login module and run the tests\n" in text
    assert "# Session " not in text and SECRET not in text


def test_a_private_topic_never_names_the_file(env: Path) -> None:
    m = _memory(env)
    rel = m.start_session("sid-a", topic="fix <private>acme-secret</private> login",
                          now=_now()).note
    assert rel == f"{SESSIONS}/{DAY}-fix-login.md"
    assert "acme-secret" not in (env / rel).read_text()


def test_a_resumed_session_goes_on_in_its_note(env: Path, tmp_path: Path) -> None:
    path = copy_transcript(tmp_path)
    capture.on_session_start(_event("session-start", "sid-a", source="startup"))
    capture.on_stop(_event("stop", "sid-a", transcript_path=str(path)))
    capture.on_session_end(_event("session-end", "sid-a", transcript_path=str(path),
                                  reason="exit"))
    capture.on_session_start(_event("session-start", "sid-a", source="resume"))
    capture.on_stop(_event("stop", "sid-a", transcript_path=str(path)))
    notes = list((env / SESSIONS).iterdir())
    assert len(notes) == 1
    text = notes[0].read_text()
    assert text.index("Session End") < text.index("### 10:30 - Resumed")
    headings = [line for line in text.splitlines() if line.startswith("## ")]
    assert len(headings) == len(set(headings))
    assert text.count("### 10:30 - Resumed") == 1


# -- the story of a session: collapsing, components, private spans, a reorganised note -----------


def _line(kind: str, uuid: str, content: object, stamp: str = "2026-11-22T09:00:00Z") -> str:
    return json.dumps({"type": kind, "uuid": uuid, "timestamp": stamp,
                       "message": {"role": kind, "content": content}})


def _tool(ident: str, name: str, **tool_input: str) -> dict[str, object]:
    return {"type": "tool_use", "id": ident, "name": name, "input": tool_input}


def _result(ident: str, output: str, is_error: bool = False) -> dict[str, object]:
    return {"type": "tool_result", "tool_use_id": ident, "content": output, "is_error": is_error}


def test_300_writes_and_160_greps_make_a_short_note(env: Path, tmp_path: Path) -> None:
    lines = [_line("user", "u0", "Generate the repositories for every table")]
    for i in range(300):
        lines.append(_line("assistant", f"w{i}", [_tool(f"t{i}", "Write",
                     file_path=f"{CWD}/src/db/repos/repo_{i:03}.py", content="x")]))
        lines.append(_line("user", f"r{i}", [_result(f"t{i}", "File created")]))
    for i in range(160):
        lines.append(_line("assistant", f"g{i}", [_tool(f"g{i}", "Bash",
                     command=f"grep -rn 'def get' src/db/repos | head -{i % 5}")]))
        lines.append(_line("user", f"s{i}", [_result(f"g{i}", "src/db/repos/x.py:1:def get")]))
    lines.append(_line("assistant", "done", [{"type": "text", "text": (
        "All 300 repositories are generated. I chose one file per table because imports stay "
        "cheap. Next, we should add the migrations.")}]))
    path = tmp_path / "t.jsonl"
    path.write_text("\n".join(lines) + "\n")
    capture.on_stop(_event("stop", "sid-a", transcript_path=str(path)))
    (note,) = list((env / SESSIONS).iterdir())
    text = note.read_text()
    assert len(text.splitlines()) < 60, text  # the empty note alone is 38 lines
    assert "(300 files)" in text and text.count("- Ran `grep") == 5
    assert "×32" in text
    # src/db/repos/ is a layer, not a component (issue 29): no "DB" entity.
    assert "- I chose one file per table because imports stay cheap.\n" in text
    assert "- Next, we should add the migrations.\n" in text
    assert "[[DB]]" not in text


def test_components_follow_the_config_rules(env: Path, tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    config = tmp_path / "xdg"
    (config / "vaultmem").mkdir(parents=True)
    (config / "vaultmem/config.toml").write_text('[components]\n"src/*.py" = "Login Flow"\n')
    monkeypatch.setenv("XDG_CONFIG_HOME", str(config))
    capture.on_stop(_event("stop", "sid-a", transcript_path=str(copy_transcript(tmp_path))))
    text = (env / f"{SESSIONS}/{DAY}-add-a-login-module-and-run.md").read_text()
    assert "- Use RS256-signed JWTs because keys can rotate without redeploying. " \
        f"([[{ENTITIES}/Login Flow|Login Flow]])" in text
    assert f"- [[{ENTITIES}/Login Flow|Login Flow]] — `src/`" in text


def test_a_private_span_open_across_two_stops_stays_private(env: Path, tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_text(_line("user", "u1", "deploy with key <private>sk-live-one") + "\n")
    event = _event("stop", "sid-a", transcript_path=str(path))
    capture.on_stop(event)
    with path.open("a") as handle:
        handle.write(_line("user", "u2", "sk-live-two</private> and then run the tests") + "\n")
        handle.write(_line("assistant", "a2", [{"type": "text", "text": "Done."}]) + "\n")
    capture.on_stop(event)
    texts = "".join(p.read_text() for p in (env / SESSIONS).iterdir())
    assert "sk-live" not in texts
    assert "**Prompt:** deploy with key" in texts and "**Prompt:** and then run the tests" in texts
    assert "sk-live" not in (env / ".vaultmem").joinpath(
        *[p for p in ("hosts", machine.host_name(), "state.json")]).read_text()


def test_a_reorganised_note_still_takes_every_turn(env: Path, tmp_path: Path) -> None:
    m = _memory(env)
    rel = m.start_session("sid-a", topic="mine", now=_now()).note
    person = (env / rel).read_text().replace("## Work Log", "## What happened").replace(
        "## Next Steps", "## Next Steps\n\n- a person's step\n\n## Next Steps")
    person = person.replace("## Decisions Made", "## Decisions")
    (env / rel).write_text(person)
    warnings: list[str] = []
    capture.on_stop(_event("stop", "sid-a", transcript_path=str(copy_transcript(tmp_path))),
                    warnings)
    text = (env / rel).read_text()
    assert "**Prompt:** Add a login module and run the tests" in text
    assert text.count("## Decisions Made") == 1 and "- Use RS256-signed JWTs" in text
    assert "- a person's step" in text


def test_the_answer_of_a_turn_stopped_early_is_written_once(env: Path, tmp_path: Path) -> None:
    msg = payload("stop")["last_assistant_message"]
    path = copy_transcript(tmp_path, lines=10)
    event = _event("stop", "sid-a", transcript_path=str(path), last_assistant_message=msg)
    capture.on_stop(event)
    copy_transcript(tmp_path)
    capture.on_stop(event)
    capture.on_session_end(_event("session-end", "sid-a", transcript_path=str(path)))
    text = (env / f"{SESSIONS}/{DAY}-add-a-login-module-and-run.md").read_text()
    assert text.count("**Answer:**") == 1 and text.count("### ") == 2


def test_a_failure_fixed_after_the_next_prompt_is_a_gotcha(env: Path, tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_text("\n".join([
        _line("user", "u1", "run the auth tests"),
        _line("assistant", "a1", [_tool("t1", "Bash", command="pytest tests/test_auth.py")]),
        _line("user", "r1", [_result("t1", "Exit code 1\nE   ImportError: argon2", True)]),
        _line("assistant", "a2", [{"type": "text", "text": "The tests fail: argon2 is missing."}]),
    ]) + "\n")
    event = _event("stop", "sid-a", transcript_path=str(path))
    capture.on_stop(event)
    with path.open("a") as handle:
        handle.write("\n".join([
            _line("user", "u2", "fix it"),
            _line("assistant", "a3", [_tool("t2", "Edit", file_path=f"{CWD}/src/auth/deps.py",
                                            old_string="a", new_string="b")]),
            _line("user", "r2", [_result("t2", "ok")]),
            _line("assistant", "a4", [_tool("t3", "Bash", command="pytest tests/test_auth.py")]),
            _line("user", "r3", [_result("t3", "3 passed")]),
        ]) + "\n")
    capture.on_stop(event)
    (note,) = list((env / SESSIONS).iterdir())
    assert ("- Fixed by editing `src/auth/deps.py`: `pytest tests/test_auth.py` failed "
            f"(`E ImportError: argon2`) ([[{ENTITIES}/Auth|Auth]])") in note.read_text()
