"""Starting `vaultmem mcp`: the configuration, then the server of ``tools`` over stdio.

The launcher sends a bare ``vaultmem [--vault V] [--project P] mcp`` here directly, past the
Typer app (not even imported), so a client's cold start pays for the MCP SDK and the search,
not for the CLI.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager


def defer_model_builds() -> None:
    """Have pydantic build a model's validator when it is first used instead of when its class
    is defined. The MCP SDK defines some 550 models at import, of which a stdio session uses a
    few dozen: building them all is most of the server's start. A pydantic without the setting
    (a private default) starts slower and works the same."""
    try:
        from pydantic._internal import _config
    except ImportError:
        return
    defaults = getattr(_config, "config_defaults", None)
    if isinstance(defaults, dict) and "defer_build" in defaults:
        defaults["defer_build"] = True


@contextmanager
def deferred_adapters() -> Iterator[None]:
    """Inside: a pydantic TypeAdapter builds its validator when first used, not when created.
    The MCP SDK creates a dozen adapters over unions of every request, result and notification
    at import, of which a server uses a few; pydantic defers one only for an explicit
    ``defer_build`` in its own config. Adapters created outside are untouched; a pydantic
    without the (private) hook starts slower and works the same."""
    try:
        from pydantic.type_adapter import TypeAdapter
    except ImportError:
        yield
        return
    hook = "_defer_build"  # the property an adapter asks at creation whether to wait
    decides = vars(TypeAdapter).get(hook)
    if not isinstance(decides, property):
        yield
        return
    setattr(TypeAdapter, hook, property(lambda _adapter: True))
    try:
        yield
    finally:
        setattr(TypeAdapter, hook, decides)


def serve(vault: str | None, project: str | None) -> int:
    """Serve the vault of the options over stdio until the client closes the session; 1 with
    one line on stderr when the configuration cannot be read."""
    from vaultmem.store.config import load_config

    from ..errors import VaultmemError

    try:
        config = load_config(vault=vault, project=project)
    except VaultmemError as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    defer_model_builds()
    with deferred_adapters():
        from .tools import build, run_stdio

    run_stdio(build(config))
    # The client closed the session and every answer is written: leave without tearing down
    # the SDK's thousands of objects one by one (a second or more of a client's wait).
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)
