"""Claude Code transcript (JSONL) -> turns: prompts, files changed, commands, decisions, gotchas.

Pure and tolerant: nothing here raises on bad input. A line that is not a JSON object counts in
``skipped_lines``; a line of a type vaultmem does not read (``attachment``, ``queue-operation``,
``last-prompt``, ``system``, ``summary``, ...) is passed over silently. ``read`` is the only I/O.

What a turn holds (DESIGN §6):
- ``user`` lines: the prompt text (a string, or the ``text`` blocks of a list). ``tool_result``
  blocks are not prompts. ``isMeta`` lines and ``isSidechain`` (sub-agent) lines are noise.
  ``<private>`` text and Claude Code's own tags (``<system-reminder>``, ``<command-…>``,
  ``<local-command-…>``) are removed together with their content.
- ``assistant`` lines: ``tool_use`` blocks of the file-changing tools and of ``Bash``, and the
  ``Decision:`` / ``Gotcha:`` notes of the text blocks.

A note is the text after a ``Decision:`` or ``Gotcha:`` label (case-sensitive, optionally in
``**bold**``). The label counts at the start of a line (after a list bullet or quote marker) or
right after the end of a sentence (``.``, ``!`` or ``?`` then a space). The note runs up to the next
such label or the end of the line, so ``Decision: use X because Y. Gotcha: Z.`` gives the decision
``use X because Y.`` and the gotcha ``Z.``.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import stat
from collections.abc import Collection, Iterable, Iterator
from dataclasses import dataclass, replace
from os import PathLike
from typing import Any, BinaryIO

from ..privacy import clean_prompt, strip_private

FILE_TOOLS = {
    "Write": "file_path",
    "Edit": "file_path",
    "MultiEdit": "file_path",
    "NotebookEdit": "notebook_path",
}
COMMAND_MAX_CHARS = 200

_SPACES_RE = re.compile(r"\s+")
# Where a label may start: the start of a line (after bullets, quotes, numbering) or the end of a
# sentence. The label may be in Markdown bold (``**Decision:**``, ``**Decision**:``).
_LABEL_RE = re.compile(
    r"(?:^[ \t]*(?:(?:[-*+>]|\d+[.)])[ \t]+)*|(?<=[.!?])[ \t]+)"
    r"(?:\*\*|__)?(?P<label>Decision|Gotcha)(?:\*\*|__)?:(?:\*\*|__)?[ \t]*",
    re.MULTILINE,
)


@dataclass(frozen=True)
class FileChange:
    """A file written or edited by a tool call."""

    path: str
    tool: str  # Write, Edit, MultiEdit or NotebookEdit


@dataclass(frozen=True)
class Turn:
    """What one transcript line contributes to the session note."""

    uuid: str
    timestamp: str | None
    prompt: str | None
    files: tuple[FileChange, ...] = ()
    commands: tuple[str, ...] = ()
    decisions: tuple[str, ...] = ()
    gotchas: tuple[str, ...] = ()


@dataclass(frozen=True)
class Transcript:
    """The turns of a transcript, in file order, and what was passed over."""

    turns: tuple[Turn, ...]
    first_prompt: str | None  # the first prompt of the whole file, skipped uuids included
    skipped_lines: int  # lines that are not a JSON object (partial, junk, binary)
    boundaries: int  # compact_boundary system lines seen
    end: int = 0  # byte offset just past the last complete line read (where the next read starts)


def last_assistant_notes(message: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The (decisions, gotchas) of an assistant message, e.g. the Stop payload's last message."""
    if not isinstance(message, str):
        return (), ()
    return _notes(message)


def note_key(kind: str, note: str) -> str:
    """The dedup key of one decision or gotcha taken from a Stop payload (kept in ``ingested``)."""
    return f"{kind}:" + hashlib.sha256(note.encode("utf-8")).hexdigest()[:16]


