"""The command line: a door. Each command builds the library object, makes one library call,
renders the result, and turns a VaultmemError into one line on stderr with exit code 1.
Usage errors are Typer's (exit code 2).

Commands live in small modules of this package by area; each registers itself on ``app``.
The top layer: it may import every other layer (claude, memory, search, store, notes); nothing
in the package imports from it except the launcher.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

import typer

from ..errors import VaultmemError

if TYPE_CHECKING:
    from vaultmem.store.config import Config
    from vaultmem.store.vault import Vault

app = typer.Typer(
    name="vaultmem",
    help="An Obsidian vault as the working memory of a coding agent.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

T = TypeVar("T")


@dataclass
class Globals:
    """The global options, resolved into a Config on first use."""

    vault: str | None = None
    project: str | None = None
    _config: Config | None = None
    _told: bool = False

    def config(self) -> Config:
        """The run's configuration (options > environment > config file); a bad config file is
        the CLI's one-line error, wherever a command asks for it."""
        if self._config is None:
            from vaultmem.store.config import load_config

            with errors_to_exit():
                self._config = load_config(vault=self.vault, project=self.project)
        return self._config

    def vault_obj(self, *, create: bool = False) -> Vault:
        """The vault the run works on: an existing folder (one error line naming the path
        otherwise), or one ``create`` may make. A person at a terminal is told which vault it
        is when the config file did not choose it."""
        from vaultmem.store.config import config_file
        from vaultmem.store.vaultchoice import notice, require_vault
        from vaultmem.store.vaultopen import open_vault

        config = self.config()
        with errors_to_exit():
            if not (create and not config.vault.exists() and not config.vault.is_symlink()):
                require_vault(config)
            said = notice(config, config_file())
            if said and not self._told and _stderr_is_terminal():
                typer.echo(said, err=True)
                self._told = True
            return open_vault(config)

    def vault_field(self) -> str | None:
        """The vault of this run for a --json document, once it is known."""
        return str(self._config.vault) if self._config is not None else None


# This invocation's globals, for what renders without the Typer context (echo_json).
_CURRENT: ContextVar[Globals | None] = ContextVar("vaultmem_cli_globals", default=None)


def _stderr_is_terminal() -> bool:
    try:
        return sys.stderr.isatty()
    except (OSError, ValueError):
        return False


def _print_version(value: bool) -> None:
    if value:
        from .. import __version__

        typer.echo(f"vaultmem {__version__}")
        raise typer.Exit()


@app.callback()
def _globals(
    ctx: typer.Context,
    vault: str | None = typer.Option(
        None, "--vault", help="Vault root (else VAULTMEM_VAULT, config file, ~/.claude-memory)."
    ),
    project: str | None = typer.Option(
        None, "--project", help="Project name (else the git repository, else the folder name)."
    ),
    _version: bool = typer.Option(
        False, "--version", is_eager=True, callback=_print_version, help="Print the version."
    ),
) -> None:
    """vaultmem: session notes, compaction into entity notes, recall."""
    ctx.obj = Globals(vault=vault, project=project)
    _CURRENT.set(ctx.obj)


def globals_of(ctx: typer.Context) -> Globals:
    """The global options of this invocation."""
    obj = ctx.find_root().obj
    return obj if isinstance(obj, Globals) else Globals()


def fail(message: str, code: int = 1) -> typer.Exit:
    """Print one line on stderr and return the Exit to raise."""
    typer.echo(f"error: {message}", err=True)
    return typer.Exit(code)


@contextmanager
def errors_to_exit() -> Iterator[None]:
    """Turn a VaultmemError into one stderr line and exit code 1."""
    try:
        yield
    except VaultmemError as err:
        raise fail(str(err)) from None
    except KeyboardInterrupt:
        raise fail("interrupted", 130) from None


def run(call: Callable[[], T]) -> T:
    """Run one library call with the CLI's error contract."""
    with errors_to_exit():
        return call()


def echo_json(data: Any) -> None:
    """Write a JSON document on stdout: indented for a person at a terminal, on one line for a
    program (Python's indenting encoder is several times slower: a doctor report of a large
    vault holds hundreds of thousands of entries). A document of a command that used a vault
    names it first (``vault``), so a program always knows which memory answered."""
    import json

    current = _CURRENT.get()
    vault = current.vault_field() if current is not None else None
    if isinstance(data, dict) and vault is not None and "vault" not in data:
        data = {"vault": vault, **data}

    indent = 2 if sys.stdout.isatty() else None
    typer.echo(json.dumps(data, indent=indent, ensure_ascii=False, default=str))


def read_text_arg(text: str | None) -> str:
    """TEXT argument, or stdin when it is ``-`` or missing and stdin is piped."""
    if text == "-" or (text is None and not sys.stdin.isatty()):
        return sys.stdin.read()
    if text is None:
        raise typer.BadParameter("give TEXT or '-' to read it from stdin")
    return text


def run_app(args: list[str]) -> None:
    """Run the Typer app with every command registered."""
    _load_commands()
    app(args=args, prog_name="vaultmem")


def _load_commands() -> None:
    # Each area module registers its commands on `app` when imported.
    from . import (  # noqa: F401
        claude,
        demo,
        entities,
        mcpserver,
        notes,
        reading,
        sessions,
        sharing,
    )

    _reflowed(app)


def _reflowed(typer_app: typer.Typer) -> None:
    """Every command's help is its docstring with the first paragraph's line breaks taken out:
    Typer's rich mode keeps them in the list of commands, which then breaks mid-sentence."""
    for info in typer_app.registered_commands:
        if info.help is None and info.callback is not None and info.callback.__doc__:
            info.help = first_paragraph_reflowed(info.callback.__doc__)
    for group in typer_app.registered_groups:
        if group.typer_instance is not None:
            _reflowed(group.typer_instance)


def first_paragraph_reflowed(doc: str) -> str:
    """``doc`` (a docstring) with its first paragraph on one line."""
    import inspect

    first, _, rest = inspect.cleandoc(doc).partition("\n\n")
    return " ".join(first.split()) + (f"\n\n{rest}" if rest else "")

