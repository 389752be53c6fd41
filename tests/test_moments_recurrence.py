"""A failure met again is told the fix an earlier session recorded for it, whatever tool it comes
from, and an unrelated failure is told nothing (issue 31 item 2). Made-up failures of several
ecosystems (npm, pip, cargo, pytest, git hooks, permissions, sudo): the earlier failure and
what Claude said about it become a gotcha (``failfix``), then a later failure is weighed
against it (``onfailure``), as the PostToolUseFailure hook does with the facts the index finds.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from hook_kit import hook_env, run_hook

from vaultmem.claude import errorline, failfix, injections, moments, onfailure
from vaultmem.notes.facts import Fact, fact_key
from vaultmem.search import index
from vaultmem.store.vault import Vault

FIXTURE = Path(__file__).parent / "fixtures" / "briefing"
NOTE = "claude/projects/shop/sessions/2026-11-21-refunds-and-ci.md"


def _gotcha(command: str, error: str, said: str) -> str:
    if said.startswith(MINED):  # a gotcha mined from prose or a summary, not from failfix
        return said.removeprefix(MINED)
    [(_, text)] = failfix.gotchas([failfix.Met(command, _line(error), 1)],
                                  [failfix.Said(2, said)])
    return text


MINED = "mined: "


def _line(error: str) -> str:
    """The line capture records for a failure's output."""
    line = errorline.error_line(error)
    assert line is not None
    return line


def _found(text: str) -> moments.Found:
    fact = Fact("gotcha", text, fact_key(text), 0, "2026-11-20",
                sessions=("claude/projects/p/sessions/2026-11-20-earlier",))
    return moments.Found(fact, "claude/projects/p/entities/App.md", "App", "entity", "p", -1.0)


def _told(command: str, error: str, gotchas: list[str]) -> str | None:
    failure = onfailure.Failure("Bash", command, None, error)
    told = onfailure.told(failure, [_found(g) for g in gotchas], set())
    return told.text if told else None


