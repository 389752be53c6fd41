"""One vault everywhere (issue 21): a wrong vault is one error line, an unknown config key names
the nearest known one, and the vault chosen at init is written to the config file."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from vaultmem.cli import _load_commands, app
from vaultmem.errors import ConfigError
from vaultmem.store.config import config_file, load_config
from vaultmem.store.vaultchoice import notice
from vaultmem.store.vaultrecord import record_vault

_load_commands()


def _config_path() -> Path:
    return config_file()


def cli(*args: str, env: dict[str, str] | None = None) -> object:
    return CliRunner().invoke(app, list(args), env=env)


@pytest.mark.parametrize("command", [
    ["recall", "login"], ["status"], ["doctor"], ["context"], ["compact", "--all"],
    ["show", "x"], ["session", "start"], ["review"], ["promote", "Auth"],
])
def test_a_vault_that_is_not_there_is_one_line_and_not_created(
    tmp_path: Path, command: list[str]
) -> None:
    typo = tmp_path / "Obsidain"
    result = CliRunner().invoke(app, ["--vault", str(typo), "--project", "p", *command])
    assert result.exit_code == 1 and result.stdout == ""
    assert result.stderr == (f"error: {typo}: no vault here (from --vault): does not exist; "
                             f"`vaultmem --vault {typo} init` creates one\n")
    assert not typo.exists()


def test_a_vault_that_is_a_file_from_the_config_is_named(tmp_path: Path) -> None:
    plain = tmp_path / "notes.md"
    plain.write_text("x")
    _config_path().parent.mkdir(parents=True)
    _config_path().write_text(f'vault = "{plain}"\n')
    result = CliRunner().invoke(app, ["--project", "p", "recall", "x"])
    assert result.exit_code == 1 and result.stdout == ""
    assert result.stderr.startswith(f"error: {plain}: no vault here (from config.toml): "
                                    "is not a folder;")
    assert plain.read_text() == "x"


def test_the_environment_vault_is_named_too(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["--project", "p", "status"],
                                env={"VAULTMEM_VAULT": str(tmp_path / "nope")})
    assert result.exit_code == 1
    assert "no vault here (from VAULTMEM_VAULT): does not exist" in result.stderr


def test_unknown_config_key_names_the_nearest(tmp_path: Path) -> None:
    _config_path().parent.mkdir(parents=True)
    _config_path().write_text('valut = "~/Obsidian"\n')
    with pytest.raises(ConfigError) as err:
        load_config(project="p")
    assert str(err.value).startswith(f"{_config_path()}: unknown key 'valut' (did you mean "
                                     "'vault'?); known keys: age_threshold_days, ")
    result = CliRunner().invoke(app, ["--project", "p", "status"])
    assert result.exit_code == 1 and result.stdout == ""
    assert result.stderr.startswith(f"error: {_config_path()}: unknown key 'valut' (did you mean")
    assert result.stderr.count("\n") == 1


def test_a_key_far_from_every_known_one_has_no_guess(tmp_path: Path) -> None:
    _config_path().parent.mkdir(parents=True)
    _config_path().write_text("zzz = 1\n")
    with pytest.raises(ConfigError, match=r"unknown key 'zzz'; known keys"):
        load_config(project="p")


@pytest.mark.parametrize("source,env", [
    ("config", {}),
    ("env", {"VAULTMEM_EXTRACTOR": "gpt"}),
])
def test_an_extractor_vaultmem_does_not_have_is_an_error(
    tmp_path: Path, source: str, env: dict[str, str]
) -> None:
    if source == "config":
        _config_path().parent.mkdir(parents=True)
        _config_path().write_text('extractor = "gpt"\n')
    with pytest.raises(ConfigError) as err:
        load_config(project="p", env={**os.environ, **env})
    assert "'extractor' must be one of deterministic, llm, claude, got 'gpt'" in str(err.value)
    where = str(_config_path()) if source == "config" else "VAULTMEM_EXTRACTOR"
    assert str(err.value).startswith(where + ": ")


def test_init_writes_the_vault_to_the_config_and_every_command_then_uses_it(
    tmp_path: Path
) -> None:
    vault = tmp_path / "Main"
    first = CliRunner().invoke(app, ["--vault", str(vault), "--project", "shop", "init"])
    assert first.exit_code == 0, first.stderr
    assert first.stdout.splitlines()[0] == (
        f"{_config_path()}: vault = {vault} (every vaultmem command on this machine uses it)")
    assert _config_path().read_text() == f'vault = "{vault}"\n'
    # No --vault from now on: the same vault answers, and --json says which.
    status = CliRunner().invoke(app, ["--project", "shop", "status", "--json"])
    assert status.exit_code == 0 and json.loads(status.stdout)["vault"] == str(vault)
    recall = CliRunner().invoke(app, ["--project", "shop", "recall", "x", "--json"])
    assert json.loads(recall.stdout)["vault"] == str(vault)
    again = CliRunner().invoke(app, ["--vault", str(vault), "--project", "shop", "init"])
    assert again.exit_code == 0 and "config.toml" not in again.stdout


def test_init_of_a_second_vault_creates_it_and_keeps_the_config_unless_forced(
    tmp_path: Path
) -> None:
    _config_path().parent.mkdir(parents=True)
    original = '# my settings\nline_threshold = 300\nvault = "~/Old"\n\n[components]\n"a/**" = "A"\n'
    _config_path().write_text(original)
    new = tmp_path / "New"
    kept = CliRunner().invoke(app, ["--vault", str(new), "--project", "p", "init"])
    assert kept.exit_code == 0 and kept.stderr == ""
    assert kept.stdout.splitlines()[0] == (
        f"{_config_path()} still names the vault ~/Old: commands without --vault use that one; "
        f"add --force to make {new} the vault of every command")
    assert _config_path().read_text() == original
    assert (new / "claude" / "projects" / "p" / "_index.md").is_file()
    forced = CliRunner().invoke(app, ["--vault", str(new), "--project", "p", "init", "--force"])
    assert forced.exit_code == 0, forced.stderr
    assert _config_path().read_text() == original.replace('"~/Old"', f'"{new}"')
    assert load_config(project="p").vault == new


def test_init_from_the_environment_creates_the_vault_and_keeps_the_config(
    tmp_path: Path
) -> None:
    _config_path().parent.mkdir(parents=True)
    _config_path().write_text('vault = "~/Old"\n')
    team = tmp_path / "team"
    result = CliRunner().invoke(app, ["--project", "p", "init", "--json"],
                                env={"VAULTMEM_VAULT": str(team)})
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["config"] == "kept"
    assert (team / "claude").is_dir() and _config_path().read_text() == 'vault = "~/Old"\n'


def test_a_config_with_tables_gets_the_vault_key_before_them(tmp_path: Path) -> None:
    _config_path().parent.mkdir(parents=True)
    _config_path().write_text('line_threshold = 300\n[components]\n"a/**" = "A"\n')
    config = load_config(vault=tmp_path, project="p")
    assert record_vault(config, _config_path(), force=False).status == "written"
    assert _config_path().read_text() == (
        f'line_threshold = 300\nvault = "{tmp_path}"\n[components]\n"a/**" = "A"\n')
    assert load_config(project="p").components == {"a/**": "A"}


def test_the_notice_is_for_a_vault_the_config_did_not_choose(tmp_path: Path) -> None:
    path = _config_path()
    assert notice(load_config(vault=tmp_path, project="p"), path) == (
        f"vaultmem: vault {tmp_path} (from --vault, not {path}'s)")
    path.parent.mkdir(parents=True)
    path.write_text(f'vault = "{tmp_path}"\n')
    assert notice(load_config(project="p"), path) is None


def test_every_json_document_names_the_vault(vault_root: Path, now_env: str) -> None:
    base = ["--vault", str(vault_root), "--project", "shop"]
    for args in (["init", "--json"], ["session", "start", "--json"], ["status", "--json"],
                 ["doctor", "--json"], ["recall", "x", "--json"], ["compact", "--json"],
                 ["context", "--json"], ["review", "--json"], ["install-hooks", "--check", "--json"]):
        result = CliRunner().invoke(app, [*base, *args])
        assert json.loads(result.stdout)["vault"] == str(vault_root), args


@pytest.mark.parametrize("name", ["two\nlines", 'quote " and \\ back', "tab\there", "ünï ✓",
                                  "bell\x07 del\x7f", "'single' [x] = y # z"])
def test_any_folder_name_the_filesystem_allows_is_written_as_valid_toml(
    tmp_path: Path, name: str
) -> None:
    vault = tmp_path / name
    first = CliRunner().invoke(app, ["--vault", str(vault), "--project", "p", "init"])
    assert first.exit_code == 0, first.stderr
    text = _config_path().read_text("utf-8")
    assert text.count("\n") == 1 and text.startswith("vault = ")  # one line, whatever the name
    assert load_config(project="p").vault == vault
    status = CliRunner().invoke(app, ["--project", "p", "status", "--json"])
    assert status.exit_code == 0 and json.loads(status.stdout)["vault"] == str(vault)


def test_a_hook_finds_a_vault_whose_path_holds_a_newline(tmp_path: Path) -> None:
    import subprocess
    import sys

    from vaultmem.claude.install import runner

    vault = tmp_path / "my\nvault"
    env = {k: v for k, v in os.environ.items() if not k.startswith("VAULTMEM_")}
    done = subprocess.run([*runner(sys.executable), "--vault", str(vault), "--project", "p",
                           "init"], capture_output=True, text=True, env=env, timeout=60,
                          check=False)
    assert done.returncode == 0, done.stderr
    (tmp_path / "t.jsonl").write_text("")
    payload = {"session_id": "s-nl", "transcript_path": str(tmp_path / "t.jsonl"),
               "cwd": str(tmp_path), "hook_event_name": "SessionStart", "source": "startup"}
    hook = subprocess.run([*runner(sys.executable), "hook", "session-start"],
                          input=json.dumps(payload), capture_output=True, text=True, env=env,
                          cwd=tmp_path, timeout=60, check=False)
    assert hook.returncode == 0 and hook.stderr == "", hook.stderr
    assert list((vault / "claude").rglob("sessions/*.md")), "the hook wrote nothing"


@pytest.mark.parametrize("path, said", [
    ("/tmp/a\x00b", "NUL"),
    ("/tmp/caf\udcff", "not valid UTF-8"),
])
def test_only_a_nul_or_a_lone_surrogate_is_refused_in_one_line(path: str, said: str) -> None:
    config = load_config(vault=Path(path), project="p")
    with pytest.raises(ConfigError) as caught:
        record_vault(config, _config_path(), force=False)
    assert said in str(caught.value) and "\n" not in str(caught.value)
    assert not _config_path().exists()
