"""The benchmark framework: measure cases, print the table, write the JSON.

A case is a callable that performs its own untimed set-up and returns one timed ``Sample``.
Subprocess samples are timed with ``time.perf_counter`` around the child's whole life (start to
reap) and carry the child's peak RSS from ``os.wait4`` (``ru_maxrss``, KiB on Linux); children are
started by a small helper process (``bench/spawner.py``) so that the bench's own size does not
leak into their ``ru_maxrss``. Each case
runs once untimed (warm-up: page cache, ``.pyc`` files) and then ``runs`` times; the table shows
median, min and max.
"""

from __future__ import annotations

import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Literal

Group = Literal["floor", "vaultmem", "peer"]
REPO = Path(__file__).resolve().parents[1]
DEFAULT_OUT = REPO / "bench" / "results" / "latest.json"


@dataclass(frozen=True)
class Sample:
    """One timed run: wall seconds and, for a child process, its peak RSS in KiB."""

    seconds: float
    max_rss_kib: int | None = None
    stdout: str = field(default="", repr=False)  # a child's output, for the row's check
    # CPU seconds (user + system) of the child, or of this process for an in-process row: on a
    # shared machine other work stretches wall time, much less the CPU a run needs.
    cpu: float | None = None
    # Instructions the child executed, when it ran under ``COUNTER`` (bench/instructions.py).
    instructions: int | None = None


class InstructionCounter:
    """A tool that counts the instructions of one child: the argv put before the child's, which
    writes its report to ``report``, and how to read the count from that report."""

    name = ""

    def argv(self, report: Path) -> list[str]:
        """The tool's command line up to the child's argv."""
        raise NotImplementedError

    def count(self, report: str) -> int | None:
        """The count in the report's text (None when it holds none)."""
        raise NotImplementedError


# Set by ``python -m bench.instructions``: every child then runs under this counter, with a fixed
# PYTHONHASHSEED (string hashing decides set and dict orders, and with them the work done).
COUNTER: InstructionCounter | None = None


@dataclass(frozen=True)
class Case:
    """One row of the table: ``run`` does its untimed set-up and returns a timed sample."""

    name: str
    group: Group
    run: Callable[[], Sample]
    note: str = ""
    runs: int | None = None  # fixed count for cases that take minutes (peers)
    warmup: bool = True
    compare_to: str | None = None  # for a peer: the vaultmem row its ratio is taken against
    check: Callable[[], str] | None = None  # after the runs: a one-line verdict for the notes
    per_notes: int | None = None  # the vault's size: the note adds the median per 1,000 notes


@dataclass(frozen=True)
class Row:
    """A measured (or skipped) case."""

    name: str
    group: Group
    seconds: tuple[float, ...] = ()
    max_rss_kib: int | None = None
    note: str = ""
    error: str | None = None
    compare_to: str | None = None
    ratio: float | None = None  # vaultmem median / this row's median
    cpu: tuple[float, ...] = ()  # CPU seconds of each timed run (when measured)

    @property
    def median(self) -> float | None:
        """Median wall time in seconds, None when nothing ran."""
        return statistics.median(self.seconds) if self.seconds else None

    @property
    def cpu_median(self) -> float | None:
        """Median CPU time in seconds, None when not measured."""
        return statistics.median(self.cpu) if self.cpu else None

    def to_json(self) -> dict[str, Any]:
        """The JSON form: milliseconds, MiB."""

        def ms(value: float | None) -> float | None:
            return None if value is None else round(value * 1000, 2)

        return {
            "name": self.name,
            "group": self.group,
            "median_ms": ms(self.median),
            "min_ms": ms(min(self.seconds)) if self.seconds else None,
            "max_ms": ms(max(self.seconds)) if self.seconds else None,
            "runs": len(self.seconds),
            "runs_ms": [ms(s) for s in self.seconds],
            "cpu_median_ms": ms(self.cpu_median),
            "cpu_runs_ms": [ms(s) for s in self.cpu],
            "peak_rss_mib": _mib(self.max_rss_kib),
            "note": self.note,
            "error": self.error,
            "compare_to": self.compare_to,
            "ratio_vaultmem_over_peer": None if self.ratio is None else round(self.ratio, 4),
        }


class CommandFailed(RuntimeError):
    """A measured command exited non-zero or timed out."""


@dataclass
class Workspace:
    """Scratch space of one benchmark run; removed at the end unless kept."""

    root: Path
    keep: bool = False
    cleanups: list[Callable[[], None]] = field(default_factory=list)

    def path(self, name: str) -> Path:
        """A fresh sub-folder."""
        path = self.root / name
        path.mkdir(parents=True, exist_ok=True)
        return path