def with_last_message(
    turns: Iterable[Turn], message: str | None, ingested: Collection[str]
) -> tuple[tuple[Turn, ...], frozenset[str]]:
    """``turns`` plus what the Stop payload's last message adds; and the keys to mark ingested.

    Claude Code can run the Stop hook before the final assistant line reaches the transcript.
    The payload's ``last_assistant_message`` then carries that line's notes: those the transcript
    turns do not hold come as one extra turn, and every note of the message gets a key
    (:func:`note_key`) so the transcript line, when a later hook reads it, does not add them again.
    """
    decisions, gotchas = last_assistant_notes(message) if message else ((), ())
    kept: list[Turn] = []
    for turn in turns:
        d = tuple(x for x in turn.decisions if note_key("decision", x) not in ingested)
        g = tuple(x for x in turn.gotchas if note_key("gotcha", x) not in ingested)
        kept.append(turn if (d, g) == (turn.decisions, turn.gotchas) else
                    replace(turn, decisions=d, gotchas=g))
    keys = frozenset(note_key("decision", x) for x in decisions) | frozenset(
        note_key("gotcha", x) for x in gotchas)
    seen_d = {x for t in kept for x in t.decisions}
    seen_g = {x for t in kept for x in t.gotchas}
    extra_d = tuple(x for x in decisions
                    if x not in seen_d and note_key("decision", x) not in ingested)
    extra_g = tuple(x for x in gotchas if x not in seen_g and note_key("gotcha", x) not in ingested)
    if extra_d or extra_g:
        digest = hashlib.sha256((message or "").encode("utf-8")).hexdigest()[:16]
        kept.append(Turn(f"last:{digest}", None, None, decisions=extra_d, gotchas=extra_g))
    return tuple(kept), keys


def parse_lines(lines: Iterable[str | bytes], *, skip_uuids: Collection[str] = ()) -> Transcript:
    """Turns of the given JSONL lines; lines whose uuid is in ``skip_uuids`` give no turn."""
    turns: list[Turn] = []
    seen: set[str] = set()
    first_prompt: str | None = None
    skipped = 0
    boundaries = 0
    for raw in lines:
        text = raw.decode("utf-8", errors="replace") if isinstance(raw, bytes) else str(raw)
        if not text.strip():
            continue
        entry = _load(text)
        if entry is None:
            skipped += 1
            continue
        kind = entry.get("type")
        if kind == "system" and entry.get("subtype") == "compact_boundary":
            boundaries += 1
            continue
        if kind not in ("user", "assistant") or entry.get("isSidechain") is True:
            continue
        if entry.get("isMeta") is True:
            continue
        turn = _turn(entry, text)
        if turn is None:
            continue
        if first_prompt is None and turn.prompt is not None:
            first_prompt = turn.prompt
        if turn.uuid in seen or turn.uuid in skip_uuids:
            continue
        seen.add(turn.uuid)
        turns.append(turn)
    return Transcript(tuple(turns), first_prompt, skipped, boundaries)


# One hook reads at most this much of a transcript (the next one goes on from where it stopped),
# and a line longer than MAX_LINE_BYTES is passed over unread: memory stays bounded whatever file
# a payload names.
MAX_READ_BYTES = 64 * 1024 * 1024
MAX_LINE_BYTES = 16 * 1024 * 1024
# Passing over an overlong line only reads (no parse, no memory): it may go this far past the
# read budget, so such a line is consumed in one go (one longer still is left for ever unread).
MAX_SKIP_BYTES = 256 * 1024 * 1024
_SKIP_CHUNK = 1024 * 1024


