"""Fixtures that run the real Claude Code CLI offline against the Messages API stand-in.

Each test gets its own HOME (so ``~/.claude``, ``~/.claude.json`` and the plugin cache are
temporary), XDG folders, a git project folder and a stand-in server. ``claude`` is skipped
cleanly when the binary is missing. See README.md in this folder for what was learned about running Claude
Code this way.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import yaml

from .standin import Recorded, StandIn

REPO_ROOT = Path(__file__).resolve().parents[2]
# Read before the autouse fixture of tests/conftest.py moves HOME to a temp folder.
_REAL_HOME = Path(os.path.expanduser("~"))
DEFAULT_CLAUDE_BIN = _REAL_HOME / ".cache" / "vaultmem-claude" / "node_modules" / ".bin" / "claude"
_CLAUDE_BIN_VAR = os.environ.get("VAULTMEM_CLAUDE_BIN")

# -p runs headless: acceptEdits lets Write/Edit through, --allowedTools lets Bash run without a
# prompt. (--dangerously-skip-permissions is refused as root unless IS_SANDBOX=1.)
PERMISSION_ARGS = ("--permission-mode", "acceptEdits", "--allowedTools", "Bash")


def claude_bin() -> Path | None:
    """The Claude Code CLI to drive: VAULTMEM_CLAUDE_BIN, else the cache `.ci/run` installs."""
    path = Path(_CLAUDE_BIN_VAR) if _CLAUDE_BIN_VAR else DEFAULT_CLAUDE_BIN
    return path if path.is_file() and os.access(path, os.X_OK) else None


def vaultmem_command() -> list[str]:
    """How to run this checkout's vaultmem: the venv's console script, else ``python -m``."""
    script = Path(sys.executable).parent / "vaultmem"
    if script.is_file() and os.access(script, os.X_OK):
        return [str(script)]
    return [sys.executable, "-m", "vaultmem"]


@dataclass(frozen=True)
class Run:
    """One ``claude`` invocation: the process, its parsed JSON result, the requests it made."""

    proc: subprocess.CompletedProcess[str]
    result: Mapping[str, Any]
    requests: tuple[Recorded, ...]

    @property
    def session_id(self) -> str:
        """The session id Claude reported (``--output-format json``)."""
        return str(self.result["session_id"])

    @property
    def turns(self) -> list[Recorded]:
        """The conversation requests of this run, in order."""
        return [r for r in self.requests if r.kind == "turn"]


@dataclass
class Claude:
    """A sandboxed Claude Code: temp HOME, project folder, stand-in API, env for subprocesses."""

    bin: Path
    root: Path
    standin: StandIn
    env: dict[str, str] = field(default_factory=dict)

    @property
    def home(self) -> Path:
        """The temp HOME Claude Code runs with."""
        return self.root / "home"

    @property
    def project(self) -> Path:
        """The git project folder Claude Code runs in."""
        return self.root / "project"

    @property
    def settings_path(self) -> Path:
        """User-scope settings.json (`~/.claude/settings.json`)."""
        return self.home / ".claude" / "settings.json"

    def setup(self) -> Claude:
        """Create the folders, the git project and the environment."""
        for sub in (".claude", ".config", ".cache", ".local/share", ".local/state"):
            (self.home / sub).mkdir(parents=True, exist_ok=True)
        self.project.mkdir(parents=True, exist_ok=True)
        subprocess.run(["git", "init", "-q", str(self.project)], check=True, timeout=30)
        shim = self.root / "bin"
        shim.mkdir(exist_ok=True)
        # Plugin hooks and installed hooks may call plain `vaultmem`: make it this checkout's.
        (shim / "vaultmem").write_text(
            "#!/bin/sh\nexec " + " ".join(_sh_quote(a) for a in vaultmem_command()) + ' "$@"\n'
        )
        (shim / "vaultmem").chmod(0o755)
        path = os.pathsep.join(
            [
                str(shim),
                str(Path(sys.executable).parent),
                os.environ.get("PATH", "/usr/local/bin:/usr/bin:/bin"),
            ]
        )
        self.env = {
            "PATH": path,
            "HOME": str(self.home),
            "XDG_CONFIG_HOME": str(self.home / ".config"),
            "XDG_CACHE_HOME": str(self.home / ".cache"),
            "XDG_DATA_HOME": str(self.home / ".local" / "share"),
            "XDG_STATE_HOME": str(self.home / ".local" / "state"),
            "TMPDIR": os.environ.get("TMPDIR", "/tmp"),
            "LANG": "C.UTF-8",
            "TERM": "dumb",
            "ANTHROPIC_BASE_URL": self.standin.url,
            "ANTHROPIC_API_KEY": "dummy",
            "DISABLE_TELEMETRY": "1",
            "DISABLE_AUTOUPDATER": "1",
            "DISABLE_ERROR_REPORTING": "1",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            # `python -m vaultmem` from any folder, when the checkout is not pip-installed.
            "PYTHONPATH": str(REPO_ROOT),
            "GIT_AUTHOR_NAME": "e2e",
            "GIT_AUTHOR_EMAIL": "e2e@example.invalid",
            "GIT_COMMITTER_NAME": "e2e",
            "GIT_COMMITTER_EMAIL": "e2e@example.invalid",
        }
        return self

    def run(
        self,
        args: Sequence[str],
        input: str | None = None,
        timeout: float = 120,
        *,
        cwd: Path | None = None,
        command: Sequence[str] | None = None,
    ) -> subprocess.CompletedProcess[str]:
        """Run ``claude <args>`` (or ``command``) in the project with the sandbox env."""
        argv = [*(command if command is not None else [str(self.bin)]), *args]
        # Own process group: a timeout kills Claude and the hooks it started, nothing else.
        proc = subprocess.Popen(
            argv,
            cwd=cwd or self.project,
            env=self.env,
            text=True,
            start_new_session=True,
            stdin=subprocess.PIPE if input is not None else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        try:
            out, err = proc.communicate(input, timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            out, err = proc.communicate()
            raise AssertionError(f"{argv[:3]} timed out after {timeout}s\n{out}\n{err}") from None
        return subprocess.CompletedProcess(argv, proc.returncode, out, err)

    def prompt(
        self,
        text: str,
        *,
        resume: str | None = None,
        extra: Sequence[str] = (),
        timeout: float = 120,
    ) -> Run:
        """``claude -p TEXT --output-format json`` (optionally ``--resume ID``); must succeed."""
        args = ["-p", text, "--output-format", "json", *PERMISSION_ARGS]
        if resume is not None:
            args += ["--resume", resume]
        before = len(self.standin.requests)
        proc = self.run([*args, *extra], timeout=timeout)
        requests = tuple(self.standin.requests[before:])
        assert proc.returncode == 0, (
            f"claude failed ({proc.returncode})\n{proc.stdout}\n{proc.stderr}"
        )
        try:
            result = json.loads(proc.stdout)
        except ValueError:
            raise AssertionError(f"claude printed no JSON result:\n{proc.stdout}") from None
        assert not result.get("is_error"), result
        return Run(proc, result, requests)

    def compact(self, session_id: str) -> Run:
        """``claude -p "/compact" --resume ID``: fires PreCompact (trigger ``manual``)."""
        return self.prompt("/compact", resume=session_id)

    def vaultmem(self, *args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
        """Run this checkout's vaultmem with the sandbox env (HOME, XDG, VAULTMEM_*)."""
        return self.run(args, timeout=timeout, command=vaultmem_command())

    def settings(self) -> dict[str, Any]:
        """User-scope settings.json, ``{}`` when missing."""
        if not self.settings_path.exists():
            return {}
        data = json.loads(self.settings_path.read_text())
        assert isinstance(data, dict)
        return data

    def write_settings(self, data: Mapping[str, Any]) -> None:
        """Replace user-scope settings.json."""
        self.settings_path.write_text(json.dumps(data, indent=2))

    def install_plugin(self, marketplace_dir: Path) -> str:
        """``claude plugin marketplace add DIR`` + ``claude plugin install NAME@MARKET``."""
        manifest = json.loads((marketplace_dir / ".claude-plugin" / "marketplace.json").read_text())
        market = manifest["name"]
        plugin = manifest["plugins"][0]["name"]
        for args in (
            ["plugin", "marketplace", "add", str(marketplace_dir)],
            ["plugin", "install", f"{plugin}@{market}"],
        ):
            proc = self.run(args, timeout=120)
            assert proc.returncode == 0, f"claude {' '.join(args)}\n{proc.stdout}\n{proc.stderr}"
        return f"{plugin}@{market}"

    def transcript(self, session_id: str) -> Path:
        """The session's JSONL transcript under ``~/.claude/projects/``."""
        found = sorted((self.home / ".claude" / "projects").glob(f"*/{session_id}.jsonl"))
        assert found, f"no transcript for session {session_id}"
        return found[0]


