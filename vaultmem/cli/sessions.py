"""Commands of the session lifecycle and compaction: session start|log|decide|end, remember,
compact, status.

Exit codes: 0 ok; 1 a VaultmemError (one line on stderr) or a compaction that failed; 2 usage.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

import typer

from vaultmem.notes.schema import Kind

from . import app, echo_json, globals_of, read_text_arg, run

if TYPE_CHECKING:
    from vaultmem.memory.reports import CompactReport
    from vaultmem.memory.sessions import Memory
    from vaultmem.notes.redact import Scrub

session_app = typer.Typer(help="Start, write to and end the session note.", no_args_is_help=True)
app.add_typer(session_app, name="session")

PROGRESS_MIN_NOTES = 10
# A list option: B008 wants the call outside the signature.
_ENTITY_OPTION = typer.Option(None, "--entity", help="Entity it concerns (repeatable).")


def _read_transcripts(paths: Sequence[str], max_chars: int, scrub: Scrub) -> str | None:
    from ..claude import condensed  # only when the claude extractor reads a session

    return condensed.read(paths, max_chars, scrub)


def _memory(ctx: typer.Context) -> Memory:
    from vaultmem.memory.sessions import Memory

    g = globals_of(ctx)
    def transcripts(paths: Sequence[str], max_chars: int) -> str | None:
        return _read_transcripts(paths, max_chars, g.config().redaction)

    memory = run(lambda: Memory(g.config(), g.vault_obj(), transcripts=transcripts))

    def warn() -> None:
        for message in memory.state.warnings:  # e.g. a corrupt state.json set aside
            typer.echo(f"warning: {message}", err=True)

    ctx.call_on_close(warn)
    return memory


def _continuing(archived: str | None) -> str:
    """Said when the session's note was compacted and a new note continues it."""
    return f" (a new note: {archived} was compacted and archived)" if archived else ""


@session_app.command("start")
def session_start(
    ctx: typer.Context,
    topic: str | None = typer.Option(None, "--topic", help="Topic of the note's name."),
    session_id: str | None = typer.Option(None, "--session-id", help="Claude session id."),
    as_json: bool = typer.Option(False, "--json", help="Report as JSON."),
) -> None:
    """Create (or resume) the session note and make it the project's current session."""
    memory = _memory(ctx)
    result = run(lambda: memory.start_session(session_id, topic=topic))
    if as_json:
        echo_json(result.to_dict())
    else:
        typer.echo(f"{result.note}: {'resumed' if result.resumed else 'created'}"
                   + _continuing(result.continues))


@session_app.command("log", context_settings={"ignore_unknown_options": True})
def session_log(
    ctx: typer.Context,
    text: str | None = typer.Argument(None, help="What happened, or - to read stdin."),
    title: str | None = typer.Option(None, "--title", help="Entry title (else its first words)."),
    session_id: str | None = typer.Option(None, "--session-id", help="Claude session id."),
    as_json: bool = typer.Option(False, "--json", help="Report as JSON."),
) -> None:
    """Append a `### HH:MM - Title` entry to the Work Log."""
    memory = _memory(ctx)
    body = read_text_arg(text)
    result = run(lambda: memory.log(body, title=title, session_id=session_id))
    if as_json:
        echo_json(result.to_dict())
    else:
        typer.echo(f"{result.note}: {result.status}" + _continuing(result.continues))


_KIND_OPTION = typer.Option(..., "--kind", case_sensitive=False,
                            help="Which section of the session note it goes to (any case).")


@app.command("remember", context_settings={"ignore_unknown_options": True})
def remember(
    ctx: typer.Context,
    text: str = typer.Argument(..., help="What to remember, one line."),
    kind: Kind = _KIND_OPTION,
    why: str | None = typer.Option(None, "--why", help="The reason."),
    entity: list[str] | None = _ENTITY_OPTION,
    session_id: str | None = typer.Option(None, "--session-id", help="Claude session id."),
    as_json: bool = typer.Option(False, "--json", help="Report as JSON."),
) -> None:
    """Record a decision, gotcha, prerequisite, next step or open question in the current
    session's note (starting one when there is none); compaction files it under its entity.
    Exit code 0 also when the note holds it already (status `unchanged`)."""
    _remember(ctx, text, kind.value, why, entity, session_id, as_json)


@session_app.command("decide", context_settings={"ignore_unknown_options": True})
def session_decide(
    ctx: typer.Context,
    text: str = typer.Argument(..., help="The decision."),
    why: str | None = typer.Option(None, "--why", help="The reason."),
    entity: list[str] | None = _ENTITY_OPTION,
    session_id: str | None = typer.Option(None, "--session-id", help="Claude session id."),
    as_json: bool = typer.Option(False, "--json", help="Report as JSON."),
) -> None:
    """Record a decision under Decisions Made: `vaultmem remember TEXT --kind decision`."""
    _remember(ctx, text, Kind.DECISION, why, entity, session_id, as_json)


def _remember(ctx: typer.Context, text: str, kind: str, why: str | None,
              entity: list[str] | None, session_id: str | None, as_json: bool) -> None:
    memory = _memory(ctx)
    result = run(lambda: memory.remember(text, kind=kind, why=why, entities=entity or (),
                                         session_id=session_id))
    if as_json:
        echo_json(result.to_dict())
    else:
        typer.echo(f"{result.note}: {result.status}" + _continuing(result.continues))