def is_regular_file(path: str | PathLike[str]) -> bool | None:
    """Whether ``path`` is a regular file (symlinks followed); None when it does not exist.
    A FIFO, a device (``/dev/zero``) or a folder is never read as a transcript."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except FileNotFoundError:
        return None
    except (OSError, ValueError):
        return False


def read(
    path: str | PathLike[str], *, skip_uuids: Collection[str] = (), start: int = 0
) -> Transcript:
    """Parse a transcript file from byte ``start``, streaming; a missing or unreadable file, or
    one that is not a regular file (a FIFO, a device), is an empty transcript.

    ``start`` is where an earlier read ended (:attr:`Transcript.end`). Claude Code only appends
    to a transcript, so the lines before it were read already; when the file is shorter than
    ``start`` or ``start`` is not just past a newline (the file was replaced), it is read whole.
    A partial last line is not consumed: ``end`` stops before it, and the next read sees it
    complete. At most MAX_READ_BYTES are read (``end`` says where to go on).
    """
    try:
        # O_NONBLOCK: opening a FIFO for reading would wait for a writer; a regular file ignores it.
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except (OSError, ValueError):  # end 0: a file that shows up later is read from its start
        return Transcript((), None, 0, 0)
    try:
        with open(fd, "rb") as handle:
            if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
                return Transcript((), None, 0, 0)
            start = _resume_at(handle, start)
            handle.seek(start)
            ends = [start]
            parsed = parse_lines(_complete_lines(handle, ends), skip_uuids=skip_uuids)
    except OSError:
        return Transcript((), None, 0, 0)
    return replace(parsed, end=ends[0])


def _resume_at(handle: BinaryIO, start: int) -> int:
    if start <= 0:
        return 0
    handle.seek(start - 1)
    return start if handle.read(1) == b"\n" else 0


def _complete_lines(handle: BinaryIO, end: list[int]) -> Iterator[bytes]:
    """The lines of ``handle`` from where it stands; ``end[0]`` follows the last complete one.
    A last line without its newline is still given (and skipped as partial JSON, or read).
    Stops after MAX_READ_BYTES; a line over MAX_LINE_BYTES is given as ``b"?"`` (not JSON)."""
    budget = MAX_READ_BYTES
    while budget > 0:
        line = handle.readline(MAX_LINE_BYTES)
        if not line:
            return
        budget -= len(line)
        if line.endswith(b"\n"):
            end[0] += len(line)
            yield line
        elif len(line) < MAX_LINE_BYTES:
            yield line  # the partial last line
            return
        else:
            rest = _skip_line(handle, MAX_SKIP_BYTES)
            if rest is None:
                return  # no newline yet (or ever): the next read looks again
            end[0] += len(line) + rest
            yield b"?"


def _skip_line(handle: BinaryIO, budget: int) -> int | None:
    """Read past the rest of a line: the bytes it had with its newline, or None (no newline
    within ``budget``)."""
    skipped = 0
    while skipped < budget:
        chunk = handle.readline(_SKIP_CHUNK)
        if not chunk:
            return None
        skipped += len(chunk)
        if chunk.endswith(b"\n"):
            return skipped
    return None


def _load(text: str) -> dict[str, Any] | None:
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def _turn(entry: dict[str, Any], raw: str) -> Turn | None:
    uuid = entry.get("uuid")
    if not isinstance(uuid, str) or not uuid:
        # Without a uuid, the line's own hash keeps dedup working across repeated reads.
        uuid = "sha256:" + hashlib.sha256(raw.strip().encode("utf-8", "replace")).hexdigest()[:16]
    stamp = entry.get("timestamp")
    timestamp = stamp if isinstance(stamp, str) else None
    message = entry.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if entry.get("type") == "user":
        prompt = _prompt(content)
        return Turn(uuid, timestamp, prompt) if prompt is not None else None
    files, commands, decisions, gotchas = _assistant(content)
    if not (files or commands or decisions or gotchas):
        return None
    return Turn(uuid, timestamp, None, files, commands, decisions, gotchas)


def _prompt(content: Any) -> str | None:
    if isinstance(content, str):
        return clean_prompt(content)
    if not isinstance(content, list):
        return None
    texts = [
        block["text"]
        for block in content
        if isinstance(block, dict)
        and block.get("type") == "text"
        and isinstance(block.get("text"), str)
    ]
    # Blocks are cleaned together: a private span may open in one block and close in the next.
    return clean_prompt("\n".join(texts)) if texts else None


def _assistant(
    content: Any,
) -> tuple[tuple[FileChange, ...], tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    if isinstance(content, str):
        decisions, gotchas = _notes(content)
        return (), (), decisions, gotchas
    if not isinstance(content, list):
        return (), (), (), ()
    files: list[FileChange] = []
    commands: list[str] = []
    texts: list[str] = []
    for block in content:
        if not isinstance(block, dict):
            continue
        if block.get("type") == "text" and isinstance(block.get("text"), str):
            texts.append(block["text"])
        elif block.get("type") == "tool_use":
            name = block.get("name")
            tool_input = block.get("input")
            if not isinstance(tool_input, dict) or not isinstance(name, str):
                continue
            key = FILE_TOOLS.get(name)
            if key is not None:
                path = tool_input.get(key)
                if isinstance(path, str) and path.strip():
                    files.append(FileChange(path.strip(), name))
            elif name == "Bash":
                command = _command(tool_input.get("command"))
                if command is not None:
                    commands.append(command)
    decisions, gotchas = _notes("\n".join(texts))
    return tuple(files), tuple(commands), decisions, gotchas


def _command(value: Any) -> str | None:
    if not isinstance(value, str):
        return None
    lines = [line.strip() for line in strip_private(value).splitlines() if line.strip()]
    if not lines:
        return None
    first = lines[0]
    more = len(lines) > 1
    if len(first) > COMMAND_MAX_CHARS:
        first, more = first[: COMMAND_MAX_CHARS - 1].rstrip(), True
    return first + " …" if more else first


def _notes(text: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    decisions: list[str] = []
    gotchas: list[str] = []
    for line in strip_private(text).splitlines():
        matches = list(_LABEL_RE.finditer(line))
        for index, match in enumerate(matches):
            end = matches[index + 1].start() if index + 1 < len(matches) else len(line)
            note = _SPACES_RE.sub(" ", line[match.end() : end]).strip()
            if not note:
                continue
            target = decisions if match.group("label") == "Decision" else gotchas
            if note not in target:
                target.append(note)
    return tuple(decisions), tuple(gotchas)
