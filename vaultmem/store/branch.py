"""The files the current git branch changed: what the briefing maps to components. Shell.

Cheap and bounded: the repository and its default branch are found by reading a few files under
``.git`` (no subprocess when the folder is not a checkout), then one ``git diff --name-only``
with a short timeout. Any trouble means "no changes known", never an error.
"""

from __future__ import annotations

from pathlib import Path

from vaultmem.errors import GitError
from vaultmem.store import git

from .gitinfo import git_dirs, read_small

TIMEOUT_S = 0.5
MAX_FILES = 2000
DEFAULTS = ("main", "master", "trunk", "develop")


def _has_ref(common: Path, ref: str) -> bool:
    if (common / ref).is_file():
        return True
    return any(line.endswith(" " + ref) for line in read_small(common / "packed-refs").splitlines())


def default_branch(common: Path) -> str | None:
    """The branch work merges into: origin's HEAD, else the first of DEFAULTS that exists."""
    origin = read_small(common / "refs/remotes/origin/HEAD")
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
    head = read_small(gitdir / "HEAD")
    on_default = base is None or head in (f"ref: refs/heads/{base}",
                                          f"ref: refs/heads/{base.split('/', 1)[-1]}")
    # --no-optional-locks: comparing with the work tree must not take the index lock a person's
    # own git command may be waiting for.
    args = ["--no-optional-locks", "diff", "--name-only", "--no-renames", "--no-ext-diff", "-z"]
    args += ["HEAD"] if on_default else ["--merge-base", str(base)]
    try:
        done = git.run(args, root, timeout=TIMEOUT_S)
    except GitError:
        return None
    names = done.out.split("\0")
    return root, tuple(n for n in names[:MAX_FILES] if n)
