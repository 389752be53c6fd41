"""One fact, one line (issue 29): a failure, its fix and the report that explains both reach the
session note and the entity note once, though four sources state them (the report's cause and
fix, the same cause in prose, the install that fixed the run, the cause joined to the failed
command). Real hook commands on a made-up transcript, in a temporary vault."""

from __future__ import annotations

import re
from pathlib import Path

from hook_kit import ENTITIES, hook_env, payload, run_cli, run_hook, session_notes
from transcript_kit import Transcript

REPORT = (
    "## The Problem\n"
    "`python deploy.py --env staging` failed with `ModuleNotFoundError: No module named "
    "'requests'` because the `requests` package was not installed in the virtualenv.\n\n"
    "## The Fix\n"
    "Installed it with `pip install requests`; the staging deploy now passes."
)


def _session(path: Path) -> Transcript:
    log = Transcript(path)
    log.prompt("deploy to staging")
    log.call("b1", "Bash", {"command": "python deploy.py --env staging"})
    log.result("b1", "Exit code 1\nTraceback (most recent call last):\n  File \"deploy.py\", "
               "line 3, in <module>\nModuleNotFoundError: No module named 'requests'",
               error=True)
    log.say("The deploy failed because the `requests` package was not installed in the "
            "virtualenv.")
    log.call("b2", "Bash", {"command": "pip install requests"})
    log.result("b2", "Successfully installed requests-2.32.3")
    log.call("b3", "Bash", {"command": "python deploy.py --env staging"})
    log.result("b3", "Deployed to staging.")
    log.say(REPORT)
    return log


def _compacted(vault: Path, note: Path, cwd: Path) -> list[str]:
    """``vaultmem compact NOTE --force``, then the entity lines that name ``requests``."""
    done = run_cli(["compact", note.relative_to(vault).as_posix(), "--force"], cwd=cwd,
                   env=hook_env(vault))
    assert done.returncode == 0, done.stderr
    return [line for p in (vault / ENTITIES).glob("*.md") for line in p.read_text().split("\n")
            if line.startswith("- ") and "requests" in line]


def _words(line: str) -> str:
    return " ".join(re.findall(r"[a-z0-9]+", line.lower()))


def test_one_fact_from_four_sources_is_one_line_in_note_and_entity(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    log = _session(tmp_path / "transcript.jsonl")
    for event in ("stop", "session-end"):
        proc = run_hook(event, payload(event, log.path), vault, cwd=tmp_path)
        assert proc.returncode == 0 and proc.stderr == b"", proc.stderr
    (note,) = session_notes(vault)
    text = note.read_text()
    gotchas = [line for line in text.split("## Gotchas & Fixes", 1)[1].split("\n## ", 1)[0]
               .split("\n") if line.startswith("- ")]
    about = [g for g in gotchas if "requests" in g]
    assert len(about) == 1, gotchas
    filed = _compacted(vault, note, tmp_path)
    assert len(filed) == 1, filed
    assert "pip install requests" in filed[0] and "not installed" in filed[0]
    # No line of the session's lesson is lost: every word of the report's cause is kept.
    assert _words("the requests package was not installed in the virtualenv") in _words(filed[0])


def test_a_cause_said_in_one_turn_and_reported_in_the_next_is_one_entity_line(
        tmp_path: Path) -> None:
    """Two Stop hooks: the note keeps what the first one wrote; compaction files the fact once,
    as the longer line."""
    vault = tmp_path / "vault"
    vault.mkdir()
    log = Transcript(tmp_path / "transcript.jsonl")
    log.prompt("deploy to staging")
    log.call("b1", "Bash", {"command": "python deploy.py --env staging"})
    log.result("b1", "Exit code 1\nModuleNotFoundError: No module named 'requests'", error=True)
    log.say("The deploy failed because the `requests` package was not installed in the "
            "virtualenv.")
    proc = run_hook("stop", payload("stop", log.path), vault, cwd=tmp_path)
    assert proc.returncode == 0 and proc.stderr == b"", proc.stderr
    log.prompt("fix it")
    log.call("b2", "Bash", {"command": "pip install requests"})
    log.result("b2", "Successfully installed requests-2.32.3")
    log.call("b3", "Bash", {"command": "python deploy.py --env staging"})
    log.result("b3", "Deployed to staging.")
    log.say(REPORT)
    for event in ("stop", "session-end"):
        proc = run_hook(event, payload(event, log.path), vault, cwd=tmp_path)
        assert proc.returncode == 0 and proc.stderr == b"", proc.stderr
    (note,) = session_notes(vault)
    filed = _compacted(vault, note, tmp_path)
    assert len(filed) == 1, filed
    assert "pip install requests" in filed[0]
