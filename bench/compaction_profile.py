"""Where the time of compaction and of the hooks goes: medians, a cProfile breakdown, and a
digest of the vault each run leaves behind (same digest before and after an optimisation =
byte-for-byte identical behaviour).

``python -m bench.compaction_profile [--runs 10] [--profile] [--hooks] [--lines 600]``

Compaction in-process: ``Memory.compact_note`` on a ``--lines``-line session note linking 12
entities (6 of them new) in a copy of a small generated vault, ``VAULTMEM_NOW`` fixed. Each run
gets a fresh copy (set-up untimed), so every run does the same work.
Hooks (``--hooks``): ``python -m vaultmem hook session-end`` below threshold and with a
compaction, ``hook session-start``, and the floors ``python3 -c pass`` and
``python3 -c "import yaml, markdown_it, filelock"``, measured in the same run.
"""

from __future__ import annotations

import argparse
import cProfile
import hashlib
import io
import json
import os
import pstats
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path

from .generate import NOW_ISO, generate, session_note

REPO = Path(__file__).resolve().parent.parent
PY = sys.executable
TRANSCRIPT = REPO / "tests" / "fixtures" / "claude-code" / "transcript.jsonl"
ENTITIES = 12
NEW_ENTITIES = 6
VAULT_NOTES = 300


def _now() -> datetime:
    return datetime.fromisoformat(NOW_ISO).astimezone()


def _stats(samples: Sequence[float], cpu: Sequence[float]) -> str:
    ms = [s * 1000 for s in samples]
    return (
        f"median {statistics.median(ms):7.1f} ms   min {min(ms):7.1f}   max {max(ms):7.1f}"
        f"   cpu median {statistics.median(cpu) * 1000:7.1f} ms   min {min(cpu) * 1000:7.1f}"
        f"   (n={len(ms)})"
    )


def _cpu() -> float:
    """CPU seconds of this process and its finished children."""
    me = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def vault_digest(root: Path) -> str:
    """sha256 over every file's vault path and bytes (state and locks excluded)."""
    h = hashlib.sha256()
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if path.is_file() and not rel.startswith(".vaultmem/"):
            h.update(rel.encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()[:16]


class Setup:
    """A generated template vault, copied afresh for every run."""

    def __init__(self, work: Path) -> None:
        self.work = work
        self.template = work / "template"
        self.generated = generate(self.template, notes=VAULT_NOTES, seed=0, projects=1)
        self.project = self.generated.projects[0]
        self.runs = 0

    def fresh(self) -> Path:
        self.runs += 1
        root = self.work / f"run-{self.runs}"
        shutil.copytree(self.template, root)
        return root

    def existing(self, root: Path) -> list[str]:
        folder = root / "claude" / "projects" / self.project / "entities"
        return sorted(p.stem for p in folder.glob("*.md"))

    def note(self, root: Path, lines: int, *, session_id: str | None = None) -> str:
        return session_note(
            lines,
            ENTITIES,
            NEW_ENTITIES,
            project=self.project,
            existing=self.existing(root),
            seed=7,
            created=self.generated.today,
            session_id=session_id,
        )

    def env(self, root: Path) -> dict[str, str]:
        home = root.parent / (root.name + "-home")
        home.mkdir(exist_ok=True)
        root.mkdir(parents=True, exist_ok=True)  # hooks create only the default vault
        env = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith(("VAULTMEM_", "ANTHROPIC_", "PYTHON"))
        }
        env.update(
            HOME=str(home),
            XDG_CONFIG_HOME=str(home / ".config"),
            VAULTMEM_VAULT=str(root),
            VAULTMEM_PROJECT=self.project,
            VAULTMEM_NOW=NOW_ISO,
            PYTHONPATH=str(REPO),
            VAULTMEM_SESSION_END_DEADLINE="inf",  # the inline compaction is what is timed
        )
        return env


def _memory(root: Path, project: str):  # type: ignore[no-untyped-def]
    from vaultmem.memory.sessions import Memory
    from vaultmem.store.config import load_config
    from vaultmem.store.vault import Vault

    env = {"HOME": str(root.parent), "VAULTMEM_NOW": NOW_ISO}
    config = load_config(vault=root, project=project, env=env)
    return Memory(config, Vault(config.vault, namespace=config.namespace), clock_now=_now)


# Caches that hold no note data (a parser, the template files): kept, as a long-lived process would.
_KEPT_CACHES = {"_parser", "source", "_parts", "_folder"}


def forget_caches() -> None:
    """Empty vaultmem's caches of parsed notes, so that a run costs what it costs a fresh hook
    process (the same note is compacted run after run)."""
    for name, module in list(sys.modules.items()):
        if not name.startswith("vaultmem"):
            continue
        for attr, value in list(vars(module).items()):
            if isinstance(value, type) or attr in _KEPT_CACHES:
                continue
            if callable(getattr(value, "cache_clear", None)):
                value.cache_clear()


