"""One line, never a traceback, and plain wording (issue 21, item 6)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from hook_kit import REPO, frozen, snapshot
from typer.testing import CliRunner

from vaultmem.cli import _load_commands, app
from vaultmem.memory.reports import plural, verdict_line

_load_commands()


def _vaultmem(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    import os

    return subprocess.run([sys.executable, "-m", "vaultmem", *args], cwd=cwd, text=True,
                          capture_output=True, timeout=120, check=False,
                          env={**os.environ, "PYTHONPATH": str(REPO)})


def test_recall_on_a_read_only_vault_is_one_line(vault_root: Path, tmp_path: Path) -> None:
    (vault_root / "note.md").write_text("# Token refresh\n")
    (vault_root / ".vaultmem").mkdir()  # made by an earlier run: the index lock is next
    (vault_root / ".vaultmem/.gitignore").write_text("*\n")
    before = snapshot(vault_root)
    with frozen(vault_root):
        proc = _vaultmem("--vault", str(vault_root), "--project", "p", "recall", "token",
                         "--whole-vault", cwd=tmp_path)
    assert proc.returncode == 1 and proc.stdout == ""
    assert proc.stderr.startswith(f"error: {vault_root}/.vaultmem/locks/")
    assert ": cannot take the search index's lock: " in proc.stderr
    assert "(is the vault folder read-only?)" in proc.stderr
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr
    assert snapshot(vault_root) == before


def test_demo_given_a_file_is_one_line(tmp_path: Path) -> None:
    plain = tmp_path / "notes.txt"
    plain.write_text("mine")
    proc = _vaultmem("demo", str(plain), cwd=tmp_path)
    assert proc.returncode == 1 and proc.stdout == ""
    assert proc.stderr == (f"error: {plain}: not a folder (give an empty or new folder for "
                           "the demo)\n")
    assert plain.read_text() == "mine"


def test_check_with_nothing_installed_says_so(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["install-hooks", "--check"])
    assert result.exit_code == 1 and result.stderr == ""
    assert result.stdout.startswith("hooks: not installed (no vaultmem hooks in Claude Code's ")
    assert result.stdout.endswith("run `vaultmem install-hooks`\n")


@pytest.mark.parametrize("status,verdict,said", [
    ("below threshold", "below threshold (487 lines, 1 day old)",
     "below threshold (487 lines, 1 day old)"),
    ("already archived", "archived", "already archived"),
    ("compacted", "due: 623 lines", "compacted (due: 623 lines)"),
])
def test_a_verdict_is_said_once(status: str, verdict: str, said: str) -> None:
    assert verdict_line(status, verdict) == said


def test_counts_are_english() -> None:
    assert [plural(1, "problem"), plural(2, "gotcha"), plural(0, "note")] == [
        "1 problem", "2 gotchas", "0 notes"]


def test_compact_below_threshold_says_it_once(vault_root: Path, now_env: str) -> None:
    base = ["--vault", str(vault_root), "--project", "shop"]
    started = CliRunner().invoke(app, [*base, "session", "start", "--topic", "x"])
    note = started.stdout.split(": ")[0]
    result = CliRunner().invoke(app, [*base, "compact", note])
    assert result.exit_code == 0
    assert result.stdout.startswith(f"{note}: below threshold (")
    assert result.stdout.count("below threshold") == 1 and result.stdout.count("\n") == 1
