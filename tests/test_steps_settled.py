"""State over time (issue 28 item 5): a next step said by any source (a compact summary, prose,
a recap) that a later turn's answer reports done gets a ``Step done:`` line in that turn's entry, so
it leaves the open list though more turns follow; a step no later answer did stays open. Real
hooks on made-up transcripts, in a temporary vault."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from hook_kit import FIXTURES, payload, run_hook, session_notes
from transcript_kit import Transcript, briefing, end, note, section, stop

from vaultmem.brief import digest

STEP = "Verify the refund webhook signature check against a real Stripe test event"


def _open_steps(vault: Path) -> list[str]:
    (path,) = [p for p in session_notes(vault) if "Next Steps" in p.read_text()]
    told = digest.session(path.relative_to(vault).as_posix(), path.read_text())
    return [i.text for i in told.next_steps]


def test_a_summary_step_done_by_a_turn_that_is_not_the_last_leaves_the_open_list(
        tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    path = tmp_path / "transcript.jsonl"
    shutil.copy(FIXTURES / "transcript-compacted.jsonl", path)
    last = json.loads(path.read_text().splitlines()[-1])
    with path.open("a") as out:  # one more turn, about something else
        for n, (kind, content) in enumerate([
                ("user", "now tidy the readme"),
                ("assistant", [{"type": "text", "text": "Updated the README's setup section."}])]):
            out.write(json.dumps({
                "type": kind, "uuid": f"extra-{n}", "sessionId": last["sessionId"],
                "cwd": last["cwd"], "timestamp": f"2026-11-22T06:5{n}:00Z",
                "isSidechain": False, "message": {"role": kind, "content": content}}) + "\n")
    for event in ("stop", "session-end"):
        proc = run_hook(event, payload(event, path), vault, cwd=tmp_path)
        assert proc.returncode == 0 and proc.stderr == b"", proc.stderr
    steps = _open_steps(vault)
    assert STEP not in steps
    assert "Add a `refunds` section to `docs/billing.md`" in steps  # nothing did it


def test_a_step_the_note_holds_is_closed_by_an_answer_a_later_hook_reads(
        env: Path, log: Transcript) -> None:
    log.prompt("plan the release")
    log.say("## Next steps\n- Run the database migration on staging\n- Tag the 2.0 release")
    stop(log)
    assert len(section(note(env), "Next Steps")) == 2
    log.prompt("go ahead with the migration")
    log.say("The database migration on staging is done: all 12 tables migrated.")
    stop(log)
    log.prompt("what else?")
    log.say("The changelog reads well as it is.")
    stop(log)
    end(log)
    text = note(env)
    assert "- Step done: Run the database migration on staging" in text
    assert "Step done: Tag the 2.0 release" not in text
    steps = briefing().split("\nNext steps:\n", 1)[1].split("\n")
    steps = steps[: next(n for n, line in enumerate(steps) if not line.startswith("- "))]
    assert steps == ["- Tag the 2.0 release"]
