"""remember: any kind of fact into the current session's note, deduplicated, routed by
compaction like captured items; `vaultmem remember` and its alias `session decide`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from compaction_kit import PROJECT, memory, now
from typer.testing import CliRunner

from vaultmem.cli import app, sessions  # noqa: F401  (registers the commands)
from vaultmem.errors import SessionError

INDEX = f"claude/projects/{PROJECT}/_index.md"
ENTITIES = f"claude/projects/{PROJECT}/entities"
AUTH = f"[[{ENTITIES}/Auth|Auth]]"  # the link vaultmem writes to an entity: by path


def test_each_kind_goes_under_its_section(vault_root: Path) -> None:
    m = memory(vault_root)
    rel = m.start_session("s1", topic="t", now=now()).note
    m.remember("Use argon2id", kind="decision", why="bcrypt truncates", entities=["Auth"],
               now=now())
    m.remember("verify_token compared str with bytes", kind="gotcha", entities=["Auth"],
               now=now())
    m.remember("Tests need `REDIS_URL` set", kind="prerequisite", now=now())
    m.remember("Add the refund endpoint", kind="next-step", now=now())
    m.remember("Postgres in CI?", kind="question", now=now())
    text = (vault_root / rel).read_text()
    for section, line in [
        ("Decisions Made", f"- Use argon2id — why: bcrypt truncates ({AUTH})"),
        ("Gotchas & Fixes", f"- verify_token compared str with bytes ({AUTH})"),
        ("Prerequisites", "- Tests need `REDIS_URL` set"),
        ("Next Steps", "- Add the refund endpoint"),
        ("Open Questions", "- Postgres in CI?"),
    ]:
        assert f"## {section}\n\n{line}\n" in text
    assert text.count(f"- {AUTH}") == 1  # Related Entities: once


def test_the_same_fact_again_changes_nothing(vault_root: Path) -> None:
    m = memory(vault_root)
    rel = m.start_session("s1", topic="t", now=now()).note
    first = m.remember("Tests need REDIS_URL set", kind="prerequisite", now=now())
    before = (vault_root / rel).read_bytes()
    again = m.remember("tests need  REDIS_URL set.", kind="prerequisite", now=now())
    assert (first.status, again.status) == ("written", "unchanged")
    assert (vault_root / rel).read_bytes() == before


def test_without_a_session_one_is_started(vault_root: Path) -> None:
    m = memory(vault_root)
    result = m.remember("Add the refund endpoint", kind="next-step", now=now())
    assert result.note.startswith(f"claude/projects/{PROJECT}/sessions/")
    assert m.state.current(PROJECT) == result.session_id
    assert "## Next Steps\n\n- Add the refund endpoint\n" in (vault_root / result.note).read_text()


def test_bad_kind_or_empty_text_writes_nothing(vault_root: Path) -> None:
    m = memory(vault_root)
    rel = m.start_session("s1", topic="t", now=now()).note
    before = (vault_root / rel).read_bytes()
    with pytest.raises(SessionError, match="unknown kind 'hunch'"):
        m.remember("x", kind="hunch", now=now())
    with pytest.raises(SessionError, match="nothing to remember"):
        m.remember("  \n ", kind="gotcha", now=now())
    assert (vault_root / rel).read_bytes() == before


def test_text_cannot_open_a_block_of_its_own(vault_root: Path) -> None:
    m = memory(vault_root)
    rel = m.start_session("s1", topic="t", now=now()).note
    m.remember("## Not a heading\nsecond line", kind="gotcha", now=now())
    assert "- \\## Not a heading second line\n" in (vault_root / rel).read_text()


def test_compaction_files_remembered_facts_like_captured_ones(vault_root: Path) -> None:
    m = memory(vault_root)
    rel = m.start_session("s1", topic="t", now=now()).note
    m.remember("verify_token compared str with bytes", kind="gotcha", entities=["Auth"],
               now=now())
    m.remember("Tests need REDIS_URL set", kind="prerequisite", now=now())
    [report] = m.compact(rel, force=True, now=now())
    assert report.status == "compacted"
    auth = (vault_root / ENTITIES / "Auth.md").read_text()
    assert "verify_token compared str with bytes" in auth.split("## Gotchas & Troubleshooting")[1]
    assert "Tests need REDIS_URL set" in (vault_root / INDEX).read_text()


def test_cli_remember_and_the_decide_alias(vault_root: Path, now_env: str) -> None:
    runner = CliRunner()

    def cli(*args: str) -> tuple[int, str, str]:
        result = runner.invoke(app, ["--vault", str(vault_root), "--project", PROJECT, *args])
        return result.exit_code, result.stdout, result.stderr

    code, out, err = cli("remember", "Use RS256", "--kind", "decision", "--entity", "Auth",
                         "--json")
    assert code == 0 and err == ""
    doc = json.loads(out)
    assert doc["status"] == "written" and doc["entry"] == f"- Use RS256 ({AUTH})"
    note = vault_root / doc["note"]
    before = note.read_bytes()
    assert cli("session", "decide", "Use RS256", "--entity", "Auth") == (
        0, f"{doc['note']}: unchanged\n", ""
    )
    assert note.read_bytes() == before
    code, out, err = cli("remember", "Keys rotate", "--kind", "hunch")
    assert code == 2 and "hunch" in err
    code, out, err = cli("remember", " ", "--kind", "gotcha")
    assert (code, out) == (1, "") and err == "error: nothing to remember: the gotcha is empty\n"
    assert note.read_bytes() == before
    # The kind in any case, as a person types it.
    code, out, err = cli("remember", "Tokens expire hourly", "--kind", "Gotcha", "--json")
    assert code == 0 and err == "" and json.loads(out)["status"] == "written"
    code, out, err = cli("remember", "Ship it", "--kind", "NEXT-STEP", "--json")
    assert code == 0 and json.loads(out)["status"] == "written"


def test_a_secret_is_redacted_as_capture_redacts_it(vault_root: Path) -> None:
    m = memory(vault_root)
    token = "ghp_" + "1234567890abcdefghijklmnopqrstuvwxyZ"
    result = m.remember(f"CI reads the token {token}", kind="prerequisite", why=f"was {token}",
                        now=now())
    text = (vault_root / result.note).read_text()
    assert token not in text and "CI reads the token" in text


def test_a_line_that_only_gives_a_secret_is_not_remembered(vault_root: Path) -> None:
    m = memory(vault_root)
    # Redacted, it would brief as "the prod db password is ‹redacted:password›": nothing.
    with pytest.raises(SessionError, match="only gives a secret's value"):
        m.remember("the prod db password is Sup3rS3cret!2024", now=now())
    with pytest.raises(SessionError, match="keeps no secrets"):
        m.remember("STAGING_KEY=sk_live_abcdefghijklmnopqrstuvwx", kind="prerequisite",
                   now=now())
    # A line that says more than the value is kept, the value redacted.
    result = m.remember("the prod db password: Sup3rS3cret!2024, rotated every month",
                        now=now())
    text = (vault_root / result.note).read_text()
    assert "rotated every month" in text and "Sup3rS3cret" not in text
    assert "the prod db password is" not in text
