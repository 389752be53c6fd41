"""structured.py and its capture: AskUserQuestion, ExitPlanMode, TodoWrite and a tracker's listing
become items without prose mining; and state over time (issue 28): a step done later leaves the
open list, a failing command that passes later (alone, behind a runner or an env prefix, or inside
a compound command) is no longer failing. Real-shaped transcript lines replayed through the hooks
into a temporary vault."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from hook_kit import DAY, PROJECT
from transcript_kit import CWD, Transcript, briefing, end, note, section, stop

from vaultmem.memory.sessions import Memory
from vaultmem.mining import fixes, settled, structured
from vaultmem.store.config import Config
from vaultmem.store.vault import Vault

QUESTIONS = {"questions": [
    {"question": "Which store should sessions use?", "header": "Store", "multiSelect": False,
     "options": [{"label": "SQLite (Recommended)", "description": "one file"},
                 {"label": "Postgres", "description": "a server"}]},
    {"question": "Which checks, \"fast\" or all?", "header": "Checks", "multiSelect": True,
     "options": [{"label": "Unit", "description": ""}, {"label": "Lint", "description": ""},
                 {"label": "E2E", "description": ""}]}]}
ANSWER = ('User has answered your questions: "Which store should sessions use?"="SQLite '
          '(Recommended)", "Which checks, "fast" or all?"="Unit, Lint". You can now continue '
          "with the user's answers in mind.")


def _steps(text: str) -> str:
    """The lines of the briefing's first "Next steps:" list (the last session's)."""
    lines = text.split("\nNext steps:\n", 1)[1].split("\n")
    return "\n".join(lines[: next(n for n, line in enumerate(lines) if not line.startswith("- "))])


def test_an_answered_question_is_a_decision_with_the_options_not_chosen(
        env: Path, log: Transcript) -> None:
    log.prompt("Set up the session store")
    log.call("toolu_q", "AskUserQuestion", QUESTIONS)
    log.result("toolu_q", ANSWER)
    log.say("Going with SQLite.")
    stop(log)
    decisions = section(note(env), "Decisions Made")
    assert decisions[:2] == [
        "- Which store should sessions use? — chose: SQLite (Recommended); not chosen: Postgres",
        '- Which checks, "fast" or all? — chose: Unit, Lint; not chosen: E2E',
    ]


def test_a_rejected_question_says_nothing(env: Path, log: Transcript) -> None:
    log.prompt("Set up the session store")
    log.call("toolu_q", "AskUserQuestion", QUESTIONS)
    log.result("toolu_q", "The user doesn't want to proceed with this tool use. The tool use was "
               "rejected (eg. if it was a file edit, the new_string was NOT written to the file). "
               "To tell you how to proceed, the user said:\nThe user wants to clarify these "
               "questions.", error=True)
    log.say("What would you like to clarify?")
    stop(log)
    assert "chose:" not in note(env)


def test_an_answer_whose_call_an_earlier_read_saw_is_read_from_its_pairs() -> None:
    found = structured.answers(None, 'User has answered your questions: "Pick a colour?"="Red". '
                               "You can now continue with the user's answers in mind.")
    assert [f.text for f in found] == ["Pick a colour? — chose: Red"]


PLAN = """# Plan: session store

## Context
The sessions live in memory and are lost on restart.

## Key Decisions
- **Store**: SQLite in WAL mode, one file per project
- Keep the JSON export for backups

## Implementation Steps
1. Add the schema
2. Migrate the writer

**Recommendation**: ship behind a flag first.

