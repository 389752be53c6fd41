"""The plugin's own hook launcher (hooks/launch.py): python3 is the only requirement, vaultmem runs
from an environment prepared in the plugin's data folder (issue 21, item 3). Real subprocesses."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from types import ModuleType

import pytest
from hook_kit import REPO, payload, session_notes

LAUNCH = REPO / "hooks" / "launch.py"


def _module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("vaultmem_plugin_launch", LAUNCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _env(data: Path, vault: Path, **extra: str) -> dict[str, str]:
    keep = {k: v for k, v in os.environ.items() if not k.startswith(("VAULTMEM_", "PYTHON"))}
    return {**keep, "CLAUDE_PLUGIN_ROOT": str(REPO), "CLAUDE_PLUGIN_DATA": str(data),
            "VAULTMEM_VAULT": str(vault), "VAULTMEM_NOW": "2026-11-22T10:30:00", **extra}


def _hook(event: str, env: dict[str, str], cwd: Path,
          session_id: str | None = None) -> subprocess.CompletedProcess[bytes]:
    # As Claude Code runs the plugin's command: python3 on the launcher, the payload on stdin.
    sent = payload(event) | ({"session_id": session_id} if session_id else {})
    return subprocess.run([sys.executable, str(LAUNCH), event],
                          input=json.dumps(sent).encode(), env=env, cwd=cwd,
                          capture_output=True, timeout=300, check=False)


def _prepared(data: Path) -> None:
    """An environment as the build leaves it, its python this test's (vaultmem installed)."""
    env = data / "env"
    (env / "bin").mkdir(parents=True)
    python = env / "bin" / "python"
    python.write_text(f"#!/bin/sh\nexec {sys.executable} \"$@\"\n")
    python.chmod(0o755)
    (env / "vaultmem-ready").write_text(_module().fingerprint(str(REPO)) + "\n")


def test_a_prepared_environment_runs_the_hook(tmp_path: Path, vault_root: Path) -> None:
    data = tmp_path / "data"
    _prepared(data)
    proc = _hook("session-start", _env(data, vault_root), tmp_path)
    # The first session of a project: its note made, nothing to tell yet.
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, b"", b"")
    assert len(session_notes(vault_root)) == 1
    # Once the project has memory, the environment's vaultmem briefs the next session.
    remembered = subprocess.run(
        [str(data / "env/bin/python"), "-m", "vaultmem", "--project", "shop", "remember", "Use argon2id",
         "--kind", "decision"], env=_env(data, vault_root), cwd=tmp_path, capture_output=True,
        timeout=300, check=False)
    assert remembered.returncode == 0, remembered.stderr
    assert _hook("session-end", _env(data, vault_root), tmp_path).returncode == 0
    again = _hook("session-start", _env(data, vault_root), tmp_path, session_id="next")
    context = json.loads(again.stdout)["hookSpecificOutput"]["additionalContext"]
    assert context.startswith("vaultmem memory for project") and "Use argon2id" in context


def test_a_plugin_update_prepares_the_environment_again(tmp_path: Path, vault_root: Path) -> None:
    data = tmp_path / "data"
    _prepared(data)
    (data / "env/vaultmem-ready").write_text("an older plugin\n")
    assert not _module().is_ready(str(data), _module().fingerprint(str(REPO)))


def test_a_plugin_update_records_with_the_old_environment_while_one_build_runs(
    tmp_path: Path, vault_root: Path
) -> None:
    data = tmp_path / "data"
    _prepared(data)
    (data / "env/vaultmem-ready").write_text("an older plugin\n")
    env = _env(data, vault_root, VAULTMEM_PLUGIN_PIP_ARGS=FAILING_PIP)

    first = _hook("session-start", env, tmp_path)

    # Recorded with the environment there (no "not recorded" line), one build started.
    assert (first.returncode, first.stderr) == (0, b"")
    assert len(session_notes(vault_root)) == 1
    _wait_build(data)
    assert (data / "build.log").read_text().count("vaultmem: build ") == 1
    # The build failed (no index): the old environment is whole, and still records.
    assert (data / "env/bin/python").is_file() and not list(data.glob("env.new.*"))
    stop = _hook("stop", env, tmp_path)
    assert (stop.returncode, stop.stderr) == (0, b"")
    again = _hook("session-start", env, tmp_path, session_id="later")
    assert (again.returncode, again.stderr) == (0, b"")
    assert (data / "build.log").read_text().count("vaultmem: build ") == 1  # not retried yet
    assert len(session_notes(vault_root)) == 2


