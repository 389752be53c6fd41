"""Attacks (issue 23 §5): resources and settings. A session is never lost for want of a name
(1,100 runs of the same prompt in one day), and Claude Code's settings.json keeps its numbers as
written when vaultmem edits it (``1e400`` written back as ``Infinity`` is not JSON)."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import datetime
from pathlib import Path

import pytest
from hook_kit import NOW, REPO

from vaultmem.memory import sessionnames
from vaultmem.memory.sessions import Memory
from vaultmem.store.config import Config
from vaultmem.store.vault import Vault


def _now() -> datetime:
    return datetime.fromisoformat(NOW).astimezone()


def test_a_session_is_never_lost_for_want_of_a_name(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The numbered names run out after NUMBERED_NAMES; a smaller count is the same attack.
    monkeypatch.setattr(sessionnames, "NUMBERED_NAMES", 5)
    root = tmp_path / "vault"
    root.mkdir(exist_ok=True)  # hooks create only the default vault
    m = Memory(Config(vault=root, project="shop"), Vault(root))
    notes = [m.start_session(f"sid-{n:04d}-same", topic="fix the flaky test", now=_now()).note
             for n in range(40)]
    assert len(set(notes)) == 40
    names = [Path(n).stem for n in notes]
    assert names[:5] == ["2026-11-22-fix-the-flaky-test",
                         *(f"2026-11-22-fix-the-flaky-test-{n}" for n in range(2, 6))]
    assert "2026-11-22-fix-the-flaky-test-sid-0005-sam" in names


@pytest.mark.parametrize("number", ["1e400", "-1e400", "1E5", "1.50", "0.1000000000000000055511",
                                    "123456789012345678901234567890"])
def test_settings_numbers_round_trip_as_written(number: str, tmp_path: Path) -> None:
    home = tmp_path / "home"
    settings = home / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text('{\n  "model": "x",\n  "cleanupPeriodDays": ' + number
                        + ',\n  "nested": {"a": [' + number + ']}\n}\n')
    done = subprocess.run([sys.executable, "-m", "vaultmem", "install-hooks"], text=True,
                          capture_output=True, cwd=tmp_path, timeout=120, check=False,
                          env={"HOME": str(home), "PATH": "/usr/bin:/bin",
                               "PYTHONPATH": str(REPO)})
    assert done.returncode == 0, done.stderr
    text = settings.read_text()

    def refuse(name: str) -> None:
        raise ValueError(name)

    data = json.loads(text, parse_constant=refuse)  # strict JSON: no Infinity, no NaN
    assert "hooks" in data
    assert f'"cleanupPeriodDays": {number},' in text and f'"a": [\n      {number}\n' in text
