"""``vaultmem entity merge`` and ``entity rename`` on a real temp vault, through the CLI: every
link form rewritten, every dated line kept once in date order, another project's note of the
same name left alone, --dry-run writing nothing, --json, and one clear line on a bad call."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner, Result

from vaultmem.cli import _load_commands, app

SHOP = "claude/projects/shop"
SESSION = "claude/projects/shop/sessions/2026-11-20-invoices.md"


def _entity(name: str, decisions: list[str], gotchas: list[str], related: list[str]) -> str:
    rows = "\n".join
    return (
        "---\ntype: entity\nproject: shop\ntags:\n  - claude/entity\ncreated: 2026-11-01\n---\n"
        f"# {name}\n\n## Overview\n\nCode in `src/{name.lower()}/`. ^vm-overview\n\n"
        f"## Key Decisions\n\n{rows(decisions)}\n\n## Gotchas & Troubleshooting\n\n"
        f"{rows(gotchas)}\n\n## Related Entities\n\n{rows(related)}\n\n## References\n\n"
        "- [[claude/projects/shop/archive/sessions/2026-11-18-a|2026-11-18-a]]\n"
    )


def _vault(root: Path) -> Path:
    files = {
        f"{SHOP}/entities/Invoice.md": _entity(
            "Invoice",
            ["- 2026-11-10 — Invoices are numbered per year ^vm-aaaa0001",
             "- 2026-11-19 — PDFs render with WeasyPrint ^vm-aaaa0002"],
            [], ["- [[Invoices]]", "- [[Billing]]"]),
        f"{SHOP}/entities/Invoices.md": _entity(
            "Invoices",
            ["- 2026-11-12 — Invoice totals are stored in cents ^vm-bbbb0001",
             "- 2026-11-19 — PDFs render with WeasyPrint. ^vm-bbbb0002",
             "- 2026-11-08 — Credit notes reference the invoice they correct ^vm-bbbb0003"],
            ["- 2026-11-15 — The PDF font must be embedded or Acrobat warns ^vm-bbbb0004"],
            ["- [[Invoice]]", "- [[Tax]]"]),
        f"{SHOP}/entities/Billing.md": _entity("Billing", [], [], ["- [[Invoices]]"]),
        SESSION: (
            "---\ntype: session\nproject: shop\n---\n# invoices\n\n"
            "See [[Invoices]], [[Invoices|the invoices]], "
            "[[claude/projects/shop/entities/Invoices|Invoices]], [[Invoices#Key Decisions]], "
            "[[Invoices#^vm-bbbb0001|cents]] and ![[Invoices]].\n"
            "| a | [[Invoices\\|inv]] |\n|---|---|\n"
            "`[[Invoices]]` in code stays.\n"
        ),
        # Another project's Invoices: its links mean its own note.
        "claude/projects/other/entities/Invoices.md": _entity("Invoices", [], [], []),
        "claude/projects/other/sessions/2026-11-20-x.md": "# x\n\nSee [[Invoices]].\n",
    }
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def cli(vault: Path, *args: str) -> Result:
    _load_commands()
    return CliRunner().invoke(app, ["--vault", str(vault), "--project", "shop", *args])


def _read(root: Path, rel: str) -> str:
    return (root / rel).read_text(encoding="utf-8")


def _snapshot(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): p.read_text(encoding="utf-8")
            for p in root.rglob("*.md")}


def test_merge_dry_run_says_what_would_change_and_writes_nothing(vault_root: Path) -> None:
    root = _vault(vault_root)
    before = _snapshot(root)
    done = cli(root, "entity", "merge", "Invoices", "Invoice", "--dry-run", "--json")
    assert done.exit_code == 0, done.output
    doc = json.loads(done.stdout)
    assert doc["status"] == "dry-run" and doc["lines_added"] == 4  # 2 decisions, 1 gotcha, Tax
    assert doc["source"] == f"{SHOP}/entities/Invoices.md"
    assert {r["path"]: r["links"] for r in doc["relinked"]} == {
        SESSION: 7, f"{SHOP}/entities/Billing.md": 1}
    assert _snapshot(root) == before


def test_merge_keeps_every_dated_line_once_and_rewrites_every_link(vault_root: Path) -> None:
    root = _vault(vault_root)
    done = cli(root, "entity", "merge", "Invoices", "Invoice")
    assert done.exit_code == 0, done.output
    assert done.stderr == "" and "merged into" in done.stdout
    assert not (root / SHOP / "entities" / "Invoices.md").exists()
    merged = _read(root, f"{SHOP}/entities/Invoice.md")
    decisions = merged.split("## Key Decisions")[1].split("##")[0].strip().splitlines()
    # Date order, the WeasyPrint line once (its trailing dot aside), nothing lost.
    assert [d[2:12] for d in decisions] == ["2026-11-08", "2026-11-10", "2026-11-12",
                                             "2026-11-19"]
    assert merged.count("WeasyPrint") == 1
    assert "The PDF font must be embedded" in merged.split("## Gotchas & Troubleshooting")[1]
    related = merged.split("## Related Entities")[1].split("##")[0]
    assert "[[Invoice]]" not in related and "[[Invoices]]" not in related
    assert "[[Billing]]" in related and "[[Tax]]" in related
    assert "aliases:\n  - Invoices" in merged
    session = _read(root, SESSION)
    assert ("See [[Invoice]], [[Invoice|the invoices]], "
            "[[claude/projects/shop/entities/Invoice|Invoice]], [[Invoice#Key Decisions]], "
            "[[Invoice#^vm-bbbb0001|cents]] and ![[Invoice]].") in session
    assert "[[Invoice\\|inv]]" in session and "`[[Invoices]]` in code stays." in session
    assert "- [[Invoice]]" in _read(root, f"{SHOP}/entities/Billing.md")
    # The other project's Invoices and its links are untouched.
    assert (root / "claude/projects/other/entities/Invoices.md").exists()
    assert _read(root, "claude/projects/other/sessions/2026-11-20-x.md") == "# x\n\nSee [[Invoices]].\n"
    # Again: nothing left to merge, one clear line.
    again = cli(root, "entity", "merge", "Invoices", "Invoice")
    assert again.exit_code == 1 and again.stdout == ""
    assert "no entity note named 'Invoices'" in again.stderr and len(again.stderr.splitlines()) == 1


def test_rename_moves_the_note_its_title_and_links(vault_root: Path) -> None:
    root = _vault(vault_root)
    done = cli(root, "entity", "rename", "Invoices", "Invoicing", "--json")
    assert done.exit_code == 0, done.output
    doc = json.loads(done.stdout)
    assert doc["status"] == "done" and doc["target"] == f"{SHOP}/entities/Invoicing.md"
    text = _read(root, f"{SHOP}/entities/Invoicing.md")
    assert "\n# Invoicing\n" in text and "aliases:\n  - Invoices" in text
    assert "Invoice totals are stored in cents" in text
    assert not (root / SHOP / "entities" / "Invoices.md").exists()
    assert "[[Invoicing#^vm-bbbb0001|cents]]" in _read(root, SESSION)
    assert "- [[Invoicing]]" in _read(root, f"{SHOP}/entities/Invoice.md")


def test_rename_onto_an_existing_entity_says_to_merge(vault_root: Path) -> None:
    root = _vault(vault_root)
    before = _snapshot(root)
    done = cli(root, "entity", "rename", "Invoices", "invoice")
    assert done.exit_code == 1 and done.stdout == ""
    assert "vaultmem entity merge" in done.stderr and len(done.stderr.splitlines()) == 1
    assert _snapshot(root) == before


def test_merge_as_a_person_runs_it(vault_root: Path, tmp_path: Path) -> None:
    root = _vault(vault_root)
    env = {**os.environ, "HOME": str(tmp_path / "home"),
           "XDG_CONFIG_HOME": str(tmp_path / "home" / ".config")}
    done = subprocess.run(
        [sys.executable, "-m", "vaultmem", "--vault", str(root), "--project", "shop",
         "entity", "merge", "Invoices", "Invoice"],
        capture_output=True, text=True, env=env, check=False, timeout=120)
    assert done.returncode == 0, done.stderr
    assert f"{SESSION}: 7 link(s)" in done.stdout
    assert not (root / SHOP / "entities" / "Invoices.md").exists()


def test_doctor_suggests_a_merge_for_near_names_and_not_after_it(vault_root: Path) -> None:
    root = _vault(vault_root)
    found = cli(root, "doctor", "--json")
    near = [p for p in json.loads(found.stdout)["problems"] if p["kind"] == "near-name"]
    assert [p["path"] for p in near] == [f"{SHOP}/entities/Invoices.md"]
    assert "`vaultmem --project shop entity merge Invoices Invoice`" in near[0]["message"]
    assert cli(root, "entity", "merge", "Invoices", "Invoice").exit_code == 0
    after = json.loads(cli(root, "doctor", "--json").stdout)["problems"]
    assert not [p for p in after if p["kind"] == "near-name"]


def test_a_project_named_entity_is_merged_into_its_near_name() -> None:
    # A session begun in ~ named the project's folder as a component before it moved in: the
    # project's own name goes into the component's note, not the other way round.
    from vaultmem.memory.entitymerge import near_names

    folder = "claude/projects/cosmic-applet-power-monitor/entities"
    ((rel, said),) = near_names([f"{folder}/Cosmic Applet Power Monitor.md",
                                 f"{folder}/Power Monitor.md"])
    assert rel == f"{folder}/Cosmic Applet Power Monitor.md"
    assert 'entity merge "Cosmic Applet Power Monitor" "Power Monitor"' in said
    ((rel, _),) = near_names(["claude/projects/shop/entities/Power Monitor.md",
                              "claude/projects/shop/entities/Cosmic Applet Power Monitor.md"])
    assert rel.endswith("/Power Monitor.md")


def test_near_names() -> None:
    from vaultmem.notes import nearnames

    assert nearnames.same("Invoice", "invoices") and nearnames.same("Power-Monitor", "power_monitor")
    assert nearnames.same("Categories", "category") and not nearnames.same("Status", "Stat")
    assert nearnames.near("Billing", "Billing Webhooks")
    assert nearnames.near_pairs(["Auth", "Auth Tokens", "Power Monitor", "Power Monitor Applet",
                                 "UI", "UIs"]) == [("Power Monitor", "Power Monitor Applet")]
    assert nearnames.near_pairs(["Cosmic Applet Power Monitor", "Power Monitor", "Monitor"]) \
        == [("Cosmic Applet Power Monitor", "Power Monitor")]
    assert nearnames.joined("power_monitor", "Cosmic Applet Power Monitor")
    assert nearnames.joined("Invoices", "invoice") and not nearnames.joined("Auth", "Auth Tokens")
    assert not nearnames.joined("Applet Power", "Cosmic Applet Power Monitor")
    assert nearnames.runs("Cosmic Applet Power Monitor") == [
        "cosmicappletpower", "appletpowermonitor", "cosmicapplet", "powermonitor"]
