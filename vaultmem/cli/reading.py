"""Commands that read the vault: recall, doctor, promote."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from enum import Enum
from typing import TYPE_CHECKING

import typer

from . import app, echo_json, globals_of, run

if TYPE_CHECKING:
    from rich.console import Console

    from vaultmem.memory.doctor import DoctorReport
    from vaultmem.search.recall import Hit
    from vaultmem.store.vault import Vault

    from ..claude.installcheck import Finding


class NoteType(str, Enum):
    """The note types recall can filter on."""

    session = "session"
    entity = "entity"
    topic = "topic"


_TYPE_OPTION = typer.Option(None, "--type", help="Only notes of this type.")


@app.command()
def recall(
    ctx: typer.Context,
    query: str = typer.Argument(..., help="Words to find (all of them; any when none has all)."),
    project: str | None = typer.Option(
        None, "--project", help="Search this project (and global) instead of the current one."
    ),
    all_projects: bool = typer.Option(
        False, "--all-projects", help="Search every project (vaultmem's notes only)."
    ),
    whole_vault: bool = typer.Option(
        False, "--whole-vault",
        help="Search every note of the vault, your own notes outside vaultmem's folder too.",
    ),
    type_: NoteType | None = _TYPE_OPTION,
    limit: int = typer.Option(10, "--limit", min=1, help="At most this many results."),
    as_json: bool = typer.Option(False, "--json", help="Results as JSON (for skills)."),
) -> None:
    """Search the vault: the facts that match (decisions, gotchas, prerequisites, questions,
    next steps), then lines of notes that match elsewhere; each once (its copies listed),
    at most 300 characters, grouped under its note. The current project, entities and newer
    facts first; headings and other lines that say nothing last."""
    from vaultmem.notes.names import slug
    from vaultmem.search import index
    from vaultmem.search import recall as recall_mod

    if project and (all_projects or whole_vault):
        raise typer.BadParameter("give --project or --all-projects/--whole-vault, not both")
    g = globals_of(ctx)
    config = run(g.config)
    vault = g.vault_obj()
    result = run(
        lambda: recall_mod.recall(
            vault,
            config,
            query,
            project=slug(project) if project else None,
            all_projects=all_projects,
            type=type_.value if type_ else None,
            limit=limit,
            whole_vault=whole_vault,
        )
    )
    if result.stale:
        typer.echo("warning: another process held the search index's refresh lock past "
                   f"{index.DEFAULT_WAIT_S:g}s: answered from the index as it was (recent "
                   "changes may be missing)", err=True)
    if as_json:
        echo_json(result.to_json())
        return
    if not result.hits:
        typer.echo(f"no notes match {query!r}")
    _render_hits(result.hits)
    for suggestion in result.suggestions:
        typer.echo(f"tip: {suggestion}")


def _render_hits(hits: Sequence[Hit]) -> None:
    """The hits grouped under their note, as ``rg`` groups matches under a file: the note's path
    and what it is, then each hit's text indented (the matched words in bold at a terminal,
    plain text in a pipe) and, for a fact or a hit with copies, what it is and where."""
    console = None
    if sys.stdout.isatty():
        from rich.console import Console

        console = Console(highlight=False, soft_wrap=True)
    groups: dict[str, list[Hit]] = {}
    for hit in hits:
        groups.setdefault(hit.rel, []).append(hit)
    for n, (rel, grouped) in enumerate(groups.items()):
        first = grouped[0]
        what = " · ".join(x for x in (first.type, first.project, first.updated) if x)
        if n:
            typer.echo("")
        typer.echo(f"{rel}  ({what})" if what else rel)
        for hit in grouped:
            _render_text(console, hit)
            about = _about(hit)
            if about:
                typer.echo(f"      {about}")


def _render_text(console: Console | None, hit: Hit) -> None:
    """A hit's text, indented, its matched words in bold at a terminal."""
    if console is None:
        typer.echo(f"   {hit.text}")
        return
    from rich.text import Text

    shown = Text("   " + hit.text)
    for start, end in hit.matches:
        shown.stylize("bold yellow", start + 3, end + 3)
    console.print(shown)


def _about(hit: Hit) -> str:
    """What a fact is and the link to its line, and the other notes holding a copy."""
    parts: list[str] = []
    if hit.kind != "note":
        name = hit.rel.rsplit("/", 1)[-1].removesuffix(".md")
        link = f"[[{name}#^{hit.block}]]" if hit.block else ""
        parts += [x for x in (hit.kind, hit.date, link) if x]
    if hit.also:
        copies = len(hit.also)
        parts.append(f"also in {copies} other note{'s' if copies != 1 else ''}")
    return " · ".join(parts)


