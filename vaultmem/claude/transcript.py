"""Claude Code transcript (JSONL) -> what each line says: prompts, Claude's prose, tool calls and
their outcomes.

Pure and tolerant: nothing here raises on bad input. A line that is not a JSON object counts in
``skipped_lines`` (one a scrubbing tool cut short or left a stray backslash in is read for what
it holds, :func:`_load`); a line of a kind the catalogue (:mod:`records`) says gives
nothing (``attachment``, ``queue-operation``, ``last-prompt``, most ``system`` lines...) is passed
over; one of a kind it does not name is passed over and listed in :attr:`Transcript.unknown`.
``ai-title`` and ``custom-title`` lines give :attr:`Transcript.title`. ``read`` is the only I/O
(its bounded, resumable reading of the file is ``transcriptfile``).

What a line holds (DESIGN §6, §9):
- ``user`` lines: the prompt text (a string, or the ``text`` blocks of a list), with Claude Code's
  and the IDE's wrappers removed (:func:`records.prompt_text`); and the
  ``tool_result`` blocks, each an outcome of an earlier ``tool_use`` (matched by id): failed or
  not, and its first error line. ``isMeta`` and ``isSidechain`` (sub-agent) lines are noise.
- what the person ran themselves, a ``! command`` or a local slash command and what it printed
  (user lines, and ``system`` lines of subtype ``local_command``): :mod:`console`.
- ``assistant`` lines: the prose of the ``text`` blocks, and the ``tool_use`` blocks (the
  command of a ``Bash`` call, the file of a ``Write``/``Edit``/``Read``...); a usage-limit or API
  error notice is no prose, a call the permissions stopped no failure (:mod:`notices`).

``<private>…</private>`` text is removed everywhere, nesting balanced; a span left open at the end
of a message stays private in the next messages of the same speaker until it is closed
(:class:`~vaultmem.notes.privacy.PrivateStream`; the open depth is carried from read to read in
:attr:`Transcript.private`). While a span the person opened is open, Claude's lines and the tool
output in between are private too (Claude may repeat what the span holds).

Secrets are redacted where the text is decoded (``scrub``, :mod:`vaultmem.notes.redact`): prompts,
Claude's prose, commands, file paths and error lines, each whole before it is cut to length; the
tool output vaultmem does not keep is not scanned. A prompt that is only a value, right after
Claude asked for a secret (in this read, or the prose before its start), is redacted as that
secret (:meth:`Redaction.answer`).
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass, replace
from os import PathLike
from typing import Any

from vaultmem.claude import console, records, toolblocks
from vaultmem.claude.console import Console
from vaultmem.claude.toolblocks import (
    FILE_TOOLS,
    SCRUB,
    SPACES_RE,
    WANTED,
    FileChange,
    Outcome,
    ToolCall,
)
from vaultmem.claude.transcriptfile import (
    MAX_LINE_BYTES,
    MAX_READ_BYTES,
    complete_lines,
    mark_before,
    resume_at,
)
from vaultmem.mining import notices
from vaultmem.notes import jsontext
from vaultmem.notes.privacy import PrivateStream, private_parts, strip_private
from vaultmem.notes.redact import DEFAULT as DEFAULT_REDACTION
from vaultmem.notes.redact import Redaction, Scrub

# Compiled on first use (lazyre): a read whose lines were all recorded already needs none.
_PRIVATE_BYTES = re.compile(rb"<private", re.IGNORECASE)



@dataclass(frozen=True)
class Turn:
    """What one transcript line contributes to the session note."""

    uuid: str
    timestamp: str | None
    prompt: str | None
    text: str | None = None  # Claude's prose (assistant text blocks), private text removed
    calls: tuple[ToolCall, ...] = ()
    outcomes: tuple[Outcome, ...] = ()
    # Claude Code's compact summary (never a prompt), private text removed; "" when a span the
    # person left open hides it whole.
    summary: str | None = None
    notice: str | None = None  # Claude Code's usage-limit or API error notice, one line
    interrupted: bool = False  # the person stopped the turn here ("[Request interrupted by user]")
    console: Console | None = None  # what the person ran themselves (``! git status``, ``/cost``)

    @property
    def files(self) -> tuple[FileChange, ...]:
        """The files this line's tool calls write or edit."""
        return tuple(FileChange(c.path, c.tool) for c in self.calls
                     if c.path is not None and c.tool in FILE_TOOLS)

    @property
    def commands(self) -> tuple[str, ...]:
        """The Bash commands this line runs."""
        return tuple(c.command for c in self.calls if c.command is not None)

    @property
    def key(self) -> str | None:
        """The line's content key: its time and what it says, None without a time.

        Claude Code may write the lines of a turn again under new uuids (the prompt's image
        split into a line of its own, the same times, prose, tool ids and results): the key
        is what a copy shares with the line it copies, so that it is recorded once."""
        if self.timestamp is None:
            return None
        said = repr((self.timestamp, self.prompt, self.text, self.summary, self.calls,
                     self.outcomes, self.notice, self.interrupted, self.console))
        return "line:" + hashlib.sha256(said.encode("utf-8", "replace")).hexdigest()[:16]

    @property
    def keys(self) -> tuple[str, ...]:
        """What marks this line as recorded: its uuid and its content key."""
        key = self.key
        return (self.uuid,) if key is None else (self.uuid, key)


