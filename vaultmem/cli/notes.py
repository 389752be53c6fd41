"""Commands on single notes: init, show, set, patch."""

from __future__ import annotations

from typing import TYPE_CHECKING

import typer

from . import app, echo_json, globals_of, read_text_arg, run

if TYPE_CHECKING:
    from vaultmem.store.vault import WriteResult


def _render_write(result: WriteResult, *, as_json: bool) -> None:
    if as_json:
        echo_json(
            {
                "path": result.rel,
                "status": result.status,
                "changed": result.changed,
                "created_headings": list(result.created_headings),
                "diff": result.diff,
            }
        )
        return
    if result.status == "dry-run":
        typer.echo(result.diff or f"{result.rel}: no change")
        return
    extra = f" (created {', '.join(result.created_headings)})" if result.created_headings else ""
    typer.echo(f"{result.rel}: {result.status}{extra}")


@app.command()
def show(
    ctx: typer.Context,
    note: str = typer.Argument(..., help="Vault-relative path (with or without .md) or note name."),
    as_json: bool = typer.Option(False, "--json", help="Frontmatter, headings and text as JSON."),
) -> None:
    """Print a note (resolved the Obsidian way)."""
    from vaultmem.memory import (
        editing,  # each command imports what it uses: `vaultmem --version` stays light
    )

    g = globals_of(ctx)
    # Loading another project's entity records a cross-project recall in it (DESIGN §7).
    view = run(lambda: editing.show(g.vault_obj(), note, current_project=g.config().project))
    if as_json:
        echo_json(view.to_json())
    else:
        typer.echo(view.text, nl=False)


@app.command("set")
def set_(
    ctx: typer.Context,
    note: str = typer.Argument(..., help="Vault-relative path or note name."),
    key: str = typer.Argument(..., help="Frontmatter key."),
    value: str = typer.Argument(..., help="Value, read as YAML (`[a, b]`, `42`, `true`), else text."),
    dry_run: bool = typer.Option(False, "--dry-run", help="Print the diff, write nothing."),
    as_json: bool = typer.Option(False, "--json", help="Report as JSON."),
) -> None:
    """Set one frontmatter key; only that key's lines change."""
    from vaultmem.memory import editing
    from vaultmem.notes.frontmatter import parse_value

    g = globals_of(ctx)
    vault, project = g.vault_obj(), g.config().project
    result = run(lambda: editing.set_property(vault, note, key, parse_value(value),
                                              dry_run=dry_run, project=project))
    _render_write(result, as_json=as_json)


# Markdown list items start with "-": unknown "options" are taken as TEXT, not rejected.
@app.command(context_settings={"ignore_unknown_options": True})
def patch(
    ctx: typer.Context,
    note: str = typer.Argument(..., help="Vault-relative path or note name."),
    text: str | None = typer.Argument(None, help="Content, or - to read stdin."),
    heading: str = typer.Option(..., "--heading", help="Heading path, e.g. 'Parent::Child'."),
    append: bool = typer.Option(False, "--append", help="Append to the section's own body."),
    prepend: bool = typer.Option(False, "--prepend", help="Insert right after the heading."),
    replace: bool = typer.Option(False, "--replace", help="Replace the section's body."),
    subtree: bool = typer.Option(False, "--subtree", help="Include the subsections."),
    create: bool = typer.Option(False, "--create", help="Create the heading when missing."),
    dry_run: bool = typer.Option(False, "--dry-run", help="Print the diff, write nothing."),
    as_json: bool = typer.Option(False, "--json", help="Report as JSON."),
) -> None:
    """Append, prepend or replace under a heading, with conflict detection."""
    from vaultmem.memory import editing
    from vaultmem.notes.sections import parse_path

    ops = [name for name, on in (("append", append), ("prepend", prepend), ("replace", replace)) if on]
    if len(ops) != 1:
        raise typer.BadParameter("give exactly one of --append, --prepend, --replace")
    content = read_text_arg(text)
    g = globals_of(ctx)
    vault, project = g.vault_obj(), g.config().project
    result = run(
        lambda: editing.patch_section(
            vault,
            note,
            parse_path(heading),
            ops[0],  # type: ignore[arg-type]
            content,
            subtree=subtree,
            create=create,
            dry_run=dry_run,
            project=project,
        )
    )
    _render_write(result, as_json=as_json)


@app.command()
def init(
    ctx: typer.Context,
    git: bool = typer.Option(False, "--git", help="Also merge the notes through git: "
                             ".gitattributes and this repository's merge driver (each machine)."),
    force: bool = typer.Option(False, "--force", help="Replace the vault config.toml names "
                               "with --vault's."),
    as_json: bool = typer.Option(False, "--json", help="Report as JSON."),
) -> None:
    """Create the vault's folders and the project's _index.md (safe to re-run); a vault given
    by --vault or VAULTMEM_VAULT is written to config.toml for every later command, unless the
    config names another vault already (kept; --force replaces it)."""
    from vaultmem.memory.sessions import Memory
    from vaultmem.store.config import config_file
    from vaultmem.store.vaultrecord import record_vault

    from .sharing import git_after_init

    if as_json and git:
        raise typer.BadParameter("--json reports init alone: run `init --git` apart")
    g = globals_of(ctx)
    config = g.config()
    vault = g.vault_obj(create=True)
    recorded = run(lambda: record_vault(config, config_file(), force=force, keep_other=True))
    created = run(lambda: Memory(config, vault).init_project())
    if as_json:
        echo_json({"vault": str(config.vault), "project": config.project, "created": created,
                   "config": recorded.status})
        return
    said = recorded.message(config.vault)
    if said:
        typer.echo(said)
    for rel in created:
        typer.echo(f"created {rel}")
    typer.echo(f"vault {config.vault} ready for project {config.project}"
               + ("" if created else " (nothing to create)"))
    git_after_init(config, setup=git)
