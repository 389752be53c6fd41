"""A week of sessions on a small web app, replayed through the real hooks (capture, compaction),
then the next session's briefing: it must say where the work stands and what comes next.

The transcripts are written in Claude Code's JSONL form, the answers phrased the way a model
phrases them; the hooks run in-process (tests/e2e drives the real CLI)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hook_kit import LABEL
from markdown_it import MarkdownIt

from vaultmem.claude import capture
from vaultmem.claude.events import HookEvent

PROJECT = "webshop"
CWD = "/home/dev/work/webshop"


class Transcript:
    """A Claude Code transcript file written line by line."""

    def __init__(self, path: Path, sid: str, day: str) -> None:
        self.path, self.sid, self.day = path, sid, day
        self.n = 0
        path.write_text("")

    def _line(self, kind: str, content: Any, minute: int) -> None:
        self.n += 1
        line = {"type": kind, "uuid": f"{self.sid}-{self.n}", "sessionId": self.sid, "cwd": CWD,
                "timestamp": f"{self.day}T09:{minute:02d}:00Z",
                "message": {"role": kind, "content": content}}
        with self.path.open("a") as out:
            out.write(json.dumps(line) + "\n")

    def prompt(self, text: str, minute: int) -> None:
        self._line("user", text, minute)

    def run(self, command: str, output: str, minute: int, *, ok: bool = True) -> None:
        ident = f"t{self.n}"
        self._line("assistant", [{"type": "tool_use", "id": ident, "name": "Bash",
                                  "input": {"command": command}}], minute)
        self._line("user", [{"type": "tool_result", "tool_use_id": ident, "content": output,
                             "is_error": not ok}], minute)

    def edit(self, path: str, minute: int) -> None:
        ident = f"t{self.n}"
        self._line("assistant", [{"type": "tool_use", "id": ident, "name": "Edit",
                                  "input": {"file_path": f"{CWD}/{path}", "old_string": "a",
                                            "new_string": "b"}}], minute)
        self._line("user", [{"type": "tool_result", "tool_use_id": ident,
                             "content": "The file has been updated."}], minute)

    def answer(self, text: str, minute: int) -> None:
        self._line("assistant", [{"type": "text", "text": text}], minute)


def _event(name: str, sid: str, transcript: Path, **fields: str) -> HookEvent:
    return HookEvent(name=name, session_id=sid, transcript_path=str(transcript), cwd=CWD,
                     **fields)  # type: ignore[arg-type]


def _session(tmp: Path, monkeypatch: pytest.MonkeyPatch, sid: str, day: str,
             script: list[tuple[str, Any]]) -> None:
    monkeypatch.setenv("VAULTMEM_NOW", f"{day}T09:00:00")
    t = Transcript(tmp / f"{sid}.jsonl", sid, day)
    capture.on_session_start(_event("session-start", sid, t.path, source="startup"))
    minute = 1
    for kind, arg in script:
        minute += 1
        if kind == "run":
            command, output, ok = arg
            t.run(command, output, minute, ok=ok)
        else:
            getattr(t, kind)(arg, minute)
    monkeypatch.setenv("VAULTMEM_NOW", f"{day}T10:00:00")
    capture.on_stop(_event("stop", sid, t.path))
    capture.on_session_end(_event("session-end", sid, t.path, reason="prompt_input_exit"))


WEEK: list[tuple[str, str, list[tuple[str, Any]]]] = [
    ("s1", "2026-11-16", [
        ("prompt", "Set up password hashing for the user model"),
        ("edit", "src/auth/hashing.py"),
        ("run", ("pytest tests/test_auth.py", "3 passed", True)),
        ("answer", ("Password hashing is in place. I went with argon2id over bcrypt because it is "
                   "memory-hard and the OWASP recommendation. The tests need `REDIS_URL` set, "
                   "since sessions live in Redis.")),
    ]),
    ("s2", "2026-11-17", [
        ("prompt", "The stripe webhook rejects every event, fix it"),
        ("edit", "src/billing/webhook.py"),
        ("run", ("pytest tests/test_billing.py", ("FAILED tests/test_billing.py::test_sig - "
                 "SignatureVerificationError"), False)),
        ("edit", "src/billing/webhook.py"),
        ("run", ("pytest tests/test_billing.py", "4 passed", True)),
        ("answer", ("Fixed. The root cause was that the handler parsed the JSON body before "
                   "verifying the signature, while Stripe signs the raw bytes. Next, we should "
                   "add the refund endpoint.")),
    ]),
    ("s3", "2026-11-19", [
        ("prompt", "Add the refund endpoint"),
        ("edit", "src/api/refunds.py"),
        ("edit", "src/billing/refunds.py"),
        ("run", ("pytest tests/test_api.py", "5 passed", True)),
        ("answer", ("The refund endpoint is done: POST /api/refunds checks the charge belongs "
                   "to the user and calls Stripe with an idempotency key. I chose idempotency "
                   "keys derived from the charge id over random UUIDs because a retried request "
                   "must not refund twice.")),
    ]),
    ("s4", "2026-11-21", [
        ("prompt", "Run the whole test suite and tell me what is left"),
        ("run", ("pytest tests/test_db.py", ("E   psycopg.OperationalError: connection to server "
                 "at localhost port 5432 failed: Connection refused"), False)),
        ("answer", ("Everything passes except the database tests, which cannot reach Postgres "
                   "here. The DB tests need Postgres 16 running locally. Next, we should add a "
                   "Postgres service to the CI workflow. Should CI use a Postgres service, or "
                   "should the DB tests fall back to SQLite there?")),
    ]),
]


def test_the_next_session_knows_where_the_work_stands(
    vault_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("VAULTMEM_VAULT", str(vault_root))
    monkeypatch.setenv("VAULTMEM_PROJECT", PROJECT)
    for sid, day, script in WEEK:
        _session(tmp_path, monkeypatch, sid, day, script)
    monkeypatch.setenv("VAULTMEM_NOW", "2026-11-22T09:00:00")
    out = capture.on_session_start(HookEvent(name="session-start", session_id="s5",
                                             transcript_path=None, cwd=CWD, source="startup"))
    text = json.loads(out)["hookSpecificOutput"]["additionalContext"]
    assert len(text) <= 8000
    tokens = MarkdownIt().parse(text)
    outside = [line for t in tokens if t.type == "inline" for line in t.content.split("\n")]
    assert all(LABEL.fullmatch(line) for line in outside[1:]), outside
    last = text[text.index("Last session"):]
    last = last[: last.index("~~~\n") + 4]
    # The last session: its outcome, what still fails, what comes next, the open question.
    assert "Run the whole test suite" in last
    assert "Everything passes except the database tests" in last
    assert "`pytest tests/test_db.py`" in last and "Connection refused" in last
    assert "add a Postgres service to the CI workflow" in last
    assert "Should CI use a Postgres service" in last
    # Prerequisites, from wherever they were filed (sessions or _index.md after compaction).
    prereqs = text[text.index("Prerequisites to run the project"):]
    assert "REDIS_URL" in prereqs and "Postgres 16" in prereqs
    # Components with their knowledge; earlier sessions' outcomes and next steps.
    for fact in ("argon2id over bcrypt", "parsed the JSON body before verifying",
                 "idempotency keys derived from the charge id", "add the refund endpoint"):
        assert fact in text, fact
    comps = text[text.index("Components relevant now"):]
    assert comps.index("[[Billing]]") < comps.index("[[Auth]]")
    # A change that only names the session's prompt and the folders it touched is no news.
    assert "Add the refund endpoint: src/api/" not in comps
    # Each fact once.
    assert text.count("argon2id over bcrypt") == 1
    assert text.count("idempotency keys derived from the charge id") == 1
