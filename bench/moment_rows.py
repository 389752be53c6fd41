"""The moment hooks' rows (issue 31): ``vaultmem hook user-prompt-submit`` and ``vaultmem hook
post-tool-use-failure`` on the large vault, each against the import floor (goal: at most 1.3x).
Each run is a fresh session (a fact is told once per session) naming one of the vault's known
answers, a gotcha of an entity of the project, so the whole lookup runs and has something to
tell; the row checks it was told. Each run is paired with a run of the floor just before it
(untimed for the row) and the note gives the median of run / floor, wall and CPU: on a shared
machine the load drifts between rows far more than between neighbouring runs."""

from __future__ import annotations

import json
import statistics
import uuid
from collections.abc import Callable

from .cases import PY, VaultmemEnv, notes_label
from .runner import Case, Sample, run_command

FLOOR = [PY, "-c", "import yaml, markdown_it, filelock"]
GOAL = 1.3


def moment_cases(env: VaultmemEnv) -> list[Case]:
    """The two rows, on ``env``'s first project."""
    mine = [a for a in env.answers() if f"/projects/{env.project}/entities/" in a.rel]
    told: dict[str, list[bool]] = {"prompt": [], "failure": []}
    ratios: dict[str, list[tuple[float, float]]] = {"prompt": [], "failure": []}
    # Known answers are "<word> <entity>", from "Fixed by editing `src/<entity>/client.py` to
    # strip the <word> header: `pytest …` failed (`E   RetryError: <word> header breaks <entity>
    # retries`)" (bench/generate.py).
    pairs = [a.query.split(" ", 1) for a in mine]

    def payload(event: str, **extra: object) -> bytes:
        return json.dumps({"session_id": str(uuid.uuid4()), "transcript_path": str(env.transcript),
                           "cwd": str(env.cwd), "hook_event_name": event, **extra}).encode()

    def case(kind: str, hook: str, make: Callable[[str, str], bytes]) -> Callable[[], Sample]:
        counter = iter(range(1_000_000))

        def run() -> Sample:
            if not pairs:
                raise RuntimeError(f"no known answer in project {env.project}")
            if not (env.root / ".vaultmem" / "index.sqlite").exists():
                env.vaultmem("recall", "warm", "--json")  # untimed: the index SessionStart keeps
            word, entity = pairs[next(counter) % len(pairs)]
            floor = run_command(FLOOR)
            sample = env.vaultmem("hook", hook, stdin=make(word, entity))
            told[kind].append("additionalContext" in sample.stdout and word in sample.stdout)
            ratios[kind].append((sample.seconds / floor.seconds,
                                 (sample.cpu or 0.0) / (floor.cpu or 1e-9)))
            return sample

        return run

    prompt = case("prompt", "user-prompt-submit", lambda word, entity: payload(
        "UserPromptSubmit", prompt=f"why does the {word} header break {entity} retries?"))
    failure = case("failure", "post-tool-use-failure", lambda word, entity: payload(
        "PostToolUseFailure", tool_name="Bash", is_interrupt=False,
        tool_input={"command": f"pytest tests/test_{entity}.py"},
        error=f"Exit code 1\nE   RetryError: {word} header breaks {entity} retries"))
    n = notes_label(len(env.vault.notes))

    def verdict(kind: str) -> Callable[[], str]:
        def say() -> str:
            if not ratios[kind]:
                return ""
            wall = statistics.median(r[0] for r in ratios[kind])
            cpu = statistics.median(r[1] for r in ratios[kind])
            return (f"told {sum(told[kind])}/{len(told[kind])} runs; {wall:.2f}x the import floor "
                    f"beside each run (cpu {cpu:.2f}x; goal {GOAL}x)")
        return say

    return [
        Case(f"hook user-prompt-submit ({n})", "vaultmem", prompt,
             note="a prompt naming a gotcha of the project: index lookup, facts told",
             check=verdict("prompt")),
        Case(f"hook post-tool-use-failure ({n})", "vaultmem", failure,
             note="a failure whose error names a recorded gotcha: its fix told",
             check=verdict("failure")),
    ]
