"""bench.eval_memory: the recorded week replays through the real hooks; what the memory holds."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench import memory_scenario
from bench.eval_memory import TARGETS, evaluate, garbled_lines, main
from vaultmem.mining.answers import mine


def test_the_recorded_transcripts_are_the_scenario(tmp_path: Path) -> None:
    written = memory_scenario.write(tmp_path)
    recorded = sorted(memory_scenario.FIXTURES.glob("*.jsonl"))
    assert [p.name for p in written] == [p.name for p in recorded]
    for new, old in zip(written, recorded, strict=True):
        assert new.read_bytes() == old.read_bytes(), old.name
        for line in old.read_text(encoding="utf-8").splitlines():
            assert json.loads(line)["cwd"] == memory_scenario.CWD


def test_every_fact_is_stated_in_prose_and_mined_from_it() -> None:
    mined = [
        item.text.casefold()
        for session in memory_scenario.SESSIONS
        for turn in session.turns
        for item in mine(turn.answer)
    ]
    assert len(memory_scenario.FACTS) == 14
    for fact in memory_scenario.FACTS:
        assert any(fact.probe.casefold() in text for text in mined), fact.name
    for session in memory_scenario.SESSIONS:
        for turn in session.turns:
            assert "Decision:" not in turn.answer and "Gotcha:" not in turn.answer


def test_the_replay_runs_through_the_hooks_without_warnings_or_garbled_lines(
    tmp_path: Path,
) -> None:
    result = evaluate(tmp_path)
    assert result.warnings == []
    assert result.garbled == []
    assert len(list((tmp_path / "vault").rglob("*.md"))) >= 5
    assert TARGETS == {"recall": 12, "shown": 12, "briefing": 7, "components": 2, "garbled": 0}


def test_eval_command_prints_the_counts(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    main(["--keep", str(tmp_path / "kept")])
    out = capsys.readouterr().out
    for measure in (
        "facts found by recall",
        "facts recall shows",
        "facts in the next briefing",
        "component entities",
        "garbled lines",
        "open next step",
    ):
        assert measure in out
    assert (tmp_path / "kept" / "vault").is_dir()


def test_the_recorded_week_meets_the_targets(tmp_path: Path) -> None:
    result = evaluate(tmp_path)
    assert result.failures() == []
    assert len(result.recall_found) >= 12 and len(result.briefing_found) >= 7
    assert len(result.shown_found) >= 12
    assert result.open_next_step and len(result.components) >= 2
    # The week's layer folders (src/api, src/db, migrations/versions) are never components.
    assert not {"Api", "API", "Db", "DB", "Versions", "Migrations"} & set(result.components)
    assert 0 < result.briefing_chars <= 8000


def test_garbled_lines_are_found_and_sound_lines_pass(tmp_path: Path) -> None:
    entities = tmp_path / "claude" / "projects" / "p" / "entities"
    entities.mkdir(parents=True)
    (tmp_path / "claude" / "projects" / "p" / "s.md").write_text("# s\n")
    sound = [
        "- 2026-11-13 — Add the endpoint ([[claude/projects/p/s|s]]) ^vm-1",
        "- [[Auth]] — `src/auth/`",  # an entity compaction has yet to create
        "- 2026-11-13 — Two sessions ([[claude/projects/p/s|s]], [[claude/projects/p/s|t]])",
    ]
    garbled = [
        "- Gotcha: Gotcha: the webhook",
        "- - doubled bullet",
        "- Why? ([[Billing]], [[Refunds]]) ([[claude/projects/p/s|s]]) ^vm-2",
        "- see [[claude/projects/p/missing|missing]]",
        "- an unclosed [[Auth link",
        "- empty [[]] link",
    ]
    (entities / "A.md").write_text("\n".join(sound + garbled) + "\n")

    found = garbled_lines(tmp_path)

    assert [line.split(": ", 1)[1] for line in found] == garbled
