"""The failure hook tells a recorded fix before a bare account of the error, and one fact once:
an entity's gotcha and its archived session's copy are one lesson (issue 31 item 2). Real
notes in a temp vault, the real hook as a subprocess."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from hook_kit import hook_env, run_hook

from vaultmem.claude import injections, onfailure
from vaultmem.search import index
from vaultmem.store.vault import Vault

FIXTURE = Path(__file__).parent / "fixtures" / "briefing"
ARCHIVED = "claude/projects/shop/archive/sessions/2026-11-18-set-up-auth.md"
ENTITY = "claude/projects/shop/entities/DB.md"
ERROR = ("Exit code 1\nE   psycopg.OperationalError: connection failed: connection refused\n"
         "\tIs the server running on host \"localhost\" and accepting TCP/IP connections on port "
         "5432?")
FAILED = ("`pytest tests/test_db.py` failed (`E   psycopg.OperationalError: connection failed: "
          "connection refused`)")
# What the error meant, said in many of its words (the index ranks it first), and no fix.
MEANT = ("`psycopg.OperationalError` connection refused: the psycopg connection failed as the "
         f"connection to Postgres was refused on port 5432 {FAILED}")
FIX = f"Fixed by running `docker compose up -d db`: {FAILED}"
LINK = "([[claude/projects/shop/archive/sessions/2026-11-18-set-up-auth|2026-11-18-set-up-auth]])"


def _vault(tmp_path: Path, *, entity: bool = True) -> Path:
    """The fixture vault with the archived session's gotchas (what the error meant, its fix)
    and, when ``entity``, the fix filed into DB's Gotchas as compaction files it (cut)."""
    root = tmp_path / "vault"
    shutil.copytree(FIXTURE, root)
    note = root / ARCHIVED
    note.write_text(note.read_text().replace(
        "## Prerequisites", f"## Gotchas & Fixes\n\n- {MEANT}\n- {FIX}\n\n## Prerequisites"))
    if entity:
        db = root / ENTITY
        cut = FIX[:FIX.index("connection refused")] + "connection…`)"
        db.write_text(db.read_text().rstrip("\n") + f"\n- 2026-11-18 — {cut} {LINK} ^vm-0a1b2c3d\n")
    index.refresh(Vault(root))
    return root


def _hook(root: Path, cwd: Path, session: str, command: str = "pytest tests/test_db.py -x"
          ) -> str:
    done = run_hook("post-tool-use-failure", {
        "session_id": session, "cwd": str(cwd), "hook_event_name": "PostToolUseFailure",
        "tool_name": "Bash", "tool_input": {"command": command}, "error": ERROR,
        "is_interrupt": False}, root, cwd=cwd, env=hook_env(root, VAULTMEM_PROJECT="shop"))
    assert done.returncode == 0 and done.stderr == b""
    out = done.stdout.decode()
    return str(json.loads(out)["hookSpecificOutput"]["additionalContext"]) if out else ""


def _facts(context: str) -> list[str]:
    return [line for line in context.split("\n") if line.startswith("- ")]


def test_the_fix_filed_in_an_entity_is_told_first_once_with_where_it_was_found(
        tmp_path: Path) -> None:
    root = _vault(tmp_path)

    told = _facts(_hook(root, tmp_path, "s-1"))

    # The fix before what the error meant, from the entity it was filed in, naming its session.
    assert "docker compose up -d db" in told[0]
    assert "entity [[DB]], found in session [[2026-11-18-set-up-auth]]" in told[0]
    # The archived session's copy of that fix is the same lesson: not told a second time.
    assert sum("docker compose" in line for line in told) == 1
    assert "refused on port 5432" in told[1]
    # Once per fix per session: the copy it left out counts as given.
    assert _hook(root, tmp_path, "s-1", "pytest tests/test_db.py") == ""
    [logged] = injections.read(root / ".vaultmem")
    assert len(logged.keys) == 3


def test_the_log_names_the_failed_command_s_shape_without_its_secrets(tmp_path: Path) -> None:
    """A flag's value is no subcommand: ``sshpass -p PASS`` is logged as ``sshpass`` (issue 28)."""
    root = _vault(tmp_path)

    assert "docker compose up -d db" in _hook(root, tmp_path, "s-3",
                                               "sshpass -p marmalade pytest tests/test_db.py")

    [logged] = injections.read(root / ".vaultmem")
    assert "`sshpass`" in logged.reason and "marmalade" not in logged.reason


def test_without_an_entity_the_session_s_fix_comes_before_what_the_error_meant(
        tmp_path: Path) -> None:
    told = _facts(_hook(_vault(tmp_path, entity=False), tmp_path, "s-2"))

    assert "docker compose up -d db" in told[0] and "refused on port 5432" in told[1]


@pytest.mark.parametrize(("text", "fix"), [
    (FIX, True),
    ("Got it to run with `PATH` set: `cargo build` failed (`zsh: command not found: cargo`)", True),
    ("For the person to run `sudo setcap cap_dac_read_search=ep ./app` (`sudo setcap` failed)",
     True),
    (("Tokio runtime feature missing: ``error: … `rt-multi-thread` …`` Fix: Added "
      "\"rt-multi-thread\" to tokio features in Cargo.toml"), True),
    ("Option 5: Add Git Bash to Windows Defender Exclusions (`ls` failed: `child_copy`)", True),
    ("Use `--legacy-peer-deps` for the old peer range (`npm ci` failed: `ERESOLVE`)", True),
    # What the error meant, and what was tried next: no fix.
    ("`Win32 error 299` = `ERROR_PARTIAL_COPY` - Memory copy operation failed", False),
    (("The RAPL files are root-only. Since I can't run `sudo setcap` interactively, let me "
      "try a different approach (`sudo setcap …` failed: `sudo: a terminal is required`)"),
     False),
    # An error that says "install" or "required" in its quote is no fix of it.
    ("Nothing could be read (`make` failed: `make: run 'npm install' first; it is required`)",
     False),
])
def test_a_gotcha_states_a_fix_outside_what_it_quotes(text: str, fix: bool) -> None:
    assert onfailure.states_fix(text) is fix
