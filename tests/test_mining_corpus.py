"""The labelled corpus (tests/corpus/mining/) holds mining to its targets; a regression fails here."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.eval_mining import (
    CORPUS,
    PRECISION_TARGET,
    RECALL_TARGET,
    below_targets,
    load,
    main,
    score,
)
from vaultmem.mining.text import KINDS


def test_the_corpus_is_large_and_covers_every_kind() -> None:
    cases = load()
    assert len(cases) >= 150
    result = score(cases)
    for kind in KINDS:
        assert result.expected[kind] >= 20, kind
    negatives = sum(1 for case in cases if not case.expected)
    assert negatives >= 100


def test_precision_and_recall_meet_the_targets_per_kind() -> None:
    result = score(load())
    assert below_targets(result) == []
    assert result.precision() >= PRECISION_TARGET and result.recall() >= RECALL_TARGET


def test_a_miss_and_a_false_positive_are_counted(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "x.yaml").write_text(
        "- kinds: [decision]\n  text: The weather is nice.\n"
        "- kinds: []\n  text: I went with argon2id over bcrypt because it is memory-hard.\n"
        "- kinds: ['gotcha: raw bytes']\n  text: The root cause was the parsed body.\n",
        encoding="utf-8",
    )
    result = score(load(corpus))
    assert result.recall("decision") == 0.0 and result.precision("decision") == 0.0
    assert result.precision("gotcha") == 0.0 and len(result.misses) == 2
    assert main(["--corpus", str(corpus)]) == 1


def test_eval_command_prints_the_table_and_passes(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--corpus", str(CORPUS)]) == 0
    out = capsys.readouterr().out
    for kind in (*KINDS, "overall"):
        assert kind in out
    assert "precision" in out and "recall" in out