@dataclass(frozen=True)
class Transcript:
    """The lines of a transcript that say something, in file order, and what was passed over."""

    turns: tuple[Turn, ...]
    # The first prompt of the whole read that may name the session (``_names_topic``), skipped
    # uuids included; None when the read was not asked for it (``topic``)
    first_prompt: str | None
    skipped_lines: int  # lines that are not a JSON object (partial, junk, binary)
    boundaries: int  # compact_boundary system lines seen
    end: int = 0  # byte offset just past the last complete line read (where the next read starts)
    private: tuple[int, int] = (0, 0)  # private spans left open (user, assistant) at ``end``
    mark: str = ""  # the hash of the bytes just before ``end`` (see ``read``)
    # The session's title: the newest ``custom-title`` of the read, else its newest ``ai-title``
    title: str | None = None
    # Lines of a kind the catalogue does not name, not in ``skip_uuids``: (kind, line key)
    unknown: tuple[tuple[str, str], ...] = ()


def text_key(message: str) -> str:
    """The dedup key of an assistant message's prose (whitespace-insensitive)."""
    normal = SPACES_RE.sub(" ", message).strip()
    return "text:" + hashlib.sha256(normal.encode("utf-8")).hexdigest()[:16]


def with_last_message(
    turns: Iterable[Turn], message: str | None, ingested: Collection[str],
    *, private: int = 0, scrub: Scrub = DEFAULT_REDACTION,
) -> tuple[tuple[Turn, ...], frozenset[str]]:
    """``turns`` plus the Stop payload's last message when the transcript does not hold it yet;
    and the keys to mark ingested.

    Claude Code can run the Stop hook before the final assistant line reaches the transcript.
    The payload's ``last_assistant_message`` then comes as one extra line at the end (the turn's
    answer), and its :func:`text_key` is recorded, so that the transcript line, when a later read
    meets it, does not add the same prose again. ``private``: spans Claude left open before it;
    ``scrub``: the redaction (the key is of the redacted prose, as a transcript read gives it).
    """
    kept = [t if t.text is None or text_key(t.text) not in ingested else replace(t, text=None)
            for t in turns]
    kept = [t if t.notice is None or text_key(t.notice) not in ingested
            else replace(t, notice=None) for t in kept]
    if not message or not message.strip():
        return tuple(kept), frozenset()
    public = scrub(PrivateStream(private).feed(message).strip())
    key = text_key(public)
    # The last message may be Claude Code's usage-limit notice: it stays a notice.
    notice = notices.shown(public) if notices.api_notice(public) else None
    held = any(text_key(said) == key for t in kept for said in (t.text, t.notice) if said)
    if not held and key not in ingested and public.strip():
        kept.append(Turn(f"last:{key[5:]}", None, None, text=None if notice else public,
                         notice=notice))
    return tuple(kept), frozenset({key})


