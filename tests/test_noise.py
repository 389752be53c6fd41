"""notes.noise: the lines recall ranks after every line that says something."""

from __future__ import annotations

import pytest

from vaultmem.notes.noise import is_noise


@pytest.mark.parametrize("line", [
    "### 20:39 - Session End",
    "### 10:00 - why does the \x02build\x03 fail",
    "## Decisions Made",
    "Reason: prompt_input_exit",
    "**Answer:** Done.",
    "status: active",
    "Project cosmic]], started 2026-01-17 20:22. Working directory `/home/u`.",
    "> [!abstract]- Claude's answer (12 lines)",
    "- [[Auth]] — `src/auth/`",
    "- 2026-01-01-x]] - Archived session (compacted)",
    "> **[Usage \x02Tracker\x03](https://example.org/usage-tracker?hl=en)** (Chrome)",
    "- [Docs](https://example.org/docs) - the manual",
])
def test_lines_that_say_nothing_of_their_own(line: str) -> None:
    assert is_noise(line, "\x02\x03")


@pytest.mark.parametrize("line", [
    "**Answer:** The build failed because the cache was stale.",
    "> ### 2. Firewall Logging",  # a part of an answer: what follows is its content
    "Cause: a stale lockfile on the mirror",
    "- Fixed the token check in [[Auth]] by calling `verify_token_expiry/2` first",
    "- Failed: `cargo build` — `error[E0425]`",
    "> Cannot enable firewall logging without sudo. You need to run:",
    "- [Docs](https://example.org/docs) say the token expires after an hour of idle time",
    "See [the docs](https://example.org/docs) for the token's lifetime",
])
def test_lines_that_say_something(line: str) -> None:
    assert not is_noise(line)
