"""Attack (issue 23 §3): a lone UTF-16 surrogate in a transcript line — the half of a cut emoji
that ``JSON.stringify`` writes as ``\\ud83d`` — must not lose the session. Every hook still records
the session, with the unencodable code point replaced, wherever the text goes (prompt, answer,
tool input, error line, topic and so the file name)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hook_kit import SESSIONS, hook_env, run_hook, snapshot

CWD = "/home/dev/work/shop"
CUT = "\\ud83d"  # as the JSON escape, so json.loads gives a lone surrogate


def _line(kind: str, uuid: str, content: Any) -> str:
    return json.dumps({"type": kind, "uuid": uuid, "timestamp": "2026-11-22T09:00:00Z",
                       "message": {"role": kind, "content": content}})


def _hook(event: str, vault: Path, transcript: Path, tmp_path: Path, **extra: str) -> None:
    payload = {"session_id": "sid-cut", "transcript_path": str(transcript), "cwd": CWD,
               "hook_event_name": event, **extra}
    proc = run_hook(event, payload, vault, cwd=tmp_path,
                    env=hook_env(vault, VAULTMEM_PROJECT="shop"))
    assert proc.returncode == 0 and proc.stderr == b"", proc.stderr


def _cut(text: str) -> str:
    # json.dumps escapes nothing here; the marker is replaced by the raw escape afterwards.
    return text.replace("@CUT@", CUT)


@pytest.mark.parametrize("where", ["prompt", "answer", "command", "error", "path"])
def test_a_lone_surrogate_never_loses_the_session(where: str, tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    vault.mkdir(exist_ok=True)  # hooks create only the default vault
    mark = lambda field, text: text + ("@CUT@ party" if where == field else "")
    lines = [
        _line("user", "u1", mark("prompt", "Harden the login flow")),
        _line("assistant", "a1", [
            {"type": "tool_use", "id": "t1", "name": "Write",
             "input": {"file_path": mark("path", f"{CWD}/src/auth/a.py"), "content": "x"}},
            {"type": "tool_use", "id": "t2", "name": "Bash",
             "input": {"command": mark("command", "pytest -q"), "description": "run"}}]),
        _line("user", "r1", [{"type": "tool_result", "tool_use_id": "t2",
                              "content": mark("error", "E   boom"), "is_error": True}]),
        _line("assistant", "a2", [{"type": "text",
                                   "text": mark("answer", "Done. We decided to keep bcrypt.")}]),
    ]
    transcript = tmp_path / "t.jsonl"
    transcript.write_text(_cut("\n".join(lines) + "\n"))
    assert "\\ud83d" in transcript.read_text()
    _hook("session-start", vault, transcript, tmp_path, source="startup")
    _hook("stop", vault, transcript, tmp_path)
    _hook("pre-compact", vault, transcript, tmp_path, trigger="auto")
    _hook("session-end", vault, transcript, tmp_path, reason="other")
    notes = sorted((vault / SESSIONS).glob("*.md")) + sorted(
        (vault / "claude/projects/shop/archive/sessions").glob("*.md"))
    assert notes, "the session was lost"
    text = "\n".join(p.read_bytes().decode("utf-8") for p in notes)  # strict: valid UTF-8
    assert "Harden the login flow" in text
    for rel, data in snapshot(vault).items():
        rel.encode("utf-8")
        if rel.endswith((".md", ".json", ".base")):
            data.decode("utf-8")


def test_a_lone_surrogate_in_the_first_prompt_names_a_note(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    vault.mkdir(exist_ok=True)  # hooks create only the default vault
    transcript = tmp_path / "t.jsonl"
    transcript.write_text(_cut(_line("user", "u1", "@CUT@@CUT@ Fix the party page") + "\n"
                               + _line("assistant", "a1", [{"type": "text", "text": "Fixed."}])
                               + "\n"))
    _hook("stop", vault, transcript, tmp_path)
    _hook("session-end", vault, transcript, tmp_path, reason="other")
    names = [p.name for p in (vault / "claude/projects/shop").rglob("*.md")]
    assert any("party" in n.lower() for n in names), names