class _Spawner:
    """The small helper process that starts measured children (see ``bench/spawner.py``)."""

    def __init__(self) -> None:
        self._proc: subprocess.Popen[str] | None = None
        self._lock = threading.Lock()

    def ask(self, request: dict[str, Any]) -> dict[str, Any]:
        """Send one request and wait for its answer."""
        with self._lock:
            if self._proc is None or self._proc.poll() is not None:
                script = Path(__file__).with_name("spawner.py")
                self._proc = subprocess.Popen(
                    [sys.executable, "-I", "-S", str(script)],
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    text=True,
                    env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
                )
            assert self._proc.stdin is not None and self._proc.stdout is not None
            self._proc.stdin.write(json.dumps(request) + "\n")
            self._proc.stdin.flush()
            line = self._proc.stdout.readline()
        if not line:
            raise CommandFailed("the spawner helper died")
        answer: dict[str, Any] = json.loads(line)
        return answer

    def close(self) -> None:
        """Stop the helper (it exits when its stdin closes)."""
        with self._lock:
            if self._proc is not None and self._proc.stdin is not None:
                self._proc.stdin.close()
                self._proc.wait(timeout=30)
            self._proc = None


SPAWNER = _Spawner()


def run_command(
    argv: Sequence[str],
    *,
    env: Mapping[str, str] | None = None,
    cwd: Path | None = None,
    stdin: bytes = b"",
    timeout: float = 900.0,
    ok_codes: tuple[int, ...] = (0,),
) -> Sample:
    """Run ``argv`` once; wall time around its whole life and its peak RSS. Raises on failure
    (an exit code outside ``ok_codes``: doctor exits 1 when it finds problems)."""
    counter = COUNTER
    with tempfile.TemporaryDirectory(prefix="vaultmem-bench-io-") as tmp:
        io = Path(tmp)
        (io / "stdin").write_bytes(stdin)
        child_env = dict(os.environ if env is None else env)
        if counter is not None:
            argv = [*counter.argv(io / "count"), *argv]
            child_env["PYTHONHASHSEED"] = "0"
        answer = SPAWNER.ask(
            {
                "argv": list(argv),
                "env": child_env,
                "cwd": None if cwd is None else str(cwd),
                "stdin": str(io / "stdin"),
                "stdout": str(io / "stdout"),
                "stderr": str(io / "stderr"),
                "timeout": timeout,
            }
        )
        if "error" in answer:
            raise CommandFailed(f"{Path(argv[0]).name}: {answer['error']}")
        code, elapsed = int(answer["code"]), float(answer["seconds"])
        if code not in ok_codes:
            tail = (io / "stderr").read_bytes().decode("utf-8", "replace").strip().splitlines()
            what = "timed out" if code == -9 and elapsed >= timeout else f"exit {code}"
            raise CommandFailed(f"{Path(argv[0]).name} {what}: {' | '.join(tail[-3:])[:300]}")
        out = (io / "stdout").read_bytes().decode("utf-8", "replace")
        cpu = answer.get("cpu_seconds")
        counted = None
        if counter is not None:
            report = io / "count"
            counted = counter.count(report.read_text("utf-8", "replace") if report.exists() else "")
            if counted is None:
                raise CommandFailed(f"{counter.name} reported no instruction count")
        return Sample(elapsed, int(answer["maxrss_kib"]), out, None if cpu is None else float(cpu),
                      counted)


def timed(fn: Callable[[], object]) -> Sample:
    """Time an in-process call."""
    started, cpu = time.perf_counter(), time.process_time()
    fn()
    return Sample(time.perf_counter() - started, cpu=time.process_time() - cpu)


def measure(case: Case, runs: int, *, progress: Callable[[str], None] | None = None) -> Row:
    """Run a case (warm-up, then ``runs`` timed runs) into a row; an exception becomes the error."""
    count = case.runs if case.runs is not None else runs
    samples: list[Sample] = []
    try:
        if case.warmup:
            case.run()
        for _ in range(count):
            samples.append(case.run())
        verdict = case.check() if case.check else ""
    except Exception as err:  # noqa: BLE001 - a broken row must not sink the table
        return Row(
            case.name,
            case.group,
            tuple(s.seconds for s in samples),
            _peak(samples),
            case.note,
            f"{type(err).__name__}: {err}"[:400],
            case.compare_to,
            cpu=_cpu(samples),
        )
    finally:
        if progress:
            progress(case.name)
    per = ""
    if case.per_notes and samples:
        each = statistics.median(s.seconds for s in samples) / case.per_notes * 1000
        per = f"{_fmt_s(each)} per 1,000 notes"
        cpus = _cpu(samples)
        if cpus:
            per += f" (cpu {_fmt_s(statistics.median(cpus) / case.per_notes * 1000)})"
    note = "; ".join(part for part in (case.note, verdict, per) if part)
    return Row(
        case.name,
        case.group,
        tuple(s.seconds for s in samples),
        _peak(samples),
        note,
        None,
        case.compare_to,
        cpu=_cpu(samples),
    )


