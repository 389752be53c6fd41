"""A turn's work-log lines of what its tool inputs changed (pure; issue 28): one line per config
file with the values set, one per command part that installed something or changed a setting.

The caps keep a 500-line rewrite from flooding the note: at most :data:`FILES_SHOWN` files and
:data:`PAIRS_SHOWN` pairs a file (a line no longer than :data:`LINE_MAX_CHARS`, so that recall
shows it whole), at most :data:`SETTINGS_SHOWN` commands, the rest counted. A command part the
entry's ``Ran`` lines show as it is is not said twice.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from vaultmem.mining.configpairs import ARROW, key_of
from vaultmem.mining.settingcmds import label
from vaultmem.notes.inline import code_span, one_line

from .toolblocks import ToolCall
from .turncomponents import shown

FILES_SHOWN = 6
PAIRS_SHOWN = 6
SETTINGS_SHOWN = 8
LINE_MAX_CHARS = 280


def keep(changed: dict[str, list[str]], settings: list[str], call: ToolCall,
         cwd: str | None) -> None:
    """What a call that ran changed, added to its turn's ``changed`` (config file as shown ->
    its pairs; a value changed later in the turn, ``key: a → b``, takes the place of the pair
    that set its key: a key set twice without one, a YAML list's ``name:``, is two pairs) or
    ``settings`` (command parts, each once)."""
    if call.command is not None:
        settings.extend(p for p in dict.fromkeys(call.changes) if p not in settings)
        return
    if call.path is None:
        return
    pairs = changed.setdefault(shown(call.path, cwd), [])
    for pair in call.changes:
        keys = [key_of(p) for p in pairs]
        if ARROW in pair and key_of(pair) in keys:
            pairs[keys.index(key_of(pair))] = pair
        else:
            pairs.append(pair)


def lines(changed: Mapping[str, Sequence[str]], settings: Sequence[str],
          shown_commands: Sequence[str]) -> list[str]:
    """The ``- Set in `file`: …`` lines of a turn, then its ``- Installed: …``, ``- Removed: …``
    and ``- Set: …`` lines."""
    out = [_file_line(path, pairs) for path, pairs in list(changed.items())[:FILES_SHOWN] if pairs]
    if len(changed) > FILES_SHOWN:
        out.append(f"- Set values in {len(changed) - FILES_SHOWN} more files")
    said = set(shown_commands)
    parts = [p for p in settings if one_line(p) not in said]
    out.extend(f"- {label(p)}: {code_span(one_line(p))}" for p in parts[:SETTINGS_SHOWN])
    if len(parts) > SETTINGS_SHOWN:
        out.append(f"- {len(parts) - SETTINGS_SHOWN} more settings changed")
    return out


def _file_line(path: str, pairs: Sequence[str]) -> str:
    line = f"- Set in {code_span(one_line(path))}:"
    shown = 0
    for pair in pairs[:PAIRS_SHOWN]:
        span = code_span(one_line(pair))
        if shown and len(line) + len(span) + 2 > LINE_MAX_CHARS:
            break
        line += ("," if shown else "") + f" {span}"
        shown += 1
    more = len(pairs) - shown
    return line + (f" (+{more} more)" if more else "")
