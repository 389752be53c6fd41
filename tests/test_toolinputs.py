"""Knowledge that lives only in tool inputs (issue 28): the values a config file's Write or Edit
set, the packages installed and the settings a command changed reach the session note, capped
and redacted, and recall finds them."""

from __future__ import annotations

from pathlib import Path

from hook_kit import PROJECT
from transcript_kit import Transcript, note, stop

from vaultmem.claude import changelines
from vaultmem.claude.toolblocks import ToolCall
from vaultmem.mining import configpairs, settingcmds
from vaultmem.notes.redact import DEFAULT
from vaultmem.search import recall
from vaultmem.store.config import Config
from vaultmem.store.vault import Vault


def test_a_write_of_a_config_file_keeps_its_keys_and_never_a_secret_value() -> None:
    content = ("# app settings\n[server]\ntimeout = 30\nhost = \"0.0.0.0\"\n"
               "db_password = \"hunter2hunter2\"\nsession_token=abc\n")
    assert configpairs.pairs_of("Write", {"content": content}, DEFAULT) == (
        "timeout = 30", 'host = "0.0.0.0"', 'db_password = "‹redacted:password›"',
        "session_token = ‹redacted:token›")


def test_an_edit_keeps_what_it_changed_and_added_not_what_it_left() -> None:
    edit = {"old_string": "retries: 3\nname: ci\n",
            "new_string": "retries: 5\nname: ci\ncontinue-on-error: true\n"}
    assert configpairs.pairs_of("Edit", edit, DEFAULT) == (
        "retries: 3 → 5", "continue-on-error: true")
    multi = {"edits": [{"old_string": "Restart=no", "new_string": "Restart=always"},
                       {"old_string": "[Service]", "new_string": "[Service]\nRestartSec=5"}]}
    # A key said again and again (a YAML list's ``name:``) is not paired; a comment is no value.
    steps = {"old_string": "- name: lint\n  run: ruff\n- name: test\n",
             "new_string": "- name: lint\n  run: ruff\n- name: test (non-blocking)\n"
                           "  continue-on-error: true  # report only\n"}
    assert configpairs.pairs_of("Edit", steps, DEFAULT) == (
        "name: test (non-blocking)", "continue-on-error: true")
    assert configpairs.pairs_of("MultiEdit", multi, DEFAULT) == ("Restart: no → always",
                                                                 "RestartSec = 5")


def test_config_files_are_known_by_name_and_source_code_is_not() -> None:
    for path in ("config/app.toml", ".github/workflows/ci.yml", "C:\\app\\.env.local",
                 "/etc/ssh/sshd_config", "~/.zshrc", "deploy/foo.service", "package.json"):
        assert configpairs.config_like(path), path
    for path in ("src/app.py", "lib/main.rs", "README.md", "web/index.ts", "Makefile"):
        assert not configpairs.config_like(path), path


def test_commands_that_install_or_set_are_kept_part_by_part() -> None:
    def kept(command: str) -> list[tuple[str, str]]:
        return [(settingcmds.label(p), p) for p in settingcmds.parts(command)]

    assert kept("cd web && npm i -D vitest && npm test") == [("Installed", "npm i -D vitest")]
    assert kept("git config --global pull.rebase true") == [
        ("Set", "git config --global pull.rebase true")]
    assert kept("sudo systemctl enable --now foo") == [("Set", "sudo systemctl enable --now foo")]
    assert kept("defaults write com.apple.dock autohide -bool true") == [
        ("Set", "defaults write com.apple.dock autohide -bool true")]
    assert kept("ssh root@router \"uci set dhcp.@dnsmasq[0].cachesize='5000' && uci commit dhcp"
                " && /etc/init.d/dnsmasq reload\"") == [
        ("Set", "uci set dhcp.@dnsmasq[0].cachesize='5000'")]
    assert kept("opkg remove minidlna && pacman -Rns foo") == [
        ("Removed", "opkg remove minidlna"), ("Removed", "pacman -Rns foo")]
    assert kept("brew install gitleaks 2>&1 | tail -5") == [("Installed", "brew install gitleaks 2>&1")]
    # Reads, runs and a bare install from the lockfile change no setting.
    for command in ("git config commit.gpgsign", "uci show dhcp", "npm install", "npm test",
                    "systemctl --user restart panel", "git status"):
        assert kept(command) == [], command


def test_a_value_changed_later_in_the_turn_replaces_the_pair_and_a_repeated_key_adds_one() -> None:
    changed: dict[str, list[str]] = {}
    settings: list[str] = []
    for pairs in (("PORT = 8080", "HOST = a"), ("PORT: 8080 → 9090",), ("name: lint",),
                  ("name: test",)):
        call = ToolCall("x", "Edit", path="/w/.env", changes=pairs)
        changelines.keep(changed, settings, call, "/w")
    assert changed == {".env": ["PORT: 8080 → 9090", "HOST = a", "name: lint", "name: test"]}
    assert settings == []


def test_a_long_rewrite_is_one_capped_line() -> None:
    pairs = [f"key_{n} = {n}" for n in range(500)]
    lines = changelines.lines({"config/big.toml": pairs}, [], [])
    assert len(lines) == 1 and len(lines[0]) <= changelines.LINE_MAX_CHARS + 20
    assert lines[0].startswith("- Set in `config/big.toml`: `key_0 = 0`, `key_1 = 1`")
    assert lines[0].endswith(f"(+{500 - changelines.PAIRS_SHOWN} more)")


def test_capture_puts_the_changes_in_the_turn_and_recall_finds_them(
        env: Path, log: Transcript) -> None:
    log.prompt("make the client more patient and add vitest")
    cwd = "/home/dev/work/shop"
    log.call("w1", "Write", {"file_path": f"{cwd}/config/app.toml",
                             "content": "[client]\ntimeout = 30\n"})
    log.result("w1", "File created successfully")
    log.call("e1", "Edit", {"file_path": f"{cwd}/ci.yml", "old_string": "retries: 3",
                            "new_string": "retries: 5"})
    log.result("e1", "The file has been updated.")
    # An edit that failed and a command the person rejected changed nothing.
    log.call("e2", "Edit", {"file_path": f"{cwd}/ci.yml", "old_string": "x: 1",
                            "new_string": "x: 2"})
    log.result("e2", "<tool_use_error>String to replace not found in file.</tool_use_error>",
               error=True)
    log.call("b1", "Bash", {"command": "cd web && npm i -D vitest"})
    log.result("b1", "added 12 packages")
    log.call("b2", "Bash", {"command": "git config --global pull.rebase true"})
    log.result("b2", "The user doesn't want to proceed with this tool use. The tool use was "
                     "rejected", error=True)
    log.say("Done: timeout 30 s, retries 5, vitest installed.")
    stop(log)
    text = note(env)
    assert "- Set in `config/app.toml`: `timeout = 30`" in text
    assert "- Set in `ci.yml`: `retries: 3 → 5`" in text
    assert "- Installed: `npm i -D vitest`" in text
    assert "x: 2" not in text and "- Set: `git config" not in text
    found = recall.recall(Vault(env), Config(vault=env, project=PROJECT), "timeout app.toml")
    assert any("timeout = 30" in hit.text for hit in found.hits)
