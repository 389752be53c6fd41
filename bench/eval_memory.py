"""``python -m bench.eval_memory [--keep DIR]``: what the memory holds after a recorded week.

Replays the recorded transcripts of ``bench/fixtures/memory/`` (``bench/memory_scenario.py``)
through the real hook entry points, in-process (``vaultmem.claude.hooks.run``: SessionStart, a
Stop after each turn, SessionEnd with its inline compaction), into a fresh temporary vault, each
session on its own day. Then a new session starts, and the run counts:

- recall: facts (of 14) for which ``recall`` (the library call behind ``vaultmem recall``) on the
  fact's words returns a note whose text holds the fact; target 12;
- recall as shown: facts whose words are in the text ``recall`` shows for one of its first five
  hits (what a person or Claude reads, not the notes behind it); target 12;
- briefing: facts the new session's SessionStart briefing carries; target 7, and the next step
  left open by the last session;
- component entities: entity notes other than ``Inbox``; target 2 (Auth and Billing: the week's
  API, DB and migration folders are layers, never components since issue 29);
- garbled lines: lines of any note with a doubled label (``Gotcha: Gotcha:``), a doubled bullet,
  a JSON or tool-result fragment, or an empty item; target 0.

Exit code 1 when a target is missed. ``--keep DIR`` leaves the vault there to look at.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

_REPO = Path(__file__).resolve().parents[1]
if str(_REPO) not in sys.path:
    sys.path.insert(0, str(_REPO))

from bench.memory_scenario import CWD, FACTS, FIXTURES, OPEN_NEXT_STEP, PROJECT, Fact
from vaultmem.claude import hooks
from vaultmem.search.recall import recall
from vaultmem.store.config import Config
from vaultmem.store.vault import Vault

TARGETS = {"recall": 12, "shown": 12, "briefing": 7, "components": 2, "garbled": 0}
SHOWN_HITS = 5
_GARBLED = re.compile(
    r"\b(\w+):\s+\1:|^\s*[-*] [-*] |\"(?:type|tool_use_id|uuid)\"\s*:|^\s*[-*]\s*$|"
    # An empty label; a heading ending so (a compact summary's "## 9. Optional Next Step:"
    # kept in its callout) is a heading, not an empty item.
    r"^(?!(?:\s*>)*\s*#).*\b(Decision|Gotcha|Prerequisite|Next step|Open question):\s*$|"
    r"\(\[\[[^\n]*\]\]\)[^\n]*\(\[\[",  # two link groups on one line
    re.IGNORECASE,
)
_LINK_RE = re.compile(r"\[\[([^\[\]\n]*)\]\]")


@dataclass
class Result:
    """The counts, and which facts each check missed."""

    recall_found: list[str] = field(default_factory=list)
    recall_missed: list[str] = field(default_factory=list)
    shown_found: list[str] = field(default_factory=list)
    shown_missed: list[str] = field(default_factory=list)
    briefing_found: list[str] = field(default_factory=list)
    briefing_missed: list[str] = field(default_factory=list)
    open_next_step: bool = False
    components: list[str] = field(default_factory=list)
    garbled: list[str] = field(default_factory=list)
    briefing_chars: int = 0
    warnings: list[str] = field(default_factory=list)

    def failures(self) -> list[str]:
        """The targets missed, one phrase each; empty when all hold."""
        missed = []
        if len(self.recall_found) < TARGETS["recall"]:
            missed.append(f"recall {len(self.recall_found)}/{len(FACTS)} < {TARGETS['recall']}")
        if len(self.shown_found) < TARGETS["shown"]:
            missed.append(
                f"recall as shown {len(self.shown_found)}/{len(FACTS)} < {TARGETS['shown']}"
            )
        if len(self.briefing_found) < TARGETS["briefing"]:
            missed.append(
                f"briefing {len(self.briefing_found)}/{len(FACTS)} < {TARGETS['briefing']}"
            )
        if not self.open_next_step:
            missed.append("briefing lacks the open next step")
        if len(self.components) < TARGETS["components"]:
            missed.append(f"component entities {len(self.components)} < {TARGETS['components']}")
        if len(self.garbled) > TARGETS["garbled"]:
            missed.append(f"{len(self.garbled)} garbled lines")
        return missed


@contextmanager
def _environment(vault: Path, home: Path) -> Iterator[dict[str, str]]:
    """The hooks read the vault, the clock and the config from the environment; restored after."""
    saved = dict(os.environ)
    vault.mkdir(parents=True, exist_ok=True)  # hooks create only the default vault
    for key in [k for k in os.environ if k.startswith("VAULTMEM_")]:
        del os.environ[key]
    os.environ.update(
        {"VAULTMEM_VAULT": str(vault), "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config")}
    )
    try:
        yield os.environ  # type: ignore[misc]
    finally:
        os.environ.clear()
        os.environ.update(saved)


def _turns(path: Path) -> list[list[dict[str, Any]]]:
    """The transcript's lines grouped per turn: a prompt (user text) opens a turn."""
    turns: list[list[dict[str, Any]]] = []
    for raw in path.read_text(encoding="utf-8").splitlines():
        row = json.loads(raw)
        content = row.get("message", {}).get("content")
        if row.get("type") == "user" and isinstance(content, str) or not turns:
            turns.append([])
        turns[-1].append(row)
    return turns


