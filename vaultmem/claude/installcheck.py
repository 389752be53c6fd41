"""Whether the installed hooks can work: where vaultmem is installed, and what would stop it."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from vaultmem.claude.install import (
    HOOK_EVENTS,
    PLUGIN_NAME,
    SCOPES,
    inner_hooks,
    parse_hook_command,
    settings_or_empty,
    settings_path,
)

# --- what would stop the installed hooks --------------------------------------------------------

FindingKind = Literal["hook-command-missing", "hook-command-fails", "hooks-twice",
                      "plugin-hooks-fail", "hook-events-missing"]


@dataclass(frozen=True)
class Finding:
    """A reason vaultmem's hooks would not run, or would run twice."""

    kind: FindingKind
    path: Path  # the settings file
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.kind}: {self.message}"

    def to_json(self) -> dict[str, str]:
        """A JSON-ready dict."""
        return {"kind": self.kind, "path": str(self.path), "message": self.message}


@dataclass(frozen=True)
class Installed:
    """One of vaultmem's hook commands in a settings file."""

    path: Path
    event: str
    command: str
    program: tuple[str, ...]


def installed(path: Path) -> list[Installed]:
    """vaultmem's hook commands in one settings file (none when it is missing or unreadable)."""
    settings = settings_or_empty(path)
    hooks = settings.get("hooks")
    found: list[Installed] = []
    for event, groups in (hooks.items() if isinstance(hooks, dict) else ()):
        for hook in inner_hooks(groups):
            text = hook.get("command")
            parsed = parse_hook_command(text) if isinstance(text, str) else None
            if parsed and isinstance(text, str):
                found.append(Installed(path, str(event), text, tuple(parsed[0])))
    return found


def missing_events(found: Sequence[Installed]) -> list[str]:
    """The Claude Code events vaultmem hooks that ``found`` (one settings file's vaultmem hooks)
    leaves out; none when the file has no vaultmem hook at all."""
    if not found:
        return []
    present = {item.event for item in found}
    return [event for event in HOOK_EVENTS if event not in present]


def enabled_plugins(path: Path) -> list[str]:
    """The vaultmem plugin specs (``vaultmem@<marketplace>``) a settings file enables."""
    value = settings_or_empty(path).get("enabledPlugins")
    if not isinstance(value, dict):
        return []
    return [str(k) for k, on in value.items() if on is True and str(k).split("@")[0] == PLUGIN_NAME]


def installed_anywhere(*, home: Path, project_dir: Path) -> bool:
    """Whether a settings scope holds vaultmem's hooks or enables the vaultmem plugin."""
    paths = [settings_path(scope, home=home, project_dir=project_dir) for scope in SCOPES]
    return any(installed(path) or enabled_plugins(path) for path in paths)


def check(
    *, home: Path, project_dir: Path, run_commands: bool = True, timeout: float = 10.0,
    vault: Path | None = None, installing: Path | None = None,
) -> list[Finding]:
    """What would stop vaultmem's hooks from working for ``project_dir``: a hook program that is
    gone or does not run (``run_commands``: runs ``<program> --version``), and hooks that would
    run twice (the plugin and ``install-hooks`` both, or two settings scopes).

    A program is never run when the project's shared settings name it or it lives in the
    project or the ``vault`` (a clone or a synced vault ships it): it is only looked at, and a
    problem names the command as configured. ``installing``: a settings file counted as holding
    vaultmem's hooks already (a dry run warns as the real run would)."""
    paths = [settings_path(scope, home=home, project_dir=project_dir) for scope in SCOPES]
    shared = settings_path("project", home=home, project_dir=project_dir)
    entries = {path: installed(path) for path in paths}
    findings: list[Finding] = []
    checked: set[tuple[str, ...]] = set()
    for item in (e for found in entries.values() for e in found):
        if item.program in checked:
            continue
        checked.add(item.program)
        runs = run_commands and item.path != shared and not _shipped(
            item.program, [project_dir, *([vault] if vault else [])])
        problem = _program_problem(item.program, run_commands=runs, timeout=timeout, home=home)
        if problem:
            findings.append(Finding(problem[0], item.path, f"{item.command!r}: {problem[1]}"))
    with_hooks = [path for path, found in entries.items() if found or path == installing]
    for path in with_hooks:
        missing = missing_events(entries[path])
        if missing:
            findings.append(Finding(
                "hook-events-missing", path,
                f"vaultmem's hooks for {', '.join(missing)} are not installed (an install by an "
                "older vaultmem): run `vaultmem install-hooks` again to add them",
            ))
    plugins = [(path, spec) for path in paths for spec in enabled_plugins(path)]
    for path, spec in plugins[:1]:
        said = plugin_problem(spec, home=home)
        if said:
            findings.append(Finding("plugin-hooks-fail", path, f"the {spec} plugin: {said}"))
    if plugins and with_hooks:
        path, spec = plugins[0]
        findings.append(Finding(
            "hooks-twice", with_hooks[0],
            f"the {spec} plugin (enabled in {path}) runs the same hooks: every hook would run "
            f"twice; use one (vaultmem uninstall-hooks, or claude plugin uninstall {spec})",
        ))
    elif len(with_hooks) > 1:
        findings.append(Finding(
            "hooks-twice", with_hooks[1],
            f"vaultmem's hooks are installed in {with_hooks[0]} too: every hook would run "
            "twice; uninstall one scope (vaultmem uninstall-hooks --scope …)",
        ))
    return findings


