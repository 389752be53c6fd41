"""`vaultmem mcp`: the vault as an MCP server over stdio (the server is ``mcptools``, imported
only by this command: the MCP SDK costs every other command nothing)."""

from __future__ import annotations

import os
import sys

import typer

from . import app, globals_of


@app.command("mcp")
def mcp_command(ctx: typer.Context) -> None:
    """Serve the vault to MCP clients over stdio (tools recall, remember, context, show; the
    project index as a resource). Register it with `vaultmem install-hooks --mcp` or a client's
    MCP settings; see the README."""
    from .mcptools import build

    g = globals_of(ctx)
    build(g.config()).run("stdio")
    # The client closed the session and every answer is written: leave without tearing down
    # the SDK's thousands of objects one by one (a second or more of a client's wait).
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)
