"""A turn's decision lines of the states it left set up (pure; the lead's decision of stop 49):
what its calls set (``mining.setups``), one line per component, each under what it configures.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from .workentry import LoggedTurn

if TYPE_CHECKING:
    from vaultmem.mining.setups import Setup


def settled(found: Sequence[Setup]) -> Sequence[Setup]:
    """The setups of a read left in place (:func:`setups.settled`); () when none was set."""
    if not found:
        return ()
    from vaultmem.mining import setups

    return setups.settled(found)


def lines(turn: LoggedTurn, left: set[int], named: Sequence[tuple[str, str]],
          fixed: Sequence[str]) -> list[tuple[str, tuple[str, ...]]]:
    """(decision line, components) per component of the states ``turn`` set up that are
    ``left`` in place (ids); a state a fix of the turn (``fixed``) names is that fix's: one
    fact, one line. ``named``: the turn's (path, component) pairs."""
    if not turn.setups:
        return []
    from vaultmem.mining import setups

    by: dict[tuple[str, ...], list[Setup]] = {}
    for s in turn.setups:
        if id(s) in left and not (s.source and any(s.source in f for f in fixed)):
            by.setdefault(configures(s, named), []).append(s)
    return [(setups.joined(group), names) for names, group in by.items()]


def configures(setup: Setup, named: Sequence[tuple[str, str]]) -> tuple[str, ...]:
    """The component a state set up configures: its tool, service or package, else its file's
    component, else the tool the file's path names (none: the fallback entity)."""
    from vaultmem.mining import setups

    of_file = [name for path, name in named if path == setup.path]
    subject = setup.subject or (of_file[0] if of_file else setups.tool_of(setup.path))
    return (subject,) if subject else ()
