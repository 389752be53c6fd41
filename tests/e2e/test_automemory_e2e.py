"""The auto-memory folder vaultmem mirrors is the one the real Claude Code uses: Claude Code names
it in its system prompt ("a persistent file-based memory at `<folder>/`"), and a session
whose model writes ``MEMORY.md`` there is mirrored into the vault by the SessionEnd hook."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from vaultmem.memory import automirror

from .conftest import Claude, note_meta
from .standin import Text, ToolUse

pytestmark = pytest.mark.e2e

PROJECT = "e2e"


def named_folder(claude: Claude, cwd: Path | None = None) -> str:
    """The auto-memory folder the real Claude Code names to the model in a session in ``cwd``."""
    claude.standin.enqueue([Text("Noted.")])
    before = len(claude.standin.requests)
    proc = claude.run(["-p", "hello", "--output-format", "json"], cwd=cwd)
    assert proc.returncode == 0, proc.stderr
    text = "\n".join(r.text() for r in claude.standin.requests[before:] if r.kind == "turn")
    # 2.1.197 says "You have a persistent file-based memory at `<folder>/`"; older builds
    # "a persistent, file-based memory system at".
    found = re.search(r"persistent,? file-based memory(?: system)? at `([^`]+)`", text)
    assert found, "Claude Code's prompt names no auto-memory folder"
    return found.group(1).rstrip("/")


def ours(claude: Claude, cwd: Path) -> str:
    return automirror.where(str(cwd), env=claude.env, home=str(claude.home)).folder


def test_claude_code_and_vaultmem_name_the_same_folder(claude: Claude) -> None:
    sub = claude.project / "src" / "cart.app"
    sub.mkdir(parents=True)
    assert named_folder(claude) == ours(claude, claude.project)
    assert named_folder(claude, sub) == ours(claude, sub) == ours(claude, claude.project)


def test_a_worktree_uses_its_repositorys_folder(claude: Claude) -> None:
    project = claude.project
    (project / "a.txt").write_text("a\n")
    for args in (["add", "a.txt"], ["commit", "-qm", "a"],
                 ["worktree", "add", "-q", str(claude.root / "feature"), "-b", "feature"]):
        subprocess.run(["git", *args], cwd=project, env=claude.env, check=True, timeout=30)
    folder = named_folder(claude, claude.root / "feature")
    assert folder == ours(claude, claude.root / "feature") == ours(claude, project)


def test_the_directory_setting_moves_it_for_both(claude: Claude) -> None:
    claude.write_settings({"autoMemoryDirectory": "~/elsewhere/memory"})
    assert named_folder(claude) == ours(claude, claude.project) == str(
        claude.home / "elsewhere" / "memory")


def test_a_memory_claude_writes_is_mirrored_at_session_end(claude: Claude) -> None:
    vault = claude.root / "vault"
    vault.mkdir()  # only init and the default vault are created
    claude.env.update(VAULTMEM_VAULT=str(vault), VAULTMEM_PROJECT=PROJECT)
    proc = claude.vaultmem("install-hooks", "--scope", "user")
    assert proc.returncode == 0, proc.stderr
    memory = Path(ours(claude, claude.project)) / "MEMORY.md"
    claude.standin.enqueue(
        [ToolUse("Write", {"file_path": str(memory),
                           "content": "- The cart tests need REDIS_URL set\n"})],
        [Text("Saved to memory.")],
    )
    proc = claude.run(["-p", "remember that the cart tests need REDIS_URL",
                       "--output-format", "json", "--permission-mode", "acceptEdits"])
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert memory.read_text() == "- The cart tests need REDIS_URL set\n"
    mirror = vault / "claude" / "projects" / PROJECT / "auto-memory" / "MEMORY.md"
    assert mirror.read_text().endswith("- The cart tests need REDIS_URL set\n")
    meta = note_meta(mirror)
    assert meta["type"] == "auto-memory" and meta["source"] == str(memory)
    [link] = meta["sessions"]
    session = vault / (link[2:].split("|")[0] + ".md")
    assert result["session_id"] in note_meta(session)["session_ids"]
