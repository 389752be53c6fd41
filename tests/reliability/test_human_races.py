"""A person's edit lands between vaultmem's read of a note and its write, on every write path.

The person writes the way an editor does (in place, no lock). Where the edit lands is a seam of
the library: just before the path's locked ``Vault.update`` (after whatever it loaded earlier), at
a ``faults.checkpoint`` of compaction or promote, or just before a whole-note write or removal.
Each time the person's line must survive exactly once and Claude's change must land exactly once
(or, for a replace made against an older read, go under ``## Claude's Updates (conflicted)``).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from vaultmem import faults
from vaultmem.claude import hooks
from vaultmem.memory import editing
from vaultmem.memory.promote import promote
from vaultmem.notes import patch
from vaultmem.notes.frontmatter import parse
from vaultmem.store.config import Config
from vaultmem.store.vault import Vault

from .kit import ENTITIES, ENTITY, NOW, PROJECT, SESSION, SID, entity_text, memory, now, small_vault

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "claude-code"
PERSON = "A line the person typed in Obsidian meanwhile."
HOOK_SID = "fc36e08a-6ff2-4298-8934-7cf92c8028d4"
CONFLICT = "## Claude's Updates (conflicted)"
GLOBAL_AUTH = "claude/global/entities/Auth.md"
LINKER = f"claude/projects/{PROJECT}/notes/Linker.md"
OTHER = "claude/projects/other/entities/Cache.md"


def person_edits(root: Path, rel: str, heading: str) -> None:
    """The person adds PERSON right under ``heading`` (creating the note when it is missing),
    written in place like an editor saves."""
    path = root / rel
    if not path.exists():
        path.write_text(f"# {Path(rel).stem}\n\n## {heading}\n\n{PERSON}\n")
        return
    lines = path.read_text().split("\n")
    at = lines.index(f"## {heading}") + 1
    lines[at:at] = ["", PERSON]
    with open(path, "r+b") as f:
        f.write("\n".join(lines).encode())
        f.truncate()


@dataclass(frozen=True)
class Seam:
    """Where the person's edit lands: before the ``nth`` matching call of a Vault method, or
    at a named fault checkpoint."""

    where: str  # "update", "write_text", "remove" (Vault methods) or "checkpoint"
    rel: str = ""  # the note the call is about (not for checkpoints)
    name: str = ""  # the checkpoint name
    nth: int = 1
    sections_only: bool = False  # count only update calls that patch a section


@dataclass
class Landed:
    count: int = 0


def install(monkeypatch: pytest.MonkeyPatch, seam: Seam, edit: Callable[[], None]) -> Landed:
    """Make the person's ``edit`` happen at ``seam``; returns how often it happened."""
    landed = Landed()
    calls = 0

    def fire() -> None:
        nonlocal calls
        calls += 1
        if calls == seam.nth:
            edit()
            landed.count += 1

    if seam.where == "checkpoint":
        real_checkpoint = faults.checkpoint

        def checkpoint(name: str) -> None:
            if name == seam.name:
                fire()
            real_checkpoint(name)

        monkeypatch.setattr(faults, "checkpoint", checkpoint)
        return landed
    real = getattr(Vault, seam.where)

    def wrapper(self: Vault, rel: str, *args: Any, **kwargs: Any) -> Any:
        edits = args[0] if args else kwargs.get("edits", ())
        sectioned = any(isinstance(e, patch.SectionPatch) for e in edits) if (
            seam.where == "update") else True
        if rel == seam.rel and (sectioned or not seam.sections_only):
            fire()
        return real(self, rel, *args, **kwargs)

    monkeypatch.setattr(Vault, seam.where, wrapper)
    return landed


# -- the write paths -------------------------------------------------------------------------


def _session_with_decisions(root: Path) -> None:
    m = memory(root)
    m.decide("Use JWT for sessions", why="stateless", entities=["Auth"], session_id=SID, now=now())
    m.decide("Bill monthly", entities=["Billing"], session_id=SID, now=now())
    m.end_session(compact=False, session_id=SID, now=now())


