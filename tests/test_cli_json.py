"""``--json`` on init and context, like the other commands (patch's diff: test_cli_names.py)."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner, Result

from vaultmem.cli import _load_commands, app


def cli(vault: Path, *args: str) -> Result:
    _load_commands()
    return CliRunner().invoke(app, ["--vault", str(vault), "--project", "shop", *args])


def test_init_json(vault_root: Path, now_env: str) -> None:
    first = cli(vault_root, "init", "--json")
    again = cli(vault_root, "init", "--json")

    assert first.exit_code == again.exit_code == 0 and first.stderr == ""
    doc = json.loads(first.stdout)
    assert doc["vault"] == str(vault_root) and doc["project"] == "shop"
    assert "claude/projects/shop/_index.md" in doc["created"]
    assert "claude/projects/shop/sessions/" in doc["created"]
    assert json.loads(again.stdout)["created"] == []


def test_context_json_is_the_text_context_prints(vault_root: Path, now_env: str) -> None:
    assert cli(vault_root, "session", "start", "--topic", "Login").exit_code == 0
    assert cli(vault_root, "session", "decide", "Use JWT", "--why", "stateless").exit_code == 0

    plain = cli(vault_root, "context")
    doc = json.loads(cli(vault_root, "context", "--json").stdout)

    assert plain.exit_code == 0 and doc["text"] + "\n" == plain.stdout
    assert "Use JWT" in doc["text"] and doc["chars"] == len(doc["text"]) <= doc["max_chars"]
    assert doc["project"] == "shop"
    assert doc["sessions"] == ["claude/projects/shop/sessions/2026-11-22-login.md"]
