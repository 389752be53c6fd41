"""What the git merge driver costs on a 32,000-line work log changed on both sides (an edit near
the top and new entries on one machine, an edit in the middle and other new entries on the
other), beside git's own ``git merge-file`` on the same three files. The driver used to match
the log's repeated lines quadratically (about 3 minutes; git has no driver timeout, so a
``git pull`` seemed to hang). The row checks that every edit and every new line is merged.
"""

from __future__ import annotations

import random
import shutil
import sys
from pathlib import Path

from .runner import Case, Sample, Workspace, run_command

LINES = 32_000
REPEATED = ("", "Reason: other", "- Ran `pytest -q`", "### 10:00 - Session End",
            "- Edited `app.py`")


def big_log(lines: int, seed: int = 1) -> list[str]:
    """A work log of ``lines`` lines: numbered entries among many repeated lines."""
    rnd = random.Random(seed)
    out: list[str] = []
    n = 0
    while len(out) < lines:
        n += 1
        out += [f"### {n // 60 % 24:02d}:{n % 60:02d} - Entry {n}", "", rnd.choice(REPEATED),
                rnd.choice(REPEATED), ""]
    return out[:lines]


def log_note(body: list[str]) -> str:
    """A session note holding ``body`` as its work log."""
    return ("---\ntype: session\nsession_ids:\n  - s-long\nstatus: active\n---\n# Long run\n\n"
            "## Work Log\n\n" + "\n".join(body) + "\n")


def both_sides(lines: int = LINES) -> tuple[list[str], list[str], list[str]]:
    """(base, ours, theirs): each side edits one entry and adds lines at the end."""
    base = big_log(lines)
    ours, theirs = list(base), list(base)
    ours[100] = "### 01:40 - Entry 21, edited on this machine"
    ours += [f"- this machine's late line {i}" for i in range(200)]
    theirs[lines // 2] = "### 05:20 - Entry 3201, edited on the other machine"
    theirs += [f"- the other machine's late line {i}" for i in range(300)]
    return base, ours, theirs


def merge_cases(ws: Workspace, env: dict[str, str]) -> list[Case]:
    """The driver's row and git merge-file's floor, each on fresh copies of the three files."""
    folder = ws.path("merge")
    base, ours, theirs = both_sides()
    texts = {"base.md": log_note(base), "ours.md": log_note(ours), "theirs.md": log_note(theirs)}
    results: dict[str, str] = {}

    def fresh() -> tuple[Path, Path, Path]:
        run = folder / "run"
        shutil.rmtree(run, ignore_errors=True)
        run.mkdir(parents=True)
        for name, text in texts.items():
            (run / name).write_text(text)
        return run / "base.md", run / "ours.md", run / "theirs.md"

    def driver() -> Sample:
        b, o, t = fresh()
        sample = run_command([sys.executable, "-m", "vaultmem", "merge-driver", str(b), str(o),
                              str(t), "sessions/long-run.md"], env=env)
        results["merged"] = o.read_text()
        return sample

    def floor() -> Sample:
        b, o, t = fresh()
        # Exit 1: the new lines at the end of both sides are a conflict to git.
        return run_command(["git", "merge-file", str(o), str(b), str(t)], env=env,
                           ok_codes=(0, 1))

    def check() -> str:
        merged = results.get("merged", "")
        wanted = [ours[100], theirs[LINES // 2], ours[-1], theirs[-1]]
        missing = [w for w in wanted if w not in merged]
        return "both sides' edits and new lines merged" if not missing else f"MISSING {missing}"

    return [
        Case(f"merge driver: {LINES:,}-line work log changed on both sides", "vaultmem", driver,
             check=check, note="vaultmem merge-driver in a new process, as git runs it"),
        Case(f"floor: git merge-file on the same {LINES:,}-line log", "floor", floor,
             note="git's own line merge of the three files"),
    ]
