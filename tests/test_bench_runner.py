"""The benchmark runner: child measurement (own peak RSS, failures, timeouts), rows and ratios."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.runner import (
    SPAWNER,
    Case,
    CommandFailed,
    Row,
    Sample,
    markdown_table,
    measure,
    with_ratios,
    write_json,
)
from bench.runner import run_command as run

MIB = 1024  # ru_maxrss is in KiB


@pytest.fixture(autouse=True)
def _stop_spawner() -> Iterator[None]:
    yield
    SPAWNER.close()


def test_child_output_and_input_go_through_files() -> None:
    sample = run(
        ["sh", "-c", "cat; echo; pwd; echo $BENCH_X"],
        stdin=b"payload",
        cwd=ROOT,
        env={"PATH": "/usr/bin:/bin", "BENCH_X": "42"},
    )
    assert sample.stdout == f"payload\n{ROOT}\n42\n"
    assert sample.seconds > 0


def test_peak_rss_is_the_childs_own_not_the_benchs() -> None:
    ballast = bytearray(400 * 1024 * 1024)  # the bench process is big...
    ballast[::4096] = b"x" * len(ballast[::4096])
    small = run([sys.executable, "-c", "pass"])
    big = run(
        [sys.executable, "-c", "b = bytearray(200 * 2**20); b[::4096] = b'x' * len(b[::4096])"]
    )
    assert small.max_rss_kib is not None and big.max_rss_kib is not None
    assert small.max_rss_kib < 100 * MIB  # ...but a bare interpreter is reported as small
    assert big.max_rss_kib > 200 * MIB
    del ballast


def test_failures_raise_with_the_reason() -> None:
    with pytest.raises(CommandFailed, match="exit 3: boom"):
        run([sys.executable, "-c", "import sys; print('boom', file=sys.stderr); sys.exit(3)"])
    with pytest.raises(CommandFailed, match="No such file"):
        run(["/nonexistent/command"])
    with pytest.raises(CommandFailed, match="timed out"):
        run(["sleep", "30"], timeout=0.3)
    # The helper survives failures and keeps serving.
    assert run(["sh", "-c", "echo ok"]).stdout == "ok\n"


def test_measure_warms_up_then_runs_and_turns_errors_into_rows() -> None:
    calls: list[int] = []

    def one() -> Sample:
        calls.append(1)
        return Sample(0.01 * len(calls), 2048)

    row = measure(Case("ok", "vaultmem", one, note="n", check=lambda: "checked"), 3)
    assert len(calls) == 4  # one untimed warm-up
    assert row.seconds == (0.02, 0.03, 0.04)
    assert row.median == 0.03 and row.max_rss_kib == 2048
    assert row.note == "n; checked" and row.error is None

    def broken() -> Sample:
        raise RuntimeError("no such command")

    bad = measure(Case("bad", "vaultmem", broken), 3)
    assert bad.seconds == () and bad.error == "RuntimeError: no such command"
    fixed = measure(Case("fixed", "peer", one, runs=1, warmup=False), 5)
    assert len(fixed.seconds) == 1


def test_ratios_json_and_markdown(tmp_path: Path) -> None:
    rows = with_ratios(
        [
            Row("ours", "vaultmem", (1.0, 2.0, 3.0)),
            Row("theirs", "peer", (8.0, 8.0), compare_to="ours"),
            Row("missing", "peer", error="not installed: no Python 3.12", compare_to="ours"),
        ]
    )
    assert rows[1].ratio == pytest.approx(0.25)
    assert rows[2].ratio is None
    out = tmp_path / "r.json"
    write_json(out, rows, {"runs": 3})
    doc = json.loads(out.read_text())
    assert doc["meta"] == {"runs": 3}
    assert doc["rows"][0]["median_ms"] == 2000.0 and doc["rows"][0]["runs"] == 3
    assert doc["rows"][1]["ratio_vaultmem_over_peer"] == 0.25
    assert doc["rows"][2]["error"].startswith("not installed")
    table = markdown_table(rows).splitlines()
    assert len(table) == 2 + 3
    assert "vaultmem/peer 0.25x" in table[3]
    assert "not installed: no Python 3.12" in table[4]
