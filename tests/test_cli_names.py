"""One ``Auth`` per project, through the CLI: names resolve in the current project, then global,
then elsewhere; vaultmem writes links that cannot resolve to the wrong ``Auth``; doctor reports
bare links that could."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from vaultmem.cli import _load_commands, app

P = "claude/projects/{}/entities/Auth.md"
GLOBAL = "claude/global/entities/Auth.md"


def entity(project: str, body: str) -> str:
    return (f"---\ntype: entity\nproject: {project}\ncreated: 2026-11-01\nupdated: 2026-11-01\n"
            f"status: active\n---\n\n# Auth\n\n## Overview\n\n{body}\n\n## Key Decisions\n")


@pytest.fixture
def vault(vault_root: Path, now_env: str) -> Path:
    for project in ("shop", "shop2"):
        path = vault_root / P.format(project)
        path.parent.mkdir(parents=True)
        path.write_text(entity(project, f"The {project} auth."), encoding="utf-8")
    return vault_root


def cli(vault: Path, project: str, *args: str, stdin: str | None = None) -> Result:
    _load_commands()
    return CliRunner().invoke(app, ["--vault", str(vault), "--project", project, *args],
                              input=stdin)


def test_show_opens_the_current_projects_note_and_records_no_false_recall(vault: Path) -> None:
    before = (vault / P.format("shop")).read_bytes()

    shown = cli(vault, "shop2", "show", "Auth", "--json")

    assert shown.exit_code == 0, shown.stderr
    assert json.loads(shown.stdout)["path"] == P.format("shop2")
    assert (vault / P.format("shop")).read_bytes() == before  # no cross_project_recalls
    assert json.loads(cli(vault, "shop", "show", "Auth", "--json").stdout)["path"] == P.format("shop")


def test_global_comes_before_other_projects(vault: Path) -> None:
    (vault / GLOBAL).parent.mkdir(parents=True)
    (vault / GLOBAL).write_text(entity("global", "Shared auth."), encoding="utf-8")
    assert json.loads(cli(vault, "web", "show", "Auth", "--json").stdout)["path"] == GLOBAL
    assert json.loads(cli(vault, "shop2", "show", "Auth", "--json").stdout)["path"] == P.format(
        "shop2")


def test_set_and_patch_write_the_current_projects_note(vault: Path) -> None:
    before = (vault / P.format("shop")).read_bytes()

    done = cli(vault, "shop2", "set", "Auth", "status", "draft")
    patched = cli(vault, "shop2", "patch", "Auth", "Tokens rotate daily.", "--heading",
                  "Overview", "--append", "--json")

    assert done.exit_code == 0 and done.stdout == f"{P.format('shop2')}: written\n"
    as_json = json.loads(cli(vault, "shop2", "set", "Auth", "status", "active", "--json").stdout)
    assert "-status: draft" in as_json["diff"] and "+status: active" in as_json["diff"]
    assert cli(vault, "shop2", "set", "Auth", "status", "draft").exit_code == 0
    assert patched.exit_code == 0, patched.stderr
    report = json.loads(patched.stdout)
    assert report["path"] == P.format("shop2") and report["status"] == "written"
    assert "+Tokens rotate daily." in report["diff"] and report["diff"].startswith("---")
    text = (vault / P.format("shop2")).read_text()
    assert "status: draft" in text and "Tokens rotate daily." in text
    assert (vault / P.format("shop")).read_bytes() == before


def test_decide_links_a_name_that_is_not_unique_by_path(vault: Path) -> None:
    assert cli(vault, "shop2", "session", "start", "--topic", "login").exit_code == 0

    decided = cli(vault, "shop2", "session", "decide", "Rotate keys daily", "--entity", "Auth",
                  "--entity", "Billing", "--json")

    assert decided.exit_code == 0, decided.stderr
    doc = json.loads(decided.stdout)
    link = "[[claude/projects/shop2/entities/Auth|Auth]]"
    billing = "[[claude/projects/shop2/entities/Billing|Billing]]"  # by path too, though unique
    assert doc["entry"] == f"- Rotate keys daily ({link}, {billing})"
    note = (vault / doc["note"]).read_text()
    assert f"- {link}\n- {billing}" in note
    compacted = cli(vault, "shop2", "compact", doc["note"], "--force")
    assert compacted.exit_code == 0, compacted.stderr
    assert "Rotate keys daily" in (vault / P.format("shop2")).read_text()
    assert "Rotate keys daily" not in (vault / P.format("shop")).read_text()


def test_doctor_reports_an_ambiguous_bare_link(vault: Path) -> None:
    index = vault / "claude/projects/shop2/_index.md"
    index.write_text("---\ntype: project-index\nproject: shop2\n---\n\n"
                     "- [[Auth]]\n- [[claude/projects/shop2/entities/Auth|Auth]]\n")

    proc = cli(vault, "shop2", "doctor", "--json")

    problems = json.loads(proc.stdout)["problems"]
    assert [(p["kind"], p["path"], p["line"]) for p in problems] == [
        ("ambiguous-link", "claude/projects/shop2/_index.md", 6)]
    assert P.format("shop") in problems[0]["message"] and P.format("shop2") in problems[0]["message"]
    assert proc.exit_code == 1
