"""The branch and HEAD commit of a working directory, read from ``.git`` files directly.

Hooks must never wait on git: no subprocess, a few small bounded reads (``.git`` or its
``gitdir:`` file, ``HEAD``, the ref file or ``packed-refs``). Anything unexpected (no
repository, an unreadable file, a layout this does not know) gives None or leaves a field None.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

MAX_DEPTH = 64  # folders walked up looking for .git
MAX_READ = 1 << 20  # bytes read of any one file (packed-refs can be long)
_SHA = re.compile(r"[0-9a-f]{40}(?:[0-9a-f]{24})?")


@dataclass(frozen=True)
class GitInfo:
    """What a session note records about the checkout it ran in."""

    branch: str | None  # None when HEAD is detached
    head: str | None  # the commit HEAD points at; None before the first commit


def read(cwd: str | os.PathLike[str]) -> GitInfo | None:
    """The checkout's branch and HEAD commit, or None when ``cwd`` is in no git checkout."""
    start = Path(cwd)
    if not start.is_absolute():  # hooks give absolute paths; a relative one names nothing
        return None
    try:
        gitdir = _gitdir(start)
        if gitdir is None:
            return None
        head = _read(gitdir / "HEAD").strip()
    except (OSError, ValueError):
        return None
    if _SHA.fullmatch(head):
        return GitInfo(None, head)
    if not head.startswith("ref:"):
        return None
    ref = head[4:].strip()
    branch = ref.removeprefix("refs/heads/") if ref.startswith("refs/heads/") else None
    return GitInfo(branch, _resolve(gitdir, ref))


def _gitdir(start: Path) -> Path | None:
    folder = start
    for _ in range(MAX_DEPTH):
        dot = folder / ".git"
        if dot.is_dir():
            return dot
        if dot.is_file():  # a worktree or submodule: "gitdir: <path>"
            text = _read(dot).strip()
            if not text.startswith("gitdir:"):
                return None
            target = Path(text[7:].strip())
            return target if target.is_absolute() else (folder / target)
        if folder.parent == folder:
            return None
        folder = folder.parent
    return None


def _resolve(gitdir: Path, ref: str) -> str | None:
    if ".." in ref.split("/"):
        return None
    dirs = [gitdir]
    try:
        common = _read(gitdir / "commondir").strip()
    except OSError:
        common = ""
    if common:
        dirs.append(Path(common) if Path(common).is_absolute() else gitdir / common)
    for base in dirs:
        try:
            value = _read(base / ref).strip()
        except OSError:
            continue
        if _SHA.fullmatch(value):
            return value
    for base in dirs:
        try:
            packed = _read(base / "packed-refs")
        except OSError:
            continue
        for line in packed.splitlines():
            sha, _, name = line.partition(" ")
            if name.strip() == ref and _SHA.fullmatch(sha):
                return sha
    return None


def _read(path: Path) -> str:
    if not path.is_file():  # a FIFO or device would block or never end
        raise OSError(f"not a regular file: {path}")
    with open(path, "rb") as handle:
        return handle.read(MAX_READ).decode("utf-8", errors="replace")

