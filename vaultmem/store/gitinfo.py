"""The branch and HEAD commit of a working directory, read from ``.git`` files directly.

Hooks must never wait on git: no subprocess, a few small bounded reads (``.git`` or its
``gitdir:`` file, ``HEAD``, the ref file or ``packed-refs``). Anything unexpected (no
repository, an unreadable file, a layout this does not know) gives None or leaves a field None.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from vaultmem.notes.lazyre import lazy
from vaultmem.store.gitdirs import MAX_READ, git_dirs, read_small

__all__ = ["MAX_READ", "GitInfo", "git_dirs", "read", "read_small"]
_SHA = lazy(r"[0-9a-f]{40}(?:[0-9a-f]{24})?")


@dataclass(frozen=True)
class GitInfo:
    """What a session note records about the checkout it ran in."""

    branch: str | None  # None when HEAD is detached
    head: str | None  # the commit HEAD points at; None before the first commit


def read(cwd: str | os.PathLike[str]) -> GitInfo | None:
    """The checkout's branch and HEAD commit, or None when ``cwd`` is in no git checkout."""
    found = git_dirs(Path(cwd))
    if found is None:
        return None
    _, gitdir, common = found
    head = read_small(gitdir / "HEAD")
    if _SHA.fullmatch(head):
        return GitInfo(None, head)
    if not head.startswith("ref:"):
        return None
    ref = head[4:].strip()
    branch = ref.removeprefix("refs/heads/") if ref.startswith("refs/heads/") else None
    return GitInfo(branch, _resolve((gitdir, common), ref))


def _resolve(dirs: tuple[Path, Path], ref: str) -> str | None:
    if ".." in ref.split("/"):
        return None
    for base in dict.fromkeys(dirs):
        value = read_small(base / ref)
        if _SHA.fullmatch(value):
            return value
    for base in dict.fromkeys(dirs):
        for line in read_small(base / "packed-refs").splitlines():
            sha, _, name = line.partition(" ")
            if name.strip() == ref and _SHA.fullmatch(sha):
                return sha
    return None
