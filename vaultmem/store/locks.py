"""File locks that go round in turns: first come, first served, across processes.

filelock polls, so a writer in a loop (release, re-acquire microseconds later) wins nearly every
round against processes that look every few milliseconds; with eight such writers on one note a
CI run saw one of them wait past its 10 s timeout. Here a process that has to wait takes a ticket:
a marker named by the time it arrived in ``<lock>.waiting/``. Only the oldest waiter tries the
lock (and polls fast); a newcomer that finds waiters queues behind them, so nobody barges.

A waiter touches its marker every half second; a marker older than five seconds belongs to a
process that is gone (``kill -9`` while waiting) and is removed by the next process that looks,
so a dead waiter holds the queue up for five seconds at most. Markers are per process and thread.
If the queue folder cannot be written the lock is simply polled, as filelock does.
"""

from __future__ import annotations

import contextlib
import os
import random
import threading
import time
from pathlib import Path

import filelock

from vaultmem.store import safefs

HEAD_POLL_SECONDS = 0.002  # the first in the queue looks this often
POLL_SECONDS = 0.02  # the others check their place this often
TOUCH_SECONDS = 0.5  # a waiter refreshes its marker this often
STALE_SECONDS = 5.0  # a marker older than this belongs to a waiter that died


class TurnLock:
    """One lock file, taken in turns; re-entrant per thread like :class:`filelock.FileLock`."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.queue = path.with_name(path.name + ".waiting")
        self._lock = filelock.FileLock(path)

    def acquire(self, timeout: float) -> None:
        """Take the lock within ``timeout`` seconds or raise :class:`filelock.Timeout`."""
        if self._lock.is_locked:  # re-entry by this thread: filelock only counts
            self._lock.acquire()
            return
        # filelock before 3.13 opened the lock file with O_TRUNC, through a symlink a shared
        # vault may hold; and the queue's stale markers are deleted, so it must be our folder.
        safefs.check_not_link(self.path)
        safefs.check_not_link(self.queue)
        if self._head() is None and self._try():
            return
        deadline = time.monotonic() + timeout
        marker = self._join()
        touched = time.monotonic()
        try:
            while True:
                head = self._head()
                first = marker is None or head is None or head == marker.name
                if first and self._try():
                    return
                now = time.monotonic()
                if now >= deadline:
                    raise filelock.Timeout(str(self.path))
                if marker is not None and now - touched > TOUCH_SECONDS:
                    with contextlib.suppress(OSError):
                        marker.touch()  # still waiting: the marker stays fresh
                    touched = now
                pause = HEAD_POLL_SECONDS if first else POLL_SECONDS
                time.sleep(min(deadline - now, random.uniform(0.5, 1.5) * pause))
        finally:
            if marker is not None:
                with contextlib.suppress(OSError):
                    marker.unlink()

    def release(self) -> None:
        self._lock.release()

    def _try(self) -> bool:
        try:
            self._lock.acquire(timeout=0)
        except filelock.Timeout:
            return False
        return True

    def _join(self) -> Path | None:
        """Take a ticket; None when the queue folder cannot be written (then just poll)."""
        name = f"{time.time_ns():020d}-{os.getpid()}-{threading.get_ident()}"
        marker = self.queue / name
        try:
            self.queue.mkdir(exist_ok=True)
            marker.touch()
        except OSError:
            return None
        return marker

    def _head(self) -> str | None:
        """The ticket of the oldest live waiter, or None; removes the markers of dead ones."""
        try:
            entries = sorted(os.scandir(self.queue), key=lambda e: e.name)
        except OSError:  # never contended (no folder), or unreadable: nobody to wait behind
            return None
        now = time.time()
        for entry in entries:
            try:
                fresh = now - entry.stat().st_mtime < STALE_SECONDS
            except OSError:
                continue  # it just left
            if fresh:
                return entry.name
            with contextlib.suppress(OSError):
                os.unlink(entry.path)  # a waiter that died (kill -9) without leaving
        return None
