"""``python -m bench.eval_mining [--corpus DIR] [--misses]``: precision and recall of mining.

Reads the labelled corpus (``tests/corpus/mining/**/*.yaml``: a list of ``{kinds, text}``; a kind
is ``decision`` or ``decision: substring``), runs ``vaultmem.mining.answers.mine`` on each text and
prints precision and recall per kind and overall. A mined item counts as correct when an expected
item of the same kind is still unmatched and the mined text contains its substring (any text when
none is given). ``--misses`` lists the false positives and the misses. Exit code 1 when any kind
is below the targets (precision 0.9, recall 0.8).
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import yaml

_REPO = Path(__file__).resolve().parents[1]
if str(_REPO) not in sys.path:
    sys.path.insert(0, str(_REPO))

from vaultmem.mining.answers import mine
from vaultmem.mining.text import KINDS
from vaultmem.notes.schema import Kind

CORPUS = _REPO / "tests" / "corpus" / "mining"
PRECISION_TARGET = 0.9
RECALL_TARGET = 0.8


@dataclass(frozen=True)
class Case:
    """One labelled text: where it comes from and the (kind, substring) items it should give."""

    source: str
    text: str
    expected: tuple[tuple[str, str], ...]


@dataclass
class Score:
    """Counts per kind; a kind is a row of the table."""

    true_pos: Counter[str] = field(default_factory=Counter)
    mined: Counter[str] = field(default_factory=Counter)
    expected: Counter[str] = field(default_factory=Counter)
    false_pos: list[tuple[Case, str, str]] = field(default_factory=list)
    misses: list[tuple[Case, str, str]] = field(default_factory=list)

    def precision(self, kind: str | None = None) -> float:
        mined = self._total(self.mined, kind)
        return self._total(self.true_pos, kind) / mined if mined else 1.0

    def recall(self, kind: str | None = None) -> float:
        expected = self._total(self.expected, kind)
        return self._total(self.true_pos, kind) / expected if expected else 1.0

    @staticmethod
    def _total(counts: Counter[str], kind: str | None) -> int:
        return counts[kind] if kind is not None else sum(counts.values())


def load(corpus: Path = CORPUS) -> list[Case]:
    """Every labelled case of the corpus directory, in file order."""
    cases = []
    for path in sorted(corpus.rglob("*.yaml")):
        for index, entry in enumerate(yaml.safe_load(path.read_text(encoding="utf-8")) or []):
            expected = []
            for label in entry["kinds"]:
                spelled, _, substring = str(label).partition(":")
                try:
                    kind = Kind(spelled)  # either spelling: the corpus says ``next_step``
                except ValueError:
                    raise ValueError(
                        f"{path.name} entry {index}: unknown kind {spelled!r}") from None
                expected.append((kind, substring.strip()))
            cases.append(Case(f"{path.name}#{index}", str(entry["text"]), tuple(expected)))
    return cases


def score(cases: Sequence[Case]) -> Score:
    """Match each case's mined items against its expected ones."""
    result = Score()
    for case in cases:
        open_items = list(case.expected)
        for kind, _ in case.expected:
            result.expected[kind] += 1
        for item in mine(case.text):
            result.mined[item.kind] += 1
            match = next(
                (
                    wanted
                    for wanted in open_items
                    if wanted[0] == item.kind and wanted[1].casefold() in item.text.casefold()
                ),
                None,
            )
            if match is None:
                result.false_pos.append((case, item.kind, item.text))
            else:
                open_items.remove(match)
                result.true_pos[item.kind] += 1
        result.misses.extend((case, kind, substring) for kind, substring in open_items)
    return result


def table(result: Score) -> str:
    """The precision/recall table, one row per kind and one overall."""
    lines = [f"{'kind':<14}{'expected':>9}{'mined':>7}{'correct':>9}{'precision':>11}{'recall':>8}"]
    for kind in (*KINDS, None):
        name = kind or "overall"
        lines.append(
            f"{name:<14}{Score._total(result.expected, kind):>9}"
            f"{Score._total(result.mined, kind):>7}{Score._total(result.true_pos, kind):>9}"
            f"{result.precision(kind):>11.3f}{result.recall(kind):>8.3f}"
        )
    return "\n".join(lines)


def below_targets(result: Score) -> list[str]:
    """The kinds (and measures) under the targets; empty when all hold."""
    return [
        f"{kind} {measure} {value:.3f}"
        for kind in KINDS
        for measure, value, target in (
            ("precision", result.precision(kind), PRECISION_TARGET),
            ("recall", result.recall(kind), RECALL_TARGET),
        )
        if value < target
    ]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.eval_mining", description=__doc__)
    parser.add_argument("--corpus", type=Path, default=CORPUS, help="folder of labelled *.yaml")
    parser.add_argument("--misses", action="store_true", help="list false positives and misses")
    args = parser.parse_args(argv)
    cases = load(args.corpus)
    result = score(cases)
    print(f"{len(cases)} labelled texts in {args.corpus}")
    print(table(result))
    if args.misses:
        for case, kind, text in result.false_pos:
            print(f"FALSE {kind:<12} {case.source}: {text}")
        for case, kind, substring in result.misses:
            print(f"MISS  {kind:<12} {case.source}: {substring or case.text[:160]!r}")
    failing = below_targets(result)
    if failing:
        print(
            f"below target (precision {PRECISION_TARGET}, recall {RECALL_TARGET}): "
            + ", ".join(failing)
        )
    return 1 if failing else 0


if __name__ == "__main__":
    sys.exit(main())
