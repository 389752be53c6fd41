"""Secrets and a vault shared through git: a pre-commit check, and secrets already pushed.

- ``vaultmem init --git`` installs a ``pre-commit`` hook in the vault's repository that runs
  ``vaultmem check-staged``: the lines a commit adds are scanned (redact.find, with the config's
  allowlist) and a secret refuses the commit, one line per secret naming ``file:line`` and its
  kind, never the value. A hook that is not vaultmem's is left alone (the user is told the line to
  add to it).
- A secret found in a note may already be in the history others have: ``pushed`` says which
  notes' secrets are in a blob reachable from a remote-tracking ref. Redacting the note does not
  change that history: the secret must be rotated.
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from vaultmem.errors import GitError
from vaultmem.memory.gitshare import in_git_repo
from vaultmem.notes import redact
from vaultmem.store import git
from vaultmem.store.atomic import replace_file

__all__ = ["HookSetup", "StagedSecret", "in_git_repo", "install_hook", "pushed", "staged_secrets"]

HOOK_MARK = "# vaultmem: refuse a staged secret"
STAGED_MAX_BYTES = 1 << 20  # a staged file larger than this is not text a person wrote
_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,\d+)? @@")


@dataclass(frozen=True)
class StagedSecret:
    """A secret on a line a commit adds: where, and its kind (never its value)."""

    rel: str  # repository-relative path
    line: int  # 1-based, in the staged file
    kind: str

    def __str__(self) -> str:
        return (f"{self.rel}:{self.line}: a {self.kind} secret is staged (value withheld): "
                "remove it and stage again (not a secret? list it in [redact] allow); commit refused")


@dataclass(frozen=True)
class HookSetup:
    """What installing a git hook did."""

    path: Path
    status: str  # "written", "unchanged" or "foreign" (another hook there: not touched)
    line: str = "check-staged || exit 1"  # what the hook runs, after the program
    purpose: str = "refuses a staged secret"

    def message(self, program: Sequence[str]) -> str:
        """One line for the person."""
        if self.status == "foreign":
            return (f"git: {self.path} is not vaultmem's: add `{shlex.join(program)} "
                    f"{self.line}` to it so that it {self.purpose}")
        return (f"git: {self.path.name} hook {self.purpose} ({self.path})"
                + ("" if self.status == "written" else " (already there)"))


def install_hook(vault_root: Path, program: Sequence[str], *, hook: str = "pre-commit",
                 mark: str = HOOK_MARK, args: Sequence[str] = ("check-staged",),
                 purpose: str = "refuses a staged secret") -> HookSetup:
    """Write the repository's ``hook`` (``core.hooksPath`` respected) running ``program``
    with ``args``; a hook that is not vaultmem's is left as it is."""
    where = git.run(["rev-parse", "--git-path", f"hooks/{hook}"], vault_root).out.strip()
    path = Path(where) if os.path.isabs(where) else vault_root / where
    command = shlex.join([*program, *args])
    script = f"#!/bin/sh\n{mark} (vaultmem init --git)\nexec {command}\n"
    shown = shlex.join(args) + (" || exit 1" if hook == "pre-commit" else "")
    if path.is_symlink() or path.exists():
        try:
            current = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return HookSetup(path, "foreign", shown, purpose)
        if mark not in current or path.is_symlink():
            return HookSetup(path, "foreign", shown, purpose)
        if current == script:
            return HookSetup(path, "unchanged", shown, purpose)
    path.parent.mkdir(parents=True, exist_ok=True)
    replace_file(path, script.encode("utf-8"), 0o755)
    return HookSetup(path, "written", shown, purpose)


def staged_secrets(root: Path, allow: Sequence[str] = ()) -> list[StagedSecret]:
    """The secrets on the lines the staged changes add (the repository holding ``root``)."""
    top = Path(git.run(["rev-parse", "--show-toplevel"], root).out.strip())
    names = git.run(["diff", "--cached", "--name-only", "-z", "--diff-filter=ACMR"], top).out
    found: list[StagedSecret] = []
    for rel in (n for n in names.split("\0") if n):
        diff = git.run(["diff", "--cached", "-U0", "--no-color", "--no-ext-diff", "--", rel], top,
                       check=False).out
        if len(diff) > STAGED_MAX_BYTES or "\nBinary files " in diff:
            continue
        for start, lines in _added_runs(diff):
            text = "\n".join(lines)
            for f in redact.find(text, allow=allow):
                found.append(StagedSecret(rel, start + text.count("\n", 0, f.start), f.kind))
    return found


def _added_runs(diff: str) -> Iterator[tuple[int, list[str]]]:
    """(first line number, lines) of each run of added lines in a ``-U0`` diff."""
    number = 0
    run: list[str] = []
    start = 0
    for line in diff.splitlines():
        hunk = _HUNK.match(line)
        if hunk:
            if run:
                yield start, run
            run, number = [], int(hunk.group(1))
            start = number
        elif line.startswith("+") and not line.startswith("+++"):
            run.append(line[1:])
            number += 1
        elif run and not line.startswith("\\"):
            yield start, run
            run, start = [], number
    if run:
        yield start, run


def pushed(root: Path, notes: Iterable[tuple[str, str]]) -> dict[str, str]:
    """Of ``notes`` ((vault-relative path, a secret value in it)), those whose value is in a
    version of the note reachable from a remote-tracking ref: path -> the first such ref. Empty
    when the vault is not in a repository with remotes (or git is missing)."""
    wanted = list(notes)
    if not wanted:
        return {}
    try:
        refs = git.run(["for-each-ref", "--format=%(refname:short)", "refs/remotes"], root,
                       check=False).out.split()
        refs = [r for r in refs if not r.endswith("/HEAD")]
        if not refs:
            return {}
        prefix = git.run(["rev-parse", "--show-prefix"], root).out.strip()
    except GitError:
        return {}
    out: dict[str, str] = {}
    for rel, value in wanted:
        if rel in out:
            continue
        for ref in refs:
            if value.encode("utf-8") in b"".join(_versions(root, ref, prefix + rel)):
                out[rel] = ref
                break
    return out


def _versions(root: Path, ref: str, path: str) -> list[bytes]:
    """Every version of ``path`` reachable from ``ref`` (the blobs its commits wrote)."""
    log = git.run(["log", ref, "--format=", "--raw", "--no-abbrev", "--no-renames", "--", path],
                  root, check=False).out
    blobs = {fields[3] for fields in (line.split() for line in log.splitlines())
             if len(fields) >= 5 and set(fields[3]) != {"0"}}
    if not blobs:
        return []
    try:
        done = git.run(["cat-file", "--batch"], root, check=False,
                       stdin="".join(f"{b}\n" for b in sorted(blobs)).encode())
    except GitError:
        return []
    return [done.raw]
