"""The end of a background command, as Claude Code tells it to the model (pure).

A command moved to the background ends with a user line of Claude Code's own:
``<task-notification> … <tool-use-id>toolu_…</tool-use-id> <status>completed</status>
<summary>Background command "…" completed (exit code 0)</summary> …``. It is no prompt
(:func:`records.notification`), but the outcome of the call it names.
"""

from __future__ import annotations

import re

from vaultmem.notes.inline import one_line
from vaultmem.notes.lazyre import lazy

from .records import notification
from .toolblocks import Outcome

_CALL_RE = lazy(r"<tool-use-id>\s*([^<\s]+)\s*</tool-use-id>")
_STATUS_RE = lazy(r"<status>\s*(\w+)\s*</status>")
_EXIT_RE = lazy(r"\bexit code (\d+)")
_SUMMARY_RE = lazy(r"<summary>\s*(.*?)\s*</summary>", re.DOTALL)


def background_end(prompt: str | None) -> Outcome | None:
    """The outcome a ``<task-notification>`` line reports for the background command it names
    (an empty id when it names none); None when the line is not one."""
    if not prompt or not notification(prompt):
        return None
    call = _CALL_RE.search(prompt)
    status = _STATUS_RE.search(prompt)
    code = _EXIT_RE.search(prompt)
    failed = (status is not None and status.group(1).casefold() == "failed") or (
        code is not None and code.group(1) != "0")
    summary = _SUMMARY_RE.search(prompt)
    error = one_line(summary.group(1)) if failed and summary else None
    return Outcome(call.group(1) if call else "", failed, error)
