"""A state the session set up and left in place is a decision without a reason (the lead's
decision, stop 49): a setting written, a package installed or pinned, a service enabled, a
config value edited, each filed under what it configures; a look-up, a failed call, a
setting undone or set again later is not (or not as it was). Hooks run in-process on made-up
transcripts into a temporary vault; the session note's ``Decisions Made`` is what compaction
files under the entity notes."""

from __future__ import annotations

from pathlib import Path

import pytest
from hook_kit import ENTITIES, hook_env, run_cli, session_notes
from transcript_kit import CWD, Transcript, briefing, end, note, section, stop

from vaultmem.mining import setups

ANSWER = "Done."


def _decisions(env: Path) -> list[str]:
    return section(note(env), "Decisions Made") if "## Decisions Made" in note(env) else []


def _run(log: Transcript, calls: list[tuple[str, dict[str, str], str, bool]],
         prompt: str = "get the machine ready") -> None:
    """One turn: ``prompt``, then each (tool, input, result, failed) call, then the answer."""
    log.prompt(prompt)
    for n, (tool, tool_input, result, failed) in enumerate(calls):
        log.call(f"c{n}", tool, tool_input)
        log.result(f"c{n}", result, error=failed)
    log.say(ANSWER)
    stop(log)


def _bash(command: str, result: str = "", failed: bool = False
          ) -> tuple[str, dict[str, str], str, bool]:
    return ("Bash", {"command": command}, result, failed)


def _edit(path: str, old: str, new: str) -> tuple[str, dict[str, str], str, bool]:
    return ("Edit", {"file_path": path, "old_string": old, "new_string": new},
            "The file has been updated.", False)


@pytest.mark.parametrize(("command", "line"), [
    ("git config --global pull.rebase true",
     "- Set up: git config --global pull.rebase (true) ([[git]])"),
    ("cd web && npm i -D vitest@1.6.0", "- Set up: vitest (pinned 1.6.0) ([[vitest]])"),
    ("brew install ripgrep", "- Set up: ripgrep (installed) ([[ripgrep]])"),
    ("sudo systemctl enable --now nginx.service",
     "- Set up: nginx service (enabled) ([[nginx]])"),
    ("npm config set registry https://npm.example.org",
     "- Set up: npm config registry (https://npm.example.org) ([[npm]])"),
    ("echo 'export EDITOR=vim' >> ~/.zshrc", "- Set up: EDITOR (vim) in ~/.zshrc ([[zsh]])"),
    ("uci set dhcp.@dnsmasq[0].cachesize='5000' && uci commit dhcp",
     "- Set up: uci dhcp.@dnsmasq[0].cachesize (5000) ([[uci]])"),
])
def test_a_setting_command_that_ran_is_a_decision_under_what_it_configures(
        env: Path, log: Transcript, command: str, line: str) -> None:
    _run(log, [_bash(command)])
    end(log)
    text, name = line.rsplit(" ([[", 1)
    name = name.removesuffix("]])")
    assert f"{text} ([[{ENTITIES}/{name}|{name}]])" in _decisions(env)


def test_a_config_value_edited_is_a_decision_under_the_files_component(
        env: Path, log: Transcript) -> None:
    _run(log, [_edit(f"{CWD}/billing/settings.yaml", "timeout: 30\n", "timeout: 60\n")])
    end(log)
    assert (f"- Set up: timeout in settings.yaml (60, was 30) ([[{ENTITIES}/Billing|Billing]])"
            in _decisions(env))


def test_a_later_setting_of_the_same_key_supersedes_the_earlier(
        env: Path, log: Transcript) -> None:
    _run(log, [_bash("git config core.autocrlf true"), _bash("git config core.autocrlf input")])
    end(log)
    said = [d for d in _decisions(env) if "core.autocrlf" in d]
    assert said == [f"- Set up: git config core.autocrlf (input) ([[{ENTITIES}/git|git]])"]


@pytest.mark.parametrize("calls", [
    [_bash("git config --get user.name", "Dev"), _bash("npm view vitest version", "1.6.0"),
     _bash("pip show httpx", "Name: httpx"), _bash("systemctl status nginx", "active")],
    [_bash("pip install httpx", "Successfully installed httpx"), _bash("pip uninstall -y httpx")],
    [_bash("systemctl enable nginx"), _bash("systemctl disable nginx")],
    [_bash("git config core.editor vim"), _bash("git config --unset core.editor")],
    [_bash("brew install ripgrep", "Error: No available formula", failed=True)],
    [_bash("pip install -r requirements.txt"), _bash("/etc/init.d/dnsmasq disable")],
    [_edit(f"{CWD}/.github/workflows/ci.yml", "name: CI\n", "name: Tests\n")],
    [("Write", {"file_path": f"{CWD}/deploy/app.toml",
                "content": "port = 8080\nworkers = 4\nhost = \"0.0.0.0\"\nlog = \"info\"\n"},
      "File created.", False)],
])
def test_a_look_up_an_undone_or_failed_setting_or_a_rewrite_is_no_decision(
        env: Path, log: Transcript, calls: list[tuple[str, dict[str, str], str, bool]]) -> None:
    _run(log, calls)
    end(log)
    assert not [d for d in _decisions(env) if d.startswith(f"- {setups.LABEL}")]


