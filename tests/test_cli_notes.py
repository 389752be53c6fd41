"""CLI of single-note commands: init, show, set, patch — exit codes, stdout and stderr apart."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

NOTE = """---
type: entity
tags: [a, b]   # flow list, with a comment
created: 2026-11-01
---
# Auth

## Key Decisions

- first

### Details

detail text

## Gotchas & Troubleshooting

## Key Decisions

- duplicate heading on purpose
"""


def vm(root: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "vaultmem", "--vault", str(root), "--project", "shop", *args],
        input=stdin, capture_output=True, text=True, timeout=60, check=False,
    )


@pytest.fixture
def vault(vault_root: Path) -> Path:
    (vault_root / "notes").mkdir()
    (vault_root / "notes" / "Auth.md").write_text(NOTE, "utf-8")
    (vault_root / "notes" / "Plain.md").write_text("# Plain\n\n## Log\n\n- one\n", "utf-8")
    return vault_root


def test_init_creates_the_layout_once(vault_root: Path) -> None:
    first = vm(vault_root, "init")
    assert first.returncode == 0, first.stderr
    assert "created claude/projects/shop/_index.md" in first.stdout
    index = (vault_root / "claude/projects/shop/_index.md").read_text("utf-8")
    assert "type: project-index" in index
    for folder in ("sessions", "entities", "archive/sessions"):
        assert (vault_root / "claude/projects/shop" / folder).is_dir()
    again = vm(vault_root, "init")
    assert again.returncode == 0
    assert "nothing to create" in again.stdout
    assert (vault_root / "claude/projects/shop/_index.md").read_text("utf-8") == index


def test_show_by_name_and_json(vault: Path) -> None:
    plain = vm(vault, "show", "Auth")
    assert plain.returncode == 0 and plain.stderr == ""
    assert plain.stdout == NOTE
    data = json.loads(vm(vault, "show", "notes/Auth.md", "--json").stdout)
    assert data["path"] == "notes/Auth.md"
    assert data["frontmatter"] == {"type": "entity", "tags": ["a", "b"], "created": "2026-11-01"}
    assert [h["title"] for h in data["headings"]][:3] == ["Auth", "Key Decisions", "Details"]
    assert data["headings"][1]["line"] == 8  # 1-based file line


def test_show_missing_note_is_one_line_exit_1(vault: Path) -> None:
    result = vm(vault, "show", "Nope")
    assert result.returncode == 1
    assert result.stdout == ""
    assert result.stderr.count("\n") == 1 and "Nope" in result.stderr


def test_set_changes_only_that_key(vault: Path) -> None:
    result = vm(vault, "set", "Auth", "status", "active")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "notes/Auth.md: written"
    text = (vault / "notes/Auth.md").read_text("utf-8")
    assert text == NOTE.replace("created: 2026-11-01\n", "created: 2026-11-01\nstatus: active\n")
    again = vm(vault, "set", "Auth", "status", "active")
    assert again.stdout.strip() == "notes/Auth.md: unchanged"


def test_set_dry_run_prints_diff_writes_nothing(vault: Path) -> None:
    before = (vault / "notes/Auth.md").read_bytes()
    result = vm(vault, "set", "Auth", "created", "2026-11-02", "--dry-run")
    assert result.returncode == 0
    assert "-created: 2026-11-01" in result.stdout and "+created: 2026-11-02" in result.stdout
    assert (vault / "notes/Auth.md").read_bytes() == before


def test_set_on_invalid_yaml_is_refused_bytes_kept(vault: Path) -> None:
    bad = "---\ntitle: [unclosed\n---\nbody\n"
    (vault / "notes/Bad.md").write_text(bad, "utf-8")
    result = vm(vault, "set", "Bad", "k", "v")
    assert result.returncode == 1
    assert result.stderr.startswith("error: notes/Bad.md:")
    assert result.stderr.count("\n") == 1
    assert (vault / "notes/Bad.md").read_text("utf-8") == bad


def test_patch_append_from_stdin(vault: Path) -> None:
    result = vm(vault, "patch", "Plain", "--heading", "Log", "--append", "-", stdin="- two\n")
    assert result.returncode == 0, result.stderr
    assert (vault / "notes/Plain.md").read_text("utf-8") == "# Plain\n\n## Log\n\n- one\n- two\n"


def test_patch_ambiguous_heading_lists_lines(vault: Path) -> None:
    before = (vault / "notes/Auth.md").read_bytes()
    result = vm(vault, "patch", "Auth", "--heading", "Key Decisions", "--append", "- x")
    assert result.returncode == 1
    assert "(line 8)" in result.stderr and "(line 18)" in result.stderr
    assert result.stderr.count("\n") == 1
    assert (vault / "notes/Auth.md").read_bytes() == before


def test_patch_create_nested_and_json(vault: Path) -> None:
    result = vm(vault, "patch", "Plain", "--heading", "Log::Today", "--append", "- new",
                "--create", "--json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["status"] == "written" and data["created_headings"] == ["Today"]
    assert (vault / "notes/Plain.md").read_text("utf-8").endswith("## Log\n\n- one\n\n### Today\n\n- new\n")


def test_patch_missing_heading_without_create(vault: Path) -> None:
    result = vm(vault, "patch", "Plain", "--heading", "Nope", "--append", "x")
    assert result.returncode == 1
    assert "Nope" in result.stderr and result.stderr.count("\n") == 1


@pytest.mark.parametrize("args", [
    ("patch", "Plain", "--heading", "Log", "x"),                      # no operation
    ("patch", "Plain", "--heading", "Log", "--append", "--replace", "x"),  # two operations
    ("set", "Plain"),                                                  # missing arguments
    ("install-hooks", "--scope", "galaxy"),                            # bad choice
])
def test_usage_errors_exit_2(vault: Path, args: tuple[str, ...]) -> None:
    result = vm(vault, *args)
    assert result.returncode == 2
    assert result.stdout == ""
