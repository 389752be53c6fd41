"""memory.py: the session lifecycle and compaction use-cases on a real vault in a tmp dir."""

from __future__ import annotations

import os
import re
import shutil
from datetime import timedelta
from pathlib import Path

import pytest
from compaction_kit import PROJECT, build, entity_text, memory, now, snapshot

from vaultmem import faults
from vaultmem.errors import SessionError, UnsafePath
from vaultmem.notes import frontmatter, propedit

SESSIONS = f"claude/projects/{PROJECT}/sessions"
ENTITIES = f"claude/projects/{PROJECT}/entities"
ARCHIVE = f"claude/projects/{PROJECT}/archive/sessions"


def _meta(root: Path, rel: str) -> dict[str, object]:
    return frontmatter.parse((root / rel).read_text())


@pytest.fixture(autouse=True)
def _disarm() -> object:
    yield None
    faults.disarm()


# -- sessions -----------------------------------------------------------------------------


def test_start_names_and_resume(vault_root: Path) -> None:
    m = memory(vault_root)
    a = m.start_session("s1", topic="Auth: JWT # work", now=now())
    assert a.created and a.note == f"{SESSIONS}/2026-11-25-auth-jwt-work.md"
    assert _meta(vault_root, a.note)["session_ids"] == ["s1"]
    assert "\n# Auth: JWT # work\n" in (vault_root / a.note).read_text()
    assert m.state.current(PROJECT) == "s1"
    again = m.start_session("s1", topic="other", now=now())
    assert again.resumed and again.note == a.note
    b = m.start_session("s2", topic="auth jwt work", now=now())
    assert b.note == f"{SESSIONS}/2026-11-25-auth-jwt-work-2.md"
    c = m.start_session("s3", first_prompt="Please <private>x y</private> fix the login bug today ok",
                        now=now())
    assert c.note == f"{SESSIONS}/2026-11-25-please-fix-the-login-bug-today.md"
    d = m.start_session(None, now=now())  # no id: the project's open session resumes
    assert d.resumed and (d.session_id, d.note) == ("s3", c.note)
    m.end_session(compact=False, now=now())
    e = m.start_session(None, now=now())
    assert e.note == f"{SESSIONS}/2026-11-25-session.md" and len(e.session_id) == 36
    assert (vault_root / f"claude/projects/{PROJECT}/_index.md").is_file()


def test_resumed_after_archive_continues_in_a_new_note(vault_root: Path) -> None:
    m = memory(vault_root)
    first = m.start_session("s1", topic="auth", now=now()).note
    m.end_session(session_id="s1", compact=False, now=now())
    assert m.compact_note(first, force=True, now=now()).status == "compacted"
    later = now() + timedelta(days=1)
    cont = m.start_session("s1", now=later)
    assert cont.created and cont.note == f"{SESSIONS}/2026-11-26-auth.md"
    assert cont.continues == f"{ARCHIVE}/2026-11-25-auth.md"
    assert _meta(vault_root, cont.note)["continues"] == f"[[{ARCHIVE}/2026-11-25-auth]]"
    # Writing to the session goes to the new note; the archived one never changes again.
    before = (vault_root / first).read_bytes()
    assert m.log("more", session_id="s1", now=later).note == cont.note
    assert (vault_root / first).read_bytes() == before


def test_archive_name_is_taken_too(vault_root: Path) -> None:
    m = memory(vault_root)
    first = m.start_session("s1", topic="auth", now=now()).note
    m.end_session(session_id="s1", compact=False, now=now())
    m.compact_note(first, force=True, move=True, now=now())
    assert not (vault_root / first).exists()
    assert m.start_session("s2", topic="auth", now=now()).note.endswith("2026-11-25-auth-2.md")


def test_log_entry_and_dates_once_a_day(vault_root: Path) -> None:
    m = memory(vault_root)
    rel = m.start_session("s1", topic="t", now=now() - timedelta(days=1)).note
    m.log("Did the thing.\nSecond line\n## not a heading", now=now())
    text = (vault_root / rel).read_text()
    assert "## Work Log\n\n### 10:30 - Did the thing. Second line ## not a\n\n" in text
    assert "\\## not a heading" in text
    assert _meta(vault_root, rel)["updated"] == now().date()
    fm_before = text.split("---\n")[1]
    m.log("short", title="Custom", now=now() + timedelta(hours=1))
    text = (vault_root / rel).read_text()
    assert text.split("---\n")[1] == fm_before  # same day: frontmatter untouched
    assert "### 11:30 - Custom\n\nshort\n\n## Decisions Made" in text
    m.log("short", now=now())
    assert "### 10:30 - short\n\n## Decisions Made" in (vault_root / rel).read_text()


