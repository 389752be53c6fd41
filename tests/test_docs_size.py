"""docs/ARCHITECTURE.md stays a map a contributor reads (issue 32): at most 12 KB, and every
module path it names exists (the code is the contract; a renamed module must not leave the map
pointing at nothing)."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
ARCHITECTURE = REPO / "docs/ARCHITECTURE.md"


def test_the_architecture_map_is_short() -> None:
    assert len(ARCHITECTURE.read_bytes()) <= 12 * 1024


def test_every_module_the_map_names_exists() -> None:
    text = ARCHITECTURE.read_text(encoding="utf-8")
    named = set(re.findall(r"`((?:cli|serve|claude|memory|search|store|notes)/[\w]+\.py)`", text))
    assert named, "the map names no module: the pattern is wrong"
    missing = sorted(rel for rel in named if not (REPO / "vaultmem" / rel).is_file())
    assert not missing, f"docs/ARCHITECTURE.md names modules that do not exist: {missing}"
