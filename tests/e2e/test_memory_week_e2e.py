"""A week of real Claude Code sessions on a small web app, and what the memory holds after it.

The real CLI runs against the stand-in with vaultmem's hooks installed by ``vaultmem
install-hooks``: five sessions over eight days (one resumed) on a git project with ``src/auth``,
``src/billing``, ``src/api`` and ``src/db``. Claude's tools run for real (Write, Read, Edit, Bash;
test runs that fail, then a fix and a pass) and its replies are phrased as a model phrases them,
with no ``Decision:`` labels. ``FACTS`` are worded unlike bench/fixtures/memory's on purpose: the
miner was not tuned to them. A new session then starts; the test counts the facts ``vaultmem
recall`` finds, those the briefing Claude Code received carries, the component entities and the
garbled lines, and prints them (``pytest -s``).
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from bench.eval_memory import TARGETS, garbled_lines
from bench.memory_scenario import Fact

from .conftest import Claude, Run
from .standin import Block, Text, ToolUse

pytestmark = pytest.mark.e2e

PROJECT = "ledger"
BRIEFING_MARKER = "SessionStart hook additional context"
_CLAUDE_CODE_LISTS = "\n\nAvailable agent types for the Agent tool"
# The target is TARGETS["recall"] (12). Four facts are stated in phrasings the miner first missed
# (a passive "is kept as X instead of Y" decision, "was a rounding problem: …", "… fixed it", an
# imperative "Run `make migrate` before …"); general rules for those structures (tuned on the
# labelled corpus, not on these sentences) brought the week to 14/14. The floor is the target.
RECALL_FLOOR = 12

FACTS: tuple[Fact, ...] = (
    Fact("reset tokens signed, no table", "reset tokens", "URLSafeTimedSerializer"),
    Fact("naive vs aware expires_at", "naive datetime expires_at", "timezone.utc"),
    Fact("SECRET_KEY exported first", "SECRET_KEY", "SECRET_KEY"),
    Fact("money in integer cents", "integer cents", "integer cents"),
    Fact("VAT rounded once, not per line", "VAT rounding", "line item"),
    Fact("wkhtmltopdf for PDF invoices", "wkhtmltopdf", "wkhtmltopdf"),
    Fact("token bucket over fixed window", "token bucket", "token bucket"),
    Fact("WAL mode against 'database is locked'", "database is locked", "WAL mode"),
    Fact("make migrate before the API tests", "make migrate", "make migrate"),
    Fact("Retry-After in seconds", "Retry-After", "Retry-After"),
    Fact("CSV rows through the csv module", "csv export commas", "`csv` module"),
    Fact("exports as a background job", "export background job", "background job"),
    Fact("next: paginate GET /api/invoices", "invoices pagination", "pagination"),
    Fact("open: soft-delete invoices?", "soft-deleted invoices", "soft-deleted"),
)
OPEN_NEXT_STEP = "pagination"

SEED = {
    "src/auth/__init__.py": "",
    "src/billing/__init__.py": "",
    "src/api/__init__.py": "",
    "src/db/__init__.py": "",
    "README.md": "# ledger\n\nInvoices, payments and an API for a small shop.\n",
}
RESET = """\
from datetime import datetime, timedelta, timezone

def expires_at():
    return datetime.utcnow() + timedelta(hours=1)

def is_expired(now):
    return now >= expires_at()
"""
RESET_TEST = """\
import sys
sys.path.insert(0, "src")
from datetime import datetime, timezone
from auth.reset import is_expired

assert not is_expired(datetime.now(timezone.utc))
print("reset: 1 passed")
"""
INVOICES = """\
def total_cents(lines, vat):
    return sum(cents + round(cents * vat) for cents in lines)
"""
INVOICES_TEST = """\
import sys
sys.path.insert(0, "src")
from billing.invoices import total_cents

got = total_cents([333, 333, 333], 0.19)
assert got == 1189, f"total {got} != 1189"
print("invoices: 1 passed")
"""
CONNECTION = 'JOURNAL_MODE = "delete"\n'
API_TEST = """\
import sqlite3, sys
sys.path.insert(0, "src")
from db.connection import JOURNAL_MODE
from api.ratelimit import Bucket

