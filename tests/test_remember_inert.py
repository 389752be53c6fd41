"""Remembered text is inert (issue 30 §6): over the CLI and MCP, a lone ``%%`` cannot hide the
rest of the session note in Obsidian, a fence cannot swallow the next lines, and an embed or a
link out of the vault is kept as words, not followed."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from markdown_it import MarkdownIt
from mcp.client.session import ClientSession
from test_mcp import payload, run

from vaultmem.claude.install import runner
from vaultmem.notes import facts
from vaultmem.notes.inline import inert


@pytest.mark.parametrize("text, expected", [
    ("hide %% the rest", "hide \\%\\% the rest"),
    ("100%% sure, 50% off", "100\\%\\% sure, 50\\% off"),
    ("see ![[../../etc/passwd]] now", "see `![[../../etc/passwd]]` now"),
    ("![[Auth]]", "`![[Auth]]`"),
    ("[[../x|y]] [a](/etc/x) [f](file:///etc) [h](~/.ssh/id)",
     "`[[../x|y]]` `[a](/etc/x)` `[f](file:///etc)` `[h](~/.ssh/id)`"),
    ("![pixel](https://t.example/p.png)", "`![pixel](https://t.example/p.png)`"),
    ("<iframe src=x>", "\\<iframe src=x>"),
])
def test_what_obsidian_would_act_on_is_made_inert(text: str, expected: str) -> None:
    assert inert(text) == expected


@pytest.mark.parametrize("text", [
    "[[Auth]] uses [[Auth#Tokens|tokens]]", "[docs](https://example.com/a(b)) and [n](notes/a.md)",
    "keep `%% in code` and `![[x]]` as written", "a < b and 3% of it", "plain words",
])
def test_links_inside_the_vault_and_code_spans_are_kept(text: str) -> None:
    assert inert(text) == text


ATTACK = ("Use argon2id %% hidden ![[../../../../etc/hosts]] and [k](file:///home/u/.ssh/id_rsa)"
          " ```")
FENCE = "``` python"


def _rendered_text(note: str) -> str:
    """What Obsidian shows of the note's body: markdown-it's text, comments taken out."""
    return facts.visible(note)


def _check(note: str) -> None:
    assert "%%" not in note.replace("\\%\\%", "")  # no comment can open
    assert "../../../../etc/hosts]]`" in note and "`![[" in note
    assert "`[k](file:///home/u/.ssh/id_rsa)`" in note
    tokens = MarkdownIt("commonmark").parse(note)
    assert not [t for t in tokens if t.type == "fence"]  # no fence swallows what follows
    assert "## Decisions Made" in note and "Next in line" in _rendered_text(note)


def _cli(vault: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*runner(sys.executable), "--vault", str(vault), "--project", "shop",
                           *args], capture_output=True, text=True, timeout=60, check=False)


def test_the_cli_remembers_words_not_markup(vault_root: Path) -> None:
    for text in (ATTACK, FENCE, "Next in line"):
        done = _cli(vault_root, "remember", "--kind", "decision", "--json", text)
        assert done.returncode == 0, done.stderr
    note = (vault_root / json.loads(done.stdout)["note"]).read_text()
    _check(note)
    assert "- \\``` python" in note


def test_mcp_remembers_words_not_markup(vault_root: Path) -> None:
    async def body(session: ClientSession) -> Any:
        for text in (ATTACK, FENCE):
            payload(await session.call_tool("remember", {"text": text, "kind": "decision",
                                                         "why": "a %% b"}))
        return payload(await session.call_tool("remember", {"text": "Next in line",
                                                            "kind": "decision"}))

    got = run(vault_root, body)
    note = (vault_root / got["note"]).read_text()
    _check(note)
    assert "why: a \\%\\% b" in note
