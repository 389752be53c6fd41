"""briefing.py: which notes of the vault go into the session-start briefing."""

from __future__ import annotations

import os
from pathlib import Path

from vaultmem.claude import briefing
from vaultmem.config import Config
from vaultmem.vault import Vault

P = "shop"
SESSIONS = f"claude/projects/{P}/sessions"
ARCHIVE = f"claude/projects/{P}/archive/sessions"
ENTITIES = f"claude/projects/{P}/entities"
GLOBAL = "claude/global/entities"
INDEX = f"claude/projects/{P}/_index.md"


def _write(root: Path, rel: str, text: str, mtime: int | None = None) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    if mtime is not None:
        os.utime(path, (mtime, mtime))


def _session(decision: str, status: str = "active") -> str:
    return f"---\ntype: session\nstatus: {status}\n---\n## Decisions Made\n\n- {decision}\n"


def _entity(decision: str) -> str:
    return f"---\ntype: entity\n---\n## Key Decisions\n\n- {decision}\n"


def test_recent_sessions_newest_date_first_then_mtime(vault_root: Path) -> None:
    _write(vault_root, f"{SESSIONS}/2026-11-22-b.md", _session("b"), mtime=1000)
    _write(vault_root, f"{SESSIONS}/2026-11-22-a.md", _session("a"), mtime=2000)
    _write(vault_root, f"{SESSIONS}/2026-11-23-old-mtime.md", _session("c"), mtime=10)
    _write(vault_root, f"{SESSIONS}/2026-11-01-oldest.md", _session("d"), mtime=5000)
    _write(vault_root, f"{SESSIONS}/.hidden.md", _session("h"), mtime=9000)
    _write(vault_root, f"{SESSIONS}/notes.txt", "not a note", mtime=9000)
    got = briefing.recent_sessions(Vault(vault_root), P)
    assert got == [
        f"{SESSIONS}/2026-11-23-old-mtime.md",
        f"{SESSIONS}/2026-11-22-a.md",
        f"{SESSIONS}/2026-11-22-b.md",
    ]


def test_excluded_note_is_skipped_and_the_next_one_moves_up(vault_root: Path) -> None:
    for i, day in enumerate(("20", "21", "22", "23")):
        _write(vault_root, f"{SESSIONS}/2026-11-{day}-s.md", _session(day), mtime=i)
    got = briefing.recent_sessions(Vault(vault_root), P, exclude={f"{SESSIONS}/2026-11-23-s.md"})
    assert got == [f"{SESSIONS}/2026-11-{d}-s.md" for d in ("22", "21", "20")]


def test_archived_copy_stands_in_for_a_moved_original(vault_root: Path) -> None:
    # Compacted with --move: only the archive holds the note.
    _write(vault_root, f"{ARCHIVE}/2026-11-22-moved.md", _session("m", "archived"), mtime=1)
    # Compacted in place: the original (same file name) wins over its archive copy.
    _write(vault_root, f"{ARCHIVE}/2026-11-21-kept.md", _session("archive copy", "archived"))
    _write(vault_root, f"{SESSIONS}/2026-11-21-kept.md", _session("original", "archived"))
    got = briefing.recent_sessions(Vault(vault_root), P)
    assert got == [f"{ARCHIVE}/2026-11-22-moved.md", f"{SESSIONS}/2026-11-21-kept.md"]
    text = briefing.build(Vault(vault_root), Config(vault=vault_root, project=P))
    assert "- m\n" in text and "- original\n" in text and "archive copy" not in text


def test_key_entities_most_recent_without_index_links(vault_root: Path) -> None:
    for i in range(1, 8):
        _write(vault_root, f"{ENTITIES}/E{i}.md", _entity(f"e{i}"), mtime=i * 100)
    _write(vault_root, INDEX, "---\ntype: project-index\n---\n# shop\n\n## Key Entities\n")
    got = briefing.key_entities(Vault(vault_root), P)
    assert got == [f"{ENTITIES}/E{i}.md" for i in (7, 6, 5, 4, 3)]


def test_key_entities_follow_index_links_in_order(vault_root: Path) -> None:
    for i in range(1, 4):
        _write(vault_root, f"{ENTITIES}/E{i}.md", _entity(f"e{i}"), mtime=i * 100)
    _write(vault_root, f"{GLOBAL}/Shared.md", _entity("shared"))
    _write(vault_root, "elsewhere/E1.md", _entity("decoy"))
    _write(
        vault_root,
        INDEX,
        "# shop\n\n- [[E3]]\n- [[Shared]]\n- [[Missing]]\n- [[E3|again]]\n"
        "- [[E1]]\n\n```\n[[E2]] in code is not a link\n```\n",
    )
    got = briefing.key_entities(Vault(vault_root), P)
    assert got == [f"{ENTITIES}/E3.md", f"{GLOBAL}/Shared.md", f"{ENTITIES}/E1.md"]


def test_build_for_a_project_with_no_notes_is_only_the_heading(vault_root: Path) -> None:
    text = briefing.build(Vault(vault_root), Config(vault=vault_root, project="empty"))
    assert text.startswith("vaultmem memory for project `empty`.") and "~~~" not in text


def test_build_survives_unreadable_notes(vault_root: Path) -> None:
    _write(
        vault_root,
        f"{SESSIONS}/2026-11-22-bad-yaml.md",
        "---\nstatus: [unclosed\n---\n## Decisions Made\n\n- still read\n",
        mtime=2,
    )
    (vault_root / f"{SESSIONS}/2026-11-21-binary.md").write_bytes(b"\xff\xfe\x00bad")
    _write(vault_root, f"{ENTITIES}/Good.md", _entity("good"))
    text = briefing.build(Vault(vault_root), Config(vault=vault_root, project=P))
    assert "- still read" in text and "- good" in text and "binary" not in text


def test_build_respects_the_configured_cap(vault_root: Path) -> None:
    for i in range(3):
        _write(vault_root, f"{SESSIONS}/2026-11-2{i}-s.md", _session("z" * 250), mtime=i)
    text = briefing.build(
        Vault(vault_root), Config(vault=vault_root, project=P, context_max_chars=700)
    )
    assert len(text) <= 700 and "left out" in text