@session_app.command("end")
def session_end(
    ctx: typer.Context,
    reason: str = typer.Option(
        "manual", "--reason", help="normal, compaction, clear, logout, manual, other..."
    ),
    no_compact: bool = typer.Option(False, "--no-compact", help="Do not compact, even if due."),
    session_id: str | None = typer.Option(None, "--session-id", help="Claude session id."),
    as_json: bool = typer.Option(False, "--json", help="Report as JSON."),
) -> None:
    """Close the session note; compact it when the threshold is reached."""
    memory = _memory(ctx)
    result = run(
        lambda: memory.end_session(reason=reason, compact=not no_compact, session_id=session_id)
    )
    if as_json:
        echo_json(result.to_dict())
        return
    typer.echo(f"{result.note}: ended; {result.verdict}")
    if result.report:
        _render_report(result.report)


def _render_report(report: CompactReport) -> None:
    if report.status == "dry-run":
        typer.echo(f"{report.note}: dry run ({report.verdict})")
        for diff in report.diffs:
            typer.echo(diff, nl=False)
        return
    from vaultmem.memory.reports import plural, verdict_line

    typer.echo(f"{report.note}: {verdict_line(report.status, report.verdict)}")
    if report.status not in ("compacted", "failed"):
        return
    counts = ", ".join(plural(n, kind) for kind, n in report.counts.items())
    extractor = report.extractor
    if report.fallback_reason:
        extractor += f" (fallback: {report.fallback_reason})"
    if report.cost_usd is not None:
        extractor += f"; cost ${report.cost_usd:.4f}"
    typer.echo(f"  items: {counts or 'none'}; extractor: {extractor}")
    typer.echo(f"  entities updated: {', '.join(report.entities_updated) or 'none'}")
    typer.echo(f"  entities created: {', '.join(report.entities_created) or 'none'}")
    moved = " (original removed)" if report.removed else ""
    typer.echo(f"  archive: {report.archive or 'none'}{moved}; {report.duration_ms:.1f} ms")
    for warning in report.warnings:
        typer.echo(f"  warning: {warning}")


def _compact_all(
    memory: Memory, rels: Sequence[str], *, dry_run: bool, force: bool, move: bool,
    extractor: str | None,
) -> list[CompactReport]:
    def one(rel: str) -> CompactReport:
        return run(lambda: memory.compact_note(
            rel, dry_run=dry_run, force=force, move=move, extractor=extractor
        ))

    if len(rels) < PROGRESS_MIN_NOTES:
        return [one(rel) for rel in rels]
    from rich.console import Console
    from rich.progress import Progress

    reports: list[CompactReport] = []
    with Progress(console=Console(file=sys.stderr), transient=True) as progress:
        task = progress.add_task("compacting", total=len(rels))
        for rel in rels:
            reports.append(one(rel))
            progress.advance(task)
    return reports


@app.command()
def compact(
    ctx: typer.Context,
    note: str | None = typer.Argument(None, help="Session note (path or name)."),
    session_id: str | None = typer.Option(None, "--session", help="The note of this session id."),
    all_projects: bool = typer.Option(False, "--all", help="Session notes of every project."),
    dry_run: bool = typer.Option(False, "--dry-run", help="Print the diffs, write nothing."),
    force: bool = typer.Option(False, "--force", help="Compact even below the threshold."),
    move: bool = typer.Option(False, "--move", help="Remove the original once archived."),
    extractor: str | None = typer.Option(
        None, "--extractor", help="deterministic, llm or claude (else the config's)."
    ),
    as_json: bool = typer.Option(False, "--json", help="Reports as JSON."),
) -> None:
    """Compact session notes into entity notes and archive them (default: the project's notes)."""
    from vaultmem.store.config import EXTRACTORS

    if extractor not in (None, *EXTRACTORS):
        raise typer.BadParameter(", ".join(EXTRACTORS), param_hint="--extractor")
    memory = _memory(ctx)
    rels = run(lambda: memory.compact_targets(note, session_id=session_id,
                                              all_projects=all_projects))
    reports = _compact_all(memory, rels, dry_run=dry_run, force=force, move=move,
                           extractor=extractor)
    if as_json:
        echo_json({"reports": [r.to_dict() for r in reports]})
    else:
        for report in reports:
            _render_report(report)
        if not reports:
            typer.echo("no session notes to compact")
    failed = [r for r in reports if r.status == "failed"]
    if failed:
        for r in failed:
            typer.echo(f"error: {r.note}: {r.error}", err=True)
        raise typer.Exit(1)


@app.command()
def status(
    ctx: typer.Context,
    as_json: bool = typer.Option(False, "--json", help="Report as JSON."),
) -> None:
    """Session notes of the project with lines, age, status and threshold verdict, and what
    model extraction has cost the project."""
    from ..claude import injections

    memory = _memory(ctx)
    rows = run(memory.overview)
    costs = run(memory.extraction_costs)
    project = memory.config.project
    injected = injections.by_session(injections.read(memory.vault.state_dir), project,
                                     memory.state.current(project))
    if as_json:
        echo_json({"project": project, "sessions": [r.to_dict() for r in rows],
                   "extraction_cost": costs.to_dict(),
                   "injected": [s.to_json() for s in injected]})
        return
    if not rows:
        typer.echo(f"no session notes in project {memory.config.project}")
    for row in rows:
        said = row.verdict if row.verdict.startswith(row.status.replace("_", " ")) else (
            f"{row.status}: {row.verdict}")
        typer.echo(f"{row.note}  {said}")
    if costs.notes:
        typer.echo(f"extraction cost: ${costs.total_usd:.4f} over {costs.notes} "
                   f"session{'s' if costs.notes != 1 else ''} (project {costs.project})")
    for told in injected:
        which = "the current session" if told.current else "session"
        typer.echo(f"injected into {which} {told.session}: {told.chars:,} characters in "
                   f"{len(told.items)} injection{'s' if len(told.items) != 1 else ''}")
        for item in told.items:
            typer.echo(f"  {item.at[11:16]} {item.event} {item.chars:,} chars: {item.reason}")

