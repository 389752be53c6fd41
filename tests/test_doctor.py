"""doctor: one vault seeded per problem kind, and a clean vault."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from bench.generate import generate
from vaultmem.memory.doctor import Problem, doctor
from vaultmem.store.vault import Vault

ENTITY = (
    "---\ntype: entity\nproject: demo\ntags:\n  - claude/entity\nstatus: active\n---\n\n"
    "## Overview\n\nSee [[Other]].\n"
)
OTHER = "---\ntype: entity\nproject: demo\n---\n\n## Overview\n\nBack to [[Auth]].\n"
ENT = "claude/projects/demo/entities"


def write(root: Path, rel: str, text: str | bytes) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")


@pytest.fixture
def clean(vault_root: Path) -> Path:
    write(vault_root, f"{ENT}/Auth.md", ENTITY)
    write(vault_root, f"{ENT}/Other.md", OTHER)
    return vault_root


def problems(root: Path) -> list[Problem]:
    return list(doctor(Vault(root)).problems)


def kinds(root: Path) -> list[tuple[str, str, int | None]]:
    return [(p.kind, p.rel, p.line) for p in problems(root)]


def test_clean_vault_has_no_problems(clean: Path) -> None:
    report = doctor(Vault(clean))
    assert report.ok and report.problems == () and report.notes == 2


def test_generated_vault_is_clean(tmp_path: Path) -> None:
    generated = generate(tmp_path / "v", notes=400)
    # Fresh lock files nobody holds (left by every write) are not problems.
    vault = Vault(generated.root)
    with vault.lock(generated.entities[0]):
        pass
    # The generator writes bare [[Entity]] links, as vaultmem did before it path-qualified a
    # name several projects hold, and keeps compacted originals whole, as vaultmem did before
    # they became stubs: those are ambiguous and twins, and nothing else is wrong.
    problems = doctor(vault).problems
    assert {p.kind for p in problems} == {"ambiguous-link", "compacted-twin"}
    ambiguous = [p for p in problems if p.kind == "ambiguous-link"]
    assert all("/" not in p.message.split("]]")[0] for p in ambiguous)


def test_invalid_yaml(clean: Path) -> None:
    write(clean, f"{ENT}/Bad.md", "---\ntype: entity\ntags: [a, b\n---\nbody\n")
    found = problems(clean)
    assert [(p.kind, p.rel) for p in found] == [("invalid-yaml", f"{ENT}/Bad.md")]
    assert found[0].line is not None and 2 <= found[0].line <= 4


def test_not_utf8(clean: Path) -> None:
    write(clean, f"{ENT}/Latin.md", "caf\xe9\n".encode("latin-1"))
    assert [(k, r) for k, r, _ in kinds(clean)] == [("not-utf8", f"{ENT}/Latin.md")]


def test_unresolved_link_with_its_line(clean: Path) -> None:
    write(
        clean,
        f"{ENT}/Links.md",
        "---\ntype: entity\n---\n"
        "[[Auth]] [[Auth#Overview]] [[#Local]] ![[pic.png]] [[doc.pdf]]\n"
        "`[[Not A Link]]`\n"
        "```\n[[Nor This]]\n```\n"
        "[[Missing Note|shown]] and ![[missing.png]]\n",
    )
    write(clean, "assets/pic.png", b"\x89PNG")
    write(clean, "assets/doc.pdf", b"%PDF")
    found = problems(clean)
    assert [(p.kind, p.line) for p in found] == [("unresolved-link", 9), ("unresolved-link", 9)]
    assert "[[Missing Note|shown]]" in found[0].message
    assert "![[missing.png]]" in found[1].message


def test_compaction_failed(clean: Path) -> None:
    write(
        clean,
        "claude/projects/demo/sessions/2026-11-20-x.md",
        "---\ntype: session\nstatus: compaction_failed\nerror: entity name '../x' is unsafe\n---\n",
    )
    found = problems(clean)
    assert [p.kind for p in found] == ["compaction-failed"]
    assert "entity name '../x' is unsafe" in found[0].message


def test_archived_without_archive(clean: Path) -> None:
    sessions = "claude/projects/demo/sessions"
    archive = "claude/projects/demo/archive/sessions"
    write(
        clean,
        f"{sessions}/2026-11-01-ok.md",
        f'---\ntype: session\nstatus: archived\narchived_to: "[[{archive}/2026-11-01-ok|x]]"\n---\n',
    )
    write(clean, f"{archive}/2026-11-01-ok.md", "---\ntype: session\nstatus: archived\n---\n")
    write(
        clean,
        f"{sessions}/2026-11-02-lost.md",
        f'---\ntype: session\nstatus: archived\narchived_to: "[[{archive}/2026-11-02-lost]]"\n---\n',
    )
    write(clean, f"{sessions}/2026-11-03-unset.md", "---\ntype: session\nstatus: archived\n---\n")
    found = problems(clean)
    assert [(p.kind, p.rel) for p in found] == [
        ("archived-without-archive", f"{sessions}/2026-11-02-lost.md"),
        ("archived-without-archive", f"{sessions}/2026-11-03-unset.md"),
    ]
    assert "does not exist" in found[0].message
    assert "not set" in found[1].message


HOLDER = textwrap.dedent(
    """
    import fcntl, os, sys
    fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT)
    fcntl.flock(fd, fcntl.LOCK_EX)
    print("held", flush=True)
    sys.stdin.readline()
    """
)


def test_stale_lock_is_a_lock_held_for_long(clean: Path) -> None:
    locks = clean / ".vaultmem" / "locks"
    locks.mkdir(parents=True)
    held, free, young = locks / "held.lock", locks / "free.lock", locks / "young.lock"
    old = time.time() - 3 * 3600
    for path in (held, free, young):
        path.touch()
    holders = [
        subprocess.Popen(
            [sys.executable, "-c", HOLDER, str(path)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        for path in (held, young)
    ]
    try:
        for holder in holders:
            assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        os.utime(held, (old, old))
        os.utime(free, (old, old))
        found = problems(clean)
    finally:
        for holder in holders:
            assert holder.stdin is not None
            holder.stdin.write("\n")
            holder.stdin.flush()
            holder.wait(timeout=30)
    assert [(p.kind, p.rel) for p in found] == [("stale-lock", ".vaultmem/locks/held.lock")]
    # Probing does not touch the lock file.
    assert int(held.stat().st_mtime) == int(old)
    # Released: nothing to report.
    assert problems(clean) == []


@pytest.mark.parametrize(
    "name",
    [
        "Auth (conflicted copy 2026-11-20 101010).md",
        "Auth (Jane's conflicted copy 2026-11-20).md",
        "Auth (Conflicted copy MacBook 202611201010).md",
        "Auth.sync-conflict-20261120-101010-ABCDEFG.md",
        "Auth (1).md",
    ],
)
def test_sync_conflict_files(clean: Path, name: str) -> None:
    write(clean, f"{ENT}/{name}", ENTITY)
    found = problems(clean)
    assert [(p.kind, p.rel) for p in found] == [("sync-conflict", f"{ENT}/{name}")]


def test_numbered_names_without_an_original_are_not_conflicts(clean: Path) -> None:
    write(clean, f"{ENT}/Release (2).md", ENTITY)
    write(clean, f"{ENT}/Auth 2.md", ENTITY)
    assert problems(clean) == []


def test_unsafe_name(clean: Path) -> None:
    write(clean, f"{ENT}/What? Why.md", ENTITY)
    write(clean, f"{ENT}/trailing .md", ENTITY)
    assert [(k, r) for k, r, _ in kinds(clean)] == [
        ("unsafe-name", f"{ENT}/What? Why.md"),
        ("unsafe-name", f"{ENT}/trailing .md"),
    ]


def test_case_collision(clean: Path) -> None:
    write(clean, f"{ENT}/auth.md", ENTITY)
    if len(list((clean / ENT).iterdir())) < 3:
        pytest.skip("case-insensitive file system")
    assert [(k, r) for k, r, _ in kinds(clean)] == [
        ("case-collision", f"{ENT}/Auth.md"),
        ("case-collision", f"{ENT}/auth.md"),
    ]


def test_problem_line_format() -> None:
    problem = Problem("unresolved-link", "a/b.md", 3, "[[x]] does not resolve")
    assert str(problem) == "a/b.md:3: unresolved-link: [[x]] does not resolve"


def test_alias_bomb_is_reported_as_invalid_yaml(clean: Path) -> None:
    bomb = ["a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    bomb += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]" for i in range(1, 10)]
    write(clean, f"{ENT}/Bomb.md", "---\n" + "\n".join(bomb) + "\n---\nbody\n")
    found = problems(clean)
    assert [(p.kind, p.rel) for p in found] == [("invalid-yaml", f"{ENT}/Bomb.md")]
    assert "alias" in found[0].message


def test_stale_temp_files_and_symlinks_out_of_the_vault(clean: Path, tmp_path: Path) -> None:
    from vaultmem.store.atomic import STALE_TEMP_SECONDS

    left = clean / ENT / ".Auth.md.ab12cd34.vmtmp"
    left.write_text("half a note")
    old = time.time() - STALE_TEMP_SECONDS - 5
    os.utime(left, (old, old))
    state_left = clean / ".vaultmem" / ".state.json.qq11ww22.vmtmp"
    state_left.parent.mkdir(exist_ok=True)
    state_left.write_text("{")
    os.utime(state_left, (old, old))
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "Far.md").write_text("# Far\n")
    os.symlink(outside, clean / ENT / "linked")
    os.symlink(outside / "Far.md", clean / ENT / "Far.md")
    os.symlink(clean / "claude", clean / "inside-link")  # inside the vault: fine
    found = kinds(clean)
    assert (("temp-file", f"{ENT}/.Auth.md.ab12cd34.vmtmp", None) in found)
    assert (("temp-file", ".vaultmem/.state.json.qq11ww22.vmtmp", None) in found)
    assert ("outside-link", f"{ENT}/linked", None) in found
    assert ("outside-link", f"{ENT}/Far.md", None) in found
    assert not any(rel == "inside-link" for _, rel, _ in found)


def test_an_ambiguous_link_names_three_of_its_notes_and_counts_the_rest(clean: Path) -> None:
    for project in ("a", "b", "c", "d", "e"):
        write(clean, f"claude/projects/{project}/entities/Cache.md", "---\ntype: entity\n---\n")
    write(clean, "claude/global/topics/Notes.md", "---\ntype: topic\n---\nSee [[Cache]].\n")
    found = [p for p in problems(clean) if p.kind == "ambiguous-link"]
    assert len(found) == 1
    message = found[0].message
    assert "could mean 5 notes (claude/projects/a/entities/Cache.md, " in message
    assert "claude/projects/c/entities/Cache.md and 2 more)" in message
    assert "projects/d/" not in message.split("Obsidian opens")[0]
