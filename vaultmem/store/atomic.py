"""Replace a file atomically: the one way vaultmem writes a file (notes, state.json, settings.json).

A unique temp file beside the destination (``.<name>.<random>.vmtmp``), written and fsynced,
given its mode, then ``os.replace`` and an fsync of the folder, so that after a crash or a full
disk the destination holds either all of the old bytes or all of the new ones, and no temp file
is left behind. A temp file a killed process left (``kill -9`` between its creation and the
replace) is removed by the next write to that folder once it is STALE_TEMP_SECONDS old; only
vaultmem's own temp names are touched.
"""

from __future__ import annotations

import contextlib
import os
import re
import time
from collections.abc import Callable
from pathlib import Path

from vaultmem.notes.lazyre import lazy

TEMP_SUFFIX = ".vmtmp"
NEW_FILE_MODE = 0o644
# Older than any write in progress could make it (a write takes milliseconds; a slow fsync,
# seconds): only a process that died leaves one this old.
STALE_TEMP_SECONDS = 15.0
# The temp files' names (mkstemp's, before): "." + the destination's name + "." + 8 random characters + the suffix.
_TEMP_NAME = lazy(r"\..+\.[a-z0-9_]{8}" + re.escape(TEMP_SUFFIX))


def is_temp_name(name: str) -> bool:
    """Whether ``name`` is one of vaultmem's atomic-write temp files."""
    return _TEMP_NAME.fullmatch(name) is not None


def stale_temp_files(folder: Path, now: float | None = None) -> list[Path]:
    """vaultmem's temp files in ``folder`` older than STALE_TEMP_SECONDS (left by a killed write)."""
    now = time.time() if now is None else now
    found: list[Path] = []
    try:
        with os.scandir(folder) as entries:
            for entry in entries:
                if not entry.name.endswith(TEMP_SUFFIX) or not is_temp_name(entry.name):
                    continue
                with contextlib.suppress(OSError):
                    if entry.is_file(follow_symlinks=False) and (
                        now - entry.stat(follow_symlinks=False).st_mtime > STALE_TEMP_SECONDS
                    ):
                        found.append(Path(entry.path))
    except OSError:
        return []
    return found


def _umask() -> int:
    # The only portable way to read the umask is to set it and put it back.
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def fsync_dir(folder: Path) -> None:
    """fsync a folder so a rename in it is durable (quietly skipped where refused)."""
    # Some filesystems refuse to fsync a directory; the rename has happened by then, so there
    # is nothing to undo and nothing to report.
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _temp_file(dest: Path) -> tuple[int, str]:
    """A new hidden temp file beside ``dest`` (mode 0o600, as ``tempfile.mkstemp`` makes it):
    opened here, so a hook does not import ``tempfile`` (and with it ``shutil``, ``bz2``,
    ``lzma``) for one call."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(
        os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
    while True:
        # The name mkstemp gave (8 characters: see _TEMP_NAME), so older temp files still match.
        tmp = os.path.join(dest.parent, f".{dest.name}.{os.urandom(4).hex()}{TEMP_SUFFIX}")
        try:
            return os.open(tmp, flags, 0o600), tmp
        except FileExistsError:
            continue  # taken already: draw again


def replace_file(
    dest: Path,
    data: bytes,
    mode: int | None = None,
    *,
    before_replace: Callable[[], None] | None = None,
) -> None:
    """Write ``data`` to ``dest`` atomically; OSError when it cannot be done (dest untouched).

    ``mode``: the new file's permission bits (None: 0o644 less the umask, as a new file gets).
    ``before_replace``: called after the temp file is durable and right before the replace;
    whatever it raises stops the write (the temp file is removed)."""
    if mode is None:
        mode = NEW_FILE_MODE & ~_umask()
    fd, tmp = _temp_file(dest)
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(tmp, mode)
        if before_replace is not None:
            before_replace()
        os.replace(tmp, dest)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    fsync_dir(dest.parent)
    for stale in stale_temp_files(dest.parent):
        with contextlib.suppress(OSError):
            os.unlink(stale)
