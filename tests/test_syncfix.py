"""doctor reports merge conflicts; doctor --fix merges sync-conflict copies and archives them."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import pytest
from typer.testing import CliRunner

from vaultmem.cli import _load_commands, app
from vaultmem.memory.doctor import Problem, doctor
from vaultmem.memory.syncfix import fix_sync_conflicts
from vaultmem.memory.syncnames import original_of
from vaultmem.store.vault import Vault

ENT = "claude/projects/demo/entities"
NOTE = """---
type: entity
tags:
  - claude/entity
updated: 2026-11-20
---
# Auth

## Key Decisions

- 2026-11-20 — Use JWT ([[a/s1|s1]]) ^vm-aaaa0001

## References

- [[Auth]] - itself
"""


def _write(root: Path, rel: str, text: str) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def _conflicts(root: Path) -> list[Problem]:
    """What doctor says about sync and merge conflicts (the notes' links resolve nowhere)."""
    return [p for p in doctor(Vault(root)).problems if p.kind.endswith("conflict")]


@pytest.mark.parametrize(("copy", "original"), [
    ("a/Auth (conflicted copy 2026-11-20 101010).md", "a/Auth.md"),
    ("a/Auth (Jane's conflicted copy 2026-11-20).md", "a/Auth.md"),
    ("a/Auth.sync-conflict-20261120-101010-ABCDEFG.md", "a/Auth.md"),
    ("Auth (1).md", "Auth.md"),
    ("a/Auth.md", None),
])
def test_original_of(copy: str, original: str | None) -> None:
    assert original_of(copy) == original


def test_git_markers_outside_code_are_reported(vault_root: Path) -> None:
    _write(vault_root, f"{ENT}/Auth.md", NOTE.replace(
        "- 2026-11-20", "<<<<<<< HEAD\n- 2026-11-21 — x ^vm-b\n=======\n- 2026-11-20", 1
    ).replace("^vm-aaaa0001\n", "^vm-aaaa0001\n>>>>>>> theirs\n"))
    _write(vault_root, f"{ENT}/Code.md", "# Code\n\n```\n<<<<<<< HEAD\n=======\n>>>>>>> x\n```\n")
    found = [(p.kind, p.rel, p.line) for p in _conflicts(vault_root)]
    assert found == [("merge-conflict", f"{ENT}/Auth.md", 11)]


def test_a_conflict_callout_is_reported(vault_root: Path) -> None:
    _write(vault_root, f"{ENT}/Auth.md", NOTE + "\n> [!conflict] Changed on both sides\n> a\n")
    assert [(p.kind, p.line) for p in _conflicts(vault_root)] == [("merge-conflict", 17)]


def test_fix_merges_a_syncthing_copy_and_archives_it(vault_root: Path) -> None:
    _write(vault_root, f"{ENT}/Auth.md", NOTE.replace(
        "^vm-aaaa0001\n", "^vm-aaaa0001\n- 2026-11-22 — Ours ([[a/s2|s2]]) ^vm-bbbb0002\n"))
    copy = f"{ENT}/Auth.sync-conflict-20261122-101500-ABCDEFG.md"
    copy_text = NOTE.replace(
        "^vm-aaaa0001\n", "^vm-aaaa0001\n- 2026-11-21 — Theirs ([[a/s3|s3]]) ^vm-cccc0003\n"
    ).replace("updated: 2026-11-20", "updated: 2026-11-21")
    _write(vault_root, copy, copy_text)
    vault = Vault(vault_root)
    assert [p.kind for p in _conflicts(vault_root)] == ["sync-conflict"]
    (done,) = fix_sync_conflicts(vault, [copy], now=datetime(2026, 11, 23, 9, 0))
    assert done.status == "merged" and done.conflicts == 0
    text = (vault_root / ENT / "Auth.md").read_text()
    assert text.count("^vm-") == 3 and text.index("Theirs") < text.index("Ours")
    assert "updated: 2026-11-21" in text
    archived = vault_root / ".vaultmem" / "conflicts" / "20261123T090000" / copy
    assert archived.read_text() == copy_text and not (vault_root / copy).exists()
    assert done.detail == archived.relative_to(vault_root).as_posix()
    assert _conflicts(vault_root) == []


def test_fix_leaves_what_it_cannot_merge(vault_root: Path) -> None:
    _write(vault_root, f"{ENT}/Auth.md", NOTE)
    bad = f"{ENT}/Auth (conflicted copy 2026-11-20).md"
    _write(vault_root, bad, "---\ntags: [unclosed\n---\n# Auth\n")
    orphan = f"{ENT}/Gone.sync-conflict-20261122-101500-ABCDEFG.md"
    _write(vault_root, orphan, NOTE)
    before = (vault_root / ENT / "Auth.md").read_bytes()
    results = fix_sync_conflicts(Vault(vault_root), [bad, orphan], now=datetime(2026, 11, 23))
    assert [r.status for r in results] == ["skipped", "skipped"]
    assert "cannot merge" in results[0].detail and "not there" in results[1].detail
    assert (vault_root / bad).exists() and (vault_root / orphan).exists()
    assert (vault_root / ENT / "Auth.md").read_bytes() == before


def test_cli_doctor_fix(vault_root: Path) -> None:
    _load_commands()
    note = NOTE.replace("[[a/s1|s1]]", "[[Auth]]")
    _write(vault_root, f"{ENT}/Auth.md", note)
    copy = f"{ENT}/Auth (1).md"
    _write(vault_root, copy, note.replace("## References", "## Overview\n\nA note.\n\n## References"))
    result = CliRunner().invoke(app, ["--vault", str(vault_root), "doctor", "--fix"])
    assert result.exit_code == 0, result.output
    assert f"{copy}: merged into {ENT}/Auth.md" in result.output
    assert "A note." in (vault_root / ENT / "Auth.md").read_text()
