"""A bare MCP server on the official SDK, for the bench: ``python bench/bare_mcp_server.py``.

What any server on the SDK's low-level API costs at least: one ``recall`` tool that answers an
empty hit list, served over stdio, nothing of vaultmem imported. ``vaultmem mcp``'s own overhead
is its start and its answers measured beside this (bench/cases.py, bench/mcp_client.py).
"""

from __future__ import annotations

import os
import sys
from typing import Any

import anyio
from mcp import types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server


def build() -> Server[Any]:
    """The server: one tool, no resources."""

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[types.Tool(
            name="recall", description="Find nothing.",
            input_schema={"type": "object", "properties": {"query": {"type": "string"}}})])

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        text = '{"hits":[]}'
        return types.CallToolResult(content=[types.TextContent(type="text", text=text)])

    return Server("bare", on_list_tools=list_tools, on_call_tool=call_tool)


def main() -> None:
    """Serve until the client closes stdin, then leave as ``vaultmem mcp`` does."""
    server = build()

    async def run() -> None:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    anyio.run(run)
    sys.stdout.flush()
    os._exit(0)


if __name__ == "__main__":
    main()