def test_log_without_session_is_an_error(vault_root: Path) -> None:
    with pytest.raises(SessionError, match="no current session"):
        memory(vault_root).log("x", now=now())


def test_decide_format_and_related_once(vault_root: Path) -> None:
    m = memory(vault_root)
    rel = m.start_session("s1", topic="t", now=now()).note
    m.decide("Use JWT", why="stateless", entities=["Auth", "Redis"], now=now())
    m.decide("Rotate keys", entities=["Auth"], now=now())
    text = (vault_root / rel).read_text()
    auth, redis = f"[[{ENTITIES}/Auth|Auth]]", f"[[{ENTITIES}/Redis|Redis]]"
    assert (f"## Decisions Made\n\n- Use JWT — why: stateless ({auth}, {redis})\n"
            f"- Rotate keys ({auth})\n") in text
    assert text.count(f"- {auth}") == 1 and text.count(f"- {redis}") == 1
    with pytest.raises(UnsafePath):
        m.decide("x", entities=["../../etc"], now=now())


def test_end_session_compacts_when_due(vault_root: Path) -> None:
    m = memory(vault_root, line_threshold=20)
    rel = m.start_session("s1", topic="t", now=now()).note
    m.decide("Use JWT", entities=["Auth"], now=now())
    result = m.end_session(reason="logout", now=now())
    assert result.report is not None and result.report.status == "compacted"
    assert "### 10:30 - Session End\n\nReason: logout" in (vault_root / ARCHIVE / Path(rel).name).read_text()
    assert m.state.current(PROJECT) is None
    assert "Use JWT" in (vault_root / ENTITIES / "Auth.md").read_text()


def test_end_session_below_threshold_does_not_compact(vault_root: Path) -> None:
    m = memory(vault_root)
    m.start_session("s1", topic="t", now=now())
    result = m.end_session(now=now())
    assert result.report is None and result.verdict.startswith("below threshold")


# -- compaction ---------------------------------------------------------------------------


def test_compaction_result(vault_root: Path) -> None:
    rel = build(vault_root)
    m = memory(vault_root)
    report = m.compact_note(rel, now=now())
    assert report.status == "compacted", report.error
    assert report.verdict == "due: 608 lines"
    assert len(report.entities_created) == 6
    assert len(report.entities_updated) == 6
    assert report.counts["decision"] > 0 and report.counts["gotcha"] > 0
    archive = f"{ARCHIVE}/2026-11-25-big-session.md"
    assert report.archive == archive
    meta = _meta(vault_root, rel)
    assert meta["status"] == "archived"
    assert meta["archived_to"] == f"[[{ARCHIVE}/2026-11-25-big-session]]"
    assert meta["archived_reason"] == "Compaction threshold exceeded (608 lines)"
    assert _meta(vault_root, archive)["status"] == "archived"
    glob = (vault_root / "claude/global/entities/Entity 06.md").read_text()
    assert "^vm-" in glob and "Archived session (compacted)" in glob
    assert not (vault_root / ENTITIES / "Entity 06.md").exists()
    for path in (vault_root / ENTITIES).glob("*.md"):
        text = path.read_text()
        assert text.count("Archived session (compacted)") == 1
        ids = re.findall(r"\^(vm-[0-9a-f]{8})$", text, re.MULTILINE)
        assert ids and len(ids) == len(set(ids))


def test_private_text_stays_in_the_session_and_archive(vault_root: Path) -> None:
    rel = build(vault_root)
    memory(vault_root).compact_note(rel, now=now())
    for name, data in snapshot(vault_root).items():
        if "/entities/" in name:
            assert b"secret token" not in data and b"private" not in data, name
    assert b"secret token 1" in (vault_root / ARCHIVE / Path(rel).name).read_bytes()


def test_compacting_twice_changes_nothing(vault_root: Path) -> None:
    rel = build(vault_root)
    m = memory(vault_root)
    m.compact_note(rel, now=now())
    after = snapshot(vault_root)
    assert m.compact_note(rel, now=now()).status == "already archived"
    assert m.compact_note(rel, force=True, now=now()).status == "already archived"
    assert snapshot(vault_root) == after