def parse_lines(
    lines: Iterable[str | bytes],
    *,
    skip_uuids: Collection[str] = (),
    private: tuple[int, int] = (0, 0),
    scrub: Scrub = DEFAULT_REDACTION,
    topic: bool = True,
    before: Callable[[], str | None] = lambda: None,
) -> Transcript:
    """Turns of the given JSONL lines; lines whose uuid or :attr:`Turn.key` is in ``skip_uuids``
    give no turn.

    ``private``: the (user, assistant) private spans left open by the lines before these;
    ``scrub``: the redaction applied to every field a turn keeps; ``topic``: whether
    :attr:`Transcript.first_prompt` is wanted (a note named already needs none, and telling a
    greeting or a request to carry on in every language compiles ~45 M instructions of
    patterns); ``before``: the prose Claude ended on before these lines (a prompt right after
    them may answer it with a secret: :meth:`Redaction.answer`), asked only for such a prompt."""
    token = SCRUB.set(scrub)
    wanted = WANTED.set(set())
    try:
        return _parse_lines(lines, skip_uuids, private, topic, before)
    finally:
        WANTED.reset(wanted)
        SCRUB.reset(token)


def _parse_lines(
    lines: Iterable[str | bytes], skip_uuids: Collection[str], private: tuple[int, int],
    topic: bool = True, before: Callable[[], str | None] = lambda: None,
) -> Transcript:
    turns: list[Turn] = []
    seen: set[str] = set()
    first_prompt: str | None = None
    asking = topic  # the first prompt is still wanted
    skipped = 0
    boundaries = 0
    after_boundary = False  # the next user line is the compact summary
    titles: dict[str, str] = {}  # title kind -> its newest title
    unknown: list[tuple[str, str]] = []
    streams = (PrivateStream(private[0]), PrivateStream(private[1]))
    quiet = False  # the last command the person ran was bookkeeping (``/compact``)
    asked = _Asked(before)  # what Claude ended on before the next prompt
    for raw in lines:
        text = raw.decode("utf-8", errors="replace") if isinstance(raw, bytes) else str(raw)
        if not text.strip():
            continue
        entry = _load(text, whole=text.endswith("\n"))
        if entry is None:
            skipped += 1
            continue
        kind = entry.get("type")
        if kind == "system" and entry.get("subtype") == "compact_boundary":
            boundaries += 1
            after_boundary = True
            continue
        local = kind == "system" and entry.get("subtype") == "local_command"
        if (kind not in ("user", "assistant") and not local) or entry.get("isSidechain") is True:
            named = records.title(entry, SCRUB.get())
            if named is not None:
                titles[named[0]] = named[1]
            odd = records.unknown_kind(entry)
            key = _identity(entry, text)[0] if odd is not None else ""
            if odd is not None and key not in skip_uuids:
                unknown.append((odd, key))
            continue
        # The summary is the line flagged so (older versions also flag it isMeta), or the
        # first user line right after the boundary; a prompt that reads like one is a prompt.
        meta = entry.get("isMeta") is True
        summary = kind == "user" and (entry.get("isCompactSummary") is True
                                      or (after_boundary and not meta))
        after_boundary = False
        if meta and not summary:
            continue
        # Lines already recorded still go through the private streams: a span they opened
        # is open in the lines after them. A summary is not the person's: it goes through none.
        if _identity(entry, text)[0] in skip_uuids:
            # Recorded under its uuid: no turn, so nothing in it is redacted or parsed further.
            prompt = None if summary else _pass_over(entry, streams, asking, asked)
            if asking and _names_topic(prompt):
                first_prompt, asking = prompt, False
            continue
        turn = _summary_turn(entry, text, streams[0].inside) if summary else \
            _local_turn(entry, text, streams[0]) if local else _turn(entry, text, streams)
        turn = asked.follow(turn, kind, summary)
        if turn is not None and turn.console is not None:  # bookkeeping and what it printed
            quiet = console.bookkeeping(turn.console) or (quiet and turn.console.command is None)
            turn = None if quiet else turn
        elif turn is not None:
            quiet = False
        if turn is None:
            continue
        if asking and turn.prompt is not None and _names_topic(turn.prompt):
            first_prompt, asking = turn.prompt, False
        keys = turn.keys
        # A line recorded already, under its uuid or (a copy Claude Code wrote) its content
        if any(k in seen or k in skip_uuids for k in keys):
            continue
        seen.update(keys)
        turns.append(turn)
    depths = (streams[0].depth, streams[1].depth)
    title = titles.get("custom-title") or titles.get("ai-title")
    return Transcript(tuple(turns), first_prompt, skipped, boundaries, private=depths,
                      title=title, unknown=tuple(unknown))


