"""install-hooks / uninstall-hooks: merging vaultmem's hooks into Claude Code settings files."""

from __future__ import annotations

import json
import os
import shlex
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from vaultmem.claude import install, installcheck
from vaultmem.errors import ConfigError

OTHER_TOOL = {
    "SessionStart": [
        {
            "matcher": "startup",
            "hooks": [{"type": "command", "command": "other-tool brief", "timeout": 30}],
        }
    ],
    "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "guard.sh"}]}],
}
ORIGINAL: dict[str, Any] = {
    "model": "opus",
    "permissions": {"allow": ["Bash(git:*)"], "deny": []},
    "hooks": OTHER_TOOL,
    "env": {"FOO": "bar"},
}


@pytest.fixture
def dirs(tmp_path: Path) -> tuple[Path, Path]:
    home = tmp_path / "home"
    project = tmp_path / "project"
    home.mkdir()
    project.mkdir()
    return home, project


def write_settings(path: Path, value: Any, *, indent: int = 4) -> bytes:
    path.parent.mkdir(parents=True, exist_ok=True)
    data = json.dumps(value, indent=indent).encode()
    path.write_bytes(data)
    return data


def commands(settings: dict[str, Any], event: str) -> list[str]:
    return [h["command"] for group in settings["hooks"].get(event, []) for h in group["hooks"]]


# --- paths and the hooks block -------------------------------------------------------------------


def test_settings_paths(dirs: tuple[Path, Path]) -> None:
    home, project = dirs
    assert (
        install.settings_path("user", home=home, project_dir=project)
        == home / ".claude/settings.json"
    )
    assert (
        install.settings_path("project", home=home, project_dir=project)
        == project / ".claude/settings.json"
    )
    assert (
        install.settings_path("local", home=home, project_dir=project)
        == project / ".claude/settings.local.json"
    )
    with pytest.raises(ConfigError):
        install.settings_path("global", home=home, project_dir=project)  # type: ignore[arg-type]


def test_vaultmem_hooks_block() -> None:
    hooks = install.vaultmem_hooks()

    assert hooks["SessionStart"] == [
        {"hooks": [{"type": "command", "command": "vaultmem hook session-start", "timeout": 10}]}
    ]
    assert {event: g[0]["hooks"][0]["command"] for event, g in hooks.items()} == {
        "SessionStart": "vaultmem hook session-start",
        "Stop": "vaultmem hook stop",
        "PreCompact": "vaultmem hook pre-compact",
        "SessionEnd": "vaultmem hook session-end",
        "UserPromptSubmit": "vaultmem hook user-prompt-submit",
        "PostToolUseFailure": "vaultmem hook post-tool-use-failure",
    }
    # SessionEnd hooks are cancelled after ~1.5 s by Claude Code: keep ours short.
    assert hooks["SessionEnd"][0]["hooks"][0]["timeout"] == 5
    assert (
        install.vaultmem_hooks("/opt/vm")["Stop"][0]["hooks"][0]["command"] == "/opt/vm hook stop"
    )


# --- pure merge / unmerge ------------------------------------------------------------------------


def test_merge_keeps_other_keys_and_other_tools_hooks() -> None:
    merged = install.merge(ORIGINAL, install.vaultmem_hooks())

    assert merged["model"] == "opus" and merged["env"] == {"FOO": "bar"}
    assert merged["permissions"] == ORIGINAL["permissions"]
    assert commands(merged, "SessionStart") == ["other-tool brief", "vaultmem hook session-start"]
    assert merged["hooks"]["SessionStart"][0] == OTHER_TOOL["SessionStart"][0]
    assert merged["hooks"]["PreToolUse"] == OTHER_TOOL["PreToolUse"]
    assert commands(merged, "SessionEnd") == ["vaultmem hook session-end"]
    assert ORIGINAL["hooks"] is OTHER_TOOL and "Stop" not in OTHER_TOOL  # input not mutated


