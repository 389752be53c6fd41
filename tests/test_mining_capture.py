"""mining: statements the transcript holds that must (or must not) become items: sub-bullets of
a step, a thing left alone, a plan's recommended option, a setting's change, an either-or
question the person answered (issues 28/29)."""

from __future__ import annotations

from vaultmem.mining import choices, commits, prompts, structured, summaries
from vaultmem.mining.answers import Mined, mine
from vaultmem.notes.schema import Kind

# -- the sub-bullets of a step belong to it ----------------------------------------------------


def test_sub_bullets_under_a_next_steps_heading_join_their_step() -> None:
    answer = ("Done: the redaction hook is installed.\n\n"
              "## Next steps\n"
              "1. Deploy the hook to the other machines\n"
              "   - Run `python3 hooks/install.py` on the laptop\n"
              "   - Restart GitHub Desktop so it picks the hook up\n"
              "2. Rotate the leaked token\n")
    assert mine(answer) == (
        Mined(Kind.NEXT_STEP, "Deploy the hook to the other machines: Run `python3 "
                              "hooks/install.py` on the laptop; Restart GitHub Desktop so it "
                              "picks the hook up"),
        Mined(Kind.NEXT_STEP, "Rotate the leaked token"),
    )


def test_bullets_at_one_level_stay_separate_steps() -> None:
    answer = ("## Next steps\n"
              "- Deploy the hook to the other machines\n"
              "- Rotate the leaked token\n")
    assert [m.text for m in mine(answer)] == ["Deploy the hook to the other machines",
                                               "Rotate the leaked token"]


def test_a_summary_s_pending_task_keeps_its_sub_tasks_apart() -> None:
    read = summaries.read(
        "## 7. Pending Tasks\n\n"
        "1. **Mac Security Actions** (User-side tasks identified but not executed):\n"
        "   - Install macOS 26.2 update\n"
        "   - Run Apple Diagnostics for NVMe issue\n"
        "2. **Team Notification**: All team members need to re-clone after the force push\n")
    assert [i.text for i in read.items] == [
        ("Mac Security Actions (User-side tasks identified but not executed): Install macOS 26.2 "
        "update; Run Apple Diagnostics for NVMe issue"),
        "Team Notification: All team members need to re-clone after the force push",
    ]


# -- an approved plan's recommended option is named ----------------------------------------------

PLAN = """# Power monitor applet: plan

## Permission Solutions

### Option A: Setcap (Simple, for testing)
```bash
sudo setcap cap_dac_read_search=ep /usr/bin/cosmic-applet-power-monitor
```
**Pros**: Simple, immediate

### Option B: Systemd Daemon (Production)
**Pros**: Proper security isolation

**Recommendation**: Start with Option A for MVP, migrate to Option B for production.
"""


def test_a_recommendation_that_picks_an_option_by_letter_names_it() -> None:
    assert [f.text for f in structured.plan_decisions(PLAN)] == [
        ("Start with Option A (Setcap) for MVP, migrate to Option B (Systemd Daemon) for "
        "production.")]
    listed = PLAN.replace("### Option B: Systemd Daemon (Production)",
                          "- **Option B** — a D-Bus daemon holding the capability")
    assert "Option B (a D-Bus daemon holding the capability)" in \
        structured.plan_decisions(listed)[0].text


def test_an_option_already_named_or_never_defined_is_left_as_written() -> None:
    named = PLAN.replace("Start with Option A for MVP", "Option A: setcap for the MVP")
    assert structured.plan_decisions(named)[0].text.startswith("Option A: setcap for the MVP")
    undefined = "## Decisions\n\n**Recommendation:** Option 2 for now, the cache later.\n"
    assert [f.text for f in structured.plan_decisions(undefined)] == [
        "Option 2 for now, the cache later."]


# -- a report's issue and the action taken on it ------------------------------------------------

REMEDIATION = """# ✅ REMEDIATION COMPLETE

All priority fixes have been applied to the router.

#### 1. ✅ Stopped the screen service log spam
**Issue:** The screen service polled the removed modem services every 5 seconds, 34,560 errors a day

**Action Taken:**
```bash
/etc/init.d/gl_screen stop && /etc/init.d/gl_screen disable
```

**Result:**
- ✅ Service stopped and disabled
"""


def test_an_issue_and_the_action_taken_on_it_are_a_gotcha() -> None:
    assert mine(REMEDIATION) == (Mined(
        Kind.GOTCHA, "The screen service polled the removed modem services every 5 seconds, "
        "34,560 errors a day — action taken: `/etc/init.d/gl_screen stop && "
        "/etc/init.d/gl_screen disable`"),)
    pair = ("**Problem:** the MSYS2 gpg-agent socket broke signing\n"
            "**Solution:** signed with the Windows-native GPG instead\n")
    assert [m.kind for m in mine(pair)] == [Kind.GOTCHA]
    assert "gpg-agent socket" in mine(pair)[0].text and "Windows-native" in mine(pair)[0].text


