"""Merge vaultmem's hooks into a Claude Code ``settings.json``, and take them out again.

``merge`` and ``unmerge`` are pure: a settings mapping in, a new one out; every other key and other
tools' hooks stay as they are. ``install`` and ``uninstall`` are the I/O around them:

- invalid JSON in the existing file raises ``ConfigError`` naming the file and line; nothing is
  written;
- a change first copies the old file to ``<name>.vaultmem-backup`` next to it (one backup, always
  the file as it was just before vaultmem's latest change, so undoing is one ``mv``);
- the new file is written atomically (unique temp file in the same folder, fsync, ``os.replace``,
  file mode kept), JSON with a 2-space indent and a final newline; a symlinked settings file (a
  dotfiles manager) is written through to its target;
- a settings file whose content would not change is not written at all (no backup either).

The command written runs the installation that wrote it (``runner``): the console script next
to the interpreter, else ``"<interpreter>" -m vaultmem``, by absolute path and shell-quoted, so a
hook works although Claude Code's PATH has no venv on it; the global options ``--vault`` and
``--project`` given to ``install-hooks`` go into it (``hook_prefix``). Every form vaultmem ever
wrote is recognised as vaultmem's (``hook_name``): re-installing replaces it, uninstalling
removes it. ``check`` says what would stop the installed hooks from working.
"""

from __future__ import annotations

import copy
import difflib
import json
import os
import shlex
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from vaultmem.notes import jsontext
from vaultmem.store.atomic import replace_file

from ..errors import ConfigError, WriteFailed

Scope = Literal["user", "project", "local"]

DEFAULT_COMMAND = "vaultmem"
PLUGIN_NAME = "vaultmem"
SCOPES: tuple[Scope, ...] = ("user", "project", "local")
BACKUP_SUFFIX = ".vaultmem-backup"

# Claude Code event -> (vaultmem hook name, timeout in seconds). Short on purpose: a hook never
# waits on a network, and Claude Code cancels SessionEnd hooks after about 1.5 s anyway.
HOOK_EVENTS: dict[str, tuple[str, int]] = {
    "SessionStart": ("session-start", 10),
    "Stop": ("stop", 10),
    "PreCompact": ("pre-compact", 10),
    "SessionEnd": ("session-end", 5),
}


@dataclass(frozen=True)
class InstallResult:
    """What install/uninstall did (or, on a dry run, would do) to one settings file."""

    path: Path
    changed: bool
    backup: Path | None  # the backup written, None when nothing was written
    diff: str  # unified diff of the file, "" when unchanged
    dry_run: bool


def settings_path(scope: Scope, *, home: Path, project_dir: Path) -> Path:
    """The Claude Code settings file of a scope."""
    if scope == "user":
        return home / ".claude" / "settings.json"
    if scope == "project":
        return project_dir / ".claude" / "settings.json"
    if scope == "local":
        return project_dir / ".claude" / "settings.local.json"
    raise ConfigError(f"unknown settings scope {scope!r} (use user, project or local)")


def vaultmem_hooks(command: str = DEFAULT_COMMAND) -> dict[str, list[dict[str, Any]]]:
    """The ``hooks`` block vaultmem adds: one command hook per event."""
    return {
        event: [
            {
                "hooks": [
                    {"type": "command", "command": f"{command} hook {name}", "timeout": timeout}
                ]
            }
        ]
        for event, (name, timeout) in HOOK_EVENTS.items()
    }


def merge(
    settings: dict[str, Any],
    hooks: dict[str, list[dict[str, Any]]],
    *,
    command: str = DEFAULT_COMMAND,
) -> dict[str, Any]:
    """Settings with ``hooks`` merged in: idempotent, other keys and other tools' hooks kept.

    A vaultmem entry already present for the same hook (in any form vaultmem wrote, with any
    vault or timeout; ``command`` is a custom program to recognise too) is updated in place;
    later duplicates of it are dropped.
    """
    result = copy.deepcopy(settings)
    current = _hooks_of(result)
    if current is None:
        current = {}
        result["hooks"] = current
    for event, groups in hooks.items():
        entries = current.get(event)
        if entries is None:
            entries = []
            current[event] = entries
        if not isinstance(entries, list):
            raise ConfigError(f"settings 'hooks.{event}' is not a list")
        for group in groups:
            for hook in group.get("hooks", []):
                if not _update_in_place(entries, hook, command):
                    entries.append(copy.deepcopy({**group, "hooks": [hook]}))
    return result