def test_rerun_with_archive_and_entities_present_converges(vault_root: Path, tmp_path: Path) -> None:
    rel = build(vault_root)
    clean = tmp_path / "clean"
    shutil.copytree(vault_root, clean)
    m = memory(vault_root)
    m.compact_note(rel, now=now())
    expected = snapshot(vault_root)
    # Put the original back as it was: every later step finds its work done.
    shutil.copy(clean / rel, vault_root / rel)
    report = m.compact_note(rel, now=now())
    assert report.status == "compacted" and report.entities_created == ()
    assert report.entities_updated == ()
    assert snapshot(vault_root) == expected


def test_dry_run_writes_nothing(vault_root: Path) -> None:
    rel = build(vault_root)
    before = snapshot(vault_root)
    report = memory(vault_root).compact_note(rel, dry_run=True, now=now())
    assert report.status == "dry-run"
    assert snapshot(vault_root) == before
    joined = "".join(report.diffs)
    assert "+++ b/claude/projects/demo/entities/Entity 07.md" in joined
    assert "+status: archived" in joined and "-status: active" in joined


def test_below_threshold_writes_only_the_status(vault_root: Path) -> None:
    m = memory(vault_root)
    rel = m.start_session("s1", topic="t", now=now()).note
    m.end_session(compact=False, now=now())
    (vault_root / rel).write_text(
        (vault_root / rel).read_text().replace("status: active", "status: compaction_failed\nerror: old")
    )
    before = snapshot(vault_root)
    report = m.compact_note(rel, now=now())
    assert report.status == "below threshold"
    assert report.verdict.startswith("below threshold (")
    after = snapshot(vault_root)
    assert {k for k in after if after[k] != before.get(k)} == {rel}
    meta = _meta(vault_root, rel)
    assert meta["status"] == "active" and "error" not in meta


def test_force_reason(vault_root: Path) -> None:
    m = memory(vault_root)
    rel = m.start_session("s1", topic="t", now=now()).note
    m.end_session(compact=False, now=now())
    assert m.compact_note(rel, force=True, now=now()).status == "compacted"
    assert _meta(vault_root, rel)["archived_reason"] == "Manual compaction (--force)"


def test_move_removes_the_original_after_verify(vault_root: Path) -> None:
    rel = build(vault_root)
    report = memory(vault_root).compact_note(rel, move=True, now=now())
    assert report.removed and not (vault_root / rel).exists()
    assert (vault_root / ARCHIVE / Path(rel).name).is_file()


