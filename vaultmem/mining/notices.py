"""Claude Code's own notices in a transcript (pure): usage limits and API errors written as
Claude's reply, and tool calls its permission system stopped before they ran.

Neither is the session's work. A usage-limit notice ("You've hit your limit · resets 5am",
"Claude AI usage limit reached|1767225600") or an API error ("API Error: 529 …") is never an
answer or an outcome. A tool call that was denied (it needs approval, a rule denies it, the
person rejected it, it would write outside the allowed folders), interrupted, refused (a file
too large for one read) or never started by the shell (Windows Git Bash failing to fork) never
ran: it is no failure of the command, so it neither stays "failing" nor makes a gotcha when a
later run passes. Claude Code flags its API error replies ``isApiErrorMessage``; the texts below are
those of Claude Code 2.1 and the older forms seen in real transcripts, for lines without it.
"""

from __future__ import annotations

import re

from vaultmem.notes.lazyre import lazy

NOTICE_MAX_CHARS = 400  # a notice is one short line; a longer reply is Claude's own text
_API_NOTICE_RE = lazy(
    r"\A\s*(?:Claude AI usage limit reached\b|"
    r"(?:You've hit your|You're out of|You have reached your|You've reached your)"
    r" (?:\w+ ){0,3}(?:limit|usage)\b|"
    r"(?:\d+-hour|Weekly|Opus weekly|Sonnet weekly|Session|Usage|Daily) limit reached\b|"
    r"API Error(?: \(\S+\))?:\s|Prompt is too long\s*\Z|Credit balance is too low\b|"
    r"Invalid API key\b|OAuth token (?:has )?(?:expired|revoked)\b|Request timed out\.?\s*\Z)",
    re.IGNORECASE,
)
_DENIED_RE = lazy(
    r"\A(?:This (?:Bash )?command (?:requires approval|contains multiple operations\. The "
    r"following part requires approval)|.{0,80}\brequires approval for this\b|"
    r"Permission to use \S+ .{0,400}?has been (?:auto-)?denied|"
    r"Permission for this action (?:has been|was) denied|"
    r"Claude requested permissions to .{1,400}?, but you haven't granted it yet|"
    r"The user doesn't want to (?:proceed with this tool use|take this action right now)|"
    r"\[Request interrupted by user(?: for tool use)?\]|"
    r"(?:\S+ in|cd to|Output redirection to) '[^'\n]{1,400}' was blocked\b|"
    r"Glob patterns are not allowed in write operations|"
    r"Agent type '[^'\n]+' has been denied|"
    # A file too large for one read: Claude Code refused it, so the model reads it in parts.
    r"File content \([^)\n]{1,40}\) exceeds maximum allowed (?:tokens|size)\b|"
    # The shell never started the command: Windows Git Bash's path conversion or fork failed.
    r"Command failed: cygpath\b|\d+ \[main\] \S+ (?:\(\d+\) child_copy: |\d+ dofork: ))"
)
# Of those, the ones where the machine, not a person or a permission, stopped the command.
_NOT_STARTED_RE = lazy(
    r"\A(?:Command failed: cygpath\b|\d+ \[main\] \S+ (?:\(\d+\) child_copy: |\d+ dofork: )|"
    r"The program could not start\b)")
# Windows' STATUS_DLL_INIT_FAILED (0xC0000142): the program could not start, so it said nothing.
_NOT_STARTED = "Exit code 3221225794"
_API_BODY_RE = lazy(r"\bAPI Error(?: \(\S+\))?: \d{3} \{")
_SKIPPED_RE = lazy(r"\A(?:Exit code \d+|Error:?|</?tool_use_error>)?\s*\Z")
_TAG_RE = lazy(r"</?tool_use_error>")


def api_notice(text: str) -> bool:
    """Whether a reply is Claude Code's usage-limit or API error notice, not Claude's words."""
    return len(text) <= NOTICE_MAX_CHARS and _API_NOTICE_RE.match(text) is not None


def shown(text: str) -> str:
    """A notice as one line, at most NOTICE_MAX_CHARS; an API error's JSON body read as its
    error's type and message (``API Error: 529 overloaded_error: Overloaded``)."""
    line = _api_body_read(" ".join(text.split()))
    return line if len(line) <= NOTICE_MAX_CHARS else line[: NOTICE_MAX_CHARS - 1] + "…"


def _api_body_read(line: str) -> str:
    """``API Error: 401 {"type":"error","error":{"type":…,"message":…},"request_id":…}``
    with the body replaced by ``type: message``; the line as it is when the body is no such
    JSON."""
    m = _API_BODY_RE.search(line)
    if m is None:
        return line
    import json  # only an API error notice with a body reads it

    try:
        body, end = json.JSONDecoder().raw_decode(line, m.end() - 1)
    except ValueError:
        return line
    error = body.get("error") if isinstance(body, dict) else None
    if not isinstance(error, dict) or not isinstance(error.get("message"), str):
        return line
    kind = error.get("type")
    said = f"{kind}: {error['message']}" if isinstance(kind, str) and kind else error["message"]
    return line[: m.end() - 1] + said + line[end:]


def not_started(line: str) -> bool:
    """Whether a :func:`denial` line says the machine never started the command (the shell's
    fork or path conversion failed, the program could not load): a failure of the environment,
    which the session may fix, unlike a refusal or an interrupt."""
    return _NOT_STARTED_RE.match(line) is not None


def denial(output: str) -> str | None:
    """The line of a tool result saying the call never ran (denied by permissions, rejected or
    interrupted by the person, refused, not started: its first line that is not ``Exit code N``,
    or the exit code of a program that could not start), else None."""
    for line in output[:2000].splitlines():
        line = _TAG_RE.sub("", line).strip().removeprefix("Error: ")
        if line == _NOT_STARTED:
            return "The program could not start (exit code 3221225794, STATUS_DLL_INIT_FAILED)"
        if _SKIPPED_RE.match(line):
            continue
        return shown(line) if _DENIED_RE.match(line) is not None else None
    return None