def unmerge(settings: dict[str, Any], *, command: str = DEFAULT_COMMAND) -> dict[str, Any]:
    """Settings without vaultmem's hook entries; lists and a ``hooks`` key emptied by that go too."""
    result = copy.deepcopy(settings)
    current = _hooks_of(result)
    if not current:
        return result
    for event in list(current):
        entries = current[event]
        if not isinstance(entries, list) or not entries:
            continue
        kept_groups = []
        for group in entries:
            inner = group.get("hooks") if isinstance(group, dict) else None
            if not isinstance(inner, list):
                kept_groups.append(group)
                continue
            kept = [hook for hook in inner if _hook_name(hook, command) is None]
            if len(kept) == len(inner):
                kept_groups.append(group)
            elif kept:
                kept_groups.append({**group, "hooks": kept})
        if kept_groups:
            current[event] = kept_groups
        else:
            del current[event]
    if not current:
        del result["hooks"]
    return result


def install(
    scope: Scope,
    *,
    home: Path,
    project_dir: Path,
    command: str = DEFAULT_COMMAND,
    vault: str | None = None,
    project: str | None = None,
    dry_run: bool = False,
) -> InstallResult:
    """Merge vaultmem's hooks into the scope's settings file (created when missing).

    ``command`` runs vaultmem (shell text, see ``runner``); ``vault`` and ``project`` are
    carried into every hook's command line.
    """
    path = settings_path(scope, home=home, project_dir=project_dir)
    hooks = vaultmem_hooks(hook_prefix(command, vault=vault, project=project))
    return _rewrite(path, lambda settings: merge(settings, hooks, command=command), dry_run)


def uninstall(
    scope: Scope,
    *,
    home: Path,
    project_dir: Path,
    command: str = DEFAULT_COMMAND,
    dry_run: bool = False,
) -> InstallResult:
    """Remove vaultmem's hooks from the scope's settings file; a missing file is left missing."""
    path = settings_path(scope, home=home, project_dir=project_dir)
    if not path.exists():
        return InstallResult(path, False, None, "", dry_run)
    return _rewrite(path, lambda settings: unmerge(settings, command=command), dry_run)


# --- what would stop the installed hooks --------------------------------------------------------

FindingKind = Literal["hook-command-missing", "hook-command-fails", "hooks-twice",
                      "plugin-hooks-fail"]


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
    settings = _settings_or_empty(path)
    hooks = settings.get("hooks")
    found: list[Installed] = []
    for event, groups in (hooks.items() if isinstance(hooks, dict) else ()):
        for hook in _inner_hooks(groups):
            text = hook.get("command")
            parsed = parse_hook_command(text) if isinstance(text, str) else None
            if parsed and isinstance(text, str):
                found.append(Installed(path, str(event), text, tuple(parsed[0])))
    return found


def enabled_plugins(path: Path) -> list[str]:
    """The vaultmem plugin specs (``vaultmem@<marketplace>``) a settings file enables."""
    value = _settings_or_empty(path).get("enabledPlugins")
    if not isinstance(value, dict):
        return []
    return [str(k) for k, on in value.items() if on is True and str(k).split("@")[0] == PLUGIN_NAME]


def installed_anywhere(*, home: Path, project_dir: Path) -> bool:
    """Whether a settings scope holds vaultmem's hooks or enables the vaultmem plugin."""
    paths = [settings_path(scope, home=home, project_dir=project_dir) for scope in SCOPES]
    return any(installed(path) or enabled_plugins(path) for path in paths)


def check(
    *, home: Path, project_dir: Path, run_commands: bool = True, timeout: float = 10.0,
    vault: Path | None = None,
) -> list[Finding]:
    """What would stop vaultmem's hooks from working for ``project_dir``: a hook program that is
    gone or does not run (``run_commands``: runs ``<program> --version``), and hooks that would
    run twice (the plugin and ``install-hooks`` both, or two settings scopes).

    A program is never run when the project's shared settings name it or it lives in the
    project or the ``vault`` (a clone or a synced vault ships it): it is only looked at, and a
    problem names the command as configured."""
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
    with_hooks = [path for path, found in entries.items() if found]
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


def _settings_or_empty(path: Path) -> dict[str, Any]:
    try:
        value = json.loads(path.read_text(encoding="utf-8-sig"))
    except (OSError, ValueError):
        return {}
    return value if isinstance(value, dict) else {}


