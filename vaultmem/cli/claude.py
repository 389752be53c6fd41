"""Claude Code integration commands: hook, install-hooks, uninstall-hooks, context."""

from __future__ import annotations

import os
import shlex
import sys
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from vaultmem.errors import GitError
from vaultmem.store import git

from . import app, echo_json, globals_of, run

if TYPE_CHECKING:
    from vaultmem.store.config import Config
    from vaultmem.store.vaultrecord import ConfigWrite

    from ..claude.install import InstallResult
    from ..claude.installcheck import Finding


class Scope(str, Enum):
    user = "user"
    project = "project"
    local = "local"


def _project_dir() -> Path:
    """The git checkout's top folder (project and local settings live there), else the cwd."""
    try:
        top = git.run(["rev-parse", "--show-toplevel"], Path.cwd(), timeout=5).out.strip()
    except GitError:
        top = ""
    return Path(top) if top else Path.cwd()


@app.command()
def hook(
    ctx: typer.Context,
    event: str = typer.Argument(
        ..., help="session-start | stop | pre-compact | session-end | user-prompt-submit | "
        "post-tool-use-failure"),
) -> None:
    """Handle a Claude Code hook event (payload JSON on stdin). Always exits 0."""
    from ..claude.hooks import main as hook_main

    g = globals_of(ctx)
    # Hooks read their configuration from the environment; carry the global options there.
    for key, value in (("VAULTMEM_VAULT", g.vault), ("VAULTMEM_PROJECT", g.project)):
        if value:
            os.environ[key] = value
    raise typer.Exit(hook_main([event]))


def _install(ctx: typer.Context, scope: Scope, command: str | None, dry_run: bool,
             as_json: bool, remove: bool, mcp: bool = False, force: bool = False) -> None:
    from ..claude import install, installcheck

    home, project_dir = Path.home(), _project_dir()
    if mcp:
        _install_mcp(ctx, scope, command, dry_run, as_json, remove)
        return
    if remove:
        result = run(lambda: install.uninstall(
            scope.value, home=home, project_dir=project_dir,
            command=command or install.DEFAULT_COMMAND, dry_run=dry_run))
        _render_install(result, as_json=as_json, verb="removed", same="nothing to remove")
        return
    g = globals_of(ctx)
    config = g.config()
    # A vault named for this run (option or VAULTMEM_VAULT) goes into the hooks (Claude Code
    # may not have the variable) and into config.toml, so the skill, the slash commands and
    # the person's own commands use it too. The default vault is created by the first hook.
    vault = g.vault or os.environ.get("VAULTMEM_VAULT") or None
    if config.vault_from != "default":
        g.vault_obj()
    recorded = None if dry_run else run(lambda: _record(config, force))
    program = command or shlex.join(install.runner(sys.executable))
    result = run(lambda: install.install(
        scope.value, home=home, project_dir=project_dir, command=program, vault=vault,
        project=g.project, dry_run=dry_run))
    _render_install(result, as_json=as_json, verb="installed", same="already installed")
    if dry_run and not as_json:
        # The warnings the real run would print, about the settings as it would leave them.
        for finding in installcheck.check(home=home, project_dir=project_dir,
                                          run_commands=False, installing=result.path):
            typer.echo(f"warning: {finding}", err=True)
    if dry_run or as_json:
        return
    said = recorded.message(config.vault) if recorded else None
    if said:
        typer.echo(said)
    where = ("the default: name yours with --vault, it is then written to config.toml"
             if config.vault_from == "default" else "every command's, from config.toml")
    typer.echo(f"sessions go to the vault {config.vault} ({where})")
    for finding in installcheck.check(home=home, project_dir=project_dir, run_commands=False):
        typer.echo(f"warning: {finding}", err=True)


def _install_mcp(ctx: typer.Context, scope: Scope, command: str | None, dry_run: bool,
                 as_json: bool, remove: bool) -> None:
    """Register (or remove) `vaultmem mcp` as Claude Code's `claude mcp add` would."""
    from ..claude import install, mcpinstall

    home, project_dir = Path.home(), _project_dir()
    if remove:
        result = run(lambda: mcpinstall.uninstall(scope.value, home=home,
                                                  project_dir=project_dir, dry_run=dry_run))
        _render_install(result, as_json=as_json, verb="removed", same="nothing to remove")
        return
    g = globals_of(ctx)
    vault = g.vault or os.environ.get("VAULTMEM_VAULT") or None
    entry = mcpinstall.server_entry(command or install.runner(sys.executable), vault=vault,
                                    project=g.project)
    result = run(lambda: mcpinstall.install(scope.value, home=home, project_dir=project_dir,
                                            entry=entry, dry_run=dry_run))
    _render_install(result, as_json=as_json, verb="installed the MCP server",
                    same="MCP server already installed")
    machine = mcpinstall.machine_path(entry)
    if scope is Scope.project and machine:
        typer.echo(f"warning: {result.path} is shared with the repository and names {machine}, "
                   "a path of this machine: other machines will not find it; use --scope "
                   "local, or --command vaultmem if vaultmem is on every machine's PATH",
                   err=True)


def _record(config: Config, force: bool) -> ConfigWrite:
    from vaultmem.store.config import config_file
    from vaultmem.store.vaultrecord import record_vault

    return record_vault(config, config_file(), force=force)


def _render_install(result: InstallResult, *, as_json: bool, verb: str, same: str) -> None:
    if as_json:
        echo_json({"path": str(result.path), "changed": result.changed,
                   "backup": str(result.backup) if result.backup else None,
                   "diff": result.diff, "dry_run": result.dry_run})
    elif result.dry_run:
        typer.echo(result.diff or f"{result.path}: no change")
    elif not result.changed:
        typer.echo(f"{result.path}: {same}")
    else:
        backup = f" (backup: {result.backup})" if result.backup else ""
        typer.echo(f"{result.path}: {verb}{backup}")


