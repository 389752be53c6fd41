"""Shapes of Claude Code transcripts capture must read right (issue 28): a session led by other
sessions' ``summary`` records and hook progress lines, a first prompt that only asks to carry
on, a plan never approved, an outage whose failures later pass, an API error shown as Claude's
text, a session the person stopped mid-troubleshooting. In-process hooks on made-up
transcripts, in a temporary vault."""

from __future__ import annotations

from pathlib import Path

from transcript_kit import Transcript, briefing, end, note, section, stop

from vaultmem.claude import transcript
from vaultmem.mining import outage

STOPPED = "[Request interrupted by user]"
STOPPED_TOOL = "[Request interrupted by user for tool use]"


def _stopped_mid_troubleshooting(log: Transcript) -> None:
    log.prompt("add CSV export for orders")
    log.say("Added `OrderCsvView`; next step: add a link to it from the orders page.")
    stop(log)
    log.prompt("the export returns 500 on production")
    log.call("b1", "Bash", {"command": "kubectl logs deploy/shop"})
    log.result("b1", "UnicodeEncodeError: 'ascii' codec can't encode character")
    log.say("The 500 is a UnicodeEncodeError on accented customer names: the CSV writer "
            "encodes the response as ASCII. Checking the container's locale next.")
    log.call("b2", "Bash", {"command": "kubectl exec deploy/shop -- locale"})
    log.result("b2", STOPPED_TOOL, error=True)
    log.prompt(STOPPED)


def test_other_sessions_summaries_and_hook_progress_name_nothing(
        env: Path, log: Transcript) -> None:
    for n in range(5):
        log.raw({"type": "summary", "summary": f"Printer driver rewrite part {n}",
                   "leafUuid": f"elsewhere-{n}"})
    log.raw({"type": "progress", "uuid": "p1", "timestamp": "2026-11-22T09:00:00Z",
               "data": {"type": "hook_progress", "hookEvent": "SessionStart",
                        "hookName": "SessionStart:startup", "command": "vaultmem hook start"}})
    log.raw("\x00\x00 binary junk, not JSON")
    log.prompt("Move the invoice export job from cron to the task queue")
    log.say("The invoice export now runs as the task `export_invoices`, hourly.")
    stop(log)
    end(log)
    read = transcript.read(log.path)
    assert read.skipped_lines == 1
    assert read.title is None
    text = note(env)
    assert "Printer driver" not in text
    assert "# Move the invoice export job" in text
    assert "Printer driver" not in briefing()


def test_a_stop_mid_troubleshooting_leaves_the_open_problem_as_the_step(
        env: Path, log: Transcript) -> None:
    _stopped_mid_troubleshooting(log)
    end(log)
    steps = section(note(env), "Next Steps")
    assert len(steps) == 1, steps
    assert "returns 500 on production" in steps[0]
    assert "UnicodeEncodeError" in steps[0]
    assert "returns 500 on production" in briefing()


def test_the_next_prompt_takes_up_a_stopped_turn(env: Path, log: Transcript) -> None:
    _stopped_mid_troubleshooting(log)
    log.prompt("set LANG=C.UTF-8 in the Dockerfile")
    log.say("Set `LANG=C.UTF-8` in the Dockerfile; the export returns 200 with accented names.")
    stop(log)
    end(log)
    assert not any("returns 500" in s for s in section(note(env), "Next Steps"))


def test_a_stop_that_claude_answers_after_leaves_no_step(env: Path, log: Transcript) -> None:
    log.prompt("the export returns 500 on production")
    log.call("b1", "Bash", {"command": "kubectl logs deploy/shop"})
    log.result("b1", STOPPED_TOOL, error=True)
    log.say("Stopped. The 500 comes from the CSV writer's ASCII encoding; set LANG to fix it.")
    stop(log)
    end(log)
    assert section(note(env), "Next Steps") == []


def test_an_outage_that_passes_later_is_no_gotcha(env: Path, log: Transcript) -> None:
    log.prompt("run the test suite")
    for ident in ("b1", "b2"):
        log.call(ident, "Bash", {"command": "pip install -r requirements.txt"})
        log.result(ident, "ERROR: No matching distribution found for django\n"
                   "Temporary failure in name resolution", error=True)
    log.say("The install failed: pip cannot resolve pypi.org (name resolution failure).")
    log.prompt("try again, the wifi is back")
    log.call("b3", "Bash", {"command": "pip install -r requirements.txt"})
    log.result("b3", "Successfully installed django-5.0.1")
    log.say("The install passed once the network came back; all 42 tests pass.")
    stop(log)
    end(log)
    text = note(env)
    assert section(text, "Gotchas & Fixes") == []
    assert "name resolution" in text  # the work log keeps what happened


def test_an_outage_still_failing_is_still_told(env: Path, log: Transcript) -> None:
    log.prompt("run the test suite")
    log.call("b1", "Bash", {"command": "pip install -r requirements.txt"})
    log.result("b1", "Temporary failure in name resolution", error=True)
    log.say("The install failed: pip cannot resolve pypi.org (name resolution failure).")
    stop(log)
    end(log)
    assert any("name resolution" in g for g in section(note(env), "Gotchas & Fixes"))


def test_an_api_error_shown_as_claudes_text_is_no_outcome(env: Path, log: Transcript) -> None:
    log.prompt("add rate limiting to the login endpoint")
    log.say("Added a limit of 5 attempts per minute per IP to `/login`.")
    log.prompt("now the signup endpoint")
    log._add("assistant", [{"type": "text", "text": 'API Error: 401 {"type":"error","error":'
                            '{"type":"authentication_error","message":"OAuth token has expired"}}'
                            " · Please run /login"}], isApiErrorMessage=True)
    stop(log)
    end(log)
    text = note(env)
    assert "**Answer:** API Error" not in text
    for title in ("Decisions Made", "Gotchas & Fixes", "Next Steps"):
        assert not any("Please run /login" in line for line in section(text, title))
    outcome = briefing().split("Outcome", 1)[1].split("\n", 3)[:3]
    assert not any("Please run /login" in line for line in outcome)


def test_outage_words_are_a_service_down_not_a_setup_error() -> None:
    assert outage.outage("curl: (6) Could not resolve host: api.example.com")
    assert outage.outage("Error: connect ECONNREFUSED 127.0.0.1:5432")
    assert outage.outage("503 Service Unavailable")
    assert not outage.outage("ModuleNotFoundError: No module named 'yaml'")
    assert not outage.outage("dnsmasq reads a list, not a single option")
