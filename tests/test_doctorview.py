"""doctor's text report: repeated findings grouped, a kind capped, one summary line (issue 21)."""

from __future__ import annotations

from vaultmem.memory.doctor import Problem
from vaultmem.memory.doctorview import fix_hint, lines, summary


def _ambiguous(rel: str, name: str) -> Problem:
    return Problem("ambiguous-link", rel, 3, f"[[{name}]] could mean 2 notes")


def test_the_same_finding_in_many_notes_is_one_line() -> None:
    found = [_ambiguous(f"n{i}.md", "Billing") for i in range(500)]
    found.append(_ambiguous("x.md", "Auth"))
    assert lines(found) == [
        "n0.md:3: ambiguous-link: [[Billing]] could mean 2 notes (and 499 more places)",
        "x.md:3: ambiguous-link: [[Auth]] could mean 2 notes",
    ]


def test_a_kind_with_very_many_lines_shows_its_first_ones() -> None:
    found = [_ambiguous("a.md", f"N{i}") for i in range(30)]
    found.append(Problem("stale-lock", ".vaultmem/locks/x.lock", None, "left by pid 9"))
    out = lines(found, per_kind=25)
    assert len(out) == 27 and out[24].startswith("a.md:3: ambiguous-link: [[N24]]")
    assert out[25] == ".vaultmem/locks/x.lock:0: stale-lock: left by pid 9"
    assert out[26] == ("… 5 more ambiguous-link not shown (`vaultmem doctor --json` lists "
                       "every one)")


def test_the_summary_is_one_line_by_kind() -> None:
    assert summary([], 1) == "no problems in 1 note"
    assert summary(["stale-lock", "ambiguous-link", "ambiguous-link"], 10000) == (
        "3 problems in 10000 notes: 2 ambiguous-link, 1 stale-lock")
    assert summary(["stale-lock"], 2) == "1 problem in 2 notes: 1 stale-lock"


def test_the_problems_fix_repairs_are_named_after_the_summary() -> None:
    assert fix_hint(["stale-lock", "bad-yaml"]) is None
    assert fix_hint(["unresolved-link", "secret", "stale-lock", "secret"]) == (
        "`vaultmem doctor --fix` repairs 2 secret, 1 unresolved-link (those to a note that moved)")