def _shipped(program: Sequence[str], folders: Sequence[Path]) -> bool:
    """Whether the program (or the interpreter of ``python -m vaultmem``) is inside a folder."""
    real = os.path.realpath(shutil.which(program[0]) or program[0])
    for folder in folders:
        base = os.path.realpath(folder)
        if os.path.commonpath([real, base]) == base:
            return True
    return False


def plugin_problem(spec: str, *, home: Path, env: Mapping[str, str] | None = None) -> str | None:
    """Why the plugin's hooks (``python3 <plugin>/hooks/launch.py``) cannot record a session:
    no python3 3.10+ on PATH, or its environment failed to build; None when nothing says so."""
    import re

    env = os.environ if env is None else env
    python3 = shutil.which("python3", path=env.get("PATH"))
    if python3 is None:
        return "its hooks run python3, which is not on PATH: install Python 3.10 or later"
    # The interpreter's version from its name or its real file's (python3.11): no run needed.
    found = re.search(r"python(\d+)\.(\d+)", os.path.realpath(python3))
    if found and (int(found.group(1)), int(found.group(2))) < (3, 10):
        return (f"its hooks run python3, which is {found.group(1)}.{found.group(2)} here: "
                "Python 3.10 or later is needed")
    cache = env.get("CLAUDE_CODE_PLUGIN_CACHE_DIR") or str(home / ".claude" / "plugins")
    data = Path(cache) / "data" / re.sub(r"[^A-Za-z0-9_-]", "-", spec)
    try:
        failed = (data / "build-failed").read_text(encoding="utf-8").strip()
    except OSError:
        return None
    return (f"its environment could not be prepared ({failed}); see {data / 'build.log'}, "
            f"delete {data / 'build-failed'} to try again at the next session")


def _program_problem(
    program: Sequence[str], *, run_commands: bool, timeout: float, home: Path
) -> tuple[FindingKind, str] | None:
    first = program[0]
    if not os.path.isabs(first):
        if shutil.which(first) is None:
            return "hook-command-missing", (
                f"{first!r} is not on PATH here (Claude Code must find it on its own PATH); "
                "run vaultmem install-hooks again to write an absolute path"
            )
        return None
    if not (os.path.isfile(first) and os.access(first, os.X_OK)):
        return "hook-command-missing", (
            f"{first} no longer exists (a removed or moved virtual environment?); "
            "run install-hooks again from the vaultmem you use"
        )
    if not run_commands:
        return None
    # Isolated (-I) and from the home folder: `python -m vaultmem` started in a project would
    # import the project's own vaultmem/ folder before the installed one.
    argv = [program[0], "-I", *program[1:]] if len(program) == 3 else [*program]
    try:
        done = subprocess.run(
            [*argv, "--version"], capture_output=True, text=True, timeout=timeout, check=False,
            stdin=subprocess.DEVNULL, cwd=home if home.is_dir() else "/",
        )
    except (OSError, subprocess.SubprocessError) as err:
        return "hook-command-fails", f"does not run: {err}"
    if done.returncode != 0 or not done.stdout.startswith("vaultmem "):
        lines = (done.stderr or done.stdout).strip().splitlines()
        return "hook-command-fails", f"does not run: {lines[-1] if lines else done.returncode}"
    return None
