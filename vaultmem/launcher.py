"""Console entry point. Kept free of Typer and Rich: ``vaultmem hook …`` must start fast, so it
goes straight to the hook door (and its process leaves without Python's teardown), and a bare
``vaultmem mcp`` straight to the MCP server; everything else goes to the Typer app in
``vaultmem.cli``."""

from __future__ import annotations

import os
import sys


def _global_options(args: list[str]) -> tuple[dict[str, str], int]:
    """The global options ``--vault``/``--project`` at the front of ``args`` (by name, without
    the dashes) and the index of the first argument after them."""
    found: dict[str, str] = {}
    i = 0
    while i < len(args):
        if args[i] in ("--vault", "--project") and i + 1 < len(args):
            found[args[i][2:]] = args[i + 1]
            i += 2
        elif args[i].startswith(("--vault=", "--project=")):
            key, _, value = args[i][2:].partition("=")
            found[key] = value
            i += 1
        else:
            break
    return found, i


def _hook_fast_path(args: list[str]) -> list[str] | None:
    """The arguments after ``hook`` when this is a hook call, with global options moved into
    the environment (hooks read the configuration from there); else None."""
    options, i = _global_options(args)
    if args[i : i + 1] != ["hook"] or "--help" in args[i + 1 :]:
        return None
    os.environ.update({"VAULTMEM_" + key.upper(): value for key, value in options.items()})
    return args[i + 1 :]


def main(argv: list[str] | None = None) -> None:
    """``vaultmem``: hooks straight to the door, a bare ``mcp`` straight to the MCP server
    (a client waits for its start), every other command to the Typer app."""
    args = sys.argv[1:] if argv is None else argv
    hook_args = _hook_fast_path(args)
    if hook_args is not None:
        from .claude.hooks import main as hook_main

        code = hook_main(hook_args)
        if argv is None:
            _leave(code)
        raise SystemExit(code)
    options, i = _global_options(args)
    if args[i:] == ["mcp"]:
        from .serve.start import serve

        raise SystemExit(serve(options.get("vault"), options.get("project")))
    from .cli import run_app

    run_app(args)


def _leave(code: int) -> None:
    """End a hook's own process (the console script, ``python -m vaultmem``) without Python's
    teardown: its files are closed and its locks released by then, it starts no thread, and
    taking its ~250 modules apart one object at a time cost about 40 ms of a hook's CPU (a
    tenth of a SessionEnd). ``vaultmem mcp`` leaves the same way."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(code)
