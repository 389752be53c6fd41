"""`vaultmem mcp`: the vault as an MCP server over stdio (the server is ``vaultmem.serve``,
imported only by this command: the MCP SDK costs every other command nothing). A bare
``vaultmem [--vault V] [--project P] mcp`` does not come through here: the launcher starts
``serve.start`` without Typer."""

from __future__ import annotations

import typer

from . import app, globals_of


@app.command("mcp")
def mcp_command(ctx: typer.Context) -> None:
    """Serve the vault to MCP clients over stdio (tools recall, remember, context, show; the
    project index as a resource). Register it with `vaultmem install-hooks --mcp`, or give a
    client (Claude Desktop, Cursor) the command `<path of vaultmem> --vault <vault> mcp`."""
    from ..serve.start import serve

    g = globals_of(ctx)
    raise typer.Exit(serve(g.vault, g.project))
