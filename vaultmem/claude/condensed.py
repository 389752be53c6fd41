"""A session's transcripts condensed for a model extractor: what was asked, answered, run, broken.

Pure except :func:`read`. The session note keeps a few hundred characters of each answer; a
model extractor is given more of the session than that, within a budget: per turn the prompt,
Claude's prose, the commands it ran (repeats counted), the failures with their first error
line, and the files it changed. ``<private>`` text and Claude Code's own tags are removed
before anything else, and secrets are redacted (``scrub``) before any text is cut to length. Over the budget, the oldest turns go first: the end of a session says
where it stopped, which is what the next session needs.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from os import PathLike
from typing import Any

from vaultmem.notes import jsontext
from vaultmem.notes.inline import clip, one_line
from vaultmem.notes.privacy import PrivateStream, private_parts, strip_private
from vaultmem.notes.redact import DEFAULT as DEFAULT_REDACTION
from vaultmem.notes.redact import Redaction, Scrub

from .records import prompt_text
from .toolblocks import FILE_TOOLS

ANSWER_MAX_CHARS = 2000  # of one assistant message's prose
PROMPT_MAX_CHARS = 1000
SUMMARY_MAX_CHARS = 6000  # of a compact summary
COMMAND_MAX_CHARS = 200
ERROR_MAX_CHARS = 240
LINE_MAX_BYTES = 4 * 1024 * 1024  # a longer line is a tool's output or a file's content: skipped
READ_MAX_BYTES = 64 * 1024 * 1024  # of one transcript; whatever file a session names
_SKIP_CHUNK = 1024 * 1024
# A result fails when the tool says so (Bash: a non-zero exit) or its output is a failure's.
_FAILED_RE = re.compile(r"^Traceback \(most recent call last\)|\bFAILED\b|^Exit code [1-9]",
                        re.MULTILINE)
# The line that says what went wrong.
_ERROR_RE = re.compile(r"\w*(?:Error|Exception)\b|\bFAILED\b|\berror:|command not found|"
                       r"No such file")
_SPACES_RE = re.compile(r"[ \t]+")
_BLANKS_RE = re.compile(r"\n{3,}")


@dataclass
class Turn:
    """One prompt and everything up to the next."""

    prompt: str | None = None
    timestamp: str | None = None
    said: list[str] = field(default_factory=list)
    commands: dict[str, int] = field(default_factory=dict)  # command -> times run, in order
    failures: list[str] = field(default_factory=list)
    files: dict[str, None] = field(default_factory=dict)

    def render(self) -> str:
        """The turn as a few labelled lines."""
        when = f" ({self.timestamp[:16].replace('T', ' ')})" if self.timestamp else ""
        out = [f"### Turn{when}"]
        if self.prompt:
            out.append(f"User: {self.prompt}")
        out.extend(f"Claude: {text}" for text in self.said)
        out.extend(f"Ran: `{c}`" + (f" ×{n}" if n > 1 else "") for c, n in self.commands.items())
        out.extend(f"Failed: {failure}" for failure in self.failures)
        if self.files:
            out.append("Changed: " + ", ".join(self.files))
        return "\n".join(out)

    def empty(self) -> bool:
        """Nothing worth sending."""
        return not (self.prompt or self.said or self.commands or self.failures or self.files)


def turns(lines: Iterable[str | bytes], scrub: Scrub = DEFAULT_REDACTION) -> list[Turn]:
    """The turns of JSONL transcript lines; lines that are not JSON objects are skipped."""
    reader = _Reader(scrub)
    for raw in lines:
        entry = _load(raw)
        if entry is None or entry.get("isSidechain") is True:
            continue
        if entry.get("type") == "user" and entry.get("isCompactSummary") is True:
            reader.summary(entry)
        elif entry.get("isMeta") is not True:
            reader.entry(entry)
    return [turn for turn in reader.turns if not turn.empty()]


def render(items: Sequence[Turn], max_chars: int) -> str:
    """The turns as text of at most about ``max_chars``, newest kept; "" when there are none."""
    blocks = [turn.render() for turn in items]
    kept: list[str] = []
    used = 0
    for block in reversed(blocks):
        if used + len(block) + 2 > max_chars and kept:
            break
        kept.append(block[-max_chars:] if not kept and len(block) > max_chars else block)
        used += len(block) + 2
    left = len(blocks) - len(kept)
    head = [f"[{left} earlier turn{'s' if left != 1 else ''} left out]"] if left else []
    return "\n\n".join(head + kept[::-1])


def read(paths: Sequence[str | PathLike[str]], max_chars: int,
         scrub: Scrub = DEFAULT_REDACTION) -> str | None:
    """The condensed text of the transcripts, in order; None when none could be read. A path
    that is not a regular file (a FIFO, a device) is passed over, never waited on."""
    found: list[Turn] = []
    readable = False
    for path in dict.fromkeys(paths):
        try:
            # O_NONBLOCK: opening a FIFO would wait for a writer; a regular file ignores it.
            fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
        except (OSError, ValueError):
            continue
        try:
            with open(fd, "rb") as handle:
                if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
                    continue
                found.extend(turns(_bounded_lines(handle), scrub))
                readable = True
        except OSError:
            continue
    if not readable or not found:
        return None
    return render(found, max_chars)


def _bounded_lines(handle: Any) -> Iterator[bytes]:
    """The lines of a binary file, each at most LINE_MAX_BYTES (a longer one is passed over in
    chunks, never held whole), until READ_MAX_BYTES have been read."""
    budget = READ_MAX_BYTES
    while budget > 0:
        line = handle.readline(min(LINE_MAX_BYTES + 1, budget))
        if not line:
            return
        budget -= len(line)
        if len(line) <= LINE_MAX_BYTES:
            yield line
            continue
        while budget > 0 and not line.endswith(b"\n"):  # the rest of an overlong line
            line = handle.readline(min(_SKIP_CHUNK, budget))
            if not line:
                return
            budget -= len(line)


class _Reader:
    """The transcript's lines in order. One private stream runs through the prompts and the
    prose, so a span a person opened in one message and closed in a later one stays private in
    between; while it is open, commands, paths and tool output are left out as well."""

    def __init__(self, scrub: Scrub) -> None:
        self.scrub = scrub
        self.turns: list[Turn] = [Turn()]
        self.tools: dict[str, str] = {}  # tool_use id -> what it ran, for its result
        self.private = PrivateStream()
        self.secrets: list[str] = []  # the person's private texts (a summary may restate them)

    def entry(self, entry: dict[str, Any]) -> None:
        message = entry.get("message")
        content = message.get("content") if isinstance(message, dict) else None
        if entry.get("type") == "user":
            texts = _texts(content)
            if texts is not None:
                self.secrets.extend(private_parts("\n".join(texts)))
                prompt = prompt_text(self.scrub(self.private.feed("\n".join(texts))))
                said = self.turns[-1].said
                if prompt is not None and isinstance(self.scrub, Redaction) and said:
                    asked = said[-1]
                    prompt = self.scrub.answer(prompt, lambda: asked)  # a secret Claude asked for
                if prompt is not None:
                    stamp = entry.get("timestamp")
                    self.turns.append(Turn(prompt=clip(prompt, PROMPT_MAX_CHARS, words=False),
                                           timestamp=stamp if isinstance(stamp, str) else None))
            else:
                self._results(content)
        elif entry.get("type") == "assistant":
            cwd = entry.get("cwd")
            self._assistant(content, cwd if isinstance(cwd, str) else "")

    def summary(self, entry: dict[str, Any]) -> None:
        """Claude Code's compact summary: Claude's account of the session so far, not a prompt;
        read as the session note keeps it (the person's messages and private text left out)."""
        message = entry.get("message")
        texts = _texts(message.get("content") if isinstance(message, dict) else None)
        if not texts or self.private.inside:
            return
        from vaultmem.mining.summaries import read  # only a compacted session pays for the parser

        kept = _prose(self.scrub(read("\n".join(texts), self.secrets).kept))
        if kept:
            said = f"(Claude Code's summary of the session so far) {kept}"
            self.turns.append(Turn(said=[clip(said, SUMMARY_MAX_CHARS, words=False)]))

    def _public(self, text: str) -> str:
        """Text outside prose (a command, a path, tool output): none while a span is open."""
        return "" if self.private.inside else strip_private(text)

    def _assistant(self, content: Any, cwd: str) -> None:
        turn = self.turns[-1]
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        if not isinstance(blocks, list):
            return
        for block in blocks:
            if not isinstance(block, dict):
                continue
            if block.get("type") == "text" and isinstance(block.get("text"), str):
                text = _prose(self.scrub(self.private.feed(block["text"])))
                if text:
                    turn.said.append(clip(text, ANSWER_MAX_CHARS, words=False))
            elif block.get("type") == "tool_use":
                self._tool_use(block, turn, cwd)

    def _tool_use(self, block: dict[str, Any], turn: Turn, cwd: str) -> None:
        name, tool_input = block.get("name"), block.get("input")
        if not isinstance(name, str) or not isinstance(tool_input, dict):
            return
        what = name
        key = FILE_TOOLS.get(name)
        if key is not None and isinstance(tool_input.get(key), str):
            path = self.scrub(self._public(tool_input[key]).strip())
            root = cwd.rstrip("/") + "/"
            if cwd and path.startswith(root):
                path = path[len(root):]  # as the project knows it, and shorter
            if path:
                turn.files[path] = None
                what = f"{name} {path}"
        elif name == "Bash" and isinstance(tool_input.get("command"), str):
            command = one_line(self.scrub(self._public(tool_input["command"])),
                               COMMAND_MAX_CHARS, cut="chars")
            if command:
                turn.commands[command] = turn.commands.get(command, 0) + 1
                what = f"`{command}`"
        if isinstance(block.get("id"), str):
            self.tools[block["id"]] = what

    def _results(self, content: Any) -> None:
        if not isinstance(content, list):
            return
        for block in content:
            if not isinstance(block, dict) or block.get("type") != "tool_result":
                continue
            text = self._public(_result_text(block.get("content")))
            if block.get("is_error") is True or _FAILED_RE.search(text):
                lines = [line.strip() for line in text.splitlines() if line.strip()]
                first = self.scrub(next((ln for ln in lines if _ERROR_RE.search(ln)),
                                        lines[0] if lines else ""))
                what = self.tools.get(str(block.get("tool_use_id")), "a tool")
                self.turns[-1].failures.append(clip(f"{what} — {first}" if first else what,
                                                    ERROR_MAX_CHARS + COMMAND_MAX_CHARS, words=False))


def _load(raw: str | bytes) -> dict[str, Any] | None:
    text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw
    if not text.strip():
        return None
    try:
        value = jsontext.loads(text)
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def _texts(content: Any) -> list[str] | None:
    """The text of a prompt (a string, or the text blocks of a list); None for tool results."""
    if isinstance(content, str):
        return [content]
    if not isinstance(content, list):
        return None
    texts = [b["text"] for b in content if isinstance(b, dict) and b.get("type") == "text"
             and isinstance(b.get("text"), str)]
    return texts or None


def _result_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(b["text"] for b in content if isinstance(b, dict)
                         and isinstance(b.get("text"), str))
    return ""


def _prose(text: str) -> str:
    text = _SPACES_RE.sub(" ", text)
    return _BLANKS_RE.sub("\n\n", text).strip()
