"""install-hooks --mcp: `vaultmem mcp` registered with Claude Code as `claude mcp add` does."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from test_plugin import claude_binary
from typer.testing import CliRunner

from vaultmem.claude import mcpinstall
from vaultmem.cli import app, claude  # noqa: F401  (registers the commands)

PROGRAM = ["/opt/venv/bin/vaultmem"]


@pytest.fixture
def dirs(tmp_path: Path) -> tuple[Path, Path]:
    home, project = tmp_path / "home", tmp_path / "project"
    home.mkdir()
    project.mkdir()
    return home, project


def test_entry_is_a_stdio_server_running_vaultmem_mcp(tmp_path: Path) -> None:
    entry = mcpinstall.server_entry(PROGRAM, vault=str(tmp_path / "v"), project="shop")
    assert entry == {"type": "stdio", "command": PROGRAM[0],
                     "args": ["--vault", str(tmp_path / "v"), "--project", "shop", "mcp"],
                     "env": {}}
    python = mcpinstall.server_entry([sys.executable, "-m", "vaultmem"])
    assert (python["command"], python["args"]) == (sys.executable, ["-m", "vaultmem", "mcp"])


def test_user_scope_keeps_everything_else_backs_up_and_is_idempotent(
    dirs: tuple[Path, Path],
) -> None:
    home, project = dirs
    path = home / ".claude.json"
    original = {"numStartups": 3, "mcpServers": {"other": {"command": "other-mcp"}},
                "projects": {"/x": {"allowedTools": []}}}
    old = json.dumps(original, indent=2).encode()
    path.write_bytes(old)
    entry = mcpinstall.server_entry(PROGRAM)
    first = mcpinstall.install("user", home=home, project_dir=project, entry=entry)
    assert first.changed and first.backup is not None and first.backup.read_bytes() == old
    written = json.loads(path.read_text())
    assert written == {**original, "mcpServers": {"other": {"command": "other-mcp"},
                                                  "vaultmem": entry}}
    after = path.read_bytes()
    again = mcpinstall.install("user", home=home, project_dir=project, entry=entry)
    assert not again.changed and path.read_bytes() == after
    removed = mcpinstall.uninstall("user", home=home, project_dir=project)
    assert removed.changed and json.loads(path.read_text()) == original


def test_local_and_project_scopes(dirs: tuple[Path, Path]) -> None:
    home, project = dirs
    entry = mcpinstall.server_entry(PROGRAM)
    mcpinstall.install("local", home=home, project_dir=project, entry=entry)
    local = json.loads((home / ".claude.json").read_text())
    assert local == {"projects": {str(project): {"mcpServers": {"vaultmem": entry}}}}
    mcpinstall.install("project", home=home, project_dir=project, entry=entry)
    assert json.loads((project / ".mcp.json").read_text()) == {"mcpServers": {"vaultmem": entry}}
    assert not mcpinstall.uninstall("project", home=home / "nowhere", project_dir=home).changed


def test_a_file_of_another_shape_is_refused_untouched(dirs: tuple[Path, Path]) -> None:
    home, project = dirs
    path = home / ".claude.json"
    path.write_text('{"mcpServers": ["not", "an", "object"]}')
    before = path.read_bytes()
    with pytest.raises(Exception, match="mcpServers"):
        mcpinstall.install("user", home=home, project_dir=project,
                           entry=mcpinstall.server_entry(PROGRAM))
    assert path.read_bytes() == before


def test_the_same_entry_as_claude_mcp_add(dirs: tuple[Path, Path]) -> None:
    claude_bin = claude_binary()
    if claude_bin is None:
        pytest.skip("Claude Code CLI not installed (set VAULTMEM_CLAUDE_BIN)")
    home, project = dirs
    env = {**os.environ, "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config")}
    subprocess.run([str(claude_bin), "mcp", "add", "-s", "project", "vaultmem", "--", *PROGRAM,
                    "mcp"], cwd=project, env=env, check=True, capture_output=True, timeout=120)
    theirs = json.loads((project / ".mcp.json").read_text())
    (project / ".mcp.json").unlink()
    mcpinstall.install("project", home=home, project_dir=project,
                       entry=mcpinstall.server_entry(PROGRAM))
    assert json.loads((project / ".mcp.json").read_text()) == theirs


def test_cli_install_hooks_mcp(dirs: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    home, project = dirs
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(project)
    monkeypatch.delenv("VAULTMEM_VAULT", raising=False)
    runner = CliRunner()
    args = ["--vault", str(home / "v"), "install-hooks", "--mcp", "--scope", "project",
            "--command", "vaultmem"]
    done = runner.invoke(app, args)
    assert done.exit_code == 0, done.stderr
    assert done.stdout == f"{project / '.mcp.json'}: installed the MCP server\n"
    entry = json.loads((project / ".mcp.json").read_text())["mcpServers"]["vaultmem"]
    assert entry["command"] == "vaultmem"
    assert entry["args"] == ["--vault", str(home / "v"), "mcp"]
    assert not (project / ".claude").exists()  # no hooks written
    assert runner.invoke(app, args).stdout.endswith("MCP server already installed\n")
    gone = runner.invoke(app, ["uninstall-hooks", "--mcp", "--scope", "project"])
    assert gone.exit_code == 0
    # The file install made is gone, and no backup is left in the work tree.
    assert sorted(p.name for p in project.iterdir()) == []


def test_project_scope_warns_of_a_machine_path_and_keeps_what_else_the_file_holds(
    dirs: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    home, project = dirs
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(project)
    shared = {"mcpServers": {"db": {"command": "db-mcp"}}}
    (project / ".mcp.json").write_text(json.dumps(shared))
    runner = CliRunner()
    done = runner.invoke(app, ["install-hooks", "--mcp", "--scope", "project",
                               "--command", "/opt/venv/bin/vaultmem"])
    assert done.exit_code == 0, done.stderr
    assert done.stderr.startswith(f"warning: {project / '.mcp.json'} is shared with the "
                                  "repository and names /opt/venv/bin/vaultmem, a path of this "
                                  "machine") and done.stderr.count("\n") == 1
    local = runner.invoke(app, ["install-hooks", "--mcp", "--scope", "local",
                                "--command", "/opt/venv/bin/vaultmem"])
    assert local.exit_code == 0 and local.stderr == ""
    gone = runner.invoke(app, ["uninstall-hooks", "--mcp", "--scope", "project"])
    assert gone.exit_code == 0
    assert json.loads((project / ".mcp.json").read_text()) == shared
    assert sorted(p.name for p in project.iterdir()) == [".mcp.json"]