def compaction_run(
    setup: Setup, lines: int, profiler: cProfile.Profile | None = None
) -> tuple[float, float, str]:
    """One timed ``compact_note``; returns (seconds, CPU seconds, digest of the vault after)."""
    root = setup.fresh()
    rel = f"claude/projects/{setup.project}/sessions/2026-11-22-compaction-profile.md"
    (root / rel).write_text(setup.note(root, lines), encoding="utf-8")
    memory = _memory(root, setup.project)
    forget_caches()
    started, cpu = time.perf_counter(), time.process_time()
    if profiler is not None:
        profiler.enable()
    report = memory.compact_note(rel, now=_now())
    if profiler is not None:
        profiler.disable()
    elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu
    if report.status != "compacted" or len(report.entities_created) != NEW_ENTITIES:
        raise RuntimeError(f"{rel}: {report.status} {report.verdict} {report.error}")
    return elapsed, cpu, vault_digest(root)


def _command(
    argv: Sequence[str],
    *,
    env: dict[str, str] | None = None,
    cwd: Path | None = None,
    stdin: bytes = b"",
) -> tuple[float, float, str]:
    started, cpu = time.perf_counter(), _cpu()
    out = subprocess.run(
        list(argv), input=stdin, env=env, cwd=cwd, capture_output=True, timeout=120, check=False
    )
    elapsed, cpu = time.perf_counter() - started, _cpu() - cpu
    if out.returncode != 0 or out.stderr.strip():
        raise RuntimeError(f"{argv}: exit {out.returncode}: {out.stderr.decode()[-400:]}")
    return elapsed, cpu, ""


def _payload(event: str, sid: str, root: Path, **extra: str) -> bytes:
    transcript = root.parent / (root.name + "-transcript.jsonl")
    shutil.copyfile(TRANSCRIPT, transcript)
    return json.dumps(
        {
            "session_id": sid,
            "transcript_path": str(transcript),
            "cwd": str(root),
            "hook_event_name": event,
            **extra,
        }
    ).encode()


def hook_end_run(setup: Setup, lines: int) -> tuple[float, float, str]:
    """``vaultmem hook session-end`` on a seeded note of ``lines`` lines."""
    root = setup.fresh()
    sid = str(uuid.UUID(int=setup.runs))
    started = _memory(root, setup.project).start_session(sid, topic="profile end")
    (root / started.note).write_text(setup.note(root, lines, session_id=sid), encoding="utf-8")
    env = setup.env(root)
    timing = _command(
        [PY, "-m", "vaultmem", "hook", "session-end"],
        env=env,
        cwd=root,
        stdin=_payload("SessionEnd", sid, root, reason="other"),
    )
    from vaultmem.notes.frontmatter import parse

    status = parse((root / started.note).read_text("utf-8")).get("status")
    want = "archived" if lines >= 500 else "active"
    if status != want:
        raise RuntimeError(f"status {status!r} after session-end, expected {want!r}")
    return timing


def hook_start_run(setup: Setup) -> tuple[float, float, str]:
    """``vaultmem hook session-start`` for a new session."""
    root = setup.fresh()
    sid = str(uuid.UUID(int=setup.runs))
    return _command(
        [PY, "-m", "vaultmem", "hook", "session-start"],
        env=setup.env(root),
        cwd=root,
        stdin=_payload("SessionStart", sid, root, source="startup"),
    )


def series(name: str, fn: Callable[[], tuple[float, float, str]], runs: int) -> list[str]:
    fn()  # warm-up: page cache, .pyc files
    samples: list[float] = []
    cpu: list[float] = []
    digests: list[str] = []
    for _ in range(runs):
        seconds, cpu_seconds, digest = fn()
        samples.append(seconds)
        cpu.append(cpu_seconds)
        digests.append(digest)
    shown = f"   digest {digests[0]}" if digests[0] else ""
    print(f"{name:52s} {_stats(samples, cpu)}{shown}", flush=True)
    return digests


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--lines", type=int, default=600)
    parser.add_argument("--profile", action="store_true", help="cProfile one compaction")
    parser.add_argument("--hooks", action="store_true", help="time the hooks and the floors")
    parser.add_argument("--sort", default="cumulative", help="pstats sort key")
    parser.add_argument("--top", type=int, default=40)
    args = parser.parse_args(argv)
    os.environ["VAULTMEM_NOW"] = NOW_ISO
    with tempfile.TemporaryDirectory(prefix="vm-profile-") as tmp:
        setup = Setup(Path(tmp))
        lines = args.lines
        digests = series(
            f"compaction in-process ({lines} lines, {ENTITIES} entities, {NEW_ENTITIES} new)",
            lambda: compaction_run(setup, lines),
            args.runs,
        )
        if len(set(digests)) != 1:
            print(f"  warning: runs left different vaults: {sorted(set(digests))}")
        if args.profile:
            profiler = cProfile.Profile()
            compaction_run(setup, lines, profiler)
            out = io.StringIO()
            pstats.Stats(profiler, stream=out).sort_stats(args.sort).print_stats(args.top)
            print(out.getvalue())
        if args.hooks:
            series("floor: python3 -c pass", lambda: _command([PY, "-c", "pass"]), args.runs)
            series(
                "floor: python3 -c 'import yaml, markdown_it, filelock'",
                lambda: _command([PY, "-c", "import yaml, markdown_it, filelock"]),
                args.runs,
            )
            series(
                "hook session-end: below threshold (300 lines)",
                lambda: hook_end_run(setup, 300),
                args.runs,
            )
            series(
                f"hook session-end: {lines} lines, compacted",
                lambda: hook_end_run(setup, lines),
                args.runs,
            )
            series(
                f"hook session-start ({VAULT_NOTES}-note vault)",
                lambda: hook_start_run(setup),
                args.runs,
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