def test_merge_is_idempotent() -> None:
    once = install.merge(ORIGINAL, install.vaultmem_hooks())
    twice = install.merge(once, install.vaultmem_hooks())
    assert twice == once


def test_merge_updates_an_existing_entry_in_place() -> None:
    settings = {
        "hooks": {
            "Stop": [
                {
                    "hooks": [
                        {"type": "command", "command": "notify-send done"},
                        {"type": "command", "command": "vaultmem hook stop", "timeout": 60},
                    ]
                },
                {"hooks": [{"type": "command", "command": "/usr/local/bin/vaultmem hook stop"}]},
            ]
        }
    }

    merged = install.merge(settings, install.vaultmem_hooks())

    assert merged["hooks"]["Stop"] == [
        {
            "hooks": [
                {"type": "command", "command": "notify-send done"},
                {"type": "command", "command": "vaultmem hook stop", "timeout": 10},
            ]
        },
    ]


def test_merge_refuses_hooks_that_are_not_an_object() -> None:
    with pytest.raises(ConfigError):
        install.merge({"hooks": ["x"]}, install.vaultmem_hooks())
    with pytest.raises(ConfigError):
        install.merge({"hooks": {"Stop": "x"}}, install.vaultmem_hooks())


def test_unmerge_removes_exactly_vaultmems_entries() -> None:
    merged = install.merge(ORIGINAL, install.vaultmem_hooks())
    assert install.unmerge(merged) == ORIGINAL
    assert install.unmerge(install.merge({}, install.vaultmem_hooks())) == {}


def test_unmerge_keeps_lookalikes_and_empty_lists_it_did_not_empty() -> None:
    settings = {
        "hooks": {
            "Stop": [
                {
                    "hooks": [
                        {"type": "command", "command": "echo vaultmem hook stop"},
                        {"type": "command", "command": "vaultmem-other hook stop"},
                        {"type": "command", "command": "vaultmem hook stop"},
                    ]
                }
            ],
            "Notification": [],
        }
    }

    result = install.unmerge(settings)

    assert result == {
        "hooks": {
            "Stop": [
                {
                    "hooks": [
                        {"type": "command", "command": "echo vaultmem hook stop"},
                        {"type": "command", "command": "vaultmem-other hook stop"},
                    ]
                }
            ],
            "Notification": [],
        }
    }


def test_unmerge_with_a_configured_command() -> None:
    merged = install.merge({}, install.vaultmem_hooks("uvx vaultmem"))
    assert commands(merged, "Stop") == ["uvx vaultmem hook stop"]
    assert install.unmerge(merged) == merged  # not recognised without the command...
    assert install.unmerge(merged, command="uvx vaultmem") == {}  # ...removed with it


# --- install / uninstall on disk -----------------------------------------------------------------


def test_install_creates_a_fresh_file(dirs: tuple[Path, Path]) -> None:
    home, project = dirs

    result = install.install("user", home=home, project_dir=project)

    path = home / ".claude" / "settings.json"
    assert result == install.InstallResult(path, True, None, result.diff, False)
    text = path.read_text(encoding="utf-8")
    assert text.endswith("}\n") and '\n  "hooks": {\n    "SessionStart"' in text
    assert json.loads(text) == {"hooks": install.vaultmem_hooks()}
    assert result.diff.startswith("--- /dev/null\n")
    assert not list(path.parent.glob("*.vmtmp")) and not list(path.parent.glob(".*.vmtmp"))


def test_install_into_existing_file_keeps_everything_and_backs_up(dirs: tuple[Path, Path]) -> None:
    home, project = dirs
    path = project / ".claude" / "settings.local.json"
    original = write_settings(path, ORIGINAL)
    os.chmod(path, 0o600)

    result = install.install("local", home=home, project_dir=project)

    assert result.changed and result.backup == path.with_name("settings.local.json.vaultmem-backup")
    assert result.backup.read_bytes() == original
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    new = json.loads(path.read_text(encoding="utf-8"))
    assert new == install.merge(ORIGINAL, install.vaultmem_hooks())
    assert commands(new, "SessionStart") == ["other-tool brief", "vaultmem hook session-start"]
    assert '+    "SessionEnd": [' in result.diff
    assert '-    "model": "opus",' in result.diff  # 4-space original re-indented to 2