def _inner_hooks(groups: Any) -> Iterator[dict[str, Any]]:
    for group in groups if isinstance(groups, list) else ():
        inner = group.get("hooks") if isinstance(group, dict) else None
        for hook in inner if isinstance(inner, list) else ():
            if isinstance(hook, dict):
                yield hook


# --- pure helpers --------------------------------------------------------------------------------


def _hooks_of(settings: dict[str, Any]) -> dict[str, Any] | None:
    value = settings.get("hooks")
    if value is None:
        return None
    if not isinstance(value, dict):
        raise ConfigError("settings 'hooks' is not an object")
    return value


def _hook_name(hook: Any, command: str = DEFAULT_COMMAND) -> str | None:
    """The vaultmem hook an entry runs ("stop" ...), None when the entry is not vaultmem's."""
    if not isinstance(hook, dict) or not isinstance(hook.get("command"), str):
        return None
    return hook_name(hook["command"], command)


def hook_name(text: str, command: str = DEFAULT_COMMAND) -> str | None:
    """The vaultmem hook a command line runs, None when it is not one vaultmem writes.

    vaultmem's forms: ``<command> hook <name>`` for a configured ``--command``; a program named
    ``vaultmem`` (bare or by path, quoted or not) or ``<python> -m vaultmem``, then any of the
    global options ``--vault X`` / ``--project P``, then ``hook <name>`` with a hook vaultmem has.
    """
    parsed = parse_hook_command(text, command)
    return parsed[1] if parsed else None


def parse_hook_command(text: str, command: str = DEFAULT_COMMAND) -> tuple[list[str], str] | None:
    """(the program's argv, the hook name) of one of vaultmem's hook commands, else None."""
    text = text.strip()
    if command != DEFAULT_COMMAND and text.startswith(command + " "):
        program, rest = _split(command) or [command], _split(text[len(command) :])
    else:
        words = _split(text)
        start = _program_length(words) if words else None
        if start is None:
            return None
        program, rest = words[:start], words[start:]
    i = 0
    while i < len(rest) and rest[i].split("=", 1)[0] in ("--vault", "--project"):
        i += 1 if "=" in rest[i] else 2
    if rest[i : i + 1] == ["hook"] and len(rest) == i + 2 and rest[i + 1] in _NAMES:
        return program, rest[i + 1]
    return None


_NAMES = frozenset(name for name, _timeout in HOOK_EVENTS.values())


def _split(text: str) -> list[str]:
    try:
        return shlex.split(text)
    except ValueError:  # unbalanced quotes: not a command vaultmem wrote
        return []


def _program_length(words: Sequence[str]) -> int | None:
    """How many words name the program: 1 for ``…/vaultmem``, 3 for ``<python> -m vaultmem``,
    4 for ``<python> -P -m vaultmem`` (or ``-I``)."""
    if os.path.basename(words[0]) == DEFAULT_COMMAND:
        return 1
    if not os.path.basename(words[0]).startswith("python"):
        return None
    if list(words[1:3]) == ["-m", "vaultmem"]:
        return 3
    if words[1:2] in (["-P"], ["-I"]) and list(words[2:4]) == ["-m", "vaultmem"]:
        return 4
    return None


def runner(executable: str) -> list[str]:
    """The argv that runs the vaultmem installed for ``executable`` (an interpreter's path).

    The console script next to the interpreter when it is vaultmem's, else the interpreter with
    ``-m vaultmem``. The interpreter's path is kept as given (a venv's ``bin/python`` is often a
    symlink to the base interpreter, which would lose the venv).
    """
    interpreter = os.path.abspath(executable)
    script = os.path.join(os.path.dirname(interpreter), DEFAULT_COMMAND)
    try:
        with open(script, "rb") as handle:
            head = handle.read(4096)
        if b"vaultmem" in head and os.access(script, os.X_OK):
            return [script]
    except OSError:
        pass
    return [interpreter, *_isolated(), "-m", "vaultmem"]


def _isolated() -> list[str]:
    """The flag that keeps the current folder off ``sys.path``: a hook runs in the project, a
    merge driver in the repository, and their own ``vaultmem/`` folder would be imported
    instead of the package. ``-P`` (3.11+); on 3.10 ``-I``, unless vaultmem is installed in
    the user's site-packages, which ``-I`` leaves out too."""
    if sys.version_info >= (3, 11):
        return ["-P"]
    import site

    user_site = site.getusersitepackages()
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    return [] if here.startswith(os.path.abspath(user_site) + os.sep) else ["-I"]


