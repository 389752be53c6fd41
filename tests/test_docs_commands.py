"""Every ``vaultmem …`` command the shipped docs tell people and Claude to run exists.

Sources: skills/**/SKILL.md, commands/*.md, hooks/hooks.json and README.md. In Markdown only code
(inline spans, fenced and indented blocks) counts, so prose like "vaultmem turns a vault…" does
not; in hooks.json every ``command`` string. Each invocation must answer ``--help`` with exit 0.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hook_kit import REPO
from markdown_it import MarkdownIt

GLOBAL_OPTIONS = {"--vault", "--project"}
WORD = re.compile(r"[a-z][a-z0-9-]*")
# `vaultmem` where a shell command starts: a line (after a `$ ` prompt), or after && || ; | ( `.
CALL = re.compile(
    r"(?:^[ \t]*(?:\$[ \t]+)?|&&\s*|\|\|?\s*|;\s*|\(\s*|`\s*)vaultmem[ \t]+([^\n;&|)`]*)",
    re.MULTILINE,
)
CONFIG_LANGS = {"toml", "yaml", "yml", "json", "ini"}  # configuration, not commands


def _markdown_code(path: Path) -> Iterator[str]:
    for token in MarkdownIt().parse(path.read_text()):
        if token.type == "fence" and token.info.strip().lower() in CONFIG_LANGS:
            continue
        if token.type in ("fence", "code_block"):
            yield token.content
        for child in token.children or []:
            if child.type == "code_inline":
                yield child.content


def _json_commands(value: Any) -> Iterator[str]:
    if isinstance(value, dict):
        for key, item in value.items():
            if key == "command" and isinstance(item, str):
                yield item
            else:
                yield from _json_commands(item)
    elif isinstance(value, list):
        for item in value:
            yield from _json_commands(item)


def _snippets() -> Iterator[tuple[str, str]]:
    docs = sorted((REPO / "skills").glob("**/SKILL.md")) + sorted((REPO / "commands").glob("*.md"))
    docs += [REPO / "README.md", REPO / "docs" / "REFERENCE.md"]
    for path in docs:
        for code in _markdown_code(path):
            yield path.relative_to(REPO).as_posix(), code
    hooks = REPO / "hooks/hooks.json"
    for command in _json_commands(json.loads(hooks.read_text())):
        yield "hooks/hooks.json", command


def _invocation(rest: str) -> tuple[str, ...] | None:
    """(command[, subcommand]) of the words after ``vaultmem``; None for a bare mention."""
    try:
        words = shlex.split(rest, comments=True)
    except ValueError:
        words = rest.split()
    i = 0
    while i < len(words) and words[i].startswith("-"):
        option = words[i].split("=", 1)[0]
        i += 2 if option in GLOBAL_OPTIONS and "=" not in words[i] else 1
    if i >= len(words) or not WORD.fullmatch(words[i]):
        return None
    nxt = words[i + 1] if i + 1 < len(words) else ""
    # A following lowercase word may be a subcommand (`session log`); for a plain command it is
    # an argument, which `--help` ignores.
    return (words[i], nxt) if WORD.fullmatch(nxt) else (words[i],)


def _invocations() -> dict[tuple[str, ...], list[str]]:
    found: dict[tuple[str, ...], list[str]] = {}
    for source, code in _snippets():
        for match in CALL.finditer(code):
            call = _invocation(match.group(1))
            if call is not None:
                found.setdefault(call, []).append(source)
    return found


INVOCATIONS = _invocations()


def test_the_docs_mention_the_main_commands() -> None:
    # Guards the extraction itself: if it finds nothing, the test below proves nothing.
    commands = {call[0] for call in INVOCATIONS}
    assert {"hook", "install-hooks", "recall", "compact", "session", "status"} <= commands
    assert ("hook", "session-end") in INVOCATIONS
    assert ("session", "log") in INVOCATIONS


@pytest.mark.parametrize("call", sorted(INVOCATIONS), ids=" ".join)
def test_documented_command_exists(call: tuple[str, ...], tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "vaultmem", *call, "--help"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        timeout=120,
        check=False,
    )
    where = ", ".join(sorted(set(INVOCATIONS[call])))
    assert proc.returncode == 0, f"`vaultmem {' '.join(call)}` (in {where}): {proc.stderr}"
    assert "Usage" in proc.stdout or "usage" in proc.stdout
