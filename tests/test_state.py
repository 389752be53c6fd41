"""state.json: locked read-modify-write, atomic, corrupt files set aside."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import datetime
from pathlib import Path

import pytest

from vaultmem.store.state import SessionEntry, State, StateData
from vaultmem.store.vault import Vault


def _state(root: Path) -> State:
    return State(Vault(root), clock_now=lambda: datetime(2026, 11, 22, 10, 30))


def _entry(sid: str = "s1") -> SessionEntry:
    return SessionEntry(sid, "claude/projects/p/sessions/a.md", "p", "2026-11-22T10:30:00")


def _start(data: StateData) -> None:
    """Session s1 of project p, its current session."""
    data.set_session(_entry())
    data.set_current("p", "s1")


def test_empty_state(vault_root: Path) -> None:
    state = _state(vault_root)
    assert state.get("nope") is None
    assert state.current("p") is None
    assert not (vault_root / ".vaultmem").exists()


def test_round_trip_and_ingested(vault_root: Path) -> None:
    state = _state(vault_root)

    state.update(_start)
    state.update(lambda d: d.mark_ingested("s1", ["u2", "u1"], last_offset=42))
    state.update(lambda d: d.mark_ingested("s1", ["u1", "u3"]))
    entry = _state(vault_root).get("s1")
    assert entry is not None
    assert entry.ingested == frozenset({"u1", "u2", "u3"})
    assert entry.last_offset == 42
    assert _state(vault_root).current("p") == "s1"
    doc = json.loads(_state(vault_root).path.read_text())
    assert doc["sessions"]["s1"]["ingested"] == ["u1", "u2", "u3"]
    state.update(lambda d: d.clear_current("p", "other"))
    assert state.current("p") == "s1"
    state.update(lambda d: d.clear_current("p", "s1"))
    assert state.current("p") is None


def test_an_ended_session_is_no_longer_current_until_reopened(vault_root: Path) -> None:
    state = _state(vault_root)

    state.update(_start)
    state.update(lambda d: d.end("s1", "2026-11-22T11:00:00"))
    entry = _state(vault_root).get("s1")
    assert entry is not None and entry.ended == "2026-11-22T11:00:00"
    assert state.current("p") is None
    doc = json.loads(_state(vault_root).path.read_text())
    assert doc["sessions"]["s1"]["ended"] == "2026-11-22T11:00:00"
    state.update(lambda d: d.reopen("s1"))
    reopened = _state(vault_root).get("s1")
    assert reopened is not None and reopened.ended is None
    assert "ended" not in json.loads(_state(vault_root).path.read_text())[
        "sessions"]["s1"]


def test_an_ended_time_that_is_not_a_string_makes_the_state_corrupt(vault_root: Path) -> None:
    path = vault_root / ".vaultmem" / "state.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"version": 1, "current": {}, "sessions": {"s1": {
        "note": "a.md", "project": "p", "started": "", "ended": 5}}}))
    state = _state(vault_root)
    assert state.get("s1") is None
    assert "ended is not a string" in state.warnings[0]


def test_the_read_offset_belongs_to_one_transcript(vault_root: Path) -> None:
    state = _state(vault_root)
    state.update(lambda d: d.set_session(_entry()))
    state.update(lambda d: d.mark_ingested("s1", ["u1"], last_offset=420, transcript="/t/a.jsonl"))
    data = _state(vault_root).load()
    assert data.resume_offset("s1", "/t/a.jsonl") == 420
    assert data.resume_offset("s1", "/t/other.jsonl") == 0  # another file: from its start
    doc = json.loads(_state(vault_root).path.read_text())
    assert doc["sessions"]["s1"]["transcript"] == "/t/a.jsonl"


def test_unchanged_state_is_not_rewritten(vault_root: Path) -> None:
    state = _state(vault_root)
    state.update(lambda d: d.set_session(_entry()))
    path = state.path
    before = path.stat().st_mtime_ns, path.stat().st_ino
    state.update(lambda d: d.set_session(_entry()))
    assert (path.stat().st_mtime_ns, path.stat().st_ino) == before


def test_corrupt_state_is_set_aside(vault_root: Path) -> None:
    path = vault_root / ".vaultmem" / "state.json"
    path.parent.mkdir()
    path.write_text("{not json")
    state = _state(vault_root)
    assert state.get("s1") is None
    assert len(state.warnings) == 1 and "corrupt" in state.warnings[0]
    aside = vault_root / ".vaultmem" / "state.json.corrupt-20261122T103000"
    assert aside.read_text() == "{not json"
    state.update(lambda d: d.set_session(_entry()))
    assert _state(vault_root).get("s1") == _entry()


def test_wrong_shape_is_corrupt_too(vault_root: Path) -> None:
    path = vault_root / ".vaultmem" / "state.json"
    path.parent.mkdir()
    path.write_text('{"sessions": {"s1": {"note": 3}}}')
    state = _state(vault_root)
    assert state.load().sessions == {}
    assert state.warnings


_WORKER = """
import sys
from pathlib import Path
import pytest