def hook_prefix(
    program: Sequence[str] | str, *, vault: str | None = None, project: str | None = None
) -> str:
    """The shell text before ``hook <name>``: the program (argv, shell-quoted; or a command line
    as given) and the global options, the vault as an absolute path."""
    head = program if isinstance(program, str) else shlex.join(program)
    options: list[str] = []
    if vault:
        options += ["--vault", os.path.abspath(os.path.expanduser(vault))]
    if project:
        options += ["--project", project]
    return " ".join([head, *map(shlex.quote, options)])


def _update_in_place(entries: list[Any], hook: dict[str, Any], command: str) -> bool:
    """Update the first existing entry for the same vaultmem hook and drop later duplicates."""
    name = _hook_name(hook, command)
    found = False
    emptied: list[int] = []
    for position, group in enumerate(entries):
        inner = group.get("hooks") if isinstance(group, dict) else None
        if not isinstance(inner, list) or not inner:
            continue
        kept = []
        for existing in inner:
            if _hook_name(existing, command) != name:
                kept.append(existing)
            elif not found:
                kept.append({**existing, **hook})
                found = True
        inner[:] = kept
        if not kept:
            emptied.append(position)
    for position in reversed(emptied):
        del entries[position]
    return found


# --- I/O -----------------------------------------------------------------------------------------


def rewrite_json(
    path: Path, change: Callable[[dict[str, Any]], dict[str, Any]], dry_run: bool
) -> InstallResult:
    """Apply ``change`` to the JSON object in ``path`` as install does: kept when equal, else a
    backup of the old bytes and an atomic write, refused when the file moved meanwhile."""
    return _rewrite(path, change, dry_run)


def _rewrite(
    path: Path, change: Callable[[dict[str, Any]], dict[str, Any]], dry_run: bool
) -> InstallResult:
    target = Path(os.path.realpath(path)) if path.is_symlink() else path
    old_bytes = _read_bytes(target)
    old_text = _decode(old_bytes, path) if old_bytes is not None else ""
    old = _parse(old_text, path) if old_bytes is not None else {}
    new = change(old)
    if old_bytes is not None and new == old:
        return InstallResult(path, False, None, "", dry_run)
    new_text = jsontext.dumps_exact(new, indent=2, ensure_ascii=False) + "\n"
    diff = "".join(
        difflib.unified_diff(
            old_text.splitlines(keepends=True),
            new_text.splitlines(keepends=True),
            fromfile=str(path) if old_bytes is not None else "/dev/null",
            tofile=str(path),
        )
    )
    if dry_run:
        return InstallResult(path, True, None, diff, True)
    backup = None
    if old_bytes is not None:
        backup = target.with_name(target.name + BACKUP_SUFFIX)
        _atomic_write(backup, old_bytes, mode_from=target)
    # Someone (Claude Code itself, a person) may have saved the file while we worked: never
    # overwrite what we did not read.
    if _read_bytes(target) != old_bytes:
        raise ConfigError(
            "settings file changed while vaultmem was editing it; run again", path=path
        )
    _atomic_write(target, new_text.encode("utf-8"), mode_from=target)
    return InstallResult(path, True, backup, diff, False)


def _read_bytes(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as err:
        raise ConfigError(f"cannot read settings: {err.strerror}", path=path) from None


def _decode(data: bytes, path: Path) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ConfigError("settings file is not UTF-8 text", path=path) from None


def _parse(text: str, path: Path) -> dict[str, Any]:
    if not text.strip():
        return {}
    try:
        value = jsontext.loads_exact(text)
    except json.JSONDecodeError as err:
        raise ConfigError(f"invalid JSON: {err.msg}", path=path, line=err.lineno) from None
    if not isinstance(value, dict):
        raise ConfigError("settings file is not a JSON object", path=path, line=1)
    _hooks_of(value)  # a "hooks" that is not an object is refused before anything is written
    return value


def _atomic_write(path: Path, data: bytes, *, mode_from: Path) -> None:
    try:
        mode: int | None = mode_from.stat().st_mode & 0o7777
    except FileNotFoundError:
        mode = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        replace_file(path, data, mode)
    except OSError as err:
        raise WriteFailed(f"cannot write settings: {err.strerror or err}", path=path) from None
