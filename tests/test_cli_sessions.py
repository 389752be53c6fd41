"""CLI: session start|log|decide|end, compact, status — exit codes, stdout/stderr, --json."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from compaction_kit import NOW, PROJECT, build, snapshot
from typer.testing import CliRunner

from vaultmem.cli import app, sessions  # noqa: F401  (registers the commands)

SESSIONS = f"claude/projects/{PROJECT}/sessions"


@pytest.fixture
def cli(vault_root: Path, monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    monkeypatch.setenv("VAULTMEM_NOW", NOW)
    runner = CliRunner()

    def invoke(*args: str, stdin: str | None = None):  # type: ignore[no-untyped-def]
        return runner.invoke(app, ["--vault", str(vault_root), "--project", PROJECT, *args],
                             input=stdin)

    return invoke


def test_session_lifecycle(cli, vault_root: Path) -> None:  # type: ignore[no-untyped-def]
    started = cli("session", "start", "--topic", "Auth work", "--session-id", "s1", "--json")
    assert started.exit_code == 0, started.stderr
    doc = json.loads(started.stdout)
    assert doc == {"vault": str(vault_root), "session_id": "s1",
                   "note": f"{SESSIONS}/2026-11-25-auth-work.md",
                   "created": True, "resumed": False, "continues": None}
    assert started.stderr == ""
    resumed = cli("session", "start", "--session-id", "s1")
    assert resumed.stdout == f"{SESSIONS}/2026-11-25-auth-work.md: resumed\n"
    logged = cli("session", "log", "-", "--title", "From stdin", stdin="piped text\n")
    assert logged.exit_code == 0 and logged.stdout.endswith(": written\n")
    decided = cli("session", "decide", "Use JWT", "--why", "stateless", "--entity", "Auth",
                  "--entity", "Redis", "--json")
    assert json.loads(decided.stdout)["entry"] == (
        "- Use JWT — why: stateless ([[claude/projects/demo/entities/Auth|Auth]], "
        "[[claude/projects/demo/entities/Redis|Redis]])")
    ended = cli("session", "end", "--reason", "logout", "--json")
    assert ended.exit_code == 0
    end_doc = json.loads(ended.stdout)
    assert end_doc["verdict"].startswith("below threshold (") and end_doc["compaction"] is None
    text = (vault_root / doc["note"]).read_text()
    assert "### 10:30 - From stdin\n\npiped text" in text
    assert "### 10:30 - Session End\n\nReason: logout" in text


def test_log_without_a_session_fails_with_one_line(cli) -> None:  # type: ignore[no-untyped-def]
    result = cli("session", "log", "text")
    assert result.exit_code == 1
    assert result.stdout == ""
    assert result.stderr.startswith("error: no current session") and result.stderr.count("\n") == 1


def test_compact_json_and_status(cli, vault_root: Path) -> None:  # type: ignore[no-untyped-def]
    rel = build(vault_root)
    status = cli("status", "--json")
    assert status.exit_code == 0
    doc = json.loads(status.stdout)
    assert doc == {"vault": str(vault_root), "project": "demo",
                   "sessions": [{"note": rel, "lines": 608, "age_days": 0,
                                 "status": "pending compaction",
                                 "verdict": "due: 608 lines", "due": True}],
                   "extraction_cost": {"project": "demo", "notes": 0, "total_usd": 0.0},
                   "injected": []}
    result = cli("compact", "--json")
    assert result.exit_code == 0, result.stderr
    doc = json.loads(result.stdout)
    assert doc["vault"] == str(vault_root)
    (report,) = doc["reports"]
    assert set(report) == {"note", "status", "verdict", "counts", "entities_updated",
                           "entities_created", "archive", "duration_ms", "extractor",
                           "fallback_reason", "warnings", "diffs", "error", "removed",
                           "extraction_cost_usd"}
    assert report["status"] == "compacted" and report["extractor"] == "deterministic"
    assert len(report["entities_created"]) == 6 and len(report["entities_updated"]) == 6
    assert set(report["counts"]) == {"decision", "gotcha", "reference", "pattern", "prerequisite"}
    assert isinstance(report["duration_ms"], float)
    text = cli("status")
    assert text.stdout == f"{rel}  archived\n"


def test_compact_text_report(cli, vault_root: Path) -> None:  # type: ignore[no-untyped-def]
    rel = build(vault_root)
    result = cli("compact", rel)
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert lines[0] == f"{rel}: compacted (due: 608 lines)"
    assert lines[1].startswith("  items: ") and "decision" in lines[1]
    assert lines[3].startswith("  entities created: claude/projects/demo/entities/Entity 07.md")
    assert lines[4].startswith("  archive: claude/projects/demo/archive/sessions/")
    assert lines[4].endswith(" ms")


def test_dry_run_writes_nothing(cli, vault_root: Path) -> None:  # type: ignore[no-untyped-def]
    rel = build(vault_root)
    before = snapshot(vault_root)
    result = cli("compact", rel, "--dry-run")
    assert result.exit_code == 0
    assert result.stdout.startswith(f"{rel}: dry run (due: 608 lines)\n")
    assert "+++ b/claude/projects/demo/entities/Entity 07.md" in result.stdout
    assert snapshot(vault_root) == before


def test_failed_compaction_exits_1(cli, vault_root: Path) -> None:  # type: ignore[no-untyped-def]
    rel = build(vault_root)
    (vault_root / f"claude/projects/{PROJECT}/entities/Entity 02.md").write_text("---\na: [b\n---\n")
    result = cli("compact", rel)
    assert result.exit_code == 1
    assert f"{rel}: failed" in result.stdout
    assert result.stderr.startswith(f"error: {rel}: ") and "Entity 02.md" in result.stderr
    assert result.stderr.count("\n") == 1


def test_unknown_note_and_usage_errors(cli) -> None:  # type: ignore[no-untyped-def]
    missing = cli("compact", "no-such-note")
    assert missing.exit_code == 1 and "no-such-note" in missing.stderr and missing.stdout == ""
    bad = cli("compact", "--extractor", "magic")
    assert bad.exit_code == 2
    unknown = cli("compact", "--session", "nope")
    assert unknown.exit_code == 1 and "unknown session id" in unknown.stderr


def test_every_command_has_help(cli) -> None:  # type: ignore[no-untyped-def]
    for args in (["session", "start"], ["session", "log"], ["session", "decide"],
                 ["session", "end"], ["compact"], ["status"]):
        result = cli(*args, "--help")
        assert result.exit_code == 0
        assert "Usage:" in result.stdout and len(result.stdout.splitlines()) > 4


def test_start_twice_resumes_the_open_session(cli, vault_root: Path) -> None:  # type: ignore[no-untyped-def]
    first = cli("session", "start", "--topic", "Auth work")
    second = cli("session", "start")
    assert first.exit_code == second.exit_code == 0
    assert first.stdout == f"{SESSIONS}/2026-11-25-auth-work.md: created\n"
    assert second.stdout == f"{SESSIONS}/2026-11-25-auth-work.md: resumed\n"
    assert [p.name for p in (vault_root / SESSIONS).iterdir()] == ["2026-11-25-auth-work.md"]
    assert cli("session", "end", "--no-compact").exit_code == 0
    third = cli("session", "start", "--topic", "Auth work")  # the last one ended: a new session
    assert third.stdout == f"{SESSIONS}/2026-11-25-auth-work-2.md: created\n"


def test_log_after_compaction_says_it_starts_a_new_note_and_never_doubles_the_suffix(
    cli, vault_root: Path
) -> None:  # type: ignore[no-untyped-def]
    archive = f"claude/projects/{PROJECT}/archive/sessions"
    assert cli("session", "start", "--topic", "Auth").exit_code == 0
    names = []
    for n in range(3):
        logged = cli("session", "log", f"step {n}")
        assert logged.exit_code == 0, logged.stderr
        names.append(logged.stdout)
        compacted = cli("compact", logged.stdout.split(":")[0], "--force")
        assert compacted.exit_code == 0, compacted.stderr
    assert names[0] == f"{SESSIONS}/2026-11-25-auth.md: written\n"
    assert names[1] == (f"{SESSIONS}/2026-11-25-auth-2.md: written (a new note: "
                        f"{archive}/2026-11-25-auth.md was compacted and archived)\n")
    assert names[2].startswith(f"{SESSIONS}/2026-11-25-auth-3.md: written (a new note: "
                               f"{archive}/2026-11-25-auth-2.md")
    doc = json.loads(cli("session", "decide", "Use JWT", "--json").stdout)
    assert doc["note"] == f"{SESSIONS}/2026-11-25-auth-4.md"
    assert doc["continues"] == f"{archive}/2026-11-25-auth-3.md"


def test_status_says_active_ended_and_pending_compaction(  # type: ignore[no-untyped-def]
    cli, vault_root: Path
) -> None:
    live = json.loads(cli("session", "start", "--topic", "Live", "--session-id", "s1",
                          "--json").stdout)["note"]
    assert cli("status").stdout == f"{live}  active: below threshold (31 lines, 0 days old)\n"
    assert cli("session", "end", "--reason", "logout").exit_code == 0
    big = build(vault_root)  # due, its last entry its Session End, not compacted yet

    rows = {r["note"]: r["status"] for r in json.loads(cli("status", "--json").stdout)["sessions"]}

    assert rows == {live: "ended", big: "pending compaction"}
    text = cli("status").stdout.splitlines()
    assert f"{big}  pending compaction: due: 608 lines" in text
    assert any(line.startswith(f"{live}  ended: below threshold (") for line in text)