def _answer(turn: Sequence[Mapping[str, Any]]) -> str:
    for row in reversed(turn):
        for block in row.get("message", {}).get("content") or []:
            if isinstance(block, dict) and block.get("type") == "text":
                return str(block.get("text", ""))
    return ""


def _hook(name: str, now: datetime, payload: Mapping[str, Any], warnings: list[str]) -> str:
    os.environ["VAULTMEM_NOW"] = now.isoformat(timespec="seconds")
    out, said = hooks.run(name, json.dumps(dict(payload)))
    warnings.extend(f"{name}: {w}" for w in said)
    return out


def replay(vault: Path, work: Path) -> tuple[str, list[str]]:
    """Replay every recorded session, then start a new one; (its briefing, hook warnings)."""
    warnings: list[str] = []
    day = datetime(2026, 11, 9, 9)
    for path in sorted(FIXTURES.glob("*.jsonl")):
        turns = _turns(path)
        sid = turns[0][0]["sessionId"]
        day = datetime.fromisoformat(turns[0][0]["timestamp"][:19])
        transcript = work / f"{sid}.jsonl"
        transcript.write_text("", encoding="utf-8")
        base = {"session_id": sid, "transcript_path": str(transcript), "cwd": CWD}
        _hook(
            "session-start",
            day,
            {**base, "hook_event_name": "SessionStart", "source": "startup"},
            warnings,
        )
        when = day
        for turn in turns:
            with transcript.open("a", encoding="utf-8") as handle:
                handle.writelines(json.dumps(row) + "\n" for row in turn)
            when = datetime.fromisoformat(turn[-1]["timestamp"][:19])
            _hook(
                "stop",
                when,
                {
                    **base,
                    "hook_event_name": "Stop",
                    "stop_hook_active": False,
                    "last_assistant_message": _answer(turn),
                },
                warnings,
            )
        _hook(
            "session-end",
            when + timedelta(minutes=1),
            {**base, "hook_event_name": "SessionEnd", "reason": "prompt_input_exit"},
            warnings,
        )
    # The next working day after a weekend: the Monday after the last session.
    start = (day + timedelta(days=3)).replace(hour=9, minute=0)
    out = _hook(
        "session-start",
        start,
        {
            "session_id": "5a1c0f3e-0005-4d2b-9a61-next00000005",
            "cwd": CWD,
            "transcript_path": str(work / "next.jsonl"),
            "hook_event_name": "SessionStart",
            "source": "startup",
        },
        warnings,
    )
    briefing = ""
    if out.strip():
        briefing = str(json.loads(out).get("hookSpecificOutput", {}).get("additionalContext", ""))
    return briefing, warnings


def _found_by_recall(vault: Vault, config: Config, fact: Fact) -> tuple[bool, bool]:
    """(a hit's note holds the fact, a hit among the first five shows it)."""
    hits = recall(vault, config, fact.query, limit=10).hits
    probe = fact.probe.casefold()
    shown = any(probe in hit.text.casefold() for hit in hits[:SHOWN_HITS])
    for hit in hits:
        text = (vault.root / hit.rel).read_text(encoding="utf-8")
        if probe in text.casefold():
            return True, shown
    return False, shown


