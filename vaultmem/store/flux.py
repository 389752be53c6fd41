"""A note another program is writing right now: wait for it to settle before reading it.

Editors (Obsidian's desktop adapter among them) save a note in two steps: truncate, then write
the new content. A read between the two sees a short or empty note; an edit made from that read
and saved would drop every line the person had. So before vaultmem reads a note to change it
(under the note's lock), it asks whether the note is *in flux*:

- it is not the file vaultmem itself wrote last (inode, mtime and size recorded beside the lock
  after each write), and
- it changed moments ago (mtime within QUIET_SECONDS, EDITED_QUIET_SECONDS when it ends
  mid-line), or it is shorter than vaultmem last saw it, or empty;

and if so waits, polling, until it has been still for QUIET_SECONDS (EDITED_QUIET_SECONDS when
it ends mid-line: an editor may write a save in two parts 0.3 s apart, and the first part is
half a note; at most SETTLE_SECONDS in all; after that it is read as it is); an emptied or shortened note waits for its write until
SETTLE_SECONDS. A note only vaultmem writes never waits.

After the replace, the file that was replaced is looked at once more through a descriptor opened
before it: an editor that truncated or wrote into it in that instant wrote into a file no longer
in the vault, and :func:`orphaned` hands back what it wrote so the edit can be redone on it. When
another program wrote the note since vaultmem last did, within ACTIVE_SECONDS (a person editing
it now), the replaced file is watched for QUIET_SECONDS, longer on a machine whose run queue is
longer than its cores (:func:`busy_factor`: there the editor's next step comes later): an editor
that read the note just before the replace may truncate and write it a moment after (a save is
lost only when it comes later than that); when the replaced file was empty or shorter than vaultmem left it (a save caught
between its truncate and its write, the read settled on the empty file), for up to
SETTLE_SECONDS, so a write landing 0.3 s later is still redone on. A note a sync tool brought
earlier is looked at once, as one only vaultmem writes.
"""

from __future__ import annotations

import contextlib
import os
import time
from pathlib import Path

from vaultmem.errors import UnsafePath
from vaultmem.store import safefs

QUIET_SECONDS = 0.1  # a note untouched this long (by mtime and by our polls) has settled
# ... unless another program left it ending mid-line: an editor may save in two parts (truncate
# and write half, then the rest 0.3 s later), and half a note is neither empty nor short of
# anything vaultmem knows; it ends where the bytes were cut. Such a note settles once untouched
# this long.
EDITED_QUIET_SECONDS = 0.5
SETTLE_SECONDS = 1.0  # the longest a write waits for a note to settle (hooks have budgets)
POLL_SECONDS = 0.01
ACTIVE_SECONDS = 10.0  # another program's write this recent: someone is editing the note now
BUSY_FACTOR_MAX = 5.0  # the most a busy machine stretches the watch of a replaced file

Stamp = tuple[int, int, int]  # (inode, mtime_ns, size)


def stamp_of(st: os.stat_result) -> Stamp:
    """What identifies one version of a file cheaply."""
    return (st.st_ino, st.st_mtime_ns, st.st_size)


def recorded(marker: Path) -> Stamp | None:
    """The stamp of the last write vaultmem made to a note (None when unknown)."""
    try:
        parts = safefs.read_bytes(marker, 100).decode("ascii").split()
        ino, mtime_ns, size = (int(p) for p in parts)
    except (OSError, ValueError, UnicodeDecodeError, UnsafePath):
        return None
    return (ino, mtime_ns, size)


def record(marker: Path, path: Path, size: int) -> None:
    """Remember the file vaultmem just wrote at ``path``, ``size`` bytes (best effort: a
    failure only means the next write may wait for a quiet moment it did not need)."""
    # Never through a symlink a shared vault put there (it would overwrite its target).
    with contextlib.suppress(OSError, UnsafePath):
        stamp = stamp_of(os.stat(path))
        if stamp[2] != size:
            # An editor truncated it between the replace and this look: that file is not
            # vaultmem's write (an empty note taken for ours would be edited as it is).
            stamp = (stamp[0], 0, size)
        safefs.write_bytes(marker, " ".join(str(n) for n in stamp).encode())


def _in_flux(st: os.stat_result, last: Stamp | None, now_ns: int, path: Path) -> bool:
    stamp = stamp_of(st)
    if stamp == last:
        return False  # vaultmem's own write, untouched since
    age = now_ns - st.st_mtime_ns
    recent = age < QUIET_SECONDS * 1e9 or (age < EDITED_QUIET_SECONDS * 1e9
                                           and _mid_line(path, st))
    shorter = last is not None and st.st_size < last[2]
    return recent or shorter or st.st_size == 0


def settle(path: Path, last: Stamp | None) -> bool:
    """Wait (bounded) until the note at ``path`` is not in flux; whether it had to wait."""
    try:
        st = os.stat(path)
    except OSError:
        return False
    if not _in_flux(st, last, time.time_ns(), path):
        return False
    deadline = time.monotonic() + SETTLE_SECONDS
    seen = stamp_of(st)
    still_since = time.monotonic()
    while time.monotonic() < deadline:
        time.sleep(POLL_SECONDS)
        try:
            st = os.stat(path)
        except OSError:
            return True
        now = time.monotonic()
        if stamp_of(st) != seen:
            seen, still_since = stamp_of(st), now
            continue
        if _cut(st, last, time.time_ns()):
            continue  # truncated moments ago: its write is still to come (up to the deadline)
        # Ending mid-line, another program's save may be half written: its rest may come later.
        quiet = EDITED_QUIET_SECONDS if _mid_line(path, st) else QUIET_SECONDS
        quiet_on_disk = time.time_ns() - st.st_mtime_ns >= quiet * 1e9
        if quiet_on_disk and now - still_since >= quiet:
            return True
    return True


