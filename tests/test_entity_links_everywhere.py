"""Links between projects (issue 21, item 4): with two projects owning a ``Billing``, every link
vaultmem writes opens the one meant, and doctor finds nothing on a vault only vaultmem wrote."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from vaultmem.claude import ingest
from vaultmem.cli import _load_commands, app
from vaultmem.notes import facts

_load_commands()


def _cli(vault: Path, project: str, *args: str) -> str:
    result = CliRunner().invoke(app, ["--vault", str(vault), "--project", project, *args])
    assert result.exit_code == 0, result.stderr
    return result.stdout


def _session(vault: Path, project: str, topic: str, text: str, *entities: str) -> None:
    sid = f"{project}-{topic}"  # Claude's session ids are unique across projects
    note = _cli(vault, project, "session", "start", "--topic", topic, "--session-id", sid)
    _cli(vault, project, "session", "decide", text, "--session-id", sid,
         *(x for e in entities for x in ("--entity", e)))
    _cli(vault, project, "compact", note.split(": ")[0], "--force")


def _project_with_billing(vault: Path, project: str) -> None:
    _session(vault, project, "payments", f"{project} bills through Stripe", "Billing", "Auth")


def test_two_projects_with_one_entity_name_link_by_path(vault_root: Path, now_env: str) -> None:
    _project_with_billing(vault_root, "alpha")
    _project_with_billing(vault_root, "beta")
    # beta's run made the second Billing: alpha's index is brought up to date by its next run.
    _session(vault_root, "alpha", "invoices", "Invoices are PDFs", "Billing")

    for project in ("alpha", "beta"):
        index = (vault_root / f"claude/projects/{project}/_index.md").read_text()
        assert f"- [[claude/projects/{project}/entities/Billing|Billing]] (" in index
        assert "[[Billing]]" not in index and "[[Billing#" not in index
    billing = (vault_root / "claude/projects/beta/entities/Billing.md").read_text()
    assert "- [[claude/projects/beta/entities/Auth|Auth]]" in billing  # Related Entities

    doctor = CliRunner().invoke(app, ["--vault", str(vault_root), "--project", "alpha",
                                      "doctor", "--json"])
    # Only what alpha wrote while its Billing was the vault's only one still links it bare (its
    # archived session; the original is a stub without those links).
    flagged = {p["path"] for p in json.loads(doctor.stdout)["problems"]}
    assert flagged == {"claude/projects/alpha/archive/sessions/2026-11-22-payments.md"}


def test_doctor_fix_writes_links_that_became_ambiguous_by_path(
    vault_root: Path, now_env: str
) -> None:
    _project_with_billing(vault_root, "alpha")
    archived = vault_root / "claude/projects/alpha/archive/sessions/2026-11-22-payments.md"
    before = archived.read_text()
    assert "[[Billing]]" in before
    _project_with_billing(vault_root, "beta")  # a second Billing: alpha's bare links are ambiguous
    stray = vault_root / "claude/projects/gamma/notes/x.md"  # no Billing of its own, none global
    stray.parent.mkdir(parents=True)
    stray.write_text("See [[Billing]].\n")

    fixed = CliRunner().invoke(app, ["--vault", str(vault_root), "doctor", "--fix"])
    assert "2026-11-22-payments.md: 4 ambiguous link(s) written by path" in fixed.stdout
    assert "alpha/_index.md: 4 ambiguous link(s) written by path" in fixed.stdout
    assert "x.md: left as it is (no ambiguous link that its project or global decides)" in (
        fixed.stdout)
    after = archived.read_text()
    assert "[[Billing]]" not in after and "[[Auth]]" not in after
    assert "[[claude/projects/alpha/entities/Billing|Billing]]" in after
    assert facts.visible(after) == facts.visible(before)  # it reads the same in Obsidian
    assert stray.read_text() == "See [[Billing]].\n"
    doctor = CliRunner().invoke(app, ["--vault", str(vault_root), "doctor", "--json"])
    flagged = {p["path"] for p in json.loads(doctor.stdout)["problems"]}
    assert flagged == {"claude/projects/gamma/notes/x.md"}


def test_a_unique_name_stays_a_bare_link(vault_root: Path, now_env: str) -> None:
    _project_with_billing(vault_root, "alpha")
    index = (vault_root / "claude/projects/alpha/_index.md").read_text()
    assert "- [[Billing]] ([[Billing#^vm-" in index


def test_capture_writes_the_links_it_is_given() -> None:
    told = ingest.Story(entries=(), items=(ingest.Item("decision", "Use Stripe", ("Billing",)),),
                        components={"Billing": ("src/billing",)})
    by_path = {"Billing": "[[claude/projects/p/entities/Billing|Billing]]"}
    edits = ingest.edits_for(told, "", link=by_path.__getitem__)
    content = [e.content for e in edits]  # type: ignore[attr-defined]
    assert content == ["- Use Stripe ([[claude/projects/p/entities/Billing|Billing]])",
                       "- [[claude/projects/p/entities/Billing|Billing]] — `src/billing`"]
    # Read back, the path link names the same component: nothing is added twice.
    again = ingest.edits_for(told, "\n".join(content), link=by_path.__getitem__)
    assert again == []


def test_a_link_written_by_path_keeps_its_heading_block_alias_and_embed() -> None:
    from vaultmem.memory import linkfix
    from vaultmem.notes import links

    notes = links.NoteIndex(["claude/projects/a/entities/Billing.md",
                             "claude/projects/b/entities/Billing.md"])
    text = "[[Billing#^vm-1]] ![[Billing#Overview|the bill]] | [[Billing\\|x]] |"
    out, count = linkfix.qualified(text, "claude/projects/a/sessions/s.md",
                                   ("claude/projects/a", "claude/global"), notes)
    assert count == 2
    assert out == ("[[claude/projects/a/entities/Billing#^vm-1|Billing]] "
                   "![[claude/projects/a/entities/Billing#Overview|the bill]] | [[Billing\\|x]] |")