from vaultmem.store.state import State, SessionEntry
from vaultmem.store.vault import Vault
state = State(Vault(Path(sys.argv[1])))
n = sys.argv[2]
state.update(lambda d: d.set_session(SessionEntry("s" + n, "x.md", "p", "t")))
for i in range(20):
    state.update(lambda d: d.sessions.setdefault("shared", SessionEntry("shared", "x.md", "p", "t")))
    state.update(lambda d, i=i: d.mark_ingested("shared", [f"{n}-{i}"]))
"""


def test_concurrent_processes_lose_nothing(vault_root: Path) -> None:
    procs = [
        subprocess.Popen([sys.executable, "-c", _WORKER, str(vault_root), str(n)],
                         cwd=Path(__file__).parent.parent)
        for n in range(4)
    ]
    assert [p.wait(timeout=60) for p in procs] == [0, 0, 0, 0]
    data = _state(vault_root).load()
    assert {f"s{n}" for n in range(4)} <= set(data.sessions)
    assert data.sessions["shared"].ingested == {f"{n}-{i}" for n in range(4) for i in range(20)}


def test_the_state_is_this_hosts_and_the_folder_is_git_ignored(
    vault_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("VAULTMEM_HOST", "Laptop.local")
    state = _state(vault_root)
    state.update(_start)
    assert state.path == vault_root / ".vaultmem" / "hosts" / "laptop.local" / "state.json"
    assert (vault_root / ".vaultmem" / ".gitignore").read_text().splitlines()[-1] == "*"
    monkeypatch.setenv("VAULTMEM_HOST", "desktop")
    other = _state(vault_root)
    assert other.get("s1") is None  # another machine's sessions are not this one's
    other.update(lambda d: d.set_session(_entry("s2")))
    assert _state(vault_root).get("s2") is not None
    monkeypatch.setenv("VAULTMEM_HOST", "Laptop.local")
    assert _state(vault_root).get("s2") is None and _state(vault_root).current("p") == "s1"


def test_a_shared_state_json_moves_into_this_hosts_folder(vault_root: Path) -> None:
    legacy = vault_root / ".vaultmem" / "state.json"
    legacy.parent.mkdir(parents=True)
    doc = StateData()
    _start(doc)
    legacy.write_text(json.dumps(doc.to_json()))
    state = _state(vault_root)
    assert state.current("p") == "s1" and state.get("s1") == _entry()
    assert not legacy.exists()
    assert (vault_root / ".vaultmem" / "state.json.migrated").exists()
    assert json.loads(state.path.read_text())["current"] == {"p": "s1"}
    assert state.warnings == []


# -- pruning: the state stays bounded ---------------------------------------------------------


def _aged(sid: str, *, ended: str | None, started: str = "2026-10-01T09:00:00+00:00",
          uuids: int = 3) -> SessionEntry:
    return SessionEntry(sid, f"p/sessions/{sid}.md", "p", started,
                        frozenset(f"{sid}-{n}" for n in range(uuids)), 100, ended, "/t.jsonl")


def test_prune_keeps_what_a_running_or_just_ended_session_needs() -> None:
    from datetime import timezone

    from vaultmem.store import state

    now = datetime(2026, 11, 26, 12, 0, tzinfo=timezone.utc)
    data = StateData()
    data.set_session(_aged("running", ended=None, started="2026-11-26T09:00:00+00:00"))
    data.set_session(_aged("old-current", ended=None))  # started long ago, still current
    data.set_current("p", "old-current")
    data.set_session(_aged("crashed", ended=None))  # no SessionEnd, not current: stale
    data.set_session(_aged("just-ended", ended="2026-11-26T11:00:00+00:00"))
    data.set_session(_aged("ended-days-ago", ended="2026-11-20T11:00:00+00:00"))
    data.set_session(_aged("ended-long-ago", ended="2026-10-02T11:00:00+00:00"))
    for n in range(state.KEEP_ENDED + 5):
        data.set_session(_aged(f"many-{n:04d}", ended=f"2026-11-2{n % 5}T10:{n % 60:02d}:00+00:00"))
    data.prune(now)
    assert data.sessions["running"] == _aged("running", ended=None,
                                             started="2026-11-26T09:00:00+00:00")
    assert data.sessions["old-current"].ingested  # the project's current session: untouched
    assert "crashed" not in data.sessions and "ended-long-ago" not in data.sessions
    assert data.sessions["just-ended"].ingested  # a resume today still has its uuids
    kept = data.sessions["ended-days-ago"]
    assert kept.ingested == frozenset() and kept.last_offset == 100  # reads on from there
    ended = [e for e in data.sessions.values() if e.ended is not None]
    assert len(ended) == state.KEEP_ENDED  # the newest ones


def test_a_big_state_is_pruned_by_the_session_end_hook(vault_root: Path) -> None:
    from vaultmem.memory.sessions import Memory
    from vaultmem.store import state
    from vaultmem.store.config import Config

    st = _state(vault_root)
    # An older vaultmem's state, never pruned (written as it wrote it: no hook prunes on write).
    data = StateData()
    for n in range(3000):
        data.set_session(_aged(f"old-{n:05d}", ended="2026-09-01T10:00:00+00:00", uuids=40))
    st.path.parent.mkdir(parents=True, exist_ok=True)
    st.path.write_text(json.dumps(data.to_json()))
    before = st.path.stat().st_size
    m = Memory(Config(vault=vault_root, project="p"), Vault(vault_root))
    when = datetime(2026, 11, 22, 10, 30).astimezone()
    m.start_session("s-now", topic="now", now=when)
    m.end_session(session_id="s-now", compact=False, now=when)
    data = st.load()
    assert set(data.sessions) == {"s-now"}
    assert st.path.stat().st_size < before / 100
    assert len(data.sessions) <= state.KEEP_ENDED


def test_any_hook_prunes_a_state_past_its_bound(vault_root: Path) -> None:
    from vaultmem.store import state

    st = _state(vault_root)
    data = StateData()
    for n in range(3000):
        data.set_session(_aged(f"old-{n:05d}", ended="2026-11-20T10:00:00+00:00", uuids=40))
    st.path.parent.mkdir(parents=True, exist_ok=True)
    st.path.write_text(json.dumps(data.to_json()))
    st.update(lambda d: d.set_session(_entry()))  # a Stop's update, not a SessionEnd
    kept = st.load().sessions
    assert "s1" in kept and len(kept) <= state.KEEP_ENDED + 1


def test_a_session_keeps_its_newest_uuids_only(vault_root: Path) -> None:
    from vaultmem.store import state

    st = _state(vault_root)
    st.update(_start)
    for chunk in range(25):  # 25 Stops of 400 lines: a 10,000-line session
        uuids = [f"u-{chunk:02d}-{n:03d}" for n in range(400)]
        st.update(lambda d, u=uuids, c=chunk: d.mark_ingested("s1", u, last_offset=c))
    entry = st.get("s1")
    assert entry is not None and len(entry.ingested) == state.MAX_INGESTED
    assert {f"u-24-{n:03d}" for n in range(400)} <= entry.ingested  # the newest Stop's, all
    assert entry.last_offset == 24


def test_a_planted_huge_state_is_set_aside_unread(vault_root: Path) -> None:
    from vaultmem.store import state

    st = _state(vault_root)
    st.path.parent.mkdir(parents=True, exist_ok=True)
    # A valid document, too big to be vaultmem's: parsing it is what must not happen.
    filler = ",".join(f'"{n:07d}-{"x" * 30}"' for n in range(state.MAX_STATE_BYTES // 38 + 10))
    st.path.write_text('{"version": 1, "sessions": {"big": {"note": "a.md", "project": "p", '
                       f'"started": "", "ingested": [{filler}]}}}}, "current": {{}}}}')
    assert st.path.stat().st_size > state.MAX_STATE_BYTES
    st.update(lambda d: d.set_session(_entry()))
    assert set(st.load().sessions) == {"s1"}
    assert st.path.stat().st_size < 10_000
    assert "over 8 MB, not read" in st.warnings[0]
    [aside] = st.path.parent.glob("state.json.corrupt-*")
    assert aside.stat().st_size > state.MAX_STATE_BYTES  # kept, for a person to look at
