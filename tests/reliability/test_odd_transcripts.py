"""Attacks (issue 23 §3, odd transcripts) through real hook processes: a transcript rewritten
shorter and appended past the old offset with a line ending exactly there (the new prompt was
never read), and a ``--resume --fork-session`` transcript (new session id, the old lines with
their uuids) that recorded the old turns again in a second note."""

from __future__ import annotations

import json
from pathlib import Path

from hook_kit import SESSIONS, hook_env, run_hook

CWD = "/home/dev/work/shop"


def _line(sid: str, uuid: str, kind: str, text: str, pad: int = 0) -> str:
    content: object = text if kind == "user" else [{"type": "text", "text": text}]
    entry = {"type": kind, "uuid": uuid, "sessionId": sid, "cwd": CWD,
             "timestamp": "2026-11-22T09:00:00Z", "message": {"role": kind, "content": content}}
    if pad:
        entry["pad"] = " " * pad
    return json.dumps(entry) + "\n"


def _hook(event: str, vault: Path, tmp_path: Path, sid: str, transcript: Path,
          **extra: str) -> None:
    payload = {"session_id": sid, "transcript_path": str(transcript), "cwd": CWD,
               "hook_event_name": event, **extra}
    proc = run_hook(event, payload, vault, cwd=tmp_path,
                    env=hook_env(vault, VAULTMEM_PROJECT="shop"))
    assert proc.returncode == 0 and proc.stderr == b"", proc.stderr


def _notes(vault: Path) -> dict[str, str]:
    return {p.name: p.read_text() for p in sorted((vault / SESSIONS).glob("*.md"))}


def test_a_transcript_rewritten_to_end_a_line_at_the_old_offset_is_read_again(
        tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    sid, transcript = "s-rewrite", tmp_path / "t.jsonl"
    first = _line(sid, "u1", "user", "Fix the login redirect")
    answer = _line(sid, "a1", "assistant", "The redirect now keeps the next parameter.")
    transcript.write_text(first + answer)
    _hook("stop", vault, tmp_path, sid, transcript)
    # Rewritten: the same first line, then a new prompt exactly as long as the old answer.
    bare = _line(sid, "u2", "user", "Rewritten prompt about refunds")
    rewritten = _line(sid, "u2", "user", "Rewritten prompt about refunds",
                      pad=len(answer) - len(bare) - len(', "pad": ""'))
    assert len(rewritten) == len(answer) and rewritten != answer
    transcript.write_text(first + rewritten + _line(sid, "a2", "assistant", "Refunds done."))
    _hook("stop", vault, tmp_path, sid, transcript)
    (text,) = _notes(vault).values()
    assert "Rewritten prompt about refunds" in text  # the line ending at the old offset
    assert "Refunds done." in text
    assert text.count("### 09:00 - Fix the login redirect") == 1  # read again, recorded once


def test_a_forked_session_does_not_record_the_turns_it_copied_again(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    old = _line("s-old", "u1", "user", "Plan the billing export") + _line(
        "s-old", "a1", "assistant", "ALPHA-ANSWER: the export runs nightly.")
    first = tmp_path / "old.jsonl"
    first.write_text(old)
    _hook("session-start", vault, tmp_path, "s-old", first, source="startup")
    _hook("stop", vault, tmp_path, "s-old", first)
    _hook("session-end", vault, tmp_path, "s-old", first, reason="other")
    fork = tmp_path / "fork.jsonl"
    fork.write_text(old + _line("s-fork", "u2", "user", "Now add CSV headers") + _line(
        "s-fork", "a2", "assistant", "BETA-ANSWER: headers added."))
    _hook("session-start", vault, tmp_path, "s-fork", fork, source="resume")
    _hook("stop", vault, tmp_path, "s-fork", fork)
    notes = _notes(vault)
    assert len(notes) == 2
    assert sum(text.count("ALPHA-ANSWER") for text in notes.values()) == 1
    assert sum(text.count("BETA-ANSWER") for text in notes.values()) == 1

