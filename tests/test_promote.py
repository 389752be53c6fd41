"""promote: the global copy, links rewritten so every link keeps resolving, safe re-runs."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from vaultmem.errors import NoteExists
from vaultmem.memory.promote import PromoteError, PromoteResult, promote
from vaultmem.notes import links
from vaultmem.notes.frontmatter import parse
from vaultmem.store.config import Config
from vaultmem.store.vault import Vault

REPO = Path(__file__).resolve().parent.parent
P = "claude/projects/platform/entities/Auth Service.md"
G = "claude/global/entities/Auth Service.md"


def entity(project: str, body: str) -> str:
    return (
        f"---\ntype: entity\nproject: {project}\ntags:\n  - claude/entity\n  - {project}\n"
        "created: 2026-01-01\nupdated: 2026-11-20\nstatus: active\n---\n\n"
        f"## Overview\n\n{body}\n\n## Key Decisions\n\n- Rotate keys ^vm-1234abcd\n"
    )


def write(root: Path, rel: str, text: str | bytes) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")


def read(root: Path, rel: str) -> str:
    return (root / rel).read_text(encoding="utf-8")


def simple_vault(root: Path) -> None:
    """One project entity with every kind of inbound link, and no name twins."""
    write(root, P, entity("platform", "Issues tokens. See [[Token Store]] and [[#Key Decisions]]."))
    write(
        root,
        "claude/projects/platform/entities/Token Store.md",
        entity("platform", "[[Auth Service]]"),
    )
    write(
        root,
        "claude/projects/platform/sessions/2026-11-20-login.md",
        "---\ntype: session\nproject: platform\n---\n\n## Work Log\n\n"
        "- bare [[Auth Service]] and [[auth service|lower]]\n"
        "- path [[claude/projects/platform/entities/Auth Service#Key Decisions|decisions]]\n"
        "- block ![[claude/projects/platform/entities/Auth Service#^vm-1234abcd]]\n"
        "- with md [[claude/projects/platform/entities/Auth Service.md]]\n"
        "- code `[[claude/projects/platform/entities/Auth Service]]` stays\n"
        "- image ![[diagram.png]]\n",
    )
    write(root, "claude/projects/platform/sessions/diagram.png", b"\x89PNG")
    write(
        root,
        "claude/projects/platform/archive/sessions/2026-10-01-old.md",
        '---\ntype: session\nstatus: archived\nrelated: "[[claude/projects/platform/entities/Auth Service]]"\n---\nx\n',
    )


def twin_vault(root: Path) -> None:
    """Also another project (with a shorter path) owning notes of the same names."""
    simple_vault(root)
    write(root, "claude/projects/qa/entities/Auth Service.md", entity("qa", "qa's own"))
    write(root, "claude/projects/qa/entities/Token Store.md", entity("qa", "qa's store"))
    write(root, "notes/elsewhere.md", "Shortest path wins: [[Auth Service]] and [[Token Store]].\n")


def resolutions(root: Path) -> dict[tuple[str, int], str | None]:
    """Where every link of the vault resolves, keyed by (note, index of the link in it)."""
    vault = Vault(root)
    notes = list(vault.iter_notes())
    files = [p.relative_to(root).as_posix() for p in root.rglob("*.png")]
    note_index = links.NoteIndex(notes + files)
    out: dict[tuple[str, int], str | None] = {}
    for rel in notes:
        for i, link in enumerate(links.parse(read(root, rel))):
            out[(rel, i)] = note_index.resolve(link.target, rel) if link.target else rel
    return out


def snapshot(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".vaultmem" not in p.parts
    }


def run_promote(root: Path, ref: str = P[:-3], *, dry_run: bool = False) -> PromoteResult:
    return promote(Vault(root), Config(vault=root, project="platform"), ref, dry_run=dry_run)


@pytest.mark.parametrize("make", [simple_vault, twin_vault], ids=["simple", "twins"])
def test_every_link_keeps_resolving_to_the_same_note(vault_root: Path, make) -> None:  # type: ignore[no-untyped-def]
    make(vault_root)
    before = resolutions(vault_root)
    result = run_promote(vault_root)
    assert result.status == "promoted"
    after = resolutions(vault_root)
    assert not (vault_root / P).exists()
    expected = {
        (G if rel == P else rel, i): (G if target == P else target)
        for (rel, i), target in before.items()
    }
    assert after == expected
    assert None not in after.values()


def test_promoted_note_is_the_same_note_made_global(vault_root: Path) -> None:
    simple_vault(vault_root)
    original = read(vault_root, P)
    run_promote(vault_root)
    promoted = read(vault_root, G)
    meta = parse(promoted)
    assert meta["project"] == "global"
    assert meta["promoted_from"] == "platform"
    assert meta["tags"] == ["claude/entity", "platform"]
    # Only the project line changed and one key was added.
    assert (
        promoted.replace("project: global\n", "project: platform\n").replace(
            "promoted_from: platform\n", ""
        )
        == original
    )


def test_links_keep_heading_block_alias_and_embed(vault_root: Path) -> None:
    simple_vault(vault_root)
    result = run_promote(vault_root)
    session = read(vault_root, "claude/projects/platform/sessions/2026-11-20-login.md")
    assert "- bare [[Auth Service]] and [[auth service|lower]]\n" in session
    assert "[[claude/global/entities/Auth Service#Key Decisions|decisions]]" in session
    assert "![[claude/global/entities/Auth Service#^vm-1234abcd]]" in session
    assert "[[claude/global/entities/Auth Service]]" in session  # ".md" form, rewritten
    assert "`[[claude/projects/platform/entities/Auth Service]]` stays" in session
    assert "![[diagram.png]]" in session
    archived = read(vault_root, "claude/projects/platform/archive/sessions/2026-10-01-old.md")
    assert 'related: "[[claude/global/entities/Auth Service]]"' in archived
    changed = {(c.rel, c.old, c.new) for c in result.changes}
    assert (
        "claude/projects/platform/sessions/2026-11-20-login.md",
        "claude/projects/platform/entities/Auth Service",
        "claude/global/entities/Auth Service",
    ) in changed
    # Bare links that now resolve to the global note are left alone.
    assert not any(c.old == "Auth Service" for c in result.changes)


def test_links_to_other_notes_are_pinned_when_the_global_note_would_capture_them(
    vault_root: Path,
) -> None:
    twin_vault(vault_root)
    run_promote(vault_root)
    elsewhere = read(vault_root, "notes/elsewhere.md")
    # It meant qa's note (the shortest path) before; the global note is shorter now.
    assert "[[claude/projects/qa/entities/Auth Service]]" in elsewhere
    assert "[[Token Store]]" in elsewhere
    # The promoted note's own sibling link, from its new folder, keeps pointing at platform's.
    assert "[[claude/projects/platform/entities/Token Store]]" in read(vault_root, G)


def test_dry_run_writes_nothing_and_reports_the_changes(vault_root: Path) -> None:
    twin_vault(vault_root)
    before = snapshot(vault_root)
    dry = run_promote(vault_root, dry_run=True)
    assert dry.status == "dry-run"
    assert snapshot(vault_root) == before
    real = run_promote(vault_root)
    assert dry.changes == real.changes
    assert dry.changes


def test_second_run_is_a_no_op(vault_root: Path) -> None:
    simple_vault(vault_root)
    run_promote(vault_root)
    after = snapshot(vault_root)
    for ref in ("Auth Service", "claude/projects/platform/entities/Auth Service", G):
        assert run_promote(vault_root, ref).status == "already-global"
    assert snapshot(vault_root) == after


def test_refuses_when_another_global_entity_has_the_name(vault_root: Path) -> None:
    simple_vault(vault_root)
    write(vault_root, "claude/global/entities/auth service.md", entity("global", "another one"))
    before = snapshot(vault_root)
    with pytest.raises(NoteExists, match="global entity of that name exists"):
        run_promote(vault_root)
    assert snapshot(vault_root) == before


def test_refuses_notes_that_are_not_project_entities(vault_root: Path) -> None:
    simple_vault(vault_root)
    with pytest.raises(PromoteError):
        run_promote(vault_root, "claude/projects/platform/sessions/2026-11-20-login")


CRASHER = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from vaultmem.store.config import Config
    from vaultmem.memory.promote import promote
    from vaultmem.store.vault import Vault
    root = Path(sys.argv[1])
    promote(Vault(root), Config(vault=root, project="platform"), sys.argv[2])
    """
)


@pytest.mark.parametrize(
    "fault", ["promote:copied", "promote:relink", "promote:relinked", "promote:removed"]
)
def test_a_crash_anywhere_then_a_rerun_converges(tmp_path: Path, fault: str) -> None:
    reference = tmp_path / "reference"
    crashed = tmp_path / "crashed"
    twin_vault(reference)
    shutil.copytree(reference, crashed)
    run_promote(reference)
    env = {
        **os.environ,
        "PYTHONPATH": str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""),
        "VAULTMEM_FAULT": f"{fault}:kill",
    }
    proc = subprocess.run(
        [
            sys.executable,
            "-c",
            CRASHER,
            str(crashed),
            "claude/projects/platform/entities/Auth Service",
        ],
        check=False,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == -9, proc.stderr
    assert (crashed / G).exists()
    # Re-run by name: it now resolves to the global copy, which says where it came from.
    result = run_promote(crashed, "Auth Service")
    assert result.status == ("already-global" if fault == "promote:removed" else "promoted")
    assert snapshot(crashed) == snapshot(reference)
