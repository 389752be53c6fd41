"""Registering `vaultmem mcp` with Claude Code (``install-hooks --mcp``), the way
``claude mcp add`` does: user scope ``~/.claude.json`` ``mcpServers``, local scope the same file's
``projects[<project dir>].mcpServers``, project scope ``<project>/.mcp.json``. The entry is
``{"type": "stdio", "command": …, "args": [… "mcp"], "env": {}}`` under the name ``vaultmem``;
re-running replaces it, uninstalling removes exactly it, everything else in the file is kept,
and the file's old bytes go to ``<file>.vaultmem-backup`` first (``install``'s writer), except
for the project scope's ``.mcp.json``: a file of the work tree (git keeps its history), written
without a backup beside it, and removed when uninstalling leaves nothing in it.
"""

from __future__ import annotations

import copy
import difflib
import json
import os
import shlex
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ..errors import ConfigError
from .install import InstallResult, Scope, hook_prefix, rewrite_json

SERVER = "vaultmem"


def config_path(scope: Scope, *, home: Path, project_dir: Path) -> Path:
    """The file a scope's MCP servers live in."""
    return project_dir / ".mcp.json" if scope == "project" else home / ".claude.json"


def server_entry(
    program: Sequence[str] | str, *, vault: str | None = None, project: str | None = None
) -> dict[str, Any]:
    """The stdio entry that runs ``vaultmem mcp`` (``program`` as ``install.runner`` gives it,
    or a command line), with the global options."""
    argv = shlex.split(hook_prefix(program, vault=vault, project=project))
    return {"type": "stdio", "command": argv[0], "args": [*argv[1:], "mcp"], "env": {}}


def _servers(settings: dict[str, Any], scope: Scope, project_dir: Path, path: Path,
             *, create: bool) -> dict[str, Any] | None:
    """The ``mcpServers`` object of the scope inside ``settings`` (made when ``create``)."""
    holder: dict[str, Any] | None = settings
    if scope == "local":
        projects = settings.setdefault("projects", {}) if create else settings.get("projects")
        if not isinstance(projects, dict):
            if projects is None:
                return None
            raise ConfigError("\"projects\" is not a JSON object", path=path)
        key = str(project_dir)
        holder = projects.setdefault(key, {}) if create else projects.get(key)
        if holder is None:
            return None
        if not isinstance(holder, dict):
            raise ConfigError(f"\"projects\".\"{key}\" is not a JSON object", path=path)
    assert holder is not None
    servers = holder.setdefault("mcpServers", {}) if create else holder.get("mcpServers")
    if servers is not None and not isinstance(servers, dict):
        raise ConfigError("\"mcpServers\" is not a JSON object", path=path)
    return servers


def install(scope: Scope, *, home: Path, project_dir: Path, entry: dict[str, Any],
            dry_run: bool = False) -> InstallResult:
    """Add (or replace) the ``vaultmem`` MCP server in the scope's file."""
    path = config_path(scope, home=home, project_dir=project_dir)

    def change(settings: dict[str, Any]) -> dict[str, Any]:
        new = copy.deepcopy(settings)
        servers = _servers(new, scope, project_dir, path, create=True)
        assert servers is not None
        servers[SERVER] = entry
        return new

    return rewrite_json(path, change, dry_run, backup=scope != "project")


def machine_path(entry: dict[str, Any]) -> str | None:
    """The absolute path of this machine the entry runs (a project's shared ``.mcp.json``
    holding it works on this machine only), or None."""
    command = str(entry.get("command", ""))
    return command if os.path.isabs(command) else None


def uninstall(scope: Scope, *, home: Path, project_dir: Path,
              dry_run: bool = False) -> InstallResult:
    """Remove the ``vaultmem`` MCP server from the scope's file; a missing file stays missing."""
    path = config_path(scope, home=home, project_dir=project_dir)
    if not path.exists():
        return InstallResult(path, False, None, "", dry_run)

    def change(settings: dict[str, Any]) -> dict[str, Any]:
        new = copy.deepcopy(settings)
        servers = _servers(new, scope, project_dir, path, create=False)
        if servers is not None:
            servers.pop(SERVER, None)
        return new

    if scope == "project":
        emptied = _remove_if_emptied(path, change, dry_run)
        if emptied is not None:
            return emptied
    return rewrite_json(path, change, dry_run, backup=scope != "project")


def _remove_if_emptied(path: Path, change: Callable[[dict[str, Any]], dict[str, Any]],
                       dry_run: bool) -> InstallResult | None:
    """Remove a project's ``.mcp.json`` that holds nothing once vaultmem's server is out (the
    file ``install`` made); None when something else stays in it (rewrite it instead)."""
    try:
        old_bytes = path.read_bytes()
        old = json.loads(old_bytes.decode("utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return None  # rewrite_json says what is wrong with it
    if not isinstance(old, dict) or change(old) not in ({}, {"mcpServers": {}}):
        return None
    diff = "".join(difflib.unified_diff(old_bytes.decode("utf-8").splitlines(keepends=True), [],
                                        fromfile=str(path), tofile="/dev/null"))
    if not dry_run:
        if path.read_bytes() != old_bytes:
            raise ConfigError("file changed while vaultmem was editing it; run again", path=path)
        path.unlink()
    return InstallResult(path, True, None, diff, dry_run)
