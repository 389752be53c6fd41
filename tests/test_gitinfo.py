"""gitinfo.py: branch and HEAD read from .git files, checked against git itself."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from vaultmem.store import gitinfo

GIT_ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@x", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@x", "GIT_CONFIG_GLOBAL": "/dev/null"}


def git(cwd: Path, *args: str) -> str:
    out = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True,
                         env={**os.environ, **GIT_ENV})
    return out.stdout.strip()


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "shop"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    (root / "a.txt").write_text("a")
    git(root, "add", "a.txt")
    git(root, "commit", "-q", "-m", "first")
    return root


def test_branch_and_head_match_git(repo: Path) -> None:
    (repo / "src" / "auth").mkdir(parents=True)
    info = gitinfo.read(repo / "src" / "auth")  # from a sub-folder
    assert info == gitinfo.GitInfo("main", git(repo, "rev-parse", "HEAD"))


def test_packed_refs_detached_head_and_worktrees(repo: Path, tmp_path: Path) -> None:
    head = git(repo, "rev-parse", "HEAD")
    git(repo, "pack-refs", "--all")
    assert not (repo / ".git/refs/heads/main").exists()
    assert gitinfo.read(repo) == gitinfo.GitInfo("main", head)
    git(repo, "worktree", "add", "-q", "-b", "feature", str(tmp_path / "wt"))
    assert gitinfo.read(tmp_path / "wt") == gitinfo.GitInfo("feature", head)
    git(repo, "checkout", "-q", "--detach")
    assert gitinfo.read(repo) == gitinfo.GitInfo(None, head)


def test_a_repository_without_commits_has_a_branch_and_no_head(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q", "-b", "trunk")
    assert gitinfo.read(tmp_path) == gitinfo.GitInfo("trunk", None)


def test_no_repository_or_junk_is_none(tmp_path: Path) -> None:
    assert gitinfo.read(tmp_path / "missing") is None
    assert gitinfo.read("relative/path") is None
    (tmp_path / "odd").mkdir()
    (tmp_path / "odd" / ".git").write_text("not a gitdir line\n")
    assert gitinfo.read(tmp_path / "odd") is None
    (tmp_path / "fifo").mkdir()
    os.mkdir(tmp_path / "fifo" / ".git")
    os.mkfifo(tmp_path / "fifo" / ".git" / "HEAD")  # a read would block: never opened
    assert gitinfo.read(tmp_path / "fifo") is None
    assert gitinfo.read("/bad\0path") is None