@app.command()
def doctor(
    ctx: typer.Context,
    as_json: bool = typer.Option(False, "--json", help="Problems as JSON."),
    fix: bool = typer.Option(False, "--fix", help="Merge sync-conflict copies into their notes "
                             "and move the copies to .vaultmem/conflicts/ (never deleted); "
                             "redact secrets in place; make the full originals of sessions "
                             "compacted before stubs existed stubs linking their archive; "
                             "write ambiguous links of vaultmem's notes by path, and "
                             "their links to notes that moved to where the notes are."),
    all_notes: bool = typer.Option(
        False, "--all", help="List and count problems in your own notes outside vaultmem's folder."
    ),
) -> None:
    """Check the vault: YAML, links, failed compactions, archives, locks, sync conflicts, names,
    merge conflicts, and whether Claude Code's hooks run vaultmem (once).

    One line each, `path:line: kind: message`. Exit code 1 for a problem in vaultmem's folder
    or its hooks; problems in your own notes are summed up apart and count only with --all.
    """
    from vaultmem.memory import doctor as doctor_mod

    from .claude import hook_findings

    g = globals_of(ctx)
    vault = g.vault_obj()
    report = run(lambda: doctor_mod.doctor(vault))
    _say_pushed(vault, report, err=as_json)  # before --fix redacts what it compares
    if fix:
        from vaultmem.memory.syncfix import fix_sync_conflicts

        from ..clock import now

        # A person's own notes (their `Meeting (1).md`) only with --all.
        copies = [p.rel for p in (report.problems if all_notes else report.ours())
                  if p.kind == "sync-conflict"]
        for done in run(lambda: fix_sync_conflicts(vault, copies, now=now())):
            typer.echo(str(done), err=as_json)
        from vaultmem.memory.secretfix import fix_secrets

        # A person's own notes are never rewritten: reported below, with or without --all.
        leaks = [p.rel for p in report.ours() if p.kind == "secret"]
        for fixed in run(lambda: fix_secrets(vault, leaks)):
            typer.echo(str(fixed), err=as_json)
        from vaultmem.memory.stubfix import fix_originals

        from ..clock import today

        twins = [p.rel for p in report.ours() if p.kind == "compacted-twin"]
        for stubbed in run(lambda: fix_originals(vault, twins, today=today())):
            typer.echo(str(stubbed), err=as_json)
        from vaultmem.memory.linkfix import fix_links

        ambiguous = [p.rel for p in report.ours() if p.kind == "ambiguous-link"]
        for linked in run(lambda: fix_links(vault, ambiguous)):
            typer.echo(str(linked), err=as_json)
        from vaultmem.memory.linkmend import mend

        dangling = [p.rel for p in report.ours() if p.kind == "unresolved-link"]
        for followed in run(lambda: mend(vault, dangling)):
            typer.echo(str(followed), err=as_json)
        report = run(lambda: doctor_mod.doctor(vault))
    if _render_doctor(report, hook_findings(vault.root), all_notes=all_notes, as_json=as_json,
                      fixed=fix):
        raise typer.Exit(1)


def _say_pushed(vault: Vault, report: DoctorReport, *, err: bool) -> None:
    """One line per note whose secret is already in pushed git history: rotate it."""
    from vaultmem.memory.secretfix import pushed_secrets

    leaks = [p.rel for p in report.problems if p.kind == "secret"]
    for rel, ref in run(lambda: pushed_secrets(vault, leaks)).items():
        typer.echo(f"{rel}: a secret in this note is already pushed ({ref}): rotate it; "
                   "redacting the note does not remove it from the history others have",
                   err=err)


def _render_doctor(
    report: DoctorReport, hooks: Sequence[Finding], *, all_notes: bool, as_json: bool, fixed: bool
) -> int:
    """Print the report; returns how many problems count towards the exit code."""

    from vaultmem.memory.doctorview import by_kind, fix_hint, lines, summary

    outside = report.outside()
    notes = [*report.ours(), *(outside if all_notes else ())]
    counted = len(notes) + len(hooks)
    if as_json:
        echo_json({**report.to_json(), "ok": counted == 0,
                   "hooks": [f.to_json() for f in hooks]})
        return counted
    for line in [*lines(notes), *map(str, hooks)]:
        typer.echo(line)
    if outside and not all_notes:
        said = by_kind(p.kind for p in outside)
        typer.echo(f"outside {report.namespace}/ (your own notes, not counted): {said}; "
                   "`vaultmem doctor --all` lists them")
    kinds_all = [*(p.kind for p in notes), *(f.kind for f in hooks)]
    typer.echo(summary(kinds_all, report.notes), err=counted > 0)
    # --fix never rewrites a person's own notes: only vaultmem's problems are named.
    hint = None if fixed else fix_hint([p.kind for p in report.ours()])
    if hint:
        typer.echo(hint, err=True)
    return counted


@app.command()
def promote(
    ctx: typer.Context,
    entity: str = typer.Argument(..., help="Entity name or vault path of a project entity."),
    dry_run: bool = typer.Option(False, "--dry-run", help="Show what would change; write nothing."),
    as_json: bool = typer.Option(False, "--json", help="Report as JSON."),
) -> None:
    """Move a project entity to global/entities and rewrite the links that pointed to it."""
    from vaultmem.memory import promote as promote_mod

    g = globals_of(ctx)
    config = run(g.config)
    vault = g.vault_obj()
    result = run(lambda: promote_mod.promote(vault, config, entity, dry_run=dry_run))
    if as_json:
        echo_json(result.to_json())
        return
    if result.status == "already-global":
        typer.echo(f"{result.target}: already global")
        return
    verb = "would move" if result.status == "dry-run" else "moved"
    typer.echo(f"{verb} {result.source} -> {result.target}")
    for change in result.changes:
        typer.echo(f"  {change.rel}:{change.line}: [[{change.old}]] -> [[{change.new}]]")
    done = "would rewrite" if result.status == "dry-run" else "rewrote"
    typer.echo(f"{done} {len(result.changes)} links")
    for rel, why in result.skipped:
        typer.echo(f"warning: {rel}: {why}", err=True)
