"""cli/claude.py: install-hooks, uninstall-hooks, context and hook as a person types them (a real
subprocess each; HOME is the test's temp home, the working directory a temp git repository)."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hook_kit import REPO, run_cli

from vaultmem.claude import install

RUNNER = shlex.join(install.runner(sys.executable))

EVENTS = {"SessionStart", "Stop", "PreCompact", "SessionEnd", "UserPromptSubmit",
          "PostToolUseFailure"}
OTHER: dict[str, Any] = {
    "model": "opus",
    "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "other-tool stop"}]}]},
}


@pytest.fixture
def home() -> Path:
    return Path(os.environ["HOME"])  # the autouse fixture's temp home


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    top = tmp_path / "repo"
    (top / "src/deep").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(top)], check=True, timeout=30)
    return top


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return run_cli(args, cwd=cwd, env={**os.environ, "PYTHONPATH": str(REPO)})


def _vaultmem_commands(settings: dict[str, Any]) -> dict[str, list[str]]:
    return {
        event: [h["command"] for g in groups for h in g["hooks"] if "vaultmem" in h["command"]]
        for event, groups in settings.get("hooks", {}).items()
    }


def test_install_user_then_again_is_idempotent(home: Path, repo: Path) -> None:
    settings = home / ".claude/settings.json"
    first = _cli("install-hooks", "--scope", "user", cwd=repo)
    assert first.returncode == 0 and first.stderr == ""
    assert first.stdout == (
        f"{settings}: installed\nsessions go to the vault {home}/.claude-memory (the default: "
        "name yours with --vault, it is then written to config.toml)\n")
    data = json.loads(settings.read_text())
    # This installation by absolute path: Claude Code's PATH need not hold the venv.
    assert _vaultmem_commands(data) == {
        "SessionStart": [f"{RUNNER} hook session-start"],
        "Stop": [f"{RUNNER} hook stop"],
        "PreCompact": [f"{RUNNER} hook pre-compact"],
        "SessionEnd": [f"{RUNNER} hook session-end"],
        "UserPromptSubmit": [f"{RUNNER} hook user-prompt-submit"],
        "PostToolUseFailure": [f"{RUNNER} hook post-tool-use-failure"],
    }
    before = settings.read_bytes()
    again = _cli("install-hooks", "--scope", "user", cwd=repo)
    assert again.returncode == 0 and again.stderr == ""
    assert again.stdout.startswith(f"{settings}: already installed\nsessions go to ")
    assert settings.read_bytes() == before
    assert not (repo / ".claude").exists()


def test_dry_run_prints_a_diff_and_writes_nothing(home: Path, repo: Path) -> None:
    proc = _cli("install-hooks", "--dry-run", cwd=repo)
    assert proc.returncode == 0 and proc.stderr == ""
    assert proc.stdout.startswith("---") and "+++" in proc.stdout
    assert '+    "SessionStart": [' in proc.stdout and "vaultmem hook session-end" in proc.stdout
    assert not (home / ".claude").exists()


def test_project_scope_writes_at_the_git_top(home: Path, repo: Path) -> None:
    proc = _cli("install-hooks", "--scope", "project", cwd=repo / "src/deep")
    assert proc.returncode == 0 and proc.stderr == ""
    target = repo / ".claude/settings.json"
    assert proc.stdout.startswith(f"{target}: installed\n")
    assert set(_vaultmem_commands(json.loads(target.read_text()))) == EVENTS
    assert not (repo / "src/deep/.claude").exists() and not (home / ".claude").exists()
    local = _cli("install-hooks", "--scope", "local", cwd=repo / "src")
    assert local.returncode == 0 and (repo / ".claude/settings.local.json").is_file()


def test_uninstall_restores_the_settings(home: Path, repo: Path) -> None:
    settings = home / ".claude/settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text(json.dumps(OTHER, indent=2) + "\n")
    assert _cli("install-hooks", "--command", "/opt/vm/bin/vaultmem", cwd=repo).returncode == 0
    data = json.loads(settings.read_text())
    assert data["model"] == "opus"
    assert [h["command"] for g in data["hooks"]["Stop"] for h in g["hooks"]] == [
        "other-tool stop",
        "/opt/vm/bin/vaultmem hook stop",
    ]
    proc = _cli("uninstall-hooks", "--command", "/opt/vm/bin/vaultmem", cwd=repo)
    assert proc.returncode == 0 and proc.stderr == ""
    assert proc.stdout.startswith(f"{settings}: removed")
    assert json.loads(settings.read_text()) == OTHER
    nothing = _cli("uninstall-hooks", "--command", "/opt/vm/bin/vaultmem", cwd=repo)
    assert nothing.returncode == 0 and nothing.stdout == f"{settings}: nothing to remove\n"


def test_install_json_report(home: Path, repo: Path) -> None:
    proc = _cli("install-hooks", "--json", cwd=repo)
    assert proc.returncode == 0 and proc.stderr == ""
    report = json.loads(proc.stdout)
    assert report["path"] == str(home / ".claude/settings.json")
    assert report["changed"] is True and report["dry_run"] is False and report["diff"]


def test_invalid_settings_json_is_one_line_and_untouched(home: Path, repo: Path) -> None:
    settings = home / ".claude/settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text('{"model": "opus",\n  oops\n}\n')
    before = settings.read_bytes()
    for command in ("install-hooks", "uninstall-hooks"):
        proc = _cli(command, cwd=repo)
        assert proc.returncode == 1 and proc.stdout == ""
        assert proc.stderr.count("\n") == 1 and proc.stderr.startswith("error: ")
        assert "settings.json" in proc.stderr and "Traceback" not in proc.stderr
    assert settings.read_bytes() == before
    assert sorted(p.name for p in settings.parent.iterdir()) == ["settings.json"]


def test_bad_scope_is_a_usage_error(home: Path, repo: Path) -> None:
    proc = _cli("install-hooks", "--scope", "global", cwd=repo)
    assert proc.returncode == 2 and proc.stdout == ""
    assert "global" in proc.stderr
    assert not (home / ".claude").exists()


def test_hook_help_goes_to_typer_and_hook_through_typer_works(tmp_path: Path, repo: Path) -> None:
    helped = _cli("hook", "--help", cwd=repo)
    assert helped.returncode == 0 and "session-start" in helped.stdout
    vault = tmp_path / "v"
    vault.mkdir()
    # Through Typer (the launcher's fast path is bypassed by calling the app directly).
    code = (
        "import sys; from vaultmem.cli import run_app; "
        "run_app(['--vault', sys.argv[1], '--project', 'Typer Way', 'hook', 'session-start'])"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code, str(vault)],
        input=b'{"session_id": "s1"}',
        capture_output=True,
        cwd=repo,
        timeout=120,
        check=False,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    # A first session start: nothing to tell yet, the project's folders made.
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, b"", b"")
    assert (vault / "claude/projects/typer-way/_index.md").is_file()


def test_context_command_on_an_empty_vault(tmp_path: Path, repo: Path) -> None:
    (tmp_path / "v").mkdir()
    proc = _cli("--vault", str(tmp_path / "v"), "--project", "demo", "context", cwd=repo)
    assert (proc.returncode, proc.stdout) == (0, "")
    assert proc.stderr == "no memory for project demo yet: a session start injects nothing\n"
    assert not any((tmp_path / "v").iterdir())  # reading writes nothing


def test_context_on_a_vault_that_is_not_there_is_one_line(tmp_path: Path, repo: Path) -> None:
    proc = _cli("--vault", str(tmp_path / "v"), "--project", "demo", "context", cwd=repo)
    assert proc.returncode == 1 and proc.stdout == ""
    assert proc.stderr == (f"error: {tmp_path / 'v'}: no vault here (from --vault): does not "
                           f"exist; `vaultmem --vault {tmp_path / 'v'} init` creates one\n")
    assert not (tmp_path / "v").exists()


def test_install_carries_the_vault_and_another_vault_replaces_it(
    home: Path, repo: Path, tmp_path: Path
) -> None:
    settings = home / ".claude/settings.json"
    config = home / ".config/vaultmem/config.toml"
    first, second = tmp_path / "my vault", tmp_path / "work vault"
    first.mkdir()
    second.mkdir()
    proc = _cli("--vault", str(first), "--project", "shop", "install-hooks", cwd=repo)
    assert proc.returncode == 0 and proc.stderr == ""
    assert proc.stdout == (
        f"{settings}: installed\n"
        f"{config}: vault = {first} (every vaultmem command on this machine uses it)\n"
        f"sessions go to the vault {first} (every command's, from config.toml)\n")
    assert config.read_text() == f'vault = "{first}"\n'
    assert _vaultmem_commands(json.loads(settings.read_text()))["Stop"] == [
        f"{RUNNER} --vault {shlex.quote(str(first))} --project shop hook stop"
    ]

    refused = _cli("--vault", str(second), "install-hooks", cwd=repo)
    assert refused.returncode == 1 and refused.stdout == ""
    assert refused.stderr == (
        f"error: {config}: names the vault {first}, not {second}: the config wins for commands "
        f"run without --vault; add --force to make {second} the vault of every command\n")
    again = _cli("--vault", str(second), "install-hooks", "--force", cwd=repo)

    assert again.returncode == 0 and again.stderr == ""
    assert f"{config}: vault = {second}, was {first} " in again.stdout
    assert config.read_text() == f'vault = "{second}"\n'
    commands = _vaultmem_commands(json.loads(settings.read_text()))
    assert commands == {
        event: [f"{RUNNER} --vault {shlex.quote(str(second))} hook {name}"]
        for event, (name, _timeout) in install.HOOK_EVENTS.items()
    }
    gone = _cli("uninstall-hooks", cwd=repo)
    assert gone.returncode == 0 and "hooks" not in json.loads(settings.read_text())
    config.unlink()
    from_env = run_cli(["install-hooks"], cwd=repo,
                       env={**os.environ, "PYTHONPATH": str(REPO), "VAULTMEM_VAULT": str(first)})
    assert from_env.returncode == 0
    assert _vaultmem_commands(json.loads(settings.read_text()))["Stop"] == [
        f"{RUNNER} --vault {shlex.quote(str(first))} hook stop"]
    assert config.read_text() == f'vault = "{first}"\n'


def test_install_on_a_vault_that_is_not_there_writes_nothing(
    home: Path, repo: Path, tmp_path: Path
) -> None:
    typo = tmp_path / "Obsidan"
    proc = _cli("--vault", str(typo), "install-hooks", cwd=repo)

    assert proc.returncode == 1 and proc.stdout == ""
    assert proc.stderr == (
        f"error: {typo}: no vault here (from --vault): does not exist; "
        f"`vaultmem --vault {typo} init` creates one\n")
    assert not (home / ".claude").exists() and not (home / ".config/vaultmem").exists()
    assert not typo.exists()


def test_uninstall_removes_every_form_and_nothing_else(home: Path, repo: Path) -> None:
    settings = home / ".claude/settings.json"
    settings.parent.mkdir(parents=True)
    ours = ["vaultmem hook stop", "/usr/local/bin/vaultmem hook stop",
            "'/a b/bin/vaultmem' --vault '/v w' hook stop",
            "/usr/bin/python3 -m vaultmem --project p hook stop"]
    others = ["other-tool stop", "echo vaultmem hook stop", "vaultmem-notify hook stop"]
    settings.write_text(json.dumps({"hooks": {"Stop": [
        {"hooks": [{"type": "command", "command": c} for c in ours + others]}]}}))

    proc = _cli("uninstall-hooks", cwd=repo)

    assert proc.returncode == 0 and proc.stderr == ""
    left = json.loads(settings.read_text())["hooks"]["Stop"][0]["hooks"]
    assert [h["command"] for h in left] == others


def test_check_says_when_the_installed_command_is_gone(home: Path, repo: Path) -> None:
    settings = home / ".claude/settings.json"
    assert _cli("install-hooks", "--command", "/removed/venv/bin/vaultmem", cwd=repo).returncode == 0

    proc = _cli("install-hooks", "--check", cwd=repo)

    assert proc.returncode == 1
    assert proc.stdout.startswith(f"{settings}: hook-command-missing: ")
    assert "/removed/venv/bin/vaultmem no longer exists" in proc.stdout
    as_json = json.loads(_cli("install-hooks", "--check", "--json", cwd=repo).stdout)
    assert [f["kind"] for f in as_json["findings"]] == ["hook-command-missing"]
    assert as_json["vault"] == str(home / ".claude-memory")


def test_plugin_and_install_hooks_both_active_is_a_warning(home: Path, repo: Path) -> None:
    settings = home / ".claude/settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text(json.dumps({"enabledPlugins": {"vaultmem@vaultmem": True}}))
    before = settings.read_bytes()

    dry = _cli("install-hooks", "--dry-run", cwd=repo)
    # The dry run warns as the real run will, and writes nothing.
    assert dry.returncode == 0 and settings.read_bytes() == before
    assert dry.stderr.count("\n") == 1 and dry.stderr.startswith("warning: ")
    assert "vaultmem@vaultmem" in dry.stderr and "twice" in dry.stderr

    proc = _cli("install-hooks", cwd=repo)

    assert proc.returncode == 0 and proc.stdout.startswith(
        f"{settings}: installed (backup: {settings}.vaultmem-backup)\n")
    assert proc.stderr.count("\n") == 1 and proc.stderr.startswith("warning: ")
    assert "vaultmem@vaultmem" in proc.stderr and "twice" in proc.stderr
    checked = _cli("install-hooks", "--check", cwd=repo)
    assert checked.returncode == 1 and "hooks-twice" in checked.stdout
