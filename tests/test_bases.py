"""bases.py and the flat properties the Obsidian views read: the .base files' structure, every
property they name written by vaultmem, the files made by init and kept by compaction, and the
project index's Recent Sessions (issue 13 items 1-2)."""

from __future__ import annotations

import re
from pathlib import Path

import yaml
from compaction_kit import PROJECT, memory, now

from vaultmem.memory import bases, threshold
from vaultmem.memory.sessions import Memory
from vaultmem.notes import frontmatter, patch
from vaultmem.store.config import Config
from vaultmem.store.vault import Vault

INDEX = f"claude/projects/{PROJECT}/_index.md"
_NOTE_PROPERTY = re.compile(r"\bnote\.([A-Za-z_][A-Za-z0-9_]*)")
_BARE_PROPERTY = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*==")


def _referenced(text: str) -> set[str]:
    """The note properties a .base file names: in columns, sorts, groups and filters."""
    doc = yaml.safe_load(text)
    found = set(_NOTE_PROPERTY.findall(text))
    filters: list[object] = [doc["filters"]]
    while filters:
        item = filters.pop()
        if isinstance(item, dict):
            filters.extend(item.values())
        elif isinstance(item, list):
            filters.extend(item)
        elif isinstance(item, str):
            found.update(_BARE_PROPERTY.findall(item))
            found.update(re.findall(r'hasProperty\("([^"]+)"\)', item))
    return found


def _session_and_compaction(root: Path) -> Memory:
    """A session with a decision and a gotcha, ended and compacted, through the library."""
    m = memory(root)
    m.init_project(now=now())
    m.start_session("s1", topic="token refresh", now=now())
    m.log("Fixed bug: the root cause was a stale key in [[Auth]]", title="Stale key", now=now())
    m.decide("Use argon2id over bcrypt", why="memory-hard", entities=["Auth"], now=now())
    m.end_session(reason="done", compact=False, now=now())
    rel = m.state.load().sessions["s1"].note
    assert m.compact_note(rel, force=True, now=now()).status == "compacted"
    return m


def _properties(root: Path, folder: str) -> set[str]:
    keys: set[str] = set()
    for path in (root / folder).rglob("*.md"):
        keys.update(frontmatter.parse(path.read_text()))
    return keys


def test_each_base_file_is_a_valid_table_view_over_the_namespace() -> None:
    for rel, text in bases.files("mem").items():
        assert rel.startswith("mem/") and rel.endswith(".base")
        doc = yaml.safe_load(text)
        assert set(doc) == {"filters", "properties", "views"}
        assert 'file.inFolder("mem")' in doc["filters"]["and"]
        assert doc["views"] and all(view["type"] == "table" for view in doc["views"])
        for view in doc["views"]:
            assert view["order"][0] == "file.name"
            assert all(s["direction"] in ("ASC", "DESC") for s in view["sort"])
            # Every column shown has a display name.
            assert set(view["order"]) <= set(doc["properties"])


def test_every_property_a_view_names_is_declared_and_written_by_vaultmem(tmp_path: Path) -> None:
    _session_and_compaction(tmp_path)
    written = _properties(tmp_path, "claude")
    # Written only on trouble or by a model run: the keys are the ones the code sets.
    conditional = {"error", "archive_error", "conflicted", "extraction_cost_usd", "git_branch",
                   "host"}  # the last two: capture (hooks) writes them
    source = "".join(p.read_text() for p in Path(bases.__file__).parent.rglob("*.py"))
    for key in conditional:
        assert f'"{key}"' in source or f"'{key}'" in source, key
    for name, text in bases.files("claude").items():
        referenced = _referenced(text)
        assert referenced <= set(bases.PROPERTIES[name.rsplit("/", 1)[-1]]), name
        assert referenced <= written | conditional, referenced - written - conditional


def test_init_writes_the_views_and_never_overwrites_a_persons_edit(tmp_path: Path) -> None:
    m = memory(tmp_path)
    created = m.init_project(now=now())
    for rel, text in bases.files("claude").items():
        assert rel in created
        assert (tmp_path / rel).read_text() == text
    edited = tmp_path / "claude" / bases.SESSIONS
    edited.write_text(edited.read_text() + "# my own view\n")
    before = edited.read_bytes()
    assert not any(rel.endswith(".base") for rel in m.init_project(now=now()))
    assert edited.read_bytes() == before


def test_a_compaction_brings_back_a_deleted_view(tmp_path: Path) -> None:
    m = memory(tmp_path)
    m.init_project(now=now())
    (tmp_path / "claude" / bases.ENTITIES).unlink()
    _session_and_compaction(tmp_path)
    assert (tmp_path / "claude" / bases.ENTITIES).read_text() == bases.entities("claude")