def _run_hook(root: Path, tmp: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    transcript = tmp / "transcript.jsonl"
    transcript.write_bytes((FIXTURES / "transcript.jsonl").read_bytes())
    payload = json.loads((FIXTURES / "hook-Stop.json").read_text())
    payload.update(transcript_path=str(transcript), cwd=str(tmp))
    for key, value in (("VAULTMEM_VAULT", str(root)), ("VAULTMEM_PROJECT", PROJECT),
                       ("VAULTMEM_NOW", NOW)):
        monkeypatch.setenv(key, value)
    out, warnings = hooks.run("stop", json.dumps(payload))
    assert (out, warnings) == ("", [])


@dataclass(frozen=True)
class Case:
    """One write path: its set-up, the call, where the person's edit lands, what must hold."""

    id: str
    act: Callable[[Path, Path, pytest.MonkeyPatch], object]
    seam: Seam
    person_note: str
    person_heading: str
    claude: str  # a line of Claude's change that must be in the final note exactly once
    final: str = ""  # the note both must be in, when not person_note
    setup: Callable[[Path], None] = lambda root: None
    conflicted: bool = False
    xfail: str = ""


def _log(root: Path, tmp: Path, mp: pytest.MonkeyPatch) -> object:
    return memory(root).log("Claude's body.", title="Claude entry", session_id=SID, now=now())


def _decide(root: Path, tmp: Path, mp: pytest.MonkeyPatch) -> object:
    return memory(root).decide("Claude decides", why="a reason", entities=["Auth"],
                               session_id=SID, now=now())


def _end(root: Path, tmp: Path, mp: pytest.MonkeyPatch) -> object:
    return memory(root).end_session(compact=False, session_id=SID, now=now())


def _resume(root: Path, tmp: Path, mp: pytest.MonkeyPatch) -> object:
    return memory(root).start_session(SID, now=now() + timedelta(days=1))


def _patch(op: str, heading: str, content: str) -> Callable[[Path, Path, pytest.MonkeyPatch], object]:
    def act(root: Path, tmp: Path, mp: pytest.MonkeyPatch) -> object:
        return editing.patch_section(Vault(root), ENTITY, (heading,), op, content)  # type: ignore[arg-type]
    return act


def _replace_with_base(root: Path, tmp: Path, mp: pytest.MonkeyPatch) -> object:
    vault = Vault(root)
    base = vault.read(ENTITY)
    edit = patch.SectionPatch(("Key Decisions",), "replace", "- Claude's rewrite")
    result = vault.update(ENTITY, [edit], base=base, label="claude")
    assert result.status == "conflicted"
    return result


def _set(root: Path, tmp: Path, mp: pytest.MonkeyPatch) -> object:
    return editing.set_property(Vault(root), ENTITY, "status", "draft")


def _compact(root: Path, tmp: Path, mp: pytest.MonkeyPatch) -> object:
    report = memory(root).compact_note(SESSION, force=True, now=now())
    assert report.status == "compacted", report.error
    return report


def _hook_stop(root: Path, tmp: Path, mp: pytest.MonkeyPatch) -> object:
    _run_hook(root, tmp, mp)
    return None


def _hook_session(topic: str | None) -> Callable[[Path], None]:
    def setup(root: Path) -> None:
        memory(root).start_session(HOOK_SID, topic=topic, now=now())
    return setup


def _promote(root: Path, tmp: Path, mp: pytest.MonkeyPatch) -> object:
    result = promote(Vault(root), Config(vault=root, project=PROJECT), "Auth")
    assert result.status == "promoted"
    return result


def _linker(root: Path) -> None:
    path = root / LINKER
    path.parent.mkdir(parents=True)
    path.write_text("# Linker\n\n## Links\n\nSee [[claude/projects/demo/entities/Auth]].\n")


def _other_project_entity(root: Path) -> None:
    path = root / OTHER
    path.parent.mkdir(parents=True)
    path.write_text(entity_text("Cache", project="other"))


def _show_other(root: Path, tmp: Path, mp: pytest.MonkeyPatch) -> object:
    return editing.show(Vault(root), "Cache", current_project=PROJECT)


HOOK_NOTE = f"claude/projects/{PROJECT}/sessions/2026-11-22-hooked.md"
FRESH_NOTE = f"claude/projects/{PROJECT}/sessions/2026-11-22-session.md"
RENAMED_NOTE = f"claude/projects/{PROJECT}/sessions/2026-11-22-add-a-login-module-and-run.md"
CASES = [
    Case("session-log", _log, Seam("update", SESSION), SESSION, "Work Log",
         "### 10:30 - Claude entry"),
    Case("session-decide", _decide, Seam("update", SESSION), SESSION, "Decisions Made",
         "- Claude decides — why: a reason ([[claude/projects/demo/entities/Auth|Auth]])"),
    Case("session-end", _end, Seam("update", SESSION), SESSION, "Work Log",
         "### 10:30 - Session End"),
    Case("session-resume", _resume, Seam("update", SESSION), SESSION, "Context",
         "claude_last_accessed: 2026-11-23"),
    Case("patch-append", _patch("append", "Key Decisions", "- Claude's decision"),
         Seam("update", ENTITY), ENTITY, "Key Decisions", "- Claude's decision"),
    Case("patch-prepend", _patch("prepend", "Key Decisions", "- Claude's decision"),
         Seam("update", ENTITY), ENTITY, "Key Decisions", "- Claude's decision"),
    # The CLI's replace reads under the lock: a person's earlier edit of another section stays.
    Case("patch-replace", _patch("replace", "Gotchas & Troubleshooting", "Claude's gotchas."),
         Seam("update", ENTITY), ENTITY, "Overview", "Claude's gotchas."),
    # A replace made against an older read is never forced over the person's section.
    Case("replace-with-base", _replace_with_base, Seam("update", ENTITY), ENTITY,
         "Key Decisions", "- Claude's rewrite", conflicted=True),
    Case("set", _set, Seam("update", ENTITY), ENTITY, "Overview", "status: draft"),
    Case("compaction-entity-patch", _compact, Seam("checkpoint", name="compact:entity-patch:Auth"),
         ENTITY, "Key Decisions", " — Use JWT for sessions — why: stateless (",
         setup=_session_with_decisions),
    Case("compaction-entity-create", _compact,
         Seam("checkpoint", name="compact:entity-create:Billing"), f"{ENTITIES}/Billing.md",
         "Overview", " — Bill monthly (", setup=_session_with_decisions),
    # The backlink is written with the entity's lines, in its one rewrite.
    Case("compaction-backlink", _compact, Seam("update", ENTITY), ENTITY, "References",
         "Archived session (compacted)", setup=_session_with_decisions),
    Case("compaction-mark-original", _compact, Seam("update", SESSION), SESSION, "Next Steps",
         "status: archived", setup=_session_with_decisions),
    Case("hook-stop-ingest", _hook_stop, Seam("update", HOOK_NOTE, sections_only=True), HOOK_NOTE,
         "Decisions Made", "- Use RS256-signed JWTs because keys can rotate without redeploying.",
         setup=_hook_session("hooked")),
    # The first Stop hook renames a <date>-session note after the first prompt.
    Case("hook-stop-rename", _hook_stop, Seam("remove", FRESH_NOTE), FRESH_NOTE, "Context",
         "**Prompt:** Add a login module and run the tests", final=RENAMED_NOTE,
         setup=_hook_session(None)),
    Case("promote-source", _promote, Seam("checkpoint", name="promote:relinked"), ENTITY,
         "Key Decisions", "promoted_from: demo", final=GLOBAL_AUTH),
    Case("promote-relink", _promote, Seam("write_text", LINKER), LINKER, "Links",
         "See [[claude/global/entities/Auth]].", setup=_linker),
    Case("cross-project-recall", _show_other, Seam("update", OTHER), OTHER, "Overview",
         "  - project: demo", setup=_other_project_entity),
]


def _param(case: Case) -> Any:
    marks = [pytest.mark.xfail(strict=True, reason=case.xfail)] if case.xfail else []
    return pytest.param(case, id=case.id, marks=marks)


@pytest.mark.parametrize("case", [_param(c) for c in CASES])
def test_person_edit_between_read_and_write_survives(
    vault_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, case: Case
) -> None:
    small_vault(vault_root)
    case.setup(vault_root)
    landed = install(monkeypatch, case.seam,
                     lambda: person_edits(vault_root, case.person_note, case.person_heading))
    case.act(vault_root, tmp_path, monkeypatch)
    assert landed.count == 1  # the race really happened
    final = vault_root / (case.final or case.person_note)
    assert final.exists()
    text = final.read_text()
    parse(text)  # still valid
    # The person's line survived, once, anywhere vaultmem keeps the note's content.
    assert text.split("\n").count(PERSON) == 1
    lines = text.split("\n")
    assert sum(case.claude in ln for ln in lines) == 1, text
    if case.conflicted:
        # Their section is theirs; Claude's text waits in the conflict box.
        assert lines.index(CONFLICT) > lines.index(PERSON)
        assert lines.index(CONFLICT) < next(i for i, ln in enumerate(lines) if case.claude in ln)
        assert "- An older decision" in lines
    else:
        assert CONFLICT not in lines


# -- inside the write itself ---------------------------------------------------------------

# The atomic write re-stats the note right before os.replace and redoes the edit on the fresh
# text when it moved; an edit saved at the 'write' checkpoint must survive.
@pytest.mark.parametrize("case", [c for c in CASES if c.id in (
    "session-log", "session-decide", "patch-append", "set", "hook-stop-ingest")],
    ids=lambda c: c.id)
def test_person_edit_inside_the_atomic_write_survives(
    vault_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, case: Case
) -> None:
    small_vault(vault_root)
    case.setup(vault_root)
    seam = Seam("checkpoint", name="write")
    landed = install(monkeypatch, seam,
                     lambda: person_edits(vault_root, case.person_note, case.person_heading))
    case.act(vault_root, tmp_path, monkeypatch)
    assert landed.count == 1
    lines = (vault_root / case.person_note).read_text().split("\n")
    assert lines.count(PERSON) == 1
    assert sum(case.claude in ln for ln in lines) == 1
