"""``vaultmem demo``: the main job on a built-in sample vault."""

from __future__ import annotations

import tempfile
from pathlib import Path

import typer

from vaultmem.memory.reports import plural

from .. import clock
from . import app, run

_FOLDER = typer.Argument(
    None, help="An empty or new folder for the sample vault (default: a new temp folder)."
)


@app.command()
def demo(folder: Path | None = _FOLDER) -> None:
    """Run the whole story on a sample vault: a session, its compaction, the next session's context."""
    from vaultmem.claude.demo import run_demo

    root = folder or Path(tempfile.mkdtemp(prefix="vaultmem-demo-"))
    report = run(lambda: run_demo(root, now=clock.now()))
    echo = typer.echo
    echo(f"Sample vault: {report.root}\n")
    echo(f"1. A Claude session logged its work in {report.session_note}")
    c = report.compaction
    if c is not None:
        counts = ", ".join(plural(n, kind) for kind, n in c.counts.items() if n)
        # The note's size is said once: the count the threshold judged at session end.
        echo(f"2. Session end compacted it ({c.verdict}) in {c.duration_ms:.0f} ms "
             f"({c.extractor} extractor): {counts}")
        echo(f"   entities updated: {', '.join(c.entities_updated) or '-'}")
        echo(f"   entities created: {', '.join(c.entities_created) or '-'}")
        echo(f"   archived to:      {c.archive}")
    echo("3. The vault now holds:")
    for rel, lines in report.files:
        what = ("the session, its one full copy" if c is not None and rel == c.archive
                else "a stub linking the archive" if rel == report.session_note and c is not None
                else f"{lines} lines")
        echo(f"   {rel}  ({what})")
    if report.index_map:
        echo("   The project index maps it (kept by every compaction):")
        for line in report.index_map:
            echo(f"     {line}")
    if report.views:
        echo(f"   Obsidian Bases views: {', '.join(report.views)}")
    echo(f"\n4. `vaultmem recall \"{report.recall_query}\"` finds:")
    for kind, rel, snippet in report.recall_hits:
        echo(f"   [{kind}] {rel}\n       {snippet}")
    if report.code is not None:
        echo(f"\n5. The code changed after the session ({report.code}): `vaultmem review` lists")
        for line in report.flagged:
            echo(f"   {line}")
    echo("\n6. The next session starts with this context (what `vaultmem context` prints;")
    echo("   an item whose code changed since is marked `changed since`):\n")
    echo(report.context)
    echo(
        f"\nOpen it in Obsidian: 'Open folder as vault' -> {report.root}\n"
        f"Try: vaultmem --vault {report.root} --project demo-shop status"
    )
