"""A minimal MCP client for the bench: ``python -I -S bench/mcp_client.py QUERY -- SERVER ARGV``.

Starts the server, initializes the session, calls its ``recall`` tool once with QUERY, prints the
tool's answer (one JSON line), closes the server's stdin and waits for it to exit: the life of
this process is a client's cold start to its first recall answer. Standard library only and
run as ``python -I -S``, so the client costs a bare interpreter start and nothing more.
"""

from __future__ import annotations

import json
import subprocess
import sys
from typing import IO, Any

PROTOCOL = "2025-06-18"


def _send(pipe: IO[str], message: dict[str, Any]) -> None:
    pipe.write(json.dumps({"jsonrpc": "2.0", **message}) + "\n")
    pipe.flush()


def _answer(pipe: IO[str], request_id: int) -> dict[str, Any]:
    for line in pipe:
        message = json.loads(line)
        if message.get("id") == request_id:
            if "error" in message:
                raise SystemExit(f"MCP error: {message['error']}")
            return dict(message["result"])
    raise SystemExit(f"the server closed its output before answering request {request_id}")


def main(argv: list[str]) -> int:
    """Run one recall through the server named by ``argv`` (after ``--``)."""
    query, sep, *server = argv
    if sep != "--" or not server:
        raise SystemExit(__doc__)
    proc = subprocess.Popen(server, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert proc.stdin is not None and proc.stdout is not None
    _send(proc.stdin, {"id": 1, "method": "initialize", "params": {
        "protocolVersion": PROTOCOL, "capabilities": {},
        "clientInfo": {"name": "vaultmem-bench", "version": "1"}}})
    _answer(proc.stdout, 1)
    _send(proc.stdin, {"method": "notifications/initialized"})
    _send(proc.stdin, {"id": 2, "method": "tools/call",
                       "params": {"name": "recall", "arguments": {"query": query, "limit": 5}}})
    result = _answer(proc.stdout, 2)
    proc.stdin.close()
    code = proc.wait()
    if result.get("isError"):
        raise SystemExit(f"recall failed: {result['content'][0]['text']}")
    print(result["content"][0]["text"].replace("\n", " "))
    return code


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
