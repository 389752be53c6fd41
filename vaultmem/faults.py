"""Fault injection points for crash and failure tests.

Library code calls :func:`checkpoint` at the boundaries that matter (each compaction step, each
atomic write). Tests arm a checkpoint with :func:`arm` (in-process) or the ``VAULTMEM_FAULT``
environment variable (in a subprocess): ``VAULTMEM_FAULT=compact:archive`` raises there,
``VAULTMEM_FAULT=compact:archive:kill`` kills the process with SIGKILL there, and
``VAULTMEM_FAULT=write:enospc`` makes the atomic write fail as on a full disk.
Unarmed, a checkpoint costs one dict lookup.
"""

from __future__ import annotations

import errno
import os

ENV_FAULT = "VAULTMEM_FAULT"

_armed: dict[str, str] = {}


class InjectedFault(RuntimeError):
    """Raised at an armed checkpoint."""


def arm(name: str, action: str = "raise") -> None:
    """Arm checkpoint ``name``; action is ``raise``, ``kill`` or ``enospc``."""
    _armed[name] = action


def disarm(name: str | None = None) -> None:
    """Disarm one checkpoint, or all of them."""
    if name is None:
        _armed.clear()
    else:
        _armed.pop(name, None)


def _from_env() -> dict[str, str]:
    spec = os.environ.get(ENV_FAULT, "")
    out: dict[str, str] = {}
    for item in filter(None, (s.strip() for s in spec.split(","))):
        name, _, action = item.rpartition(":")
        if action in ("raise", "kill", "enospc") and name:
            out[name] = action
        else:
            out[item] = "raise"
    return out


def checkpoint(name: str) -> None:
    """Do what the armed fault at ``name`` says; nothing when unarmed."""
    action = _armed.get(name)
    if action is None and ENV_FAULT in os.environ:
        action = _from_env().get(name)
    if action is None:
        return
    if action == "kill":
        import signal  # an armed test's kill only: kept off the hooks' start-up

        os.kill(os.getpid(), signal.SIGKILL)
    if action == "enospc":
        raise OSError(errno.ENOSPC, "No space left on device (injected)")
    raise InjectedFault(f"injected fault at {name}")