def cut(path: Path, last: Stamp | None, size_read: int) -> bool:
    """Whether the note read with ``size_read`` bytes was read emptied or shortened by another
    program moments ago (its save's write still to come)."""
    if size_read and (last is None or size_read >= last[2]):
        return False  # the common case, no stat
    try:
        st = os.stat(path)
    except OSError:
        return False
    # Written by another program moments ago (its write may have come since the read).
    return stamp_of(st) != last and time.time_ns() - st.st_mtime_ns < ACTIVE_SECONDS * 1e9


def _cut(st: os.stat_result, last: Stamp | None, now_ns: int) -> bool:
    """Emptied or made shorter than vaultmem left it, by another program, recently: a save
    between its truncate and its write (an editor's write may come a second later)."""
    if stamp_of(st) == last or now_ns - st.st_mtime_ns >= ACTIVE_SECONDS * 1e9:
        return False
    return st.st_size == 0 or (last is not None and st.st_size < last[2])


def orphaned(fd: int, before: os.stat_result, grace: float = 0.0) -> bytes | None:
    """What was written into a replaced file after ``before`` (its stat at the last look),
    once that settles; None when nothing touched it (within ``grace`` seconds)."""
    try:
        if stamp_of(os.fstat(fd)) == stamp_of(before) and not _touched(fd, before, grace):
            return None
        deadline = time.monotonic() + SETTLE_SECONDS
        seen = stamp_of(os.fstat(fd))
        still_since = time.monotonic()
        while time.monotonic() < deadline:
            time.sleep(POLL_SECONDS)
            now_seen = stamp_of(os.fstat(fd))
            if now_seen != seen:
                seen, still_since = now_seen, time.monotonic()
            elif (time.monotonic() - still_since >= _quiet_fd(fd, seen)
                  and not _shorter(seen, before)):
                break
        if _shorter(seen, before):
            # Truncated and its write never came (in time): nothing to redo on. Redoing on the
            # empty file would drop every line the note had.
            return None
        return read_all(fd)
    except OSError:
        return None


def _mid_line(path: Path, st: os.stat_result) -> bool:
    """Whether the non-empty note at ``path`` ends mid-line (the first part of a save)."""
    if st.st_size == 0:
        return False
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return False
    try:
        return os.pread(fd, 1, st.st_size - 1) not in (b"\n", b"")
    except OSError:
        return False
    finally:
        os.close(fd)


def _quiet_fd(fd: int, seen: Stamp) -> float:
    """How long the replaced file open at ``fd`` must be still: longer when it ends mid-line
    (an editor's save in two parts, its second part still to come)."""
    try:
        mid = seen[2] > 0 and os.pread(fd, 1, seen[2] - 1) not in (b"\n", b"")
    except OSError:
        mid = False
    return EDITED_QUIET_SECONDS if mid else QUIET_SECONDS


def _shorter(seen: Stamp, before: os.stat_result) -> bool:
    """An editor's save caught between its truncate and its write: emptied or shortened."""
    return seen[2] == 0 or seen[2] < before.st_size


def grace(st: os.stat_result, last: Stamp | None, now_ns: int) -> float:
    """How long to watch a file replaced at ``now_ns`` (``st``: its stat just before): a while
    when another program wrote it since vaultmem's last write ``last``, and recently; up to
    SETTLE_SECONDS when it was empty or shorter than vaultmem left it (a save caught between
    its truncate and its write: the write, 0.3 s later, lands in the replaced file)."""
    if _cut(st, last, now_ns):
        return SETTLE_SECONDS
    active = stamp_of(st) != last and now_ns - st.st_mtime_ns < ACTIVE_SECONDS * 1e9
    if not active:
        return 0.0
    try:
        load = os.getloadavg()[0]
    except OSError:  # no load average on this system
        load = 0.0
    return QUIET_SECONDS * busy_factor(load, os.cpu_count() or 1)


def busy_factor(load: float, cpus: int) -> float:
    """How much longer than on an idle machine another process takes to make its next step:
    the run queue per core (the one-minute load average over the cores), from 1 (idle or
    merely busy) to BUSY_FACTOR_MAX. An editor that read a note just before vaultmem replaced
    it writes into the replaced file after its own truncate; on a machine with 7 runnable
    processes per core that write comes several times later than the quiet 0.1 s."""
    return min(max(load / max(cpus, 1), 1.0), BUSY_FACTOR_MAX)


def _touched(fd: int, before: os.stat_result, seconds: float) -> bool:
    """Whether the file open at ``fd`` changes from ``before`` within ``seconds`` (polled)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        time.sleep(POLL_SECONDS)
        if stamp_of(os.fstat(fd)) != stamp_of(before):
            return True
    return False


def read_all(fd: int) -> bytes:
    """Every byte of the file open at ``fd``, from its start."""
    os.lseek(fd, 0, os.SEEK_SET)
    chunks = []
    while chunk := os.read(fd, 1 << 20):
        chunks.append(chunk)
    return b"".join(chunks)
