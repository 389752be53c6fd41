"""The message of a ``git commit`` a Bash call runs: Claude's own account of the change (pure).

Claude Code commits with ``git commit -m "$(cat <<'EOF' … EOF)"``; a quoted ``-m`` of several
lines says as much. Split from :mod:`transcript`, which reads each ``tool_use`` with it.
"""

from __future__ import annotations

from typing import Any

from vaultmem.notes.lazyre import lazy
from vaultmem.notes.privacy import strip_private
from vaultmem.notes.redact import Scrub

COMMIT_MESSAGE_MAX_CHARS = 4000
# ``git [-C dir] [-c k=v] commit``: an option's value never starts with "-" (no backtracking)
_COMMIT_RE = lazy(r"(?:^|[;&|(]\s*|\s)git\s+(?:-\S+\s+(?:[^\s-]\S*\s+)?)*?commit\b")
# git commit -m "$(cat <<'EOF' … EOF)" (Claude Code's own way), or a quoted -m of several lines
_HEREDOC_RE = lazy(r"<<-?[ \t]*(['\"]?)(?P<tag>\w+)\1[^\n]*\n")
_QUOTED_MESSAGE_RE = lazy(r"(?:-m|--message)(?:\s+|=)(?:\"(?P<body>[^\"]*)\"|'(?P<single>[^']*)')")
COMMIT_SCAN_CHARS = 16 * 1024  # of a command, looked at for a commit message


def message(value: Any, scrub: Scrub) -> str | None:
    """The message of a ``git commit`` command when it has several lines, else None; redacted
    with ``scrub``, private text out, at most COMMIT_MESSAGE_MAX_CHARS."""
    if not isinstance(value, str) or "commit" not in value or "\n" not in value:
        return None
    value = value[:COMMIT_SCAN_CHARS]
    commit = _COMMIT_RE.search(value)
    if commit is None:
        return None
    # The message follows the commit word (a heredoc before it feeds another command).
    body: str | None = None
    heredoc = _HEREDOC_RE.search(value, commit.end())
    if heredoc is not None:
        lines = value[heredoc.end():].split("\n")
        end = next((n for n, line in enumerate(lines) if line.strip() == heredoc.group("tag")),
                   None)
        body = "\n".join(lines[:end]) if end is not None else None
    else:
        quoted = _QUOTED_MESSAGE_RE.search(value, commit.end())
        body = (quoted.group("body") or quoted.group("single")) if quoted else None
    if not body:
        return None
    text = scrub(strip_private(body)).strip()
    return text[:COMMIT_MESSAGE_MAX_CHARS] if "\n" in text else None
