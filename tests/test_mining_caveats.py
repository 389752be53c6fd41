"""mining/caveats: a step said to be unneeded with why, a fault named then stated, a rule with
what breaks without it, a flagged finding; and their near-misses (Claude's own need, a status,
a guess, a move) that stay out."""

from __future__ import annotations

import pytest

from vaultmem.mining.answers import mine
from vaultmem.notes.schema import Kind


def _kinds(text: str) -> list[Kind]:
    return [item.kind for item in mine(text)]


@pytest.mark.parametrize("text", [
    "You don't need to run `bun install`: Bun resolves the imports at run time.",
    "No `bun install` needed: there's no `package.json`, Bun resolves the imports itself.",
    "tmux isn't needed here: Claude Code keeps the session itself.",
    "Since the service reloads on SIGHUP, there's no need to restart it.",
    "There's no need for a migration, because the column already defaults to null.",
    "This is a known limitation of WSL2: file watching doesn't cross the Windows boundary.",
    "It's a macOS quirk: `sudo` in a pipe can't prompt for the password.",
    "The statusline script has to be executable, otherwise Claude Code shows nothing.",
    "The cookie has to carry `SameSite=None`; otherwise Safari drops it on the redirect.",
    "**Key finding:** the PIV slot 9a was empty, so pairing had nothing to use.",
])
def test_a_caveat_said_in_an_answer_is_a_gotcha(text: str) -> None:
    assert _kinds(text) == [Kind.GOTCHA]


@pytest.mark.parametrize("text", [
    "No need to restart.",
    "I don't need to check the logs, since the test covers it.",
    "We don't need to worry about that now, the tests pass.",
    "No changes needed: the config already points at the new host.",
    "No action needed — everything is up to date.",
    "You don't need to do anything else — it's all set up.",
    "There's no need for that, it works already.",
    "Let me check whether `bun install` is needed here: there may be a manifest.",
    "Is `bun install` needed here, since there's no manifest?",
    "This is a bug: let me fix it.",
    "This is a bug in my code: I passed the wrong argument.",
    "I need to restart the server, otherwise the change won't load.",
    "It must be the cache, otherwise the numbers would match.",
    "The problem must be the cache, otherwise the numbers would match.",
    "Now it has to be rebuilt, otherwise nothing changes.",
    "The key is ready - we just need a working agent or to skip signing for now!",
])
def test_a_need_a_guess_a_status_or_a_move_is_no_caveat(text: str) -> None:
    assert mine(text) == (), text


@pytest.mark.parametrize("text", [
    "These fork errors are cosmetic and don't affect functionality.",
    "The `bun install` error is expected: there is no `package.json` in the folder.",
    "The findings in `Archives/*.jsonl` are false positives from base64 API signatures.",
    "The MSYS2 fork warnings are harmless.",
    "`timeout` isn't available on macOS, so the script uses `gtimeout`.",
    "`proxy-dns` was removed in cloudflared 2025.9.",
    "Firewall logging requires admin rights.",
    "The rustup installer needs an interactive terminal to run properly.",
    "Cannot enable firewall logging without sudo.",
    "`brew` refuses to run as root.",
])
def test_a_harmless_error_a_missing_feature_or_a_privilege_said_is_a_gotcha(text: str) -> None:
    assert _kinds(text) == [Kind.GOTCHA]


@pytest.mark.parametrize("text", [
    "The warning is harmless.",
    "That's expected.",
    "These are false positives.",
    "If the warning is harmless, we can ignore it.",
    "The test is expected to fail.",
    "It isn't available on macOS.",
    "The old endpoint was removed in this PR.",
    "I removed it in v2.",
    "I need sudo to enable the firewall log.",
    "Let me run it with sudo.",
    "I can't run sudo commands interactively, but I can tell you the command to run.",
    "This requires sudo.",
    "The script needs a password for the database.",
])
def test_a_vague_or_own_limit_or_a_move_is_no_gotcha(text: str) -> None:
    assert mine(text) == (), text