def test_install_twice_gives_the_same_bytes_and_no_second_write(dirs: tuple[Path, Path]) -> None:
    home, project = dirs
    path = project / ".claude" / "settings.json"
    write_settings(path, ORIGINAL)
    install.install("project", home=home, project_dir=project)
    first = path.read_bytes()
    backup = path.with_name("settings.json.vaultmem-backup").read_bytes()
    mtime = path.stat().st_mtime_ns

    again = install.install("project", home=home, project_dir=project)

    assert again == install.InstallResult(path, False, None, "", False)
    assert path.read_bytes() == first
    assert path.stat().st_mtime_ns == mtime
    assert path.with_name("settings.json.vaultmem-backup").read_bytes() == backup


def test_uninstall_restores_the_original_content(dirs: tuple[Path, Path]) -> None:
    home, project = dirs
    path = home / ".claude" / "settings.json"
    write_settings(path, ORIGINAL)
    install.install("user", home=home, project_dir=project)

    result = install.uninstall("user", home=home, project_dir=project)

    assert result.changed
    assert json.loads(path.read_text(encoding="utf-8")) == ORIGINAL
    assert '-            "command": "vaultmem hook stop",' in result.diff
    assert install.uninstall("user", home=home, project_dir=project).changed is False


def test_uninstall_without_a_file_creates_nothing(dirs: tuple[Path, Path]) -> None:
    home, project = dirs
    result = install.uninstall("project", home=home, project_dir=project)
    assert result.changed is False
    assert not (project / ".claude").exists()


def test_invalid_json_is_refused_and_left_untouched(dirs: tuple[Path, Path]) -> None:
    home, project = dirs
    path = home / ".claude" / "settings.json"
    path.parent.mkdir()
    broken = b'{\n  "model": "opus",\n  "hooks": {,\n}\n'
    path.write_bytes(broken)

    with pytest.raises(ConfigError) as caught:
        install.install("user", home=home, project_dir=project)

    assert caught.value.path == str(path) and caught.value.line == 3
    assert str(caught.value).startswith(f"{path}:3: invalid JSON")
    assert path.read_bytes() == broken
    assert sorted(p.name for p in path.parent.iterdir()) == ["settings.json"]
    with pytest.raises(ConfigError):
        install.uninstall("user", home=home, project_dir=project)
    assert path.read_bytes() == broken


def test_not_an_object_is_refused(dirs: tuple[Path, Path]) -> None:
    home, project = dirs
    path = home / ".claude" / "settings.json"
    path.parent.mkdir()
    path.write_text('["a"]\n')
    with pytest.raises(ConfigError):
        install.install("user", home=home, project_dir=project)
    path.write_text('{"hooks": []}\n')
    with pytest.raises(ConfigError):
        install.install("user", home=home, project_dir=project)
    assert path.read_text() == '{"hooks": []}\n'


def test_dry_run_writes_nothing_and_returns_a_diff(dirs: tuple[Path, Path]) -> None:
    home, project = dirs
    path = project / ".claude" / "settings.json"
    original = write_settings(path, ORIGINAL)

    result = install.install("project", home=home, project_dir=project, dry_run=True)

    assert result.dry_run and result.changed and result.backup is None
    assert '+            "command": "vaultmem hook session-end",' in result.diff
    assert path.read_bytes() == original
    assert sorted(p.name for p in path.parent.iterdir()) == ["settings.json"]

    fresh = install.install("user", home=home, project_dir=project, dry_run=True)
    assert fresh.changed and not (home / ".claude").exists()