def evaluate(root: Path) -> Result:
    """Replay into ``root/vault`` (created) and count what the memory holds."""
    vault_dir, home = root / "vault", root / "home"
    for folder in (vault_dir, home / ".config", root / "transcripts"):
        folder.mkdir(parents=True, exist_ok=True)
    result = Result()
    with _environment(vault_dir, home):
        briefing, result.warnings = replay(vault_dir, root / "transcripts")
        config = Config(vault=vault_dir, project=PROJECT)
        vault = Vault(vault_dir, namespace=config.namespace)
        os.environ["VAULTMEM_NOW"] = "2026-11-16T09:05:00"
        for fact in FACTS:
            found, shown = _found_by_recall(vault, config, fact)
            (result.recall_found if found else result.recall_missed).append(fact.name)
            (result.shown_found if shown else result.shown_missed).append(fact.name)
    result.briefing_chars = len(briefing)
    folded = briefing.casefold()
    for fact in FACTS:
        inside = fact.probe.casefold() in folded
        (result.briefing_found if inside else result.briefing_missed).append(fact.name)
    result.open_next_step = OPEN_NEXT_STEP.casefold() in folded
    entities = sorted(vault_dir.rglob(f"projects/{PROJECT}/entities/*.md"))
    result.components = [p.stem for p in entities if p.stem.casefold() != "inbox"]
    result.garbled = garbled_lines(vault_dir)
    return result


def garbled_lines(vault_dir: Path) -> list[str]:
    """``note:line: text`` of every garbled line of the vault's notes: a doubled label or bullet,
    a JSON fragment, an empty item, two link groups on one line, or a broken wikilink (unclosed,
    empty, or a path naming no note of the vault)."""
    notes = sorted(vault_dir.rglob("*.md"))
    paths = {p.relative_to(vault_dir).with_suffix("").as_posix().casefold() for p in notes}
    found = []
    for note in notes:
        for number, line in enumerate(note.read_text(encoding="utf-8").splitlines(), 1):
            targets = [m.group(1).split("|")[0].split("#")[0].strip()
                       for m in _LINK_RE.finditer(line)]
            # A bare name may be an entity compaction has yet to create, and so may a path to
            # an entity of the note's own project; any other path must resolve.
            own = "/".join(note.relative_to(vault_dir).parts[:3]).casefold() + "/entities/"
            broken = line.count("[[") != line.count("]]") or any(
                not t or ("/" in t and t.casefold() not in paths
                          and not t.casefold().startswith(own)) for t in targets
            )
            if broken or _GARBLED.search(line):
                found.append(f"{note.relative_to(vault_dir)}:{number}: {line[:160]}")
    return found


def report(result: Result) -> str:
    """The counts as a small table, then what was missed."""
    total = len(FACTS)
    rows = [
        ("facts found by recall", f"{len(result.recall_found)}/{total}", f">= {TARGETS['recall']}"),
        ("facts recall shows", f"{len(result.shown_found)}/{total}", f">= {TARGETS['shown']}"),
        (
            "facts in the next briefing",
            f"{len(result.briefing_found)}/{total}",
            f">= {TARGETS['briefing']}",
        ),
        ("open next step in the briefing", "yes" if result.open_next_step else "no", "yes"),
        ("component entities", str(len(result.components)), f">= {TARGETS['components']}"),
        ("garbled lines", str(len(result.garbled)), "0"),
    ]
    lines = [f"{'measure':<32}{'value':>8}  target"]
    lines += [f"{name:<32}{value:>8}  {target}" for name, value, target in rows]
    lines.append(
        f"briefing: {result.briefing_chars} characters; components: "
        f"{', '.join(result.components) or 'none'}"
    )
    if result.recall_missed:
        lines.append("recall missed: " + "; ".join(result.recall_missed))
    if result.shown_missed:
        lines.append("recall did not show: " + "; ".join(result.shown_missed))
    if result.briefing_missed:
        lines.append("briefing missed: " + "; ".join(result.briefing_missed))
    lines += [f"garbled: {g}" for g in result.garbled[:10]]
    lines += [f"hook warning: {w}" for w in result.warnings[:5]]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.eval_memory", description=__doc__)
    parser.add_argument("--keep", type=Path, help="replay into this (empty) folder and keep it")
    args = parser.parse_args(argv)
    if args.keep is not None:
        args.keep.mkdir(parents=True, exist_ok=True)
        result = evaluate(args.keep)
    else:
        with tempfile.TemporaryDirectory(prefix="vaultmem-eval-memory-") as tmp:
            result = evaluate(Path(tmp))
    print(f"replayed {len(sorted(FIXTURES.glob('*.jsonl')))} recorded sessions")
    print(report(result))
    failures = result.failures()
    if failures:
        print("below target: " + ", ".join(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