def skipped(name: str, group: Group, reason: str, *, compare_to: str | None = None) -> Row:
    """A row that could not run (peer not installed, command missing)."""
    return Row(name, group, error=reason, compare_to=compare_to)


def with_ratios(rows: Sequence[Row]) -> list[Row]:
    """Fill ``ratio`` (vaultmem median / peer median) on rows that name a vaultmem row."""
    medians = {row.name: row.median for row in rows}
    out: list[Row] = []
    for row in rows:
        ours = medians.get(row.compare_to) if row.compare_to else None
        if ours is not None and row.median:
            row = Row(
                row.name,
                row.group,
                row.seconds,
                row.max_rss_kib,
                row.note,
                row.error,
                row.compare_to,
                ours / row.median,
                row.cpu,
            )
        out.append(row)
    return out


def environment() -> dict[str, Any]:
    """What the numbers were measured on."""
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    ).stdout.strip()
    return {
        "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "cpus": os.cpu_count(),
        "commit": commit or None,
    }


def write_json(path: Path, rows: Sequence[Row], meta: Mapping[str, Any]) -> None:
    """Write the results document."""
    path.parent.mkdir(parents=True, exist_ok=True)
    doc = {"meta": dict(meta), "rows": [row.to_json() for row in rows]}
    path.write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")


def table_lines(rows: Sequence[Row]) -> list[list[str]]:
    """The table as cells: header first."""
    out = [["benchmark", "median", "min", "max", "cpu", "runs", "peak RSS", "vs peer", "notes"]]
    for row in rows:
        if row.error and not row.seconds:
            out.append([row.name, "-", "-", "-", "-", "0", "-", "-", row.error])
            continue
        ratio = "-"
        if row.ratio is not None:
            ratio = f"vaultmem/peer {_fmt_ratio(row.ratio)}"
        note = row.note if not row.error else f"{row.note}; FAILED: {row.error}".lstrip("; ")
        out.append(
            [
                row.name,
                _fmt_s(row.median),
                _fmt_s(min(row.seconds)),
                _fmt_s(max(row.seconds)),
                _fmt_s(row.cpu_median),
                str(len(row.seconds)),
                "-" if row.max_rss_kib is None else f"{_mib(row.max_rss_kib):.0f} MiB",
                ratio,
                note,
            ]
        )
    return out


def markdown_table(rows: Sequence[Row]) -> str:
    """The table as GitHub Markdown (for the README's performance section)."""
    cells = table_lines(rows)
    lines = ["| " + " | ".join(cells[0]) + " |", "|" + "---|" * len(cells[0])]
    lines += ["| " + " | ".join(c.replace("|", "\\|") for c in row) + " |" for row in cells[1:]]
    return "\n".join(lines) + "\n"


def print_table(rows: Sequence[Row], *, plain: bool = False) -> None:
    """Print the table with rich when it is there, else as aligned text."""
    cells = table_lines(rows)
    if not plain:
        try:
            from rich.console import Console
            from rich.table import Table
        except ImportError:
            plain = True
    if not plain:
        table = Table(show_lines=False)
        for i, head in enumerate(cells[0]):
            table.add_column(head, justify="right" if 1 <= i <= 6 else "left", overflow="fold")
        for row in cells[1:]:
            table.add_row(*row)
        Console(width=max(160, Console().width)).print(table)
        return
    widths = [max(len(row[i]) for row in cells) for i in range(len(cells[0]) - 1)]
    for row in cells:
        left = "  ".join(
            c.ljust(w) if i in (0, 7) else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths))
        )
        print(f"{left}  {row[-1]}")


def _cpu(samples: Sequence[Sample]) -> tuple[float, ...]:
    values = tuple(s.cpu for s in samples if s.cpu is not None)
    return values if len(values) == len(samples) else ()


def _peak(samples: Sequence[Sample]) -> int | None:
    values = [s.max_rss_kib for s in samples if s.max_rss_kib is not None]
    return max(values) if values else None


def _mib(kib: int | None) -> float | None:
    return None if kib is None else round(kib / 1024, 1)


def _fmt_s(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    if seconds < 1:
        return f"{seconds * 1000:.1f} ms"
    return f"{seconds:.2f} s"


def _fmt_ratio(ratio: float) -> str:
    return f"{ratio:.3f}x" if ratio < 0.1 else f"{ratio:.2f}x"
