"""A local stand-in for the Anthropic Messages API, enough for the real ``claude -p`` to run.

It answers ``POST /v1/messages`` (streamed as server-sent events, or as one JSON body) from a
SCRIPT: a queue of replies, each a list of blocks (``Text``, ``ToolUse``). Every request is
recorded so tests can assert what Claude Code sent (system prompt, injected context, tool results).

Claude Code also makes side requests that are not turns of the conversation (e.g. a title or
topic guess on a small model). They are told apart from turns by the absence of ``tools`` in the
body and answered with plain text, without consuming the script. ``/compact`` sends the whole
conversation, with the tools, plus an instruction to answer with an ``<analysis>`` and a
``<summary>`` block; it is recognised by that instruction (kind ``"compact"``) and answered with
``COMPACT_SUMMARY``, again without consuming the script. A turn that arrives when the script is
empty gets ``DEFAULT_TEXT``. Anything else (other paths, other methods; Claude Code sends a
``HEAD /`` probe on start) is recorded as ``"unknown"`` and answered harmlessly.

``claude -p --json-schema`` (vaultmem's claude extractor) offers the model one tool,
``StructuredOutput``, whose input schema is the JSON schema; Claude Code validates the tool input
against it, puts it in the result's ``structured_output`` and sends one more request with the
tool result. Such requests (kind ``"structured"``) are answered from a queue of their own
(``enqueue_structured``): a mapping becomes the ``StructuredOutput`` call, a ``Text`` a prose
answer (which Claude Code answers by insisting), a ``Fail`` an HTTP error and a ``Stall`` a
reply that comes too late. The request that carries the tool result gets ``DEFAULT_TEXT``
without consuming the queue; an empty queue gives an empty answer for every kind.
"""

from __future__ import annotations

import itertools
import json
import threading
import time
from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

DEFAULT_TEXT = "OK."
# What a side request gets: short, harmless, and valid as a title or a JSON-ish guess.
SIDE_TEXT = '{"title": "e2e session", "isNewTopic": false}'
COMPACT_SUMMARY = "<analysis>e2e</analysis>\n<summary>E2E-COMPACT-SUMMARY</summary>"
# Words of the instruction Claude Code 2.1 appends to the conversation when it compacts.
_COMPACT_MARKERS = ("<summary>", "Do NOT call any tools")


@dataclass(frozen=True)
class Text:
    """A text content block of a scripted reply."""

    text: str


@dataclass(frozen=True)
class ToolUse:
    """A tool_use content block of a scripted reply; Claude Code runs the tool and answers."""

    name: str
    input: Mapping[str, Any]


@dataclass(frozen=True)
class Fail:
    """An HTTP error answer to a structured request (e.g. 401: not logged in)."""

    status: int
    type: str = "authentication_error"
    message: str = "invalid x-api-key"


@dataclass(frozen=True)
class Stall:
    """Wait ``seconds`` before answering (a hung model, for timeouts)."""

    seconds: float
    then: Mapping[str, Any] | None = None


Block = Text | ToolUse
Reply = tuple[Block, ...]
Structured = Mapping[str, Any] | Text | Fail | Stall
STRUCTURED_TOOL = "StructuredOutput"
EMPTY_STRUCTURED: Mapping[str, Any] = {"decisions": [], "gotchas": [], "patterns": []}


@dataclass(frozen=True)
class Recorded:
    """One HTTP request as the stand-in received it."""

    method: str
    path: str
    headers: Mapping[str, str]
    body: Any  # parsed JSON, or the raw text when it was not JSON
    kind: str  # "turn", "side", "compact", "count_tokens" or "unknown"

    def text(self) -> str:
        """Every string in the body (system prompt, messages, tool results) joined; for asserts."""
        return "\n".join(_strings(self.body))


def _strings(value: Any) -> Iterable[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, Mapping):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


