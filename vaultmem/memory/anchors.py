"""Decisions and gotchas anchored to code: the files a turn touched, their content, the commit.

An anchor is an Obsidian comment (hidden in reading view, one line, merged by git like any text)
at the end of an item's text, before its trailing link group:

    - 2026-03-02 — Tokens expire after 15 minutes %%vm-anchor src/auth/tokens.py@1a2b3c4d5e6f commit 9f8e7d6%% ([[…|s]]) ^vm-…

Each file is ``<path>@<hash>``: the path relative to the repository root (the working directory
outside git; spaces and ``%`` percent-encoded), the first 12 hex digits of the git blob id of its
content (``git hash-object``'s sha1 of ``blob <size>\\0<bytes>``, computed here, so the same
hash inside and outside git), ``-`` for a file that did not exist. ``commit`` is HEAD when the
hashes were taken (absent outside git or before the first commit). The anchor is never part of a
fact's identity (``entityparse.fact_key`` strips it), so re-anchoring keeps the block id.

A retired item is struck through (``~~text~~``): kept in the note, out of the briefing.

Pure core (parse, render, compare) + a thin shell (``repo``, ``hashes``) that reads files and
runs one ``git rev-parse`` (capture) or none (the SessionStart check). Capture anchors a story's
items with ``anchors_of`` and SessionEnd re-takes a note's anchors with ``reanchor_note``.
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import quote, unquote

from vaultmem.errors import GitError
from vaultmem.store import git

if TYPE_CHECKING:
    from vaultmem.store.vault import Vault

ANCHOR = re.compile(r"\s*%%vm-anchor ([^\n]*?)%%")
HASH_CHARS = 12
MISSING = "-"
GIT_TIMEOUT_S = 1.0
CHECK_BUDGET_S = 0.5  # SessionStart: files not hashed in this time are not flagged
MAX_FILES = 8  # per item: a turn that touched more anchors its first eight
MAX_FILE_BYTES = 16 * 2**20  # a larger file is not hashed (not anchored, never flagged)


@dataclass(frozen=True)
class Anchor:
    """The files an item was mined next to, their content hashes, and HEAD then."""

    files: tuple[tuple[str, str], ...]  # (path relative to the root, hash or MISSING)
    commit: str = ""

    def render(self) -> str:
        """``%%vm-anchor a.py@1a2b3c4d5e6f b.py@- commit 9f8e7d6%%``."""
        parts = [f"{quote(path, safe='/')}@{digest}" for path, digest in self.files]
        if self.commit:
            parts += ["commit", self.commit]
        return "%%vm-anchor " + " ".join(parts) + "%%"


@dataclass(frozen=True)
class Repo:
    """Where anchored paths are relative to, and HEAD ("" outside git or with no commit)."""

    root: Path
    head: str = ""
    git: bool = False


def parse(text: str) -> Anchor | None:
    """The first anchor in ``text`` (None when there is none or it says nothing)."""
    found = ANCHOR.search(text)
    if not found:
        return None
    words = found.group(1).split()
    files: list[tuple[str, str]] = []
    commit = ""
    n = 0
    while n < len(words):
        if words[n] == "commit" and n + 1 < len(words):
            commit = words[n + 1]
            n += 2
            continue
        path, at, digest = words[n].rpartition("@")
        if at and path and digest:
            files.append((unquote(path), digest))
        n += 1
    return Anchor(tuple(files), commit) if files else None


def strip(text: str) -> str:
    """``text`` without its anchor comments."""
    return ANCHOR.sub("", text) if "%%vm-anchor" in text else text


def split(text: str) -> tuple[str, str]:
    """(text without anchors, the first anchor's comment or "")."""
    found = ANCHOR.search(text)
    return (strip(text), found.group(0).strip()) if found else (text, "")


def is_retired(text: str) -> bool:
    """A line a person retired: its text struck through whole."""
    body = strip(text).strip()
    return len(body) > 4 and body.startswith("~~") and body.endswith("~~")


def retire(text: str) -> str:
    """``text`` struck through (its anchor stays, outside the strike)."""
    body, comment = split(text)
    if is_retired(body):
        return text
    return f"~~{body.strip()}~~" + (f" {comment}" if comment else "")


def blob_hash(data: bytes) -> str:
    """The git blob id of ``data`` (as ``git hash-object --no-filters``), cut to HASH_CHARS."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()[:HASH_CHARS]


def changed(anchor: Anchor, now: Mapping[str, str]) -> tuple[str, ...]:
    """The anchored files whose hash in ``now`` differs (a file ``now`` lacks was not checked)."""
    return tuple(path for path, digest in anchor.files if path in now and now[path] != digest)


def mark(text: str, anchor: Anchor, files: Sequence[str]) -> str:
    """``text (changed since <commit>: <file>, …)`` — what the briefing shows for a flagged item."""
    since = f"since {anchor.commit[:7]}" if anchor.commit else "since anchored"
    return f"{text} (changed {since}: {', '.join(files)})"


def relative(path: str, repo: Repo, cwd: str | None) -> str | None:
    """``path`` (absolute, or relative to ``cwd``) relative to the repository root; None outside."""
    full = Path(path) if os.path.isabs(path) else Path(cwd or repo.root) / path
    try:
        return Path(os.path.realpath(full)).relative_to(os.path.realpath(repo.root)).as_posix()
    except ValueError:
        return None


# -- shell ------------------------------------------------------------------------------------


def repo(cwd: str | Path | None) -> Repo | None:
    """The git work tree holding ``cwd`` and its HEAD (one ``git rev-parse``, bounded); outside
    git the folder itself; None when ``cwd`` is unknown or gone."""
    if not cwd or not os.path.isdir(cwd):
        return None
    try:
        done = git.run(["rev-parse", "--show-toplevel", "--verify", "-q", "HEAD"], cwd,
                       timeout=GIT_TIMEOUT_S, check=False)
    except GitError:
        return Repo(Path(os.path.realpath(cwd)))
    lines = done.out.split("\n")
    if not lines[0].strip():
        return Repo(Path(os.path.realpath(cwd)))
    head = lines[1].strip() if done.ok and len(lines) > 1 else ""
    return Repo(Path(lines[0].strip()), head[:7], git=True)


def work_tree(cwd: str | Path | None) -> Path | None:
    """The git work tree holding ``cwd``, found by its ``.git`` (a folder, or a file in a linked
    worktree or submodule) without running git; None outside git."""
    if not cwd:
        return None
    here = Path(os.path.abspath(cwd))
    for folder in (here, *here.parents):
        if os.path.exists(folder / ".git"):
            return folder
    return None


def hashes(root: Path, paths: Iterable[str], *, budget_s: float | None = None) -> dict[str, str]:
    """Path -> blob hash of the files now (MISSING for one that is gone), within ``budget_s``:
    the paths not reached in time are left out (so they are not reported as changed)."""
    deadline = None if budget_s is None else time.monotonic() + budget_s
    out: dict[str, str] = {}
    for path in paths:
        if path in out:
            continue
        if deadline is not None and time.monotonic() > deadline:
            break
        digest = _hash_file(root, path)
        if digest is not None:
            out[path] = digest
    return out


def _hash_file(root: Path, path: str) -> str | None:
    # A note's anchor is vault text (a person, a teammate's sync): only a regular file under
    # the root, of a bounded size, is read — never /dev/zero, a FIFO or ../../ elsewhere.
    # The real path too: a symlink the repository holds (sysroot -> /) must not take the read
    # out of the work tree (to ~/.ssh/id_ed25519).
    if os.path.isabs(path) or ".." in path.split("/"):
        return None
    real = os.path.realpath(root / path)
    base = os.path.realpath(root)
    if os.path.commonpath([real, base]) != base:
        return None
    try:
        st = os.stat(real)
    except FileNotFoundError:
        return MISSING
    except OSError:
        return None
    if not stat.S_ISREG(st.st_mode) or st.st_size > MAX_FILE_BYTES:
        return None
    try:
        return blob_hash(Path(real).read_bytes())
    except OSError:
        return None


def anchor_for(paths: Sequence[str], repo_: Repo, cwd: str | None) -> Anchor | None:
    """The anchor of files touched (absolute or relative to ``cwd``): their content now, HEAD."""
    rels: list[str] = []
    for path in paths:
        rel = relative(path, repo_, cwd)
        if rel and rel not in rels and ".." not in rel.split("/"):
            rels.append(rel)
    rels = rels[:MAX_FILES]
    if not rels:
        return None
    now = hashes(repo_.root, rels)
    return Anchor(tuple((rel, now.get(rel, MISSING)) for rel in rels), repo_.head)


def reanchor(text: str, repo_: Repo) -> str:
    """Every anchor in ``text`` re-taken: the files' content now and HEAD now (pure but for the
    reads). SessionEnd runs it on the session note, so the session's own later edits are in."""
    if "%%vm-anchor" not in text:
        return text

    def redo(found: re.Match[str]) -> str:
        old = parse(found.group(0))
        if old is None:
            return found.group(0)
        now = hashes(repo_.root, [p for p, _ in old.files])
        new = Anchor(tuple((p, now.get(p, d)) for p, d in old.files), repo_.head or old.commit)
        lead = found.group(0)[: len(found.group(0)) - len(found.group(0).lstrip())]
        return lead + new.render()

    return ANCHOR.sub(redo, text)


def anchors_of(files: Sequence[Sequence[str]], cwd: str | None) -> list[str | None] | None:
    """The rendered anchor of each group of ``files`` (None for a group that anchors nothing);
    None when no group has a file or ``cwd`` is in no repository."""
    if not any(files):
        return None
    repo_ = repo(cwd)
    if repo_ is None:
        return None
    found: list[str | None] = []
    for paths in files:
        anchor = anchor_for(paths, repo_, cwd) if paths else None
        found.append(anchor.render() if anchor else None)
    return found


def reanchor_note(vault: Vault, note: str, cwd: str | None) -> None:
    """The note's anchors re-taken, so they hold the content of the files now."""
    repo_ = repo(cwd)
    if repo_ is None:
        return
    from vaultmem.notes import patch  # the edit types: a briefing reads anchors, writes none

    vault.update(note, [patch.Rewrite(lambda text: reanchor(text, repo_))],
                 label="vaultmem anchors")
