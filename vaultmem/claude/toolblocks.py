"""The tool blocks of a transcript line: an assistant line's ``tool_use`` blocks (:class:`ToolCall`:
the command of a ``Bash`` call, the file of a ``Write``/``Edit``/``Read``..., what a structured
call's input says) and a user line's ``tool_result`` blocks (:class:`Outcome`: failed or not, its
first error line, moved to the background, stopped by the permissions, a structured call's result).

Pure and tolerant, like :mod:`transcript`, which reads the lines and sets :data:`SCRUB` (the
redaction of the read under way) and :data:`WANTED` for the duration of a read.
"""

from __future__ import annotations

from contextvars import ContextVar
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from vaultmem.claude import commitmsg
from vaultmem.mining import notices, toolresults
from vaultmem.notes.lazyre import lazy
from vaultmem.notes.privacy import strip_private, strip_wrappers
from vaultmem.notes.redact import DEFAULT as DEFAULT_REDACTION
from vaultmem.notes.redact import Redaction, Scrub

if TYPE_CHECKING:
    # Imported where a call or result is read: a read whose lines were all recorded before
    # (SessionEnd after the turn's Stop) builds no turn and needs none of its classes.
    from vaultmem.mining import structured

FILE_TOOLS = {
    "Write": "file_path",
    "Edit": "file_path",
    "MultiEdit": "file_path",
    "NotebookEdit": "notebook_path",
}
READ_TOOLS = {"Read": "file_path"}
COMMAND_MAX_CHARS = 200
RESULT_SCAN_CHARS = 64 * 1024  # of a tool's output, read for its error line
ERROR_MAX_CHARS = toolresults.ERROR_MAX_CHARS  # of an error line kept

SPACES_RE = lazy(r"\s+")
# The redaction of the read under way: set by parse_lines for its own duration, so the helpers
# that decode each field apply it without passing it down every call.
SCRUB: ContextVar[Scrub] = ContextVar("scrub", default=DEFAULT_REDACTION)
# The ids of the read's structured calls whose result is kept (structured.CallData.wants_result).
WANTED: ContextVar[frozenset[str] | set[str]] = ContextVar("wanted", default=frozenset())
_BACKGROUND_RE = lazy(
    r"\A\s*(?:Command running in background with ID\b|Command did not complete within its "
    r"\S+ timeout and was moved to the background\b)"
)


@dataclass(frozen=True)
class FileChange:
    """A file written or edited by a tool call."""

    path: str
    tool: str  # Write, Edit, MultiEdit or NotebookEdit


@dataclass(frozen=True)
class ToolCall:
    """One ``tool_use`` block of an assistant line."""

    id: str  # the tool_use id ("" when the block has none)
    tool: str  # Bash, Write, Edit, Read, Grep...
    command: str | None = None  # Bash: the command, one line, capped
    path: str | None = None  # file tools and Read: the file
    # Bash ``git commit`` with a message of several lines (a heredoc, a quoted ``-m``): the
    # message, Claude's own account of the change (redacted, private text out, capped)
    message: str | None = None
    # What a structured call's input says (AskUserQuestion, ExitPlanMode, TodoWrite, a plan
    # file written, a tracker's listing run from Bash): :mod:`structured`
    data: structured.CallData | None = None
    # What the call's input changed (:func:`changes`): a config-like file's ``key = value``
    # pairs, or a Bash command's parts that install something or change a setting; redacted
    changes: tuple[str, ...] = ()


@dataclass(frozen=True)
class Outcome:
    """One ``tool_result`` block: how the call with ``tool_use_id`` ended."""

    tool_use_id: str
    is_error: bool  # the result says so (``is_error``) or a non-zero ``Exit code``
    # The first error line: of a failure, or a line of the output that reads like one (a
    # FAILED, Traceback, ``…Error:`` line); a Bash command with one failed. One line, capped.
    error: str | None = None
    # A command Claude Code moved to the background: it has not ended yet (its end comes as a
    # ``<task-notification>`` prompt), so it neither failed nor passed.
    background: bool = False
    # A call Claude Code's permissions stopped, or the person rejected or interrupted: it never
    # ran, so it neither failed nor passed; ``error`` says why (notices.denial).
    denied: bool = False
    # The result of a structured call (an answer, an approval, a listing), redacted and capped.
    said: str | None = None


def texts(content: Any) -> list[str]:
    """The ``text`` blocks of a message's content (a string is one)."""
    if isinstance(content, str):
        return [content]
    if not isinstance(content, list):
        return []
    return [block["text"] for block in content
            if isinstance(block, dict) and block.get("type") == "text"
            and isinstance(block.get("text"), str)]