def test_an_action_with_no_issue_before_it_in_its_section_is_no_gotcha() -> None:
    assert mine("### Pooling\n\n**Solution:** use a pool of ten connections\n") == ()
    apart = ("### Logs\n**Issue:** the log spam filled the disk\n\n"
             "### Next part\n**Action Taken:** `logrotate -f /etc/logrotate.conf`\n")
    assert all("logrotate" not in m.text for m in mine(apart))


# -- the person's pick between two ways a question offers in prose ------------------------------

ASKED = """I've removed the tethering and cellular packages:

✓ **Removed packages:**
- gl-sdk4-modem
- smstools3

⚠️ **Remaining package:**
- **kmod-gl-sdk4-kmwan** - a kernel module that gl-sdk4-system depends on.

Would you like me to force-remove kmod-gl-sdk4-kmwan as well, or leave it since it's a system \
dependency? Force-removing it could impact router functionality."""


def test_a_short_answer_to_an_either_or_question_is_a_decision() -> None:
    assert prompts.decisions("leave it", ASKED) == [
        ("Would you like me to force-remove kmod-gl-sdk4-kmwan as well, or leave it since it's a "
        "system dependency? — chose: leave it since it's a system dependency; not chosen: "
        "force-remove kmod-gl-sdk4-kmwan")]
    assert "chose: move the cache to Postgres" in choices.picked(
        "Tests pass. Should I keep the cache in Redis, or move the cache to Postgres?",
        "postgres please")
    # A word of a hyphenated one names its way too ("remove" in "force-remove").
    assert "chose: force-remove kmod-gl-sdk4-kmwan;" in str(choices.picked(ASKED, "remove it"))


def test_an_either_or_of_next_moves_or_an_answer_naming_neither_decides_nothing() -> None:
    assert choices.picked("All green. Should I run the full suite or push now?", "push") is None
    assert choices.picked(ASKED, "yes") is None  # names neither way
    assert choices.picked(ASKED, "why would that break the router?") is None  # asks back
    assert choices.picked("Should I keep Redis, or move to Postgres? Also, lint passes.",
                          "explain the trade-offs of both in detail first") is None


# -- a commit body's change with its reason ------------------------------------------------------

COMMIT = """Add gitleaks auto-redaction feature for non-blocking secret scanning

Instead of blocking commits when secrets are detected, the new system
automatically redacts secrets in-place and allows commits to proceed.

Changes:
- Add redact_gitleaks_secrets.py script to auto-redact detected secrets
- Add comprehensive test suite for redaction functionality
- Update GITLEAKS-MAX-STRICT.md to reflect the new behavior
- Add Docs/M-BOOK-SEC.md to the allowlist
  * a nested detail to keep secrets out
- Fix .gitleaksignore: use proper fingerprint format instead of paths

Co-Authored-By: Claude Sonnet 4.5 <noreply@anthropic.com>
"""


def test_a_commit_body_s_changes_with_their_reasons_are_decisions() -> None:
    assert commits.decisions(COMMIT) == (
        "Add redact_gitleaks_secrets.py script to auto-redact detected secrets",
        "Fix .gitleaksignore: use proper fingerprint format instead of paths",
    )


def test_a_change_without_its_reason_or_to_the_docs_is_no_decision() -> None:
    for message in ("Add pytest\n\n- Add pytest configuration in pyproject.toml\n",
                    "Docs\n\nUpdate README.md to reflect the new structure.\n",
                    "Bump\n\nBump requests to 2.32 and move helpers to src/utils.\n",
                    "Only a subject line to explain nothing",
                    "Tidy\n\nThe old script was removed to reduce clutter.\n",
                    "Hook\n\n- Update the pre-commit hook to run the gitleaks scan first\n"):
        assert commits.decisions(message) == (), message


# -- a recommendation the person took -----------------------------------------------------------

RECOMMENDED = """For Windows, here are the options:

**[ccusage](https://github.com/ryoppippi/ccusage)** - Most popular option
- Live dashboard with `ccusage blocks --live`
- Install: `npm install -g ccusage`

The macOS menu bar apps (Usage4Claude) have no Windows build. **ccusage** is your best bet - it \
works well on Windows.

Want me to install ccusage for you?"""


def test_a_recommendation_the_person_says_yes_to_is_a_decision() -> None:
    assert prompts.decisions("yes install ccusage", RECOMMENDED) == [
        ("The macOS menu bar apps (Usage4Claude) have no Windows build. ccusage is your best bet - "
        "it works well on Windows.")]


def test_a_yes_to_an_offer_with_no_recommendation_of_its_thing_decides_nothing() -> None:
    assert choices.accepted("All tests pass. Want me to commit these changes?", "yes") is None
    assert choices.accepted("I recommend Redis for the cache. Want me to commit the docs?",
                            "yes") is None  # the offer is about something else
    assert choices.accepted(RECOMMENDED, "no, I'll use the web dashboard") is None
    assert choices.accepted(RECOMMENDED, "yes but which version of node does it need?") is None
