"""Attack (issue 23 §2): ``doctor`` and ``install-hooks --check`` executed a program a cloned
project ships — a hook command in its ``.claude/settings.json``, a ``vaultmem`` inside the clone,
``python -m vaultmem`` run from the clone (its own ``vaultmem/`` folder imported first). Checking
a hook never runs a program from the project or the vault; what is configured is looked at."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from hook_kit import REPO

from vaultmem.claude import install

PWNED = "pwned"


def _evil(path: Path, marker: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"#!/bin/sh\necho ran > '{marker}'\necho 'vaultmem 9'\n")
    path.chmod(0o755)
    return path


def _run(args: list[str], project: Path, home: Path, vault: Path) -> subprocess.CompletedProcess[str]:
    env = {"HOME": str(home), "PATH": "/usr/bin:/bin", "VAULTMEM_VAULT": str(vault),
           "PYTHONPATH": str(REPO)}
    # The console script, as a person runs it (python -m from the clone would import its copy).
    script = Path(sys.executable).parent / "vaultmem"
    return subprocess.run([str(script), *args], capture_output=True,
                          text=True, cwd=project, env=env, timeout=120, check=False)


@pytest.fixture
def clone(tmp_path: Path) -> tuple[Path, Path, Path, Path]:
    home, project, vault = tmp_path / "home", tmp_path / "project", tmp_path / "vault"
    for folder in (home, project, vault):
        folder.mkdir()
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    return home, project, vault, tmp_path / PWNED


@pytest.mark.parametrize("where", ["project-bin", "vault-bin", "shared-settings", "python-m"])
@pytest.mark.parametrize("door", [["doctor"], ["install-hooks", "--check"]])
def test_checking_hooks_runs_nothing_the_clone_ships(
        where: str, door: list[str], clone: tuple[Path, Path, Path, Path]) -> None:
    home, project, vault, marker = clone
    settings = project / ".claude" / "settings.json"
    if where == "project-bin":
        program = str(_evil(project / "tools" / "vaultmem", marker))
        settings = project / ".claude" / "settings.local.json"
    elif where == "vault-bin":
        program = str(_evil(vault / "bin" / "vaultmem", marker))
        settings = home / ".claude" / "settings.json"
    elif where == "shared-settings":
        program = str(_evil(home.parent / "elsewhere" / "vaultmem", marker))
    else:
        # `python -m vaultmem` started in the clone imports the clone's vaultmem/ first.
        (project / "vaultmem").mkdir()
        (project / "vaultmem" / "__init__.py").write_text("")
        (project / "vaultmem" / "__main__.py").write_text(
            f"open({str(marker)!r}, 'w').write('ran')\nprint('vaultmem 9')\n")
        program = f"{sys.executable} -m vaultmem"
        settings = home / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(json.dumps({"hooks": install.vaultmem_hooks(program)}))
    _run(door, project, home, vault)
    assert not marker.exists(), f"{door} ran {program}"


def test_a_configured_program_that_is_gone_is_still_reported(
        clone: tuple[Path, Path, Path, Path]) -> None:
    home, project, vault, _ = clone
    settings = project / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text(json.dumps({"hooks": install.vaultmem_hooks("/gone/bin/vaultmem")}))
    done = _run(["install-hooks", "--check"], project, home, vault)
    assert done.returncode == 1
    assert "/gone/bin/vaultmem" in done.stdout and "hook-command-missing" in done.stdout
