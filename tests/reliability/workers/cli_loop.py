"""Reliability worker: run ``python -m vaultmem`` COUNT times in a row, one real CLI process each.

Usage: cli_loop.py VAULT MODE WORKER COUNT
MODE "log": ``vaultmem session log "Body of <name>." --title <name> --session-id s-race``.
MODE "patch": ``vaultmem patch Auth --heading "Key Decisions" --append "- <name>"``.
Names are ``w<WORKER>-e<I>``. Prints one JSON line: {"failures": [stderr of failed runs]}.
"""

from __future__ import annotations

import json
import subprocess
import sys


def main(argv: list[str]) -> int:
    root, mode, worker, count = argv
    failures: list[str] = []
    for i in range(int(count)):
        name = f"w{worker}-e{i}"
        if mode == "log":
            args = ["session", "log", f"Body of {name}.", "--title", name,
                    "--session-id", "s-race"]
        else:
            args = ["patch", "Auth", "--heading", "Key Decisions", "--append", f"- {name}"]
        proc = subprocess.run(
            [sys.executable, "-m", "vaultmem", "--vault", root, "--project", "demo", *args],
            capture_output=True, text=True, check=False, timeout=300,
        )
        if proc.returncode != 0:
            failures.append(f"{name}: exit {proc.returncode}: {proc.stderr.strip()}")
    print(json.dumps({"failures": failures}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
