"""The merge driver on a 32,000-line work log changed on both sides, in a real ``git pull``
between two clones: it merges (the common parts matched in one pass, the rest cut at lines
that occur once), and a change it cannot match within its bound (thousands of repeated lines
inserted at one place on both sides) goes to git's own merge instead of hanging the pull.
Timings: ``python -m bench --only merge``."""

from __future__ import annotations

import random
import re
from pathlib import Path

from test_gitshare import Machine, _clones, git

from bench.merging import REPEATED, big_log, both_sides, log_note

REL = "claude/projects/demo/sessions/2026-11-20-long-run.md"


def _both_changed(machines: list[Machine], base: list[str], ours: list[str],
                  theirs: list[str]) -> Machine:
    """The log committed and pulled by both; then each changes it; the clone that pulls last."""
    a, b = machines
    path = a.root / REL
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(log_note(base))
    a.commit("the long log")
    a.push()
    b.pull()
    (a.root / REL).write_text(log_note(theirs))
    a.commit("theirs")
    a.push()
    (b.root / REL).write_text(log_note(ours))
    b.commit("ours")
    return b


def test_a_32000_line_log_changed_on_both_sides_merges(tmp_path: Path) -> None:
    base, ours, theirs = both_sides(32000)
    b = _both_changed(_clones(tmp_path, 2), base, ours, theirs)
    done = git(b.root, "pull", "--no-rebase", "--no-edit", "origin", "main", check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    merged = (b.root / REL).read_text().split("\n")
    work = merged[merged.index("## Work Log") + 2:-1]
    # Every line of the base with both machines' edits, then ours' late lines, then theirs'.
    expected = list(base)
    expected[100], expected[16000] = ours[100], theirs[16000]  # where both_sides edits
    expected += ours[32000:] + theirs[32000:]
    assert work == expected


def test_thousands_of_repeated_lines_added_at_one_place_go_to_gits_merge(tmp_path: Path) -> None:
    base = big_log(32000)
    rnd = random.Random(3)
    ours = base[:1000] + [rnd.choice(REPEATED[1:]) for _ in range(3000)] + base[1000:]
    theirs = base[:1000] + [rnd.choice(REPEATED[1:]) for _ in range(3000)] + base[1000:]
    b = _both_changed(_clones(tmp_path, 2), base, ours, theirs)
    done = git(b.root, "pull", "--no-rebase", "--no-edit", "origin", "main", check=False)
    said = done.stdout + done.stderr
    assert done.returncode != 0, said
    assert "too many to match line by line" in said and "git's own merge" in said, said
    assert git(b.root, "diff", "--name-only", "--diff-filter=U").stdout.split() == [REL]
    text = (b.root / REL).read_text()
    assert re.search(r"^<<<<<<< ours$", text, re.MULTILINE), text[:2000]
    assert "### 00:01 - Entry 1" in text and f"Entry {len(base) // 5}" in text
