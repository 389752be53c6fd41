"""The distribution as a user meets it: its name on the package index, its version, and an
installation (a fresh venv in a folder with a space) whose hooks run from outside the venv."""

from __future__ import annotations

import importlib.metadata
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hook_kit import PROJECT, REPO, payload
from typer.testing import CliRunner

import vaultmem
from vaultmem.cli import _load_commands, app

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

DIST = "obsidian-vaultmem"  # `vaultmem` on the package index is an unrelated project


@pytest.fixture(autouse=True)
def _installed_under_the_new_name() -> None:
    try:
        importlib.metadata.distribution(DIST)
    except importlib.metadata.PackageNotFoundError:
        pytest.fail(f"this venv holds no {DIST} distribution: the distribution was renamed from "
                    "vaultmem; run `pip install -e '.[test]'` again")


def pyproject() -> dict[str, object]:
    return tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))


def test_the_distribution_is_ours_and_installed_under_its_name() -> None:
    project = pyproject()["project"]
    assert isinstance(project, dict)
    assert project["name"] == DIST
    assert importlib.metadata.distribution(DIST).read_text("entry_points.txt") is not None
    scripts = project["scripts"]
    assert isinstance(scripts, dict) and list(scripts) == ["vaultmem"]


@pytest.mark.parametrize(
    "rel", ["README.md", "docs/REFERENCE.md", "plugin/.claude-plugin/plugin.json", "docs/ARCHITECTURE.md",
            "tests/e2e/README.md",
            "skills/managing-working-memory/SKILL.md"]
)
def test_no_instruction_installs_the_other_projects_package(rel: str) -> None:
    text = (REPO / rel).read_text(encoding="utf-8")
    assert not re.search(r"pip(x)? install (-U |--upgrade )?vaultmem\b", text), rel
    assert not re.search(r"uvx? (tool install |pip install )?vaultmem\b", text), rel


def test_plugin_tells_the_one_install_story_from_a_clone() -> None:
    plugin = json.loads((REPO / "plugin/.claude-plugin/plugin.json").read_text(encoding="utf-8"))
    # Not on the package index yet: installing by name would fail or take the other project.
    assert "pipx install ." in plugin["description"] and DIST in plugin["description"]
    assert f"install {DIST}" not in plugin["description"]


def test_versions_agree() -> None:
    plugin = json.loads((REPO / "plugin/.claude-plugin/plugin.json").read_text(encoding="utf-8"))
    market = json.loads((REPO / ".claude-plugin/marketplace.json").read_text(encoding="utf-8"))
    installed = importlib.metadata.version(DIST)
    assert plugin["version"] == vaultmem.__version__ == installed
    assert [p["version"] for p in market["plugins"]] == [installed]


def test_version_option() -> None:
    _load_commands()
    result = CliRunner().invoke(app, ["--version"])
    assert result.exit_code == 0 and result.stdout == f"vaultmem {vaultmem.__version__}\n"
    proc = subprocess.run(
        [sys.executable, "-m", "vaultmem", "--version"], capture_output=True, text=True,
        timeout=60, check=False,
    )
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, f"vaultmem {vaultmem.__version__}\n", "")


def test_every_subpackage_is_packaged() -> None:
    listed = pyproject()["tool"]["setuptools"]["packages"]  # type: ignore[index]
    found = {
        ".".join(path.parent.relative_to(REPO).parts)
        for path in (REPO / "vaultmem").rglob("__init__.py")
        if "__pycache__" not in path.parts
    }
    assert found <= set(listed), f"missing from pyproject packages: {sorted(found - set(listed))}"


@pytest.fixture(scope="module")
def fresh_venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A new venv in a folder with a space, holding this checkout installed from a wheel (not
    editable). Its dependencies come from the test run's own site-packages (a .pth file), so
    nothing is downloaded; vaultmem itself is only the wheel's copy."""
    root = tmp_path_factory.mktemp("fresh") / "my tools"
    dist = root / "dist"
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(dist), str(REPO)],
        capture_output=True, text=True, timeout=300, check=False,
    )
    if built.returncode != 0:
        pytest.skip(f"cannot build a wheel here: {built.stderr.strip().splitlines()[-1:]}")
    venv = root / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True,
                   timeout=120)
    (wheel,) = dist.glob("*.whl")
    subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(venv / "bin/python"), "install",
         "--no-deps", "-q", str(wheel)], check=True, capture_output=True, timeout=300,
    )
    deps = [p for p in map(Path, sys.path) if p.name == "site-packages" and p.is_dir()]
    (site,) = (venv / "lib").glob("python*/site-packages")
    (site / "_test_deps.pth").write_text("".join(f"{p}\n" for p in deps))
    return venv


