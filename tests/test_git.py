"""store/git.py: every git command runs through one function with one error."""

from __future__ import annotations

import ast
import shutil
from pathlib import Path

import pytest

from vaultmem.errors import GitError, VaultmemError
from vaultmem.store import git

PACKAGE = Path(git.__file__).resolve().parents[1]
needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def _argv_of_git(path: Path) -> list[int]:
    """Lines where a list or tuple literal starts with "git" (an argv)."""
    tree = ast.parse(path.read_text("utf-8"))
    return [node.lineno for node in ast.walk(tree)
            if isinstance(node, (ast.List, ast.Tuple)) and node.elts
            and isinstance(node.elts[0], ast.Constant) and node.elts[0].value == "git"]


def test_no_module_but_store_git_runs_git() -> None:
    found = [f"{p.relative_to(PACKAGE)}:{line}" for p in sorted(PACKAGE.rglob("*.py"))
             if p.name != "git.py" or p.parent.name != "store" for line in _argv_of_git(p)]
    assert found == []


def test_the_grep_finds_an_argv(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text('import subprocess\nsubprocess.run(["git", "status"])\n', "utf-8")
    assert _argv_of_git(module) == [2]


@needs_git
def test_a_command_gives_its_output(tmp_path: Path) -> None:
    git.run(["init", "-q"], tmp_path)
    done = git.run(["rev-parse", "--show-toplevel"], tmp_path)
    assert done.ok and Path(done.out.strip()).resolve() == tmp_path.resolve()


@needs_git
def test_input_goes_to_git(tmp_path: Path) -> None:
    git.run(["init", "-q"], tmp_path)
    done = git.run(["hash-object", "--stdin"], tmp_path, stdin=b"hello\n")
    assert done.out.strip() == "ce013625030ba8dba906f756967f9e9ca394464a"


@needs_git
def test_a_failure_is_one_git_error_with_git_s_first_line(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path.parent))
    with pytest.raises(GitError) as caught:
        git.run(["log"], tmp_path)
    assert isinstance(caught.value, VaultmemError)
    assert caught.value.message.startswith("git log: fatal: not a git repository")
    assert caught.value.path == str(tmp_path)


@needs_git
def test_unchecked_a_failure_is_its_exit_code(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path.parent))
    done = git.run(["log"], tmp_path, check=False)
    assert not done.ok and done.code == 128 and b"not a git repository" in done.err


def test_git_missing_is_a_git_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(GitError, match="git is not installed"):
        git.run(["status"], tmp_path)


def test_the_command_is_named_past_git_s_own_options() -> None:
    assert git.command(["-C", "x", "--no-optional-locks", "diff", "-z"]) == "diff"
    assert git.command(["-c", "user.name=a", "commit", "-m", "x"]) == "commit"
