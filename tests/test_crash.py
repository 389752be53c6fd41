"""Crash convergence: compaction stopped at any step boundary, then run again, leaves exactly the
vault of an uninterrupted run. In-process (an injected exception at every checkpoint) and in real
``python -m vaultmem compact`` processes killed with SIGKILL."""

from __future__ import annotations

import os
import random
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from compaction_kit import NOW, PROJECT, build, memory, now, snapshot

from vaultmem import faults

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(autouse=True)
def _disarm() -> object:
    yield None
    faults.disarm()


def _recorded(root: Path, rel: str, monkeypatch: pytest.MonkeyPatch, *, move: bool) -> list[str]:
    """The compaction checkpoints an uninterrupted run passes, in order."""
    seen: list[str] = []
    real = faults.checkpoint

    def record(name: str) -> None:
        seen.append(name)
        real(name)

    monkeypatch.setattr(faults, "checkpoint", record)
    report = memory(root).compact_note(rel, move=move, force=True, now=now())
    monkeypatch.setattr(faults, "checkpoint", real)
    assert report.status == "compacted", report.error
    return list(dict.fromkeys(n for n in seen if n.startswith("compact:")))


def _without_temps(files: dict[str, bytes]) -> dict[str, bytes]:
    """A killed atomic write may leave its hidden temp file; it is never a note."""
    return {k: v for k, v in files.items()
            if not (Path(k).name.startswith(".") and k.endswith(".vmtmp"))}


def _ids_once(root: Path) -> None:
    """Every ^vm- id appears exactly once in each entity note, every backlink once."""
    for path in root.rglob("entities/*.md"):
        text = path.read_text()
        ids = re.findall(r"\^(vm-[0-9a-f]{8})$", text, re.MULTILINE)
        assert len(ids) == len(set(ids)), path
        assert text.count("Archived session (compacted)") == 1, path


@pytest.mark.parametrize("move", [False, True])
def test_exception_at_every_checkpoint_then_rerun(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, move: bool
) -> None:
    initial = tmp_path / "initial"
    initial.mkdir()
    rel = build(initial, entities=8, existing=4, lines=200)
    reference = tmp_path / "reference"
    shutil.copytree(initial, reference)
    names = _recorded(reference, rel, monkeypatch, move=move)
    expected = snapshot(reference)
    # Every kind of step boundary is there, per entity too.
    for step in ("extract", "entity-create", "entity-patch", "index", "archive-write",
                 "archive-verify", "move-remove" if move else "mark-original"):
        assert f"compact:{step}" in names
    # Each entity is written once (its lines, related links, overview and backlink together).
    assert sum(n.startswith(("compact:entity-create:", "compact:entity-patch:"))
               for n in names) == 8
    for name in names:
        work = tmp_path / "work"
        shutil.rmtree(work, ignore_errors=True)
        shutil.copytree(initial, work)
        faults.arm(name)
        try:
            memory(work).compact_note(rel, move=move, force=True, now=now())
        except faults.InjectedFault:
            pass  # the last step (mark/remove) has nothing left to record a failure on
        finally:
            faults.disarm()
        assert memory(work).compact_note(rel, move=move, force=True, now=now()).status in (
            "compacted", "already archived")
        assert snapshot(work) == expected, name
        _ids_once(work)


def _cli(root: Path, rel: str, fault: str | None = None, *, move: bool = False
         ) -> subprocess.Popen[bytes]:
    env = dict(os.environ, VAULTMEM_NOW=NOW, PYTHONPATH=str(REPO))
    env.pop("VAULTMEM_FAULT", None)
    if fault:
        env["VAULTMEM_FAULT"] = fault
    args = [sys.executable, "-m", "vaultmem", "--vault", str(root), "--project", PROJECT,
            "compact", rel] + (["--move"] if move else [])
    return subprocess.Popen(args, env=env, cwd=REPO, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)


@pytest.fixture(scope="module")
def big(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, dict[str, bytes]]:
    """A 600-line session into 12 entities (6 new), and the vault an uninterrupted CLI run makes."""
    os.environ["VAULTMEM_NOW"] = NOW
    try:
        initial = tmp_path_factory.mktemp("initial")
        rel = build(initial)
        reference = tmp_path_factory.mktemp("reference")
        shutil.rmtree(reference)
        shutil.copytree(initial, reference)
        proc = _cli(reference, rel)
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err.decode()
        assert b"compacted" in out
        return initial, rel, snapshot(reference)
    finally:
        del os.environ["VAULTMEM_NOW"]


@pytest.mark.parametrize(
    "fault",
    [
        "compact:extract",
        "compact:entity-create:Entity 07",
        "compact:entity-patch:Entity 03",
        "write",  # inside the first atomic write, before os.replace
        "compact:archive-write",
        "compact:archive-verify",
        "compact:entity-create:Entity 12",
        "compact:index",
        "compact:mark-original",
    ],
)
def test_sigkill_at_a_step_then_rerun(
    tmp_path: Path, big: tuple[Path, str, dict[str, bytes]], fault: str
) -> None:
    initial, rel, expected = big
    work = tmp_path / "work"
    shutil.copytree(initial, work)
    proc = _cli(work, rel, f"{fault}:kill")
    proc.communicate(timeout=120)
    assert proc.returncode == -signal.SIGKILL
    assert snapshot(work) != expected
    proc = _cli(work, rel)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err.decode()
    got = snapshot(work)
    assert _without_temps(got) == expected
    assert got == expected or fault == "write"
    _ids_once(work)


def test_sigkill_at_random_times_then_rerun(
    tmp_path: Path, big: tuple[Path, str, dict[str, bytes]]
) -> None:
    initial, rel, expected = big
    rng = random.Random(1234)
    for attempt in range(4):
        work = tmp_path / f"work{attempt}"
        shutil.copytree(initial, work)
        proc = _cli(work, rel)
        # Python start-up plus the compaction takes a few hundred ms here.
        time.sleep(rng.uniform(0.2, 1.2))
        proc.send_signal(signal.SIGKILL)
        proc.communicate(timeout=120)
        proc = _cli(work, rel)
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err.decode()
        assert _without_temps(snapshot(work)) == expected
        _ids_once(work)
