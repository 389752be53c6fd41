"""When a compaction inside a hook stops and hands the rest to a detached ``vaultmem compact``.

Claude Code cancels a SessionEnd hook past its budget (1.5 s from spawn) and reports "Hook
cancelled". On a loaded machine a compaction that fits easily when idle does not: the hook then
gives a :class:`Deadline` (a ``time.monotonic()`` value) and the run looks at it before each of
its writes (each entity note, the project index, the archive). When the time left is shorter
than the longest step the run has taken so far (the reading and planning before the first write
count as one), the step would likely end past the deadline: the run stops there, before the
write, and reports ``handed over``; the hook starts the detached compaction and exits 0.

Stopping there is safe because compaction is crash-convergent (``compactor``): every write is
atomic and idempotent, so a run stopped between two writes leaves the vault as a run killed
there would, and the detached run converges to what one uninterrupted run writes. Once the
archive copy is written the run finishes (its verification and the original's mark are two
short steps): a note changed between a written archive and its mark would find a different
archive on the re-run and fail, so that window is never left open for seconds.
"""

from __future__ import annotations

import time
from collections.abc import Callable

HANDED_OVER = "handed over"


class HandOver(Exception):  # a signal inside one run, never seen outside it
    """Raised by :meth:`Deadline.check` inside a compaction run; the run catches it and reports
    ``handed over``. Deliberately not a ``VaultmemError``: the run's step handlers, which mark
    a note ``compaction_failed``, must not catch it."""


class Deadline:
    """A point in ``timer``'s time that a compaction run must not pass, and its slowest step."""

    def __init__(self, at: float, timer: Callable[[], float] = time.monotonic) -> None:
        self.at = at
        self.timer = timer
        self.last = timer()
        self.slowest = 0.0

    def passed(self) -> bool:
        """Whether the deadline is already reached (then not even reading the note is begun)."""
        return self.timer() >= self.at

    def left(self) -> float:
        """Seconds left, never negative (a lock wait is bounded by it)."""
        return max(0.0, self.at - self.timer())

    def check(self) -> None:
        """Before a write: raise HandOver unless the time left holds the slowest step so far."""
        now = self.timer()
        self.slowest = max(self.slowest, now - self.last)
        self.last = now
        if now + self.slowest >= self.at:
            raise HandOver
