"""Commands on entity notes: merge and rename (issue 29)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import typer

from . import app, echo_json, globals_of, run

if TYPE_CHECKING:
    from vaultmem.memory.entitymerge import EntityChange

entity_app = typer.Typer(help="Merge and rename entity notes, every link with them.",
                         no_args_is_help=True)
app.add_typer(entity_app, name="entity")

_DRY_RUN = typer.Option(False, "--dry-run", help="Say what would change, write nothing.")
_JSON = typer.Option(False, "--json", help="Report as JSON.")


def _report(change: EntityChange, *, as_json: bool) -> None:
    if as_json:
        echo_json(change.to_json())
        return
    typer.echo(str(change))
    for rel, count in change.relinked:
        typer.echo(f"  {rel}: {count} link(s)")
    if change.status == "conflicted":
        raise typer.Exit(1)


def _do(ctx: typer.Context, act: Callable[..., EntityChange], a: str, b: str, *, dry_run: bool,
        as_json: bool) -> None:
    g = globals_of(ctx)
    project = g.config().project
    _report(run(lambda: act(g.vault_obj(), a, b, project=project, dry_run=dry_run)),
            as_json=as_json)


@entity_app.command("merge")
def entity_merge(
    ctx: typer.Context,
    source: str = typer.Argument(..., help="The entity that goes away (its name)."),
    target: str = typer.Argument(..., help="The entity that takes its lines and links."),
    dry_run: bool = _DRY_RUN,
    as_json: bool = _JSON,
) -> None:
    """Merge SOURCE into TARGET: its dated lines (each once), its name as an alias, and every
    link to it in the vault; then SOURCE is removed."""
    from vaultmem.memory import entitymerge

    _do(ctx, entitymerge.merge, source, target, dry_run=dry_run, as_json=as_json)


@entity_app.command("rename")
def entity_rename(
    ctx: typer.Context,
    source: str = typer.Argument(..., help="The entity's name now."),
    new_name: str = typer.Argument(..., help="Its new name (no note may have it yet)."),
    dry_run: bool = _DRY_RUN,
    as_json: bool = _JSON,
) -> None:
    """Rename an entity note, its title and every link to it in the vault (the old name stays
    an alias)."""
    from vaultmem.memory import entitymerge

    _do(ctx, entitymerge.rename, source, new_name, dry_run=dry_run, as_json=as_json)
