"""Claude Code integration commands: hook, install-hooks, uninstall-hooks, context."""

from __future__ import annotations

import os
import subprocess
from enum import Enum
from pathlib import Path

import typer

from . import app, echo_json, globals_of, run


class Scope(str, Enum):
    user = "user"
    project = "project"
    local = "local"


def _project_dir() -> Path:
    """The git checkout's top folder (project and local settings live there), else the cwd."""
    try:
        out = subprocess.run(
            ["git", "rev-parse", "--show-toplevel"],
            capture_output=True, text=True, timeout=5, check=False,
        )
        if out.returncode == 0 and out.stdout.strip():
            return Path(out.stdout.strip())
    except (OSError, subprocess.SubprocessError):
        pass
    return Path.cwd()


@app.command()
def hook(
    ctx: typer.Context,
    event: str = typer.Argument(..., help="session-start | stop | pre-compact | session-end"),
) -> None:
    """Handle a Claude Code hook event (payload JSON on stdin). Always exits 0."""
    from ..claude.hooks import main as hook_main

    g = globals_of(ctx)
    # Hooks read their configuration from the environment; carry the global options there.
    for key, value in (("VAULTMEM_VAULT", g.vault), ("VAULTMEM_PROJECT", g.project)):
        if value:
            os.environ[key] = value
    raise typer.Exit(hook_main([event]))


def _install(scope: Scope, command: str, dry_run: bool, as_json: bool, remove: bool) -> None:
    from ..claude import install

    kwargs = {"home": Path.home(), "project_dir": _project_dir(), "command": command,
              "dry_run": dry_run}
    if remove:
        result = run(lambda: install.uninstall(scope.value, **kwargs))  # type: ignore[arg-type]
    else:
        result = run(lambda: install.install(scope.value, **kwargs))  # type: ignore[arg-type]
    if as_json:
        echo_json({"path": str(result.path), "changed": result.changed,
                   "backup": str(result.backup) if result.backup else None,
                   "diff": result.diff, "dry_run": result.dry_run})
    elif dry_run:
        typer.echo(result.diff or f"{result.path}: no change")
    elif not result.changed:
        typer.echo(f"{result.path}: {'nothing to remove' if remove else 'already installed'}")
    else:
        backup = f" (backup: {result.backup})" if result.backup else ""
        typer.echo(f"{result.path}: {'removed' if remove else 'installed'}{backup}")


_SCOPE = typer.Option(Scope.user, "--scope", help="user: ~/.claude/settings.json; project: "
                      ".claude/settings.json; local: .claude/settings.local.json")
_COMMAND = typer.Option("vaultmem", "--command", help="How Claude Code should call vaultmem.")
_DRY = typer.Option(False, "--dry-run", help="Print the diff, write nothing.")
_JSON = typer.Option(False, "--json", help="Report as JSON.")


@app.command("install-hooks")
def install_hooks(scope: Scope = _SCOPE, command: str = _COMMAND, dry_run: bool = _DRY,
                  as_json: bool = _JSON) -> None:
    """Add vaultmem's hooks to Claude Code's settings (keeps everything else; idempotent)."""
    _install(scope, command, dry_run, as_json, remove=False)


@app.command("uninstall-hooks")
def uninstall_hooks(scope: Scope = _SCOPE, command: str = _COMMAND, dry_run: bool = _DRY,
                    as_json: bool = _JSON) -> None:
    """Remove exactly the hooks install-hooks added."""
    _install(scope, command, dry_run, as_json, remove=True)


@app.command()
def context(ctx: typer.Context) -> None:
    """Print exactly what the session-start hook would inject into Claude's context."""
    from ..claude import briefing

    g = globals_of(ctx)
    text = run(lambda: briefing.build(g.vault_obj(), g.config()))
    typer.echo(text)
