"""The docs stay something a person reads (issue 32).

docs/ARCHITECTURE.md is a map a contributor reads: at most 12 KB, and every module path it names
exists (the code is the contract; a renamed module must not leave the map pointing at nothing).

The hand-written docs together stay within 60 KB. What counts is what a user or a contributor
reads first: README.md and every docs/*.md but docs/CLI.md, which is generated from --help (the
command-by-command detail lives there, so the guide links to it instead of repeating it). Outside
the budget: bench/README.md (how to run the benchmarks and their recorded results: data a
contributor looks up, not reads through), CHANGELOG.md (a log), tests/e2e/README.md (notes on one
test suite, beside it), and module docstrings (the rules each module owns, where httpx keeps
them). A doc that grows past the budget makes room by moving detail to one of those homes.
"""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
ARCHITECTURE = REPO / "docs/ARCHITECTURE.md"
GENERATED = {REPO / "docs/CLI.md"}
BUDGET = 60 * 1024


def hand_written_docs() -> list[Path]:
    docs = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
    return [doc for doc in docs if doc not in GENERATED]


def test_the_architecture_map_is_short() -> None:
    assert len(ARCHITECTURE.read_bytes()) <= 12 * 1024


def test_the_hand_written_docs_fit_the_budget() -> None:
    sizes = {doc.relative_to(REPO).as_posix(): len(doc.read_bytes()) for doc in hand_written_docs()}
    assert "docs/REFERENCE.md" in sizes and "docs/CLI.md" not in sizes
    assert sum(sizes.values()) <= BUDGET, f"{sum(sizes.values())} bytes > {BUDGET}: {sizes}"


def test_every_module_the_map_names_exists() -> None:
    text = ARCHITECTURE.read_text(encoding="utf-8")
    named = set(re.findall(r"`((?:cli|serve|claude|memory|search|store|notes)/[\w]+\.py)`", text))
    assert named, "the map names no module: the pattern is wrong"
    missing = sorted(rel for rel in named if not (REPO / "vaultmem" / rel).is_file())
    assert not missing, f"docs/ARCHITECTURE.md names modules that do not exist: {missing}"
