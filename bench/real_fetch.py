"""``python -m bench.real_fetch [CLONE ...] [--mirrors ROOT] [--facts FILE] [--to DIR]``: copy the
real-session transcripts of ``facts.json`` out of git clones of the repositories they were
published in.

Each session's ``source.blob`` is read with ``git -C <clone> cat-file -p <blob>`` from the first
clone that holds it and written to ``DIR/<file>`` (``bench/fixtures/real`` by default, where
``bench.eval_real`` looks for it) when its sha256 is the one recorded. The sessions come from more
than one repository: give a clone of each, or ``--mirrors ROOT`` for a folder laid out as
``ROOT/<owner>+<name>/repo`` (the search tool's ``fetch`` snapshots), where each session's
``source.repository`` is looked up. A transcript already there and intact is left alone. Exit 0
when every session's transcript is in place, 1 when one could not be had (each named on stderr).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

_REPO = Path(__file__).resolve().parents[1]
if str(_REPO) not in sys.path:
    sys.path.insert(0, str(_REPO))

from bench.real_corpus import FIXTURES


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def mirror_of(session: Mapping[str, Any], root: Path) -> Path:
    """Where a ``fetch`` snapshot of the session's source repository lies under ``root``."""
    owner, name = str(session["source"]["repository"]).split("/", 1)
    return root / f"{owner}+{name}" / "repo"


def fetch_one(session: Mapping[str, Any], clones: Sequence[Path], to: Path) -> str:
    """Put one session's transcript in place from the first of ``clones`` holding its blob;
    what happened, as one line."""
    dest = to / str(session["file"])
    if dest.is_file() and _digest(dest.read_bytes()) == session["sha256"]:
        return f"have {dest}"
    blob = str(session["source"]["blob"])
    for clone in clones:
        done = subprocess.run(["git", "-C", str(clone), "cat-file", "-p", blob],
                              capture_output=True, check=False)
        if done.returncode != 0:
            continue
        if _digest(done.stdout) != session["sha256"]:
            raise LookupError(f"{session['id']}: blob {blob[:12]} does not have the recorded sha256")
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_bytes(done.stdout)
        return f"wrote {dest}"
    where = ", ".join(str(c) for c in clones) or "no clone given"
    raise LookupError(f"{session['id']}: blob {blob[:12]} is not in {where}")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.real_fetch", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("clones", type=Path, nargs="*", metavar="CLONE",
                        help="a git clone of a source repository")
    parser.add_argument("--mirrors", type=Path, metavar="ROOT",
                        help="a folder of snapshots laid out as ROOT/<owner>+<name>/repo")
    parser.add_argument("--facts", type=Path, default=FIXTURES / "facts.json")
    parser.add_argument("--to", type=Path, default=FIXTURES, help="where the transcripts go")
    args = parser.parse_args(argv)
    sessions = json.loads(args.facts.read_text(encoding="utf-8"))["sessions"]
    failed = 0
    for session in sessions:
        clones = list(args.clones)
        if args.mirrors is not None:
            clones.append(mirror_of(session, args.mirrors))
        try:
            print(fetch_one(session, clones, args.to))
        except LookupError as err:
            print(f"real_fetch: {err}", file=sys.stderr)
            failed += 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
