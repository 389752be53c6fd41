"""Shared test set-up: no test touches the real home, config or vault."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from transcript_kit import Transcript

FIXTURES = Path(__file__).parent / "fixtures"
CLAUDE_FIXTURES = FIXTURES / "claude-code"  # copied from shared/fixtures: real Claude Code 2.1 payloads


FULL_SUITE_ENV = "VAULTMEM_FULL_SUITE"  # CI (.ci/run) sets it: every test runs


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--slow", action="store_true", default=False,
                     help="also run the long reliability tests (marker slow)")
    parser.addoption("--e2e", action="store_true", default=False,
                     help="also run the tests that drive the real Claude Code CLI (marker e2e)")


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """``-n auto``: a worker more than the cores. Many tests wait more than they compute (an
    editor's save to settle, a lock held by another process, a hook's stdin deadline); a third
    worker on two cores runs CPU work meanwhile (default run: 3:00 -> 2:40 on 2 cores)."""
    import os

    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return (cores or 1) + 1


def pytest_configure(config: pytest.Config) -> None:
    """``--slow`` runs every property test's whole count of examples too (``property_kit``);
    the test modules that read it are imported after this. The processes started from here on
    (xdist workers, the hundreds of vaultmem processes of the tests) write bytecode."""
    import os

    # With PYTHONDONTWRITEBYTECODE set, each vaultmem process compiled every module it imports
    # again (about 0.1 CPU-s a process, a third of the CPU of the subprocess tests) and each
    # xdist worker rewrote every test module's asserts again (about 4 CPU-s a worker).
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    if config.getoption("--slow"):
        import property_kit

        property_kit.full = True


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """A contributor's `pytest -q` leaves out minutes of stress and the real Claude Code CLI;
    --slow / --e2e (or VAULTMEM_FULL_SUITE=1, as CI does) bring them back."""
    import os

    full = os.environ.get(FULL_SUITE_ENV, "") not in ("", "0")
    for marker in ("slow", "e2e"):
        if full or config.getoption(f"--{marker}"):
            continue
        skip = pytest.mark.skip(reason=f"{marker}: run with --{marker} or {FULL_SUITE_ENV}=1")
        for item in items:
            if marker in item.keywords:
                item.add_marker(skip)


@pytest.fixture(autouse=True)
def _isolated_env(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Point HOME and XDG_CONFIG_HOME at a temp dir and clear vaultmem's variables."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    for name in (
        "VAULTMEM_VAULT",
        "VAULTMEM_PROJECT",
        "VAULTMEM_NOW",
        "VAULTMEM_FAULT",
        "VAULTMEM_EXTRACTOR",
        "VAULTMEM_MODEL",
        "VAULTMEM_SESSION_END_DEADLINE",
        "ANTHROPIC_API_KEY",
        "ANTHROPIC_BASE_URL",
    ):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def vault_root(tmp_path: Path) -> Path:
    """An empty vault folder."""
    root = tmp_path / "vault"
    root.mkdir()
    return root


@pytest.fixture
def env(vault_root: Path, now_env: str, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Hooks called in-process read the vault and the clock from the environment."""
    monkeypatch.setenv("VAULTMEM_VAULT", str(vault_root))
    return vault_root


@pytest.fixture
def log(tmp_path: Path) -> Transcript:
    """A transcript file to write records into, as Claude Code does."""
    from transcript_kit import Transcript

    return Transcript(tmp_path / "transcript.jsonl")


@pytest.fixture
def now_env(monkeypatch: pytest.MonkeyPatch) -> str:
    """Fix the clock at 2026-11-22 10:30 local time."""
    value = "2026-11-22T10:30:00"
    monkeypatch.setenv("VAULTMEM_NOW", value)
    return value
