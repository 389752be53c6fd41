"""mining/notices.py and what capture and the briefing make of Claude Code's own notices: a
usage-limit or API error reply is no answer, a tool call the permissions stopped (or the person
rejected) is no failure, neither in a new note nor in an older one."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from typing import Any

import pytest

from vaultmem.brief import digest
from vaultmem.claude import ingest, notelisted
from vaultmem.claude.transcript import parse_lines
from vaultmem.mining import notices

NOW = datetime(2026, 11, 22, 10, 30, tzinfo=timezone.utc)
CWD = "/home/dev/work/tiler"


def _line(kind: str, content: object, uuid: str, **extra: Any) -> str:
    return json.dumps({"type": kind, "uuid": uuid, "message": {"role": kind, "content": content},
                       **extra})


def _bash(ident: str, command: str) -> dict[str, Any]:
    return {"type": "tool_use", "id": ident, "name": "Bash", "input": {"command": command}}


def _result(ident: str, content: str, is_error: bool = True) -> dict[str, Any]:
    return {"type": "tool_result", "tool_use_id": ident, "content": content, "is_error": is_error}


@pytest.mark.parametrize(
    "text",
    ["You've hit your limit · resets 4pm (Europe/Berlin)",
     "You're out of extra usage · resets 11am (Asia/Tokyo)",
     "Claude AI usage limit reached|1767225600",
     "5-hour limit reached ∙ resets 3pm",
     "API Error: 529 {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\"}}",
     "API Error: Request was aborted.",
     "Prompt is too long"],
)
def test_usage_limit_and_api_error_replies_are_notices(text: str) -> None:
    assert notices.api_notice(text)


@pytest.mark.parametrize(
    "text",
    ["You've reached the end of the migration: all 14 tables are converted.",
     "The API error was a missing header; adding `X-Client` fixed it.",
     "Rate limit reached in the client tests: I added a retry with backoff to `fetch_rows`.",
     "Prompt is too long for the summariser, so the notes are now cut at 4,000 characters."],
)
def test_claude_s_own_words_about_limits_and_errors_are_not_notices(text: str) -> None:
    assert not notices.api_notice(text)


@pytest.mark.parametrize(
    "output",
    ["This command requires approval",
     ("This Bash command contains multiple operations. The following part requires approval: "
     "cargo build 2>&1"),
     "Permission to use Bash with command rm -rf target has been denied.",
     ("Claude requested permissions to write to /home/dev/work/tiler/Package.swift, but you "
     "haven't granted it yet."),
     ("The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it "
     "was a file edit, the new_string was NOT written to the file)."),
     "Exit code 137\n[Request interrupted by user for tool use]",
     ("mkdir in '/home/dev/other/Sources/App' was blocked. For security, Claude Code may only "
     "create directories in the allowed working directories for this session: '/home/dev/work'."),
     ("<tool_use_error>Glob patterns are not allowed in write operations. Please specify an exact "
     "file path.</tool_use_error>"),
     "Permission to use WebFetch has been auto-denied in dontAsk mode.",
     # Refused by Claude Code: the model reads such a file in parts next.
     ("File content (31200 tokens) exceeds maximum allowed tokens (25000). Please use offset and "
     "limit parameters to read specific portions of the file."),
     # Windows Git Bash could not start the command (path conversion, fork, a DLL's start).
     "Command failed: cygpath -u 'C:\\Users\\dana\\AppData\\Local\\Temp'",
     ("Exit code 1\n      0 [main] bash (4312) child_copy: cygheap read copy failed, 0x0..0x8000"
     "20EF0, done 0, windows pid 4312, Win32 error 299\n/etc/profile: fork: retry"),
     "Exit code 3221225794"],
)
def test_a_call_the_permissions_stopped_is_denied(output: str) -> None:
    why = notices.denial(output)
    assert why is not None and "Exit code" not in why and "tool_use_error" not in why


@pytest.mark.parametrize(
    "output",
    ["Exit code 1\nerror[E0425]: cannot find value `gap` in this scope",
     "Exit code 2\nmake: *** [build] Error 2",
     "Exit code 1\nfatal: the requested upgrade requires approval from a maintainer",
     "Exit code 1\nPermission denied (publickey).",
     "Exit code 1\ncp: cannot create regular file '/usr/local/bin/tiler': Permission denied",
     "Exit code 1\nCommand failed: make dist (see above)",
     "Exit code 3221225477\nSegmentation fault in the renderer"],
)
def test_a_command_that_ran_and_failed_is_not_denied(output: str) -> None:
    assert notices.denial(output) is None


def test_capture_keeps_no_notice_as_answer_and_no_denied_call_as_failure() -> None:
    lines = [
        _line("user", "build the tiler and run it", "u1"),
        _line("assistant", [{"type": "text", "text": "The layout tree compiles now."},
                            _bash("t1", "swift build")], "a1"),
        _line("user", [_result("t1", "This command requires approval")], "r1"),
        _line("assistant", [_bash("t2", "swift build")], "a2"),
        _line("user", [_result("t2", "This command requires approval")], "r2"),
        _line("assistant", [_bash("t3", "swift test")], "a3"),
        _line("user", [_result("t3", "Exit code 1\nerror: no tests found; call with --filter")],
              "r3"),
        _line("assistant", [{"type": "text", "text": "You've hit your limit · resets 5am "
                                                     "(Europe/Berlin)"}], "a4",
              isApiErrorMessage=True, error="rate_limit"),
    ]
    parsed = parse_lines(lines)
    assert [o.denied for t in parsed.turns for o in t.outcomes] == [True, True, False]
    assert not any(t.text and "hit your limit" in t.text for t in parsed.turns)
    told = ingest.story(parsed.turns, now=NOW, cwd=CWD)
    (entry,) = told.entries
    assert "**Answer:** The layout tree compiles now." in entry
    assert "Failed: `swift build`" not in entry and "Ran `swift build`" not in entry
    assert "- Not run: `swift build` ×2 — `This command requires approval`" in entry
    assert "- Failed: `swift test` — `error: no tests found; call with --filter`" in entry
    assert "- Stopped by Claude Code: `You've hit your limit · resets 5am (Europe/Berlin)`" in entry
    note = "# Build\n\n## Work Log\n\n" + entry + "\n"
    read = digest.session("s.md", note)
    assert [t.answer for t in read.turns] == ["The layout tree compiles now."]
    assert [f.split(" — ")[0] for f in read.failing] == ["`swift test`"]
    assert [f.split(" — ")[0] for f in read.not_run] == ["`swift build` ×2"]
    assert read.stopped == "You've hit your limit · resets 5am (Europe/Berlin)"
    # A later answer: the session went on after the limit reset.
    later = digest.session("s.md", note + "\n### 11:00 - go on\n\n**Answer:** Built.\n")
    assert later.stopped == ""


def test_an_older_note_s_notice_answer_and_denied_failure_are_no_outcome_or_failure() -> None:
    note = ("# Tiler\n\n## Work Log\n\n### 09:00 - build the tiler\n\n"
            "**Answer:** You're out of extra usage · resets 2pm (America/Denver) The agents have "
            "set up their lists.\n\n"
            "- Failed: `swift build` ×81 — `This command requires approval`\n"
            "- Failed: `swift test` — `error: no tests found`\n\n"
            "### 09:30 - go on\n\n**Answer:** The tree now splits on drag.\n")
    read = digest.session("s.md", note)
    assert [t.answer for t in read.turns] == ["The tree now splits on drag."]
    assert read.failing == ("`swift test` — `error: no tests found`",)
    assert read.not_run == ("`swift build` ×81 — `This command requires approval`",)


def test_the_briefing_tells_a_call_that_never_ran_and_the_notice_apart_from_failures() -> None:
    from vaultmem.brief import context

    note = ("---\ntype: session\ncreated: 2026-11-21\nstatus: active\n---\n# Tiler\n\n"
            "## Work Log\n\n### 09:00 - build the tiler\n\n**Answer:** The tree splits.\n\n"
            "- Not run: `swift build` ×81 — `This command requires approval`\n"
            "- Failed: `swift test` — `error: no tests found`\n"
            "- Stopped by Claude Code: `You're out of extra usage · resets 2pm`\n")
    text = context.render("tiler", [digest.session("s.md", note)])
    failed = text.index("Failed and not passing since")
    not_run = text.index("Not run: stopped by permissions")
    assert "`swift test`" in text[failed:not_run] and "swift build" not in text[failed:not_run]
    assert "`swift build` ×81, output: `This command requires approval`" in text[not_run:]
    assert "Cut short by Claude Code:\n- `You're out of extra usage · resets 2pm`" in text


def test_a_stop_payload_s_notice_is_no_answer_and_a_notice_alone_is_no_entry() -> None:
    from vaultmem.claude.transcript import with_last_message

    lines = [
        _line("user", "split the layout engine into agents", "u1"),
        _line("assistant", [{"type": "text", "text": "All three agents are working on their "
                                                     "phase."}], "a1"),
    ]
    notice = "You're out of extra usage · resets 2pm (America/Denver)"
    turns, keys = with_last_message(parse_lines(lines).turns, notice, frozenset())
    (entry,) = ingest.story(turns, now=NOW, cwd=CWD).entries
    assert "**Answer:** All three agents are working on their phase." in entry
    assert entry.endswith(f"- Stopped by Claude Code: `{notice}`")
    # The transcript line of the same notice, read by the next hook, adds nothing again; nor
    # does a notice alone in a later read.
    again = parse_lines([_line("assistant", [{"type": "text", "text": notice}], "a2",
                               isApiErrorMessage=True)]).turns
    assert ingest.story(with_last_message(again, None, keys)[0], now=NOW, cwd=CWD).entries == ()
    assert ingest.story(again, now=NOW, cwd=CWD).entries == ()


def test_an_older_note_s_denied_call_is_no_open_failure_a_later_pass_would_fix() -> None:
    note = ("## Work Log\n\n### 09:00 - build\n\n"
            "- Failed: `swift build` ×81 — `This command requires approval`\n"
            "- Failed: `swift test` — `error: no tests found`\n")
    assert notelisted.open_failures(note) == {"swift test": "error: no tests found"}


def test_a_call_the_shell_never_started_then_ran_is_no_not_run_line() -> None:
    # Windows Git Bash failing to fork: the retry ran the command, so the first call was chatter;
    # a call never run again stays "Not run", and a lookup that never ran leaves nothing open.
    fork = ("Exit code 1\n      0 [main] bash (5120) child_copy: cygheap read copy failed, "
            "0x0..0x800020EF0, done 0, windows pid 5120, Win32 error 299")
    lines = [
        _line("user", "install the linter and tag the release", "u1"),
        _line("assistant", [_bash("t1", "npm install -g eslint")], "a1"),
        _line("user", [_result("t1", "Command failed: cygpath -u 'C:\\Users\\dana'")], "r1"),
        _line("assistant", [_bash("t2", "npm install -g eslint 2>&1")], "a2"),
        _line("user", [_result("t2", "added 1 package", is_error=False)], "r2"),
        _line("assistant", [_bash("t3", "git tag v1.2.0")], "a3"),
        _line("user", [_result("t3", fork)], "r3"),
        _line("assistant", [_bash("t4", "ls -la dist")], "a4"),
        _line("user", [_result("t4", "Exit code 3221225794")], "r4"),
        _line("assistant", [{"type": "text", "text": "The linter is installed."}], "a5"),
    ]
    (entry,) = ingest.story(parse_lines(lines).turns, now=NOW, cwd=CWD).entries
    assert "- Ran `npm install -g eslint 2>&1`" in entry and "Not run: `npm install" not in entry
    assert "Failed" not in entry
    assert "- Not run: `git tag v1.2.0` — `0 [main] bash (5120) child_copy:" in entry
    read = digest.session("s.md", "# Release\n\n## Work Log\n\n" + entry + "\n")
    assert [f.split(" — ")[0] for f in read.not_run] == ["`git tag v1.2.0`"]
    assert read.failing == ()


@pytest.mark.parametrize(("text", "line"), [
    (('API Error: 529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"},'
      '"request_id":"req_01"}'), "API Error: 529 overloaded_error: Overloaded"),
    (('API Error: 401 {"type":"error","error":{"type":"authentication_error","message":"OAuth '
      'token has expired."}} · Please run /login'),
     "API Error: 401 authentication_error: OAuth token has expired. · Please run /login"),
    # No JSON of that shape: the line as it came.
    ("API Error: 500 {not json", "API Error: 500 {not json"),
    ('API Error: 400 {"detail":"bad"}', 'API Error: 400 {"detail":"bad"}'),
])
def test_an_api_error_notice_reads_its_body_as_type_and_message(text: str, line: str) -> None:
    assert notices.api_notice(text)
    assert notices.shown(text) == line