@dataclass
class StandIn:
    """The server: start(), enqueue replies, run claude, inspect ``requests``, stop()."""

    host: str = "127.0.0.1"
    requests: list[Recorded] = field(default_factory=list)
    _script: deque[Reply] = field(default_factory=deque)
    _structured: deque[Structured] = field(default_factory=deque)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _ids: itertools.count[int] = field(default_factory=itertools.count)
    _server: ThreadingHTTPServer | None = None
    _thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        """Base URL for ANTHROPIC_BASE_URL."""
        assert self._server is not None, "stand-in not started"
        return f"http://{self.host}:{self._server.server_address[1]}"

    def enqueue(self, *replies: Sequence[Block]) -> None:
        """Add replies to the script; each is the content of one assistant message."""
        with self._lock:
            self._script.extend(tuple(reply) for reply in replies)

    def enqueue_structured(self, *answers: Structured) -> None:
        """Answers to ``--json-schema`` runs, one per run, in order (see the module docstring)."""
        with self._lock:
            self._structured.extend(answers)

    @property
    def structured(self) -> list[Recorded]:
        """The requests of ``--json-schema`` runs."""
        return [r for r in self.requests if r.kind == "structured"]

    @property
    def pending(self) -> int:
        """Scripted replies not yet served."""
        with self._lock:
            return len(self._script)

    @property
    def turns(self) -> list[Recorded]:
        """The conversation requests (those that carried tools), in order."""
        return [r for r in self.requests if r.kind == "turn"]

    @property
    def unknown(self) -> list[Recorded]:
        """Requests to paths the stand-in does not implement."""
        return [r for r in self.requests if r.kind == "unknown"]

    def start(self) -> StandIn:
        """Listen on 127.0.0.1, port chosen by the OS, in a daemon thread."""
        standin = self

        class Handler(_Handler):
            owner = standin

        self._server = ThreadingHTTPServer((self.host, 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and close the socket; waits for the serving thread (bounded)."""
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._server = None
        self._thread = None

    # -- used by the handler -------------------------------------------------------------

    def _record(self, record: Recorded) -> None:
        with self._lock:
            self.requests.append(record)

    def _next_reply(self) -> Reply:
        with self._lock:
            if self._script:
                return self._script.popleft()
        return (Text(DEFAULT_TEXT),)

    def _next_structured(self) -> Structured:
        with self._lock:
            if self._structured:
                return self._structured.popleft()
        return EMPTY_STRUCTURED

    def _new_id(self, prefix: str) -> str:
        return f"{prefix}_e2e{next(self._ids):06d}"


class _Handler(BaseHTTPRequestHandler):
    owner: StandIn
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        # Requests are recorded in StandIn.requests; stderr noise would only clutter pytest.
        return

    def _read_body(self) -> Any:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            return json.loads(raw) if raw else None
        except ValueError:
            return raw.decode("utf-8", "replace")

    def _send_json(self, status: int, data: Any) -> None:
        payload = json.dumps(data).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def _path(self) -> str:
        return self.path.split("?", 1)[0]

    def do_GET(self) -> None:
        self._unknown(None)

    def do_HEAD(self) -> None:
        self._record("unknown", None)
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_POST(self) -> None:
        body = self._read_body()
        path = self._path()
        if path.endswith("/v1/messages/count_tokens"):
            self._record("count_tokens", body)
            self._send_json(200, {"input_tokens": _estimate_tokens(body)})
        elif path.endswith("/v1/messages"):
            self._messages(body)
        else:
            self._unknown(body)

    def _record(self, kind: str, body: Any) -> None:
        headers = {k.lower(): v for k, v in self.headers.items()}
        self.owner._record(Recorded(self.command, self._path(), headers, body, kind))

    def _unknown(self, body: Any) -> None:
        self._record("unknown", body)
        self._send_json(
            404,
            {
                "type": "error",
                "error": {"type": "not_found_error", "message": "not in the stand-in"},
            },
        )

    def _messages(self, body: Any) -> None:
        request = body if isinstance(body, dict) else {}
        kind = _kind(request)
        self._record(kind, body)
        if kind == "structured":
            if _answers_tool_result(request):
                reply: Reply = (Text(DEFAULT_TEXT),)
            else:
                answer = self.owner._next_structured()
                if isinstance(answer, Stall):
                    time.sleep(answer.seconds)
                    answer = answer.then if answer.then is not None else EMPTY_STRUCTURED
                if isinstance(answer, Fail):
                    self._send_json(answer.status, {"type": "error", "error": {
                        "type": answer.type, "message": answer.message}})
                    return
                reply = (answer,) if isinstance(answer, Text) else (
                    ToolUse(STRUCTURED_TOOL, dict(answer)),)
        elif kind == "turn":
            reply = self.owner._next_reply()
        else:
            reply = (Text(COMPACT_SUMMARY if kind == "compact" else SIDE_TEXT),)
        model = str(request.get("model") or "claude-e2e")
        message_id = self.owner._new_id("msg")
        blocks = [_content(block, self.owner) for block in reply]
        stop_reason = "tool_use" if any(b["type"] == "tool_use" for b in blocks) else "end_turn"
        usage = {
            "input_tokens": _estimate_tokens(request),
            "output_tokens": 10,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
        }
        if not request.get("stream"):
            self._send_json(
                200,
                {
                    "id": message_id,
                    "type": "message",
                    "role": "assistant",
                    "model": model,
                    "content": blocks,
                    "stop_reason": stop_reason,
                    "stop_sequence": None,
                    "usage": usage,
                },
            )
            return
        events = list(_stream_events(message_id, model, blocks, stop_reason, usage))
        payload = "".join(
            f"event: {name}\ndata: {json.dumps(data)}\n\n" for name, data in events
        ).encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)


def _kind(request: Mapping[str, Any]) -> str:
    tools = request.get("tools")
    if not tools:
        return "side"
    if [t.get("name") for t in tools if isinstance(t, Mapping)] == [STRUCTURED_TOOL]:
        return "structured"
    messages = request.get("messages") or []
    last = messages[-1] if messages and isinstance(messages[-1], Mapping) else {}
    text = "\n".join(_strings(last.get("content")))
    return "compact" if all(marker in text for marker in _COMPACT_MARKERS) else "turn"


def _answers_tool_result(request: Mapping[str, Any]) -> bool:
    """The request sends the StructuredOutput call's (successful) result back."""
    messages = request.get("messages") or []
    last = messages[-1] if messages and isinstance(messages[-1], Mapping) else {}
    content = last.get("content")
    return isinstance(content, list) and any(
        isinstance(b, Mapping) and b.get("type") == "tool_result" and not b.get("is_error")
        for b in content)


def _content(block: Block, owner: StandIn) -> dict[str, Any]:
    if isinstance(block, Text):
        return {"type": "text", "text": block.text}
    return {
        "type": "tool_use",
        "id": owner._new_id("toolu"),
        "name": block.name,
        "input": dict(block.input),
    }


def _stream_events(
    message_id: str,
    model: str,
    blocks: list[dict[str, Any]],
    stop_reason: str,
    usage: Mapping[str, int],
) -> Iterable[tuple[str, dict[str, Any]]]:
    start_usage = dict(usage, output_tokens=1)
    yield (
        "message_start",
        {
            "type": "message_start",
            "message": {
                "id": message_id,
                "type": "message",
                "role": "assistant",
                "model": model,
                "content": [],
                "stop_reason": None,
                "stop_sequence": None,
                "usage": start_usage,
            },
        },
    )
    yield "ping", {"type": "ping"}
    for index, block in enumerate(blocks):
        if block["type"] == "text":
            yield (
                "content_block_start",
                {
                    "type": "content_block_start",
                    "index": index,
                    "content_block": {"type": "text", "text": ""},
                },
            )
            yield (
                "content_block_delta",
                {
                    "type": "content_block_delta",
                    "index": index,
                    "delta": {"type": "text_delta", "text": block["text"]},
                },
            )
        else:
            yield (
                "content_block_start",
                {
                    "type": "content_block_start",
                    "index": index,
                    "content_block": {
                        "type": "tool_use",
                        "id": block["id"],
                        "name": block["name"],
                        "input": {},
                    },
                },
            )
            # Split the JSON in two deltas, as the real API streams it in pieces.
            partial = json.dumps(block["input"])
            half = len(partial) // 2
            for piece in (partial[:half], partial[half:]):
                yield (
                    "content_block_delta",
                    {
                        "type": "content_block_delta",
                        "index": index,
                        "delta": {"type": "input_json_delta", "partial_json": piece},
                    },
                )
        yield "content_block_stop", {"type": "content_block_stop", "index": index}
    yield (
        "message_delta",
        {
            "type": "message_delta",
            "delta": {"stop_reason": stop_reason, "stop_sequence": None},
            "usage": {"output_tokens": usage["output_tokens"]},
        },
    )
    yield "message_stop", {"type": "message_stop"}


def _estimate_tokens(body: Any) -> int:
    # Claude Code only uses the count to decide on auto-compaction; a rough figure is enough.
    return max(1, len(json.dumps(body)) // 4) if body is not None else 1
