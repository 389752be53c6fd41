"""Commands for a vault shared between machines: git's merge driver and pre-commit check."""

from __future__ import annotations

import sys
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from . import app, run

if TYPE_CHECKING:
    from vaultmem.store.config import Config


@app.command("merge-driver")
def merge_driver(
    base: str = typer.Argument(..., help="The common ancestor (git's %O)."),
    ours: str = typer.Argument(..., help="This side (git's %A); the merged note replaces it."),
    theirs: str = typer.Argument(..., help="The other side (git's %B)."),
    name: str | None = typer.Argument(None, help="The note's path in the repository (%P)."),
) -> None:
    """Git's merge driver for vaultmem notes (set up by `vaultmem init --git`).

    Exit code 0 when merged; non-zero (git's own merge, conflict markers) when a side is not a
    note it can read, so git reports the conflict.
    """
    from vaultmem.memory.gitshare import merge_driver as drive

    outcome = drive(Path(base), Path(ours), Path(theirs), name)
    if outcome.message:
        typer.echo(outcome.message, err=True)
    raise typer.Exit(outcome.code)


def git_after_init(config: Config, *, setup: bool) -> None:
    """``init --git``: set git merging up and say what changed; plain ``init`` in a git
    repository without it: suggest it."""
    from vaultmem.memory import gitshare

    root = config.vault
    if not setup:
        if gitshare.in_git_repo(root) and not gitshare.is_set_up(root, config.namespace):
            typer.echo("the vault is a git repository: run `vaultmem init --git` so its notes "
                       "merge without conflicts (on each machine)")
        return
    from ..claude.install import runner

    done = run(lambda: gitshare.setup(root, config.namespace, runner(sys.executable)))
    typer.echo(f"git: {done.attributes.name} routes {gitshare.attributes_line(config.namespace)}"
               + ("" if done.attributes_written else " (already there)"))
    typer.echo("git: merge driver registered in this repository's config"
               + ("" if done.config_written else " (already there)"))
    from vaultmem.memory import secretgit

    hook = run(lambda: secretgit.install_hook(root, runner(sys.executable)))
    typer.echo(hook.message(runner(sys.executable)))
    # A link another machine wrote to a note moved here (or the reverse) follows it after a pull:
    # post-merge runs after `git pull`, post-rewrite after `git pull --rebase` (and an amend).
    for event, by in (("post-merge", "merge"), ("post-rewrite", "rebase")):
        mend = run(partial(
            secretgit.install_hook, root, runner(sys.executable), hook=event, mark=MEND_MARK,
            args=("--vault", str(root.resolve()), "mend-links"),
            purpose=f"makes links follow the notes a {by} moved"))
        typer.echo(mend.message(runner(sys.executable)))
    if done.untracked:
        typer.echo(f"git: {done.untracked} machine-local files of .vaultmem/ no longer tracked "
                   "(still on disk): commit that")


MEND_MARK = "# vaultmem: links follow moved notes"


@app.command("mend-links")
def mend_links(ctx: typer.Context) -> None:
    """Write the path links of vaultmem's notes to notes that moved (promoted, merged, renamed,
    archived or relocated, often on another machine) to where those notes are now.

    git runs it after each merge and rebase (the post-merge and post-rewrite hooks `vaultmem init
    --git` installs). One line per note changed; exit code 0.
    """
    from vaultmem.memory.linkmend import mend

    from . import globals_of

    vault = globals_of(ctx).vault_obj()
    for done in run(lambda: mend(vault)):
        typer.echo(str(done))


@app.command("check-staged")
def check_staged(ctx: typer.Context) -> None:
    """Refuse a commit that adds a secret (git's pre-commit hook, set up by `vaultmem init --git`).

    One line per secret on stderr, `file:line: a <kind> secret is staged`, never the value;
    exit code 1 when there is one, 0 otherwise. Values `[redact] allow` lists are not secrets.
    """
    from vaultmem.memory.secretgit import staged_secrets

    from . import globals_of

    config = globals_of(ctx).config()
    found = run(lambda: staged_secrets(Path.cwd(), config.redaction.allow))
    for secret in found:
        typer.echo(str(secret), err=True)
    if found:
        raise typer.Exit(1)
