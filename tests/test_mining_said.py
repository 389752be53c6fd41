"""mining: the shapes in which any project's answers state a cause, a fix, a caveat or a choice
with its reason (a flagged note, a tool's limit, a gerund's effect, a summary bullet naming its
file), and the progress lines that look like them but are not; one through capture into a
session note."""

from __future__ import annotations

from pathlib import Path

import pytest
from transcript_kit import Transcript, end, note, section, stop

from vaultmem.mining.answers import mine
from vaultmem.notes.schema import Kind


def _kinds(text: str) -> list[Kind]:
    return [m.kind for m in mine(text)]


@pytest.mark.parametrize("text", [
    # a cause said as "the problem:", with "since" and a clause, or by what did not happen
    "The problem: Vite caches the old env file, so changes are not picked up until restart.",
    "The reason: macOS ships BSD sed, whose `-i` needs a suffix argument.",
    "`pnpm install` fails on Node 16 since the lockfile uses the v9 format.",
    "The config didn't load because the path in `settings.toml` was relative.",
    "It initially blocked the push because the test data looked like real API keys.",
    "This error appears when the refresh token has expired.",
    "Tailwind purges classes built by string concatenation, so the dynamic colors disappeared.",
    # a fix stated by its effect, the subject a gerund
    "Adding `export const dynamic = 'force-dynamic'` fixed the stale page.",
    # a flagged caveat
    "**Note:** the token expires after one hour, so the job refreshes it first.",
    "**Important:** `git filter-repo` removes the `origin` remote; re-add it before pushing.",
    "⚠️ Note: a new signing key means commits won't match the existing signed commits.",
    "Keep in mind that `jq -r` prints `null` for missing keys, not an empty string.",
    "Unfortunately, Linux doesn't expose total system power on most laptops.",
    "**Lesson:** the seed script assumes migrations ran first.",
    "Note: the CLI only handles UTF-8 files.",
    "Note: Postgres uses the server timezone when the column has no zone.",
    "Note: the API uses cursor pagination, not offsets.",
    "That's why CI kept failing: the runner has Node 18 and `fetch` is global only from 18.",
    # what a named tool does not do, or does to what it is given
    "Blocky doesn't keep a query list by default - `queryLog` must be configured.",
    "The cron daemon doesn't run under the user's login shell.",
    "Claude Code ignores hooks defined outside `settings.json`.",
    "The payments API only accepts ISO dates with a zone suffix.",
])
def test_a_cause_fix_or_caveat_said_in_an_answer_is_a_gotcha(text: str) -> None:
    assert _kinds(text) == [Kind.GOTCHA], text


@pytest.mark.parametrize("text", [
    ("- **`src/api/client.ts`**: Added retry with backoff because the upstream returns 503 "
     "under load."),
    "- `auth.py` - switched to RS256 since the gateway verifies tokens without the secret.",
    "- Disabled SSR for the chart component because it reads `window`.",
    "- Made the cache per-request to avoid leaking data between users.",
    ("I created a symlink from `~/.claude` to the repo's `.claude` so the hooks stay under "
     "version control."),
])
def test_a_change_with_its_reason_is_a_decision(text: str) -> None:
    assert _kinds(text) == [Kind.DECISION], text


@pytest.mark.parametrize("text", [
    # progress, thinking aloud and offers stay out, flagged or not
    "**Note:** I left the other tests as they were.",
    "Note: you use FIDO2, so you don't have a password anyway.",
    "**Security Note:** This is the highest privilege level on the system.",
    # a flag naming no trap before what a thing uses or handles gracefully: a fact, no trap
    "**Security Note:** Hyper-V uses a Type-1 hypervisor with VBS integration.",
    "Note: The hook gracefully handles when gitleaks is not installed (shows a warning).",
    "Important: Docker Desktop uses v0.12 of buildkit.",
    "Note: let's run the tests again after the rebuild.",
    "Unfortunately, I couldn't reproduce the crash locally.",
    "Unfortunately, the tests still fail on CI.",
    "This is why you see two bars.",
    "That's why the web side works and the mobile side doesn't yet.",
    "Since the API doesn't expose a shell setting, let's proceed with option 3.",
    "The app doesn't work.",
    "This doesn't matter because the value is recomputed.",
    "Running the tests fixed nothing.",
    "The `FixtureError` exception is raised when a fixture file is missing.",
    "- Added tests for the parser.",
    "- Removed the unused import.",
    "I backed up `~/.claude` to `~/.claude-backups` before replacing it.",
    "Let me check why the page is stale.",
    "Hmm, the problem might be the cache key.",
])
def test_progress_and_asides_in_those_shapes_are_not_items(text: str) -> None:
    assert _kinds(text) == [], text


def test_a_condition_stays_a_prerequisite_and_an_open_question_a_question() -> None:
    assert _kinds("Note: the worker won't pick up jobs unless `CELERY_BROKER_URL` points at a "
                  "running RabbitMQ.") == [Kind.PREREQUISITE]
    assert _kinds("Open question — who owns the staging AWS account?") == [Kind.QUESTION]


def test_capture_files_an_answer_s_caveat_and_reasoned_change_in_their_sections(
        env: Path, log: Transcript) -> None:
    log.prompt("the nightly export page shows yesterday's numbers")
    log.call("e1", "Edit", {"file_path": "/home/dev/work/shop/web/export/page.tsx",
                            "old_string": "a", "new_string": "b"})
    log.result("e1", "ok")
    log.say("Fixed.\n\n"
            "**Key changes**\n"
            "- `export/page.tsx` - disabled static rendering because the numbers change "
            "every night.\n\n"
            "**Note:** the CDN keeps its own copy for five minutes, so a refresh right after "
            "the export can still show the old numbers.\n\n"
            "Let me know if you want the CDN purged too.")
    stop(log)
    end(log)
    text = note(env)
    decisions = section(text, "Decisions Made")
    gotchas = section(text, "Gotchas & Fixes")
    assert any("disabled static rendering because" in line for line in decisions), decisions
    assert any("CDN keeps its own copy" in line for line in gotchas), gotchas
    assert not any("Let me know" in line for line in decisions + gotchas)




def test_a_cause_stated_then_its_fix_reported_make_one_gotcha() -> None:
    text = ("The root cause was that the phone regex matched ISO timestamps. I changed it to "
            "use a lookbehind for the date.")
    assert [(m.kind, m.text) for m in mine(text)] == [
        (Kind.GOTCHA, ("The root cause was that the phone regex matched ISO timestamps. Fix: "
                       "Changed it to use a lookbehind for the date."))]


@pytest.mark.parametrize("after", [
    "The other workflow files are fine.",  # no fix reported
    "Fixed that, but the sync job still fails.",  # says only that it did, still failing
    "I added an allowlist for:",  # leads into a list the line does not carry
])
def test_a_cause_keeps_alone_what_is_no_fix_of_it(after: str) -> None:
    cause = "The issue was that the workflow file was owned by root."
    assert [m.text for m in mine(f"{cause} {after}") if m.kind == Kind.GOTCHA] == [cause]
