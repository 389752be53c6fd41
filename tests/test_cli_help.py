"""The list of commands a new user reads first (``vaultmem --help``) says each command's first
paragraph as flowing text, not broken where its docstring's lines end (Typer's rich mode keeps
those breaks in the list)."""

from __future__ import annotations

import os
import subprocess
import sys

from vaultmem.cli import first_paragraph_reflowed


def help_of(*args: str) -> str:
    env = {**os.environ, "COLUMNS": "200", "NO_COLOR": "1"}
    done = subprocess.run([sys.executable, "-m", "vaultmem", *args, "--help"], env=env,
                          capture_output=True, text=True, timeout=120, check=True)
    return done.stdout


def test_the_list_of_commands_flows_each_first_paragraph() -> None:
    said = help_of()
    # Each spans two lines of its docstring: one line of the list at 200 columns.
    assert "context, show; the project index as a resource). Register it with" in said
    assert "(safe to re-run); a vault given by --vault or VAULTMEM_VAULT is written" in said
    assert "and every link to it in the vault" in help_of("entity")


def test_only_the_first_paragraph_is_reflowed() -> None:
    doc = """Merge SOURCE into TARGET: its lines,
    and every link.

    Exit code 1:
    - when SOURCE is missing
    """
    assert first_paragraph_reflowed(doc) == (
        "Merge SOURCE into TARGET: its lines, and every link.\n\nExit code 1:\n"
        "- when SOURCE is missing")
