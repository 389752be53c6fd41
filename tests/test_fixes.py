"""fixes.py and capture's failure→fix items: a pass after a failure is a gotcha only when the
change in between plausibly fixed it; background commands and their notifications."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from vaultmem.claude import ingest
from vaultmem.claude.toolblocks import Outcome, ToolCall
from vaultmem.claude.transcript import Turn, parse_lines
from vaultmem.mining import commandline
from vaultmem.mining.fixes import (
    Run,
    checks_only,
    env_names,
    failure_key,
    fix_text,
    installed_text,
    plausible,
    retry_text,
)
from vaultmem.notes.patch import Edit, SectionPatch

NOW = datetime(2026, 11, 22, 10, 30, tzinfo=timezone.utc)
CWD = "/home/dev/work/shop"


def _failed(command: str, error: str | None = None) -> Run:
    return Run(1, True, error, command)


def _passed(command: str) -> Run:
    return Run(9, False, None, command)


@pytest.mark.parametrize(
    ("command", "key"),
    [
        ("pytest -q tests/test_auth.py", "pytest -q tests/test_auth.py"),
        ("REDIS_URL=redis://localhost:6379/0 pytest -q tests/test_auth.py",
         "pytest -q tests/test_auth.py"),
        ("cd /home/dev/shop && MIX_ENV=test mix test 2>&1 | tail -20", "mix test"),
        ("export A=1 B='x y' make", "make"),
        # An export joined to the command by ``&&`` or ``;`` is no part of it either.
        ("export PATH=$HOME/.cargo/bin:$PATH && cargo build", "cargo build"),
        ('export PATH="/opt/a b:$PATH"; cd app && cargo build 2>&1 | tail', "cargo build"),
        # Nor is any other shell prelude: sourcing, activating, setting options.
        ("source ~/.cargo/env && cargo build", "cargo build"),
        (". .venv/bin/activate; cd app && pytest -q", "pytest -q"),
        ("set -e; conda activate ml && python train.py", "python train.py"),
        ("cd app", "cd app"),  # nothing after it: it is the work
    ],
)
def test_runs_of_one_command_share_a_key(command: str, key: str) -> None:
    assert commandline.run_key(command) == key


def test_inline_variables_are_named() -> None:
    assert env_names("A=1 B='x y' cd src && C=3 make") == ("A", "B", "C")
    assert env_names("make A=1") == ()


@pytest.mark.parametrize(
    "command",
    ["git push", "git push -u origin main", "ruff check vaultmem", "uv run mypy --strict src",
     "mix credo --strict", "mix format --check-formatted", "npx eslint src", "cargo clippy",
     "cat /tmp/claude-0/tasks/b27a792.output", "ls build/", "npm run lint"],
)
def test_checks_git_and_file_inspection_never_make_a_fix(command: str) -> None:
    assert checks_only(command)
    assert fix_text(_failed(command, "fatal: no upstream"), _passed(command),
                    [command.split()[-1], "src/billing/refunds.py"]) is None


@pytest.mark.parametrize("command", ["pytest -q", "mix test", "cargo test", "npm test", "make"])
def test_runners_are_not_checks(command: str) -> None:
    assert not checks_only(command)


def test_only_an_edit_to_what_the_command_ran_or_its_error_names_is_credited() -> None:
    edited = ["src/auth/passwords.py", "src/billing/webhook.py", "README.md", "lib/shop/invoice_renderer.ex"]
    assert plausible(edited, "pytest tests/test_billing.py", "E KeyError: 'signature'") == [
        "src/billing/webhook.py"]
    assert plausible(edited, "mix test", "** (UndefinedFunctionError) InvoiceRenderer.render/2") == [
        "lib/shop/invoice_renderer.ex"]
    assert plausible(["src/db/session.py"], "pytest -q tests/test_db.py", None) == [
        "src/db/session.py"]
    # Nothing names the edited files: the pass is not credited to them.
    assert plausible(edited, "pytest -q", "E   assert None == 'jwt'") == []
    text = fix_text(_failed("pytest tests/test_billing.py", "E KeyError: 'signature'"),
                    _passed("pytest tests/test_billing.py"), edited)
    assert text == ("Fixed by editing `src/billing/webhook.py`: `pytest tests/test_billing.py` "
                    "failed (`E KeyError: 'signature'`)")


def test_a_pass_with_a_variable_set_inline_is_fixed_by_that_variable() -> None:
    failed = _failed("pytest -q tests/test_auth.py", "E redis.exceptions.ConnectionError: 111")
    text = fix_text(failed, _passed("REDIS_URL=redis://x:6379/0 pytest -q tests/test_auth.py"),
                    ["src/auth/passwords.py"])
    # The variable's name, never its value (it may be a secret).
    assert text == ("Fixed with `REDIS_URL` set: `pytest -q tests/test_auth.py` failed "
                    "(`E redis.exceptions.ConnectionError: 111`)")


def _bash(ident: str, command: str) -> ToolCall:
    return ToolCall(ident, "Bash", command=command)


def _gotchas(turns: list[Turn]) -> list[str]:
    return [i.text for i in ingest.story(turns, now=NOW, cwd=CWD).items if i.kind == "gotcha"]


def _runs(*steps: list[tuple[str, str | None]]) -> list[Turn]:
    """Per step, a turn running its commands and the turn with their results: each
    ``(command, error)`` failed with ``error``, or passed when it is None."""
    turns: list[Turn] = []
    ident = 0
    for n, step in enumerate(steps, 1):
        idents = [f"b{ident + k}" for k in range(1, len(step) + 1)]
        ident += len(step)
        turns.append(Turn(f"a{n}", None, None, calls=tuple(
            _bash(i, command) for i, (command, _) in zip(idents, step))))
        turns.append(Turn(f"r{n}", None, None, outcomes=tuple(
            Outcome(i, error is not None, error) for i, (_, error) in zip(idents, step))))
    return turns


def test_the_redis_failure_is_not_blamed_on_a_later_edit() -> None:
    # The Auth session of bench/fixtures/memory: the env var fixed it; a later edit did not.
    turns = [
        Turn("u1", None, "add login"),
        Turn("a1", None, None, calls=(_bash("b1", "pytest -q tests/test_auth.py"),)),
        Turn("r1", None, None, outcomes=(Outcome("b1", True, "E redis...ConnectionError"),)),
        Turn("a2", None, None, calls=(
            _bash("b2", "REDIS_URL=redis://localhost:6379/0 pytest -q tests/test_auth.py"),)),
        Turn("r2", None, None, outcomes=(Outcome("b2", False, None),)),
        Turn("u2", None, "why did it fail?"),
        Turn("a3", None, None, calls=(
            ToolCall("e1", "Edit", path=f"{CWD}/src/auth/passwords.py"),
            _bash("b3", "pytest -q tests/test_auth.py"))),
        Turn("r3", None, None, outcomes=(Outcome("e1", False, None), Outcome("b3", False, None))),
    ]
    assert _gotchas(turns) == [
        ("Fixed with `REDIS_URL` set: `pytest -q tests/test_auth.py` failed "
         "(`E redis...ConnectionError`)")]


def test_git_push_without_upstream_is_no_gotcha() -> None:
    turns = [
        Turn("a1", None, None, calls=(_bash("b1", "git push"),)),
        Turn("r1", None, None, outcomes=(Outcome(
            "b1", True, "fatal: The current branch main has no upstream branch."),)),
        Turn("a2", None, None, calls=tuple(
            ToolCall(f"e{n}", "Edit", path=f"{CWD}/lib/shop/f{n}.ex") for n in range(6))),
        Turn("a3", None, None, calls=(_bash("b2", "git push"),)),
        Turn("r3", None, None, outcomes=(Outcome("b2", False, None),)),
    ]
    assert _gotchas(turns) == []


def _line(kind: str, content: object, uuid: str) -> str:
    import json

    return json.dumps({"type": kind, "uuid": uuid, "message": {"role": kind, "content": content}})


def test_a_background_command_has_no_outcome_until_its_notification() -> None:
    lines = [
        _line("user", "run the suite in the background", "u1"),
        _line("assistant", [{"type": "tool_use", "id": "t1", "name": "Bash",
                             "input": {"command": "pytest -q", "run_in_background": True}}], "a1"),
        _line("user", [{"type": "tool_result", "tool_use_id": "t1", "content":
                        "Command running in background with ID: b27a792. Output is being "
                        "written to: /tmp/claude-0/tasks/b27a792.output"}], "r1"),
        _line("assistant", [{"type": "text", "text": "The suite is running."}], "a2"),
        _line("user", "<task-notification>\n<task-id>b27a792</task-id>\n<tool-use-id>t1"
                      "</tool-use-id>\n<status>failed</status>\n<summary>Background command "
                      "\"pytest -q\" failed with exit code 1</summary>\n</task-notification>\n"
                      "Read the output file to retrieve the result: /tmp/claude-0/tasks/b27a792"
                      ".output", "n1"),
        _line("assistant", [{"type": "text", "text": "Two tests fail."}], "a3"),
    ]
    parsed = parse_lines(lines)
    assert parsed.turns[2].outcomes[0].background
    told = ingest.story(parsed.turns, now=NOW, cwd=CWD)
    # One turn: the notification is no prompt; the command failed by the notification's word.
    (entry,) = told.entries
    assert "task-notification" not in entry
    assert "- Failed: `pytest -q` — `Background command \"pytest -q\" failed with exit code 1`" in entry


def _result(content: str, is_error: bool) -> Outcome:
    line = _line("user", [{"type": "tool_result", "tool_use_id": "t", "content": content,
                           "is_error": is_error}], "r")
    return parse_lines([line]).turns[0].outcomes[0]


def test_a_failure_is_told_by_its_exit_status_and_error_line_never_its_first_line() -> None:
    credo = ("Exit code 1\nChecking 3 source files ...\n\n  lib/shop/x.ex:3 Modules should "
             "have a @moduledoc tag.\nAnalysis took 0.1 seconds\nFound 1 issue.")
    assert _result(credo, True) == Outcome("t", True, "Found 1 issue.")
    assert _result("Exit code 2", True) == Outcome("t", True, "Exit code 2")
    assert _result("Checking 3 source files ...\nNo issues found", False) == Outcome("t", False)
    elixir = "Exit code 1\nCompiling 2 files (.ex)\n** (CompileError) lib/a.ex:1: undefined x/0"
    assert _result(elixir, True).error == "** (CompileError) lib/a.ex:1: undefined x/0"


def test_a_unix_tool_s_diagnostic_is_the_error_not_the_output_s_last_line() -> None:
    busybox = ("Exit code 1\nps: unrecognized option: a\nBusyBox v1.36.1 multi-call binary.\n\n"
               "Usage: ps\n\nShow list of processes\n\n\tw\tWide output")
    assert _result(busybox, True).error == "ps: unrecognized option: a"
    ssh = "Exit code 255\nssh: Could not resolve hostname slate.lan: nodename nor servname"
    assert _result(ssh, True).error.startswith("ssh: Could not resolve hostname")
    # What a command printed before the step that failed says nothing about the failure.
    assert _result("Exit code 1\n=== dnsmasq.d/ ===", True).error == "Exit code 1"
    assert _result("Exit code 1\n192.0.2.7", True).error == "Exit code 1"
    assert _result("Exit code 1\n2 files would be reformatted", True).error == (
        "2 files would be reformatted")


def test_a_tool_s_explanation_over_its_list_is_the_error_not_its_hints() -> None:
    ignored = ("Exit code 1\nThe following paths are ignored by one of your .gitignore files:\n"
               "tools/export_keys.py\nhint: Use -f if you really want to add them.\n"
               "hint: Turn this message off by running\n"
               'hint: "git config advice.addIgnoredFile false"')
    assert _result(ignored, True).error == (
        "The following paths are ignored by one of your .gitignore files:")
    # A hint is advice, never the verdict: a command with nothing else to say shows its code.
    assert _result("Exit code 1\nhint: see 'git help config'", True).error == "Exit code 1"


def test_an_older_note_s_notification_entry_is_no_prompt_in_the_briefing() -> None:
    from vaultmem.brief import digest

    log = ("## Work Log\n\n### 09:00 - fix the build\n\n**Answer:** Started the suite.\n\n"
           "### 09:05 - <task-notification> <task-id>b27a792</task-id> …\n\n"
           "**Answer:** Two tests fail in `test_refunds.py`.\n")
    turns = digest.session("s.md", log).turns
    assert [(t.time, t.title) for t in turns] == [("09:00", "fix the build"), ("09:05", "")]


def _failing_then_fixed(n: int, command: str, error: str, fixed: str) -> list[Turn]:
    return [
        Turn(f"a{n}", None, None, calls=(_bash(f"b{n}", command),)),
        Turn(f"r{n}", None, None, outcomes=(Outcome(f"b{n}", True, error),)),
        Turn(f"c{n}", None, None, calls=(ToolCall(f"e{n}", "Edit", path=f"{CWD}/{fixed}"),
                                         _bash(f"p{n}", command))),
        Turn(f"s{n}", None, None, outcomes=(Outcome(f"e{n}", False, None),
                                            Outcome(f"p{n}", False, None))),
    ]


def _gotcha_lines(edits: list[Edit]) -> list[str]:
    return [line for e in edits if isinstance(e, SectionPatch) and e.heading == ingest.GOTCHAS
            for line in e.content.split("\n")]


def test_one_failure_fixed_again_is_one_gotcha_in_the_note() -> None:
    # A real session: the same script failed on one file after another (another id in the
    # error, another command tail), each time fixed by an edit of the script.
    first = _failing_then_fixed(
        1, "cd ~/repo && python scripts/sync.py 2>&1 | head -30",
        "Error processing agent-a85ddf9.jsonl: bad escape \\U at position 2", "scripts/sync.py")
    again = _failing_then_fixed(
        2, "python scripts/sync.py",
        "Error processing 31f4b3f9-e7fa.jsonl: bad escape \\U at position 2", "scripts/sync.py")
    other = _failing_then_fixed(3, "python scripts/sync.py", "KeyError: 'title'",
                                "scripts/sync.py")
    both = ingest.edits_for(ingest.story([*first, *again, *other], now=NOW, cwd=CWD), "")
    lines = _gotcha_lines(both)
    assert len(lines) == 2 and "agent-a85ddf9" in lines[0] and "KeyError" in lines[1]
    # The same across hooks: a note that has the first keeps only the other failure.
    note = "## Gotchas & Fixes\n\n" + lines[0] + "\n"
    later = ingest.edits_for(ingest.story([*again, *other], now=NOW, cwd=CWD), note)
    assert _gotcha_lines(later) == [lines[1]]


@pytest.mark.parametrize(
    "error",
    ["error[E0599]: no method named `render_row` found for struct `Ledger` in the current scope",
     "src/ledger/view.tsx(14,7): error TS2322: Type 'string' is not assignable to type 'number'.",
     "Sources/Ledger/Row.swift:31:9: error: cannot find 'rowHeight' in scope",
     "internal/ledger/sum.go:12:2: undefined: roundCents"],
)
def test_a_compile_error_cleared_by_editing_the_code_is_no_gotcha(error: str) -> None:
    # The code being written did not build yet; editing it made it build: work in progress.
    edited = ["src/ledger/view.rs", "src/ledger/view.tsx", "Sources/Ledger/Row.swift",
              "internal/ledger/sum.go"]
    assert fix_text(_failed("cargo build --release", error), _passed("cargo build --release"),
                    edited) is None


def test_a_compile_error_cleared_in_the_build_s_setup_is_a_gotcha() -> None:
    error = "error[E0433]: failed to resolve: use of undeclared crate or module `ledger`"
    text = fix_text(_failed("cargo build", error), _passed("cargo build"),
                    ["ledger/Cargo.toml", "ledger/src/main.rs"])
    assert text is not None and "`ledger/Cargo.toml`" in text


def test_a_mined_gotcha_about_a_compile_error_of_code_being_written_is_no_item() -> None:
    answer = ("Fixed the `error[E0308]: mismatched types` in `src/ledger/view.rs` by wrapping "
              "the label in `Some(...)`.\n\n"
              "The root cause of the second failure was `error[E0433]: use of undeclared crate "
              "`chrono``; fixed by adding chrono to Cargo.toml.")
    turns = [Turn("u", None, "make the ledger view build"),
             Turn("a", None, None, text=answer)]
    items = [i.text for i in ingest.story(turns, now=NOW, cwd=CWD).items if i.kind == "gotcha"]
    assert len(items) == 1 and "Cargo.toml" in items[0]


def test_an_error_line_listed_as_a_gotcha_without_cause_or_fix_is_no_item() -> None:
    # A final answer listing what went wrong as raw tool output: no lesson in any of them.
    answer = ("**Known issues:**\n"
              "- `error[E0599]: no method named `post_entry` found for struct `Ledger``\n"
              "- `TypeError: Cannot read properties of undefined (reading 'rows')` at "
              "LedgerView.render (src/ledger/view.tsx:21:9)\n"
              "- `panic: runtime error: index out of range [2] with length 2`\n"
              "- The export hangs when the ledger is empty because the cursor never closes\n")
    turns = [Turn("u", None, "what is still broken in the ledger?"),
             Turn("a", None, None, text=answer)]
    items = [i.text for i in ingest.story(turns, now=NOW, cwd=CWD).items if i.kind == "gotcha"]
    assert items == ["The export hangs when the ledger is empty because the cursor never closes"]


def test_a_setup_command_between_the_failure_and_the_pass_is_the_fix() -> None:
    error = "ModuleNotFoundError: No module named 'pytest_asyncio'"
    turns = _runs(
        [("pytest -q", error)],
        [("ls tests", None), ("uv add --dev pytest-asyncio", None)],
        [("pytest -q", None)],
    )
    assert _gotchas(turns) == [
        f"Fixed by running `uv add --dev pytest-asyncio`: `pytest -q` failed (`{error}`)"]


def test_a_look_up_between_the_failure_and_the_pass_is_no_fix() -> None:
    turns = _runs(
        [("make report", "make: *** [report] Error 2")],
        [("cat Makefile", None), ("npm run build", None)],
        [("make report", None)],
    )
    assert _gotchas(turns) == []


def test_a_command_that_worked_on_the_failing_script_is_the_fix() -> None:
    error = "(eval):1: ./scripts/sync.sh: bad interpreter: /bin/bash^M: no such file or directory"
    turns = _runs(
        [("cd ~/repo && ./scripts/sync.sh --dry-run", error)],
        [("cd ~/repo && echo checking", None), ("sed -i 's/\\r$//' scripts/sync.sh", None), ("git add scripts/sync.sh", None)],
        [("cd ~/repo && ./scripts/sync.sh --dry-run", None)],
    )
    # The folder cd'ed into, an echo and staging the file fixed nothing.
    assert _gotchas(turns) == [
        ("Fixed by running `sed -i 's/\\r$//' scripts/sync.sh`: "
         f"`cd ~/repo && ./scripts/sync.sh --dry-run` failed (`{error}`)")]


def test_a_look_up_of_the_failing_script_is_no_fix() -> None:
    turns = _runs(
        [("./scripts/sync.sh", "./scripts/sync.sh: line 3: x")],
        [("cat scripts/sync.sh", None)],
        [("./scripts/sync.sh", None)],
    )
    assert _gotchas(turns) == []


def test_a_git_command_fixed_by_a_git_setup_command_is_a_gotcha() -> None:
    error = "! [rejected] main -> main (fetch first)"
    turns = _runs(
        [("git push", error)],
        [("npm install", None), ("git pull --no-rebase", None)],
        [("git push", None)],
    )
    assert _gotchas(turns) == [
        f"Fixed by running `git pull --no-rebase`: `git push` failed (`{error}`)"]


@pytest.mark.parametrize(
    ("failed", "error", "passed", "gotcha"),
    [
        ('git commit -m "Add sync"', "error: gpg failed to sign the data",
         'git add a.py && git commit --no-gpg-sign -m "Add sync, again"',
         ("Fixed with `--no-gpg-sign`: `git commit` failed "
          "(`error: gpg failed to sign the data`)")),
        ("git commit -m x", "gitleaks: 3 leaks found", "git commit --no-verify -m x",
         "Fixed with `--no-verify`: `git commit` failed (`gitleaks: 3 leaks found`)"),
        # A message of several lines: the command is recorded by its first line, quote open.
        ('git commit -m "Security: add gitleaks …', "gitleaks: 3 leaks found",
         'git commit --no-verify -m "Security: add gitleaks …',
         "Fixed with `--no-verify`: `git commit` failed (`gitleaks: 3 leaks found`)"),
        ("cd ~/shop && git commit -m \"$(cat <<'EOF' …", "error: gpg failed to sign the data",
         "cd ~/shop && git commit --no-gpg-sign -m \"$(cat <<'EOF' …",
         ("Fixed with `--no-gpg-sign`: `git commit` failed "
          "(`error: gpg failed to sign the data`)")),
        # An option that only tunes the run, or one the error does not name, is no fix of it.
        ("pytest -q", "1 failed", "pytest -q --last-failed", None),
        ("cargo build", "error[E0432]: unresolved import", "cargo build --release", None),
        # Another subcommand is another run.
        ("git commit -m x", "error: gpg failed to sign the data", "git tag --no-sign v1", None),
    ],
)
def test_a_retry_with_an_option_that_fixed_it_is_a_gotcha(
    failed: str, error: str, passed: str, gotcha: str | None
) -> None:
    turns = _runs(
        [(failed, error)],
        [(passed, None)],
    )
    assert _gotchas(turns) == ([gotcha] if gotcha else [])


def test_a_missing_module_installed_then_another_run_passing_is_a_gotcha() -> None:
    error = "python.exe: No module named pytest"
    turns = _runs(
        [("python -m pytest tests/ -v", error)],
        [("python -m pip install -r requirements-dev.txt", None)],
        [("python -m pytest tests/test_redaction.py", None)],
    )
    assert _gotchas(turns) == [
        ("Fixed by running `python -m pip install -r requirements-dev.txt`: "
         f"`python -m pytest tests/ -v` failed (`{error}`)")]


def test_another_run_passing_after_an_unrelated_failure_and_an_install_is_no_gotcha() -> None:
    turns = _runs(
        [("pytest tests/test_a.py", "E assert 1 == 2")],
        [("pip install rich", None)],
        [("pytest tests/test_b.py", None)],
    )
    assert _gotchas(turns) == []


def test_a_retry_names_the_option_its_error_names_and_not_a_forced_push() -> None:
    gpg = Run(1, True, "error: gpg failed to sign the data", "git pull")
    assert retry_text(gpg, _passed("git pull --no-rebase --no-gpg-sign")) == (
        "Fixed with `--no-gpg-sign`: `git pull` failed (`error: gpg failed to sign the data`)")
    rejected = Run(1, True, "! [remote rejected] main -> main (push declined)", "git push")
    assert retry_text(rejected, _passed("git push --force-with-lease")) is None


def test_staging_files_fixes_no_git_command() -> None:
    failed = Run(1, True, "! [remote rejected] main -> main (push declined)", "git push")
    assert fix_text(failed, _passed("git push"), [], ["git add CHAT_LOG.md"]) is None
    assert fix_text(failed, _passed("git push"), [], ["git reset --soft HEAD~2"]) == (
        "Fixed by running `git reset --soft HEAD~2`: "
        "`git push` failed (`! [remote rejected] main -> main (push declined)`)")


def test_an_install_is_credited_past_a_run_that_failed_otherwise_in_between() -> None:
    error = "python.exe: No module named pytest"
    turns = _runs(
        [("python -m pytest tests/ -v", error)],
        [("python -m pip install -r requirements-dev.txt", None)],
        [("python -m pytest tests/test_redaction.py", "E AssertionError: assert 1 == 2")],
        [("python -m pytest tests/test_redaction.py -x", None)],
    )
    assert _gotchas(turns) == [
        ("Got it to run by running `python -m pip install -r requirements-dev.txt`: "
         f"`python -m pytest tests/ -v` failed (`{error}`)")]


def test_an_install_that_let_the_program_run_is_credited_even_if_the_run_failed_otherwise() -> None:
    error = "python.exe: No module named pytest"
    turns = _runs(
        [("python -m pytest tests/ -v", error)],
        [("python -m pip install -r requirements-dev.txt", None)],
        [("python -m pytest tests/test_redaction.py", "E AssertionError: assert 1 == 2")],
    )
    assert _gotchas(turns) == [
        ("Got it to run by running `python -m pip install -r requirements-dev.txt`: "
         f"`python -m pytest tests/ -v` failed (`{error}`)")]


def test_a_fix_is_said_first_and_the_error_cut_so_a_line_cut_to_length_keeps_it() -> None:
    error = "C:\\Python314\\python.exe: No module named pytest; " + "more output " * 40
    command = 'cd "C:\\Users\\me\\.claude-worktrees\\repo\\unruffled" && python -m pytest tests/ -v'
    text = installed_text(Run(1, True, error, command), _passed("python -m pytest tests/a.py"),
                          ["pip install -r requirements-dev.txt"])
    assert text is not None
    assert text.startswith("Fixed by running `pip install -r requirements-dev.txt`: ")
    assert f"`{command}` failed (`C:\\Python314\\python.exe: No module named pytest;" in text
    assert len(text) < len(error)  # the error quote is cut short, not the fix
    # Written as before or now, one failure is one lesson (the error compared by its start).
    before = (f"`{command}` failed (`{error.strip()}`); it passed after running "
              "`pip install -r requirements-dev.txt`")
    assert failure_key(text) == failure_key(before) is not None
    assert failure_key("`cat x` failed: `denied`") is None


def _unstarted(ident: str, error: str) -> Outcome:
    return Outcome(ident, True, error, denied=True)


def test_a_command_the_shell_never_started_that_passed_when_run_again_is_a_gotcha() -> None:
    error = "Command failed: cygpath -u 'c:\\users\\dev'"
    turns = [
        Turn("a1", None, None, calls=(_bash("b1", 'ssh root@host "opkg remove x"'),)),
        Turn("r1", None, None, outcomes=(_unstarted("b1", error),)),
        Turn("a2", None, None, calls=(_bash("b2", 'ssh root@host "opkg remove x"'),)),
        Turn("r2", None, None, outcomes=(Outcome("b2", False),)),
        # Another command the shell did not start, passing again: the same lesson, said once.
        Turn("a3", None, None, calls=(_bash("b3", "uci commit"),)),
        Turn("r3", None, None, outcomes=(_unstarted("b3", error),)),
        Turn("a4", None, None, calls=(_bash("b4", "uci commit"),)),
        Turn("r4", None, None, outcomes=(Outcome("b4", False),)),
    ]
    assert _gotchas(turns) == [
        f"Fixed by running it again: `ssh root@host \"opkg remove x\"` failed (`{error}`)"]


def test_a_setup_command_before_the_rerun_of_a_command_never_started_is_the_fix() -> None:
    error = "0 [main] bash (123) child_copy: cygheap read copy failed, Win32 error 299"
    turns = [
        Turn("a1", None, None, calls=(_bash("b1", "npm test"),)),
        Turn("r1", None, None, outcomes=(_unstarted("b1", error),)),
        Turn("a2", None, None, calls=(
            _bash("b2", "powershell Add-MpPreference -ExclusionPath C:\\git"),)),
        Turn("r2", None, None, outcomes=(Outcome("b2", False),)),
        Turn("a3", None, None, calls=(_bash("b3", "npm test"),)),
        Turn("r3", None, None, outcomes=(Outcome("b3", False),)),
    ]
    assert _gotchas(turns) == [
        (f"Fixed by running `powershell Add-MpPreference -ExclusionPath C:\\git`: "
         f"`npm test` failed (`{error}`)")]


def test_a_refused_call_run_again_is_no_gotcha() -> None:
    turns = [
        Turn("a1", None, None, calls=(_bash("b1", "rm -rf build"),)),
        Turn("r1", None, None, outcomes=(_unstarted("b1", "Permission to use Bash denied"),)),
        Turn("a2", None, None, calls=(_bash("b2", "rm -rf build"),)),
        Turn("r2", None, None, outcomes=(Outcome("b2", False),)),
    ]
    assert _gotchas(turns) == []


def test_a_program_found_once_a_variable_was_set_is_a_gotcha_even_if_the_run_failed_otherwise(
) -> None:
    missing = "zsh: command not found: cargo"
    turns = _runs(
        [("cd /home/dev/app && cargo build", missing)],
        [("sh /tmp/rustup-init.sh -y", None)],
        [('cd /home/dev/app && export PATH="$HOME/.cargo/bin:$PATH" && cargo build 2>&1',
          "error: the default runtime flavor is `multi_thread`")],
    )
    assert _gotchas(turns) == [
        f"Got it to run with `PATH` set: `cd /home/dev/app && cargo build` failed (`{missing}`)"]


def test_a_run_passing_with_the_program_given_by_its_path_is_a_gotcha() -> None:
    error = "(eval):source:1: no such file or directory: /.cargo/env"
    failed = Run(1, True, error, "source $HOME/.cargo/env && cargo build --release 2>&1 | tail")
    assert retry_text(failed, _passed("~/.cargo/bin/cargo build --release 2>&1 | tail")) == (
        "Fixed by running `~/.cargo/bin/cargo build --release`: `source $HOME/.cargo/env && "
        f"cargo build --release 2>&1 | tail` failed (`{error}`)")
    # Another run of the program by its path (other arguments) is no fix of this one.
    assert retry_text(failed, _passed("~/.cargo/bin/cargo build --release --bin x")) is None


def _edited_between(failed: str, error: str, passed: str) -> list[str]:
    turns = [
        Turn("a1", None, None, calls=(_bash("b1", failed),)),
        Turn("r1", None, None, outcomes=(Outcome("b1", True, error),)),
        Turn("a2", None, None, calls=(ToolCall("b2", "Edit", path=f"{CWD}/src/billing.py"),)),
        Turn("r2", None, None, outcomes=(Outcome("b2", False),)),
        Turn("a3", None, None, calls=(_bash("b3", passed),)),
        Turn("r3", None, None, outcomes=(Outcome("b3", False),)),
    ]
    return _gotchas(turns)


def test_a_similar_run_passing_after_an_edit_of_what_it_ran_is_a_gotcha() -> None:
    error = "E KeyError: 'currency'"
    failed = "pytest tests/test_billing.py::test_refund -q"
    assert _edited_between(failed, error, "pytest tests/test_billing.py -q") == [
        f"Fixed by editing `src/billing.py`: `{failed}` failed (`{error}`)"]
    # A run of another test file is no rerun of this one, whatever was edited between; nor is
    # another command line ending in the same command.
    assert _edited_between(failed, error, "pytest tests/test_cart.py -q") == []
    assert _edited_between(f"{failed} && echo done", error,
                           "cp src/billing.py /tmp && echo done") == []


def _rerun_after_unstarted(n: int, command: str, error: str) -> list[Turn]:
    return [
        Turn(f"a{n}", None, None, calls=(_bash(f"b{n}", command),)),
        Turn(f"r{n}", None, None, outcomes=(_unstarted(f"b{n}", error),)),
        Turn(f"c{n}", None, None, calls=(_bash(f"p{n}", command),)),
        Turn(f"s{n}", None, None, outcomes=(Outcome(f"p{n}", False),)),
    ]


def test_a_command_never_started_and_run_again_is_one_lesson_across_reads() -> None:
    first = _rerun_after_unstarted(1, "uci commit", "Command failed: cygpath -u 'c:\\users\\dev'")
    lines = _gotcha_lines(ingest.edits_for(ingest.story(first, now=NOW, cwd=CWD), ""))
    assert len(lines) == 1 and lines[0].startswith("- Fixed by running it again: `uci commit`")
    # A later read of the session: another command, the shell failing on another folder.
    note = "## Gotchas & Fixes\n\n" + lines[0] + "\n"
    again = _rerun_after_unstarted(
        2, "opkg remove x", "Command failed: cygpath -u 'C:\\Users\\dev\\AppData\\Local\\Temp'")
    assert _gotcha_lines(ingest.edits_for(ingest.story(again, now=NOW, cwd=CWD), note)) == []


def test_a_program_not_found_in_an_earlier_read_and_found_now_is_a_gotcha() -> None:
    # The install took a few prompts: each Stop read the session anew, the failure in the note.
    missing = "zsh: command not found: cargo"
    turns = _runs([('export PATH="$HOME/.cargo/bin:$PATH" && cargo build',
                    "error: the default runtime flavor is `multi_thread`")])
    story = ingest.story(turns, now=NOW, cwd=CWD, failing={"cargo build": missing})
    assert [i.text for i in story.items if i.kind == "gotcha"] == [
        f"Got it to run with `PATH` set: `cargo build` failed (`{missing}`)"]


def test_a_command_is_read_with_the_shells_quoting_once(monkeypatch: pytest.MonkeyPatch) -> None:
    # A session runs the same commands again and again: commandline reads each once.
    from vaultmem.mining import commandline, fixes

    made: list[str] = []
    real = commandline.commands

    def counted(line: str) -> list[tuple[str, str]]:
        made.append(line)
        return real(line)

    monkeypatch.setattr(commandline, "commands", counted)
    fixes.stages.cache_clear()
    commandline.run_key.cache_clear()
    command = 'uv run pytest -q "tests/test a.py"'
    assert fixes.state_key(command) == "pytest -q tests/test a.py"
    read = len(made)  # its key, then its words
    assert {fixes.state_key(command) for _ in range(3)} == {"pytest -q tests/test a.py"}
    assert len(made) == read
    words = fixes._words(command)
    assert words is not None
    words.append("changed")  # the caller's own list: the next read is as before
    assert fixes._words(command) == ["uv", "run", "pytest", "-q", "tests/test a.py"]


# A shell prelude (``source ~/.cargo/env &&``, ``. .venv/bin/activate &&``, ``cd x &&``) is the
# fix only when it was what the passing run added and nothing else changed; a prelude both runs
# had makes no command a setup step, and a setup step behind one still is one.
CARGO_MISSING = "zsh: command not found: cargo"


def test_a_prelude_the_passing_run_added_is_the_fix() -> None:
    assert _gotchas(_runs([("cargo build", CARGO_MISSING)],
                          [("source ~/.cargo/env && cargo build", None)])) == [
        f"Fixed by running `source ~/.cargo/env` first: `cargo build` failed (`{CARGO_MISSING}`)"]
    # Another run of the program (other options) behind the prelude says the same.
    assert _gotchas(_runs([("cargo build", CARGO_MISSING)],
                          [("source ~/.cargo/env && cargo build --release", None)])) == [
        f"Fixed by running `source ~/.cargo/env` first: `cargo build` failed (`{CARGO_MISSING}`)"]
    assert _gotchas(_runs([("make all", "make: *** No rule to make target 'all'. Stop.")],
                          [("cd sub && make all", None)])) == [
        ("Fixed by running `cd sub` first: `make all` failed (`make: *** No rule to make target "
        "'all'. Stop.`)")]


def test_a_prelude_added_beside_an_edit_is_not_the_fix() -> None:
    error = "FAILED tests/test_billing.py::test_refund - assert 1 == 2"
    turns = [
        Turn("a1", None, None, calls=(_bash("b1", "pytest -q tests/test_billing.py"),)),
        Turn("r1", None, None, outcomes=(Outcome("b1", True, error),)),
        Turn("a2", None, None, calls=(ToolCall("b2", "Edit", path=f"{CWD}/src/other.py"),)),
        Turn("r2", None, None, outcomes=(Outcome("b2", False),)),
        Turn("a3", None, None, calls=(_bash("b3", f"cd {CWD} && pytest -q tests/test_billing.py"),)),
        Turn("r3", None, None, outcomes=(Outcome("b3", False),)),
    ]
    assert not [g for g in _gotchas(turns) if "cd " in g]


def test_a_prelude_both_runs_had_makes_no_setup_step() -> None:
    # ``. venv/bin/activate`` before another run that passed in between is no setup of the
    # machine (a test that failed once and passed on its own run is no lesson either).
    error = "FAILED tests/test_sync.py::test_retry - TimeoutError"
    assert _gotchas(_runs([(". .venv/bin/activate && pytest -q", error)],
                          [(". .venv/bin/activate && python -m build", None)],
                          [(". .venv/bin/activate && pytest -q", None)])) == []


def test_a_setup_step_behind_a_prelude_is_the_fix_named_without_it() -> None:
    error = "ModuleNotFoundError: No module named 'yaml'"
    assert _gotchas(_runs([(". .venv/bin/activate && pytest -q", error)],
                          [(". .venv/bin/activate && pip install pyyaml", None)],
                          [(". .venv/bin/activate && pytest -q", None)])) == [
        (f"Fixed by running `pip install pyyaml`: `. .venv/bin/activate && pytest -q` failed "
        f"(`{error}`)")]


def test_a_run_that_passed_without_the_missing_program_taking_its_output_is_a_gotcha() -> None:
    # `tail` was not on PATH: the same test run passed without the pipe into it.
    turns = _runs(
        [("cargo test 2>&1 | tail -30", "zsh: command not found: tail")],
        [("cargo test 2>&1", None)],
        [("pytest -q 2>&1 | head -50", "bash: line 1: head: command not found")],
        [("pytest -q 2>&1", None)],
    )
    assert _gotchas(turns) == [
        ("Fixed by running it without `tail`: `cargo test 2>&1 | tail -30` failed "
         "(`zsh: command not found: tail`)"),
        ("Fixed by running it without `head`: `pytest -q 2>&1 | head -50` failed "
         "(`bash: line 1: head: command not found`)")]


@pytest.mark.parametrize(("failed", "error", "passed"), [
    # The run's own program missing, found by its path: no stage was done without.
    ("cargo build", "zsh: command not found: cargo", "~/.cargo/bin/cargo build"),
    # The missing program still runs: it was put on PATH, not done without.
    ("cargo test | tail -30", "zsh: command not found: tail",
     "PATH=/usr/bin:$PATH cargo test | tail -30"),
    # Another program missing than the one left out.
    ("cargo test | tail -30 | rg ok", "zsh: command not found: rg", "cargo test | rg ok"),
])
def test_a_run_that_kept_or_never_piped_into_the_missing_program_did_not_do_without(
        failed: str, error: str, passed: str) -> None:
    text = fix_text(_failed(failed, error), _passed(passed), [])
    assert text is None or "without" not in text


def _edits_between_failures(manifest: str, second: str | None) -> list[str]:
    """`cargo build` failing on a package, the edit of ``manifest``, then failing on the code
    (``second``) or passing (None)."""
    build = 'export PATH="$HOME/.cargo/bin:$PATH" && cargo build --release 2>&1'
    turns = [
        Turn("a1", None, None, calls=(_bash("b1", build),)),
        Turn("r1", None, None, outcomes=(Outcome(
            "b1", True, "error: no matching package named `tempo-widgets` found"),)),
        Turn("a2", None, None, calls=(ToolCall("b2", "Edit", path=f"{CWD}/{manifest}"),)),
        Turn("r2", None, None, outcomes=(Outcome("b2", False),)),
        Turn("a3", None, None, calls=(_bash("b3", build),)),
        Turn("r3", None, None, outcomes=(Outcome("b3", second is not None, second),)),
    ]
    return _gotchas(turns)


def test_a_failure_got_past_by_a_setup_change_is_a_gotcha_though_the_next_run_failed() -> None:
    # The manifest's edit cleared the missing package; the next run failed on the code.
    later = "error[E0433]: failed to resolve: use of unresolved module or unlinked crate `iced`"
    assert _edits_between_failures("Cargo.toml", later) == [
        ("Fixed by editing `Cargo.toml`: `export PATH=\"$HOME/.cargo/bin:$PATH\" && cargo build "
        "--release 2>&1` failed (``error: no matching package named `tempo-widgets` found``)")]
    # An edit of the code got past it too, but the pass at the end of the work tells that.
    assert _edits_between_failures("src/app.rs", later) == []
    # The same error again: nothing was got past.
    assert _edits_between_failures(
        "Cargo.toml", "error: no matching package named `tempo-widgets` found") == []


def test_a_program_given_by_its_path_got_past_a_failed_prelude_though_it_then_failed() -> None:
    # ``source`` found no env file; the program by its path ran, then failed compiling.
    failed = "source $HOME/.cargo/env && cargo build --release 2>&1 | tail -20"
    error = "(eval):source:1: no such file or directory: /.cargo/env"
    turns = _runs([(failed, error)], [("~/.cargo/bin/cargo build --release 2>&1 | tail -20",
                                       ("error[E0277]: the trait bound `Text: From<Box<F>>` is "
                                       "not satisfied"))])
    assert _gotchas(turns) == [(f"Fixed by running `~/.cargo/bin/cargo build --release`: "
                               f"`{failed}` failed (`{error}`)")]
