"""The SessionEnd hook's deadline, on the clock Claude Code keeps: from the process's start.

Claude Code cancels a SessionEnd hook 1.5 s after it spawned it ("Hook cancelled"), and on a
loaded machine Python's start-up alone can take most of that. So the deadline counts from the
process's start (Linux: ``/proc/self/stat``; elsewhere from the hook door's entry), and is
``SESSION_END_DEADLINE_S`` after it unless ``VAULTMEM_SESSION_END_DEADLINE`` (seconds, ``0``:
never compact inline; tests force either branch with it) says otherwise. A compaction that would
pass it is handed to the detached ``vaultmem compact`` (``memory/handover.py``); what is left
after the deadline (one step, starting that process, Python's exit) fits in the rest.
"""

from __future__ import annotations

import os
import time

ENV_DEADLINE = "VAULTMEM_SESSION_END_DEADLINE"
# Measured at load 7-11 on 2 cores with a 600-line note: inline the hook took 2.5-3.7 s; with 1 s
# 1.2-1.6 s (the reading and planning begun just before it run past it), with 0.8 s 0.8-1.3 s.
# Idle, a hook reaches compaction in about 0.3 s and a 600-line one fits before 0.8 s.
SESSION_END_DEADLINE_S = 0.8


def process_age() -> float | None:
    """Seconds since this process started, or None where the system does not say (no /proc)."""
    try:
        with open("/proc/self/stat", "rb") as f:
            stat = f.read()
        # The fields after the command name (which may hold spaces and parentheses): the 22nd
        # field of the line, the start in clock ticks after boot, is the 20th of them.
        ticks = int(stat[stat.rindex(b")") + 2:].split()[19])
        age = time.clock_gettime(time.CLOCK_BOOTTIME) - ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, AttributeError):
        return None
    return max(age, 0.0)


def session_end_deadline(entered: float, warnings: list[str]) -> float:
    """The ``time.monotonic()`` value SessionEnd's inline compaction must not pass.

    ``entered``: ``time.monotonic()`` at the hook door's entry, where the process's age is not
    known. A value of the variable that is not a number of seconds is said once and ignored."""
    seconds = SESSION_END_DEADLINE_S
    raw = os.environ.get(ENV_DEADLINE, "").strip()
    if raw:
        try:
            seconds = float(raw)  # "inf": no deadline
            if not seconds >= 0:  # negative or NaN
                raise ValueError(raw)
        except ValueError:
            seconds = SESSION_END_DEADLINE_S
            warnings.append(f"{ENV_DEADLINE}={raw!r} is not a number of seconds; "
                            f"{SESSION_END_DEADLINE_S:g} s taken")
    age = process_age()
    started = entered if age is None else time.monotonic() - age
    return started + seconds