```python
- not an item inside a fence
```
"""


def test_an_approved_plan_gives_its_decisions_not_its_steps(env: Path, log: Transcript) -> None:
    log.prompt("Plan the session store")
    log.call("toolu_p", "ExitPlanMode", {"plan": PLAN})
    log.result("toolu_p", "User has approved your plan. You can now start coding. Start with "
               "updating your todo list if applicable")
    log.say("Starting with the schema.")
    stop(log)
    decisions = section(note(env), "Decisions Made")
    assert decisions == ["- Store: SQLite in WAL mode, one file per project",
                         "- Keep the JSON export for backups",
                         "- ship behind a flag first."]


def test_an_approved_plan_is_kept_whole_in_a_folded_callout(env: Path, log: Transcript) -> None:
    log.prompt("Plan the session store")
    log.call("toolu_p", "ExitPlanMode", {"plan": PLAN})
    log.result("toolu_p", "User has approved your plan. You can now start coding.")
    log.say("Starting with the schema.")
    stop(log)
    text = note(env)
    assert "> [!info]- Plan approved (18 lines)" in text
    # Its steps and its context, which no decision line keeps, are in the record; its
    # headings are the callout's own, never sections of the note.
    assert "> 2. Migrate the writer" in text
    assert "> The sessions live in memory and are lost on restart." in text
    assert "\n## Implementation Steps" not in text
    assert "> ## Implementation Steps" in text


def _plan_written_then_asked(log: Transcript) -> None:
    """Claude writes the plan to its file in plan mode, then asks to exit with no plan."""
    log.prompt("Plan the session store")
    log.call("toolu_w", "Write", {"file_path": "/home/dev/.claude/plans/quiet-fox.md",
                                  "content": PLAN})
    log.result("toolu_w", "File created successfully at: /home/dev/.claude/plans/quiet-fox.md")
    log.call("toolu_p", "ExitPlanMode", {})


def test_a_plan_left_unanswered_when_the_session_ends_is_kept_as_proposed_with_no_decision(
        env: Path, log: Transcript) -> None:
    _plan_written_then_asked(log)
    end(log)
    text = note(env)
    assert "> [!info]- Plan proposed, not answered (18 lines)" in text
    assert "> 2. Migrate the writer" in text
    assert "Plan approved" not in text
    assert section(text, "Decisions Made") == []


def test_a_plan_written_to_its_file_is_read_when_the_call_carries_none(
        env: Path, log: Transcript) -> None:
    _plan_written_then_asked(log)
    log.result("toolu_p", "User has approved exiting plan mode. You can now proceed.")
    log.say("Starting.")
    stop(log)
    assert "- Keep the JSON export for backups" in section(note(env), "Decisions Made")


def test_the_approved_plan_in_the_result_is_read() -> None:
    said = ("User has approved your plan. You can now start coding.\n\nYour plan has been saved "
            "to: /p.md\n\n## Approved Plan (edited by user):\n" + PLAN)
    plan = structured.plan_text(structured.CallData(plan=""), said, None)
    assert plan is not None
    assert "ship behind a flag first." in [f.text for f in structured.plan_decisions(plan)]


def test_a_rejected_plan_says_nothing(env: Path, log: Transcript) -> None:
    log.prompt("Plan the session store")
    log.call("toolu_p", "ExitPlanMode", {"plan": PLAN})
    log.result("toolu_p", "The user doesn't want to proceed with this tool use. The tool use was "
               "rejected (eg. if it was a file edit, the new_string was NOT written to the "
               "file). To tell you how to proceed, the user said:\nuse Postgres", error=True)
    log.say("Understood, revising.")
    stop(log)
    assert "SQLite in WAL mode" not in note(env)
    assert "Plan approved" not in note(env)


def _todos(*items: tuple[str, str]) -> dict[str, Any]:
    return {"todos": [{"content": c, "status": s, "activeForm": c} for c, s in items]}


def test_the_last_todo_list_gives_next_steps_and_completed_items_are_done(
        env: Path, log: Transcript) -> None:
    log.prompt("Build the exporter")
    log.call("t1", "TodoWrite", _todos(("Write the schema", "in_progress"),
                                       ("Add the CSV exporter", "pending"),
                                       ("Document the flags", "pending")))
    log.result("t1", "Todos have been modified successfully.")
    log.call("t2", "TodoWrite", _todos(("Write the schema", "completed"),
                                       ("Add the CSV exporter", "in_progress"),
                                       ("Document the flags", "pending")))
    log.result("t2", "Todos have been modified successfully.")
    log.say("The schema is in; the exporter is next.")
    stop(log)
    text = note(env)
    assert section(text, "Next Steps") == ["- Add the CSV exporter", "- Document the flags"]
    assert "- Done: Write the schema" in text


def test_a_new_todo_list_keeps_what_the_list_before_left_open(env: Path, log: Transcript) -> None:
    # The exporter's list is left for new work (a list sharing none of its items): its step
    # never done stays a next step; one a later list completed, renamed, does not; a list the
    # next one goes on with was re-planned (its dropped item is no step).
    log.prompt("Build the exporter")
    log.call("t1", "TodoWrite", _todos(("Write the schema", "completed"),
                                       ("Add the CSV exporter", "pending"),
                                       ("Test if the export is valid", "pending"),
                                       ("Document the flags", "pending")))
    log.result("t1", "Todos have been modified successfully.")
    log.call("t2", "TodoWrite", _todos(("Write the schema", "completed"),
                                       ("Add the CSV exporter", "completed"),
                                       ("Test if the export is valid", "pending")))
    log.result("t2", "Todos have been modified successfully.")
    log.say("Exporter in.")
    log.prompt("now the release notes")
    log.call("t3", "TodoWrite", _todos(("Draft the release notes", "completed"),
                                       ("Document the exporter's flags", "completed"),
                                       ("Tag the release", "pending")))
    log.result("t3", "Todos have been modified successfully.")
    log.say("Notes drafted; the tag is next.")
    stop(log)
    assert section(note(env), "Next Steps") == ["- Test if the export is valid",
                                                "- Tag the release"]


def test_a_step_a_later_stop_sees_completed_leaves_the_briefing(
        env: Path, log: Transcript) -> None:
    log.prompt("Build the exporter")
    log.call("t1", "TodoWrite", _todos(("Write the schema", "completed"),
                                       ("Add the CSV exporter", "pending")))
    log.result("t1", "Todos have been modified successfully.")
    log.say("Schema done.")
    stop(log)
    log.prompt("go on")
    log.call("t2", "TodoWrite", _todos(("Write the schema", "completed"),
                                       ("Add the CSV exporter", "completed")))
    log.result("t2", "Todos have been modified successfully.")
    log.say("The CSV exporter writes one file per table.")
    stop(log)
    end(log)
    assert "- Add the CSV exporter" in note(env)  # the note keeps what was said
    context = briefing()
    assert "Next steps:" not in context


GH_LIST = ("12\tOPEN\tExport fails on empty tables\tbug\t2026-11-20T10:00:00Z\n"
           "15\tOPEN\tAdd a --since flag\tenhancement\t2026-11-21T10:00:00Z\n")


def test_a_tracker_listing_gives_its_open_items_by_id_and_title_only(
        env: Path, log: Transcript) -> None:
    log.prompt("What is open?")
    log.call("b1", "Bash", {"command": "gh issue list --limit 20"})
    log.result("b1", GH_LIST)
    log.say("Two issues are open.")
    stop(log)
    steps = section(note(env), "Next Steps")
    assert steps == ["- `#12` Export fails on empty tables", "- `#15` Add a --since flag"]


@pytest.mark.parametrize(("output", "expected"), [
    # glab: the id, the reference again, the title, labels, age
    (("Showing 2 open issues in shop/api that match your search.\n\n"
      "#7\tshop/api#7\tRetry the webhook\t(bug)\tabout 2 days ago\n"),
     ["`#7` Retry the webhook"]),
    # jira --plain: a header, then columns with the key second
    (("TYPE\tKEY\tSUMMARY\tSTATUS\nBug\tSHOP-41\tCart total rounds down\tTo Do\n"
      "Task\tSHOP-40\tOld thing\tDone\n"), ["`SHOP-41` Cart total rounds down"]),
    # beads: numbered, priority tags, hash ids
    (("📋 Ready work (2 issues with no blockers):\n\n1. [P1] bd-a1b2: Fix the sync race\n"
      "2. [P2] bd-c3d4: Write the migration guide\n"),
     ["`bd-a1b2` Fix the sync race", "`bd-c3d4` Write the migration guide"]),
    # gh pr list: number, title, branch, state
    (("31\tUse WAL mode\tfeat/wal\tOPEN\t2026-11-20T10:00:00Z\n"
      "30\tOld PR\tfix/x\tMERGED\t2026-11-19T10:00:00Z\n"), ["`#31` Use WAL mode"]),
    # text around the listing names no id: nothing of it is kept
    ("No issues match your search in shop/api\n", []),
])
def test_listings_of_other_trackers_are_read_by_their_shape(
        output: str, expected: list[str]) -> None:
    assert [f.text for f in structured.listing_items(output)] == expected


@pytest.mark.parametrize(("command", "listing"), [
    ("gh issue list --state open", True),
    ("cd repo && GH_PAGER= gh pr list", True),
    ("bd ready --json", True),
    ("npx linear-cli issue list", True),
    ("jira issue list --plain", True),
    ("gh issue view 12", False),
    ("ls -la", False),
    ("pytest -q tests/test_list.py", False),
])
def test_a_listing_is_told_by_its_command(command: str, listing: bool) -> None:
    assert structured.is_listing(command) is listing


def test_a_commit_s_subject_is_read_from_a_heredoc_or_a_quoted_message() -> None:
    assert structured.commit_subject('git commit -m "Fix the export"', None) == "Fix the export"
    assert structured.commit_subject("git commit -m \"$(cat <<'EOF' …", "Add WAL\n\nBody") \
        == "Add WAL"
    assert structured.commit_subject("git status", None) is None


@pytest.mark.parametrize(("step", "done", "expected"), [
    ("Add the CSV exporter", ["Add the CSV exporter"], True),
    ("Add tests for the parser", ["Added tests for parser"], True),
    ("`#12` Export fails on empty tables", ["Fix export of empty tables (#12)"], True),
    ("Fix the login bug in auth", ["Fix login page layout"], False),
    ("Document the flags", ["Write the schema"], False),
    ("Create app.rs with Message enum and AppModel", ["Create app.rs with the applet's state"],
     True),
    ("Update README.md", ["Update the CHANGELOG.md"], False),
    ("Read config.toml", ["Create config.toml"], False),
    # a later line reporting what the step acts on running, passing or fixed
    ("Start the panel and applet", ["The panel and applet are running"], True),
    ("Run the integration tests", ["All 40 integration tests pass"], True),
    ("Fix the login redirect", ["The login redirect is fixed now."], True),
    ("Start the panel, the applet and the daemon", ["The applet is running"], False),  # 1 of 3
    ("Run the integration tests", ["The integration tests are running"], True),
    ("Deploy the worker", ["The worker would pass if the key were set"], False),
    # a step bringing a thing up (or making it pass), and a line reporting most of it so
    ("Add the applet to the panel config and restart", ["The panel and applet are now running."],
     True),
    ("Fix the flaky login test", ["All login tests pass now."], True),
    ("Restart the worker after setting the key", ["The web server is running"], False),
    ("Fix multiple panel instances: stop all panels and restart cleanly",
     ["The panel and applet are now running."], False),
    # a state the step says is not yet reached, reported reached later
    ("CRITICAL: The history rewrite is complete but NOT YET PUSHED to the remote.",
     ["The git history rewrite has been successfully pushed to GitHub."], True),
    ("The migration is written but not yet applied", ["Applied the migration to staging"], True),
    ("The migration is written but not yet applied", ["Applied the seed data"], False),
    ("Security tasks identified but not executed: install the update",
     ["The history rewrite was pushed"], False),
])
def test_a_step_is_done_by_its_text_its_id_or_most_of_its_words(
        step: str, done: list[str], expected: bool) -> None:
    assert settled.completed(step, done) is expected


def test_a_step_a_later_commit_made_leaves_the_briefing(env: Path, log: Transcript) -> None:
    log.prompt("What is left?")
    log.say("Next steps:\n- Add tests for the parser\n- Document the export flags")
    stop(log)
    log.prompt("do the tests")
    log.call("b1", "Bash", {"command": 'git commit -m "Add tests for parser"'})
    log.result("b1", "[main 1a2b3c4] Add tests for parser\n 1 file changed")
    log.say("Committed the parser tests.")
    stop(log)
    end(log)
    assert "- Committed: Add tests for parser" in note(env)
    steps = _steps(briefing())
    assert "Document the export flags" in steps
    assert "Add tests for the parser" not in steps


def test_a_step_whose_object_the_final_answer_reports_running_leaves_the_briefing(
        env: Path, log: Transcript) -> None:
    log.prompt("What is left?")
    log.say("Next steps:\n- Restart the panel and applet\n- Grant the sensor access to the applet")
    stop(log)
    log.prompt("restart them")
    log.call("b1", "Bash", {"command": "systemctl --user restart cosmic-panel"})
    log.result("b1", "")
    log.say("Done: the panel and applet are running with the new build.")
    stop(log)
    end(log)
    steps = _steps(briefing())
    assert "Grant the sensor access to the applet" in steps
    assert "Restart the panel and applet" not in steps


# -- failures superseded by a later pass -----------------------------------------------------------

FAILED = ("Exit code 1\n============ FAILURES ============\n"
          "E   psycopg.OperationalError: connection refused")
PASSED = "===== 12 passed in 0.40s ====="


@pytest.mark.parametrize("later", [
    "docker compose up -d db && pytest tests/ -q",
    "cd /home/dev/work/shop && pytest tests/ -q",
    "DATABASE_URL=postgres://localhost/test pytest tests/ -q",
    "uv run pytest tests/ -q",
    "poetry run pytest tests/ -q 2>&1 | tail -20",
])
@pytest.mark.parametrize("same_turn", [True, False])
def test_a_failure_that_passes_later_is_not_briefed_as_failing(
        env: Path, log: Transcript, later: str, same_turn: bool) -> None:
    log.prompt("Run the tests")
    log.call("b1", "Bash", {"command": "pytest tests/ -q"})
    log.result("b1", FAILED, error=True)
    if not same_turn:
        log.say("The database is not running.")
        stop(log)
        log.prompt("start it and run them again")
    log.call("b2", "Bash", {"command": later})
    log.result("b2", PASSED)
    log.say("All 12 tests pass.")
    stop(log)
    end(log)
    assert "Failed and not passing since" not in briefing()


def test_a_failure_still_failing_is_briefed(env: Path, log: Transcript) -> None:
    log.prompt("Run the tests")
    log.call("b1", "Bash", {"command": "pytest tests/ -q"})
    log.result("b1", FAILED, error=True)
    log.say("The database is not running.")
    stop(log)
    log.prompt("try the linter")
    log.call("b2", "Bash", {"command": "pytest tests/ -q || true"})
    log.result("b2", PASSED)
    log.say("Done.")
    stop(log)
    end(log)
    assert "Failed and not passing since" in briefing()


@pytest.mark.parametrize(("command", "passed"), [
    ("docker compose up -d db && pytest -q", {"pytest -q", "docker compose up -d db"}),
    ("make; pytest -q", {"pytest -q"}),
    ("make || pytest -q", set()),
    ("uv run pytest -k 'a and b'", {"pytest -k a and b"}),
    ("echo \"x && y\" && pytest", {"pytest", "echo x && y"}),
    ("pytest 2>&1 && echo ok", {"pytest", "echo ok"}),
])
def test_a_command_that_passed_passes_the_parts_its_status_vouches_for(
        command: str, passed: set[str]) -> None:
    assert fixes.passes(command) == {fixes.state_key(command), *passed}


# -- the last session is the last Claude session ---------------------------------------------------


def test_a_note_remembered_between_sessions_joins_the_last_session_without_displacing_it(
        env: Path, log: Transcript) -> None:
    log.prompt("Add the CSV exporter")
    log.say("The CSV exporter writes one file per table.")
    stop(log)
    end(log)
    memory = Memory(Config(vault=env, project=PROJECT), Vault(env))
    memory.remember("Rotate the staging keys", kind="next-step",
                    now=datetime.fromisoformat(f"{DAY}T11:00:00").astimezone())
    last = briefing().split("Last session (data):")[1].split("\n~~~\n")[0]
    assert "Add the CSV exporter" in last.split("\n")[2]  # its topic heads the block
    assert "The CSV exporter writes one file per table." in last
    assert "- Rotate the staging keys" in _steps(last)


def test_a_session_that_stopped_mid_turn_has_no_thinking_aloud_outcome(
        env: Path, log: Transcript) -> None:
    log.prompt("Create the sources and build")
    log.call("w1", "Write", {"file_path": f"{CWD}/Sources/App/main.swift", "content": "x"})
    log.result("w1", "File created successfully")
    log.say("28 Swift source files created in Sources. Let me now try the build again.")
    log.call("b1", "Bash", {"command": "swift build"})
    end(log)  # cut short: no final answer
    text = note(env)
    assert "**Answer:** 28 Swift source files created in Sources." in text
    assert "Let me now try the build again" not in briefing()


def test_a_step_the_final_answer_reports_done_leaves_the_briefing(
        env: Path, log: Transcript) -> None:
    log.prompt("What is left?")
    log.say("Next steps:\n- Add the CSV exporter\n- Add the JSON exporter")
    stop(log)
    log.prompt("do the csv one")
    log.say("I added the CSV exporter; the tests now pass. The JSON exporter is not started yet.")
    stop(log)
    end(log)
    steps = _steps(briefing())
    assert "Add the JSON exporter" in steps
    assert "Add the CSV exporter" not in steps


def test_todo_items_completed_are_the_last_session_s_outcome_in_the_briefing(
        env: Path, log: Transcript) -> None:
    log.prompt("Build the exporter")
    log.call("t1", "TodoWrite", _todos(("Write the schema", "completed"),
                                       ("Add the CSV exporter", "completed")))
    log.result("t1", "Todos have been modified successfully.")
    log.say("Both are in.")
    stop(log)
    end(log)
    done = briefing().split("Done (todo items completed, commits made):\n")[1].split("~~~")[0]
    assert done.split("\n")[:2] == ["- Write the schema", "- Add the CSV exporter"]


def test_an_item_the_tracker_closes_later_leaves_the_open_list(
        env: Path, log: Transcript) -> None:
    log.prompt("What is open?")
    log.call("b1", "Bash", {"command": "gh issue list"})
    log.result("b1", GH_LIST)
    log.say("Two issues are open.")
    stop(log)
    log.prompt("fix 12 and close it")
    log.call("b2", "Bash", {"command": "gh issue close 12 --comment 'fixed in 1a2b3c4'"})
    log.result("b2", "✓ Closed issue shop/api#12 (Export fails on empty tables)")
    log.say("Closed it.")
    stop(log)
    end(log)
    steps = _steps(briefing())
    assert "Add a --since flag" in steps
    assert "Export fails on empty tables" not in steps


@pytest.mark.parametrize(("command", "ids"), [
    ("gh issue close 12", ("#12",)),
    ("gh pr merge 31 --squash", ("#31",)),
    ("bd close bd-a1b2 --reason done", ("bd-a1b2",)),
    ("gh issue view 12", ()),
    ("git merge main", ()),
])
def test_a_tracker_s_close_names_the_ids_it_closes(command: str, ids: tuple[str, ...]) -> None:
    assert structured.closed(command) == ids


PROSE_PLAN = """# Plan: panel applet power readout

