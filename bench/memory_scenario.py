"""A week on a small web app (auth, billing, api, db) as Claude Code transcripts, and its facts.

``python -m bench.memory_scenario`` (re)writes the recorded transcripts in
``bench/fixtures/memory/`` (one JSONL file per session, Claude Code's line format: user prompts,
assistant text and ``tool_use`` blocks, ``tool_result`` lines, failures with ``is_error``).
Claude's replies are phrased as a model phrases them, never with ``Decision:`` labels: what the
memory keeps has to be mined from prose. ``FACTS`` are what a developer would want the next
session to know, each with the words a person would recall it by.
"""

from __future__ import annotations

import json
import sys
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "memory"
CWD = "/home/dev/work/shop"
PROJECT = "shop"


@dataclass(frozen=True)
class Fact:
    """Something stated in one session that later sessions should find."""

    name: str
    query: str  # what a person types after `vaultmem recall`
    probe: str  # a phrase the note line (or the briefing) must hold, case-insensitive


FACTS: tuple[Fact, ...] = (
    Fact("argon2id over bcrypt", "argon2id", "argon2id"),
    Fact("bcrypt truncates at 72 bytes", "72 bytes", "72 bytes"),
    Fact("tests need REDIS_URL", "REDIS_URL", "REDIS_URL"),
    Fact("15-minute access tokens", "access token lifetime", "15 minutes"),
    Fact("login bug: str vs bytes compare", "verify_password", "verify_password"),
    Fact("webhook: raw body before verify", "webhook signature raw bytes", "raw bytes"),
    Fact("idempotent webhooks: processed_events", "processed_events", "processed_events"),
    Fact("STRIPE_WEBHOOK_SECRET must be set", "STRIPE_WEBHOOK_SECRET", "STRIPE_WEBHOOK_SECRET"),
    Fact("cursor pagination for /api/orders", "cursor pagination", "cursor"),
    Fact("N+1 fixed with selectinload", "selectinload", "selectinload"),
    Fact("additive Alembic migration", "additive migration", "additive"),
    Fact("SQLite foreign keys pragma", "foreign_keys", "foreign_keys"),
    Fact("next: the refund endpoint", "refund endpoint", "refund endpoint"),
    Fact("open question: Postgres in CI", "Postgres CI", "real Postgres"),
)
OPEN_NEXT_STEP = "refund endpoint"  # the next step still open after the last session


@dataclass(frozen=True)
class Turn:
    """One prompt: the tool calls Claude made (name, input, result, is_error) and its answer."""

    prompt: str
    calls: tuple[tuple[str, dict[str, Any], str, bool], ...]
    answer: str


@dataclass(frozen=True)
class Session:
    day: str  # ISO date; turns start at 09:00
    session_id: str
    turns: tuple[Turn, ...]


def _edit(path: str) -> tuple[str, dict[str, Any], str, bool]:
    full = f"{CWD}/{path}"
    return (
        "Edit",
        {"file_path": full, "old_string": "pass", "new_string": "..."},
        f"The file {full} has been updated.",
        False,
    )


def _write(path: str) -> tuple[str, dict[str, Any], str, bool]:
    full = f"{CWD}/{path}"
    return (
        "Write",
        {"file_path": full, "content": "..."},
        f"File created successfully at: {full}",
        False,
    )


def _bash(command: str, output: str, failed: bool = False) -> tuple[str, dict[str, Any], str, bool]:
    return ("Bash", {"command": command, "description": "run"}, output, failed)


def _read(path: str) -> tuple[str, dict[str, Any], str, bool]:
    return ("Read", {"file_path": f"{CWD}/{path}"}, "     1\tdef placeholder(): ...", False)


