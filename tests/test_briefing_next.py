"""What the last session left next, first in the briefing: its outcome, then its open steps,
and the paragraph a long last answer ends on (only the note's folded copy of the answer holds
it). Real hooks on made-up transcripts, in a temporary vault, briefed by SessionStart."""

from __future__ import annotations

from pathlib import Path

from transcript_kit import Transcript, briefing, end, note, stop

from vaultmem.brief import context

# A long answer: capture writes its first paragraph as the answer's line and folds the whole.
REPORT = "\n".join([
    "Here's where the applet stands:",
    "",
    *(f"- Checked sensor {n}: readings arrive every 330 ms" for n in range(8)),
    "",
    "```",
    "cosmic-applet-power-monitor --debug",
    "```",
    "",
])


def _last_session(text: str) -> str:
    return text.split("Last session (data):\n", 1)[1].split("\n~~~\n", 1)[0]


def test_the_paragraph_a_long_last_answer_ends_on_is_where_the_session_left_off(
        env: Path, log: Transcript) -> None:
    log.prompt("why does the panel show nothing?")
    log.say(REPORT + "The applet runs, but the CPU reads 0 W until the binary gets its "
            "capability: `sudo setcap cap_dac_read_search=ep ~/.local/bin/applet`.")
    stop(log)
    end(log)
    written = note(env)
    answer = next(line for line in written.split("\n") if line.startswith("**Answer:**"))
    assert "setcap" not in answer and "> The applet runs, but the CPU reads 0 W" in written
    last = _last_session(briefing())
    line = next(line for line in last.split("\n")
                if line.startswith("- ") and "why does the panel show nothing" in line)
    assert "setcap cap_dac_read_search=ep" in line


def test_an_answer_ending_on_what_blocks_the_work_leaves_its_request_next(
        env: Path, log: Transcript) -> None:
    log.prompt("commit and push the applet")
    log.say(REPORT + "The push is still rejected: the remote needs signed commits, and no "
            "signing key is set up here.")
    stop(log)
    end(log)
    last = _last_session(briefing())
    asked = last.split(f"{context.ASKED}\n", 1)[1].split("\n", 1)[0]
    assert asked.startswith("- ") and "commit and push the applet" in asked
    assert "the remote needs signed commits" in asked


def test_the_last_session_reads_in_order_what_it_ended_with_then_what_comes_next(
        env: Path, log: Transcript) -> None:
    log.prompt("add the CSV exporter")
    log.say("Added the CSV exporter; its tests pass.\n\nNext steps:\n"
            "- Add the JSON exporter\n- Document the export flags")
    stop(log)
    end(log)
    last = _last_session(briefing())
    ended = last.index("Outcome (its last answers, in order):\n- ")
    assert ended < last.index("Next steps:\n- ") < last.index("Add the JSON exporter")
    assert "Added the CSV exporter" in last[ended:last.index("Next steps:")]
