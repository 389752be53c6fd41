"""Every "DESIGN §N" the code and the docs cite resolves to a section of docs/design.md."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
CITED = re.compile(r"DESIGN §(\d+)")
SECTION = re.compile(r"^## (\d+)\. ", re.MULTILINE)


def _cited() -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    files = [*REPO.glob("vaultmem/**/*.py"), *REPO.glob("docs/*.md"), REPO / "README.md",
             *REPO.glob("bench/*.py"), *REPO.glob("tests/**/*.py")]
    for path in files:
        if "__pycache__" in path.parts:
            continue
        for number in CITED.findall(path.read_text(encoding="utf-8")):
            found.setdefault(number, set()).add(str(path.relative_to(REPO)))
    return found


def test_every_design_reference_resolves_inside_the_repository() -> None:
    sections = set(SECTION.findall((REPO / "docs/design.md").read_text(encoding="utf-8")))
    cited = _cited()
    assert cited, "no DESIGN reference found: the pattern is wrong"
    missing = {n: sorted(where) for n, where in cited.items() if n not in sections}
    assert not missing, f"DESIGN sections cited but not in docs/design.md: {missing}"