def _names_topic(prompt: str | None) -> bool:
    """Whether a prompt may name the session: the person's (not a background command's end),
    more than a greeting or a request to carry on ("resume last session")."""
    return (bool(prompt) and not records.notification(prompt) and not records.greeting(prompt)
            and not records.carry_on(prompt))


def read(
    path: str | PathLike[str],
    *,
    skip_uuids: Collection[str] = (),
    start: int = 0,
    private: tuple[int, int] = (0, 0),
    scrub: Scrub = DEFAULT_REDACTION,
    mark: str = "",
    topic: bool = True,
) -> Transcript:
    """Parse a transcript file from byte ``start``, streaming (``topic``: see
    :func:`parse_lines`); a missing or unreadable file, or
    one that is not a regular file (a FIFO, a device), is an empty transcript.

    ``start`` is where an earlier read ended (:attr:`Transcript.end`), ``private`` the private
    spans it left open, ``mark`` its :attr:`Transcript.mark`. Claude Code only appends to a
    transcript, so the lines before it were read already; when the file is shorter than
    ``start``, ``start`` is not just past a newline, or the bytes before it are not the ones
    read then (the file was rewritten, maybe shorter and then appended past the old offset with
    a line ending exactly there), it is read whole (and ``private`` starts closed): the uuids in
    ``skip_uuids`` keep what was recorded from being recorded twice. A partial last line is not
    consumed: ``end`` stops before it, and the next read sees it complete. At most
    MAX_READ_BYTES are read (``end`` says where to go on).
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
            at = resume_at(handle, start, mark)
            handle.seek(at)
            ends = [at]
            parsed = parse_lines(complete_lines(handle, ends), skip_uuids=skip_uuids,
                                 private=private if at else (0, 0), scrub=scrub, topic=topic,
                                 before=lambda: _prose_before(path, at))
            end_mark = mark_before(handle, ends[0])
    except OSError:
        return Transcript((), None, 0, 0)
    return replace(parsed, end=ends[0], mark=end_mark)


LOOK_BACK_BYTES = 256 * 1024  # how far before a read's start Claude's last prose is looked for


def _prose_before(path: str | PathLike[str], at: int) -> str | None:
    """The prose of the last assistant line before byte ``at`` of a transcript, when neither a
    prompt nor a tool's output came after it (within LOOK_BACK_BYTES); else None."""
    if at <= 0:
        return None
    start = max(0, at - LOOK_BACK_BYTES)
    try:
        with open(path, "rb") as handle:
            handle.seek(start)
            chunk = handle.read(at - start)
    except (OSError, ValueError):
        return None
    lines = chunk.split(b"\n")[1 if start else 0:]  # a cut first line is no line
    for raw in reversed(lines):
        entry = _load(raw.decode("utf-8", errors="replace")) if raw.strip() else None
        if entry is None or entry.get("isMeta") is True or entry.get("isSidechain") is True:
            continue
        if entry.get("type") in ("user", "assistant"):
            message = entry.get("message")
            texts = toolblocks.texts(message.get("content") if isinstance(message, dict) else None)
            return "\n\n".join(texts) if texts and entry.get("type") == "assistant" else None
    return None


