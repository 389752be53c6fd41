"""What redaction costs a hook: a 3.5 MB session transcript read by a new process (as a hook
reads it), with redaction on, beside the same read with it off.

The transcript is real-shaped: the fixture session's line kinds, and per turn a prompt, a
paragraph or two of Claude's prose with code, config and paths in it (the text a hook keeps and
scans), a few commands and their outputs (2 to 20 kB each, only their error line kept), and now
and then a secret pasted, exported, quoted by an error, said in prose, given to a command's flag
or base64-encoded (one prompt in 12). The row checks that every secret planted came out redacted.
"""

from __future__ import annotations

import base64
import json
import random
import sys
import uuid
from pathlib import Path

from .runner import Case, Sample, Workspace, run_command

SIZE_BYTES = 3_500_000
SEED = 23

READ_SCRIPT = (
    "import sys\n"
    "from vaultmem.claude import transcript\n"
    "from vaultmem.notes.redact import DEFAULT, Redaction\n"
    "scrub = DEFAULT if sys.argv[2] == 'on' else Redaction(enabled=False)\n"
    "read = transcript.read(sys.argv[1], scrub=scrub)\n"
    "print(repr(read.turns).count('‹redacted:'), len(read.turns))\n"
)

_PROSE = [
    ("I'll update `src/billing/charge.py` so the retry uses the idempotency key from the request;"
    " the config reads `timeout: 30` and `retries = 3` from `settings.toml`."),
    ("The failing test is `tests/test_charge.py::test_refund_twice`: the second refund returns"
    " 409 because `refund_id` is reused. Fix: derive it from the charge id and the amount."),
    ("Decision: keep the token cache in Redis with a TTL of 300 s, because the auth service"
    " rate-limits at 10 requests per second per client."),
    ("```python\ndef load(path: str) -> dict[str, str]:\n    password = os.environ['DB_PASSWORD']\n"
    "    return {'dsn': f'postgres://app@{host}/shop', 'user': user}\n```"),
    ("Commit 8f14e45fceea167a5a36dedd4ea2543f1234abcd moved the handler; the session id"
    " 123e4567-e89b-12d3-a456-426614174000 is in the log at /var/log/shop/app.log."),
    "Next step: run `npm run build` and check that `max_tokens: 4096` still fits the prompt.",
]
_COMMANDS = ["pytest -q tests/test_charge.py", "git status --short", "npm run build",
             "rg -n 'refund_id' src/", "python -m billing.charge --dry-run"]


def _secrets(rng: random.Random) -> list[tuple[str, str]]:
    """(where it goes, the text): fresh fake values each call."""
    def word(n: int, alphabet: str = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
             ) -> str:
        return "".join(rng.choice(alphabet) for _ in range(n))

    return [
        ("prompt", f"use this token ghp_{word(36)} for the registry"),
        ("command", f"export AWS_SECRET_ACCESS_KEY={word(40)} && aws s3 ls"),
        ("command", f'psql "postgres://admin:{word(16)}@db.internal/shop"'),
        ("error", f"anthropic.AuthenticationError: invalid x-api-key sk-ant-api03-{word(80)}"),
        ("prose", f"Make sure `STRIPE_SECRET_KEY=sk_live_{word(24)}` is exported."),
        # Known by their context only (issue 30): no vendor shape, no assignment.
        ("prose", f"the prod db password is {word(6)}-{word(4)}9"),
        ("command", f"mysql -uroot -p{word(12)}7 -h db.internal shop"),
        ("command", f"redis-cli -u redis://:{word(18)}3@cache.internal:6379 ping"),
        ("prompt", "here is the old env file: " + base64.b64encode(
            f"GITHUB_TOKEN=ghp_{word(36)}".encode()).decode()),
    ]


def real_shaped_transcript(path: Path, size: int = SIZE_BYTES, seed: int = SEED) -> int:
    """Write the transcript; returns how many secrets it holds."""
    rng = random.Random(seed)
    planted = 0
    turn = 0
    with path.open("w", encoding="utf-8") as out:
        while out.tell() < size:
            turn += 1
            kinds = _secrets(rng)
            secret = kinds[(turn // 12) % len(kinds)] if turn % 12 == 0 else None
            planted += secret is not None
            prompt = f"Turn {turn}: fix the refund flow, then run the tests"
            if secret and secret[0] == "prompt":
                prompt += " — " + secret[1]
            prose = "\n\n".join(rng.sample(_PROSE, 2))
            if secret and secret[0] == "prose":
                prose += "\n\n" + secret[1]
            commands = rng.sample(_COMMANDS, 3)
            if secret and secret[0] == "command":
                commands[0] = secret[1]
            ids = [f"toolu_{uuid.UUID(int=rng.getrandbits(128)).hex[:20]}" for _ in commands]
            outputs = ["\n".join(f"src/billing/mod_{i}.py:{i * 7}: ok {rng.getrandbits(32):08x}"
                                 for i in range(rng.randint(40, 400))) for _ in commands]
            if secret and secret[0] == "error":
                outputs[0] = "Traceback (most recent call last):\n" + secret[1] + "\n" + outputs[0]
            lines = [
                {"type": "user", "message": {"role": "user", "content": prompt}},
                {"type": "assistant", "message": {"role": "assistant", "content": [
                    {"type": "text", "text": prose},
                    *({"type": "tool_use", "id": i, "name": "Bash", "input": {"command": c}}
                      for i, c in zip(ids, commands)),
                ]}},
                {"type": "user", "message": {"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": i, "content": o,
                     "is_error": o.startswith("Traceback")} for i, o in zip(ids, outputs)]}},
            ]
            for line in lines:
                line.update(uuid=str(uuid.UUID(int=rng.getrandbits(128))),
                            timestamp="2026-11-22T10:00:00.000Z", sessionId="bench")
                out.write(json.dumps(line) + "\n")
    return planted


def redaction_cases(ws: Workspace, env: dict[str, str]) -> list[Case]:
    """The two rows: the read with redaction on, and the floor with it off."""
    path = ws.path("redaction") / "transcript.jsonl"
    planted: list[int] = []
    results: dict[str, str] = {}

    def read(mode: str) -> Sample:
        if not planted:
            planted.append(real_shaped_transcript(path))
        sample = run_command([sys.executable, "-c", READ_SCRIPT, str(path), mode], env=env)
        results[mode] = sample.stdout.strip()
        return sample

    def check() -> str:
        found, turns = (int(n) for n in results.get("on", "0 0").split())
        verdict = "all redacted" if found >= planted[0] else f"ONLY {found} redacted"
        return f"{planted[0]} secrets planted in {turns:,} turns: {verdict}"

    megabytes = SIZE_BYTES / 1_000_000
    return [
        Case(f"redaction: read a {megabytes} MB transcript in a new process, redaction on",
             "vaultmem", lambda: read("on"), check=check,
             note="what a hook pays: the rules from their cache, every kept field scanned"),
        Case(f"floor: the same read, redaction off ({megabytes} MB)", "floor",
             lambda: read("off"), note="the difference is redaction's cost"),
    ]