def test_empty_file_counts_as_empty_settings(dirs: tuple[Path, Path]) -> None:
    home, project = dirs
    path = home / ".claude" / "settings.json"
    path.parent.mkdir()
    path.write_text("\n")

    install.install("user", home=home, project_dir=project)

    assert json.loads(path.read_text()) == {"hooks": install.vaultmem_hooks()}


def test_symlinked_settings_are_written_through(dirs: tuple[Path, Path], tmp_path: Path) -> None:
    home, project = dirs
    real = tmp_path / "dotfiles" / "claude-settings.json"
    write_settings(real, {"model": "opus"})
    link = home / ".claude" / "settings.json"
    link.parent.mkdir()
    link.symlink_to(real)

    install.install("user", home=home, project_dir=project)

    assert link.is_symlink()
    assert json.loads(real.read_text())["model"] == "opus"
    assert "hooks" in json.loads(real.read_text())


# --- the command written, the forms recognised, the check ----------------------------------------


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("vaultmem hook stop", "stop"),  # what vaultmem wrote before it wrote paths
        ("/usr/local/bin/vaultmem hook stop", "stop"),
        ("'/home/a b/.venv/bin/vaultmem' --vault '/v x' --project shop hook session-end",
         "session-end"),
        ("/usr/bin/python3 -m vaultmem --vault=/v hook pre-compact", "pre-compact"),
        ("'/opt/my py/bin/python3.12' -m vaultmem hook session-start", "session-start"),
        ("echo vaultmem hook stop", None),
        ("vaultmem-other hook stop", None),
        ("vaultmem hook stopped", None),
        ("vaultmem hook stop; rm -rf ~", None),
        ("vaultmem --verbose hook stop", None),
        ("'/unbalanced/vaultmem hook stop", None),
        ("uvx vaultmem hook stop", None),
    ],
)
def test_hook_name_recognises_every_form_vaultmem_wrote(text: str, name: str | None) -> None:
    assert install.hook_name(text) == name


def test_hook_prefix_quotes_for_the_shell_and_makes_the_vault_absolute(tmp_path: Path) -> None:
    prefix = install.hook_prefix(["/a b/bin/vaultmem"], vault="rel vault", project="it's")
    words = shlex.split(prefix)
    assert words == ["/a b/bin/vaultmem", "--vault", os.path.abspath("rel vault"), "--project",
                     "it's"]
    assert install.hook_name(f"{prefix} hook stop") == "stop"


def test_runner_is_the_console_script_next_to_the_interpreter_else_dash_m(tmp_path: Path) -> None:
    bin_dir = tmp_path / "a venv" / "bin"
    bin_dir.mkdir(parents=True)
    python = bin_dir / "python"
    python.write_text("")
    assert install.runner(str(python)) == [str(python), "-P", "-m", "vaultmem"]
    script = bin_dir / "vaultmem"
    script.write_text("#!/bin/sh\nexec python -c 'from vaultmem.launcher import main'\n")
    script.chmod(0o755)
    assert install.runner(str(python)) == [str(script)]
    script.write_text("#!/bin/sh\necho someone else's tool\n")  # not ours: not used
    assert install.runner(str(python)) == [str(python), "-P", "-m", "vaultmem"]


def test_merge_with_another_vault_replaces_and_unmerge_removes_every_form() -> None:
    first = install.merge(ORIGINAL, install.vaultmem_hooks(install.hook_prefix(["/x/vaultmem"],
                                                                               vault="/v1")))
    second = install.merge(first, install.vaultmem_hooks(install.hook_prefix(["/x/vaultmem"],
                                                                             vault="/v2")))
    assert commands(second, "Stop") == ["/x/vaultmem --vault /v2 hook stop"]
    mixed = install.merge(second, {"Stop": [{"hooks": [
        {"type": "command", "command": "vaultmem hook stop"}]}]})
    assert commands(mixed, "Stop") == ["vaultmem hook stop"]  # replaced again, not added
    assert install.unmerge(second) == ORIGINAL