# (earlier command, its output, what Claude said, a later command, its output, a word of the fix)
RECURRING = [
    pytest.param("npm ci", "Exit code 1\nnpm ERR! code ERESOLVE\nnpm ERR! ERESOLVE unable to "
                 "resolve dependency tree\nnpm ERR! While resolving: shop@1.0.0",
                 "It fails because react-dom 18 conflicts with the peer range of the old "
                 "router; the fix is `npm ci --legacy-peer-deps`.",
                 "npm install", "Exit code 1\nnpm ERR! code ERESOLVE\nnpm ERR! ERESOLVE unable "
                 "to resolve dependency tree\nnpm ERR! While resolving: shop@1.0.3",
                 "legacy-peer-deps", id="npm"),
    pytest.param("pip install -r requirements.txt", "Exit code 1\n  Building wheel for "
                 "psycopg2 (setup.py): finished with status 'error'\nERROR: Could not build "
                 "wheels for psycopg2, which is required to install pyproject.toml-based "
                 "projects", "psycopg2 needs the libpq headers: the fix is `apt install "
                 "libpq-dev`, or depend on psycopg2-binary.",
                 "uv pip install -e .", "Exit code 1\nERROR: Could not build wheels for "
                 "psycopg2, which is required to install pyproject.toml-based projects",
                 "libpq-dev", id="pip"),
    pytest.param("cargo build", "Exit code 101\n   Compiling app v0.1.0 (/home/a/app)\n"
                 "error[E0599]: no method named `block_on` found for struct `Runtime` in the "
                 "current scope\n --> src/main.rs:12:8",
                 "`block_on` is missing because tokio's `rt` feature is off; the fix is to "
                 "enable `rt-multi-thread` in Cargo.toml.",
                 "cargo run --release", "Exit code 101\nerror[E0599]: no method named "
                 "`block_on` found for struct `Runtime` in the current scope\n --> "
                 "/home/b/work/app/src/main.rs:40:5", "rt-multi-thread", id="cargo"),
    pytest.param("pytest -q", "Exit code 1\n___ ERROR collecting tests/test_db.py ___\n"
                 "E   ModuleNotFoundError: No module named 'pytest_asyncio'", "The suite fails because `pytest_asyncio` is not "
                 "installed in the venv: `uv add --dev pytest-asyncio` fixes it.",
                 "uv run pytest tests/test_api.py", "Exit code 4\nE   ModuleNotFoundError: "
                 "No module named 'pytest_asyncio'", "pytest-asyncio", id="pytest"),
    pytest.param("git commit -m 'Add the API client'", "Exit code 1\nruff.................."
                 "...........Failed\n- hook id: ruff\n- exit code: 1\n\nsrc/api.py:3:1: F401 "
                 "`os` imported but unused\nFound 1 error.",
                 "The ruff pre-commit hook rejects unused imports; the fix is `ruff check "
                 "--fix` before committing.",
                 "git commit -m 'Retry on 503'", "Exit code 1\ncheck yaml..........Passed\n"
                 "ruff...............................Failed\n- hook id: ruff\n- exit code: 1\n\n"
                 "src/retry.py:9:5: F841 local variable `e` is assigned to but never used\n"
                 "Found 1 error.", "ruff check --fix", id="pre-commit hook"),
    pytest.param("git commit -m 'Docs'", "Exit code 1\n\x1b[1;33mRunning leakguard scan on "
                 "staged files...\x1b[0m\nFinding: token=abc\nRuleID: generic-api-key\n"
                 "\x1b[0;31mSecrets detected! Commit blocked.\x1b[0m",
                 "mined: Pre-commit hook blocked the docs commit: leakguard flags the example "
                 "keys in docs/ as secrets (false positives). Fix: unstage docs/ and commit "
                 "the rest.",
                 "git commit -m 'More docs'", "Exit code 1\n\x1b[1;33mRunning leakguard scan "
                 "on staged files...\x1b[0m\nFinding: password=[REDACTED]\nRuleID: "
                 "generic-password\nSecrets detected! Commit blocked.", "unstage",
                 id="hook script"),
    pytest.param("sudo apt install ripgrep", "Exit code 1\nsudo: a password is required",
                 "sudo needs a password, so please run `sudo apt install ripgrep` in your "
                 "terminal.", "sudo systemctl restart nginx", "Exit code 1\nsudo: a terminal "
                 "is required to read the password; either use the -S option to read from "
                 "standard input or configure an askpass helper", "in your terminal",
                 id="sudo"),
    pytest.param("pip wheel . -w dist", "Exit code 1\nOSError: [Errno 28] No space left on "
                 "device: '/tmp/tmpk2j3h4x/wheel'", "No space is left on the device because /tmp "
                 "is a small tmpfs; the fix is `TMPDIR=$HOME/tmp`.", "pip wheel . -w dist",
                 "Exit code 1\nOSError: [Errno 28] No space left on device: "
                 "'/tmp/tmpq9w8e7r/wheel'", "TMPDIR", id="temporary names"),
    # A permission error says nothing but its path: another file of the same kind is the same
    # failure (the RAPL counters are root-only, whichever zone is read).
    pytest.param("cat /sys/devices/virtual/powercap/intel-rapl/intel-rapl:0/energy_uj",
                 "Exit code 1\ncat: '/sys/devices/virtual/powercap/intel-rapl/intel-rapl:0/"
                 "energy_uj': Permission denied", "The `energy_uj` counters are root-only "
                 "because of a 2020 CVE; the fix is `setcap cap_dac_read_search=ep` on the binary.",
                 "cat /sys/class/powercap/intel-rapl:1/energy_uj", "Exit code 1\ncat: /sys/"
                 "class/powercap/intel-rapl:1/energy_uj: Permission denied", "setcap",
                 id="permission on another path"),
    # git sums a refused push up in one line; the line above says why (the remote is ahead).
    pytest.param("git push", "Exit code 1\nTo github.com:me/shop.git\n ! [rejected]        "
                 "main -> main (fetch first)\nerror: failed to push some refs to "
                 "'github.com:me/shop.git'\nhint: Updates were rejected because the remote "
                 "contains work that you do not", "The push is rejected because the remote has "
                 "commits we lack; the fix is `git pull --rebase` first.",
                 "git push origin dev", "Exit code 1\n ! [rejected]        dev -> dev (fetch "
                 "first)\nerror: failed to push some refs to 'github.com:me/shop.git'",
                 "git pull --rebase", id="push refused: remote ahead"),
]


