"""Attacks (issue 23 §5, §2): heavy work never runs inside a hook, and what a hook starts runs
isolated. A 10,000-turn session's SessionEnd does not compact inline (13 s against Claude Code's
~1.5 s); neither does a later SessionStart: the note goes to a detached ``vaultmem compact``,
which starts with neither the hook's cwd on ``sys.path`` (a project's own ``vaultmem/`` folder)
nor that cwd, and archives the session."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from datetime import datetime
from pathlib import Path

import pytest
from hook_kit import ARCHIVE, NOW, SESSIONS, hook_env

from vaultmem.claude import capture, recordsteps
from vaultmem.claude.events import HookEvent
from vaultmem.memory.sessions import Memory
from vaultmem.memory.upkeep import INLINE_COMPACT_BYTES
from vaultmem.notes import frontmatter, patch
from vaultmem.store.config import Config
from vaultmem.store.vault import Vault

CWD = "/home/dev/work/shop"
TURNS = 10_000


def _now() -> datetime:
    return datetime.fromisoformat(NOW).astimezone()


def _memory(root: Path) -> Memory:
    return Memory(Config(vault=root, project="shop"), Vault(root))


def _huge_session(m: Memory, sid: str) -> str:
    rel = m.start_session(sid, topic="long run", now=_now()).note
    log = "\n\n".join(f"### 09:{i % 60:02d} - Step {i}\n\nDecided to keep retry number {i}."
                      for i in range(TURNS))
    m.vault.update(rel, [patch.SectionPatch(("Work Log",), "append", log)])
    assert (m.vault.root / rel).stat().st_size > INLINE_COMPACT_BYTES
    return rel


def _status(root: Path, rel: str) -> str:
    return str(frontmatter.parse((root / rel).read_text()).get("status"))


def _event(name: str, sid: str) -> HookEvent:
    return HookEvent(name=name, session_id=sid, transcript_path=None, cwd=CWD, source="startup",
                     reason="other")


def _without_key(env: dict[str, str]) -> dict[str, str]:
    env.pop("ANTHROPIC_API_KEY", None)  # the llm extractor falls back to the deterministic one
    return env


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "vault"
    root.mkdir(exist_ok=True)  # hooks create only the default vault
    monkeypatch.setenv("VAULTMEM_VAULT", str(root))
    monkeypatch.setenv("VAULTMEM_PROJECT", "shop")
    monkeypatch.setenv("VAULTMEM_NOW", NOW)
    _memory(root).init_project(now=_now())
    return root


def test_session_end_hands_a_huge_session_to_a_detached_compaction(
        env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    spawned: list[tuple[str, str]] = []
    monkeypatch.setattr(capture, "spawn_compaction",
                        lambda config, note, which: spawned.append((note, which)))
    m = _memory(env)
    rel = _huge_session(m, "sid-huge")
    before = (env / rel).read_bytes()
    capture.on_session_end(_event("session-end", "sid-huge"))
    assert spawned == [(rel, "deterministic")]
    # Too big to write in the hook: untouched, the session ends in the note continuing it.
    assert (env / rel).read_bytes() == before
    entry = m.state.get("sid-huge")
    assert entry is not None and entry.note != rel and entry.ended is not None
    text = (env / entry.note).read_text()
    assert "Reason: other" in text and f"continues: \"[[{rel[:-3]}]]\"" in text


def test_session_start_hands_a_huge_pending_note_over_too(
        env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    spawned: list[tuple[str, str]] = []
    monkeypatch.setattr(capture, "spawn_compaction",
                        lambda config, note, which: spawned.append((note, which)))
    m = _memory(env)
    rel = _huge_session(m, "sid-huge")
    m.end_session(session_id="sid-huge", compact=False, now=_now())
    capture.on_session_start(_event("session-start", "sid-next"))
    assert spawned == [(rel, "deterministic")]
    assert _status(env, rel) == "active"


@pytest.mark.parametrize("extractor", ["deterministic", "llm"])
def test_the_detached_compaction_runs_isolated_and_archives(
        extractor: str, env: Path, tmp_path: Path) -> None:
    rel = _huge_session(_memory(env), "sid-huge")
    project = tmp_path / "project"
    (project / "vaultmem").mkdir(parents=True)
    marker = tmp_path / "pwned"
    # What `python -m vaultmem` started in this folder would import first.
    (project / "vaultmem" / "__init__.py").write_text(f"open({str(marker)!r}, 'w')\n")
    (project / "vaultmem" / "__main__.py").write_text("")
    # The console script, as Claude Code runs it, from the project's folder.
    script = Path(sys.executable).parent / "vaultmem"
    payload = json.dumps({"session_id": "sid-huge", "cwd": str(project), "reason": "other"})
    proc = subprocess.run([str(script), "hook", "session-end"], input=payload.encode(),
                          capture_output=True, cwd=project, timeout=120, check=False,
                          env=_without_key(hook_env(env, VAULTMEM_PROJECT="shop",
                                                    VAULTMEM_EXTRACTOR=extractor)))
    assert proc.returncode == 0 and proc.stderr == b"", proc.stderr
    archive = env / rel.replace(SESSIONS, ARCHIVE)
    for _ in range(1200):  # the detached process finishes on its own; a hang fails at the end
        if archive.is_file() and _status(env, rel) == "archived":
            break
        time.sleep(0.1)
    assert archive.is_file() and _status(env, rel) == "archived"
    assert not marker.exists()


def _line(kind: str, n: int, content: object) -> str:
    return json.dumps({"type": kind, "uuid": f"u-{n}", "sessionId": "sid-huge", "cwd": CWD,
                       "timestamp": "2026-11-22T09:00:00Z",
                       "message": {"role": kind, "content": content}})


def test_a_stop_on_a_huge_note_goes_on_in_a_new_note_and_the_full_one_is_archived(
        env: Path, tmp_path: Path) -> None:
    """The Stop of a session whose note grew past ROLL_BYTES never parses that note (a cost
    growing with the session): the session goes on in a note continuing it, from the transcript
    offset it had reached, and a detached compaction archives the full one."""
    from vaultmem.memory.sessions import ROLL_BYTES

    m = _memory(env)
    rel = _huge_session(m, "sid-huge")
    assert (env / rel).stat().st_size > ROLL_BYTES
    transcript = tmp_path / "t.jsonl"
    transcript.write_text(_line("user", 1, "Keep the retries going") + "\n"
                          + _line("assistant", 2, [{"type": "text", "text": "Done."}]) + "\n")
    payload = {"session_id": "sid-huge", "transcript_path": str(transcript), "cwd": CWD}
    hook_env_ = _without_key(hook_env(env, VAULTMEM_PROJECT="shop"))

    def hook(event: str) -> None:
        proc = subprocess.run([sys.executable, "-m", "vaultmem", "hook", event],
                              input=json.dumps({**payload, "hook_event_name": event}).encode(),
                              capture_output=True, cwd=tmp_path, timeout=120, check=False,
                              env=hook_env_)
        assert proc.returncode == 0 and proc.stderr == b"", proc.stderr

    hook("stop")
    entry = m.state.get("sid-huge")
    assert entry is not None and entry.note != rel
    new = (env / entry.note).read_text()
    assert "Keep the retries going" in new and f"[[{rel[:-3]}]]" in new
    assert entry.transcript == str(transcript) and entry.last_offset == transcript.stat().st_size
    # Read on from the offset: a second Stop adds only the new turn, to the new note.
    said = new.count("Keep the retries going")
    with transcript.open("a") as f:
        f.write(_line("user", 3, "And the backoff") + "\n")
    hook("stop")
    again = m.state.get("sid-huge")
    assert again is not None and again.note == entry.note
    later = (env / entry.note).read_text()
    assert later.count("Keep the retries going") == said and "And the backoff" in later
    archive = env / rel.replace(SESSIONS, ARCHIVE)
    for _ in range(1200):  # the detached compaction finishes on its own
        if archive.is_file() and _status(env, rel) == "archived":
            break
        time.sleep(0.1)
    assert archive.is_file() and _status(env, rel) == "archived"
    hook("session-end")
    assert "Session End" in (env / entry.note).read_text()


def test_a_planted_huge_state_does_not_stop_a_stop(env: Path, tmp_path: Path) -> None:
    from vaultmem.store import machine
    from vaultmem.store.state import MAX_STATE_BYTES

    state = machine.host_dir(env / ".vaultmem") / "state.json"
    state.parent.mkdir(parents=True, exist_ok=True)
    sessions = ",".join(
        f'"s{n:06d}": {{"note": "a{n}.md", "project": "shop", "started": "2026-01-01T00:00:00",'
        f' "ended": "2026-01-02T00:00:00", "ingested": ["{"x" * 36}"]}}'
        for n in range(42 * 2**20 // 150))
    state.write_text(f'{{"version": 1, "sessions": {{{sessions}}}, "current": {{}}}}')
    assert state.stat().st_size > 5 * MAX_STATE_BYTES
    transcript = tmp_path / "t.jsonl"
    transcript.write_text(_line("user", 1, "Fix the login") + "\n")
    payload = {"session_id": "sid-small", "transcript_path": str(transcript), "cwd": CWD,
               "hook_event_name": "Stop"}
    proc = subprocess.run([sys.executable, "-m", "vaultmem", "hook", "stop"],
                          input=json.dumps(payload).encode(), capture_output=True, cwd=tmp_path,
                          timeout=120, check=False,
                          env=_without_key(hook_env(env, VAULTMEM_PROJECT="shop")))
    assert proc.returncode == 0, proc.stderr
    assert b"corrupt state (over 8 MB, not read)" in proc.stderr  # one line, said once
    assert state.stat().st_size < 100_000
    entry = _memory(env).state.get("sid-small")
    assert entry is not None and "Fix the login" in (env / entry.note).read_text()


def test_a_long_session_whose_first_prompt_names_nothing_reads_on_from_its_offset(
        env: Path, tmp_path: Path) -> None:
    """Its note keeps waiting for a topic; past RETOPIC_BYTES a Stop no longer re-reads the
    whole transcript (the state keeps only the newest uuids): no turn is recorded twice."""
    transcript = tmp_path / "t.jsonl"
    lines = [_line("user", 0, "???")]
    for n in range(1, 2600):
        lines.append(_line("user", 2 * n, f"Step {n}: tune retry case {n} " + "x" * 60))
        lines.append(_line("assistant", 2 * n + 1, [{"type": "text", "text": f"Done {n}."}]))
    transcript.write_text("\n".join(lines) + "\n")
    assert transcript.stat().st_size > recordsteps.RETOPIC_BYTES
    event = HookEvent(name="stop", session_id="sid-untitled", transcript_path=str(transcript),
                      cwd=CWD)
    capture.on_stop(event)

    def said() -> str:
        return "".join(p.read_text() for p in (env / SESSIONS).glob("*.md"))

    first = said()
    counts = {n: first.count(f"tune retry case {n} ") for n in (1, 700, 2599)}
    assert all(counts.values()), counts
    with transcript.open("a") as f:
        f.write(_line("user", 9_000, "Step last: one more") + "\n")
    capture.on_stop(event)
    text = said()
    assert {n: text.count(f"tune retry case {n} ") for n in counts} == counts
    assert "one more" in text
