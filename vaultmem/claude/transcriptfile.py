"""A transcript file read in bounded pieces: resumed at an offset, a rewrite told by its mark."""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Iterator
from os import PathLike
from typing import BinaryIO

# One hook reads at most this much of a transcript (the next one goes on from where it stopped),
# and a line longer than MAX_LINE_BYTES is passed over unread: memory stays bounded whatever file
# a payload names.
MAX_READ_BYTES = 64 * 1024 * 1024
MAX_LINE_BYTES = 16 * 1024 * 1024
# Passing over an overlong line only reads (no parse, no memory): it may go this far past the
# read budget, so such a line is consumed in one go (one longer still is left for ever unread).
MAX_SKIP_BYTES = 256 * 1024 * 1024
_SKIP_CHUNK = 1024 * 1024


def is_regular_file(path: str | PathLike[str]) -> bool | None:
    """Whether ``path`` is a regular file (symlinks followed); None when it does not exist.
    A FIFO, a device (``/dev/zero``) or a folder is never read as a transcript."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except FileNotFoundError:
        return None
    except (OSError, ValueError):
        return False


MARK_BYTES = 4096  # before the offset a read stopped at: what tells a rewritten file


def mark_before(handle: BinaryIO, end: int) -> str:
    """The hash of the (up to MARK_BYTES) bytes before ``end``: "" at the start of the file."""
    if end <= 0:
        return ""
    handle.seek(max(0, end - MARK_BYTES))
    return hashlib.sha256(handle.read(min(end, MARK_BYTES))).hexdigest()[:32]


def resume_at(handle: BinaryIO, start: int, mark: str = "") -> int:
    """``start`` when the file still holds what was read before it, else 0 (read it whole)."""
    if start <= 0:
        return 0
    handle.seek(start - 1)
    if handle.read(1) != b"\n":
        return 0
    return start if not mark or mark_before(handle, start) == mark else 0


def complete_lines(handle: BinaryIO, end: list[int]) -> Iterator[bytes]:
    """The lines of ``handle`` from where it stands; ``end[0]`` follows the last complete one.
    A last line without its newline is still given (and skipped as partial JSON, or read).
    Stops after MAX_READ_BYTES; a line over MAX_LINE_BYTES is given as ``b"?"`` (not JSON)."""
    budget = MAX_READ_BYTES
    while budget > 0:
        line = handle.readline(MAX_LINE_BYTES)
        if not line:
            return
        budget -= len(line)
        if line.endswith(b"\n"):
            end[0] += len(line)
            yield line
        elif len(line) < MAX_LINE_BYTES:
            yield line  # the partial last line
            return
        else:
            rest = _skip_line(handle, MAX_SKIP_BYTES)
            if rest is None:
                return  # no newline yet (or ever): the next read looks again
            end[0] += len(line) + rest
            yield b"?"


def _skip_line(handle: BinaryIO, budget: int) -> int | None:
    """Read past the rest of a line: the bytes it had with its newline, or None (no newline
    within ``budget``)."""
    skipped = 0
    while skipped < budget:
        chunk = handle.readline(_SKIP_CHUNK)
        if not chunk:
            return None
        skipped += len(chunk)
        if chunk.endswith(b"\n"):
            return skipped
    return None
