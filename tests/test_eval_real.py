"""bench.eval_real: the hook order planned from a transcript, the entity-line judge, the corpus
checks, and whole replays through the real hook commands (a recorded session always; a real
corpus session when the corpus is present)."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from bench import eval_real
from bench.real_corpus import (
    FIXTURES,
    CorpusError,
    EntityItem,
    RealFact,
    RealSession,
    bare_item,
    entity_items,
    environ_corpus,
    is_kept,
    load_corpus,
    merge,
    plan_events,
    rule_facts,
    thinking_aloud,
)

REPO = Path(__file__).resolve().parents[1]
SESSION = RealSession("s1", "shop", "shop/s1.jsonl", "")


def _line(kind: str, when: str, **extra: object) -> str:
    return json.dumps({"type": kind, "timestamp": f"2026-01-05T{when}.000Z", "sessionId": "s1",
                       "cwd": "/home/dev/shop", **extra})


def _prompt(when: str, text: str) -> str:
    return _line("user", when, message={"role": "user", "content": text})


def _answer(when: str, text: str) -> str:
    return _line("assistant", when,
                 message={"role": "assistant", "content": [{"type": "text", "text": text}]})


def _transcript() -> list[str]:
    return [
        json.dumps({"type": "summary", "summary": "cut short by a redaction [UNSUB"})[:40],
        _prompt("09:00:00", "add the refund endpoint"),
        _answer("09:05:00", "Added `POST /refunds`."),
        _line("system", "09:05:01", subtype="stop_hook_summary"),
        _prompt("09:10:00", "now the tests"),
        _answer("09:20:00", "Tests written."),
        _line("system", "09:30:00", subtype="compact_boundary",
              compactMetadata={"trigger": "auto", "preTokens": 160000}),
        _line("user", "09:30:01", isCompactSummary=True,
              message={"role": "user", "content": "This session is being continued …"}),
        _answer("09:31:00", "Continuing: all 12 tests pass."),
        _line("system", "09:31:01", subtype="stop_hook_summary"),
        _prompt("09:40:00", "<command-name>/exit</command-name>"),
    ]


def test_plan_events_follows_the_hooks_claude_code_ran() -> None:
    events = plan_events(SESSION, _transcript())
    assert [(e.hook, e.upto) for e in events] == [
        ("session-start", 1), ("stop", 3), ("pre-compact", 6), ("session-start", 8),
        ("stop", 9), ("session-end", 11),
    ]
    extra = [dict(e.extra) for e in events]
    assert extra[0] == {"source": "startup"} and extra[3] == {"source": "compact"}
    assert extra[2] == {"trigger": "auto"} and extra[5] == {"reason": "prompt_input_exit"}
    assert extra[1]["last_assistant_message"] == "Added `POST /refunds`."
    assert extra[4]["last_assistant_message"] == "Continuing: all 12 tests pass."
    assert [e.when.strftime("%H:%M") for e in events] == [
        "09:00", "09:05", "09:20", "09:30", "09:31", "09:40"]
    assert {e.cwd for e in events} == {"/home/dev/shop"}


def test_turn_ends_stand_in_for_stop_lines_and_sessions_interleave() -> None:
    lines = [_prompt("10:00:00", "one"), _answer("10:01:00", "done one"),
             _prompt("10:02:00", "two"), _answer("10:03:00", "done two")]
    plan = plan_events(SESSION, lines)
    assert [(e.hook, e.upto) for e in plan] == [
        ("session-start", 0), ("stop", 2), ("stop", 4), ("session-end", 4)]
    assert dict(plan[-1].extra) == {"reason": "other"}
    other = plan_events(RealSession("s2", "shop", "x", ""), [
        _prompt("10:01:30", "elsewhere"), _answer("10:02:30", "ok")])
    merged = merge([plan, other])
    assert [(e.session, e.hook) for e in merged] == [
        ("s1", "session-start"), ("s1", "stop"), ("s2", "session-start"), ("s2", "stop"),
        ("s2", "session-end"), ("s1", "stop"), ("s1", "session-end")]


ENTITY = """---
type: entity
---
# Billing

## Overview

- Code in `src/billing/` ^vm-overview

## Key Decisions

- 2026-01-05 — Refunds go through `RefundService` so webhooks reuse the signature check. ([[claude/projects/shop/sessions/a|a]]) ^vm-1a2b3c4d

## Gotchas & Troubleshooting

- 2026-01-05 — I see - the issue is that the handler has another name. ^vm-5e6f7a8b
- 2026-01-05 — The issue is that this is an applet, not a regular app. ^vm-9c0d1e2f

