"""Where Claude Code keeps a project's auto memory, as a hook finds it (the shell around
``automemory.locate``: the git root, the environment, the settings files; nothing written), and
whether a mirror run has anything to look at there.

The look is split from the mirror (``automirror``) so that a hook whose project has no
auto-memory folder, and never had one on this machine, does not import the mirror at all.
"""

from __future__ import annotations

import json
import os
import stat
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from vaultmem.errors import VaultmemError
from vaultmem.store import machine

from . import automemory

MAX_SETTINGS_BYTES = 1024 * 1024
# The mirror's folder name: in the project's folder of the vault, and in this machine's state.
FOLDER = "auto-memory"

POLICY_SETTINGS = {
    "darwin": "/Library/Application Support/ClaudeCode/managed-settings.json",
    "linux": "/etc/claude-code/managed-settings.json",
}


def _git_root(start: str) -> str | None:
    """The nearest folder at or above ``start`` holding a ``.git`` folder or file."""
    folder = start
    while True:
        try:
            st = os.stat(os.path.join(folder, ".git"))
            if stat.S_ISDIR(st.st_mode) or stat.S_ISREG(st.st_mode):
                return folder
        except OSError:
            pass
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent


def _small(path: str) -> str:
    with open(path, "rb") as f:
        return f.read(64 * 1024).decode("utf-8", errors="replace").strip()


def canonical_root(cwd: str) -> str:
    """The folder Claude Code names a project's auto memory after: the git root, a worktree's
    main repository root instead of its own, else the (real) working directory."""
    real = os.path.realpath(cwd)
    root = _git_root(real)
    if root is None:
        return real
    try:
        line = _small(os.path.join(root, ".git"))
    except OSError:
        return root  # a .git folder: the main checkout
    if not line.startswith("gitdir:"):
        return root
    try:
        gitdir = os.path.normpath(os.path.join(root, line[7:].strip()))
        common = os.path.normpath(os.path.join(gitdir, _small(os.path.join(gitdir, "commondir"))))
        if os.path.dirname(gitdir) != os.path.join(common, "worktrees"):
            return root
        back = os.path.realpath(_small(os.path.join(gitdir, "gitdir")))
        if back != os.path.join(os.path.realpath(root), ".git"):
            return root
    except OSError:
        return root
    return common if os.path.basename(common) != ".git" else os.path.dirname(common)


def read_json(path: str) -> dict[str, Any]:
    """The JSON object in ``path`` (its first MiB); ``{}`` when there is none or it is not one."""
    try:
        with open(path, "rb") as f:
            data = json.loads(f.read(MAX_SETTINGS_BYTES))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def settings(cwd: str, env: Mapping[str, str], home: str) -> dict[str, dict[str, Any]]:
    """Claude Code's settings sources a hook can see: user, project, local and managed."""
    config = env.get(automemory.CONFIG_DIR_ENV) or os.path.join(home, ".claude")
    project = os.path.join(os.path.realpath(cwd), ".claude")
    found = {
        "user": read_json(os.path.join(config, "settings.json")),
        "project": read_json(os.path.join(project, "settings.json")),
        "local": read_json(os.path.join(project, "settings.local.json")),
    }
    policy = POLICY_SETTINGS.get(sys.platform)
    if policy:
        found["policy"] = read_json(policy)
    return found


def where(cwd: str, env: Mapping[str, str] | None = None, home: str | None = None
          ) -> automemory.Where:
    """Where Claude Code keeps the auto memory of the session running in ``cwd``."""
    env = os.environ if env is None else env
    home = home or os.path.expanduser("~")
    return automemory.locate(canonical_root(cwd), env, settings(cwd, env, home), home)


def seen_path(state_dir: Path, project: str, folder: str) -> Path:
    """The file recording what this machine saw of ``folder`` (real path) for ``project``."""
    key = automemory.sha256(project + "\x00" + folder)[:16]
    return machine.host_dir(state_dir) / FOLDER / f"{key}.json"


def worth_a_look(state_dir: Path, project: str, cwd: str | None, warnings: list[str]
                 ) -> automemory.Where | None:
    """The auto memory of the session in ``cwd`` when a mirror run has something to look at;
    None when it is off, or its folder is missing and this machine never mirrored from it (the
    run would find nothing to do). Trouble goes to ``warnings``, never raised."""
    if not cwd:
        return None
    try:
        found = where(cwd)
        if not found.enabled:
            return None
        folder = os.path.realpath(found.folder)
        if os.path.isdir(folder) or seen_path(state_dir, project, folder).exists():
            return found
    except (VaultmemError, OSError) as err:
        warnings.append(f"auto memory not mirrored: {err}")
    return None
