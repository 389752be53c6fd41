"""A loopback stand-in for the Anthropic Messages API, and realistic reply bodies.

Used by tests/test_llm.py: the mock-transport tests take the bodies, one test talks to
:func:`serve` over real sockets on 127.0.0.1 with ``base_url`` pointed at it.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


def tool_use_message(
    tool_input: Any,
    *,
    name: str = "record_knowledge",
    input_tokens: int = 1234,
    output_tokens: int = 56,
    model: str = "claude-haiku-4-5",
) -> dict[str, Any]:
    """A Messages API reply whose only content block is a forced tool call."""
    return {
        "id": "msg_01XFDUDYJgAACzvnptvVoYEL",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [
            {
                "type": "tool_use",
                "id": "toolu_01A09q90qw90lq917835lq9",
                "name": name,
                "input": tool_input,
            }
        ],
        "stop_reason": "tool_use",
        "stop_sequence": None,
        "usage": {
            "input_tokens": input_tokens,
            "output_tokens": output_tokens,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
        },
    }


def text_message(text: str, *, input_tokens: int = 900, output_tokens: int = 12) -> dict[str, Any]:
    """A Messages API reply that answers in prose instead of calling the tool."""
    reply = tool_use_message({}, input_tokens=input_tokens, output_tokens=output_tokens)
    reply["content"] = [{"type": "text", "text": text}]
    reply["stop_reason"] = "end_turn"
    return reply


def error_body(kind: str, message: str) -> dict[str, Any]:
    """The API's error envelope, e.g. ``error_body("overloaded_error", "Overloaded")``."""
    return {"type": "error", "error": {"type": kind, "message": message}}


@dataclass(frozen=True)
class Received:
    """One request the stand-in answered."""

    method: str
    path: str
    headers: Mapping[str, str]  # lower-cased names
    body: Any  # parsed JSON, or the raw text when it was not JSON


@dataclass
class StandIn:
    """A running stand-in: where it listens and what it received."""

    base_url: str  # http://127.0.0.1:<port>
    requests: list[Received] = field(default_factory=list)


@contextmanager
def serve(reply: Mapping[str, Any], *, status: int = 200) -> Iterator[StandIn]:
    """A ThreadingHTTPServer on 127.0.0.1:<free port> answering every POST with ``reply``."""
    requests: list[Received] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length).decode("utf-8", "replace")
            try:
                body: Any = json.loads(raw)
            except ValueError:
                body = raw
            headers = {k.lower(): v for k, v in self.headers.items()}
            requests.append(Received(method="POST", path=self.path, headers=headers, body=body))
            payload = json.dumps(reply).encode("utf-8")
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.send_header("request-id", "req_standin")
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, format: str, *args: Any) -> None:
            # Keep pytest output clean; the requests list is the record.
            return

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
    )
    thread.start()
    host, port = server.server_address[:2]
    try:
        yield StandIn(base_url=f"http://{host!s}:{port}", requests=requests)
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)
