"""Start measured children from a small process, so their peak RSS is their own.

On Linux a child's ``ru_maxrss`` is at least the resident size of the process that spawned it:
``exec`` records the high-water mark of the memory it replaces, and a forked (or vforked) child's
memory is the parent's. The bench process grows (generated vaults, in-process compaction), so its
children would all report its size. This helper runs as its own small interpreter, reads one JSON
request per line on stdin, starts the command, reaps it with ``os.wait4`` and answers one JSON line:
``{"seconds": wall, "maxrss_kib": peak, "code": exit code}`` (or ``{"error": ...}``).

Standard library only: it runs as a script (``python -I -S bench/spawner.py``).
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time
from typing import Any

# Imports are kept to the minimum, and the helper runs as ``python -I -S``: its resident size
# (about 10 MiB) is the floor of every child's ru_maxrss, below a bare ``python3 -c pass``.


def measure_child(request: dict[str, Any]) -> dict[str, Any]:
    """Run one command: wall time from spawn to reap, peak RSS (KiB), CPU time (user + system)
    and exit code."""
    fds = [
        os.open(request["stdin"], os.O_RDONLY),
        os.open(request["stdout"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600),
        os.open(request["stderr"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600),
    ]
    actions = [(os.POSIX_SPAWN_DUP2, fd, target) for target, fd in enumerate(fds)]
    here = os.getcwd()
    pid = 0

    def kill(_signum: int, _frame: object) -> None:
        if pid:
            os.kill(pid, signal.SIGKILL)

    try:
        # posix_spawn has no cwd argument (before 3.13): the helper is single-threaded.
        if request.get("cwd"):
            os.chdir(request["cwd"])
        env = request.get("env") or dict(os.environ)
        started = time.perf_counter()
        pid = os.posix_spawnp(request["argv"][0], request["argv"], env, file_actions=actions)
        # A bounded run: the timer kills a child that hangs; wait4 then reaps it.
        signal.signal(signal.SIGALRM, kill)
        signal.setitimer(signal.ITIMER_REAL, float(request.get("timeout", 900.0)))
        try:
            _, status, usage = os.wait4(pid, 0)
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
        elapsed = time.perf_counter() - started
    finally:
        os.chdir(here)
        for fd in fds:
            os.close(fd)
    # Linux reports ru_maxrss in KiB, macOS in bytes.
    rss = usage.ru_maxrss // 1024 if sys.platform == "darwin" else usage.ru_maxrss
    return {
        "seconds": elapsed,
        "maxrss_kib": rss,
        "cpu_seconds": usage.ru_utime + usage.ru_stime,
        "code": os.waitstatus_to_exitcode(status),
    }


def main() -> int:
    """Serve requests until stdin closes."""
    for line in sys.stdin:
        try:
            answer = measure_child(json.loads(line))
        except Exception as err:  # noqa: BLE001 - reported to the bench, which raises
            answer = {"error": f"{type(err).__name__}: {err}"}
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
