"""CLI: recall, doctor, promote — exit codes, stdout and stderr, --json."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from vaultmem.cli import app, reading  # noqa: F401  (registers the commands)

ENT = "claude/projects/{}/entities"
Invoke = Callable[..., Result]


def entity(project: str, body: str) -> str:
    return (
        f"---\ntype: entity\nproject: {project}\ncreated: 2026-01-01\nupdated: 2026-11-20\n"
        f"status: active\n---\n\n## Overview\n\n{body}\n"
    )


def write(root: Path, rel: str, text: str) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


@pytest.fixture
def cli(vault_root: Path, now_env: str) -> Invoke:
    runner = CliRunner()

    def invoke(*args: str, project: str = "web") -> Result:
        return runner.invoke(app, ["--vault", str(vault_root), "--project", project, *args])

    return invoke


@pytest.fixture
def vault(vault_root: Path) -> Path:
    write(
        vault_root, f"{ENT.format('web')}/Login Form.md", entity("web", "The guava token refresh.")
    )
    write(
        vault_root, f"{ENT.format('api')}/Token Store.md", entity("api", "Guava tokens live here.")
    )
    write(vault_root, f"{ENT.format('web')}/Uses.md", entity("web", "Uses [[Token Store]]."))
    return vault_root


def test_every_command_has_help(cli: Invoke) -> None:
    for command in ("recall", "doctor", "promote"):
        result = cli(command, "--help")
        assert result.exit_code == 0
        assert len(result.stdout.strip().splitlines()) > 3


def test_recall_for_people(cli: Invoke, vault: Path) -> None:
    result = cli("recall", "guava")
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    # The note, then its hits indented, as rg groups matches under a file.
    assert lines[0] == f"{ENT.format('web')}/Login Form.md  (entity · web · 2026-11-20)"
    assert lines[1] == "   The guava token refresh."  # plain text in a pipe: no ** marks
    assert "Token Store" not in result.stdout  # another project: not in the default scope
    assert result.stderr == ""


def test_recall_json_all_projects_and_type(cli: Invoke, vault: Path) -> None:
    result = cli("recall", "guava", "--all-projects", "--type", "entity", "--json")
    assert result.exit_code == 0, result.stderr
    doc = json.loads(result.stdout)
    assert [h["note"] for h in doc["hits"]] == ["Login Form", "Token Store"]
    assert doc["recorded_cross_project"] == [f"{ENT.format('api')}/Token Store.md"]
    assert doc["suggestions"] == []
    assert set(doc["hits"][0]) == {
        "kind", "text", "matches", "date", "note", "path", "entity", "type", "project",
        "updated", "block", "line", "sessions", "also", "score",
    }
    assert doc["hits"][0]["kind"] == "note"  # an overview paragraph is no fact
    assert doc["hits"][0]["text"] == "The guava token refresh."
    assert doc["hits"][0]["matches"] == [[4, 9]]
    assert doc["index"]["scanned"] == 3


def test_recall_own_project_option_filters_the_scope(cli: Invoke, vault: Path) -> None:
    result = cli("recall", "guava", "--project", "api", "--json")
    doc = json.loads(result.stdout)
    assert [h["project"] for h in doc["hits"]] == ["api"]


def test_recall_suggests_promotion_at_the_end(cli: Invoke, vault: Path) -> None:
    for project in ("one", "two"):
        assert cli("recall", "guava", "--all-projects", project=project).exit_code == 0
    result = cli("recall", "guava", "--all-projects", project="three")
    assert result.exit_code == 0
    tips = [line for line in result.stdout.splitlines() if line.startswith("tip: ")]
    assert result.stdout.splitlines()[-2:] == tips  # at the end
    login = (
        "tip: Login Form was recalled from 3 other projects (one, three, two): "
        'run `vaultmem promote "Login Form"` to make it global'
    )
    token = (
        "tip: Token Store was recalled from 3 other projects (one, three, two): "
        'run `vaultmem promote "Token Store"` to make it global'
    )
    assert sorted(tips) == [login, token]


def test_recall_errors(cli: Invoke, vault: Path) -> None:
    empty = cli("recall", '""')
    assert empty.exit_code == 1
    assert empty.stdout == ""
    assert empty.stderr.startswith("error: nothing to search for")
    both = cli("recall", "x", "--project", "a", "--all-projects")
    assert both.exit_code == 2
    assert cli("recall", "x", "--limit", "0").exit_code == 2
    none = cli("recall", "nothingmatchesthis")
    assert none.exit_code == 0 and none.stdout == (
        "no notes match 'nothingmatchesthis'\ntip: nothing in project `web` (the current "
        "folder's); `--all-projects` searches every project\n")
    # Searched everywhere already: nothing to widen.
    wide = cli("recall", "nothingmatchesthis", "--all-projects")
    assert wide.stdout == "no notes match 'nothingmatchesthis'\n"


def test_doctor_clean_and_with_problems(cli: Invoke, vault: Path) -> None:
    clean = cli("doctor")
    assert clean.exit_code == 0
    assert clean.stdout == "no problems in 3 notes\n"
    write(vault, f"{ENT.format('web')}/Broken.md", "---\ntype: entity\n---\nSee [[Nowhere]].\n")
    bad = cli("doctor")
    assert bad.exit_code == 1
    assert bad.stdout == (
        f"{ENT.format('web')}/Broken.md:4: unresolved-link: [[Nowhere]] does not resolve to any "
        "note or file\n"
    )
    assert bad.stderr == ("1 problem in 4 notes: 1 unresolved-link\n"
                          "`vaultmem doctor --fix` repairs 1 unresolved-link (those to a note "
                          "that moved)\n")
    as_json = cli("doctor", "--json")
    assert as_json.exit_code == 1
    doc = json.loads(as_json.stdout)
    assert doc["ok"] is False
    assert doc["problems"] == [
        {
            "kind": "unresolved-link",
            "path": f"{ENT.format('web')}/Broken.md",
            "line": 4,
            "message": "[[Nowhere]] does not resolve to any note or file",
        }
    ]


def test_promote_dry_run_then_real_then_again(cli: Invoke, vault: Path) -> None:
    source = f"{ENT.format('api')}/Token Store.md"
    dry = cli("promote", "Token Store", "--dry-run")
    assert dry.exit_code == 0, dry.stderr
    assert dry.stdout.startswith(f"would move {source} -> claude/global/entities/Token Store.md\n")
    assert (vault / source).exists()
    real = cli("promote", "Token Store", "--json")
    assert real.exit_code == 0, real.stderr
    doc = json.loads(real.stdout)
    assert doc["status"] == "promoted" and doc["target"] == "claude/global/entities/Token Store.md"
    assert not (vault / source).exists()
    assert (vault / "claude/global/entities/Token Store.md").exists()
    again = cli("promote", "Token Store")
    assert again.exit_code == 0
    assert again.stdout == "claude/global/entities/Token Store.md: already global\n"


def test_promote_errors(cli: Invoke, vault: Path) -> None:
    missing = cli("promote", "No Such Entity")
    assert missing.exit_code == 1
    assert missing.stderr.startswith("error: ") and "No Such Entity" in missing.stderr
    write(vault, f"{ENT.format('web')}/Token Store.md", entity("web", "a twin"))
    ambiguous = cli("promote", "Token Store")
    assert ambiguous.exit_code == 1
    assert "give the path" in ambiguous.stderr


def test_a_cli_call_imports_neither_pydantic_nor_anthropic(vault: Path) -> None:
    """typer 0.29 builds pydantic adapters for every option (+0.2 s a call): pyproject keeps
    typer below it, and nothing else on the CLI path may pull pydantic (anthropic's) in."""
    code = (
        "import sys\nfrom vaultmem import launcher\n"
        "try:\n    launcher.main(sys.argv[1:])\nexcept SystemExit:\n    pass\n"
        "sys.stderr.write(repr(sorted({m.split('.')[0] for m in sys.modules}"
        " & {'pydantic', 'anthropic'})))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code, "--vault", str(vault), "--project", "web", "recall", "guava"],
        capture_output=True, text=True, timeout=120, check=False,
    )
    assert proc.returncode == 0 and "Login Form" in proc.stdout, proc.stderr
    assert proc.stderr.endswith("[]"), proc.stderr


def test_all_projects_stays_in_vaultmems_folder_whole_vault_reads_the_rest(
    cli: Invoke, vault: Path
) -> None:
    # A person's own notes beside vaultmem's, one even with a `project` property.
    write(vault, "Diary/2026-11-20.md", "Dinner, then guava jam.\n")
    write(vault, "Work/Guava notes.md", entity("web", "My guava thoughts."))

    scoped = json.loads(cli("recall", "guava", "--all-projects", "--json").stdout)
    default = json.loads(cli("recall", "guava", "--json").stdout)
    whole = cli("recall", "guava", "--whole-vault", "--json")

    assert sorted(h["path"] for h in scoped["hits"]) == [
        f"{ENT.format('api')}/Token Store.md", f"{ENT.format('web')}/Login Form.md"]
    assert [h["path"] for h in default["hits"]] == [f"{ENT.format('web')}/Login Form.md"]
    assert whole.exit_code == 0
    found = {h["path"] for h in json.loads(whole.stdout)["hits"]}
    assert {"Diary/2026-11-20.md", "Work/Guava notes.md"} <= found and len(found) == 4
    assert "Work/Guava notes.md" not in json.loads(whole.stdout).get("recorded", [])
    assert "cross_project_recalls" not in (vault / "Work/Guava notes.md").read_text()
    both = cli("recall", "guava", "--project", "web", "--whole-vault")
    assert both.exit_code == 2


def test_doctor_on_a_vault_with_a_persons_own_notes(
    cli: Invoke, vault: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.chdir(tmp_path)
    write(vault, "Ideas.md", "Later: [[A note I have not written yet]].\n")
    write(vault, "Diary/Bad.md", "---\ntags: [a, b\n---\ntext\n")

    plain = cli("doctor")
    listed = cli("doctor", "--all")
    doc = json.loads(cli("doctor", "--json").stdout)

    assert plain.exit_code == 0 and plain.stderr == ""
    assert plain.stdout == (
        "outside claude/ (your own notes, not counted): 1 invalid-yaml, 1 unresolved-link; "
        "`vaultmem doctor --all` lists them\nno problems in 5 notes\n"
    )
    assert listed.exit_code == 1 and listed.stderr == (
        "2 problems in 5 notes: 1 invalid-yaml, 1 unresolved-link\n")
    assert listed.stdout.splitlines()[0].startswith("Diary/Bad.md:2: invalid-yaml: ")
    assert listed.stdout.splitlines()[1].startswith("Ideas.md:1: unresolved-link: ")
    assert doc["ok"] is True and doc["problems"] == [] and doc["hooks"] == []
    assert [p["path"] for p in doc["outside"]] == ["Diary/Bad.md", "Ideas.md"]


def test_doctor_reports_hooks_that_no_longer_run(
    cli: Invoke, vault: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import os

    from vaultmem.claude import install

    monkeypatch.chdir(tmp_path)
    settings = Path(os.environ["HOME"]) / ".claude/settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text(json.dumps({"hooks": install.vaultmem_hooks(
        install.hook_prefix(["/deleted venv/bin/vaultmem"]))}))

    result = cli("doctor")

    assert result.exit_code == 1
    assert result.stdout.startswith(f"{settings}: hook-command-missing: ")
    assert "/deleted venv/bin/vaultmem no longer exists" in result.stdout
    assert result.stderr == "1 problem in 3 notes: 1 hook-command-missing\n"
