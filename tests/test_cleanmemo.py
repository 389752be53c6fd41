"""The briefing's redaction, skipped only for a text it already found clean (brief/cleanmemo)."""

from __future__ import annotations

from pathlib import Path

import pytest

from vaultmem.brief import cleanmemo
from vaultmem.notes import redact
from vaultmem.notes.redact import Redaction
from vaultmem.store import machine

CLEAN = "## Recent sessions\n- Decided to keep the queue bounded\n"
SECRET = "- the deploy token is ghp_1234567890abcdefghijklmnopqrstuvwxyZ\n"


@pytest.fixture
def calls(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    seen: list[str] = []
    real = redact.redact

    def counted(text: str, *, allow: tuple[str, ...] = ()) -> str:
        seen.append(text)
        return real(text, allow=allow)

    monkeypatch.setattr(redact, "redact", counted)
    return seen


def test_a_clean_text_is_redacted_once(tmp_path: Path, calls: list[str]) -> None:
    assert cleanmemo.redacted(CLEAN, Redaction(), tmp_path) == CLEAN
    assert cleanmemo.redacted(CLEAN, Redaction(), tmp_path) == CLEAN
    assert calls == [CLEAN]
    assert (machine.host_dir(tmp_path) / cleanmemo.MEMO_NAME).is_file()


def test_a_text_with_a_secret_is_redacted_every_time(tmp_path: Path, calls: list[str]) -> None:
    for _ in range(2):
        out = cleanmemo.redacted(CLEAN + SECRET, Redaction(), tmp_path)
        assert "ghp_" not in out and "redacted" in out
    assert len(calls) == 2
    assert not (machine.host_dir(tmp_path) / cleanmemo.MEMO_NAME).exists()


def test_other_settings_are_another_key(tmp_path: Path, calls: list[str]) -> None:
    cleanmemo.redacted(CLEAN, Redaction(), tmp_path)
    cleanmemo.redacted(CLEAN, Redaction(allow=("x",)), tmp_path)
    cleanmemo.redacted(CLEAN + "more\n", Redaction(), tmp_path)
    assert len(calls) == 3


def test_a_changed_rule_forgets_what_was_clean(tmp_path: Path, calls: list[str],
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    cleanmemo.redacted(CLEAN, Redaction(), tmp_path)
    monkeypatch.setattr(cleanmemo, "_fingerprint", lambda: "rules of a newer vaultmem")
    cleanmemo.redacted(CLEAN, Redaction(), tmp_path)
    assert len(calls) == 2


def test_the_fingerprint_is_of_the_redaction_modules() -> None:
    found = cleanmemo._fingerprint()
    assert "redact.py:" in found and "secretcontext.py:" in found


def test_redaction_off_is_off(tmp_path: Path, calls: list[str]) -> None:
    assert cleanmemo.redacted(SECRET, Redaction(enabled=False), tmp_path) == SECRET
    assert calls == []


def test_an_unwritable_state_folder_still_redacts(tmp_path: Path, calls: list[str]) -> None:
    state = tmp_path / "state"
    state.write_text("a file where the folder should be")
    assert cleanmemo.redacted(CLEAN, Redaction(), state) == CLEAN
    assert cleanmemo.redacted(CLEAN, Redaction(), state) == CLEAN
    assert len(calls) == 2
