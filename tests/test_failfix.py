"""failfix.py: a failure and what the session said about it (the cause, the workaround, a command
for the person to run) become a gotcha holding the error line, which the failure hook finds by
the error's signature when the failure comes back (issue 31 items 1-2). Made-up transcripts
replayed through the Stop hook into a temporary vault, and the pure rules."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hook_kit import hook_env, run_hook
from transcript_kit import Transcript, note, section, stop

from vaultmem.claude import errorline, failfix, onfailure
from vaultmem.claude.failfix import Met, Said
from vaultmem.search import index
from vaultmem.store.vault import Vault

SUDO = "sudo: a terminal is required to read the password; either use the -S option"
FORK = ("0 [main] bash (12728) child_copy: cygheap read copy failed, 0x0..0x800020EF0, done 0, "
        "windows pid 12728, Win32 error 299")


def test_the_message_after_a_failure_that_says_why_is_its_gotcha() -> None:
    met = [Met("sudo apt install ripgrep", SUDO, 3)]
    said = [Said(1, "Installing ripgrep."),
            Said(4, "Let me check.\nsudo needs a password, so please run `sudo apt install "
                    "ripgrep` in your terminal.")]
    [(index, text)] = failfix.gotchas(met, said)
    assert index == 1
    assert text.startswith("sudo needs a password, so please run `sudo apt install ripgrep`")
    assert "a terminal is required to read the password" in text  # found by the error again


@pytest.mark.parametrize("after", [
    "Let me try that again with another flag.",  # a next move, nothing learnt
    "Done: the report is in out/report.md.",  # no cause, no fix
])
def test_a_failure_nothing_was_said_about_gets_nothing(after: str) -> None:
    assert failfix.gotchas([Met("make report", "make: *** [report] Error 2 widget", 0)],
                           [Said(1, after)]) == []


def test_a_failure_without_an_error_line_gets_nothing() -> None:
    assert failfix.gotchas([Met("false", "Exit code 1", 0)],
                           [Said(1, "It failed because false always fails.")]) == []


def test_a_later_message_that_names_the_error_explains_it() -> None:
    met = [Met("ssh box 'ps'", FORK, -1)]  # an earlier read recorded it
    said = [Said(2, "The router is fine because dnsmasq runs."),  # a cause, not of this error
            Said(7, "## Root cause\n- `Win32 error 299` = `ERROR_PARTIAL_COPY`: MSYS2's fork "
                    "emulation breaks\n- the antivirus scans every fork, so I added exclusions")]
    [(index, text)] = failfix.gotchas(met, said)
    assert index == 1
    assert text.startswith("`Win32 error 299` = `ERROR_PARTIAL_COPY`: MSYS2's fork emulation")


def test_one_gotcha_per_error_signature() -> None:
    met = [Met("pytest -q", "ModuleNotFoundError: No module named 'pytest_asyncio'", 1),
           Met("pytest -x", "ModuleNotFoundError: No module named 'pytest_asyncio'", 3)]
    said = [Said(2, "It fails because `pytest_asyncio` is not installed."),
            Said(4, "Still failing because `pytest_asyncio` is missing from the venv.")]
    assert len(failfix.gotchas(met, said)) == 1


NOTE_LINES = (
    "- Failed: `ssh box 'ps'` ×2 — `0 [main] bash (1) child_copy: cygheap read copy failed`",
    "- Failed: `ls x`",  # no error line: nothing to sign
    "- Failed: `pytest` — `ModuleNotFoundError: No module named 'x_y'`",
    "- It needs `x_y` (`pytest` failed: `ModuleNotFoundError: No module named 'x_y'`)",
    "- Not run: `tracert x` — `Command failed: cygpath -u 'C:\\Users\\me'`",  # the machine
    "- Not run: `rm -rf build` — `[Request interrupted by user for tool use]`",  # a person
)


def test_the_failures_a_note_records_are_read_until_explained() -> None:
    assert failfix.met_in_note("\n".join(NOTE_LINES)) == [
        Met("ssh box 'ps'", "0 [main] bash (1) child_copy: cygheap read copy failed", -1),
        Met("tracert x", "Command failed: cygpath -u 'C:\\Users\\me'", -1)]


def test_a_recurrence_matches_the_gotcha_by_its_signature_and_another_error_does_not() -> None:
    [(_, text)] = failfix.gotchas([Met("ssh box 'ps'", FORK, 0)], [Said(
        1, "The `cygheap read copy failed` errors come from MSYS2's fork emulation; the fix is "
           "to rebase the DLLs with every shell closed.")])
    later = onfailure.Failure("Bash", "git status", None, FORK.replace("12728", "40001").replace(
        "bash", "git"))
    assert onfailure.tier(later, errorline.signature(later.error), text) == 0
    other = onfailure.Failure("Bash", "npm test", None, "TypeError: cannot read properties of "
                              "undefined (reading 'map')")
    assert onfailure.tier(other, errorline.signature(other.error), text) is None


def test_signatures_leave_out_paths_addresses_and_ids() -> None:
    assert errorline.signature("Command failed: cygpath -u 'C:\\Users\\me\\AppData\\Local\\Temp'"
                               ) == ["cygpath"]
    assert "pytest_asyncio" in errorline.signature(
        "ModuleNotFoundError: No module named 'pytest_asyncio'")
    assert errorline.signature("error[E0277]: the trait bound is not satisfied")[0] == "e0277"


def test_capture_files_the_explained_failure_as_a_gotcha(env: Path, log: Transcript) -> None:
    log.prompt("install ripgrep on the box")
    log.call("b1", "Bash", {"command": "sudo apt install -y ripgrep"})
    log.result("b1", f"Exit code 1\n{SUDO}\nsudo: a password is required", error=True)
    log.say("sudo needs a password and this shell has no terminal, so please run `sudo apt "
            "install -y ripgrep` yourself.")
    stop(log)
    [gotcha] = [g for g in section(note(env), "Gotchas & Fixes") if "terminal is required" in g]
    assert "please run `sudo apt install -y ripgrep` yourself" in gotcha


def test_an_explanation_in_a_later_turn_is_tied_to_the_failure_it_names(
        env: Path, log: Transcript) -> None:
    log.prompt("check the router")
    log.call("b1", "Bash", {"command": "ssh box 'ps'"})
    log.result("b1", FORK, error=True)
    log.say("The router runs dnsmasq.")
    stop(log)
    assert not section(note(env), "Gotchas & Fixes")
    log.prompt("why do commands keep failing?")
    log.say("## Why\n- `Win32 error 299` = `ERROR_PARTIAL_COPY`: MSYS2's fork emulation fails, "
            "so I excluded Git from the antivirus scan.")
    stop(log)
    [gotcha] = section(note(env), "Gotchas & Fixes")
    assert "ERROR_PARTIAL_COPY" in gotcha and "child_copy: cygheap read copy failed" in gotcha
    log.prompt("thanks")
    log.say("The fix stays: `Win32 error 299` = `ERROR_PARTIAL_COPY` because of fork emulation.")
    stop(log)
    assert len(section(note(env), "Gotchas & Fixes")) == 1  # explained once


def test_an_interrupted_call_gets_no_gotcha(env: Path, log: Transcript) -> None:
    log.prompt("run the suite")
    log.call("b1", "Bash", {"command": "pytest -q"})
    log.result("b1", "Exit code 137\n[Request interrupted by user for tool use]", error=True)
    log.say("You stopped it because the suite takes too long; I'll run one file.")
    stop(log)
    assert not section(note(env), "Gotchas & Fixes")


def test_a_command_the_shell_never_started_is_signed_by_the_shell_s_line() -> None:
    # What the command printed after Git Bash's fork failed is not what went wrong.
    error = f"Exit code 1\n      {FORK}\nwhoami: extra operand '/priv'\nTry 'whoami --help'."
    assert errorline.error_line(error) == FORK
    assert "cygheap" in errorline.signature(error)


def test_a_message_about_something_else_is_not_tied_to_the_failure_before_it() -> None:
    met = [Met("ipconfig /all", "Error: unrecognized or incomplete command line.", 3)]
    said = [Said(4, "The issue is DNS: the router refuses queries because dnsmasq has no "
                    "upstream server.")]
    assert failfix.gotchas(met, said) == []


def test_a_handed_gotcha_leads_with_its_whole_fix_command_then_the_problem() -> None:
    from vaultmem.mining import factrule

    met = [Met("cat /sys/class/powercap/rapl:0/energy_uj",
               "cat: '/sys/class/powercap/rapl:0/energy_uj': Permission denied", 1),
           Met("sudo cat /sys/class/powercap/rapl:0/energy_uj", SUDO, 3)]
    message = ("I see the issue - `sudo cat` also requires a password prompt which I can't "
               "provide non-interactively.\n\n**Status:** the reader is built.\n\nThe monitor "
               "is ready but needs one step from you. **Please run this in your terminal:**\n\n"
               "```bash\n# one-time setup\nsudo setcap cap_dac_read_search=ep "
               "/home/me/monitor/target/debug/power-monitor\n```\n")
    [(index, text)] = failfix.gotchas(met, [Said(4, message)])  # one message, one gotcha
    assert index == 0
    # Handed to the person in fixed words, the fix first (as "Fixed by running `…`: …"), then
    # the problem without Claude's lead-in ("I see the issue").
    assert text.startswith(f"{failfix.HANDED} `sudo setcap cap_dac_read_search=ep "
                           "/home/me/monitor/target/debug/power-monitor`: `sudo cat` also "
                           "requires a password prompt")
    assert factrule.trim(text) == text
    assert "The monitor is ready" not in text and "**" not in text
    # Both failures it explains are named, so either one met again finds it.
    assert "Permission denied" in text and "a terminal is required" in text


def test_a_long_fix_command_is_cut_between_words_within_the_line() -> None:
    command = "sudo setcap cap_dac_read_search=ep " + " ".join(f"/opt/app{n}/bin" for n in range(40))
    message = f"It fails because sudo needs a terminal. Run this yourself:\n```\n{command}\n```"
    [(_, text)] = failfix.gotchas([Met("sudo ls", SUDO, 1)], [Said(2, message)])
    said = text.split(" (`sudo ls` failed", 1)[0]
    assert len(said) <= failfix.SAID_CHARS
    assert said.startswith(f"{failfix.HANDED} `sudo setcap cap_dac_read_search=ep /opt/app0/bin")
    assert said.endswith("/bin…`: It fails because sudo needs a terminal.")


@pytest.mark.parametrize(("lead", "kept"), [
    ("I see the issue - the port is taken", "The port is taken"),
    ("Ah, the venv is missing because", "The venv is missing because"),
    ("I see that Rust is not installed", "Rust is not installed"),
    ("I see your panel configuration", "I see your panel configuration"),  # no lead-in
    ("sudo needs a terminal", "sudo needs a terminal"),  # a command is not capitalised
])
def test_claude_s_lead_in_is_left_out(lead: str, kept: str) -> None:
    assert failfix._without_narration(lead) == kept


def test_a_failure_the_shell_never_started_finds_the_fix_of_another_error_of_its_class() -> None:
    # The fix was recorded for Git Bash's fork failing; the path conversion failing is the same
    # broken shell, though the error shares no word with it.
    [(_, text)] = failfix.gotchas([Met("ssh box 'ps'", FORK, 0)], [Said(
        1, "The `cygheap read copy failed` errors come from MSYS2's fork emulation; the fix is "
           "to add Windows Defender exclusions.")])
    later = onfailure.Failure("Bash", "ls", None, "Command failed: cygpath -u 'C:\\Users\\me'")
    assert onfailure.tier(later, errorline.signature(later.error), text) == 3
    assert "cygpath" in onfailure.terms(later, errorline.signature(later.error))
    other = onfailure.Failure("Bash", "ls", None, "ls: cannot access 'x': No such file")
    assert onfailure.tier(other, errorline.signature(other.error), text) is None


def test_a_failed_command_handed_to_the_person_is_tied_to_its_failure() -> None:
    # The message names neither the error nor its words, but hands the failed command itself
    # to the person to run; another command in the block is no answer to this failure.
    met = [Met("sudo pmset -a hibernatemode 0", SUDO, 1)]
    handed = ("I can't change this setting from here. Please run this yourself:\n\n```bash\n"
              "sudo pmset -a hibernatemode 0\n```")
    [(_, text)] = failfix.gotchas(met, [Said(9, handed)])
    # Claude's own limit ("I can't change this from here") is no fact: the fix and its failure.
    assert text.startswith(f"{failfix.HANDED} `sudo pmset -a hibernatemode 0` (`sudo pmset")
    assert "a terminal is required" in text
    other = handed.replace("sudo pmset -a hibernatemode 0", "pmset -g")
    assert failfix.gotchas(met, [Said(9, other)]) == []


def test_a_handed_command_on_the_failed_command_s_file_is_tied_and_kept_through_compaction() -> None:
    # Claude's sudo has no terminal; the file is root's; the person is handed `sudo chown` on
    # the file the failed commands read. The line before the block says why.
    from vaultmem.mining import factrule

    workflow = "./M-Claude-Code/.github/workflows/generate-markdown.yml"
    met = [Met(f"sudo cat {workflow}", SUDO, 1),
           Met(f"cat {workflow}", f"cat: {workflow}: Permission denied", 7)]
    message = ("I'm unable to read the workflow file because it's owned by root with restricted "
               "permissions (600).\n\nYou can run one of these commands:\n\n```bash\n# Option 1\n"
               f"sudo chown $USER:$USER {workflow}\n```\n\nWould you like me to try again after?")
    [(_, text)] = failfix.gotchas(met, [Said(8, message)])
    assert text.startswith(f"{failfix.HANDED} `sudo chown $USER:$USER {workflow}`: I'm unable "
                           "to read the workflow file because it's owned by root")
    assert "(600). (`sudo cat" in text
    assert "a terminal is required" in text and "Would you like" not in text
    # Compaction's trim keeps the lesson, and sudo failing on another command finds it.
    kept = factrule.trim(text)
    assert failfix.HANDED in kept and "a terminal is required" in kept
    later = onfailure.Failure("Bash", "sudo socketfilterfw --getglobalstate", None,
                              f"Exit code 1\n{SUDO}")
    assert onfailure.tier(later, errorline.signature(later.error), kept) == 0
    # A block working on another file answers another question, and the folder a command ran
    # in is no file of it.
    other = message.replace(f"sudo chown $USER:$USER {workflow}", "sudo chown me ./docs/a.md")
    assert failfix.gotchas(met, [Said(8, other)]) == []
    folder = [Met("cd ~/Documents/M-Claude && ls -la", FORK, 1)]
    moved = "You can finish the commit by hand:\n\n```\ncd ~/Documents/M-Claude\ngit commit\n```"
    assert failfix.gotchas(folder, [Said(3, moved)]) == []


def test_the_failure_a_handed_command_reruns_is_named_first() -> None:
    from vaultmem.mining import factrule

    met = [Met("legion_cli fan-enable", "ERROR: writing error [Errno 13] Permission denied: "
               "'/sys/module/legion_laptop/parameters/fan'", 1),
           Met("sudo legion_cli fan-enable", SUDO, 3)]
    message = ("I can't run sudo commands interactively, but I can tell you the command to run. "
               "You'll need to execute this in your terminal:\n\n```bash\nsudo legion_cli "
               "fan-enable\n```")
    [(_, text)] = failfix.gotchas(met, [Said(4, message)])
    assert factrule.trim(text).startswith(
        f"{failfix.HANDED} `sudo legion_cli fan-enable` (`sudo legion_cli fan-enable` failed: "
        "`sudo: a terminal is required")


DENIED = "git@github.com: Permission denied (publickey). fatal: Could not read from remote repository."


def test_a_fix_the_person_reports_in_the_next_prompt_is_the_gotcha(
        env: Path, log: Transcript) -> None:
    # Claude said nothing about the failure; the person's next prompt says what fixed it. Its
    # turn ends, then the next Stop reads the report (the failure is in the note by then).
    log.prompt("push the release branch")
    log.call("b1", "Bash", {"command": "git push origin release"})
    log.result("b1", f"Exit code 128\n{DENIED}", error=True)
    log.say("The push was refused.")
    stop(log)
    log.prompt("I fixed it by adding the deploy key to ~/.ssh/config, try again")
    log.call("b2", "Bash", {"command": "git push origin release"})
    log.result("b2", "To github.com:me/app.git\n * [new branch] release -> release")
    log.say("Pushed.")
    stop(log)
    [gotcha] = section(note(env), "Gotchas & Fixes")
    assert gotcha.startswith(f"- {failfix.REPORTED} \u201cI fixed it by adding the deploy key")
    assert "Permission denied (publickey)" in gotcha
    later = onfailure.Failure("Bash", "git push", None, f"Exit code 128\n{DENIED}")
    assert onfailure.tier(later, errorline.signature(later.error), gotcha) == 0


@pytest.mark.parametrize("prompt", [
    "update the readme with the new flags",  # a new task
    "changed my mind, let's deploy tomorrow instead",
    "I fixed it by " + "doing many things " * 20,  # too long to be a report
])
def test_a_prompt_that_reports_no_fix_is_no_gotcha(prompt: str) -> None:
    met = [Met("git push origin release", DENIED, 1)]
    assert failfix.gotchas(met, [Said(3, prompt, person=True)]) == []


def test_claude_s_explanation_comes_before_the_person_s_report() -> None:
    met = [Met("sudo apt install ripgrep", SUDO, 1)]
    said = [Said(2, "sudo needs a password, so please run `sudo apt install ripgrep` yourself."),
            Said(4, "ran it", person=True)]
    [(index, text)] = failfix.gotchas(met, said)
    assert index == 0 and text.startswith("sudo needs a password")
    assert [i for i, _ in failfix.gotchas(met, said[1:])] == [0]  # alone, the report is it


def test_a_handed_fix_captured_at_stop_is_told_when_sudo_fails_again_elsewhere(
        env: Path, log: Transcript, tmp_path: Path) -> None:
    # The Stop hook files the gotcha; a later session's sudo, on another command, meets the same
    # missing terminal and the failure hook (a real process, the index as SessionStart leaves
    # it) tells what was done then.
    log.prompt("read the deploy workflow")
    log.call("b1", "Bash", {"command": "sudo cat ./.github/workflows/deploy.yml"})
    log.result("b1", f"Exit code 1\n{SUDO}\nsudo: a password is required", error=True)
    log.say("The workflow file is owned by root (mode 600), so I can't read it.\n\nYou can run "
            "this yourself:\n\n```bash\nsudo chown $USER ./.github/workflows/deploy.yml\n```")
    stop(log)
    [gotcha] = section(note(env), "Gotchas & Fixes")
    assert f"{failfix.HANDED} `sudo chown $USER ./.github/workflows/deploy.yml`" in gotcha
    index.refresh(Vault(env))

    told = _failure_hook(env, tmp_path, "Bash", {"command": "sudo systemctl restart nginx"},
                         f"Exit code 1\n{SUDO}")
    assert failfix.HANDED in told and "sudo chown" in told


BLOCKED = ("Exit code 1\n\x1b[1;33m\U0001f50d Running leakguard scan (strict mode) on staged "
           "files...\x1b[0m\n\nFinding:     key=[REDACTED]\nRuleID:      generic-api-key\n"
           "File:        docs/SETUP.md\n\x1b[0;31m\u274c Secrets detected! Commit blocked.\x1b[0m\n"
           "\nWhat to do:\n1. Review the findings above\n")


def test_a_commit_a_hook_blocked_is_recorded_by_the_check_that_blocked_it(
        env: Path, log: Transcript, tmp_path: Path) -> None:
    # The hook's output has no error line: the work log and the gotcha quote the check it ran
    # (not "Exit code 1"), so the failure hook finds the fix when the hook blocks another commit.
    log.prompt("commit the docs")
    log.call("b1", "Bash", {"command": "git add docs/ && git commit -m 'Docs'"})
    log.result("b1", BLOCKED, error=True)
    log.say("The leakguard pre-commit hook blocked the commit because docs/SETUP.md holds "
            "example keys (false positives). The fix is to unstage docs/ and commit the rest.")
    stop(log)
    text = note(env)
    assert "Running leakguard scan (strict mode) on staged files...`" in text
    [gotcha] = section(text, "Gotchas & Fixes")
    assert gotcha.startswith("- The leakguard pre-commit hook blocked the commit")
    index.refresh(Vault(env))

    told = _failure_hook(env, tmp_path, "Bash", {"command": "git commit -m 'Guide'"},
                         BLOCKED.replace("SETUP", "GUIDE"))
    assert "unstage docs/" in told


def test_the_line_recorded_for_a_failure_without_an_error_line_names_the_check() -> None:
    assert errorline.check_line(BLOCKED) == (
        "\U0001f50d Running leakguard scan (strict mode) on staged files...")
    assert errorline.check_line("Exit code 1\nblack....Passed\nflake8.....Failed\n- hook id: "
                                "flake8") == "flake8.....Failed"
    assert errorline.check_line("Exit code 1\nRunning tests...\n3 failed") is None


def test_a_failure_of_another_tool_than_bash_and_what_was_said_about_it_is_a_gotcha(
        env: Path, log: Transcript, tmp_path: Path) -> None:
    # The Read tool was denied a root-owned file; Claude said why and what to do. A later
    # session's Write of the same file, denied alike, is told it.
    denied = ("EACCES: permission denied, open '/home/me/shop/.github/workflows/deploy.yml'")
    log.prompt("fix the deploy workflow")
    log.call("r1", "Read", {"file_path": "/home/me/shop/.github/workflows/deploy.yml"})
    log.result("r1", denied, error=True)
    log.say("I can't read deploy.yml: it is owned by root because an earlier `sudo git pull` "
            "created it. The fix is `sudo chown -R $USER .github/`.")
    stop(log)
    [gotcha] = section(note(env), "Gotchas & Fixes")
    assert gotcha.startswith("- I can't read deploy.yml: it is owned by root")
    assert "Read `" in gotcha and "deploy.yml` failed: `EACCES: permission denied" in gotcha
    index.refresh(Vault(env))

    told = _failure_hook(env, tmp_path, "Write", {
        "file_path": "/home/me/shop/.github/workflows/deploy.yml", "content": "on: push"}, denied)
    assert "sudo chown -R $USER .github/" in told


def _failure_hook(vault: Path, cwd: Path, tool: str, given: dict[str, str], error: str) -> str:
    """The context the failure hook (a real process) gives a later session's failure."""
    done = run_hook("post-tool-use-failure", {
        "session_id": "s-later", "cwd": str(cwd), "hook_event_name": "PostToolUseFailure",
        "tool_name": tool, "tool_input": given, "error": error, "is_interrupt": False}, vault,
        cwd=cwd, env=hook_env(vault, VAULTMEM_PROJECT="shop"))
    assert done.returncode == 0 and done.stderr == b""
    return str(json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"])


def test_a_fix_recorded_at_stop_is_told_to_a_session_running_beside_it(
        env: Path, log: Transcript, tmp_path: Path) -> None:
    # No SessionStart comes between: the Stop hook indexes the session notes it wrote in.
    log.prompt("restart nginx")
    log.call("b1", "Bash", {"command": "sudo systemctl restart nginx"})
    log.result("b1", f"Exit code 1\n{SUDO}", error=True)
    log.say("sudo needs a password, which Claude Code's shell cannot read; run `sudo systemctl "
            "restart nginx` yourself in your terminal.")
    stop(log)

    told = _failure_hook(env, tmp_path, "Bash", {"command": "sudo apt install ripgrep"},
                         f"Exit code 1\n{SUDO}")
    assert "sudo systemctl restart nginx` yourself" in told


def test_a_message_is_read_once_for_every_failure_weighed_against_it() -> None:
    failfix._saying_why.cache_clear()
    met = [Met(f"make t{n}", f"make: *** [t{n}] Error 2 gadget{n}", n) for n in range(4)]
    said = [Said(9, "Let me look.\nIt failed because the gadget folder is missing.")]
    failfix.gotchas(met, said)
    info = failfix._saying_why.cache_info()
    assert info.misses == 1 and info.hits >= 1
