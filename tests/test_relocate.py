"""claude/relocate.py: a session started above a repository and working inside it is filed under
that repository's project, through the real hooks; going up or sideways moves nothing."""

from __future__ import annotations

from pathlib import Path

from hook_kit import SID, copy_transcript, hook_env, payload, run_hook

from vaultmem.claude.relocate import descends, refiled
from vaultmem.notes import frontmatter


def test_descends_is_strictly_inside_without_touching_the_disk() -> None:
    assert descends("/home/dev", "/home/dev/work/shop")
    assert descends("/home/dev/", "/home/dev/shop/../shop/src")
    assert not descends("/home/dev/work/shop", "/home/dev/work/shop")
    assert not descends("/home/dev/work/shop", "/home/dev/work")  # up
    assert not descends("/home/dev/work/shop", "/home/dev/work/shop-admin")  # beside
    assert not descends("home/dev", "home/dev/shop")  # not absolute: unknown


def test_refiled_changes_the_project_and_its_index_link_only() -> None:
    text = ("---\ntype: session\nproject: dev\n---\n# T\n\n## Context\n\nProject "
            "[[claude/projects/dev/_index|dev]], started 2026-11-22 10:30.\n\n"
            "## Work Log\n\nSee [[claude/projects/dev/_index|dev]] again.\n")
    out = refiled(text, "dev", "shop", "claude/projects/dev/_index.md",
                  "claude/projects/shop/_index.md")
    assert frontmatter.parse(out)["project"] == "shop"
    assert "Project [[claude/projects/shop/_index|shop]], started" in out
    assert "See [[claude/projects/dev/_index|dev]] again." in out  # a person's own link stays


def test_refiled_points_captured_entity_links_at_the_new_project() -> None:
    text = ("---\ntype: session\nproject: dev\n---\n# T\n\n## Decisions Made\n\n"
            "- Use RS256 ([[claude/projects/dev/entities/Auth|Auth]], "
            "[[claude/projects/dev/entities/Billing#^vm-1|Billing]])\n"
            "- Keep [[claude/global/entities/Postgres|Postgres]] and [[Notes/dev/entities/x]]\n")
    out = refiled(text, "dev", "shop", "claude/projects/dev/_index.md",
                  "claude/projects/shop/_index.md", old_entities="claude/projects/dev/entities",
                  new_entities="claude/projects/shop/entities")
    assert ("- Use RS256 ([[claude/projects/shop/entities/Auth|Auth]], "
            "[[claude/projects/shop/entities/Billing#^vm-1|Billing]])") in out
    # A global entity and a person's own note are not the old project's: kept.
    assert "[[claude/global/entities/Postgres|Postgres]] and [[Notes/dev/entities/x]]" in out


def _notes(vault: Path) -> list[str]:
    return sorted(p.relative_to(vault).as_posix()
                  for p in vault.glob("claude/projects/*/sessions/*.md"))


def _hook(event: str, vault: Path, cwd: Path, transcript: Path, **env: str) -> None:
    done = run_hook(event, payload(event, transcript, cwd=str(cwd), session_id=SID), vault,
                    cwd=cwd, env=hook_env(vault, **env))
    assert done.returncode == 0 and not done.stderr, done.stderr


def _home_and_shop(tmp_path: Path) -> tuple[Path, Path]:
    """A home folder ``dev`` (its own project) with the repository ``shop`` inside it."""
    shop = tmp_path / "dev" / "shop"
    shop.mkdir(parents=True)
    return shop.parent, shop


def test_a_session_started_at_home_moves_into_the_repository_it_works_in(
    vault_root: Path, tmp_path: Path
) -> None:
    home, shop = _home_and_shop(tmp_path)
    (home / "other").mkdir()
    transcript = copy_transcript(tmp_path)
    _hook("session-start", vault_root, home, transcript)
    (started,) = _notes(vault_root)
    assert started.startswith("claude/projects/dev/sessions/")
    _hook("stop", vault_root, shop, transcript)
    (moved,) = _notes(vault_root)
    assert moved.startswith("claude/projects/shop/sessions/")
    text = (vault_root / moved).read_text()
    assert frontmatter.parse(text)["project"] == "shop"
    assert "[[claude/projects/shop/_index|shop]]" in text
    assert (vault_root / "claude/projects/shop/_index.md").is_file()
    # Back up to the home folder, then beside the repository: the note stays with the work.
    _hook("stop", vault_root, home, transcript)
    _hook("stop", vault_root, home / "other", transcript)
    _hook("session-end", vault_root, home / "other", transcript)
    notes = _notes(vault_root) + sorted(
        p.relative_to(vault_root).as_posix()
        for p in vault_root.glob("claude/projects/*/archive/sessions/*.md"))
    assert notes and all(n.startswith("claude/projects/shop/") for n in notes), notes


def test_a_session_started_in_one_repository_does_not_follow_a_cd_beside_it(
    vault_root: Path, tmp_path: Path
) -> None:
    shop, admin = tmp_path / "shop", tmp_path / "admin"
    shop.mkdir()
    admin.mkdir()
    transcript = copy_transcript(tmp_path)
    _hook("session-start", vault_root, shop, transcript)
    _hook("stop", vault_root, admin, transcript)
    (note,) = _notes(vault_root)
    assert note.startswith("claude/projects/shop/sessions/")


def _started_at_home(vault_root: Path, tmp_path: Path) -> tuple[Path, Path]:
    """A session started in the home folder: (the repository inside it, the transcript)."""
    home, shop = _home_and_shop(tmp_path)
    transcript = copy_transcript(tmp_path)
    _hook("session-start", vault_root, home, transcript)
    return shop, transcript


def test_a_move_that_cannot_remove_the_old_note_leaves_the_session_where_it_was(
    vault_root: Path, tmp_path: Path
) -> None:
    shop, transcript = _started_at_home(vault_root, tmp_path)
    _hook("stop", vault_root, shop, transcript, VAULTMEM_FAULT="relocate:retire:enospc")
    (kept,) = _notes(vault_root)  # no copy left behind in shop
    assert kept.startswith("claude/projects/dev/sessions/")
    # The note now records the repository as its working directory: nothing to go down into.
    _hook("stop", vault_root, shop, transcript)
    assert _notes(vault_root) == [kept]


def test_a_move_killed_before_the_old_note_went_takes_its_copy_on_the_next_hook(
    vault_root: Path, tmp_path: Path
) -> None:
    shop, transcript = _started_at_home(vault_root, tmp_path)
    killed = run_hook("stop", payload("stop", transcript, cwd=str(shop), session_id=SID),
                      vault_root, cwd=shop,
                      env=hook_env(vault_root, VAULTMEM_FAULT="relocate:retire:kill"))
    assert killed.returncode != 0
    assert len(_notes(vault_root)) == 2  # the copy in shop, the note still in dev
    _hook("stop", vault_root, shop, transcript)
    (moved,) = _notes(vault_root)  # the copy taken, not a second one beside it
    assert moved.startswith("claude/projects/shop/sessions/") and not moved.endswith("-2.md")