UNRELATED = [
    # The same programs, another failure: they share who speaks, not what went wrong.
    ("npm install left-padd", ("Exit code 1\nnpm ERR! code E404\nnpm ERR! 404 Not Found - "
                               "GET https://registry.npmjs.org/left-padd")),
    ("pip install -r requirements.txt", ("Exit code 1\nERROR: No matching distribution "
                                         "found for django==9.0")),
    ("cargo build", "Exit code 101\nerror[E0308]: mismatched types\n --> src/lib.rs:4:5"),
    ("pytest -q", "Exit code 1\nE   AssertionError: assert 3 == 4"),
    ("git commit -m 'x'", ("Exit code 1\nmypy..............Failed\n- hook id: mypy\n"
                           "src/a.py:1: error: Incompatible types\nFound 1 error in 1 file")),
    ("git commit -m 'x'", "Exit code 1\nRunning tests...\n3 failed, 10 passed"),
    # The same summary line as the refused push's, for another cause: a rule of the repository.
    ("git push", ("Exit code 1\nremote: error: GH013: Repository rule violations found for "
                  "refs/heads/main.\nTo github.com:me/shop.git\n ! [remote rejected] main -> "
                  "main (push declined due to repository rule violations)\nerror: failed to "
                  "push some refs to 'github.com:me/shop.git'")),
    ("sudo -u postgres psql", "Exit code 1\nsudo: unknown user postgres"),
    ("cat /etc/shadow", "Exit code 1\ncat: /etc/shadow: Permission denied"),
    ("cat /sys/class/hwmon/hwmon3/power1_input", ("Exit code 1\ncat: /sys/class/hwmon/hwmon3/"
                                                  "power1_input: Permission denied")),
    ("python manage.py migrate", ("Exit code 1\nPermissionError: [Errno 13] Permission "
                                  "denied: '/var/lib/app/db.sqlite3'")),
    ("make", "Exit code 2"),
]


@pytest.mark.parametrize(("command", "error", "said", "again", "later", "fix"), RECURRING)
def test_a_failure_met_again_is_told_its_recorded_fix(command: str, error: str, said: str,
                                                      again: str, later: str, fix: str) -> None:
    text = _told(again, later, [_gotcha(command, error, said)])
    assert text is not None and fix in text
    assert "[[2026-11-20-earlier]]" in text


@pytest.mark.parametrize(("command", "error", "said", "again", "later", "fix"), RECURRING)
def test_an_unrelated_failure_is_told_nothing(command: str, error: str, said: str, again: str,
                                              later: str, fix: str) -> None:
    # Every recorded fix in the vault, and failures none of them is about.
    gotchas = [_gotcha(*p.values[:3]) for p in RECURRING]
    assert _told(again, later, gotchas) is not None
    for other_command, other in UNRELATED:
        assert _told(other_command, other, gotchas) is None, other


def test_two_long_gotchas_quoting_one_error_are_both_told() -> None:
    # The first one found need not hold the fix: the second has room beside it.
    error = "Exit code 1\nsudo: a terminal is required to read the password"
    first = ("`sudo systemctl restart app` failed (`sudo: a terminal is required to read the "
             "password`): " + "the unit was restarted later from the desktop session " * 4)[:300]
    second = ("`sudo apt-get install jq` failed (`sudo: a terminal is required to read the "
              "password`): ask the person to run it in their terminal " * 4)[:300]
    failure = onfailure.Failure("Bash", "sudo make install", None, error)
    told = onfailure.told(failure, [_found(first), _found(second)], set())
    assert told is not None and len(told.keys) == 2 and "in their terminal" in told.text


def test_a_hook_runner_s_output_is_signed_by_the_checks_it_ran() -> None:
    assert errorline.signature("Exit code 1\nblack.....Passed\nflake8...........Failed\n"
                               "- hook id: flake8\n- exit code: 1") == ["flake8"]
    assert errorline.signature("Exit code 1\n\x1b[33m🔍 Running leakguard scan...\x1b[0m\n"
                               "Commit blocked.") == ["leakguard"]
    # Only the first lines say what a hook script runs; generic names say nothing.
    assert errorline.signature("Exit code 1\nRunning tests...\n3 failed") == []
    assert errorline.signature("Exit code 1\na\nb\nc\nRunning leakguard") == []


def test_what_varies_between_runs_is_left_out_of_a_signature() -> None:
    assert errorline.signature("OSError: [Errno 28] No space left on device: '/tmp/tmpab12cd/x'"
                               ) == errorline.signature(
        "OSError: [Errno 28] No space left on device: '/tmp/tmpzz99yy/x'")
    assert "bfc7fc2" not in errorline.signature("error: snapshot bfc7fc2 is missing")
    assert "e0599" in errorline.signature("error[E0599]: no method named `run`")


