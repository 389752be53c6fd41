"""``python -m bench.rebrief KEPT [--part tuning|held-out] [--out DIR]``: the briefings of a kept
``bench.eval_real`` replay, rendered again by this checkout's code and scored by eval_real's
briefing rule, in seconds: no hook is replayed.

``KEPT`` is the folder ``eval_real --keep`` wrote a part into (``<keep>/tuning``). Its vault as
the memory held it the morning after (``held``) is copied and briefed with ``vaultmem context``
for every vault project a session was filed under, at that morning's clock, as eval_real does.
Printed: the facts one line of a briefing holds and the projects whose last open next step is
there (and, of the tuning part, the projects missing theirs). Of the tuning part, ``--out`` also
keeps the briefings and one line per fact (``+`` held, ``-`` missed); the held-out part is
reported by its totals only (``bench/fixtures/real/SOURCES.md``). A change of capture needs the
full replay.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path

_REPO = Path(__file__).resolve().parents[1]
if str(_REPO) not in sys.path:
    sys.path.insert(0, str(_REPO))

from bench import eval_real
from bench.real_corpus import (
    FIXTURES,
    SPLITS,
    Corpus,
    CorpusError,
    environ_corpus,
    load_corpus,
    session_uuid,
)


def briefings(corpus: Corpus, kept: Path, vault: Path) -> tuple[dict[str, str],
                                                               dict[str, list[str]]]:
    """Each vault project's briefing of ``kept``'s held vault, briefed in a copy at ``vault``,
    and the vault projects each corpus session was filed under."""
    shutil.rmtree(vault, ignore_errors=True)
    shutil.copytree(kept / "held", vault)
    uuids = {s.id: session_uuid(s, [raw.decode("utf-8", "replace") for raw in
                                    corpus.paths[s.id].read_bytes().splitlines(keepends=True)])
             for s in corpus.sessions}
    filed = eval_real._session_projects(vault, uuids)
    morning = eval_real.morning_after(max(e.when for e in eval_real.planned(corpus)))
    out: dict[str, str] = {}
    for project in sorted({p for found in filed.values() for p in found}):
        out[project], _ = eval_real._vaultmem(
            kept, morning, ["--vault", str(vault), "--project", project, "context"])
    return out, filed


def report(corpus: Corpus, briefed: dict[str, str], filed: dict[str, list[str]], part: str,
           out: Path | None = None) -> str:
    """The score line; of the tuning part, the briefings and one line per fact in ``out``."""
    held = [f for f in corpus.facts if eval_real.briefed(f, briefed, filed)]
    steps = eval_real.open_steps(corpus, briefed, filed)
    whole = len(corpus.facts)
    line = (f"{part}: briefing {len(held)}/{whole} ({100 * len(held) / max(whole, 1):.0f}%); "
            f"open steps {sum(steps.values())}/{len(steps)}")
    if part == eval_real.HELD_OUT:
        return line  # its totals only: no project named
    missed = sorted(p for p, found in steps.items() if not found)
    if missed:
        line += " (missing in: " + ", ".join(missed) + ")"
    line += "; chars " + ", ".join(f"{p} {len(t)}" for p, t in sorted(briefed.items()))
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
        for project, text in briefed.items():
            (out / f"{project}.md").write_text(text, encoding="utf-8")
        (out / "facts.txt").write_text("".join(
            f"{'+' if f in held else '-'} {f.session[:8]} {f.kind:10} {f.name} :: {f.proof}\n"
            for f in corpus.facts), encoding="utf-8")
    return line


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.rebrief", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("kept", type=Path, help="a part's folder of an eval_real --keep run")
    parser.add_argument("--part", choices=SPLITS, help="default: the folder's name")
    parser.add_argument("--corpus", type=Path, help="folder holding the transcripts")
    parser.add_argument("--facts", type=Path, default=FIXTURES / "facts.json")
    parser.add_argument("--out", type=Path, help="tuning part: keep briefings and fact lines")
    args = parser.parse_args(argv)
    part = args.part or args.kept.name
    if part not in SPLITS or not (args.kept / "held").is_dir():
        print(f"rebrief: {args.kept} is no part folder of an eval_real --keep run (--part?)",
              file=sys.stderr)
        return 2
    try:
        corpus = load_corpus(args.facts, [args.corpus] if args.corpus else environ_corpus())
    except CorpusError as err:
        print(f"rebrief: {err}", file=sys.stderr)
        return 2
    chosen = corpus.part(part)
    if not chosen.sessions or chosen.missing:
        print(f"rebrief: the {part} part's transcripts are not all here", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="vaultmem-rebrief-") as tmp:
        briefed, filed = briefings(chosen, args.kept, Path(tmp) / "vault")
    print(report(chosen, briefed, filed, part, args.out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
