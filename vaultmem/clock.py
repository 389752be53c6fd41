"""The one place that reads the time.

``VAULTMEM_NOW`` (an ISO datetime, e.g. ``2026-11-22T10:30:00``) fixes the clock for tests and
reproducible runs. A naive value is taken as local time.
"""

from __future__ import annotations

import os
from datetime import date, datetime

from .errors import ConfigError

ENV_NOW = "VAULTMEM_NOW"


def now() -> datetime:
    """The current local time as an aware datetime (``VAULTMEM_NOW`` wins)."""
    fixed = os.environ.get(ENV_NOW)
    if fixed:
        try:
            value = datetime.fromisoformat(fixed.strip().replace("Z", "+00:00"))
        except ValueError:
            raise ConfigError(f"{ENV_NOW} is not an ISO datetime: {fixed!r}") from None
        return value if value.tzinfo else value.astimezone()
    return datetime.now().astimezone()


def today() -> date:
    """The local date of :func:`now`."""
    return now().date()