def test_what_varies_between_runs_of_one_failure_leaves_its_signature_alike() -> None:
    # Ids, dates, times, sizes, versions and what a redaction left differ from run to run.
    runs = [("Error: session d8a3fa84-46b6-4815-a725-1f5736ed3625 expired at "
             "2026-01-14T11:05:21Z (token [REDACTED_API_KEY], 301.2KB cached by app 2.1.197)"),
            ("Error: session 0c1e2f3a-9b8c-4d7e-a6f5-0123456789ab expired at "
             "2026-02-03T08:00:00+01:00 (token \u2039redacted:api-key\u203a, 12KB cached by "
             "app 2.1.201)")]
    first, second = (errorline.signature(run) for run in runs)
    assert first == second == ["session", "expired", "token", "cached", "app"]
    assert errorline.signature("12:12PM WRN leaks found: 24") == errorline.signature(
        "9:03am WRN leaks found: 3")
    # A short hash (seven hex digits) and a generated id inside a name vary as well.
    assert errorline.signature("error: pathspec 'abc1234' did not match any file(s) known to "
                               "git") == ["pathspec", "match", "known", "git"]
    assert errorline.signature("Error: worker build_9z8y7x exited with code 2") == \
        errorline.signature("Error: worker build_1a2b3c exited with code 2")
    assert "sha256" in errorline.signature("error: sha256 mismatch for e0599-cache")


def test_a_failure_is_matched_by_what_a_gotcha_quotes_not_by_its_prose() -> None:
    # A gotcha about .gitleaksignore says ".gitignore" and "ignored" in its prose: a path git
    # ignores is another failure. The gotcha quoting git's own error line is its fix.
    leaks = ("Invalid .gitleaksignore Entries: Error: `WRN Invalid .gitleaksignore entry "
             "fingerprint=CHAT_LOGS/` Issue: .gitleaksignore doesn't support wildcards like "
             ".gitignore does. Impact: minimal, the paths are still ignored during file scanning")
    error = ("Exit code 1\nThe following paths are ignored by one of your .gitignore files:\n"
             "Projects/Scripts/redact.py\nhint: Use -f if you really want to add them.")
    assert _told("git add Projects/Scripts/redact.py", error, [leaks]) is None
    fixed = _gotcha("git add scripts/x.py", error, "It is ignored because `.gitignore` lists "
                    "`Scripts/`; the fix is `git add -f`.")
    assert "git add -f" in (_told("git add Projects/Scripts/redact.py", error,
                                  [leaks, fixed]) or "")


@pytest.mark.parametrize("error", [
    ("The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if "
     "it was a file edit, the new_string was NOT written to the file). To tell you how to "
     "proceed, the user said:\nno, use environment variables for the secrets"),
    "[Request interrupted by user for tool use]",
    ("File content (301.2KB) exceeds maximum allowed size (256KB). Please use offset and limit "
     "parameters to read specific portions of the file, or use the GrepTool to search."),
])
def test_a_call_refused_by_a_rule_or_the_person_has_no_signature(error: str) -> None:
    # Two refusals share their wording ("user", "tool", "rejected", "edit"), not a cause.
    assert errorline.signature(error) == []
    gotcha = ("The user rejected the edit of the hook file: `tool use was rejected, the user "
              "said: no` (`Edit` failed: `The user doesn't want to proceed with this tool use`)")
    failure = onfailure.Failure("Write", None, "/w/app/.git/hooks/pre-commit", error)
    assert onfailure.told(failure, [_found(gotcha)], set()) is None


def test_a_machine_that_never_started_the_command_keeps_its_signature() -> None:
    assert "child_copy" in errorline.signature(
        "0 [main] bash (12728) child_copy: cygheap read copy failed, 0x0..0x800020EF0, done 0, "
        "windows pid 12728, Win32 error 299")


def test_the_hook_tells_a_commit_a_hook_blocked_the_fix_found_in_an_earlier_session(
        tmp_path: Path) -> None:
    # A real vault and the real hook process: the fix a compact summary recorded for the hook
    # blocking a commit, told when another commit is blocked by it; another hook's block, not.
    root = _vault_with_gotchas(tmp_path, (
        "- Pre-commit hook blocked the docs commit: leakguard flags the "
        "example keys in docs/ as secrets. Fix: unstage docs/ and commit the rest.\n"))
    blocked = ("Exit code 1\n\x1b[1;33mRunning leakguard scan on staged files...\x1b[0m\n"
               "Finding: key=[REDACTED]\nSecrets detected! Commit blocked.")
    other = "Exit code 1\nmypy..............Failed\n- hook id: mypy\nFound 2 errors"

    def hook(error: str) -> str:
        return _failure_hook(root, tmp_path, "git commit -m 'Guide'", error, project="shop",
                             session="s-9")

    assert hook(other) == ""
    told = json.loads(hook(blocked))["hookSpecificOutput"]["additionalContext"]
    assert "unstage docs/" in told and "[[2026-11-21-refunds-and-ci]]" in told
    assert "the checks it ran" in injections.read(root / ".vaultmem")[0].reason