## Recent Changes

- 2026-01-05 — add the refund endpoint: src/billing/ ^vm-3a4b5c6d
"""


def test_entity_items_are_the_knowledge_bullets_without_dates_links_or_ids() -> None:
    items = entity_items("Billing", ENTITY)
    assert [i.section for i in items] == ["Key Decisions"] + ["Gotchas & Troubleshooting"] * 2
    assert items[0].text == ("Refunds go through `RefundService` so webhooks reuse the "
                             "signature check.")
    assert [thinking_aloud(i.text) for i in items] == [False, True, True]
    assert bare_item("- plain item") == "plain item"
    fact = RealFact("s1", "decision", "refund service", "refunds", ("RefundService",), False)
    assert is_kept(items[0].text, [fact], [])
    assert not is_kept(items[1].text, [fact], [])
    assert is_kept(items[1].text, [], ["ANOTHER   name"])
    # By vaultmem's written rule "I see - …" is thinking aloud, "The issue is …" a stated
    # cause; a line in a third entity is no fact.
    assert rule_facts(items) == 2
    copied = [EntityItem(name, "", items[0].text) for name in ("A", "B", "C")]
    assert rule_facts(copied) == 0


def _corpus(tmp_path: Path, lines: list[str]) -> Path:
    """A one-session corpus in ``tmp_path``: the transcript and its facts file; the facts path."""
    transcript = tmp_path / "corpus" / "shop" / "s1.jsonl"
    transcript.parent.mkdir(parents=True)
    transcript.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    facts = {
        "sessions": [{"id": "s1", "project": "shop", "file": "shop/s1.jsonl",
                      "sha256": hashlib.sha256(transcript.read_bytes()).hexdigest()}],
        "facts": [
            {"session": "s1", "kind": "decision", "name": "refunds via RefundService",
             "query": "RefundService", "proof": ["RefundService"], "open_next_step": False},
            {"session": "s1", "kind": "next_step", "name": "wire the refund route",
             "query": "refund route", "proof": ["refund", "route"], "open_next_step": True},
        ],
    }
    path = tmp_path / "facts.json"
    path.write_text(json.dumps(facts), encoding="utf-8")
    return path


def test_a_missing_or_changed_transcript_is_one_clear_line_and_exit_2(tmp_path: Path) -> None:
    facts = _corpus(tmp_path, _transcript())
    with pytest.raises(CorpusError, match="not in any of"):
        load_corpus(facts, [tmp_path / "nowhere"])
    (tmp_path / "corpus" / "shop" / "s1.jsonl").write_text("{}\n", encoding="utf-8")
    with pytest.raises(CorpusError, match="sha256"):
        load_corpus(facts, [tmp_path / "corpus"])
    done = subprocess.run(
        [sys.executable, "-m", "bench.eval_real", "--facts", str(facts),
         "--corpus", str(tmp_path / "corpus")],
        capture_output=True, text=True, cwd=REPO, check=False,
    )
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and "sha256" in done.stderr


def _recorded_lines() -> list[str]:
    """The last session of the recorded synthetic week, with its turn closed by a Stop line, a
    compaction in the middle and a final exchange after it."""
    recorded = min((REPO / "bench" / "fixtures" / "memory").glob("4-*.jsonl"))
    lines = recorded.read_text(encoding="utf-8").splitlines()
    return [
        *lines,
        _line("system", "09:59:00", subtype="compact_boundary",
              compactMetadata={"trigger": "auto"}).replace("2026-01-05", "2026-11-13"),
        _line("user", "09:59:01", isCompactSummary=True, message={
            "role": "user", "content": "Summary:\n1. Primary Request and Intent: refunds."}
        ).replace("2026-01-05", "2026-11-13"),
        _prompt("10:00:00", "where are we?").replace("2026-01-05", "2026-11-13"),
        _answer("10:01:00", "The refund route `POST /api/refunds` is still to be wired; the "
                "`RefundService` is done.").replace("2026-01-05", "2026-11-13"),
    ]


def test_replay_of_a_recorded_session_reports_every_measure(tmp_path: Path) -> None:
    facts = _corpus(tmp_path, _recorded_lines())
    corpus = load_corpus(facts, [tmp_path / "corpus"])
    report = eval_real.evaluate(corpus, tmp_path / "run")
    assert report.hook_calls == 6 and report.sessions == 1 and report.facts == 2
    # A floor the code met when this test was written; a drop is a regression.
    assert "refunds via RefundService" in report.recall
    assert report.open_steps == {"shop": True}
    assert report.session_projects == {"s1": ["shop"]}
    assert report.by_kind == {"decision": [1, report.by_kind["decision"][1], 1],
                              "next_step": [report.by_kind["next_step"][0], 1, 1]}
    assert report.garbled == 0 and report.source_roots == []
    text = eval_real.render(report)
    for label in ("recall: fact shown in top 5 hits", "briefing holds the fact",
                  "entity lines that are facts", "entity lines that are facts by the rule",
                  "thinking-aloud entity lines",
                  "most entities one item is in", "entities named after a source root"):
        assert label in text
    # The transcript is named by the session id Claude Code gave it, as the hooks were told.
    assert [p.name for p in (tmp_path / "run" / "transcripts").iterdir()] == [
        "5a1c0f3e-0004-4d2b-9a61-refund000004.jsonl"]


REAL = next((d for d in environ_corpus() if (d / "cosmic-apple-tile").is_dir()), None)


@pytest.mark.skipif(REAL is None, reason="the real transcripts are not here (SOURCES.md)")
def test_a_real_session_replays_above_the_floor(tmp_path: Path) -> None:
    """The smallest real session (d8126fa6, 240 lines, 12 Stop hook lines), through the CLI."""
    assert REAL is not None
    done = subprocess.run(
        [sys.executable, "-m", "bench.eval_real", "--session", "d8126fa6", "--json",
         "--corpus", str(REAL), "--keep", str(tmp_path / "run")],
        capture_output=True, text=True, cwd=REPO, check=False, timeout=600,
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["hook_calls"] == 14 and report["facts"] == 10
    assert set(report) >= {"recall", "lenient", "briefing", "by_kind", "open_steps",
                           "entity_lines", "entity_facts", "thinking", "max_copies",
                           "source_roots", "session_projects"}
    # Floors met by main at e73d511 (recall 4, lenient 7, briefing 4, open step in the briefing).
    assert len(report["recall"]) >= 4 and len(report["lenient"]) >= 7
    assert len(report["briefing"]) >= 4 and all(report["open_steps"].values())
    # The last hook saw the whole transcript, byte for byte.
    replayed = (tmp_path / "run" / "transcripts" / "d8126fa6-87d4-443d-ba41-0dbf2faecb65.jsonl"
                ).read_bytes()
    assert replayed == (REAL / "cosmic-apple-tile" / "d8126fa6-87d4-443d-ba41-0dbf2faecb65.jsonl"
                        ).read_bytes()


def test_the_committed_facts_file_is_well_formed() -> None:
    doc = json.loads((FIXTURES / "facts.json").read_text(encoding="utf-8"))
    sessions = {s["id"] for s in doc["sessions"]}
    projects = {s["project"] for s in doc["sessions"]}
    assert len(sessions) >= 5 and len(projects) >= 2
    per_session = {s: [f for f in doc["facts"] if f["session"] == s] for s in sessions}
    assert all(6 <= len(f) <= 10 for f in per_session.values())
    assert all(sum(f["open_next_step"] for f in fs) == 1 for fs in per_session.values())
    assert all(f["proof"] and f["query"] for f in doc["facts"])


def test_lenient_reads_the_notes_as_held_not_what_recall_wrote(tmp_path: Path) -> None:
    """recall records its query in another project's entity it returns; the lenient count reads
    the note as the memory held it, and the note is put back before the next query."""
    from vaultmem.search import recall
    from vaultmem.store.config import Config
    from vaultmem.store.vault import Vault

    vault, held = tmp_path / "vault", tmp_path / "held"
    rel = "claude/projects/shop/entities/Billing.md"
    (vault / rel).parent.mkdir(parents=True)
    (vault / rel).write_text(
        "---\ntype: entity\nproject: shop\ncreated: 2026-01-01\nupdated: 2026-01-02\n---\n\n"
        "## Key Decisions\n\n- 2026-01-02 — Invoices are rounded per line\n", encoding="utf-8")
    shutil.copytree(vault, held)
    result = recall.recall(Vault(vault), Config(vault=vault, project="elsewhere"),
                           "invoices rounded zanzibar", all_projects=True)
    assert "zanzibar" in (vault / rel).read_text(encoding="utf-8")  # recall wrote the query
    out = json.dumps(result.to_json())
    hit = json.loads(out)["hits"][0]
    assert "zanzibar" not in eval_real._note_text(held, hit)
    eval_real._put_back(out, held, vault)
    assert (vault / rel).read_bytes() == (held / rel).read_bytes()