def test_check_finds_a_gone_program_and_hooks_twice(dirs: tuple[Path, Path]) -> None:
    home, project = dirs
    user = home / ".claude/settings.json"
    user.parent.mkdir(parents=True)
    hooks = install.vaultmem_hooks("'/gone venv/bin/vaultmem' --vault /v")
    user.write_text(json.dumps({"hooks": hooks, "enabledPlugins": {"vaultmem@vaultmem": True}}))

    findings = installcheck.check(home=home, project_dir=project)

    assert [f.kind for f in findings] == ["hook-command-missing", "hooks-twice"]
    assert "/gone venv/bin/vaultmem no longer exists" in findings[0].message
    assert "vaultmem@vaultmem" in findings[1].message and "twice" in findings[1].message


def test_check_runs_the_program(dirs: tuple[Path, Path], tmp_path: Path) -> None:
    home, project = dirs
    broken = tmp_path / "bin" / "vaultmem"
    broken.parent.mkdir()
    broken.write_text("#!/bin/sh\necho 'ModuleNotFoundError: No module named vaultmem' >&2\nexit 1\n")
    broken.chmod(0o755)
    local = project / ".claude/settings.local.json"
    local.parent.mkdir(parents=True)
    local.write_text(json.dumps({"hooks": install.vaultmem_hooks(str(broken))}))

    (finding,) = installcheck.check(home=home, project_dir=project)

    assert finding.kind == "hook-command-fails" and finding.path == local
    assert finding.message.endswith("does not run: ModuleNotFoundError: No module named vaultmem")
    assert installcheck.check(home=home, project_dir=project, run_commands=False) == []


def test_a_python_dash_m_hook_never_imports_the_projects_own_vaultmem_folder(
    tmp_path: Path,
) -> None:
    """install-hooks writes ``<python> -P -m vaultmem``: Claude Code runs it in the project,
    and a project with a ``vaultmem/`` folder of its own must not shadow the package."""
    project = tmp_path / "project"
    (project / "vaultmem").mkdir(parents=True)
    (project / "vaultmem" / "__init__.py").write_text("")
    (project / "vaultmem" / "__main__.py").write_text(
        "import pathlib\npathlib.Path('SHADOWED').write_text('ran')\n")
    program = install.runner(sys.executable)
    if len(program) == 1:  # a console script: no -m, nothing to shadow
        program = [sys.executable, "-P", "-m", "vaultmem"]
    prefix = install.hook_prefix(program, vault=str(tmp_path / "vault"))
    command = f"{prefix} hook stop"
    assert install.hook_name(command) == "stop"  # vaultmem's own form, found again
    done = subprocess.run(command, shell=True, cwd=project, input=b"{}", capture_output=True,
                          timeout=120, check=False,
                          env={**os.environ, "PYTHONPATH": str(Path(install.__file__).parents[2])})
    assert done.returncode == 0, done.stderr
    assert not (project / "SHADOWED").exists()


def test_check_finds_an_install_without_the_moment_hooks_and_install_adds_them(
    dirs: tuple[Path, Path],
) -> None:
    home, project = dirs
    user = home / ".claude/settings.json"
    user.parent.mkdir(parents=True)
    older = {event: groups for event, groups in install.vaultmem_hooks().items()
             if event not in ("UserPromptSubmit", "PostToolUseFailure")}
    user.write_text(json.dumps({"hooks": older}))

    findings = installcheck.check(home=home, project_dir=project, run_commands=False)
    install.install("user", home=home, project_dir=project)
    after = installcheck.check(home=home, project_dir=project, run_commands=False)
    removed = install.uninstall("user", home=home, project_dir=project)

    (missing,) = [f for f in findings if f.kind == "hook-events-missing"]
    assert "UserPromptSubmit, PostToolUseFailure" in missing.message
    assert "vaultmem install-hooks" in missing.message and missing.path == user
    assert "hook-events-missing" not in [f.kind for f in after]
    assert removed.changed and "hooks" not in json.loads(user.read_text())
