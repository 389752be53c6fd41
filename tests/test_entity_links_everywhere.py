"""Links between projects (issue 21, item 4): with two projects owning a ``Billing``, every link
vaultmem writes opens the one meant, and doctor finds nothing on a vault only vaultmem wrote: the
links are written by path from the start (issue 33, item 3)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from vaultmem.claude import ingest
from vaultmem.cli import _load_commands, app
from vaultmem.notes import facts, links

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


def _written_links(vault: Path) -> list[tuple[str, links.Link]]:
    """(note, link) of every link in the vault's notes."""
    out = []
    for path in sorted(vault.rglob("*.md")):
        rel = path.relative_to(vault).as_posix()
        out.extend((rel, link) for link in links.parse(path.read_text()))
    return out


@pytest.mark.parametrize("order", [("alpha", "beta"), ("beta", "alpha")])
def test_projects_sharing_entity_names_leave_doctor_clean(
    vault_root: Path, now_env: str, order: tuple[str, str]
) -> None:
    first, second = order
    _project_with_billing(vault_root, first)
    _project_with_billing(vault_root, second)
    _session(vault_root, first, "invoices", "Invoices are PDFs", "Billing")
    # A session remembered but not compacted yet: its links are written already.
    sid = f"{second}-open"
    _cli(vault_root, second, "session", "start", "--topic", "open", "--session-id", sid)
    _cli(vault_root, second, "session", "decide", "Tokens last an hour", "--session-id", sid,
         "--entity", "Auth")

    doctor = CliRunner().invoke(app, ["--vault", str(vault_root), "doctor", "--json"])
    assert doctor.exit_code == 0, doctor.stdout
    problems = json.loads(doctor.stdout)["problems"]
    assert not [p for p in problems if "link" in json.dumps(p).lower()], problems

    notes = [p.relative_to(vault_root).as_posix() for p in vault_root.rglob("*.md")]
    index = links.NoteIndex(notes)
    entity_links = 0
    for rel, link in _written_links(vault_root):
        target = link.target
        project = rel.split("/")[2] if rel.startswith("claude/projects/") else None
        meant = index.resolve(target, rel)
        assert meant is not None, (rel, target)
        if "/entities/" in meant and project is not None:
            entity_links += 1
            # Every entity link opens its own project's note, whatever Obsidian's folder order.
            assert meant.startswith(f"claude/projects/{project}/entities/"), (rel, target)
            assert "/" in target, (rel, target)
            if link.heading is None and link.block is None:  # the name is shown as it is
                assert link.alias == meant.rsplit("/", 1)[1][:-3], (rel, link)
    assert entity_links >= 12


def test_doctor_fix_writes_links_of_an_older_vault_by_path(
    vault_root: Path, now_env: str
) -> None:
    _project_with_billing(vault_root, "alpha")
    archived = vault_root / "claude/projects/alpha/archive/sessions/2026-11-22-payments.md"
    index = vault_root / "claude/projects/alpha/_index.md"
    # An older vaultmem wrote bare links while alpha's Billing was the vault's only one.
    for note in (archived, index):
        text = note.read_text()
        for name in ("Billing", "Auth"):
            text = text.replace(f"[[claude/projects/alpha/entities/{name}|{name}]]", f"[[{name}]]")
            text = text.replace(f"[[claude/projects/alpha/entities/{name}#", f"[[{name}#")
        note.write_text(text)
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


def test_a_unique_name_is_linked_by_path_too(vault_root: Path, now_env: str) -> None:
    _project_with_billing(vault_root, "alpha")
    index = (vault_root / "claude/projects/alpha/_index.md").read_text()
    billing = "claude/projects/alpha/entities/Billing"
    assert f"- [[{billing}|Billing]] ([[{billing}#^vm-" in index
    assert "[[Billing]]" not in index


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
