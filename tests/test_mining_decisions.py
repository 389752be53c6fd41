"""Decisions said in the shapes real sessions say them (mining/kinds, cues): each rule taken
with a made-up example, and its near-miss (thinking aloud, a question, a hedge, a symptom) not."""

from __future__ import annotations

import pytest

from vaultmem.mining.answers import mine
from vaultmem.notes.schema import Kind


def _kinds(text: str) -> list[Kind]:
    return [item.kind for item in mine(text)]


@pytest.mark.parametrize("text", [
    # An option named by its letter or number is the one picked, not a hedge over options.
    "Went with option B since it needs no root.",
    # The change stated as the new state, with what it replaced.
    "All the build scripts now use `python3` instead of `python`.",
    "Instead of blocking the commit, the pre-commit hook now redacts each secret in place.",
    # How a thing works, the way it does not, and why.
    ("The poller reads the sysfs counters directly rather than shelling out to `sensors`, since "
     "it runs three times a second."),
    # A config value with its reason, or beside its old value.
    "I set the upload timeout to 90 seconds because the gateway is slow at night.",
    "Pinned `wombat` to 1.26 since 2.0 drops the wheels for our platform.",
    "Entropy threshold: 3.5 → 3.0 (more sensitive)",
    "`worker_pool` size: 4 -> 8, the queue kept backing up.",
    # A summary's line with its subject left out, and its reason.
    "Migrated from cron to systemd timers, which survive reboots.",
    "Kept the v1 endpoint so old clients keep working.",
    ("Made the lint workflows non-blocking with `continue-on-error: true` so a finding never "
     "fails the build."),
    # The first person, the present, and a reason.
    "I'm using a channel-based subscription because the timer one never fired.",
    # The passive with the choosing verb.
    "`uv` was chosen over pip for its resolver speed.",
    # A topic that is itself the choice.
    "Decided against Redis: a dict in memory is enough at this size.",
])
def test_a_decision_said_as_a_choice_a_change_or_a_value_is_taken(text: str) -> None:
    assert _kinds(text) == [Kind.DECISION]


@pytest.mark.parametrize("text", [
    "Let me try the other option instead.",
    "The test now fails instead of passing.",
    "Every request now hits Redis once instead of Postgres twice.",
    "Then the script now runs instead of failing.",
    "The parser raises rather than returning None, since the input is empty.",
    "I might set the timeout to 30 seconds if the upstream stays slow.",
    "You could set the timeout to 60 seconds to be safe.",
    "Set the timeout to 30 seconds.",
    "Error rate: 5% → 1%",
    "Memory usage: 3.2 GB → 1.1 GB",
    "Total findings: 632 → 16,684",
    "Which option is chosen depends on the platform.",
    "Should I set the timeout to 30 seconds because the API is slow?",
    "Kept running into the same error so I restarted the daemon.",
    "Made sure the tests pass so we can merge.",
    "Moved on to the next file so it can be reviewed.",
    "I'm using grep to find the call sites.",
    "Consider migrating from cron to systemd timers.",
])
def test_thinking_aloud_a_hedge_a_question_or_a_symptom_is_no_decision(text: str) -> None:
    assert Kind.DECISION not in _kinds(text)


@pytest.mark.parametrize(("text", "expected"), [
    ("## Technical decisions\n\n- SQLite in WAL mode for the history\n- One writer task",
     ["SQLite in WAL mode for the history", "One writer task"]),
    ("### Design choices\n- Polling over inotify, the sysfs files emit no events",
     ["Polling over inotify, the sysfs files emit no events"]),
    ("**Chosen approach:** poll the counters from one task.", ["Poll the counters from one task."]),
    ("Final choice: rustup, for per-project toolchains.", ["Rustup, for per-project toolchains."]),
])
def test_a_heading_or_label_naming_the_choices_made_gives_decisions(
        text: str, expected: list[str]) -> None:
    assert [(m.kind, m.text) for m in mine(text)] == [(Kind.DECISION, e) for e in expected]


@pytest.mark.parametrize("text", [
    "## Choices\n\n- Redis\n- SQLite\n\nWhich one do you want?",
    "## Decisions needed\n\n- Which database the cache uses",
    "Choice: Redis or SQLite?",
])
def test_choices_offered_or_still_to_make_are_no_decisions(text: str) -> None:
    assert Kind.DECISION not in _kinds(text)


@pytest.mark.parametrize("text", [
    "Blocky now forwards to the Mullvad resolver instead of cloudflared.",
    "The sync now runs from launchd rather than cron.",
    "The exporter now excludes the archive folder instead of scanning it twice.",
])
def test_a_new_state_said_with_a_config_verb_and_what_it_replaced_is_a_decision(
        text: str) -> None:
    assert _kinds(text) == [Kind.DECISION]


def test_a_design_move_whose_reason_says_what_no_longer_happens_is_a_decision() -> None:
    for text in ("Disabled the `screen` service so the log doesn't fill with its errors.",
                 "Moved the token into the keychain so it isn't in the dotfiles repo."):
        assert _kinds(text) == [Kind.DECISION], text
    for text in ("I ran the tests so we can see what fails.",
                 "Updated the README so it doesn't mention the old path.",
                 "Set the timeout so it doesn't hang."):
        assert mine(text) == (), text


def test_a_summary_bullets_change_with_its_why_after_a_dash_is_a_decision() -> None:
    text = """## Changes

- **Disabled Spotlight on `~/Archives`** — it was re-indexing 20k files on every sync
- **Pinned `node` to 20** — the native addon doesn't build on 22 yet
- **Kept `kmod-wwan`** – `gl-sdk4-system` depends on it
- **Added tests** — 12 new tests for the parser
- **Removed the banner** - added a quieter notice instead
- **Updated README** — the install section is new
"""
    assert [m.text for m in mine(text)] == [
        "Disabled Spotlight on `~/Archives` — it was re-indexing 20k files on every sync",
        "Pinned `node` to 20 — the native addon doesn't build on 22 yet",
        "Kept `kmod-wwan` – `gl-sdk4-system` depends on it"]
    assert mine("I made an error - the function is called `list_all`, not `get_all`.") == ()


def test_what_a_kept_lead_in_lists_with_why_is_a_decision() -> None:
    text = """Removed the cellular packages.

✓ Preserved:
- `kmod-wwan` (kernel module required by `gl-sdk4-system`)
- `ovpn-ui` (server UI)
- `kmod-dco` (kernel module, may be used by the server)

Removed:
- `modem` (required by nothing now)
"""
    assert [(m.kind, m.text) for m in mine(text)] == [
        (Kind.DECISION, "Preserved: `kmod-wwan` (kernel module required by `gl-sdk4-system`)")]
