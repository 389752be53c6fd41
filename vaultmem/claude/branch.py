"""The files the current git branch changed: what the briefing maps to components. Shell.

Cheap and bounded: the repository and its default branch are found by reading a few files under
``.git`` (no subprocess when the folder is not a checkout), then one ``git diff --name-only``
with a short timeout. Any trouble means "no changes known", never an error.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

TIMEOUT_S = 0.5
MAX_FILES = 2000
DEFAULTS = ("main", "master", "trunk", "develop")


MAX_READ = 1 << 20  # bytes of any one file under .git (packed-refs can be long)


def _read(path: Path) -> str:
    # Regular files only: a FIFO or device put there would block or never end.
    try:
        if not path.is_file():
            return ""
        with open(path, "rb") as handle:
            return handle.read(MAX_READ).decode("utf-8", errors="replace").strip()
    except OSError:
        return ""


def git_dirs(cwd: Path) -> tuple[Path, Path, Path] | None:
    """(work tree root, git dir, common dir) of the checkout holding ``cwd``; None outside one."""
    if not cwd.is_absolute():  # hooks give absolute paths; a relative one names nothing
        return None
    for folder in (cwd, *cwd.parents):
        dot = folder / ".git"
        if dot.is_dir():
            return folder, dot, dot
        if dot.is_file():  # a worktree or submodule: "gitdir: <path>"
            line = _read(dot)
            if not line.startswith("gitdir:"):
                return None
            gitdir = (folder / line[len("gitdir:"):].strip()).resolve()
            common = _read(gitdir / "commondir")
            return folder, gitdir, (gitdir / common).resolve() if common else gitdir
    return None


def _has_ref(common: Path, ref: str) -> bool:
    if (common / ref).is_file():
        return True
    return any(line.endswith(" " + ref) for line in _read(common / "packed-refs").splitlines())


def default_branch(common: Path) -> str | None:
    """The branch work merges into: origin's HEAD, else the first of DEFAULTS that exists."""
    origin = _read(common / "refs/remotes/origin/HEAD")
    if origin.startswith("ref: refs/remotes/"):
        return origin[len("ref: refs/remotes/"):]
    return next((b for b in DEFAULTS if _has_ref(common, f"refs/heads/{b}")), None)


def changed_files(cwd: Path | None) -> tuple[Path, tuple[str, ...]] | None:
    """(work tree root, paths relative to it) the current branch changed since it left the
    default branch, uncommitted changes included; on the default branch itself, the uncommitted
    ones. None outside a checkout or when git cannot say."""
    if cwd is None:
        return None
    found = git_dirs(cwd)
    if found is None:
        return None
    root, gitdir, common = found
    base = default_branch(common)
    head = _read(gitdir / "HEAD")
    on_default = base is None or head in (f"ref: refs/heads/{base}",
                                          f"ref: refs/heads/{base.split('/', 1)[-1]}")
    # --no-optional-locks: comparing with the work tree must not take the index lock a person's
    # own git command may be waiting for.
    args = ["git", "--no-optional-locks", "-C", str(root), "diff", "--name-only", "--no-renames",
            "--no-ext-diff", "-z"]
    args += ["HEAD"] if on_default else ["--merge-base", str(base)]
    try:
        proc = subprocess.run(args, capture_output=True, timeout=TIMEOUT_S, check=False,
                              stdin=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError):
        return None
    if proc.returncode != 0:
        return None
    names = proc.stdout.decode("utf-8", errors="replace").split("\0")
    return root, tuple(n for n in names[:MAX_FILES] if n)