_SCOPE = typer.Option(Scope.user, "--scope", help="user: ~/.claude/settings.json; project: "
                      ".claude/settings.json; local: .claude/settings.local.json")
_COMMAND = typer.Option(None, "--command", help="How Claude Code should call vaultmem (default: "
                        "this installation, by absolute path).")
_DRY = typer.Option(False, "--dry-run", help="Print the diff, write nothing.")
_JSON = typer.Option(False, "--json", help="Report as JSON.")
_MCP = typer.Option(False, "--mcp", help="The MCP server `vaultmem mcp` instead of the hooks "
                    "(user: ~/.claude.json; project: .mcp.json; local: ~/.claude.json for this "
                    "folder), as `claude mcp add` writes it.")


@app.command("install-hooks")
def install_hooks(ctx: typer.Context, scope: Scope = _SCOPE, command: str | None = _COMMAND,
                  dry_run: bool = _DRY, as_json: bool = _JSON, mcp: bool = _MCP,
                  check: bool = typer.Option(False, "--check", help="Only check the installed "
                                             "hooks run (and run once); exit 1 when not."),
                  force: bool = typer.Option(False, "--force", help="Replace the vault "
                                             "config.toml names with --vault's.")) -> None:
    """Add vaultmem's hooks to Claude Code's settings (keeps everything else; idempotent).

    The hooks run this installation by absolute path, with the --vault and --project given;
    a vault given by --vault or VAULTMEM_VAULT is written to config.toml for every command.
    """
    if check:
        _check(ctx, as_json)
        return
    _install(ctx, scope, command, dry_run, as_json, remove=False, mcp=mcp, force=force)


def hook_findings(vault: Path | None = None) -> list[Finding]:
    """What would stop vaultmem's hooks for the current folder (doctor shows these too); no
    program from the project or ``vault`` is run."""
    from ..claude import installcheck

    return installcheck.check(home=Path.home(), project_dir=_project_dir(), vault=vault)


def _check(ctx: typer.Context, as_json: bool) -> None:
    from ..claude.installcheck import installed_anywhere

    # The vault's path (not required to exist yet): no program inside it is run.
    vault = globals_of(ctx).config().vault
    findings = hook_findings(vault)
    present = installed_anywhere(home=Path.home(), project_dir=_project_dir())
    if as_json:
        echo_json({"installed": present, "findings": [f.to_json() for f in findings]})
    else:
        for finding in findings:
            typer.echo(str(finding))
        if not present:
            typer.echo("hooks: not installed (no vaultmem hooks in Claude Code's user, project "
                       "or local settings, no vaultmem plugin enabled): run `vaultmem "
                       "install-hooks`")
        elif not findings:
            typer.echo("hooks: no problems")
    if findings or not present:
        raise typer.Exit(1)


@app.command("uninstall-hooks")
def uninstall_hooks(ctx: typer.Context, scope: Scope = _SCOPE, command: str | None = _COMMAND,
                    dry_run: bool = _DRY, as_json: bool = _JSON, mcp: bool = _MCP) -> None:
    """Remove vaultmem's hooks, in every form vaultmem ever wrote (and a custom --command)."""
    _install(ctx, scope, command, dry_run, as_json, remove=True, mcp=mcp)


@app.command()
def review(
    ctx: typer.Context,
    confirm: str = typer.Option("", "--confirm", help="Re-anchor this block id to the code now."),
    retire: str = typer.Option("", "--retire", help="Strike this block id through (kept, out of the briefing)."),
    as_json: bool = _JSON,
) -> None:
    """List remembered decisions and gotchas whose code changed since; confirm or retire one."""
    from vaultmem.brief import staleness

    g = globals_of(ctx)
    vault, config = g.vault_obj(), g.config()
    if confirm or retire:
        rel = run(lambda: staleness.confirm(vault, config, confirm, Path.cwd()) if confirm
                  else staleness.retire(vault, config, retire))
        typer.echo(f"{'confirmed' if confirm else 'retired'} ^{(confirm or retire).lstrip('^')} in {rel}")
        return
    flags = run(lambda: staleness.review(vault, config, Path.cwd()))
    if as_json:
        echo_json({"flags": [{"note": f.rel, "block": f.block, "text": f.text,
                               "commit": f.commit, "files": list(f.files)} for f in flags]})
        return
    for f in flags:
        typer.echo(f"^{f.block}  {f.text}  (changed since {f.commit[:7] or 'anchored'}: "
                   f"{', '.join(f.files)})  [{f.rel}]")
    if not flags:
        typer.echo("no remembered item's code changed since it was anchored")


@app.command()
def context(ctx: typer.Context, as_json: bool = _JSON) -> None:
    """Print exactly what the session-start hook would inject into Claude's context."""
    from vaultmem.brief import briefing

    g = globals_of(ctx)
    vault, config = g.vault_obj(), g.config()
    text = run(lambda: briefing.build(vault, config, cwd=Path.cwd()))
    if as_json:
        echo_json({"vault": str(config.vault), "project": config.project, "text": text,
                   "chars": len(text), "max_chars": config.context_max_chars,
                   "sessions": run(lambda: briefing.recent_sessions(vault, config.project))})
        return
    if not text:
        typer.echo(f"no memory for project {config.project} yet: a session start injects "
                   "nothing", err=True)
        return
    typer.echo(text)