def test_a_session_note_carries_its_line_count_from_its_end(tmp_path: Path) -> None:
    m = memory(tmp_path)
    m.start_session("s1", topic="counting", now=now())
    for i in range(5):
        m.log(f"entry {i}", title=f"Step {i}", now=now())
    note = tmp_path / m.state.load().sessions["s1"].note
    assert "lines" not in frontmatter.parse(note.read_text())  # a log only adds lines
    m.end_session(reason="done", compact=False, now=now())
    text = note.read_text()
    assert frontmatter.parse(text)["lines"] == len(text.splitlines())


def test_line_count_settles_when_the_key_is_new_or_stale() -> None:
    text = "---\ntype: session\n---\n# x\n\nbody\n"
    once = threshold.with_line_count(text)
    assert frontmatter.parse(once)["lines"] == len(once.splitlines()) == 7
    assert threshold.with_line_count(once) == once
    stale = once.replace("lines: 7", "lines: 99")
    assert threshold.with_line_count(stale) == once


def test_an_entity_counts_its_decisions_and_gotchas(tmp_path: Path) -> None:
    _session_and_compaction(tmp_path)
    text = (tmp_path / f"claude/projects/{PROJECT}/entities/Auth.md").read_text()
    meta = frontmatter.parse(text)
    body = text.split("## Key Decisions", 1)[1]
    decisions = body.split("\n## ", 1)[0]
    gotchas = body.split("## Gotchas & Troubleshooting", 1)[1].split("\n## ", 1)[0]
    assert meta["decisions"] == decisions.count("\n- ") >= 1
    assert meta["gotchas"] == gotchas.count("\n- ") >= 1


def test_a_conflicted_write_flags_the_note_for_the_attention_view() -> None:
    text = "---\ntype: entity\n---\n# A\n\n## Overview\n\nmine\n"
    edit = patch.SectionPatch(("Overview",), "replace", "Claude's")
    out = patch.conflicted(text, edit, label="vaultmem")
    assert frontmatter.parse(out)["conflicted"] is True
    assert "mine" in out and "Claude's" in out
    plain = "# A\n\n## Overview\n\nmine\n"
    assert not patch.conflicted(plain, edit, label="vaultmem").startswith("---")


def test_recent_sessions_lists_the_newest_first_and_keeps_a_persons_line(tmp_path: Path) -> None:
    m = memory(tmp_path)
    m.init_project(now=now())
    index = tmp_path / INDEX
    index.write_text(index.read_text().replace(
        "## Recent Sessions\n", "## Recent Sessions\n\nMy own note about sessions.\n"))
    notes = []
    for i, topic in enumerate(("alpha", "beta", "gamma")):
        m.start_session(f"s{i}", topic=topic, now=now())
        m.log("Fixed bug: root cause was [[Auth]]", title="t", now=now())
        m.end_session(reason="done", compact=False, now=now())
        notes.append(m.state.load().sessions[f"s{i}"].note)
    assert m.compact_note(notes[0], force=True, now=now()).status == "compacted"
    text = index.read_text()
    section = text.split("## Recent Sessions", 1)[1]
    assert "My own note about sessions." in section
    rows = re.findall(r"^- \[\[([^|\]]+)\|([^\]]+)\]\] \^vm-[0-9a-f]{8}$", section,
                      re.MULTILINE)
    stems = [stem for _, stem in rows]
    assert stems == sorted(stems, reverse=True) and len(stems) == 3
    targets = {stem: target for target, stem in rows}
    compacted = notes[0].rsplit("/", 1)[-1][:-3]
    assert "/archive/sessions/" in targets[compacted]
    assert all("/sessions/" in t for t in targets.values())
    # Re-running keeps one row per session.
    assert m.compact_note(notes[1], force=True, now=now()).status == "compacted"
    again = index.read_text().split("## Recent Sessions", 1)[1]
    assert again.count("\n- [[") == 3 and "My own note about sessions." in again


def test_vault_layout_namespace_reaches_the_views(tmp_path: Path) -> None:
    config = Config(vault=tmp_path, project=PROJECT, namespace="agent")
    m = Memory(config, Vault(tmp_path, namespace="agent"))
    m.init_project(now=now())
    assert 'file.inFolder("agent")' in (tmp_path / "agent" / bases.SESSIONS).read_text()


def test_recent_sessions_leaves_out_a_note_still_awaiting_its_topic(tmp_path: Path) -> None:
    m = memory(tmp_path)
    m.init_project(now=now())
    m.start_session("s0", topic="alpha", now=now())
    m.log("Fixed bug: root cause was [[Auth]]", title="t", now=now())
    m.end_session(reason="done", compact=False, now=now())
    note = m.state.load().sessions["s0"].note
    m.start_session("s1", now=now())  # before its first prompt: `<date>-session`, renamed soon
    untitled = m.state.load().sessions["s1"].note
    assert untitled.endswith("-session.md")

    assert m.compact_note(note, force=True, now=now()).status == "compacted"

    section = (tmp_path / INDEX).read_text().split("## Recent Sessions", 1)[1]
    assert untitled[:-3] not in section and "alpha" in section