def test_first_use_builds_in_the_background_and_says_so_once(
    tmp_path: Path, vault_root: Path
) -> None:
    data = tmp_path / "data"
    # A pip that cannot install (no setuptools in a new venv, no build isolation): the build
    # fails fast, as it would offline, and every hook still exits 0 and writes nothing.
    env = _env(data, vault_root, VAULTMEM_PLUGIN_PIP_ARGS="--no-index --no-build-isolation")
    first = _hook("session-start", env, tmp_path)
    assert first.returncode == 0 and first.stdout == b""
    said = first.stderr.decode()
    assert said.count("\n") == 1 and said.startswith("vaultmem: ")
    assert ("preparing its Python environment" in said
            or "its environment could not be prepared" in said)
    deadline = time.monotonic() + 240
    while (data / "building.pid").exists() and time.monotonic() < deadline:
        time.sleep(0.5)
    assert (data / "build-failed").is_file() and (data / "build.log").is_file()
    stop = _hook("stop", env, tmp_path)
    assert (stop.returncode, stop.stdout, stop.stderr) == (0, b"", b"")  # said at session start
    again = _hook("session-start", env, tmp_path)
    assert again.returncode == 0
    assert again.stderr.decode().startswith("vaultmem: its environment could not be prepared (")
    assert not any(vault_root.iterdir())