@pytest.mark.parametrize("error", [
    "File has not been read yet. Read it first before writing to it.",
    ("<tool_use_error>File has been modified since read, either by the user or by a linter. "
     "Read it again before attempting to write it.</tool_use_error>"),
    "String to replace not found in file.\nString: def main(",
    "Found 2 matches of the string to replace, but replace_all is false.",
])
def test_a_rule_of_claude_code_s_file_tools_is_told_nothing(error: str) -> None:
    # Its words ("read", "first") are in a gotcha about a root-owned file; it is no recurrence.
    gotcha = ("I'm unable to read the workflow file because it's owned by root. To edit it, fix "
              "the permissions first. `sudo chown me x.yml` (`cat x.yml` failed: `Permission "
              "denied`)")
    assert errorline.signature(error) == []
    failure = onfailure.Failure("Edit", None, "/w/app/x.yml", error)
    assert onfailure.told(failure, [_found(gotcha)], set()) is None


def test_a_gotcha_that_quotes_nothing_needs_three_words_of_the_error() -> None:
    # Stated in words only (a summary's gotcha): three of the error's own words make the match,
    # two common ones ("paths", "ignored") do not.
    said = "Gotcha: the x-trace header breaks billing retries; strip it first"
    assert _told("pytest tests/test_billing.py", "Exit code 1\nE   RetryError: x-trace header "
                 "breaks billing retries", [said]) is not None
    assert _told("git add out/", "Exit code 1\nThe following paths are ignored by one of your "
                 ".gitignore files:", ["Paths are ignored by .gitleaksignore, not scanned"]) is None


def test_a_failure_sharing_only_a_module_path_with_a_gotcha_is_told_nothing() -> None:
    # The module an error is in (``cosmic::app``) is where it is, not what it is: a fix recorded
    # for another error in that module says nothing about it; its own words still match.
    error = ("Exit code 101\nerror[E0412]: cannot find type `Message` in module `cosmic::app`\n"
             "  --> src/app.rs:34:87")
    other = "I was using `cosmic::app::run` instead of `cosmic::applet::run`."
    assert _told("cargo build --release", error, [other]) is None
    same = ("`cargo build` failed: `error[E0412]: cannot find type `Message` in module "
            "`cosmic::app``; it passed after importing `cosmic::app::Message` from the prelude")
    assert _told("cargo build --release", error, [same]) is not None


def test_a_lesson_about_the_host_s_tools_is_told_in_another_project_of_the_vault(
        tmp_path: Path) -> None:
    # A real vault: shop's session recorded how sudo without a terminal was got past, and how
    # its own dependency tree was. A session of another project meeting the first is told it
    # (the host lacks a terminal, whatever the project); meeting the second, nothing.
    root = _vault_with_gotchas(tmp_path, (
        "- `sudo apt install ripgrep` failed (`sudo: a terminal is "
        "required to read the password; either use the -S option`); it passed after the person "
        "ran it in their own terminal.\n- `npm ci` failed (`npm ERR! ERESOLVE unable to resolve "
        "dependency tree`); it passed after `npm ci --legacy-peer-deps`.\n"))

    def hook(command: str, error: str, project: str = "blog") -> str:
        return _failure_hook(root, tmp_path, command, error, project=project,
                             session=f"s-{project}-{command}")

    sudo = ("Exit code 1\nsudo: a terminal is required to read the password; either use the -S "
            "option to read from standard input or configure an askpass helper")
    told = json.loads(hook("sudo apt install -y jq", sudo))
    assert "own terminal" in told["hookSpecificOutput"]["additionalContext"]
    # Another program under sudo: the lesson is about the host's sudo, told there too.
    assert "own terminal" in hook("sudo setcap cap_net_raw=ep ./bin/probe", sudo)
    npm = ("Exit code 1\nnpm ERR! code ERESOLVE\nnpm ERR! ERESOLVE unable to resolve dependency "
           "tree\nnpm ERR! While resolving: blog@2.0.0")
    assert hook("npm ci", npm) == ""
    assert "legacy-peer-deps" in hook("npm ci", npm, project="shop")