if JOURNAL_MODE != "wal":  # the worker and the API write at once
    raise sqlite3.OperationalError("database is locked")
bucket = Bucket(capacity=2)
assert bucket.take() and bucket.take() and not bucket.take()
print("api: 2 passed")
"""
RATELIMIT = """\
class Bucket:
    def __init__(self, capacity):
        self.tokens = capacity

    def take(self):
        if self.tokens <= 0:
            return False
        self.tokens -= 1
        return True
"""
EXPORT = """\
def rows(invoices):
    return "\\n".join(",".join(str(v) for v in inv) for inv in invoices)
"""
EXPORT_TEST = """\
import csv, io, sys
sys.path.insert(0, "src")
from billing.export import rows

out = list(csv.reader(io.StringIO(rows([(1, "Acme, Inc.", 1189)]))))
assert len(out[0]) == 3, f"row has {len(out[0])} fields, expected 3"
print("export: 1 passed")
"""


def _write(project: Path, rel: str, content: str) -> ToolUse:
    return ToolUse("Write", {"file_path": str(project / rel), "content": content})


def _edit(project: Path, rel: str, old: str, new: str) -> ToolUse:
    return ToolUse("Edit", {"file_path": str(project / rel), "old_string": old,
                            "new_string": new})


def _read(project: Path, rel: str) -> ToolUse:
    return ToolUse("Read", {"file_path": str(project / rel)})


def _bash(command: str, description: str = "Run the tests") -> ToolUse:
    return ToolUse("Bash", {"command": command, "description": description})


def _script(project: Path) -> Iterator[tuple[str, str, list[list[Block]], bool]]:
    """(when, prompt, replies, resume the previous session) per session, in order."""
    yield "2026-11-02T09:30:00", "Add password reset to auth: a token valid for an hour, tested", [
        [Text("I'll add a reset module and a test for it."),
         _write(project, "src/auth/reset.py", RESET),
         _write(project, "tests/test_reset.py", RESET_TEST)],
        [_bash("python3 tests/test_reset.py")],
        [Text("The comparison mixes naive and aware datetimes; fixing that."),
         _edit(project, "src/auth/reset.py", "datetime.utcnow()", "datetime.now(timezone.utc)")],
        [_bash("python3 tests/test_reset.py")],
        [Text("Password reset is in place: `src/auth/reset.py` issues and checks the tokens, and "
              "`tests/test_reset.py` passes.\n\n"
              "I went with itsdangerous' `URLSafeTimedSerializer` for the reset tokens rather "
              "than a tokens table, since signed tokens expire on their own and need no cleanup "
              "job.\n\n"
              "The first test run failed because `expires_at` was computed from a naive "
              "`datetime.utcnow()` while the check used an aware time; the fix was to build every "
              "timestamp with `datetime.now(timezone.utc)`.\n\n"
              "Keep in mind that the app needs `SECRET_KEY` exported before it starts, otherwise "
              "token signing fails at import time.")],
    ], False
    yield "2026-11-03T10:00:00", "Invoices need totals with VAT in billing", [
        [Text("Adding the invoice totals and a test."),
         _write(project, "src/billing/invoices.py", INVOICES),
         _write(project, "tests/test_invoices.py", INVOICES_TEST)],
        [_bash("python3 tests/test_invoices.py")],
        [_edit(project, "src/billing/invoices.py",
               "return sum(cents + round(cents * vat) for cents in lines)",
               "return round(sum(lines) * (1 + vat))")],
        [_bash("python3 tests/test_invoices.py")],
        [Text("Invoices now compute their totals in `src/billing/invoices.py`.\n\n"
              "Money is kept as integer cents instead of floats throughout billing, so totals "
              "can't drift by fractions of a cent.\n\n"
              "The failing test was a rounding problem: VAT was rounded on every line item "
              "rather than once on the invoice total, which left the total a cent short. Rounding "
              "once at the end fixed it, and the test passes.\n\n"
              "For the PDF invoices we'll need `wkhtmltopdf` installed on the machine (`apt "
              "install wkhtmltopdf`), since the export shells out to it.")],
    ], False
    yield "2026-11-05T14:00:00", "Rate-limit the API and keep API keys in the database", [
        [Text("I'll add the limiter, the connection settings and a test."),
         _write(project, "src/api/ratelimit.py", RATELIMIT),
         _write(project, "src/db/connection.py", CONNECTION)],
        [_write(project, "src/db/schema.sql",
                "CREATE TABLE api_keys (id INTEGER PRIMARY KEY, key TEXT UNIQUE);\n"),
         _write(project, "tests/test_api.py", API_TEST)],
        [_bash("python3 tests/test_api.py")],
        [_edit(project, "src/db/connection.py", '"delete"', '"wal"')],
        [_bash("python3 tests/test_api.py")],
        [Text("Rate limiting is on for every `/api` route, and API keys live in the new "
              "`api_keys` table.\n\n"
              "I used a token bucket for the limiter instead of a fixed window, because a fixed "
              "window lets a client send twice the limit around the window boundary.\n\n"
              "The `database is locked` failure came from SQLite's default rollback journal while "
              "the API and the worker write at the same time. Switching the connection to WAL "
              "mode (`PRAGMA journal_mode=WAL`) fixed it.\n\n"
              "Run `make migrate` before the API tests — they expect the `api_keys` table to "
              "exist.")],
    ], False
    yield "2026-11-05T16:30:00", "Clients that hit the limit get a bare 429; make it friendlier", [
        [_read(project, "src/api/ratelimit.py")],
        [_edit(project, "src/api/ratelimit.py", "    def take(self):",
               "    retry_after = 1\n\n    def take(self):")],
        [_bash("python3 tests/test_api.py")],
        [Text("429 responses now include a `Retry-After` header. I chose to send it as a number "
              "of seconds rather than an HTTP date, since the mobile client only parses "
              "integers.")],
    ], True
    yield "2026-11-09T09:15:00", "The CSV export times out for big customers, mangles names", [
        [Text("Let me reproduce the broken rows first."),
         _write(project, "src/billing/export.py", EXPORT),
         _write(project, "tests/test_export.py", EXPORT_TEST)],
        [_bash("python3 tests/test_export.py")],
        [_edit(project, "src/billing/export.py",
               'return "\\n".join(",".join(str(v) for v in inv) for inv in invoices)',
               "import csv, io\n    out = io.StringIO()\n    csv.writer(out).writerows(invoices)"
               "\n    return out.getvalue()")],
        [_bash("python3 tests/test_export.py")],
        [_write(project, "src/api/exports.py",
                "def start_export(queue, customer):\n"
                "    return queue.enqueue('billing.export.run', customer).id\n")],
        [Text("The export works for large customers now, and names with commas come out "
              "intact.\n\n"
              "The broken rows were caused by joining fields with `','.join`: a customer name "
              "with a comma split into two columns. The fix was to write rows with the `csv` "
              "module, which quotes such fields.\n\n"
              "I moved the export out of the request into a background job on RQ, because the "
              "big exports ran past the 30-second gateway timeout; `POST /api/exports` now "
              "returns a job id.\n\n"
              "`GET /api/invoices` still returns every invoice in one response, so the next "
              "step is to add pagination there.\n\n"
              "Should deleted invoices be soft-deleted (kept with a `deleted_at`) for the audit "
              "trail, or is a hard delete acceptable?")],
    ], False


def _git(project: Path, env: dict[str, str], *args: str) -> None:
    subprocess.run(["git", "-C", str(project), *args], check=True, env=env, timeout=30,
                   capture_output=True)


def _briefing(run: Run) -> str:
    """The SessionStart additionalContext as Claude Code put it into the first request: a
    system message that starts with the marker; Claude Code appends its agent and skill lists
    to that message after a blank line, and those are cut off."""
    for message in run.turns[0].body.get("messages", []):
        content = message.get("content")
        texts = [content] if isinstance(content, str) else [
            b.get("text", "") for b in content if isinstance(b, dict)]
        for text in texts:
            if isinstance(text, str) and text.startswith(BRIEFING_MARKER):
                return text.split(_CLAUDE_CODE_LISTS)[0]
    return ""


def _recalled(claude: Claude, vault: Path, fact: Fact) -> bool:
    proc = claude.vaultmem("recall", fact.query, "--json", "--limit", "10")
    assert proc.returncode == 0, proc.stderr
    for hit in json.loads(proc.stdout)["hits"]:
        if fact.probe.casefold() in (vault / hit["path"]).read_text(encoding="utf-8").casefold():
            return True
    return False


def test_a_week_of_sessions_is_recalled_and_briefs_the_next_one(
    claude: Claude, tmp_path: Path
) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()  # only init and the default vault are created
    claude.env.update({"VAULTMEM_VAULT": str(vault), "VAULTMEM_PROJECT": PROJECT})
    project = claude.project
    for rel, content in SEED.items():
        (project / rel).parent.mkdir(parents=True, exist_ok=True)
        (project / rel).write_text(content)
    _git(project, claude.env, "add", "-A")
    _git(project, claude.env, "commit", "-q", "-m", "seed")
    proc = claude.vaultmem("install-hooks", "--scope", "user")
    assert proc.returncode == 0, proc.stderr

    session: str | None = None
    for when, prompt, replies, resume in _script(project):
        claude.env["VAULTMEM_NOW"] = when
        claude.standin.enqueue(*replies)
        run = claude.prompt(prompt, resume=session if resume else None)
        assert claude.standin.pending == 0, f"{prompt!r}: replies left unused"
        if "Hook cancelled" in run.proc.stderr:  # under heavy load; the counts below tell
            print(f"\n{when}: a hook was cancelled: {run.proc.stderr.strip()[:200]}")
        session = run.session_id
        _git(project, claude.env, "add", "-A")
        _git(project, claude.env, "commit", "-q", "-m", prompt[:50])
    assert (project / "tests" / "test_export.py").exists(), "the tools did not run"

    claude.env["VAULTMEM_NOW"] = "2026-11-10T09:00:00"
    claude.standin.enqueue([Text("Picking up from the export work.")])
    last = claude.prompt("Where did we leave off?")
    briefing = _briefing(last)

    recalled = [f.name for f in FACTS if _recalled(claude, vault, f)]
    briefed = [f.name for f in FACTS if f.probe.casefold() in briefing.casefold()]
    entities = sorted(p.stem for p in (vault / "claude" / "projects" / PROJECT / "entities")
                      .glob("*.md") if p.stem.casefold() != "inbox")
    garbled = garbled_lines(vault)
    print(f"\nweek e2e: recall {len(recalled)}/{len(FACTS)}, briefing {len(briefed)}/"
          f"{len(FACTS)} ({len(briefing)} characters), next step "
          f"{'yes' if OPEN_NEXT_STEP in briefing.casefold() else 'no'}, component entities "
          f"{len(entities)} ({', '.join(entities)}), garbled {len(garbled)}")
    for label, found in (("recall", recalled), ("briefing", briefed)):
        missed = [f.name for f in FACTS if f.name not in found]
        if missed:
            print(f"{label} missed: " + "; ".join(missed))
    for line in garbled:
        print(f"garbled: {line}")

    assert briefing, "no SessionStart context reached the first request"
    notes = "\n".join(p.read_text(encoding="utf-8") for p in vault.rglob("*.md"))
    assert "failed (`AssertionError: total 1188 != 1189`)" in notes and "Fixed by editing" in notes
    assert len(recalled) >= RECALL_FLOOR, recalled
    assert len(briefed) >= TARGETS["briefing"], briefing
    assert OPEN_NEXT_STEP in briefing.casefold(), briefing
    assert len(entities) >= TARGETS["components"], entities
    assert garbled == []