def test_concurrent_edit_of_an_entity_survives(vault_root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    rel = build(vault_root)
    target = vault_root / ENTITIES / "Entity 01.md"
    real = faults.checkpoint

    def person_edits(name: str) -> None:
        if name == "compact:entity-patch:Entity 01":
            # Between plan and patch, a person edits the entity in Obsidian.
            target.write_text(target.read_text().replace("What Entity 01 is.", "Edited by a person."))
        real(name)

    monkeypatch.setattr(faults, "checkpoint", person_edits)
    report = memory(vault_root).compact_note(rel, now=now())
    assert report.status == "compacted"
    assert any("edited meanwhile" in w for w in report.warnings)
    text = target.read_text()
    assert "Edited by a person." in text
    ids = re.findall(r"\^(vm-[0-9a-f]{8})$", text, re.MULTILINE)
    assert ids and len(ids) == len(set(ids))


def _entity_problem(root: Path, kind: str) -> Path:
    path = root / ENTITIES / "Entity 02.md"
    if kind == "invalid-yaml":
        path.write_text("---\ntype: [entity\n---\n# Entity 02\n")
    elif kind == "not-utf8":
        path.write_bytes(b"---\ntype: entity\n---\n\xff\xfe broken\n")
    elif kind == "folder":
        path.unlink()
        path = root / ENTITIES / "Entity 07.md"
        path.mkdir(parents=True)
    elif kind == "unreadable":
        path.chmod(0)
    return path


@pytest.mark.parametrize("kind", ["invalid-yaml", "not-utf8", "folder", "unreadable"])
def test_broken_entity_fails_the_compaction(vault_root: Path, kind: str) -> None:
    rel = build(vault_root)
    if kind == "unreadable" and os.geteuid() == 0:
        pytest.skip("root reads a chmod 000 file; not-utf8 and folder cover unreadable entities")
    path = _entity_problem(vault_root, kind)
    try:
        report = memory(vault_root).compact_note(rel, now=now())
    finally:
        if kind == "unreadable":
            path.chmod(0o644)
    assert report.status == "failed"
    assert path.name in (report.error or "")
    meta = _meta(vault_root, rel)
    assert meta["status"] == "compaction_failed"
    assert path.name in str(meta["error"]) and "\n" not in str(meta["error"])
    assert not (vault_root / ARCHIVE / Path(rel).name).exists()
    if kind in ("invalid-yaml", "not-utf8"):
        # The broken note is never rewritten.
        assert path.read_bytes() == (
            b"---\ntype: [entity\n---\n# Entity 02\n" if kind == "invalid-yaml"
            else b"---\ntype: entity\n---\n\xff\xfe broken\n"
        )
    status = {s.note: s for s in memory(vault_root).status(now=now())}[rel]
    assert status.verdict.startswith("compaction failed: ")


def test_failed_then_fixed_converges(vault_root: Path, tmp_path: Path) -> None:
    rel = build(vault_root)
    reference = tmp_path / "ref"
    shutil.copytree(vault_root, reference)
    memory(reference).compact_note(rel, now=now())
    path = _entity_problem(vault_root, "invalid-yaml")
    assert memory(vault_root).compact_note(rel, now=now()).status == "failed"
    path.write_text(entity_text("Entity 02"))
    assert memory(vault_root).compact_note(rel, now=now()).status == "compacted"
    assert snapshot(vault_root) == snapshot(reference)


def test_archive_verification_failure(vault_root: Path, tmp_path: Path) -> None:
    rel = build(vault_root)
    reference = tmp_path / "ref"
    shutil.copytree(vault_root, reference)
    memory(reference).compact_note(rel, now=now())
    faults.arm("compact:archive-verify")
    report = memory(vault_root).compact_note(rel, now=now())
    faults.disarm()
    assert report.status == "failed" and report.error == "archive verification failed"
    meta = _meta(vault_root, rel)
    assert meta["status"] == "active" and meta["archive_error"] == "Verification failed"
    assert not (vault_root / ARCHIVE / Path(rel).name).exists()
    assert memory(vault_root).compact_note(rel, now=now()).status == "compacted"
    assert snapshot(vault_root) == snapshot(reference)


def test_different_archive_is_never_overwritten(vault_root: Path) -> None:
    rel = build(vault_root)
    archive = vault_root / ARCHIVE / Path(rel).name
    archive.parent.mkdir(parents=True)
    archive.write_text("someone else's archive\n")
    report = memory(vault_root).compact_note(rel, now=now())
    assert report.status == "failed" and "never overwritten" in (report.error or "")
    assert archive.read_text() == "someone else's archive\n"
    assert _meta(vault_root, rel)["status"] == "compaction_failed"


# -- status and the lazy path -------------------------------------------------------------


def test_status_and_pending(vault_root: Path) -> None:
    m = memory(vault_root)
    big = build(vault_root)
    old = m.start_session("s-old", topic="old", now=now() - timedelta(days=4)).note
    m.end_session(session_id="s-old", compact=False, now=now() - timedelta(days=4))
    current = m.start_session("s-now", topic="now", now=now()).note
    rows = {s.note: s for s in m.status(now=now())}
    assert rows[big].verdict == "due: 608 lines" and rows[big].due
    assert rows[old].verdict == "due: 4 days old" and rows[old].age_days == 4
    assert rows[current].verdict.startswith("below threshold (") and not rows[current].due
    assert rows[current].verdict.endswith(", 0 days old)")
    assert m.pending(now=now()) == sorted([big, old])
    assert m.compact_pending(budget_s=0, now=now()) == []
    reports = m.compact_pending(budget_s=60, now=now())
    assert [r.status for r in reports] == ["compacted", "compacted"]
    assert m.pending(now=now()) == []
    assert {s.note: s.verdict for s in m.status(now=now())}[old] == "archived"


def test_the_pending_look_takes_archived_notes_from_the_index_while_they_are_unchanged(
    vault_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from vaultmem.search import index

    m = memory(vault_root)
    kept = m.start_session("s-kept", topic="kept", now=now() - timedelta(days=4)).note
    m.end_session(session_id="s-kept", compact=False, now=now() - timedelta(days=4))
    reopened = m.start_session("s-back", topic="back", now=now() - timedelta(days=4)).note
    m.end_session(session_id="s-back", compact=False, now=now() - timedelta(days=4))
    for rel in (kept, reopened):  # archived by hand, as the index will read them
        path = vault_root / rel
        path.write_text(propedit.set_key(path.read_text(), "status", "archived"))
    index.refresh(m.vault)
    # Set back to active after the index read it: its stat differs, so the note is read.
    path = vault_root / reopened
    path.write_text(propedit.set_key(path.read_text(), "status", "active") + "\nmore\n")
    looked: list[str] = []
    by_head = m._archived_by_head
    monkeypatch.setattr(m, "_archived_by_head", lambda rel: looked.append(rel) or by_head(rel))
    reports = m.compact_pending(budget_s=60, now=now())
    assert [r.status for r in reports] == ["compacted"]
    assert kept not in looked and reopened in looked  # the unchanged one is not even opened
    assert _meta(vault_root, reopened)["status"] == "archived"


def test_the_pending_look_does_not_parse_the_note_of_a_session_still_running(
    vault_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    m = memory(vault_root)
    running = m.start_session("s-run", topic="running", now=now() - timedelta(days=4)).note
    m.log("still at it", session_id="s-run", now=now() - timedelta(days=4))  # due by its age
    m.start_session("s-now", topic="now", now=now())  # another window: s-run is not current
    statused: list[str] = []
    status = m._status
    monkeypatch.setattr(m, "_status", lambda rel, *a: statused.append(rel) or status(rel, *a))
    assert m.compact_pending(budget_s=60, now=now()) == []
    assert running not in statused  # written a moment ago, not ended: never waiting
    assert m.pending(now=now()) == []  # what the full look says too


def test_bulk_compaction_skips_the_current_session(vault_root: Path) -> None:
    m = memory(vault_root)
    current = m.start_session("s1", topic="t", now=now()).note
    assert current not in m.compact_targets()
    assert m.compact_targets(current) == [current]


def test_llm_extractor_without_a_key_falls_back(vault_root: Path, tmp_path: Path) -> None:
    rel = build(vault_root)
    reference = tmp_path / "ref"
    shutil.copytree(vault_root, reference)
    memory(reference).compact_note(rel, now=now())
    report = memory(vault_root).compact_note(rel, extractor="llm", now=now())
    assert report.status == "compacted"
    assert report.extractor == "deterministic" and report.fallback_reason
    # The fallback is the deterministic extraction: the same vault as without the LLM.
    assert snapshot(vault_root) == snapshot(reference)


def test_a_machine_that_never_saw_a_session_compacts_it_by_its_note(
    vault_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two machines share the vault (git, a sync tool): each has its own state. Machine B
    compacts A's session once A's note says it ended, never while A's note says A runs it."""
    monkeypatch.setenv("VAULTMEM_HOST", "machine-a")
    a = memory(vault_root)
    ended = a.start_session("s-ended", topic="ended", now=now() - timedelta(days=4)).note
    a.end_session(session_id="s-ended", compact=False, now=now() - timedelta(days=4))
    running = a.start_session("s-running", topic="running", now=now() - timedelta(days=4)).note
    a.log("still at it", session_id="s-running", now=now() - timedelta(days=4))
    (vault_root / running).write_text(
        propedit.set_key((vault_root / running).read_text(), "host", "machine-a"))
    synced = now().timestamp() - 3 * 3600  # pulled long ago: the mtime says nothing
    for rel in (ended, running):
        os.utime(vault_root / rel, (synced, synced))
    monkeypatch.setenv("VAULTMEM_HOST", "machine-b")
    b = memory(vault_root)
    assert b.current_session() is None  # A's current session is A's
    assert b.pending(now=now()) == [ended]
    monkeypatch.setenv("VAULTMEM_HOST", "machine-a")
    assert sorted(memory(vault_root).pending(now=now())) == [ended]  # its own current one: not yet


def test_a_new_note_skips_the_names_taken_without_trying_to_create_them(
        vault_root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    m = memory(vault_root)
    for n in range(6):
        m.start_session(f"s-{n}", topic="same topic", now=now())
    tried: list[str] = []
    real = m.vault.create

    def counting(rel: str, text: str, **kwargs: bool) -> object:
        tried.append(rel)
        return real(rel, text, **kwargs)

    monkeypatch.setattr(m.vault, "create", counting)
    rel = m.start_session("s-new", topic="same topic", now=now()).note
    assert rel.endswith("-same-topic-7.md")
    assert [t for t in tried if "/sessions/" in t] == [rel]
