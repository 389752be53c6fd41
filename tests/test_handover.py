"""memory/handover.py and claude/hookclock.py: SessionEnd's compaction within a deadline.

A run stopped by its deadline before any write reports ``handed over`` and leaves the vault as a
crash there would (never an archive without its mark, never ``compaction_failed``); the detached
``vaultmem compact`` that the hook starts then converges to the vault an inline run writes. The
deadline is forced with ``VAULTMEM_SESSION_END_DEADLINE`` (0: always handed over; inf: never),
and in-process with a fake timer, so no branch depends on the machine's load."""

from __future__ import annotations

import itertools
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from compaction_kit import NOW, PROJECT, build, memory, now, snapshot
from hook_kit import hook_env, run_hook

from vaultmem.claude import hookclock
from vaultmem.memory.handover import HANDED_OVER, Deadline, HandOver
from vaultmem.notes import frontmatter


def _status(root: Path, rel: str) -> object:
    return frontmatter.parse((root / rel).read_text()).get("status")


def test_a_deadline_hands_over_when_the_slowest_step_would_pass_it() -> None:
    clock = iter([0.0, 0.3, 0.5, 0.6, 0.9])
    deadline = Deadline(1.0, timer=lambda: next(clock))  # starts at 0.0
    deadline.check()  # 0.3: slowest 0.3, 0.6 < 1.0
    deadline.check()  # 0.5: slowest 0.3, 0.8 < 1.0
    deadline.check()  # 0.6: slowest 0.3, 0.9 < 1.0
    with pytest.raises(HandOver):
        deadline.check()  # 0.9: 0.9 + 0.3 passes 1.0
    assert deadline.slowest == pytest.approx(0.3)


def test_a_passed_deadline_leaves_no_time() -> None:
    deadline = Deadline(0.0, timer=lambda: 5.0)
    assert deadline.passed() and deadline.left() == 0.0
    assert not Deadline(10.0, timer=lambda: 5.0).passed()


@pytest.fixture(scope="module")
def due(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, dict[str, bytes]]:
    """A due session note into 8 entities (4 new), and the vault one uninterrupted run makes."""
    initial = tmp_path_factory.mktemp("initial")
    rel = build(initial, entities=8, existing=4, lines=200)
    reference = tmp_path_factory.mktemp("reference")
    shutil.rmtree(reference)
    shutil.copytree(initial, reference)
    assert memory(reference).compact_note(rel, force=True, now=now()).status == "compacted"
    return initial, rel, snapshot(reference)


def test_a_run_handed_over_at_any_write_converges_when_run_again(
        tmp_path: Path, due: tuple[Path, str, dict[str, bytes]]) -> None:
    initial, rel, expected = due
    archive = rel.replace("/sessions/", "/archive/sessions/")
    stops: list[int] = []
    # A timer that ticks once a call: the run hands over at its n-th look at the deadline, for
    # every n until one run is no longer stopped.
    for at in itertools.count(2):
        work = tmp_path / f"work{at}"
        shutil.copytree(initial, work)
        ticks = itertools.count()
        report = memory(work).compact_note(rel, force=True, now=now(),
                                           deadline=Deadline(at, timer=ticks.__next__))
        if report.status != HANDED_OVER:
            assert report.status == "compacted" and snapshot(work) == expected
            break
        stops.append(at)
        # As a crash before a write leaves it: no archive, the note still active, no error.
        assert not (work / archive).exists()
        assert _status(work, rel) == "active"
        assert "error" not in frontmatter.parse((work / rel).read_text())
        again = memory(work).compact_note(rel, force=True, now=now())
        assert again.status == "compacted", again.error
        assert snapshot(work) == expected, at
    # Before each of the 8 entities, the index and the archive: 10 places to stop.
    assert len(stops) >= 10


def _hook(vault: Path, cwd: Path, deadline: str) -> subprocess.CompletedProcess[bytes]:
    env = hook_env(vault, VAULTMEM_PROJECT=PROJECT, VAULTMEM_NOW=NOW,
                   VAULTMEM_SESSION_END_DEADLINE=deadline)
    return run_hook("session-end", {"session_id": "s-big", "cwd": str(cwd), "reason": "other"},
                    vault, cwd=cwd, env=env)


