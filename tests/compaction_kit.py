"""Shared set-up for the session/compaction tests: a vault with a big session note, snapshots."""

from __future__ import annotations

import os
import time
from datetime import datetime
from pathlib import Path

from vaultmem.memory.sessions import Memory
from vaultmem.notes import patch
from vaultmem.store.config import Config
from vaultmem.store.vault import Vault

NOW = "2026-11-25T10:30:00"
PROJECT = "demo"


def memory(root: Path, **config: object) -> Memory:
    """A Memory over ``root`` for the demo project."""
    return Memory(Config(vault=root, project=PROJECT, **config), Vault(root))  # type: ignore[arg-type]


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file of the vault outside ``.vaultmem`` (locks and state), by relative path."""
    out: dict[str, bytes] = {}
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d != ".vaultmem"]
        for name in files:
            path = Path(folder) / name
            out[path.relative_to(root).as_posix()] = path.read_bytes()
    return out


def entity_text(name: str, project: str = PROJECT) -> str:
    """An entity note a person already has."""
    return (
        f"---\ntype: entity\nproject: {project}\ncreated: 2026-10-01\nupdated: 2026-10-01\n"
        f"status: active\n---\n# {name}\n\n## Overview\n\nWhat {name} is.\n\n## Key Decisions\n\n"
        f"- An older decision\n\n## Gotchas & Troubleshooting\n\n## Recent Changes\n\n"
        f"## References\n"
    )


def build(root: Path, *, entities: int = 12, existing: int = 6, lines: int = 600,
          session_id: str = "s-big") -> str:
    """A vault with one session note of about ``lines`` lines touching ``entities`` entities,
    the first ``existing`` of which exist already (the last existing one in global/). Returns
    the session note's rel; the session is ended (a minute ago, by the files' mtimes), so it is
    not the current one."""
    m = memory(root)
    names = [f"Entity {i:02d}" for i in range(1, entities + 1)]
    for i, name in enumerate(names[:existing]):
        where = ("claude/global/entities" if i == existing - 1
                 else f"claude/projects/{PROJECT}/entities")
        path = root / where / f"{name}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(entity_text(name))
    rel = m.start_session(session_id, topic="big session", now=now()).note
    log: list[str] = []
    decisions: list[str] = []
    n = 0
    while True:
        name = names[n % len(names)]
        if n % 3 == 0:
            decisions.append(f"- Decision {n} about [[{name}]] — why: reason {n}")
        kind = "Fixed bug" if n % 4 == 0 else "Worked"
        log.append(f"### 10:{n % 60:02d} - {kind} number {n}\n\n"
                   f"Touched [[{name}]] while doing step {n}. More words here.\n"
                   f"<private>secret token {n}</private> and a second line.")
        n += 1
        if 30 + 5 * len(log) + len(decisions) >= lines:
            break
    m.vault.update(rel, [
        patch.SectionPatch(("Work Log",), "append", "\n\n".join(log)),
        patch.SectionPatch(("Decisions Made",), "append", "\n".join(decisions)),
    ])
    m.end_session(compact=False, session_id=session_id, now=now())
    age(root)  # the session ended a while ago (and the entities a person wrote)
    return rel


def age(root: Path, seconds: float = 60.0) -> None:
    """Date every file of the vault ``seconds`` back: a vault no program wrote moments ago.
    (A note another program wrote in the last ACTIVE_SECONDS is watched after each replace for
    an editor's save, flux.grace: tests that are not about editors would sleep there.)"""
    from vaultmem.store import flux

    assert seconds > flux.ACTIVE_SECONDS
    then = time.time() - seconds
    for folder, _dirs, files in os.walk(root):
        for name in files:
            os.utime(Path(folder) / name, (then, then), follow_symlinks=False)


def now() -> datetime:
    """The fixed time of these tests, as an aware local datetime (like clock.now)."""
    return datetime.fromisoformat(NOW).astimezone()
