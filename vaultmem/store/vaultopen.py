"""The one way vaultmem opens a vault: from the user's config, with its redaction settings.

The CLI, the hooks and the MCP server each used to build a ``Vault`` by hand, and one of them
(the MCP server) forgot ``[redact]``: what a client remembered was written with the default
settings, whatever the user had allowed or turned off. ``open_vault`` is that construction in one
place (``tests/test_vaultopen.py`` fails when a ``Vault(...)`` is built elsewhere in the package).
"""

from __future__ import annotations

from pathlib import Path

from vaultmem.store.config import Config
from vaultmem.store.vault import Vault


def open_vault(config: Config, *, root: Path | None = None) -> Vault:
    """The vault ``config`` names (or ``root``, a folder set up with this config), with the
    config's namespace and redaction."""
    return Vault(config.vault if root is None else root, namespace=config.namespace,
                 redaction=config.redaction)
