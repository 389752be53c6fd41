"""tools.py: the tool a gotcha's failure ran, read as a shell runs it."""

from __future__ import annotations

import pytest

from vaultmem.mining import tools


@pytest.mark.parametrize(("text", "tool"), [
    ("Fixed with `--no-gpg-sign`: `git commit` failed (`error: gpg failed to sign the data`)",
     "git"),
    ("Fixed by running `git pull`: `cd ~/shop && git push` failed (`! [rejected] main`)", "git"),
    (("Got it to run by running `pip install -r requirements-dev.txt`: "
      "`python -m pytest tests/ -v` failed (`No module named pytest`)"), "pytest"),
    ("`uv run --frozen mypy src` failed (`error: Cannot find implementation`)", "mypy"),
    ("`FOO=1 npx prisma migrate dev` failed (`P1001: Can't reach database`)", "prisma"),
    # A wrapper is the tool only when the error is its own.
    ("(`sudo apt install x` failed: `sudo: a terminal is required to read the password`)",
     "sudo"),
    ("`sudo apt install x` failed (`E: Unable to locate package x`)", "apt"),
    # In a command line of several commands, the one its error names by its program.
    (("`createuser app && psql --password=x -c 'alter user app'` failed: `psql: error: "
      "password authentication failed`"), "psql"),
    ("`createuser app && psql -c 'alter user app'` failed: `error: role exists`", "createuser"),
    ("`/usr/local/bin/terraform plan` failed (`Error: No valid credential`)", "terraform"),
    ('`"C:\\Program Files\\Git\\bin\\git.exe" push` failed (`rejected`)', "git"),
    # The project's own code, shells, utilities: no tool.
    ("`./deploy.sh staging` failed (`permission denied`)", None),
    ("`python scripts/sync.py 2>&1 | head -30` failed (`bad escape`)", None),
    ("`node -e 'require(\"x\")'` failed (`Cannot find module`)", None),
    ("`ssh root@10.0.0.1 uci commit` failed: `child_copy: cygheap read copy failed`", None),
    ("`cat /etc/shadow` failed: `Permission denied`", None),
    ("Fixed by editing `src/app.rs`: `cargo build` failed (`error[E0412]`)", None),
    ("Run `git push` after pulling", None),  # no failure reported
])
def test_tool_of(text: str, tool: str | None) -> None:
    assert tools.tool_of(text) == tool


@pytest.mark.parametrize(("text", "script"), [
    ("`cd ~/shop && ./scripts/update_user.sh bob --dry-run` failed (`bad interpreter`)",
     "scripts/update_user.sh"),
    ("`python3 scripts/sync.py 2>&1 | head -30` failed (`bad escape`)", "scripts/sync.py"),
    ("`sudo bash deploy.sh staging` failed: `permission denied`", "deploy.sh"),
    ("`.venv/bin/python tools/gen.py` failed: `KeyError`", "tools/gen.py"),
    ("Fixed by editing `scripts/sync.py`: `python scripts/sync.py` failed (`bad escape`)",
     "scripts/sync.py"),
    # A fix in another file is about that file; a program, a module, a snippet: no script.
    ("Fixed by editing `src/app.py`: `python scripts/sync.py` failed (`bad escape`)", None),
    ("`python -m pytest` failed (`No module named pytest`)", None),
    ("`node -e 'require(\"x\")'` failed (`Cannot find module`)", None),
    ("`node_modules/.bin/jest` failed (`x`)", None),
    ("`/opt/tools/x.py` failed (`x`)", None),
    ("`git push` failed (`rejected`)", None),
    ("Run `./deploy.sh` after pulling", None),  # no failure reported
])
def test_script_of_is_the_project_file_a_failing_command_runs(text: str, script: str | None
                                                               ) -> None:
    assert tools.script_of(text) == script


@pytest.mark.parametrize(("text", "hook"), [
    ("Pre-commit Hook Blocked Documentation Commit: gitleaks found example keys", "pre-commit"),
    ("Enhanced pre-commit hook: three layers (gitleaks, PII, credentials)", "pre-commit"),
    ("The pre-push hook runs the whole suite: push with --no-verify only for docs", "pre-push"),
    ("Install it as `.git/hooks/pre-commit`", None),  # a path, not the hook named
    ("Edit .pre-commit-config.yaml to pin ruff", None),
    ("Commit and push the fix", None),
])
def test_hook_of(text: str, hook: str | None) -> None:
    assert tools.hook_of(text) == hook


@pytest.mark.parametrize(("command", "host"), [
    ("ssh -o ConnectTimeout=5 root@slate \"uname -a\"", "slate"),
    ("ssh -p 2222 -v nas uptime", "nas"),
    ("cd ~/x && ssh -i ~/.ssh/id_ed25519 pi@Pi4 'ls'", "pi4"),
    # An address or localhost names no machine a person looks up; scp is no login.
    ("ssh root@192.168.8.1 \"uci commit\"", None),
    ("ssh -T git@github.com", None),
    ("ssh localhost", None),
    ("scp notes.txt nas:/tmp", None),
    ("git push", None),
])
def test_ssh_host(command: str, host: str | None) -> None:
    assert tools.ssh_host(command) == host


def test_ssh_hosts_reads_the_commands_in_code_spans() -> None:
    text = ("ssh into slate please\n- Ran `ssh root@slate \"opkg list-installed\"`\n"
            "- Failed: `ssh -o ConnectTimeout=5 root@slate uptime` — `Exit code 255`\n"
            "- Ran `ssh root@10.0.0.1 uptime`\n- Ran `ssh nas df -h`\n")
    assert tools.ssh_hosts(text) == ("slate", "nas")  # "ssh into slate" is prose, no command