def private_texts(path: str | PathLike[str], end: int) -> tuple[str, ...]:
    """What the person marked private in their prompts in the first ``end`` bytes of a
    transcript (a compact summary may restate it without the tags). Only lines naming a private
    tag are parsed; a file that cannot be read gives none."""
    found: dict[str, None] = {}
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
        with open(fd, "rb") as handle:
            if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
                return ()
            budget = min(end, MAX_READ_BYTES)
            while budget > 0:
                line = handle.readline(min(MAX_LINE_BYTES, budget))
                if not line:
                    break
                budget -= len(line)
                if _PRIVATE_BYTES.search(line) is None:
                    continue
                entry = _load(line.decode("utf-8", errors="replace"))
                if entry is None or entry.get("type") != "user" or \
                        entry.get("isCompactSummary") is True:
                    continue
                message = entry.get("message")
                texts = toolblocks.texts(message.get("content") if isinstance(message, dict) else None)
                for part in private_parts("\n".join(texts)):
                    found[part] = None
    except (OSError, ValueError):
        return ()
    return tuple(found)


def _load(text: str, *, whole: bool = False) -> dict[str, Any] | None:
    """The JSON object of a line, or None. A line a person or a redaction tool edited is read
    for what it holds: its stray backslashes as themselves (``"C:\\[USER]"``) and, when it is
    ``whole`` (its newline came: not one Claude Code is still writing), its tail cut off
    (``…"text":"the key is [REDACTED]``) closed."""
    try:
        value = jsontext.loads(text)
    except ValueError as err:
        mended = jsontext.stray_escapes_kept(text) if "Invalid \\escape" in str(err) else text
        try:
            value = jsontext.loads(mended) if mended is not text else None
        except ValueError:
            value = None
        if value is None and whole:
            try:
                value = jsontext.loads_cut(mended.rstrip("\r\n"))
            except (ValueError, RecursionError):
                return None
    except RecursionError:
        return None
    return value if isinstance(value, dict) else None


def _identity(entry: dict[str, Any], raw: str) -> tuple[str, str | None]:
    """A line's uuid and timestamp."""
    uuid = entry.get("uuid")
    if not isinstance(uuid, str) or not uuid:
        # Without a uuid, the line's own hash keeps dedup working across repeated reads.
        uuid = "sha256:" + hashlib.sha256(raw.strip().encode("utf-8", "replace")).hexdigest()[:16]
    stamp = entry.get("timestamp")
    return uuid, stamp if isinstance(stamp, str) else None


def _turn(entry: dict[str, Any], raw: str, streams: tuple[PrivateStream, PrivateStream]
          ) -> Turn | None:
    uuid, timestamp = _identity(entry, raw)
    message = entry.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if entry.get("type") == "user":
        prompt, ran = _said(content, streams[0])
        # Tool output while a person's private span is open is theirs too (its calls are gone).
        outcomes = () if streams[0].inside else toolblocks.outcomes(content)
        stopped = prompt is None and any(records.interrupted(t) for t in toolblocks.texts(content))
        if prompt is None and not outcomes and not stopped and ran is None:
            return None
        return Turn(uuid, timestamp, prompt, outcomes=outcomes, interrupted=stopped, console=ran)
    prose, calls = _assistant(content, streams[1])
    notice = None
    if prose is not None and (entry.get("isApiErrorMessage") is True or notices.api_notice(prose)):
        # Claude Code's usage-limit or API error notice: why the turn stopped, not an answer.
        notice, prose = notices.shown(prose), None
    if streams[0].inside:
        # A span the person left open hides everything until they close it: Claude's reply and
        # commands may repeat what it holds.
        return None
    if prose is None and not calls and notice is None:
        return None
    return Turn(uuid, timestamp, None, text=prose, calls=calls, notice=notice)