def test_session_end_past_its_deadline_hands_over_and_the_vault_converges(
        tmp_path: Path) -> None:
    initial = tmp_path / "initial"
    rel = build(initial, entities=8, existing=4, lines=520)  # due: past 500 lines
    inline, handed = tmp_path / "inline", tmp_path / "handed"
    shutil.copytree(initial, inline)
    shutil.copytree(initial, handed)
    cwd = tmp_path / "cwd"
    cwd.mkdir()

    proc = _hook(inline, cwd, "inf")  # no deadline: compacted by the time the hook returns
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, b"", b"")
    assert _status(inline, rel) == "archived"

    proc = _hook(handed, cwd, "0")  # past at once: nothing compacted in the hook
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, b"", b"")
    # The detached `vaultmem compact` the hook started archives it (bounded wait, not a timing).
    limit = time.monotonic() + 120
    while _status(handed, rel) != "archived" and time.monotonic() < limit:
        time.sleep(0.2)
    assert _status(handed, rel) == "archived"
    assert snapshot(handed) == snapshot(inline)


def test_a_deadline_that_is_not_seconds_is_said_and_the_default_taken(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    rel = build(vault, entities=4, existing=2, lines=520)
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    proc = _hook(vault, cwd, "soon")
    assert proc.returncode == 0 and proc.stdout == b""
    assert proc.stderr.decode() == (
        "vaultmem: VAULTMEM_SESSION_END_DEADLINE='soon' is not a number of seconds; 0.8 s taken\n")
    limit = time.monotonic() + 120  # compacted inline, or handed over on a loaded machine
    while _status(vault, rel) != "archived" and time.monotonic() < limit:
        time.sleep(0.2)
    assert _status(vault, rel) == "archived"


@pytest.mark.parametrize(("raw", "seconds", "said"), [
    ("0", 0.0, False), (" 0.5 ", 0.5, False), ("inf", float("inf"), False), ("", 0.8, False),
    ("-1", 0.8, True), ("nan", 0.8, True), ("1.5s", 0.8, True)])
def test_the_deadline_counts_from_the_start_by_the_variable(
        raw: str, seconds: float, said: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(hookclock.ENV_DEADLINE, raw)
    monkeypatch.setattr(hookclock, "process_age", lambda: None)  # then: from the door's entry
    warnings: list[str] = []
    assert hookclock.session_end_deadline(100.0, warnings) == 100.0 + seconds
    assert len(warnings) == said and all(repr(raw) in w for w in warnings)


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="no /proc here")
def test_the_process_age_counts_from_the_process_start() -> None:
    """A process asked its age after sleeping is at least that old: Python's start-up counts."""
    code = ("import time; time.sleep(0.3); from vaultmem.claude import hookclock; "
            "print(hookclock.process_age())")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, env=dict(os.environ), timeout=60).stdout
    assert float(out) >= 0.3
    # This test's own process is older than the test (a hook door embedded in a long-running
    # process is not handed a deadline: hooks.run takes none unless given).
    assert (hookclock.process_age() or 0.0) > 0.0


def test_a_run_handed_over_at_session_end_leaves_the_note_due(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    rel = build(tmp_path, entities=4, existing=2, lines=520)
    m = memory(tmp_path)

    def hand_over(self: Deadline) -> None:
        raise HandOver

    monkeypatch.setattr(Deadline, "check", hand_over)  # the first write is one too many
    ended = m.end_session(session_id="s-big", now=now(), compact_by=float("inf"))
    assert ended.report is not None and ended.report.status == HANDED_OVER
    assert ended.due and _status(tmp_path, rel) == "active"
    # Past the deadline before it began: not even begun, due as well.
    ended = m.end_session(session_id="s-big", now=now(), compact_by=0.0)
    assert ended.report is None and ended.due
