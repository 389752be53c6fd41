"""How many examples a property test tries: all it names in CI (``VAULTMEM_FULL_SUITE=1``) and
with ``pytest --slow``, a fifth of them (at least 50) in a contributor's default run, where the
properties still run on every change but the long search for a rare case is left to CI."""

from __future__ import annotations

import os

FULL_SUITE_ENV = "VAULTMEM_FULL_SUITE"
full = os.environ.get(FULL_SUITE_ENV, "") not in ("", "0")  # conftest sets it for --slow


def examples(n: int) -> int:
    """``n`` in a full run, else a fifth of it (at least 50, never more than ``n``)."""
    return n if full else min(n, max(n // 5, 50))