def _pass_over(entry: dict[str, Any], streams: tuple[PrivateStream, PrivateStream],
               want_prompt: bool, asked: _Asked) -> str | None:
    """What a line recorded already still does, as :func:`_turn` would: the private spans it
    opens or closes, what Claude ended on (``asked``); and its prompt, when ``want_prompt``
    (the read's first prompt is unknown)."""
    message = entry.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    user = entry.get("type") == "user"
    if user and want_prompt:
        prompt = _prompt(content, streams[0])
        return asked.answer(prompt) if prompt is not None else None
    texts = toolblocks.texts(content)
    if texts:
        said = streams[0 if user else 1].feed(("\n" if user else "\n\n").join(texts))
        asked.said(None if user else said)
    return None


class _Asked:
    """The prose Claude ended on before the next prompt, which the prompt may answer with a
    secret's bare value (:meth:`Redaction.answer`); before a read's first line, ``before``'s
    (read only when a prompt may be such an answer)."""

    def __init__(self, before: Callable[[], str | None]) -> None:
        self.before: Callable[[], str | None] | None = before
        self.prose: str | None = None

    def said(self, prose: str | None) -> None:
        """Claude said ``prose`` (None: the person spoke, or a tool's output came)."""
        self.before, self.prose = None, prose

    def answer(self, prompt: str) -> str:
        """``prompt`` redacted as the answer to what Claude ended on; the person spoke."""
        scrub = SCRUB.get()
        if isinstance(scrub, Redaction):
            before = self.before
            prompt = scrub.answer(prompt, before if before is not None else lambda: self.prose)
        self.said(None)
        return prompt

    def follow(self, turn: Turn | None, kind: object, summary: bool) -> Turn | None:
        """``turn`` (of a line of ``kind``), its prompt redacted as an answer; what it said
        noted for the next."""
        if turn is not None and turn.prompt is not None:
            return replace(turn, prompt=self.answer(turn.prompt))
        if kind == "assistant" and turn is not None:
            self.said(turn.text)
        elif kind == "user" or summary:
            self.said(None)
        return turn


def _summary_turn(entry: dict[str, Any], raw: str, hidden: bool) -> Turn | None:
    """A compact summary's turn; None when the line holds no text (a tool result)."""
    message = entry.get("message")
    texts = toolblocks.texts(message.get("content") if isinstance(message, dict) else None)
    if not texts:
        return None
    uuid, stamp = _identity(entry, raw)
    # While the person's private span is open the summary may restate it: all of it is theirs.
    return Turn(uuid, stamp, None,
                summary="" if hidden else SCRUB.get()(strip_private("\n".join(texts))))


def _prompt(content: Any, stream: PrivateStream) -> str | None:
    return _said(content, stream)[0]


def _said(content: Any, stream: PrivateStream) -> tuple[str | None, Console | None]:
    """A user line's prompt, or, when the person typed nothing, what they ran themselves
    (``console``)."""
    texts = toolblocks.texts(content)
    if not texts:
        return None, None
    # Blocks are one message: a private span may open in one block and close in the next.
    text = SCRUB.get()(stream.feed("\n".join(texts)))
    prompt = records.prompt_text(text)
    return prompt, (console.parse(text) if prompt is None and "<" in text else None)


def _local_turn(entry: dict[str, Any], raw: str, stream: PrivateStream) -> Turn | None:
    """A ``local_command`` system line's turn: the slash command it names, or its output."""
    content = entry.get("content")
    if not isinstance(content, str) or stream.inside:
        return None
    ran = console.parse(SCRUB.get()(stream.feed(content)))
    uuid, timestamp = _identity(entry, raw)
    return Turn(uuid, timestamp, None, console=ran) if ran is not None else None


def _assistant(content: Any, stream: PrivateStream) -> tuple[str | None, tuple[ToolCall, ...]]:
    texts = toolblocks.texts(content)
    prose = SCRUB.get()(stream.feed("\n\n".join(texts)).strip()) if texts else ""
    calls: list[ToolCall] = []
    for block in content if isinstance(content, list) else []:
        if isinstance(block, dict) and block.get("type") == "tool_use":
            call = toolblocks.call(block)
            if call is not None:
                calls.append(call)
    return prose or None, tuple(calls)