def note_meta(path: Path) -> dict[str, Any]:
    """A note's frontmatter, read with plain YAML (not vaultmem's reader, which is under test)."""
    match = re.match(r"---\n(.*?)\n---\n", path.read_text(encoding="utf-8"), re.DOTALL)
    assert match, f"{path} has no frontmatter"
    meta = yaml.safe_load(match.group(1))
    assert isinstance(meta, dict)
    return meta


def _sh_quote(arg: str) -> str:
    return "'" + arg.replace("'", "'\"'\"'") + "'"


@pytest.fixture
def standin() -> Iterator[StandIn]:
    """A started Messages API stand-in; stopped at teardown."""
    server = StandIn().start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def claude(tmp_path: Path, standin: StandIn) -> Claude:
    """A sandboxed Claude Code wired to the stand-in; skips when the CLI is not installed."""
    binary = claude_bin()
    if binary is None:
        where = _CLAUDE_BIN_VAR or str(DEFAULT_CLAUDE_BIN)
        pytest.skip(f"Claude Code CLI not installed at {where} (.ci/run installs it)")
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    return Claude(binary, tmp_path / "claude", standin).setup()


@pytest.fixture
def run_claude(claude: Claude) -> Any:
    """``run_claude(args, input=None, timeout=120) -> CompletedProcess`` in the sandbox."""
    return claude.run
