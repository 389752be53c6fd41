"""docs/CLI.md is the commands' own --help (generated; this test fails when it is stale), and
every command has help text to generate it from."""

from __future__ import annotations

from pathlib import Path

import typer.main

from vaultmem.cli import _load_commands, app
from vaultmem.cli.reference import render

REPO = Path(__file__).resolve().parent.parent


def test_the_command_reference_is_current() -> None:
    written = (REPO / "docs/CLI.md").read_text(encoding="utf-8")
    assert written == render(), (
        "docs/CLI.md is stale: run `python -m vaultmem.cli.reference > docs/CLI.md`")


def test_every_command_has_help_text() -> None:
    _load_commands()
    root = typer.main.get_command(app)
    stack = [("vaultmem", root)]
    while stack:
        name, command = stack.pop()
        assert (command.help or "").strip(), f"`{name}` has no help text"
        for sub_name, sub in (getattr(command, "commands", None) or {}).items():
            stack.append((f"{name} {sub_name}", sub))
