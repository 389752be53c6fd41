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
removes it. ``installcheck.check`` says what would stop the installed hooks from working.
"""

from __future__ import annotations

import copy
import difflib
import json
import os
import shlex
import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from vaultmem.notes import jsonexact
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
    # The moment hooks (DESIGN §12). A Claude Code that does not know an event leaves its entry
    # unused; the other hooks run as before (tests/e2e/test_moments_e2e.py).
    "UserPromptSubmit": ("user-prompt-submit", 5),
    "PostToolUseFailure": ("post-tool-use-failure", 5),
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


def settings_or_empty(path: Path) -> dict[str, Any]:
    try:
        value = json.loads(path.read_text(encoding="utf-8-sig"))
    except (OSError, ValueError):
        return {}
    return value if isinstance(value, dict) else {}


def inner_hooks(groups: Any) -> Iterator[dict[str, Any]]:
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
    path: Path, change: Callable[[dict[str, Any]], dict[str, Any]], dry_run: bool,
    *, backup: bool = True,
) -> InstallResult:
    """Apply ``change`` to the JSON object in ``path`` as install does: kept when equal, else a
    backup of the old bytes (unless not ``backup``: a file of a work tree, which git keeps) and
    an atomic write, refused when the file moved meanwhile."""
    return _rewrite(path, change, dry_run, backup=backup)


def _rewrite(
    path: Path, change: Callable[[dict[str, Any]], dict[str, Any]], dry_run: bool,
    *, backup: bool = True,
) -> InstallResult:
    target = Path(os.path.realpath(path)) if path.is_symlink() else path
    old_bytes = _read_bytes(target)
    old_text = _decode(old_bytes, path) if old_bytes is not None else ""
    old = _parse(old_text, path) if old_bytes is not None else {}
    new = change(old)
    if old_bytes is not None and new == old:
        return InstallResult(path, False, None, "", dry_run)
    new_text = jsonexact.dumps_exact(new, indent=2, ensure_ascii=False) + "\n"
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
    saved = None
    if old_bytes is not None and backup:
        saved = target.with_name(target.name + BACKUP_SUFFIX)
        _atomic_write(saved, old_bytes, mode_from=target)
    # Someone (Claude Code itself, a person) may have saved the file while we worked: never
    # overwrite what we did not read.
    if _read_bytes(target) != old_bytes:
        raise ConfigError(
            "settings file changed while vaultmem was editing it; run again", path=path
        )
    _atomic_write(target, new_text.encode("utf-8"), mode_from=target)
    return InstallResult(path, True, saved, diff, False)


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
        value = jsonexact.loads_exact(text)
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
