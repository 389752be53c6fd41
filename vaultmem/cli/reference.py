"""The command reference, generated from the commands' own ``--help``: ``python -m
vaultmem.cli.reference > docs/CLI.md``. A test (tests/test_cli_reference.py) fails when the file
is stale, so the reference can only say what the commands say."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from typing import Any

import typer.core
import typer.main

HEAD = """# Command reference

Generated from each command's `--help` by `python -m vaultmem.cli.reference > docs/CLI.md`
(a test fails when this file is stale): edit the commands' help, not this file. The guide to
using them is [REFERENCE.md](REFERENCE.md).
"""


# A command as Typer builds it (Typer carries its own copy of click: typed loosely here).
Command = Any


def _walk(chain: tuple[tuple[str, Command], ...]) -> Iterator[tuple[tuple[str, Command], ...]]:
    """Every command under the last of ``chain`` (name, command pairs from the root), each as
    its own chain."""
    yield chain
    commands: dict[str, Command] = getattr(chain[-1][1], "commands", None) or {}
    for name, sub in commands.items():  # by name (see _sort)
        if not sub.hidden:
            yield from _walk((*chain, (name, sub)))


def _sort(command: Command) -> None:
    """Every group's commands by name: the order they were made in is the order their modules
    were first imported, which differs between processes (a test run imports them in its own)."""
    commands: dict[str, Command] | None = getattr(command, "commands", None)
    if not commands:
        return
    ordered = dict(sorted(commands.items()))
    commands.clear()
    commands.update(ordered)
    for sub in ordered.values():
        _sort(sub)


def _plain_help(chain: tuple[tuple[str, Command], ...]) -> str:
    """``--help`` as click lays it out (not Typer's Rich panels), 80 columns wide."""
    ctx = None
    for name, command in chain:
        ctx = command.context_class(command, info_name=name, parent=ctx, terminal_width=80,
                                    max_content_width=80)
    assert ctx is not None
    said = typer.core.HAS_RICH
    typer.core.HAS_RICH = False
    try:
        text: str = chain[-1][1].get_help(ctx)
    finally:
        typer.core.HAS_RICH = said
    return "\n".join(line.rstrip() for line in text.splitlines()).rstrip() + "\n"


def render() -> str:
    """The whole reference: every command and subcommand, in order, with its help."""
    from . import _load_commands, app

    _load_commands()
    root = typer.main.get_command(app)
    _sort(root)
    parts = [HEAD]
    for chain in _walk((("vaultmem", root),)):
        names = " ".join(name for name, _ in chain)
        parts.append(f"## `{names}`\n\n```text\n{_plain_help(chain)}```\n")
    return "\n".join(parts)


if __name__ == "__main__":
    sys.stdout.write(render())
