"""locks.py: file locks taken in turns (first come, first served), dead waiters skipped."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import filelock
import pytest

from vaultmem.store.locks import STALE_SECONDS, TurnLock

# A process that takes the lock in a tight loop, counting its rounds in COUNT, until STOP exists
# (at most 5,000 rounds): the writer that used to win every round against pollers.
HOG = """
import sys, time
from pathlib import Path
from vaultmem.store.locks import TurnLock
lock_path, count, stop = map(Path, sys.argv[1:4])
lock = TurnLock(lock_path)
for n in range(1, 5001):
    lock.acquire(60)
    count.write_text(str(n))
    time.sleep(0.01)
    lock.release()
    if stop.exists():
        break
"""


def _rounds(count: Path) -> int:
    """The holder's round count (0 before its first; a read during its write is retried)."""
    while True:
        text = count.read_text() if count.exists() else "0"
        if text:
            return int(text)


class _Recording(TurnLock):
    """A TurnLock that notes the holder's round at the moment it takes its ticket."""

    def __init__(self, path: Path, count: Path) -> None:
        super().__init__(path)
        self.count = count
        self.queued: int | None = None

    def _join(self) -> Path | None:
        marker = super()._join()
        self.queued = _rounds(self.count)
        return marker


def test_a_waiter_gets_the_lock_before_a_looping_holder_takes_it_again(tmp_path: Path) -> None:
    path, count, stop = tmp_path / "n.lock", tmp_path / "count", tmp_path / "stop"
    hog = subprocess.Popen([sys.executable, "-c", HOG, str(path), str(count), str(stop)],
                           env={**os.environ, "PYTHONPATH": str(Path(__file__).parents[1])})
    lock = _Recording(path, count)
    waited: list[int] = []  # rounds the holder started between our ticket and our turn
    try:
        while _rounds(count) < 20:
            assert hog.poll() is None
            time.sleep(0.01)
        for _ in range(10):
            lock.queued = None
            arrived = _rounds(count)
            lock.acquire(60)
            waited.append(_rounds(count) - (arrived if lock.queued is None else lock.queued))
            lock.release()
            time.sleep(0.015)  # the holder takes it back: the next turn has to queue again
    finally:
        stop.touch()
        hog.wait(timeout=60)
    assert hog.returncode == 0
    # Once we hold a ticket the holder may finish its round but not start another before us;
    # plain polling lost it tens of rounds.
    assert max(waited) <= 2, waited


def _marker(lock: TurnLock, name: str, age: float = 0.0) -> Path:
    lock.queue.mkdir(exist_ok=True)
    marker = lock.queue / name
    marker.touch()
    if age:
        then = time.time() - age
        os.utime(marker, (then, then))
    return marker


def test_a_newcomer_does_not_take_a_free_lock_ahead_of_a_waiter(tmp_path: Path) -> None:
    lock = TurnLock(tmp_path / "n.lock")
    waiter = _marker(lock, f"{time.time_ns() - 10**9:020d}-1-1")
    with pytest.raises(filelock.Timeout):
        lock.acquire(0.1)
    assert list(lock.queue.iterdir()) == [waiter]  # our own ticket went with the timeout
    waiter.unlink()
    lock.acquire(0.1)
    lock.release()
    assert list(lock.queue.iterdir()) == []


def test_the_ticket_of_a_dead_waiter_is_skipped_and_removed(tmp_path: Path) -> None:
    lock = TurnLock(tmp_path / "n.lock")
    dead = _marker(lock, f"{1:020d}-999999-1", age=STALE_SECONDS + 1)
    lock.acquire(0.5)
    lock.release()
    assert not dead.exists()


def test_the_lock_is_reentrant_per_thread_and_held_until_the_last_release(tmp_path: Path) -> None:
    lock, other = TurnLock(tmp_path / "n.lock"), TurnLock(tmp_path / "n.lock")
    lock.acquire(1)
    lock.acquire(1)
    lock.release()
    with pytest.raises(filelock.Timeout):
        other.acquire(0.05)
    lock.release()
    other.acquire(0.05)
    other.release()


def test_an_unwritable_queue_folder_falls_back_to_polling(tmp_path: Path) -> None:
    path = tmp_path / "n.lock"
    (tmp_path / "n.lock.waiting").write_text("not a folder")  # mkdir of the queue fails
    holder, waiter = TurnLock(path), TurnLock(path)
    holder.acquire(1)
    with pytest.raises(filelock.Timeout):
        waiter.acquire(0.05)
    holder.release()
    waiter.acquire(0.05)
    waiter.release()