def test_a_setup_is_filed_in_the_entity_note_it_configures(tmp_path: Path, env: Path,
                                                          log: Transcript) -> None:
    _run(log, [_bash("git config --global pull.rebase true")])
    end(log)
    (session,) = session_notes(env)
    done = run_cli(["compact", session.relative_to(env).as_posix(), "--force"], cwd=tmp_path,
                   env=hook_env(env))
    assert done.returncode == 0, done.stderr
    git = (env / ENTITIES / "git.md").read_text()
    decided = git.split("## Key Decisions", 1)[1].split("\n## ", 1)[0]
    assert "Set up: git config --global pull.rebase (true)" in decided


def test_the_briefing_tells_a_state_the_last_session_set_up_once(
        env: Path, log: Transcript) -> None:
    _run(log, [_bash("brew install ripgrep")])
    end(log)
    told = briefing()
    assert "`brew install ripgrep`" in told
    assert "Set up: ripgrep" not in told


def test_a_package_installed_is_no_component_the_session_worked_on(
        tmp_path: Path, env: Path, log: Transcript) -> None:
    _run(log, [_bash("brew install ripgrep")])
    end(log)
    assert len(session_notes(env)) == 1
    (env / ENTITIES).mkdir(parents=True, exist_ok=True)
    (env / ENTITIES / "ripgrep.md").write_text("# ripgrep\n\n## Key Decisions\n\n"
                                               "- 2026-11-22 — Set up: ripgrep (installed)\n")
    assert "[[ripgrep]] — touched" not in briefing()


def test_the_settings_of_one_turn_under_one_component_are_one_line(
        env: Path, log: Transcript) -> None:
    _run(log, [_bash("uci set system.@system[0].log_size='512'"),
               _bash("uci set system.@system[0].conloglevel='8' && uci commit system")])
    end(log)
    said = [d for d in _decisions(env) if d.startswith(f"- {setups.LABEL}")]
    assert said == [(f"- Set up: uci system.@system[0].log_size (512); uci system.@system[0]"
                     f".conloglevel (8) ([[{ENTITIES}/uci|uci]])")]


def test_a_table_a_block_of_text_or_a_cut_value_is_no_setting() -> None:
    for pair in ("deps: { git = \"https://x\" }", "branches: [ main ]", "report: `## Report\\n`",
                 "key: abcdefghij…"):
        assert setups.of_call("Edit", (pair,), "ci/app.yml") == [], pair
    assert setups.of_call("Edit", ("retries: 3",), "ci/app.yml") != []


def test_an_install_s_packages_and_options() -> None:
    assert setups.of_command("pip install requests")[0].text == (
        "Set up: requests (installed)")
    assert setups.of_command("cargo add serde --features derive")[0].subject == "serde"
    assert len(setups.of_command("cargo add serde --features derive")) == 1
    assert [s.subject for s in setups.of_command("apt-get install -y a b c")] == ["apt-get"]


def test_a_later_read_s_setting_supersedes_an_earlier_read_s_at_compaction() -> None:
    from vaultmem.memory import sessionextract
    from vaultmem.store.config import Config

    lines = ["---", "type: session", "project: laptop", "---", "# setup", "",
             "## Decisions Made", "",
             "- Set up: git config core.autocrlf (true); git config pull.rebase (true) ([[git]])",
             "- Set up: ripgrep (installed) ([[ripgrep]])",
             "- Set up: git config core.autocrlf (input) ([[git]])", ""]
    found = [i.text for i in sessionextract.extract(
        "\n".join(lines), "claude/projects/laptop/sessions/2026-01-17-setup.md",
        Config(vault=Path("/nonexistent"), project="laptop")).items if i.kind == "decision"]
    assert found == ["Set up: git config pull.rebase (true)", "Set up: ripgrep (installed)",
                     "Set up: git config core.autocrlf (input)"]


def test_what_a_setup_line_sets() -> None:
    assert setups.superseded(["Set up: EDITOR (vim) in ~/.zshrc", "Set up: EDITOR (nvim) in ~/.zshrc",
                       "Set up: uci a (+ 1)", "Set up: uci a (+ 2)",
                       "Set up: TermService (RDP): Disabled, was Manual", "Use X because Y",
                       "Set up: TermService (RDP): Manual"]) == [
        "", "Set up: EDITOR (nvim) in ~/.zshrc", "Set up: uci a (+ 1)", "Set up: uci a (+ 2)",
        "", "Use X because Y", "Set up: TermService (RDP): Manual"]
