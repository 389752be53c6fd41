"""`vaultmem mcp`'s server: the vault over MCP (stdio) on the official Python SDK.

A door beside the CLI, kept out of ``cli`` so a client's cold start does not import Typer: this
package may import the briefing (``brief``), the memory use-cases, search, the store
and the notes core; only ``cli`` (its ``mcp`` command) and the launcher import from here.
"""
