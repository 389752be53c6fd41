"""Where a checkout's git folders are, read from ``.git`` files directly (no git process).

Hooks must never wait on git, and a ``git rev-parse`` costs a process start on every hook: the
work tree root, the git dir and the common dir (a worktree's ``commondir``, a submodule's own
folder) are found by a few small bounded reads. A layout this does not know gives None.
"""

from __future__ import annotations

from pathlib import Path

MAX_READ = 1 << 20  # bytes read of any one file (packed-refs can be long)


def git_dirs(cwd: Path) -> tuple[Path, Path, Path] | None:
    """(work tree root, git dir, common dir) of the checkout holding ``cwd``; None outside one."""
    if not cwd.is_absolute():  # hooks give absolute paths; a relative one names nothing
        return None
    for folder in (cwd, *cwd.parents):
        dot = folder / ".git"
        if dot.is_dir():
            return folder, dot, dot
        if dot.is_file():  # a worktree or submodule: "gitdir: <path>"
            line = read_small(dot)
            if not line.startswith("gitdir:"):
                return None
            gitdir = (folder / line[len("gitdir:"):].strip()).resolve()
            common = read_small(gitdir / "commondir")
            return folder, gitdir, (gitdir / common).resolve() if common else gitdir
    return None


def read_small(path: Path) -> str:
    """A small file under ``.git``, stripped; "" when it is missing, unreadable or not a regular
    file (a FIFO or device put there would block or never end)."""
    try:
        if not path.is_file():
            return ""
        with open(path, "rb") as handle:
            return handle.read(MAX_READ).decode("utf-8", errors="replace").strip()
    except OSError:
        return ""