@pytest.mark.parametrize(("command", "error", "host"), [
    # Each shell's way of saying its program is missing (mining.notfound's one reading of it).
    ("cargo build", "zsh: command not found: cargo", True),
    ("ls", "ash: hostname: not found", True),
    ("env python x.py", "env: 'python': No such file or directory", True),
    ("/usr/bin/tool status", "(eval):1: no such file or directory: /usr/bin/tool", True),
    ("git lfs pull", "git: 'lfs' is not a git command. See 'git --help'.", True),
    ("sudo apt install jq", "sudo: a terminal is required to read the password", True),
    ("git status", "Command failed: cygpath -u 'C:\\Users\\me'", True),
    # A project's own failures: a file it lacks, a module, a test.
    ("cat notes.txt", "cat: notes.txt: No such file or directory", False),
    ("pytest", "E   ModuleNotFoundError: No module named 'yaml'", False),
    ("npm ci", "npm ERR! ERESOLVE unable to resolve dependency tree", False),
])
def test_a_failure_about_the_host_s_tools_is_told_by_its_one_reading(
        command: str, error: str, host: bool) -> None:
    assert onfailure.host_wide(onfailure.Failure("Bash", command, None, error)) is host


SUDO = "Exit code 1\nsudo: a terminal is required to read the password"
NO_TTY = "failed: `sudo: a terminal is required to read the password`)"
HANDED_CHOWN = ("For the person to run `sudo chown $USER ./ci/deploy.yml`: it is owned by root "
                f"(`sudo cat ./ci/deploy.yml` {NO_TTY}")
HANDED_APT = f"For the person to run `sudo apt install jq`: (`sudo apt install jq` {NO_TTY}"
RAPL = f"The RAPL files are root-only (`sudo setcap cap_dac_read_search=ep…` {NO_TTY}"
ASKPASS = "`sudo: a terminal is required to read the password`: fixed with an askpass helper"


@pytest.mark.parametrize(("gotcha", "command", "host"), [
    # A command handed to the person in another project is that project's work.
    (HANDED_CHOWN, "sudo setcap cap_net_raw=ep ./bin/probe", False),
    (HANDED_APT, "sudo apt install jq", True),
    (HANDED_APT, "sudo apt install rg", False),
    # A lesson quoting another program run under sudo; one quoting the error alone.
    (RAPL, "sudo cat ./ci/deploy.yml", True),
    (RAPL, "sudo setcap cap_net_raw=ep x && getcap x", True),
    (ASKPASS, "sudo make install", True),
])
def test_another_project_s_lesson_is_told_only_about_the_same_host_tool(
        gotcha: str, command: str, host: bool) -> None:
    failure = onfailure.Failure("Bash", command, None, SUDO)
    assert onfailure.host_wide(failure)
    assert onfailure.host_level(failure, gotcha) is host
    # Told by the hook's rule: in its own project always, in another only when host-level.
    assert onfailure.told(failure, [_found(gotcha)], set(), home=("p",)) is not None
    assert (onfailure.told(failure, [_found(gotcha)], set(), home=("blog",)) is not None) is host


def _vault_with_gotchas(tmp_path: Path, gotchas: str) -> Path:
    """The fixture vault, its session note's Gotchas & Fixes holding ``gotchas``, indexed."""
    root = tmp_path / "vault"
    shutil.copytree(FIXTURE, root)
    note = root / NOTE
    note.write_text(note.read_text().replace("## Gotchas & Fixes\n\n",
                                             "## Gotchas & Fixes\n\n" + gotchas))
    index.refresh(Vault(root))
    return root


def _failure_hook(root: Path, cwd: Path, command: str, error: str, *, project: str,
                  session: str) -> str:
    """What the real post-tool-use-failure hook prints for a failed Bash ``command``."""
    done = run_hook("post-tool-use-failure", {
        "session_id": session, "cwd": str(cwd), "hook_event_name": "PostToolUseFailure",
        "tool_name": "Bash", "tool_input": {"command": command}, "error": error,
        "is_interrupt": False}, root, cwd=cwd, env=hook_env(root, VAULTMEM_PROJECT=project))
    assert done.returncode == 0 and done.stderr == b""
    return done.stdout.decode()


