"""The plugin runs vaultmem commands without `vaultmem` on PATH: `launch.py --cli ARGS` (the MCP
server of the plugin's `.mcp.json`, and any command), from the environment the hooks prepare
(issue 21, item 3). Real subprocesses, the real MCP SDK client."""

from __future__ import annotations

import json
import os
import string
import subprocess
import sys
from pathlib import Path
from typing import TextIO

import anyio
from hook_kit import REPO
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from test_plugin_launch import LAUNCH, _env, _prepared


def _cli(args: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(LAUNCH), "--cli", *args], env=env, cwd=cwd,
                          capture_output=True, text=True, timeout=300, check=False)


def _with_memory(vault: Path) -> None:
    entity = vault / "claude/projects/shop/entities/Auth.md"
    entity.parent.mkdir(parents=True)
    entity.write_text("---\ntype: entity\nproject: shop\n---\n# Auth\n\n## Key Decisions\n\n"
                      "- 2026-11-09 — Use RS256-signed JWTs: keys rotate without a redeploy "
                      "^vm-11111111\n")


def test_a_command_runs_from_the_prepared_environment(tmp_path: Path, vault_root: Path) -> None:
    data = tmp_path / "data"
    _prepared(data)
    _with_memory(vault_root)
    env = _env(data, vault_root, VAULTMEM_PROJECT="shop")
    found = _cli(["recall", "RS256", "--json"], env, tmp_path)
    assert found.returncode == 0, found.stderr
    assert "RS256-signed JWTs" in found.stdout and json.loads(found.stdout)
    # The command's own exit code comes back: a usage error is Typer's 2.
    assert _cli(["recall"], env, tmp_path).returncode == 2


def test_the_projects_own_vaultmem_folder_does_not_shadow_the_package(
    tmp_path: Path, vault_root: Path
) -> None:
    data = tmp_path / "data"
    _prepared(data)
    _with_memory(vault_root)
    project = tmp_path / "project"
    (project / "vaultmem").mkdir(parents=True)
    (project / "vaultmem/__init__.py").write_text("raise SystemExit('the project folder ran')\n")
    (project / "vaultmem/__main__.py").write_text("raise SystemExit('the project folder ran')\n")
    found = _cli(["recall", "RS256"], _env(data, vault_root, VAULTMEM_PROJECT="shop"), project)
    assert found.returncode == 0 and "project folder ran" not in found.stderr, found.stderr
    assert "RS256" in found.stdout


def test_a_failed_environment_is_one_line_and_exit_1(tmp_path: Path, vault_root: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    (data / "build-failed").write_text("pip install exited with 1\n")
    done = _cli(["recall", "x"], _env(data, vault_root), tmp_path)
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr == (
        f"vaultmem: its environment could not be prepared (pip install exited with 1; log: "
        f"{data}/build.log); delete {data}/build-failed to try again\n")
    assert not (data / "env").exists()


def test_the_plugins_mcp_server_answers_through_the_launcher(
    tmp_path: Path, vault_root: Path
) -> None:
    data = tmp_path / "data"
    _prepared(data)
    _with_memory(vault_root)
    entry = json.loads((REPO / "plugin/.mcp.json").read_text())["mcpServers"]["vaultmem"]
    # As Claude Code starts a plugin's server: ${CLAUDE_PLUGIN_ROOT} substituted in the args,
    # the plugin's folders in the environment.
    args = [string.Template(a).substitute(CLAUDE_PLUGIN_ROOT=str(REPO)) for a in entry["args"]]
    assert entry["command"] == "python3" and args[0] == str(LAUNCH)
    env = _env(data, vault_root, VAULTMEM_PROJECT="shop")
    params = StdioServerParameters(command=sys.executable, args=args, env=env, cwd=str(tmp_path))

    async def main(errlog: TextIO) -> str:
        async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(
            read, write
        ) as session:
            await session.initialize()
            result = await session.call_tool("recall", {"query": "RS256"})
            assert not result.is_error, result.content
            return str(result.content[0].text)

    with open(os.devnull, "w") as errlog:
        assert "RS256-signed JWTs" in anyio.run(main, errlog)


def test_the_slash_commands_launcher_form_runs(tmp_path: Path, vault_root: Path) -> None:
    data = tmp_path / "data"
    _prepared(data)
    _with_memory(vault_root)
    env = _env(data, vault_root, VAULTMEM_PROJECT="shop")
    for command in sorted((REPO / "commands").glob("*.md")):
        tools = next(line for line in command.read_text().splitlines()
                     if line.startswith("allowed-tools: "))
        prefix = tools.split("Bash(", 1)[1].split(":*)", 1)[0]
        # As Claude Code hands the command to its Bash tool: the plugin root substituted.
        line = string.Template(prefix).substitute(CLAUDE_PLUGIN_ROOT=str(REPO)) + " status"
        done = subprocess.run(["/bin/sh", "-c", line], env=env, cwd=tmp_path,
                              capture_output=True, text=True, timeout=300, check=False)
        assert done.returncode == 0 and "shop" in done.stdout, (command.name, done.stderr)