def test_an_old_python3_is_one_line(capsys: pytest.CaptureFixture[str],
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    module = _module()
    monkeypatch.setattr(module, "MIN_PYTHON", (99, 0))
    assert module.main(["launch.py", "stop"]) == 0
    err = capsys.readouterr().err
    assert err == ("vaultmem: needs python3 3.10 or later to record sessions; python3 here is "
                   f"{sys.version_info[0]}.{sys.version_info[1]}\n")


@pytest.mark.slow
def test_a_real_first_use_prepares_the_environment_and_the_next_session_is_recorded(
    tmp_path: Path, vault_root: Path
) -> None:
    data = tmp_path / "data"
    # The plugin as Claude Code's cache holds it: its folder, links followed.
    root = tmp_path / "cache/vaultmem"
    shutil.copytree(REPO / "plugin", root, ignore=shutil.ignore_patterns(
        "__pycache__", "build", "*.egg-info"))
    before = sorted(str(p.relative_to(root)) for p in root.rglob("*"))
    env = {**_env(data, vault_root), "CLAUDE_PLUGIN_ROOT": str(root)}
    _hook("session-start", env, tmp_path)
    deadline = time.monotonic() + 900
    while (data / "building.pid").exists() and time.monotonic() < deadline:
        time.sleep(1)
    assert (data / "env/vaultmem-ready").is_file(), (data / "build.log").read_text()
    proc = _hook("session-start", env, tmp_path)
    assert proc.returncode == 0 and proc.stderr == b""
    assert len(session_notes(vault_root)) == 1
    # Built from a copy: nothing was written into the plugin's folder (no build/, no egg-info).
    assert sorted(str(p.relative_to(root)) for p in root.rglob("*")
                  if "__pycache__" not in p.parts) == before
    assert not list(data.glob("env.*"))  # the build's own folders are gone


def _enable_plugin(home: Path) -> None:
    settings = home / ".claude/settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(json.dumps({"enabledPlugins": {"vaultmem@vaultmem": True}}))


def test_check_reports_a_plugin_whose_environment_failed(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from vaultmem.cli import _load_commands, app

    _load_commands()
    home = Path(os.environ["HOME"])
    _enable_plugin(home)
    data = home / ".claude/plugins/data/vaultmem-vaultmem"
    data.mkdir(parents=True)
    (data / "build-failed").write_text("pip install exited with 1\n")
    result = CliRunner().invoke(app, ["install-hooks", "--check"])
    assert result.exit_code == 1
    assert result.stdout == (
        f"{home}/.claude/settings.json: plugin-hooks-fail: the vaultmem@vaultmem plugin: its "
        f"environment could not be prepared (pip install exited with 1); see {data}/build.log, "
        f"delete {data}/build-failed to try again at the next session\n")


def test_check_reports_a_plugin_without_python3(tmp_path: Path) -> None:
    from vaultmem.claude.installcheck import plugin_problem

    empty = tmp_path / "bin"
    empty.mkdir()
    said = plugin_problem("vaultmem@vaultmem", home=tmp_path, env={"PATH": str(empty)})
    assert said == "its hooks run python3, which is not on PATH: install Python 3.10 or later"
    old = tmp_path / "old"
    old.mkdir()
    (old / "python3.8").write_text("")
    (old / "python3").symlink_to(old / "python3.8")
    (old / "python3.8").chmod(0o755)
    said = plugin_problem("vaultmem@vaultmem", home=tmp_path, env={"PATH": str(old)})
    assert said == ("its hooks run python3, which is 3.8 here: Python 3.10 or later is needed")


# -- one build at a time, its lock never empty, no symlink followed (issue 30 §5) --------------

FAILING_PIP = "--no-index --no-build-isolation"  # the build fails fast, as it would offline


def _wait_build(data: Path) -> None:
    deadline = time.monotonic() + 240
    while (data / "building.pid").exists() and time.monotonic() < deadline:
        time.sleep(0.3)


def test_the_lock_holds_a_live_pid_from_the_moment_it_is_visible(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    module = _module()
    data = tmp_path / "data"
    seen: list[str] = []

    class Spawned:
        pid = 4_000_000  # no such process: what the lock says once the build is named

    def popen(*args: object, **kwargs: object) -> Spawned:
        seen.append((data / "building.pid").read_text())  # the lock, as another hook sees it
        return Spawned()

    monkeypatch.setattr(module.subprocess, "Popen", popen)
    assert module.start_build(str(REPO), str(data), "stamp")
    assert seen == [str(os.getpid())]  # this launcher's pid, never an empty file
    assert module.build_running(str(data)) is False  # the named build is not alive
    assert (data / "building.pid").read_text() == "4000000"
    assert not list(data.glob("*.tmp"))
    # A live lock stops a second start; a dead one is replaced.
    (data / "building.pid").write_text(str(os.getpid()))
    assert not module.start_build(str(REPO), str(data), "stamp")
    (data / "building.pid").write_text("")  # an empty lock (an older launcher's): dead
    assert module.start_build(str(REPO), str(data), "stamp")


def test_concurrent_session_starts_start_one_build(tmp_path: Path, vault_root: Path) -> None:
    data = tmp_path / "data"
    env = _env(data, vault_root, VAULTMEM_PLUGIN_PIP_ARGS=FAILING_PIP)
    body = json.dumps(payload("session-start")).encode()
    procs = [subprocess.Popen([sys.executable, str(LAUNCH), "session-start"], env=env,
                              cwd=tmp_path, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE) for _ in range(6)]
    for proc in procs:
        proc.communicate(body, timeout=300)
        assert proc.returncode == 0
    _wait_build(data)
    log = (data / "build.log").read_text()
    assert log.count("vaultmem: build ") == 1, log
    assert (data / "build-failed").is_file()


def test_a_planted_symlink_in_the_data_folder_is_never_followed(
    tmp_path: Path, vault_root: Path
) -> None:
    data = tmp_path / "data"
    data.mkdir()
    outside = tmp_path / "outside"
    outside.mkdir()
    victim = outside / "victim.txt"
    victim.write_text("keep me\n")
    (data / "build.log").symlink_to(victim)
    (data / "build-failed.0.tmp").symlink_to(victim)  # not a name the launcher uses
    # An environment somewhere else that says it is ready, with its own python.
    planted = outside / "env"
    (planted / "bin").mkdir(parents=True)
    (planted / "bin/python").write_text("#!/bin/sh\necho PLANTED > \"$0.ran\"\n")
    (planted / "bin/python").chmod(0o755)
    (planted / "vaultmem-ready").write_text(_module().fingerprint(str(REPO)) + "\n")
    (data / "env").symlink_to(planted)
    assert not _module().is_ready(str(data), _module().fingerprint(str(REPO)))

    env = _env(data, vault_root, VAULTMEM_PLUGIN_PIP_ARGS=FAILING_PIP)
    first = _hook("session-start", env, tmp_path)
    assert first.returncode == 0 and first.stdout == b""
    _wait_build(data)
    assert victim.read_text() == "keep me\n"  # pip's output did not land there
    assert not (data / "build.log").is_symlink() and "vaultmem: build " in (
        data / "build.log").read_text()
    assert not (planted / "bin/python.ran").exists()
    assert sorted(p.name for p in planted.iterdir()) == ["bin", "vaultmem-ready"]  # untouched
    assert not (data / "env").is_symlink()

    # A symlink planted for the failure line is replaced, not written through.
    (data / "build-failed").unlink()
    (data / "build-failed").symlink_to(victim)
    proc = subprocess.run([sys.executable, str(LAUNCH), "--build", str(REPO), str(data)],
                          env=env, capture_output=True, timeout=300, check=False)
    assert proc.returncode == 1
    assert victim.read_text() == "keep me\n"
    assert not (data / "build-failed").is_symlink() and (data / "build-failed").read_text()
