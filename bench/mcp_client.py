"""A minimal MCP client for the bench: ``python -I -S bench/mcp_client.py QUERY -- SERVER ARGV``.

Starts the server, initializes the session, calls its ``recall`` tool twice with QUERY, closes
the server's stdin and waits for it to exit. Prints two JSON lines: the first call's answer,
then ``{"seconds": …, "ready": …, "warm": …, "cpu": …, "maxrss_kib": …}``: the wall time from
the server's spawn to the first recall answer on its stdout (a client's wait for its first
answer; the client's own start and the server's exit are not in it), from the spawn to the
initialize answer (the server ready), the second call alone (a warm call, as every call of a
session after its first), and the server's CPU time and peak RSS from ``os.wait4``.
Standard library only and run as ``python -I -S``, so the client itself is a bare interpreter.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
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
    started = time.perf_counter()
    proc = subprocess.Popen(server, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert proc.stdin is not None and proc.stdout is not None
    _send(proc.stdin, {"id": 1, "method": "initialize", "params": {
        "protocolVersion": PROTOCOL, "capabilities": {},
        "clientInfo": {"name": "vaultmem-bench", "version": "1"}}})
    _answer(proc.stdout, 1)
    ready = time.perf_counter() - started
    _send(proc.stdin, {"method": "notifications/initialized"})
    call = {"name": "recall", "arguments": {"query": query, "limit": 5}}
    _send(proc.stdin, {"id": 2, "method": "tools/call", "params": call})
    result = _answer(proc.stdout, 2)
    seconds = time.perf_counter() - started
    _send(proc.stdin, {"id": 3, "method": "tools/call", "params": call})
    _answer(proc.stdout, 3)
    warm = time.perf_counter() - started - seconds
    proc.stdin.close()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if result.get("isError"):
        raise SystemExit(f"recall failed: {result['content'][0]['text']}")
    print(result["content"][0]["text"].replace("\n", " "))
    print(json.dumps({"seconds": seconds, "ready": ready, "warm": warm,
                      "cpu": usage.ru_utime + usage.ru_stime,
                      "maxrss_kib": usage.ru_maxrss}))
    return proc.returncode


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