SESSIONS: tuple[Session, ...] = (
    Session(
        "2026-11-09",
        "5a1c0f3e-0001-4d2b-9a61-auth00000001",
        (
            Turn(
                "Add password hashing and a login endpoint to the auth module, with tests",
                (
                    _read("src/auth/__init__.py"),
                    _write("src/auth/passwords.py"),
                    _write("src/auth/tokens.py"),
                    _write("tests/test_auth.py"),
                    _bash(
                        "pytest -q tests/test_auth.py",
                        "E   redis.exceptions.ConnectionError: Error 111 connecting to localhost:6379\n"
                        "1 failed, 7 passed",
                        True,
                    ),
                    _bash(
                        "REDIS_URL=redis://localhost:6379/0 pytest -q tests/test_auth.py",
                        "8 passed in 0.41s",
                    ),
                ),
                "Login and password hashing are in place in `src/auth/`.\n\n"
                "- I went with argon2id over bcrypt for the password hashes, because bcrypt silently "
                "truncates passwords longer than 72 bytes.\n"
                "- I settled on an access token lifetime of 15 minutes with 30-day refresh tokens, "
                "so a stolen access token expires quickly.\n\n"
                "Note that the auth tests need `REDIS_URL` set (e.g. `redis://localhost:6379/0`), "
                "since the refresh-token store lives in Redis. All 8 tests pass.",
            ),
            Turn(
                "Why did the login test fail before you set the env var? And is login fine now?",
                (
                    _read("src/auth/passwords.py"),
                    _edit("src/auth/passwords.py"),
                    _bash("pytest -q tests/test_auth.py", "9 passed in 0.44s"),
                ),
                "Two separate things. The first failure was only Redis missing. But there was a real "
                "bug too: the root cause was that `verify_password` compared the stored hash (str) "
                "with the computed one (bytes), so every comparison was false. I fixed it by using "
                "`PasswordHasher.verify` from argon2 and added a regression test; 9 tests pass now.",
            ),
        ),
    ),
    Session(
        "2026-11-10",
        "5a1c0f3e-0002-4d2b-9a61-bill00000002",
        (
            Turn(
                "Handle Stripe webhooks in billing (payment succeeded / failed)",
                (
                    _read("src/billing/__init__.py"),
                    _write("src/billing/webhooks.py"),
                    _write("src/billing/models.py"),
                    _write("tests/test_billing.py"),
                    _bash(
                        "pytest -q tests/test_billing.py",
                        "FAILED tests/test_billing.py::test_payment_succeeded - "
                        "stripe.error.SignatureVerificationError: No signatures found\n1 failed",
                        True,
                    ),
                    _edit("src/billing/webhooks.py"),
                    _bash("pytest -q tests/test_billing.py", "6 passed in 0.52s"),
                ),
                "Webhooks for `payment_intent.succeeded` and `payment_intent.payment_failed` work now.\n\n"
                "The signature check was failing because `request.json()` consumed the body before "
                "verification, so we were hashing a re-serialised dict instead of the raw bytes "
                "Stripe signed. The fix was to read `await request.body()` first and verify that.\n\n"
                "I also made the handler idempotent: I chose to record each Stripe event ID in a "
                "`processed_events` table rather than trusting Stripe never to retry a delivery.\n\n"
                "`STRIPE_WEBHOOK_SECRET` must be set for the webhook tests; they're skipped "
                "without it.",
            ),
        ),
    ),
    Session(
        "2026-11-12",
        "5a1c0f3e-0003-4d2b-9a61-apidb0000003",
        (
            Turn(
                "The orders API is slow with many orders; fix the listing and add a currency column",
                (
                    _read("src/api/orders.py"),
                    _edit("src/api/orders.py"),
                    _edit("src/db/repos/orders.py"),
                    _write("migrations/versions/0002_add_currency.py"),
                    _bash(
                        "alembic upgrade head", "INFO  Running upgrade 0001 -> 0002, add currency"
                    ),
                    _bash("pytest -q tests/test_api.py", "12 passed in 1.02s"),
                ),
                "The order listing is fast again.\n\n"
                "I switched `/api/orders` to cursor pagination instead of `OFFSET`, because offset "
                "scans get slow past a few thousand rows. The listing was also slow because of N+1 "
                "queries: they were caused by lazy-loading `order.items`, and `selectinload` on the "
                "repository query fixed it.\n\n"
                "For the schema change I decided to use an additive migration (a nullable `currency` "
                "column with a server default) rather than rewriting the table, because a rewrite "
                "would lock `orders` for minutes.\n\n"
                "Run `alembic upgrade head` before starting the server; the app doesn't create "
                "tables on its own.",
            ),
            Turn(
                "Add tests for the order repository",
                (
                    _write("tests/test_db.py"),
                    _bash(
                        "pytest -q tests/test_db.py",
                        "FAILED tests/test_db.py::test_orphan_items_rejected - "
                        "AssertionError: IntegrityError not raised\n1 failed, 4 passed",
                        True,
                    ),
                    _edit("src/db/session.py"),
                    _bash("pytest -q tests/test_db.py", "5 passed in 0.30s"),
                ),
                "Turns out SQLite doesn't enforce foreign keys unless `PRAGMA foreign_keys = ON` is "
                "run on every connection, which is why orphaned order items weren't rejected. I added "
                "a connect hook in `src/db/session.py`; the 5 repository tests pass.",
            ),
        ),
    ),
    Session(
        "2026-11-13",
        "5a1c0f3e-0004-4d2b-9a61-refund000004",
        (
            Turn(
                "Start on refunds in billing",
                (
                    _read("src/billing/webhooks.py"),
                    _write("src/billing/refunds.py"),
                    _write("tests/test_refunds.py"),
                    _bash(
                        "pytest -q tests/test_refunds.py",
                        "FAILED tests/test_refunds.py::test_refund_endpoint - "
                        "AssertionError: 404 != 201\n1 failed, 3 passed",
                        True,
                    ),
                ),
                "I've added the refund model and `RefundService` in `src/billing/refunds.py`; three "
                "of the four tests pass.\n\n"
                "The `POST /api/refunds` route isn't wired up yet, so `test_refund_endpoint` still "
                "fails with a 404. Next, we should add the refund endpoint and reuse the webhook "
                "module's signature helper for it.\n\n"
                "Open question: should CI run the integration tests against a real Postgres "
                "service, or is SQLite close enough?",
            ),
        ),
    ),
)


