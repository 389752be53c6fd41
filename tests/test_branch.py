"""branch.py: the files the current git branch changed, from a real repository made with git."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from vaultmem.store import branch

pytestmark = pytest.mark.skipif(
    subprocess.run(["git", "--version"], capture_output=True, check=False).returncode != 0,
    reason="git is not installed",
)


def _git(repo: Path, *args: str) -> str:
    env = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.com",
               GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@example.com")
    proc = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True,
                          env=env, check=True)
    return proc.stdout


def _write(repo: Path, rel: str, text: str = "x\n") -> None:
    path = repo / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "shop"
    root.mkdir()
    _git(root, "init", "-q", "-b", "main")
    for rel in ("src/auth/tokens.py", "src/billing/webhook.py", "README.md"):
        _write(root, rel)
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "start")
    return root


def _changed(cwd: Path) -> tuple[Path, tuple[str, ...]] | None:
    return branch.changed_files(cwd)


def test_a_feature_branch_lists_its_commits_and_uncommitted_changes(repo: Path) -> None:
    _git(repo, "checkout", "-q", "-b", "feat/refunds")
    _write(repo, "src/billing/refunds.py")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "refunds")
    _write(repo, "src/api/routes.py")  # untracked: not in git's diff
    _write(repo, "src/auth/tokens.py", "changed\n")  # uncommitted change of a tracked file
    # main moves on meanwhile: its new files are not the branch's changes.
    _git(repo, "checkout", "-q", "main")
    _write(repo, "src/db/pool.py")
    _git(repo, "add", "src/db/pool.py")
    _git(repo, "commit", "-q", "-m", "db")
    _git(repo, "checkout", "-q", "feat/refunds")
    got = _changed(repo / "src" / "billing")  # from a subfolder too
    assert got is not None
    root, paths = got
    assert root == repo
    assert sorted(paths) == ["src/auth/tokens.py", "src/billing/refunds.py"]


def test_on_the_default_branch_only_uncommitted_changes_count(repo: Path) -> None:
    assert _changed(repo) == (repo, ())
    _write(repo, "src/auth/tokens.py", "changed\n")
    assert _changed(repo) == (repo, ("src/auth/tokens.py",))


def test_origin_head_names_the_default_branch(repo: Path) -> None:
    _git(repo, "branch", "-q", "trunkish")
    _git(repo, "update-ref", "refs/remotes/origin/trunkish", "HEAD")
    _git(repo, "symbolic-ref", "refs/remotes/origin/HEAD", "refs/remotes/origin/trunkish")
    assert branch.default_branch(repo / ".git") == "origin/trunkish"
    _git(repo, "pack-refs", "--all")
    (repo / ".git/refs/remotes/origin/HEAD").unlink(missing_ok=True)
    assert branch.default_branch(repo / ".git") == "main"  # from packed-refs


def test_a_worktree_finds_its_common_dir(repo: Path, tmp_path: Path) -> None:
    other = tmp_path / "wt"
    _git(repo, "worktree", "add", "-q", "-b", "feat/x", str(other))
    _write(other, "src/auth/login.py")
    _git(other, "add", "-A")
    _git(other, "commit", "-q", "-m", "login")
    assert _changed(other) == (other, ("src/auth/login.py",))


def test_outside_a_checkout_or_with_a_broken_one_nothing_is_known(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    assert _changed(plain) is None and branch.changed_files(None) is None
    broken = tmp_path / "broken"
    (broken / ".git").mkdir(parents=True)
    assert _changed(broken) is None  # git refuses it: no error, no changes
    odd = tmp_path / "odd"
    odd.mkdir()
    (odd / ".git").write_text("not a gitdir line\n")
    assert _changed(odd) is None


def test_the_branch_s_components_lead_the_briefing(repo: Path, vault_root: Path) -> None:
    import shutil

    from conftest import FIXTURES

    from vaultmem.brief import briefing
    from vaultmem.store.config import Config
    from vaultmem.store.vault import Vault

    shutil.copytree(FIXTURES / "briefing", vault_root, dirs_exist_ok=True)
    config = Config(vault=vault_root, project="shop")
    _git(repo, "checkout", "-q", "-b", "fix/cart")
    _write(repo, "src/checkout/cart.ts")
    _write(repo, "src/checkout/checkout.ts")
    _write(repo, "src/auth/tokens.py", "changed\n")
    _git(repo, "add", "-A")
    assert briefing.branch_components(repo, config) == ["Checkout", "Auth"]
    text = briefing.build(Vault(vault_root), config, cwd=repo)
    comps = text[text.index("Components relevant now"):]
    # Checkout: nothing touched it for weeks, but this branch changes it.
    assert comps.index("[[Checkout]] — changed on this branch") < comps.index("[[Billing]]")
    assert "[[Auth]] — changed on this branch; touched 2026-11-18" in comps
    # [components] in config.toml decides the names.
    ruled = Config(vault=vault_root, project="shop", components={"src/checkout/**": "Web UI"})
    assert briefing.branch_components(repo, ruled) == ["Web UI", "Auth"]
    # Outside a checkout: the recent sessions alone decide.
    assert briefing.branch_components(vault_root, config) == []
