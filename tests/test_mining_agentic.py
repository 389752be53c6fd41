"""Mining agentic prose: thinking aloud is never an item; a cause stated while thinking is kept
only with the fix the same turn reports (DESIGN §10). Corpus cases: tests/corpus/mining/agentic.yaml."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from vaultmem.claude import ingest
from vaultmem.claude.toolblocks import ToolCall
from vaultmem.claude.transcript import Turn
from vaultmem.mining.answers import Mined, mine, mine_turn

NOW = datetime(2026, 11, 22, 10, 30, tzinfo=timezone.utc)
CWD = "/home/dev/work/shop"


@pytest.mark.parametrize(
    "text",
    [
        "I see - the issue is that function has another name.",
        "The issue is that I'm calling it the wrong way.",
        "I see - the issue is that the helper is private.",
        "Let me check how the router is set up.",
        "Now I need to update the router to use the new controller.",
        "Hmm, the test is still failing because the fixture doesn't create the organization.",
        "The tests fail because I renamed the module but didn't update the test file.",
        "I need to use `render_click/2` instead of `render_submit/2` here.",
        "Looks like the issue is the missing `@impl true` annotation.",
        "Hmm, that didn't work either. The issue is that `on_mount` runs before the session loads.",
        # Narration of what agents are doing: a "todo list" is no TODO left in the code.
        "The three agents have each written their todo lists and begun coding.",
        "Both workers set up their to-do lists and are now implementing their phase.",
    ],
)
def test_thinking_aloud_is_never_an_item(text: str) -> None:
    assert mine(text) == ()


@pytest.mark.parametrize(
    "text",
    [
        "Those are the failed lookups from before we fixed the resolver.",
        "They all timed out due to the firewall rules that were dropping traffic.",
        "These were the retries from before the cache was fixed.",
    ],
)
def test_a_sentence_about_what_came_before_is_no_item_on_its_own(text: str) -> None:
    # Its subject points back at the text around it: alone in an entity it says nothing.
    assert mine(text) == ()


def test_an_offer_after_a_step_or_a_concession_is_no_next_step() -> None:
    assert [m.kind for m in mine("After that, I can use `sudo -A` which opens the GUI prompt.")] \
        == []
    assert [m.kind for m in mine("Even with `!tty_tickets`, sudo still needs a session.")] == []
    (step,) = mine("After that, we need to rotate the deploy key on the server.")
    assert step.kind == "next-step"


def test_a_list_of_names_under_next_steps_is_no_step() -> None:
    text = "Next steps:\n\n- Install LuLu to watch outbound connections\n- KnockKnock\n- Objective-See Tools\n"
    assert [(m.kind, m.text) for m in mine(text)] == [
        ("next-step", "Install LuLu to watch outbound connections")]


def test_a_fix_label_with_nothing_after_it_is_no_item() -> None:
    text = "### 1. **Real-time protection disabled**\n\n**Fix:**\n\n```\nSet-MpPreference -X 0\n```\n"
    assert mine(text) == ()


def test_an_offer_about_that_change_is_no_open_question() -> None:
    ending = "I updated the resolver config. Want me to make that change?"
    assert [m.kind for m in mine(ending)] == []
    # Claude's offer of a concrete next move is an offer too; the same choice asked of the work
    # is an open question.
    assert mine("I updated the resolver. Should I switch cloudflared to Mullvad's DNS?") == ()
    (item,) = mine("I updated the resolver. Should cloudflared use Mullvad's DNS?")
    assert item.kind == "question"


def test_a_sentence_naming_its_subject_is_still_an_item() -> None:
    (item,) = mine("The resolver timed out because the firewall dropped port 53 traffic.")
    assert item.kind == "gotcha"
    (item,) = mine("It turns out the cache key ignores the locale, which caused the stale pages.")
    assert item.kind == "gotcha"
    (item,) = mine("This happens because the worker reads the stale state file.")
    assert item.kind == "gotcha"


def test_a_labelled_fix_says_what_it_fixes() -> None:
    # An answer's report lists each problem under a heading, then "**Fix:** …": the fix alone
    # ("Set a strong password") would reach an entity saying nothing of what it fixed.
    report = (
        "### 🔴 2. **No Password on the Admin Account**\n"
        "- **Risk:** anyone can log in\n"
        "- **Fix:** Set a strong password in `Settings > Accounts`\n\n"
        "### 3. **Webhook parser**\n\n"
        "**Issue:** The phone regex matches UUID segments. It broke the README.\n"
        "**File:** `scripts/sync.py:54`\n\n"
        "**Fixed:** Excluded UUIDs from the phone pattern\n\n"
        "## Next steps\n\n**Fix:** the flaky login test\n"
    )
    assert [(m.kind, m.text) for m in mine(report)] == [
        ("gotcha", ("No Password on the Admin Account — fix: Set a strong password in "
                    "`Settings > Accounts`")),
        ("gotcha", ("The phone regex matches UUID segments — fixed: Excluded UUIDs from the "
                    "phone pattern")),
        ("gotcha", "The flaky login test"),  # under a kind's own heading: nothing to name
    ]


def test_a_cause_found_while_thinking_is_kept_with_the_fix_the_turn_reports() -> None:
    messages = [
        "I see - the issue is that `Invoices.render/2` was renamed to `InvoiceRenderer.render/2`.",
        "Let me look at the callers.",
        "I've updated the three call sites in the controller, and the tests pass.",
    ]
    assert mine_turn(messages) == (
        Mined("gotcha", "The issue is that `Invoices.render/2` was renamed to "
                        "`InvoiceRenderer.render/2`. Fix: Updated the three call sites in the "
                        "controller, and the tests pass."),
    )
    # Without the fix, the diagnosis in progress stays out of the memory.
    assert mine_turn(messages[:2]) == ()


def test_the_newest_cause_is_the_one_the_fix_answers() -> None:
    messages = [
        "Ah, the problem is that the cache key ignores the locale.",
        "Hmm, the test is still failing because the fixture has no locale at all.",
        "Fixed - the fixture now sets `locale: \"en\"`.",
    ]
    (item,) = mine_turn(messages)
    assert item.kind == "gotcha"
    assert item.text.startswith("The test is still failing because the fixture has no locale")
    assert item.text.endswith('Fix: The fixture now sets `locale: "en"`.')


def test_claude_s_own_slip_and_its_fix_are_not_knowledge() -> None:
    assert mine_turn(["The issue is that I'm calling it the wrong way.",
                      "I changed the call to pass the options as a keyword list."]) == ()


def test_a_cause_stated_as_found_and_a_labelled_one_are_items_as_before() -> None:
    assert mine("The issue is that Stripe sends amounts in cents, and we divided by 100 twice.")
    assert mine("Hmm. Root cause: the worker reads `REDIS_URL` before `.env` is loaded.") == (
        Mined("gotcha", "The worker reads `REDIS_URL` before `.env` is loaded."),
    )
    assert mine("I fixed it by passing `expire_on_commit=False` to the session factory.")


def test_a_present_tense_diagnosis_before_a_tool_call_needs_the_turn_s_fix() -> None:
    guess = "The issue is that this is an applet, not a regular app. Let me check the entry point:"
    # A tool call follows the message: the diagnosis is a hypothesis being tested.
    assert mine_turn([guess], acted=1) == ()
    assert mine_turn([guess, "Let me fix the remaining issues."], acted=2) == ()
    assert mine_turn([guess, "Fixed - `main.rs` now starts it with `applet::run`."], acted=1) == (
        Mined("gotcha", "The issue is that this is an applet, not a regular app. Fix: `main.rs` "
                        "now starts it with `applet::run`."),
    )
    # In the turn's last word (no tool call after it), or put as found, it is a finding.
    assert mine_turn([guess]) == (
        Mined("gotcha", "The issue is that this is an applet, not a regular app."),)
    assert mine_turn(["The issue was that the panel caches applets by name."], acted=1)


def test_ingest_drops_a_diagnosis_the_turn_goes_on_to_test() -> None:
    turns = [
        Turn("u1", "2026-11-22T09:00:00Z", "the applet does not show"),
        Turn("a1", "2026-11-22T09:01:00Z", None,
             text="The issue is that the text is being cut off.",
             calls=(ToolCall("r1", "Read", path=f"{CWD}/src/app.rs"),)),
        Turn("a2", "2026-11-22T09:02:00Z", None, text="The panel shows it now."),
    ]
    assert ingest.story(turns, now=NOW, cwd=CWD).items == ()


def test_ingest_reads_a_turn_s_messages_together() -> None:
    turns = [
        Turn("u1", "2026-11-22T09:00:00Z", "the invoice page is blank"),
        Turn("a1", "2026-11-22T09:01:00Z", None,
             text="I see the problem. The supervisor starts the worker before the `Registry` "
                  "is up.",
             calls=(ToolCall("w1", "Edit", path=f"{CWD}/lib/shop/application.ex"),)),
        Turn("a2", "2026-11-22T09:02:00Z", None,
             text="I reordered the children so the `Registry` starts first."),
    ]
    told = ingest.story(turns, now=NOW, cwd=CWD)
    assert [(i.kind, i.text) for i in told.items] == [
        ("gotcha", ("The supervisor starts the worker before the `Registry` is up. Fix: "
                   "Reordered the children so the `Registry` starts first.")),
    ]


def test_a_fix_that_leads_into_a_list_it_does_not_carry_makes_no_gotcha() -> None:
    messages = [
        ("I see the issue! The hook blocks the commit instead of redacting.\n\n"
         "Let me check the hook:"),
        ("Fixed:\n\n1. **Updated `.gitleaks.toml`** - Added allowlist for:\n"
         "   - `Docs/SEC.md` (security documentation)\n\n"
         "2. **Fixed `.gitleaksignore`** - Removed invalid path entries"),
    ]
    assert [m for m in mine_turn(messages) if m.kind == "gotcha"] == []
