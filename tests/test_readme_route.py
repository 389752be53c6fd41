"""README's "Connect your Obsidian vault" steps 1 and 2, run as written by a new user: the
virtual-environment route of step 1 in an empty home, then step 2's `vaultmem … init` from a new
shell whose PATH is a login shell's (``~/.local/bin`` first, no venv activated)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hook_kit import REPO

# pip's own words when the package index cannot be reached (then the route cannot be tried here).
_OFFLINE = ("No matching distribution", "Could not find a version", "NewConnectionError",
            "Temporary failure in name resolution", "Network is unreachable")


def _readme_step(number: int) -> str:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    step = readme.split(f"\n{number}. **", 1)[1].split(f"\n{number + 1}. **", 1)[0]
    return step


def _venv_route() -> str:
    block = _readme_step(1).split("```bash\n", 1)[1].split("```", 1)[0]
    (command,) = [line.strip() for line in block.splitlines() if line.strip()]
    return command


def _init_command() -> str:
    found = re.search(r"`(vaultmem --vault [^`]+ init)`", _readme_step(2))
    assert found, "README step 2 names no `vaultmem --vault … init` command"
    return found.group(1)


def _shell(command: str, *, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["/bin/sh", "-c", command], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=600, check=False)


def test_the_venv_route_leaves_vaultmem_on_path_for_step_two(tmp_path: Path) -> None:
    home, clone, project = tmp_path / "home", tmp_path / "vaultmem", tmp_path / "shop"
    home.mkdir()
    project.mkdir()
    shutil.copytree(REPO, clone, ignore=shutil.ignore_patterns(
        ".venv", ".git", "*.egg-info", "build", "__pycache__", ".pytest_cache", ".hypothesis"))
    keep = {k: v for k, v in os.environ.items()
            if not k.startswith(("VIRTUAL_ENV", "PYTHON", "VAULTMEM", "XDG_"))}
    # Dependencies come from this test run's site-packages (below), so nothing but the build
    # backend is fetched; the venv's python3 is the one running the tests.
    env = {**keep, "HOME": str(home), "PIP_NO_DEPS": "1", "PIP_DISABLE_PIP_VERSION_CHECK": "1",
           "PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin"}

    installed = _shell(_venv_route(), cwd=clone, env=env)

    if installed.returncode != 0 and any(word in installed.stderr for word in _OFFLINE):
        pytest.skip("the package index is out of reach: " + installed.stderr.strip()[-200:])
    assert installed.returncode == 0, installed.stderr
    link = home / ".local/bin/vaultmem"
    assert link.is_symlink() and os.access(link, os.X_OK)
    (site,) = (home / ".venvs/vaultmem/lib").glob("python*/site-packages")
    deps = [p for p in map(Path, sys.path) if p.name == "site-packages" and p.is_dir()]
    (site / "_test_deps.pth").write_text("".join(f"{p}\n" for p in deps))

    # A new terminal: a login shell's PATH, nothing activated.
    login = {**env, "PATH": f"{home}/.local/bin:/usr/bin:/bin"}
    found = _shell("command -v vaultmem", cwd=project, env=login)
    assert found.stdout.strip() == str(link)
    init = _shell(_init_command(), cwd=project, env=login)

    assert init.returncode == 0, init.stderr
    vault = home / "Obsidian/Main"
    assert (vault / "claude/projects/shop/_index.md").is_file()
    assert (home / ".config/vaultmem/config.toml").read_text() == f'vault = "{vault}"\n'
