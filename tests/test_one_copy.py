"""One full copy of a compacted session, nothing left by a session without a prompt (issue 21,
item 5)."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

from hook_kit import PROJECT, payload, run_hook, session_notes
from typer.testing import CliRunner

from vaultmem.cli import _load_commands, app
from vaultmem.memory import compaction

_load_commands()
ARCHIVE = "claude/projects/shop/archive/sessions/2026-11-22-login.md"


def _cli(vault: Path, *args: str) -> str:
    result = CliRunner().invoke(app, ["--vault", str(vault), "--project", "shop", *args])
    assert result.exit_code == 0, result.stderr
    return result.stdout


def test_the_compacted_original_becomes_a_stub_linking_its_archive(
    vault_root: Path, now_env: str
) -> None:
    note = _cli(vault_root, "session", "start", "--topic", "login").split(": ")[0]
    _cli(vault_root, "session", "decide", "Use JWT", "--entity", "Auth")
    full = (vault_root / note).read_text()

    _cli(vault_root, "compact", note, "--force")

    stub = (vault_root / note).read_text()
    archive = (vault_root / ARCHIVE).read_text()
    assert note == "claude/projects/shop/sessions/2026-11-22-login.md"
    body = stub.split("\n---\n", 1)[1]
    assert body == (
        "# login\n\nCompacted on 2026-11-22: the whole session, its work log, "
        "decisions and next steps, is in [[claude/projects/shop/archive/sessions/2026-11-22-login"
        "|2026-11-22-login]].\n")
    assert "status: archived" in stub and 'archived_to: "[[claude/projects/shop/archive/' in stub
    # The archive is the one full copy: every line of the session is there, once.
    assert full.split("\n---\n", 1)[1] == archive.split("\n---\n", 1)[1]
    assert "Use JWT" not in stub
    status = json.loads(_cli(vault_root, "status", "--json"))
    assert [s["status"] for s in status["sessions"]] == ["archived"]
    # Compacting again changes nothing.
    before = stub
    _cli(vault_root, "compact", note, "--force")
    assert (vault_root / note).read_text() == before


def test_a_body_a_person_changed_is_kept_whole() -> None:
    text = "---\nstatus: archived\n---\n# S\n\n## Work Log\n\nmine too\n"
    assert compaction.stub_text(text, ARCHIVE, "# S\n\n## Work Log\n", date(2026, 11, 22)) == text


def test_the_sessions_view_lists_a_session_once(vault_root: Path, now_env: str) -> None:
    note = _cli(vault_root, "session", "start", "--topic", "login").split(": ")[0]
    _cli(vault_root, "compact", note, "--force")
    base = (vault_root / "claude/sessions.base").read_text()
    assert "- '!file.hasProperty(\"archived_to\")'" in base


def test_a_session_without_a_prompt_leaves_nothing(vault_root: Path, tmp_path: Path) -> None:
    missing = tmp_path / "none.jsonl"  # Claude Code opened and closed: no transcript turns
    for event in ("session-start", "session-end"):
        proc = run_hook(event, payload(event, missing), vault_root, cwd=tmp_path)
        assert proc.returncode == 0 and proc.stderr == b""
    assert session_notes(vault_root) == []
    state = next(vault_root.glob(".vaultmem/hosts/*/state.json"))
    assert json.loads(state.read_text())["sessions"] == {}
    assert not any((vault_root / f"claude/projects/{PROJECT}/sessions").iterdir())


def test_a_promptless_note_a_person_wrote_in_is_kept(vault_root: Path, tmp_path: Path) -> None:
    missing = tmp_path / "none.jsonl"
    run_hook("session-start", payload("session-start", missing), vault_root, cwd=tmp_path)
    (note,) = session_notes(vault_root)
    note.write_text(note.read_text() + "\nA thought of mine.\n")
    run_hook("session-end", payload("session-end", missing), vault_root, cwd=tmp_path)
    assert "A thought of mine." in note.read_text() and "Session End" in note.read_text()


def _legacy_pair(vault: Path) -> tuple[str, str]:
    """A session compacted before originals became stubs: the original marked archived and
    still whole beside its archive copy (made by a real compaction, then the body put back)."""
    note = _cli(vault, "session", "start", "--topic", "login").split(": ")[0]
    _cli(vault, "session", "decide", "Use JWT", "--entity", "Auth")
    full_body = (vault / note).read_text().split("\n---\n", 1)[1]
    _cli(vault, "compact", note, "--force")
    stub = (vault / note).read_text()
    legacy = stub.split("\n---\n", 1)[0] + "\n---\n" + full_body
    (vault / note).write_text(legacy)
    return note, legacy


def _doctor(vault: Path, *args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, ["--vault", str(vault), "doctor", *args])
    return result.exit_code, result.stdout + result.stderr


def test_doctor_fix_makes_an_old_compacted_original_a_stub(vault_root: Path, now_env: str) -> None:
    note, _ = _legacy_pair(vault_root)
    archive = (vault_root / ARCHIVE).read_bytes()
    code, out = _doctor(vault_root)
    assert code == 1 and f"{note}:0: compacted-twin:" in out and "doctor --fix" in out

    code, out = _doctor(vault_root, "--fix")
    assert code == 0, out
    assert f"{note}: now a stub linking its archive {ARCHIVE}" in out
    body = (vault_root / note).read_text().split("\n---\n", 1)[1]
    assert body == (
        "# login\n\nCompacted on 2026-11-22: the whole session, its work log, "
        "decisions and next steps, is in [[claude/projects/shop/archive/sessions/2026-11-22-login"
        "|2026-11-22-login]].\n")
    assert (vault_root / ARCHIVE).read_bytes() == archive  # the one full copy, untouched
    assert _doctor(vault_root)[0] == 0


def test_doctor_fix_keeps_an_old_original_a_person_wrote_in(vault_root: Path, now_env: str) -> None:
    note, legacy = _legacy_pair(vault_root)
    mine = legacy + "\nMy own note on this session.\n"
    (vault_root / note).write_text(mine)
    code, out = _doctor(vault_root, "--fix")
    assert code == 1
    assert f"{note}: left as it is (it holds text its archive does not" in out
    assert (vault_root / note).read_text() == mine
