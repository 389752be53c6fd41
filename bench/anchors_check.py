"""The SessionStart staleness check (issue 13): 1,000 anchored items on a 10,000-file repository.

Rows: the check as the briefing runs it (``staleness.vet``: the work tree found by its ``.git``,
no git process; the anchored files hashed within the budget), beside its floors: one git call
(what the check avoids), and reading and hashing the anchored files in-process. One file in ten was changed and committed after the items
were anchored; the row's check counts the marks.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from vaultmem.brief import digest, staleness
from vaultmem.memory import anchors

from .runner import Case, Sample, Workspace, run_command, timed

FILES = 10_000
ITEMS = 1_000
CHANGED_EVERY = 10


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.name=bench", "-c", "user.email=bench@example.com",
                    *args], cwd=repo, check=True, capture_output=True)


def build_repo(root: Path) -> tuple[list[digest.SessionDigest], list[str]]:
    """A repository of FILES files, ITEMS items anchored to ITEMS of them, every
    CHANGED_EVERY-th of those changed and committed since; (digests, anchored paths)."""
    paths = [f"src/pkg{n // 100:03d}/mod{n % 100:02d}.py" for n in range(FILES)]
    for n, path in enumerate(paths):
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(f"VALUE = {n}\n" + "# filler line\n" * 40)
    _git(root, "init", "-q", "-b", "main")
    _git(root, "add", ".")
    _git(root, "commit", "-qm", "start")
    repo = anchors.repo(root)
    assert repo is not None and repo.git
    anchored = paths[:: FILES // ITEMS][:ITEMS]
    items = []
    for n, path in enumerate(anchored):
        anchor = anchors.anchor_for([path], repo, str(root))
        assert anchor is not None
        items.append(digest.Item(f"Decision {n} about {path}.", "2026-11-20",
                                 anchor=anchor.render()))
    for path in anchored[::CHANGED_EVERY]:
        (root / path).write_text("VALUE = 'changed'\n")
    _git(root, "commit", "-qam", "later work")
    session = digest.SessionDigest(
        rel="x.md", date="2026-11-20", topic="t", status="compacted", branch="main", turns=(),
        failing=(), decisions=tuple(items), gotchas=(), prerequisites=(), open_questions=(),
        next_steps=(), entities=())
    return [session], anchored


def anchor_cases(ws: Workspace) -> list[Case]:
    """The check and its floors."""
    root = ws.path("anchors-repo")
    sessions_, anchored = build_repo(root)
    marked: list[int] = []

    def check_run() -> Sample:
        def go() -> None:
            out, _ = staleness.vet(sessions_, [], root)
            marked.append(sum("(changed since" in i.text for i in out[0].decisions))
        return timed(go)

    def hash_floor() -> None:
        for path in anchored:
            anchors.blob_hash((root / path).read_bytes())

    expected = len(anchored[::CHANGED_EVERY])
    label = f"{FILES:,} files, {ITEMS:,} anchored items"
    return [
        Case("floor: git rev-parse --show-toplevel HEAD", "floor",
             lambda: run_command(["git", "rev-parse", "--show-toplevel", "HEAD"], cwd=root),
             note="one git call (the check makes none)"),
        Case(f"floor: read + blob-hash the {ITEMS:,} anchored files, in-process", "floor",
             lambda: timed(hash_floor), note=label),
        Case(f"SessionStart anchor check ({label})", "vaultmem", check_run,
             note=f"budget {anchors.CHECK_BUDGET_S:.1f} s",
             check=lambda: (f"{marked[-1]} of {expected} changed items marked"
                            if marked and marked[-1] == expected
                            else f"FAILED: {marked[-1:] or 'none'} marked, {expected} expected")),
    ]