def call(block: dict[str, Any]) -> ToolCall | None:
    name, tool_input = block.get("name"), block.get("input")
    if not isinstance(name, str) or not isinstance(tool_input, dict):
        return None
    ident = block.get("id") if isinstance(block.get("id"), str) else ""
    key = FILE_TOOLS.get(name) or READ_TOOLS.get(name)
    if key is not None:
        path = tool_input.get(key)
        if not isinstance(path, str) or not strip_private(path).strip():
            return None
        path = SCRUB.get()(SPACES_RE.sub(" ", strip_private(path)).strip())
        return ToolCall(str(ident), name, path=path, data=_data(str(ident), name, tool_input),
                        changes=changes(name, path, tool_input))
    if name == "Bash":
        raw = tool_input.get("command")
        command = _command(raw)
        if command is None:
            return None
        return ToolCall(str(ident), name, command=command, message=commitmsg.message(raw, SCRUB.get()),
                        data=_data(str(ident), name, tool_input), changes=changes(name, str(raw), tool_input))
    return ToolCall(str(ident), name, data=_data(str(ident), name, tool_input))


def changes(name: str, subject: str, tool_input: dict[str, Any]) -> tuple[str, ...]:
    """What a call's input changed (issue 28), each text redacted whole before it is read:
    the pairs a file tool sets in a config-like file (``subject``: its path), the parts of a
    Bash command (``subject``: the command) that install something or change a setting."""
    def scrub(text: str) -> str:
        return SCRUB.get()(strip_private(text))

    if name == "Bash":
        from vaultmem.mining import settingcmds

        return settingcmds.parts(scrub(subject))
    if name not in ("Write", "Edit", "MultiEdit"):
        return ()
    from vaultmem.mining import configpairs

    if not configpairs.config_like(subject):
        return ()
    return configpairs.pairs_of(name, tool_input, scrub)


def _clean(text: str) -> str:
    return SCRUB.get()(strip_wrappers(strip_private(text)))


def _answers(said: str) -> str:
    """A kept result, the answers in it to AskUserQuestion's requests for a secret redacted."""
    scrub = SCRUB.get()
    return scrub.answers(said) if isinstance(scrub, Redaction) else said


def _data(ident: str, name: str, tool_input: dict[str, Any]) -> structured.CallData | None:
    """What a structured call's input says; its id is noted when its result is to be kept."""
    from vaultmem.mining import structured

    data = structured.call_data(name, tool_input, _clean)
    wanted = WANTED.get()
    if data is not None and data.wants_result and ident and isinstance(wanted, set):
        wanted.add(ident)
    return data


def _command(value: Any) -> str | None:
    if not isinstance(value, str):
        return None
    # Redacted whole, before the cut: a key cut in two would not be recognised.
    lines = [line.strip() for line in SCRUB.get()(strip_private(value)).splitlines()
             if line.strip()]
    if not lines:
        return None
    first = SPACES_RE.sub(" ", lines[0])
    more = len(lines) > 1
    if len(first) > COMMAND_MAX_CHARS:
        first, more = first[: COMMAND_MAX_CHARS - 1].rstrip(), True
    return first + " …" if more else first


REJECTED = "the user said:"  # in a rejected call's result, before the person's words


def outcomes(content: Any) -> tuple[Outcome, ...]:
    if not isinstance(content, list):
        return ()
    from vaultmem.mining import structured

    found: list[Outcome] = []
    for block in content:
        if not isinstance(block, dict) or block.get("type") != "tool_result":
            continue
        ident = block.get("tool_use_id")
        if not isinstance(ident, str) or not ident:
            continue
        output = _result_text(block.get("content"))
        if _BACKGROUND_RE.match(output):
            found.append(Outcome(ident, False, None, background=True))
            continue
        denial = notices.denial(output) if block.get("is_error") is True else None
        if denial is not None:  # the words the person rejected it with, if any (mining/prompts)
            said = _clean(output)[:structured.RESULT_KEEP_CHARS] if REJECTED in output else None
            found.append(Outcome(ident, False, SCRUB.get()(denial), denied=True, said=said))
            continue
        failed, error = toolresults.failure(output, block.get("is_error") is True,
                                           SCRUB.get(), said_before=True)
        if failed and (error is None or error.startswith("Exit code")):
            error = _check_named(output) or error
        said = _answers(_clean(output))[:structured.RESULT_KEEP_CHARS] if not failed and (
            ident in WANTED.get() or structured.result_shaped(output)) else None
        found.append(Outcome(ident, failed, error, said=said))
    return tuple(found)


def _check_named(output: str) -> str | None:
    """The line naming the check a hook runner ran, for a failure with no error line (a git
    hook blocking a commit: ``Running gitleaks scan...``): its gotcha then quotes what blocked
    it, which the failure hook matches (:func:`errorline.check_line`), not ``Exit code 1``."""
    from vaultmem.claude.errorline import check_line

    line = check_line(strip_wrappers(strip_private(output)))
    if line is None:
        return None
    line = SCRUB.get()(line)
    return line if len(line) <= ERROR_MAX_CHARS else line[:ERROR_MAX_CHARS - 1].rstrip() + "\u2026"


def _result_text(content: Any) -> str:
    if isinstance(content, str):
        return content[:RESULT_SCAN_CHARS]
    parts: list[str] = []
    size = 0
    for text in texts(content):
        parts.append(text[: RESULT_SCAN_CHARS - size])
        size += len(parts[-1])
        if size >= RESULT_SCAN_CHARS:
            break
    return "\n".join(parts)