def test_a_fix_recorded_for_a_long_error_line_is_told_when_it_comes_back() -> None:
    # The gotcha quotes the error cut to length; what the hook matches by (the last two parts of
    # the path an error names, the cause after git's summing-up line) must survive the cut.
    from vaultmem.mining.fixes import Run, fix_text

    folder = ("/home/developer/projects/power-monitor/vendor/sysfs-fixtures/devices/virtual/"
              "powercap/intel-rapl/intel-rapl:0/intel-rapl:0:0/")
    denied = (f"Exit code 1\nPermissionError: [Errno 13] Permission denied: "
              f"'{folder}energy_uj'")
    run = "python scripts/read_power.py"
    fixed = fix_text(Run(1, True, _line(denied), run), Run(3, False, None, run), [],
                     ["sudo chmod -R o+r /sys/class/powercap"])
    assert fixed is not None and "energy_uj" in fixed
    assert "chmod" in (_told("python read_power.py", denied, [fixed]) or "")
    assert _told(run, denied.replace(f"{folder}energy_uj", "/sys/class/backlight/amd/power"),
                 [fixed]) is None
    ruled = ("Exit code 1\nTo https://github.com/example-org/example-repository.git\n ! [remote "
             "rejected] feature/long-branch-name -> feature/long-branch-name (push declined due "
             "to repository rule violations)\nerror: failed to push some refs to "
             "'https://github.com/example-org/example-repository.git'")
    pushed = fix_text(Run(1, True, _line(ruled), "git push"), Run(3, False, None, "git push"),
                      [], ["git reset --soft HEAD~2"])
    assert pushed is not None and "repository rule violations" in pushed
    assert "reset" in (_told("git push origin feature/long-branch-name", ruled, [pushed]) or "")


def test_a_command_rerun_past_the_shell_s_failure_is_told_by_that_error_only() -> None:
    from vaultmem.mining.fixes import Run, rerun_text

    rerun = rerun_text(Run(1, True, "Command failed: cygpath -u 'c:\\users\\dev'",
                           "ssh root@host \"rm -rf /www/x && echo 'Removed server files'\""), [])
    # Another failure of ssh sharing a word with that command is not about it.
    assert _told('ssh root@host "nslookup example.com 10.0.0.1"',
                 "Exit code 1\n** server can't find example.com: REFUSED", [rerun]) is None
    # The shell failing again, on another command, is.
    assert "again" in (_told("npm test", "Command failed: cygpath -u 'c:\\users\\dev'", [rerun])
                       or "")


def test_a_rerun_is_told_after_a_fix_naming_a_cause_and_once() -> None:
    from vaultmem.mining.fixes import Run, rerun_text

    error = "Command failed: cygpath -u 'c:\\users\\dev'"
    reruns = [rerun_text(Run(1, True, error, command), []) for command in ("uci commit", "ls")]
    cause = _gotcha("git status", "0 [main] bash (1) child_copy: cygheap read copy failed, "
                    "Win32 error 299", "The root cause is Defender scanning Git Bash: the "
                    "workaround is an exclusion for `C:\\Program Files\\Git`.")
    failure = onfailure.Failure("Bash", "npm test", None, error)
    told = onfailure.told(failure, [_found(g) for g in [*reruns, cause]], set())
    assert told is not None and told.keys[0] == fact_key(cause)
    assert [k for k in told.keys if k.startswith("fixed by running it again")] == [
        fact_key(reruns[0])]
    # A session told one rerun is not told the other.
    again = onfailure.told(failure, [_found(g) for g in reruns], {fact_key(reruns[0])})
    assert again is None


def test_a_missing_program_is_told_the_fix_recorded_for_it_by_its_name(tmp_path: Path) -> None:
    # Capture recorded how `cargo` was found (its folder put on PATH) when `cargo build` met
    # zsh's "command not found", and how `make` was got on Windows. The real hook: `cargo test`
    # in another shell's words, in another project, is told the PATH fix; another program
    # missing, whose error line shares every word but the name, is told nothing.
    from vaultmem.mining.fixes import Run, installed_text

    cargo = installed_text(Run(1, True, "zsh: command not found: cargo", "cargo build"),
                           Run(3, False, None, 'export PATH="$HOME/.cargo/bin:$PATH" && '
                               "cargo build"), [])
    make = installed_text(Run(1, True, "'make' is not recognized as an internal or external "
                              "command,", "make all"), Run(3, False, None, "make all"),
                          ["winget install GnuWin32.Make"])
    assert cargo is not None and make is not None
    root = _vault_with_gotchas(tmp_path, f"- {cargo}\n- {make}\n")

    def hook(command: str, error: str) -> str:
        return _failure_hook(root, tmp_path, command, error, project="blog",
                             session=f"s-{command}")

    told = json.loads(hook("cargo test --quiet", "Exit code 127\n/usr/bin/bash: line 1: cargo: "
                           "command not found"))["hookSpecificOutput"]["additionalContext"]
    assert "`PATH` set" in told and "winget" not in told
    assert injections.read(root / ".vaultmem")[0].reason.endswith("by the program missing")
    assert "winget" in hook("make -j4", "Exit code 1\n'make' is not recognized as an internal or "
                            "external command,\noperable program or batch file.")
    assert hook("npm ci", "Exit code 1\n'npm' is not recognized as an internal or external "
                "command,\noperable program or batch file.") == ""
    assert hook("gh auth status", "Exit code 127\nzsh: command not found: gh") == ""