def _outside_env(home: Path) -> dict[str, str]:
    """An environment without the venv: no activation, no PYTHONPATH, a plain PATH."""
    keep = {k: v for k, v in os.environ.items() if not k.startswith(("VIRTUAL_ENV", "PYTHON"))}
    return {**keep, "HOME": str(home), "PATH": "/usr/bin:/bin", "VAULTMEM_NOW": "2026-11-22T10:30:00"}


def test_installed_hooks_run_without_the_venv(fresh_venv: Path, tmp_path: Path) -> None:
    home, repo, vault = tmp_path / "home", tmp_path / "repo", tmp_path / "my vault"
    home.mkdir()
    repo.mkdir()
    vault.mkdir()
    env = _outside_env(home)
    script = fresh_venv / "bin" / "vaultmem"

    installed = subprocess.run(
        [str(script), "--vault", str(vault), "install-hooks"], cwd=repo, env=env,
        capture_output=True, text=True, timeout=120, check=False,
    )

    assert installed.returncode == 0, installed.stderr
    settings = json.loads((home / ".claude/settings.json").read_text())
    command = settings["hooks"]["SessionStart"][0]["hooks"][0]["command"]
    assert command == f"{shlex.quote(str(script))} --vault {shlex.quote(str(vault))} hook session-start"
    # Claude Code runs the command through a shell, with its own PATH (no venv on it).
    hooked = subprocess.run(
        ["/bin/sh", "-c", command], input=json.dumps(payload("session-start")), cwd=repo,
        env=env, capture_output=True, text=True, timeout=120, check=False,
    )
    assert hooked.returncode == 0 and hooked.stderr == "", hooked.stderr
    notes = list((vault / f"claude/projects/{PROJECT}/sessions").glob("*.md"))
    assert [n.name for n in notes] == ["2026-11-22-session.md"]
    assert not (home / ".claude-memory").exists()
    checked = subprocess.run(
        [str(script), "install-hooks", "--check"], cwd=repo, env=env, capture_output=True,
        text=True, timeout=120, check=False,
    )
    assert (checked.returncode, checked.stdout) == (0, "hooks: no problems\n"), checked.stderr


def test_demo_runs_from_the_installed_wheel(fresh_venv: Path, tmp_path: Path) -> None:
    proc = subprocess.run(
        [str(fresh_venv / "bin" / "vaultmem"), "demo", str(tmp_path / "demo")],
        env=_outside_env(tmp_path), capture_output=True, text=True, timeout=120, check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert "compacted it" in proc.stdout and "The next session starts with this context" in proc.stdout


def test_readme_starts_with_the_two_commands_and_ci_runs_the_test_one_verbatim() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    block = readme.split("```bash\n", 1)[1].split("```", 1)[0]
    commands = [line.split("#")[0].strip() for line in block.splitlines()]
    assert commands == ["pip install . && vaultmem demo", "pip install -e '.[test]' && pytest -q"]
    assert "git clone" in readme.split("```bash\n", 1)[0]  # the step before them
    ci = (REPO / ".ci/run").read_text(encoding="utf-8").splitlines()
    assert commands[1] in ci


def test_the_sdist_ships_the_license_and_no_half_test_suite(tmp_path: Path) -> None:
    import tarfile

    clone = tmp_path / "clone"  # the build writes its egg-info next to the sources
    shutil.copytree(REPO, clone, symlinks=True,
                    ignore=shutil.ignore_patterns(".venv", ".git", "*.egg-info", "build"))
    built = subprocess.run(
        [sys.executable, "-m", "build", "--sdist", "--wheel", "-o", str(tmp_path), str(clone)],
        capture_output=True, text=True, timeout=600, check=False)
    if built.returncode != 0:
        pytest.skip(f"cannot build here: {built.stderr.strip().splitlines()[-1:]}")
    (sdist,) = tmp_path.glob("*.tar.gz")
    (wheel,) = tmp_path.glob("*.whl")
    assert wheel.name == f"obsidian_vaultmem-{vaultmem.__version__}-py3-none-any.whl"
    # What the package index checks on upload: metadata, and the README rendering.
    checked = subprocess.run([sys.executable, "-m", "twine", "check", "--strict", str(sdist),
                              str(wheel)], capture_output=True, text=True, timeout=300,
                             check=False)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert checked.stdout.count("PASSED") == 2
    with tarfile.open(sdist) as tar:
        names = [n.split("/", 1)[1] for n in tar.getnames() if "/" in n]
        pkg_info = tar.extractfile(next(m for m in tar.getmembers()
                                        if m.name.endswith("/PKG-INFO")))
        assert pkg_info is not None
        meta = pkg_info.read().decode()
    assert "LICENSE" in names and "License-Expression: MIT" in meta
    assert not [n for n in names if n.startswith(("tests/", "bench/"))]