## Context
The panel shows nothing about power today.

## Approach
Poll the RAPL counters from one background task so the panel never blocks. A second task would
double the reads.

## Implementation Steps
1. Add the reader module
2. We'll use a channel subscription rather than a timer, since the timer never fired in the
   panel.
3. Let me check the panel's config before wiring it.

Maybe we should add a GPU reading later?
"""


def test_an_approved_plans_prose_gives_the_choices_it_states_not_its_steps() -> None:
    assert [f.text for f in structured.plan_decisions(PROSE_PLAN)] == [
        ("Poll the RAPL counters from one background task so the panel never blocks. A second "
         "task would double the reads."),
        ("We'll use a channel subscription rather than a timer, since the timer never fired in "
         "the panel.")]


REJECTED = ("The user doesn't want to proceed with this tool use. The tool use was rejected (eg. "
            "if it was a file edit, the new_string was NOT written to the file). To tell you how "
            "to proceed, the user said:\n")


def test_the_words_a_rejected_call_is_refused_with_are_the_persons_choice(
        env: Path, log: Transcript) -> None:
    log.prompt("Move the secrets out of the config")
    log.call("toolu_e", "Edit", {"file_path": "/srv/app/config.yaml", "old_string": "a",
                                 "new_string": "b"})
    log.result("toolu_e", REJECTED + "what is this for?  Put them in environment variables "
               "instead, one per secret.", error=True)
    log.say("Understood: environment variables, one per secret.")
    stop(log)
    assert section(note(env), "Decisions Made") == [
        "- Choice from the person: Put them in environment variables instead, one per secret."]


@pytest.mark.parametrize("said", [
    "[Request interrupted by user for tool use]",
    REJECTED + "why?",
    REJECTED + "no",
])
def test_a_rejection_without_words_of_direction_is_no_choice(said: str) -> None:
    from vaultmem.mining import prompts
    assert prompts.redirect(said) is None
