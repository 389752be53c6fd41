"""The Claude Code plugin shipped in this repository: manifests, hooks, skill and slash commands."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

import vaultmem
from vaultmem.claude import install

ROOT = Path(__file__).resolve().parent.parent
COMMANDS = ("remember", "recall", "update-memory", "compact-memory")
DEFAULT_CLAUDE = Path("/root/.cache/vaultmem-claude/node_modules/.bin/claude")


def load_json(rel: str) -> Any:
    return json.loads((ROOT / rel).read_text(encoding="utf-8"))


def split_frontmatter(path: Path) -> tuple[dict[str, Any], str]:
    """(frontmatter mapping, body) of a Markdown file; fails the test when there is none."""
    text = path.read_text(encoding="utf-8")
    match = re.match(r"---\n(.*?)\n---\n(.*)", text, re.DOTALL)
    assert match, f"{path} has no frontmatter"
    meta = yaml.safe_load(match.group(1))
    assert isinstance(meta, dict), f"{path} frontmatter is not a mapping"
    return meta, match.group(2)


def test_plugin_manifest() -> None:
    plugin = load_json("plugin/.claude-plugin/plugin.json")

    assert plugin["name"] == "vaultmem"
    assert plugin["version"] == vaultmem.__version__
    assert plugin["description"] and plugin["author"]["name"]


def test_marketplace_lists_this_plugin() -> None:
    market = load_json(".claude-plugin/marketplace.json")
    plugin = load_json("plugin/.claude-plugin/plugin.json")

    assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", market["name"])
    assert market["owner"]["name"]
    (entry,) = market["plugins"]
    assert entry["name"] == plugin["name"] and entry["source"] == "./plugin"
    assert entry["version"] == plugin["version"]


def test_plugin_hooks_run_the_plugins_own_launcher() -> None:
    hooks = load_json("hooks/hooks.json")

    # The events and time limits install-hooks writes; the command is the plugin's launcher.
    launcher = 'python3 "${CLAUDE_PLUGIN_ROOT}/hooks/launch.py"'
    assert hooks["hooks"] == {
        event: [{"hooks": [{"type": "command", "command": f"{launcher} {name}",
                            "timeout": timeout}]}]
        for event, (name, timeout) in install.HOOK_EVENTS.items()
    }
    assert (ROOT / "hooks/launch.py").is_file()


@pytest.mark.parametrize("name", COMMANDS)
def test_slash_command_files(name: str) -> None:
    meta, body = split_frontmatter(ROOT / "commands" / f"{name}.md")

    assert isinstance(meta.get("description"), str) and meta["description"].strip()
    assert isinstance(meta.get("argument-hint"), str) and meta["argument-hint"].strip()
    # The plugin's own vaultmem through its launcher first: nothing needs to be on PATH.
    assert meta.get("allowed-tools") == (
        "Bash(python3 ${CLAUDE_PLUGIN_ROOT}/hooks/launch.py --cli:*), Bash(vaultmem:*)")
    assert "`python3 ${CLAUDE_PLUGIN_ROOT}/hooks/launch.py --cli`" in body
    assert "$ARGUMENTS" in body
    assert "vaultmem " in body


def test_no_other_command_files() -> None:
    assert sorted(p.stem for p in (ROOT / "commands").glob("*.md")) == sorted(COMMANDS)


def test_skill_frontmatter_and_cli_coverage() -> None:
    skill_dir = ROOT / "skills" / "managing-working-memory"
    meta, body = split_frontmatter(skill_dir / "SKILL.md")

    assert meta["name"] == skill_dir.name
    assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", meta["name"]) and len(meta["name"]) <= 64
    assert 0 < len(meta["description"]) <= 1024
    assert set(meta) <= {"name", "description", "allowed-tools"}
    for usage in (
        "vaultmem session log ",
        "vaultmem remember ",
        "--kind gotcha",
        "--kind prerequisite",
        "--why ",
        "--entity ",
        "vaultmem recall ",
        "--json",
        "vaultmem show ",
        "vaultmem status",
        "vaultmem compact",
    ):
        assert usage in body, usage


def claude_binary() -> Path | None:
    configured = os.environ.get("VAULTMEM_CLAUDE_BIN")
    for candidate in (Path(configured) if configured else None, DEFAULT_CLAUDE):
        if candidate is not None and candidate.is_file() and os.access(candidate, os.X_OK):
            return candidate
    return None


@pytest.mark.parametrize(
    "target", ["plugin/.claude-plugin/plugin.json", ".claude-plugin/marketplace.json"]
)
def test_claude_plugin_validate_passes(target: str, tmp_path: Path) -> None:
    claude = claude_binary()
    if claude is None:
        pytest.skip("Claude Code CLI not installed (set VAULTMEM_CLAUDE_BIN)")
    env = {**os.environ, "HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path / ".config")}

    done = subprocess.run(
        [str(claude), "plugin", "validate", "--strict", str(ROOT / target)],
        check=False,
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )

    assert done.returncode == 0, done.stdout + done.stderr
    assert "Validation passed" in done.stdout


def test_plugin_hooks_say_what_they_need() -> None:
    description = load_json("hooks/hooks.json")["description"]
    assert "python3 (3.10 or later, the only requirement)" in description
    assert "install-hooks" in description and "twice" in description


def test_plugin_ships_the_mcp_server() -> None:
    # Through the plugin's launcher, as the hooks: python3 is all a plugin user has on PATH.
    servers = json.loads((ROOT / "plugin/.mcp.json").read_text())["mcpServers"]
    assert servers == {"vaultmem": {
        "type": "stdio", "command": "python3",
        "args": ["${CLAUDE_PLUGIN_ROOT}/hooks/launch.py", "--cli", "mcp"], "env": {}}}


# What the plugin's folder holds: its manifest and MCP config, and links to the rest of the
# repository (the hooks, skill, commands, and the package source its environment is built from).
# Claude Code copies a plugin's folder into its cache following links, and nothing else of a
# clone (a dev venv, build/, the tests).
PLUGIN_LINKS = ("LICENSE", "MANIFEST.in", "README.md", "commands", "hooks", "pyproject.toml",
                "skills", "templates", "vaultmem")


def test_the_plugin_folder_holds_only_what_the_plugin_needs() -> None:
    folder = ROOT / "plugin"
    names = sorted(p.name for p in folder.iterdir())
    assert names == sorted([".claude-plugin", ".mcp.json", *PLUGIN_LINKS])
    for name in PLUGIN_LINKS:
        link = folder / name
        assert link.is_symlink() and os.readlink(link) == f"../{name}", name
        assert link.exists(), f"{name} points at nothing"
    assert sorted(p.name for p in (folder / ".claude-plugin").iterdir()) == ["plugin.json"]
    # Everything the package build reads is there (pyproject's packages and package-data).
    assert (folder / "vaultmem/__init__.py").is_file() and list((folder / "templates").glob("*.md"))


def _tree_bytes(root: Path, *, skip: str = "") -> int:
    if root.is_file():
        return root.stat().st_size
    return sum(p.stat().st_size for p in root.rglob("*")
               if p.is_file() and not (skip and skip in p.parts))


def test_installing_the_plugin_from_a_clone_copies_only_its_folder(tmp_path: Path) -> None:
    claude = claude_binary()
    if claude is None:
        pytest.skip("Claude Code CLI not installed (set VAULTMEM_CLAUDE_BIN)")
    import shutil

    clone = tmp_path / "clone"
    shutil.copytree(ROOT, clone, symlinks=True, ignore=shutil.ignore_patterns(
        ".venv", ".git", "__pycache__", "*.egg-info", "build", ".pytest_cache", ".hypothesis"))
    venv = clone / ".venv/lib/site-packages"  # a dev venv's weight, which must stay behind
    venv.mkdir(parents=True)
    (venv / "big.bin").write_bytes(b"\0" * (8 << 20))
    home = tmp_path / "home"
    env = {**os.environ, "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config")}
    for args in (["plugin", "marketplace", "add", str(clone)],
                 ["plugin", "install", "vaultmem@vaultmem"]):
        done = subprocess.run([str(claude), *args], env=env, cwd=tmp_path, capture_output=True,
                              text=True, timeout=300, check=False)
        assert done.returncode == 0, done.stdout + done.stderr
    (cached,) = (home / ".claude/plugins/cache/vaultmem/vaultmem").iterdir()
    assert (cached / "hooks/launch.py").is_file() and (cached / "vaultmem/cli").is_dir()
    assert not (cached / ".venv").exists() and not (cached / "tests").exists()
    # The copy weighs what the plugin's own files weigh (a fixed cap broke as the package grew),
    # far below the 8 MiB the venv would add; 64 KiB of slack for the cache's own bookkeeping.
    own = (sum(_tree_bytes(ROOT / name, skip="__pycache__") for name in PLUGIN_LINKS)
           + sum(_tree_bytes(ROOT / "plugin" / name) for name in (".claude-plugin", ".mcp.json")))
    assert _tree_bytes(cached, skip="__pycache__") <= own + (64 << 10), (_tree_bytes(cached), own)