@pytest.mark.parametrize(("error", "command", "program"), [
    ("zsh: command not found: cargo", None, "cargo"),
    ("/usr/bin/bash: line 1: gh: command not found", None, "gh"),
    ("/bin/sh: 1: cargo: not found", None, "cargo"),
    ("make : The term 'make' is not recognized as the name of a cmdlet, function", None, "make"),
    ("git: 'lfs' is not a git command. See 'git --help'.", None, "git lfs"),
    ("env: 'python': No such file or directory", None, "python"),
    ("bash: ./scripts/run.sh: No such file or directory", "./scripts/run.sh --fast", "run.sh"),
    # The shell's "No such file" of a redirection's file, or a program's of its argument.
    ("bash: input.txt: No such file or directory", "sort < input.txt", None),
    ("cat: x.txt: No such file or directory", "cat x.txt", None),
    ("E   ModuleNotFoundError: No module named 'yaml'", "pytest", None),
])
def test_the_program_a_shell_could_not_find_is_read_from_its_error_line(
        error: str, command: str | None, program: str | None) -> None:
    from vaultmem.mining.notfound import missing_program

    assert missing_program(error, command) == program


def test_a_missing_program_with_a_short_name_signs_its_failure() -> None:
    # dash names neither itself nor ``rg`` in a word of three letters: the name signs it.
    error = "Exit code 127\nsh: 1: rg: not found"
    assert errorline.signature(error) == ["rg"]
    fixed = ("Fixed by running `sudo apt install ripgrep`: `rg TODO` failed (`bash: rg: command "
             "not found`)")
    assert "ripgrep" in (_told("rg -n TODO src", error, [fixed]) or "")


def test_a_missing_program_matches_a_gotcha_s_prose_only_outside_its_quotes() -> None:
    error = "Exit code 127\nzsh: command not found: cargo"
    assert _told("cargo build", error, [("cargo is not on PATH in a non-login zsh: run "
                                         "`source ~/.cargo/env` first")]) is not None
    # "cargo" and "not found" inside what it quotes are another failure of cargo's.
    assert _told("cargo build", error, [("`cargo build` failed (`error[E0425]: cannot find "
                                        "function `x`: not found in module`)")]) is None


def test_the_words_a_command_hands_as_data_do_not_make_a_failure_alike(tmp_path: Path) -> None:
    # The fix recorded for a commit git could not sign quotes the commit's message. A test
    # failing with those words in its error is another failure (told nothing, by the real
    # hook); another commit failing to sign is the same one, whatever its message.
    from vaultmem.mining.fixes import Run, fix_text

    gpg = "error: gpg failed to sign the data"
    signed = fix_text(Run(1, True, gpg, 'git commit -m "Retry billing webhooks on timeout"'),
                      Run(3, False, None, 'git commit -m "Retry billing webhooks on timeout"'),
                      [], ["git config commit.gpgsign false"])
    assert signed is not None and "billing webhooks" in signed
    root = _vault_with_gotchas(tmp_path, f"- {signed}\n")

    def hook(command: str, error: str) -> str:
        return _failure_hook(root, tmp_path, command, error, project="shop",
                             session=f"s-{command}")

    assert hook("pytest tests/test_hooks.py", "Exit code 1\nE   TimeoutError: billing webhooks "
                "timeout after retry") == ""
    assert hook("echo 'billing webhooks on timeout' | ./notify.sh",
                "Exit code 1\n./notify.sh: billing webhooks retry on timeout refused") == ""
    told = hook("git commit -m 'Document the refunds'", f"Exit code 128\n{gpg}\nfatal: failed "
                "to write commit object")
    assert "commit.gpgsign" in json.loads(told)["hookSpecificOutput"]["additionalContext"]

