"""Files vaultmem keeps for itself (``.vaultmem/``), written and read without following a link.

A vault is shared: a teammate's push or a synced folder may hold ``.vaultmem`` as a symlink, or
``.vaultmem/locks/<sha1>.last`` as a symlink to ``~/.bashrc``. ``Path.write_text`` follows it
and truncates the target. Here every folder of vaultmem's own is a real folder (checked with
``lstat``, created one level at a time) and every file is opened with ``O_NOFOLLOW``; a link is
refused with :class:`UnsafePath` naming it, so the one line a person reads says what to remove.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from vaultmem.errors import UnsafePath

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)


def _refused(path: Path, what: str) -> UnsafePath:
    return UnsafePath(
        f"{what}; vaultmem keeps its own files only in real folders inside the vault "
        "(remove it, vaultmem makes a new one)",
        path=str(path),
    )


def check_not_link(path: Path) -> None:
    """UnsafePath when ``path`` is a symlink (a missing path is fine)."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return
    except OSError:
        return  # unreadable: the open that follows reports it
    if stat.S_ISLNK(st.st_mode):
        raise _refused(path, f"is a symlink (to {os.readlink(path)})")


def real_dir(path: Path) -> Path:
    """Make sure ``path`` is a real folder (created when missing, its parent must exist);
    UnsafePath when it is a symlink or not a folder, OSError when it cannot be created."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        try:
            os.mkdir(path)
        except FileExistsError:
            pass  # another process made it first: looked at below
        st = os.lstat(path)
    if stat.S_ISLNK(st.st_mode):
        raise _refused(path, f"is a symlink (to {os.readlink(path)}), not a folder")
    if not stat.S_ISDIR(st.st_mode):
        raise _refused(path, "is not a folder")
    return path


def real_dirs(base: Path, *parts: str) -> Path:
    """``base/parts…`` made of real folders below ``base`` (which must be one already)."""
    path = base
    for part in parts:
        path = real_dir(path / part)
    return path


def _open(path: Path, flags: int, mode: int = 0o644) -> int:
    try:
        fd = os.open(path, flags | _NOFOLLOW | _NONBLOCK, mode)
    except OSError as err:
        if err.errno == errno.ELOOP:
            raise _refused(path, "is a symlink") from None
        raise
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise _refused(path, "is not a regular file")
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_bytes(path: Path, limit: int | None = None) -> bytes:
    """The bytes of a regular file (at most ``limit``), never through a symlink or a FIFO."""
    fd = _open(path, os.O_RDONLY)
    try:
        chunks: list[bytes] = []
        left = limit
        while left is None or left > 0:
            chunk = os.read(fd, 1 << 20 if left is None else min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            if left is not None:
                left -= len(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def write_bytes(path: Path, data: bytes, mode: int = 0o644) -> None:
    """Overwrite (or create) a small regular file in place, never through a symlink."""
    fd = _open(path, os.O_WRONLY | os.O_CREAT, mode)
    try:
        os.ftruncate(fd, 0)
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
    finally:
        os.close(fd)