def transcript_lines(session: Session) -> list[list[dict[str, Any]]]:
    """The session's transcript lines, grouped per turn (a Stop fires after each group)."""
    clock = datetime.fromisoformat(f"{session.day}T09:00:00")
    parent: str | None = None
    turns: list[list[dict[str, Any]]] = []

    def line(kind: str, message: dict[str, Any], **extra: Any) -> dict[str, Any]:
        nonlocal parent, clock
        clock += timedelta(seconds=20)
        uid = str(uuid.uuid5(uuid.NAMESPACE_URL, f"{session.session_id}/{clock.isoformat()}"))
        data = {
            "parentUuid": parent,
            "isSidechain": False,
            "type": kind,
            "message": message,
            "uuid": uid,
            "timestamp": clock.isoformat() + ".000Z",
            "userType": "external",
            "cwd": CWD,
            "sessionId": session.session_id,
            "version": "2.1.197",
            "gitBranch": "main",
            **extra,
        }
        parent = uid
        return data

    for index, turn in enumerate(session.turns):
        lines = [line("user", {"role": "user", "content": turn.prompt})]
        for number, (tool, tool_input, output, failed) in enumerate(turn.calls):
            tool_id = f"toolu_{index:02d}{number:02d}"
            lines.append(
                line(
                    "assistant",
                    {
                        "role": "assistant",
                        "content": [
                            {"type": "tool_use", "id": tool_id, "name": tool, "input": tool_input}
                        ],
                    },
                )
            )
            lines.append(
                line(
                    "user",
                    {
                        "role": "user",
                        "content": [
                            {
                                "tool_use_id": tool_id,
                                "type": "tool_result",
                                "content": output,
                                "is_error": failed,
                            }
                        ],
                    },
                )
            )
        lines.append(
            line(
                "assistant",
                {"role": "assistant", "content": [{"type": "text", "text": turn.answer}]},
            )
        )
        turns.append(lines)
    return turns


def write(folder: Path = FIXTURES) -> list[Path]:
    """Write one ``<n>-<session id>.jsonl`` per session; returns the paths."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for number, session in enumerate(SESSIONS, 1):
        path = folder / f"{number}-{session.session_id}.jsonl"
        rows = [row for turn in transcript_lines(session) for row in turn]
        path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
        paths.append(path)
    return paths


if __name__ == "__main__":
    for written in write(Path(sys.argv[1]) if len(sys.argv) > 1 else FIXTURES):
        print(written)
