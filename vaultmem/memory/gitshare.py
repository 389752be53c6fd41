"""A vault shared through git: the merge driver and its set-up (the shell around notemerge).

``vaultmem init --git`` writes ``.gitattributes`` in the vault, routing vaultmem's notes
(``<namespace>/**/*.md``) to the merge driver ``vaultmem``, registers that driver in the
repository's own config (``merge.vaultmem.driver``: git does not copy config on clone, so every
machine runs it once) and stops tracking whatever of ``.vaultmem/`` was committed before (the
files stay on disk). Git then calls ``vaultmem merge-driver %O %A %B %P`` for each note both
sides changed; the merged note replaces ``%A``.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from vaultmem.errors import GitError, UnsafePath
from vaultmem.memory.diff3 import NotMergeable
from vaultmem.memory.notemerge import DifferentSessions, merge_bytes
from vaultmem.store import git, safefs
from vaultmem.store.atomic import replace_file
from vaultmem.store.layout import STATE_DIR

DRIVER = "vaultmem"
DRIVER_NAME = "vaultmem note merge (notes, items and backlinks as sets)"
ATTRIBUTES = ".gitattributes"


@dataclass(frozen=True)
class GitSetup:
    """What ``init --git`` did (each part idempotent)."""

    repo: Path  # the repository's top folder
    attributes: Path
    attributes_written: bool
    config_written: bool
    untracked: int  # files of .vaultmem/ no longer tracked

    def to_dict(self) -> dict[str, object]:
        """JSON-ready."""
        return {"repo": str(self.repo), "attributes": str(self.attributes),
                "attributes_written": self.attributes_written,
                "config_written": self.config_written, "untracked": self.untracked}


@dataclass(frozen=True)
class DriverOutcome:
    """What the merge driver did: git's exit code and at most one line for stderr."""

    code: int
    message: str | None


def in_git_repo(folder: Path) -> bool:
    """Whether the folder is inside a git work tree (a ``.git`` here or above; no subprocess)."""
    folder = folder.resolve()
    return any((p / ".git").exists() for p in (folder, *folder.parents))


def attributes_line(namespace: str) -> str:
    """The ``.gitattributes`` line routing vaultmem's notes to the driver."""
    return f"{namespace}/**/*.md merge={DRIVER}"


def is_set_up(vault_root: Path, namespace: str) -> bool:
    """Whether the vault's ``.gitattributes`` routes its notes to the driver (no subprocess)."""
    try:
        text = safefs.read_bytes(vault_root / ATTRIBUTES, 1 << 20).decode("utf-8")
    except (OSError, UnicodeDecodeError, UnsafePath):
        return False
    return attributes_line(namespace) in text.splitlines()


def setup(vault_root: Path, namespace: str, program: Sequence[str]) -> GitSetup:
    """Route the vault's notes to the merge driver and register it (see the module docstring).

    ``program``: the argv that runs this vaultmem (an absolute path, so git finds it from any
    shell)."""
    repo = Path(git.run(["rev-parse", "--show-toplevel"], vault_root).out.strip())
    attributes = vault_root / ATTRIBUTES
    line = attributes_line(namespace)
    written = False
    # A cloned vault may hold .gitattributes as a symlink (to ~/.aws/credentials): its target
    # would be copied into the repository. safefs refuses a link or a FIFO with one line.
    try:
        exists = os.path.lexists(attributes)
        current = safefs.read_bytes(attributes).decode("utf-8") if exists else ""
    except (OSError, UnicodeDecodeError) as err:
        raise GitError(f"cannot read: {err}", path=str(attributes)) from None
    if line not in current.splitlines():
        text = current + ("\n" if current and not current.endswith("\n") else "")
        text += f"# vaultmem: notes merge with `vaultmem merge-driver` (vaultmem init --git)\n{line}\n"
        replace_file(attributes, text.encode("utf-8"), 0o644)
        written = True
    command = f"{shlex.join(program)} merge-driver %O %A %B %P"
    config_written = False
    for key, value in ((f"merge.{DRIVER}.name", DRIVER_NAME), (f"merge.{DRIVER}.driver", command)):
        got = git.run(["config", "--local", "--get", key], vault_root, check=False).out.strip()
        if got != value:
            git.run(["config", "--local", key, value], vault_root)
            config_written = True
    tracked = git.run(["ls-files", "-z", "--", STATE_DIR], vault_root).out.split("\0")
    tracked = [name for name in tracked if name]
    if tracked:
        git.run(["rm", "-r", "-q", "--cached", "--", STATE_DIR], vault_root)
    return GitSetup(repo, attributes, written, config_written, len(tracked))


def merge_driver(base: Path, ours: Path, theirs: Path, name: str | None = None) -> DriverOutcome:
    """Merge ``theirs`` into ``ours`` (git's %A) with ``base`` (%O): 0 when merged, git's own
    merge (conflict markers, non-zero) when a side is not a note this merge can read, 1 and
    ``ours`` untouched when the sides are two different sessions' notes."""
    shown = name or str(ours)
    try:
        data = [p.read_bytes() for p in (base, ours, theirs)]
    except OSError as err:
        return DriverOutcome(2, f"vaultmem merge-driver: {shown}: cannot read: {err.strerror}")
    try:
        merged, conflicts = merge_bytes(data[0], data[1], data[2], path=shown)
    except DifferentSessions as err:
        # Neither fused nor interleaved by git: this side's note stays, the conflict stays,
        # and the other session's note is one `git show` away.
        return DriverOutcome(1, f"vaultmem: {err}; this side's note is kept, save the other "
                                f"with `git show :3:{shown} > <new name>.md`, then `git add` both")
    except NotMergeable as err:
        return _fallback(base, ours, theirs, shown, err.message)
    except Exception as err:  # noqa: BLE001 - never lose a merge to a bug: git's merge instead
        return _fallback(base, ours, theirs, shown, f"{type(err).__name__}: {err}")
    if merged != data[1]:
        replace_file(ours, merged, os.stat(ours).st_mode & 0o7777)
    if conflicts:
        return DriverOutcome(0, f"vaultmem: {shown}: {conflicts} place(s) changed on both sides; "
                                "both versions kept in a [!conflict] callout")
    return DriverOutcome(0, None)


def _fallback(base: Path, ours: Path, theirs: Path, shown: str, why: str) -> DriverOutcome:
    try:
        done = git.run(["merge-file", "-L", "ours", "-L", "base", "-L", "theirs",
                        str(ours), str(base), str(theirs)], ".", check=False)
    except GitError as err:
        return DriverOutcome(2, f"vaultmem merge-driver: {shown}: {why}; {err}")
    code = min(done.code, 127) if done.code >= 0 else 2
    return DriverOutcome(code, f"vaultmem: {shown}: {why}; merged by git's own merge instead")
