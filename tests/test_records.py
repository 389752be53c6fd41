"""Every record kind of a Claude Code transcript, one real-shaped line each: what vaultmem takes.

``fixtures/claude-code/record-kinds.jsonl`` holds ``{"kind": name, "line": <transcript line>}``;
the catalogue (``vaultmem.claude.records``' docstring) names the same kinds.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from vaultmem.claude import console, records, transcript

ROOT = Path(__file__).resolve().parents[1]
FIXTURE = Path(__file__).parent / "fixtures" / "claude-code" / "record-kinds.jsonl"
LINES: dict[str, dict[str, Any]] = {
    row["kind"]: row["line"]
    for row in map(json.loads, FIXTURE.read_text(encoding="utf-8").splitlines())
}
# Kinds that give nothing at all: no turn, no title, not counted.
NOTHING = (
    "user/isMeta", "system/compact_boundary", "<ide_selection>", "<local-command-caveat>",
    "<command-name>/no-args",  # /clear: bookkeeping (console.BOOKKEEPING)
    "system/turn_duration", "system/stop_hook_summary", "system/api_error",
    "system/informational", "system/away_summary", "agent-name", "last-prompt", "summary",
    "attachment", "queue-operation", "file-history-snapshot", "progress", "mode",
    "permission-mode",
)


def parse(*kinds: str) -> transcript.Transcript:
    return transcript.parse_lines([json.dumps(LINES[k]) for k in kinds])


def prompts(parsed: transcript.Transcript) -> list[str | None]:
    return [t.prompt for t in parsed.turns]


@pytest.mark.parametrize("kind", ["[Request interrupted by user]",
                                  "[Request interrupted by user for tool use]"])
def test_a_stop_by_the_person_is_no_prompt_only_the_mark_of_the_stop(kind: str) -> None:
    parsed = parse(kind)
    assert [(t.prompt, t.text, t.interrupted) for t in parsed.turns] == [(None, None, True)]
    assert parsed.first_prompt is None
    assert parsed.unknown == ()


@pytest.mark.parametrize("kind", NOTHING)
def test_a_kind_that_gives_nothing_is_passed_over_uncounted(kind: str) -> None:
    parsed = parse(kind)
    assert parsed.turns == ()
    assert parsed.unknown == ()
    assert parsed.title is None


@pytest.mark.parametrize(("kind", "command", "output"), [
    ("<local-command-stdout>", None, "Set model to Opus 4.6"),
    ("<local-command-stderr>", None, "Error: unknown model"),
    ("system/local_command", None, "Not enough messages to compact."),
    ("<bash-input>", "! git status", None),
    ("<bash-stdout>", None, "On branch main"),
])
def test_what_the_person_ran_is_a_console_line_never_a_prompt(
        kind: str, command: str | None, output: str | None) -> None:
    parsed = parse(kind)
    assert [(t.prompt, t.console) for t in parsed.turns] == [
        (None, console.Console(command, output))]
    assert parsed.first_prompt is None and parsed.unknown == ()


def test_a_bookkeeping_command_passes_over_what_it_printed_not_what_comes_after() -> None:
    parsed = parse("<command-name>/no-args", "<local-command-stdout>", "<bash-input>")
    assert [t.console for t in parsed.turns] == [console.Console("! git status")]


def test_a_prompt_is_taken_whole() -> None:
    assert prompts(parse("user")) == ["Add a refund endpoint to the orders API"]


def test_a_tool_result_is_the_outcome_of_its_call() -> None:
    parsed = parse("assistant/tool_use", "user/tool_result")
    assert parsed.turns[0].commands == ("pytest -q tests/test_refunds.py",)
    outcome = parsed.turns[1].outcomes[0]
    assert outcome.tool_use_id == "toolu_01Refunds" and outcome.is_error
    assert "KeyError" in (outcome.error or "")


def test_the_compact_summary_is_a_summary_not_a_prompt() -> None:
    parsed = parse("system/compact_boundary", "user/isCompactSummary")
    assert parsed.boundaries == 1
    assert [t.prompt for t in parsed.turns] == [None]
    assert "ledger table" in (parsed.turns[0].summary or "")


def test_an_answer_is_kept_with_every_paragraph() -> None:
    parsed = parse("assistant")
    assert parsed.turns[0].text == ("Done.\n\nThe refund endpoint now writes to the ledger "
                                    "table, and partial refunds keep the original amount.")


def test_an_api_error_message_is_a_notice_not_an_answer() -> None:
    turn = parse("assistant/isApiErrorMessage").turns[0]
    assert turn.text is None and (turn.notice or "").startswith("API Error: 529")


@pytest.mark.parametrize(("kind", "typed"), [
    ("<ide_opened_file>", "why does the partial refund fail?"),
    ("<ide_diagnostics>", "fix the type error"),
    ("<system-reminder>", "use the ledger table"),
    ("<user-prompt-submit-hook>", "rename the refund helper"),
    ("<command-name>", "/review the refunds module"),
])
def test_a_wrapper_is_taken_off_what_the_person_typed(kind: str, typed: str) -> None:
    parsed = parse(kind)
    assert prompts(parsed) == [typed]
    assert parsed.first_prompt == typed


def test_a_task_notification_ends_a_background_command_and_names_no_session() -> None:
    parsed = parse("<task-notification>", "user")
    # The line stays for ingest, which reads the command's end from it (no entry of its own).
    assert (parsed.turns[0].prompt or "").startswith("<task-notification>")
    assert parsed.first_prompt == "Add a refund endpoint to the orders API"


def test_ai_title_names_the_session_and_a_custom_title_beats_it() -> None:
    assert parse("ai-title").title == "Add refund endpoint to orders API"
    assert parse("ai-title", "custom-title").title == "Refunds"
    assert parse("custom-title", "ai-title").title == "Refunds"


def test_a_title_is_one_line_bounded_private_text_out_and_redacted() -> None:
    line = {"type": "ai-title", "sessionId": "s",
            "aiTitle": "Rotate <private>hunter2</private> key\nsk-ant-api03-" + "aB3x" * 22
                       + " " + "word " * 40}
    title = transcript.parse_lines([json.dumps(line)]).title or ""
    assert "hunter2" not in title and "sk-ant-api03-aB3x" not in title and "\n" not in title
    assert len(title) <= records.TITLE_MAX_CHARS


@pytest.mark.parametrize(("kind", "counted"), [
    ("unknown", "worktree-state"), ("system/unknown", "system/model_fallback")])
def test_an_unknown_kind_is_skipped_and_counted(kind: str, counted: str) -> None:
    parsed = parse(kind)
    assert parsed.turns == ()
    assert [k for k, _ in parsed.unknown] == [counted]


def test_an_unknown_line_recorded_already_is_not_counted_again() -> None:
    raw = json.dumps(LINES["unknown"])
    first = transcript.parse_lines([raw])
    again = transcript.parse_lines([raw], skip_uuids={key for _, key in first.unknown})
    assert again.unknown == ()


def test_a_line_without_a_type_is_counted() -> None:
    parsed = transcript.parse_lines([json.dumps({"no": "type"})])
    assert [k for k, _ in parsed.unknown] == ["(no type)"]


def test_every_kind_of_the_catalogue_has_a_fixture_line_and_a_docs_entry() -> None:
    doc = records.__doc__ or ""
    for kind in records.KINDS:
        assert any(LINES[k]["type"] == kind for k in LINES), kind
        assert f"`{kind}`" in doc, kind
    for subtype in records.SYSTEM_SUBTYPES:
        assert f"system/{subtype}" in LINES, subtype
        assert f"`{subtype}`" in doc, subtype
    for kind in LINES:
        if kind.startswith(("<", "[")):
            assert f"`{kind.split('/')[0]}`" in doc, kind


def test_an_ide_session_through_the_hooks(tmp_path: Path, vault_root: Path) -> None:
    """A real Stop and SessionEnd on an IDE session: the wrappers are nowhere in the note, the
    ai-title is its title and alias, the unknown kinds are counted in the state once."""
    from hook_kit import payload, run_hook, session_notes

    from vaultmem.notes import frontmatter

    kinds = ["<ide_selection>", "<ide_opened_file>", "assistant", "ai-title", "unknown",
             "system/unknown", "<command-name>", "<local-command-stdout>",
             "[Request interrupted by user]", "<user-prompt-submit-hook>"]
    path = tmp_path / "ide.jsonl"
    path.write_text("".join(json.dumps(LINES[k]) + "\n" for k in kinds))
    for event in ("stop", "stop", "session-end"):
        done = run_hook(event, payload(event, path, session_id="ide-1"), vault_root,
                        cwd=tmp_path)
        assert done.returncode == 0, done.stderr
    [note] = session_notes(vault_root)
    text = note.read_text(encoding="utf-8")
    meta = frontmatter.parse(text)
    assert meta["title"] == "Add refund endpoint to orders API"
    assert meta["aliases"] == ["Add refund endpoint to orders API"]
    for wrapper in ("ide_", "<command-", "local-command", "user-prompt-submit-hook",
                    "Request interrupted", "The user opened the file"):
        assert wrapper not in text, wrapper
    assert "**Prompt:** why does the partial refund fail?" in text
    assert "**Prompt:** /review the refunds module" in text
    state = json.loads(next((vault_root / ".vaultmem" / "hosts").glob("*/state.json"))
                       .read_text(encoding="utf-8"))
    assert state["sessions"]["ide-1"]["unknown"] == {"system/model_fallback": 1,
                                                      "worktree-state": 1}


def test_the_model_extractor_reads_the_prompts_without_wrappers() -> None:
    from vaultmem.claude import condensed

    kinds = ["<ide_opened_file>", "<ide_selection>", "<command-name>", "<command-name>/no-args"]
    turns = condensed.turns([json.dumps(LINES[k]) for k in kinds])
    assert [t.prompt for t in turns] == ["why does the partial refund fail?",
                                         "/review the refunds module"]


def test_a_title_never_stops_a_note_whose_aliases_are_a_mapping(tmp_path: Path,
                                                                  vault_root: Path) -> None:
    from hook_kit import payload, run_hook, session_notes

    path = tmp_path / "titled.jsonl"
    path.write_text("".join(json.dumps(LINES[k]) + "\n" for k in ["user", "assistant"]))
    assert run_hook("stop", payload("stop", path, session_id="t-1"), vault_root,
                    cwd=tmp_path).returncode == 0
    [note] = session_notes(vault_root)
    note.write_text(note.read_text().replace("type: session\n", "type: session\naliases:\n  a: b\n"))
    with path.open("a") as handle:
        handle.write(json.dumps(LINES["ai-title"]) + "\n" + json.dumps(LINES["<command-name>"])
                     + "\n")
    done = run_hook("stop", payload("stop", path, session_id="t-1"), vault_root, cwd=tmp_path)
    assert done.returncode == 0
    text = note.read_text()
    assert "**Prompt:** /review the refunds module" in text
    assert "title: Add refund endpoint to orders API" in text and "  a: b" in text
