"""mining/reports.py: a report's problem and fix sections are one gotcha; a problem alone, an
offered fix or a fix before its problem is none."""

from __future__ import annotations

from vaultmem.mining.answers import Mined, mine
from vaultmem.mining.reports import problem_fix

REPORT = """## Problem Fixed! 🎉

### The Problem
The proxy refused requests with "upstream reset" errors, even though:
- the backend was up (curl to it worked)
- the certificates were valid

### Root Cause
The `upstream` block listed the backend as a **single server** instead of a **pool**. The
health check then marked it down after one slow reply.

### The Fix
```bash
sed -i 's/server app:8080/server app:8080 max_fails=3/' /etc/nginx/conf.d/app.conf
nginx -s reload
```

### Verified Working
- ✅ 200 on every request
"""


def test_the_root_cause_with_the_fix_s_commands_is_one_gotcha() -> None:
    assert problem_fix(REPORT) == (
        "The `upstream` block listed the backend as a single server instead of a pool. The "
        "health check then marked it down after one slow reply. Fix: `sed -i 's/server "
        "app:8080/server app:8080 max_fails=3/' /etc/nginx/conf.d/app.conf; nginx -s reload`")


def test_the_problem_s_list_and_the_fix_s_first_line_are_kept() -> None:
    text = ("## ❌ The Problem\n\nThe nightly job was **failing** every time the export ran:\n"
            "- the bucket was full\n- retries piled up\n\nAll those alerts!\n\n---\n\n"
            "## ✅ The Fix\n\n**Moved old exports to cold storage and capped retries at 3:**\n\n"
            "### 1. Storage\n- done\n")
    assert mine(text)[0] == Mined("gotcha", (
        "The nightly job was failing every time the export ran: the bucket was full; retries "
        "piled up. Fix: Moved old exports to cold storage and capped retries at 3:"))


def test_a_problem_without_a_fix_or_with_options_only_is_no_gotcha() -> None:
    alone = "### The Problem\nThe export hangs on empty ledgers.\n\n### Verified Working\n- ok\n"
    offered = ("### The Problem\nThe export hangs on empty ledgers.\n\n"
               "### Option 1: Quick Fix\nSkip empty ledgers.\n\n### Recommended Fixes\n- a\n")
    before = "### The Fix\nSkip empty ledgers.\n\n### The Problem\nThe export hangs.\n"
    fenced = "```\n### The Problem\nx y z\n### The Fix\nskip it\n```\n"
    for text in (alone, offered, before, fenced):
        assert problem_fix(text) is None, text


DONE_REPORT = """All tasks completed. Here's what was done:

## ✅ Completed Tasks

### 1. **Logs Synced** (12 logs updated)
- Copied the logs

### 2. **Session Store** - sessions kept in Redis with a 1 h TTL:
- **Why**: the web nodes share them

### 3. **Documentation**
- Fixed paths in SETUP.md

## Suggested Improvements

### 1. **Add Testing** - a pytest suite for the parser
"""


def test_a_completion_reports_numbered_heading_that_states_what_it_made_is_a_decision() -> None:
    decisions = [m.text for m in mine(DONE_REPORT) if m.kind == "decision"]
    assert decisions == ["Session Store: sessions kept in Redis with a 1 h TTL"]


def test_a_numbered_heading_outside_a_report_of_what_was_done_is_no_decision() -> None:
    text = DONE_REPORT.replace("## ✅ Completed Tasks", "## Options")
    assert not [m for m in mine(text) if m.kind == "decision"]


def test_a_setting_given_a_new_value_with_its_old_one_is_a_decision() -> None:
    text = """Summary of the changes:

- Lowered the entropy threshold from 3.5 to 3.0
- Increased the log buffer size: 128 KB → 512 KB
- Reduced the repository size by 91% (9.0M → 784K)
- Detection increased from 632 to 16,684
- Reduced test time from 40s to 12s
- Raise the worker pool from 4 to 8
"""
    decisions = [m.text for m in mine(text) if m.kind == "decision"]
    assert decisions == ["Lowered the entropy threshold from 3.5 to 3.0",
                         "Increased the log buffer size: 128 KB → 512 KB"]


def test_a_tables_rows_with_the_action_taken_are_decisions_and_other_tables_give_none() -> None:
    text = """Ports shut down:

| Port | Service | Status | Action Taken |
|------|---------|--------|--------------|
| **5040** | CDPSvc | ✅ CLOSED | Service STOPPED and DISABLED |
| **2869** | SSDP | ✅ CLOSED | None |

| Metric | Before | After |
|--------|--------|-------|
| Findings | 632 | 16,684 |

| Priority | Action |
|----------|--------|
| High | Disable the SSDP service |
"""
    assert [(m.kind, m.text) for m in mine(text)] == [
        ("decision", "5040 CDPSvc: Service STOPPED and DISABLED")]


def test_a_row_whose_status_says_not_done_gives_no_decision() -> None:
    text = """| Port | Service | Status | Action Taken |
|------|---------|--------|--------------|
| **5040** | CDPSvc | ✅ CLOSED | Service STOPPED and DISABLED |
| **7680** | Delivery Optimization | ⚠️ TODO | Disable it after the update |
| **445** | SMB | ❌ | Tried stopping the LanmanServer service |
| **135** | RPC | Pending | Block it at the firewall |
"""
    assert [(m.kind, m.text) for m in mine(text)] == [
        ("decision", "5040 CDPSvc: Service STOPPED and DISABLED")]


def test_a_row_with_an_empty_first_cell_keeps_its_cells_under_their_columns() -> None:
    # GFM reads `||` as the border and an empty cell: the action stays in the action column.
    text = """| Port | Service | Action Taken |
|------|---------|--------------|
|| SSDP | Service STOPPED and DISABLED |
"""
    assert [(m.kind, m.text) for m in mine(text)] == [
        ("decision", "SSDP: Service STOPPED and DISABLED")]


def test_a_tables_problem_with_its_cause_or_fix_column_is_a_gotcha_a_row() -> None:
    text = """| Issue | Cause | Fix |
|---|---|---|
| Hook not firing | `settings.json` had it under the wrong key | moved it under `hooks.Stop` |
| Slow start | the index is rebuilt on every launch | n/a |
| Banner | - | - |

| Problem | Solution |
|---------|----------|
| sudo asks for a password in scripts | added a `NOPASSWD` rule for `pmset` |
"""
    assert [(m.kind, m.text) for m in mine(text)] == [
        ("gotcha", ("Hook not firing: `settings.json` had it under the wrong key — fix: moved it "
                    "under `hooks.Stop`")),
        ("gotcha", "Slow start: the index is rebuilt on every launch"),
        ("gotcha", ("Sudo asks for a password in scripts — fix: added a `NOPASSWD` rule for "
                    "`pmset`"))]


def test_a_long_rows_fix_is_kept_whole_and_its_cause_cut() -> None:
    # Issue 29: a row whose cause filled the line's 300 characters lost its fix ("— fix: Set…").
    cause = ("the session cookie was set on the wrong domain because the proxy rewrote the host "
             "header and the app trusted it without checking the forwarded host list, which the "
             "framework reads only when TRUST_PROXY is set and the allowed list names the proxy")
    fix = "Set `TRUST_PROXY=1` and list the proxy in `FORWARDED_ALLOW_IPS`"
    text = f"| Issue | Cause | Fix |\n|---|---|---|\n| Login loop | {cause} | {fix} |\n"
    [found] = mine(text)
    assert found.text.startswith("Login loop: the session cookie was set on the wrong domain")
    assert found.text.endswith(f"… — fix: {fix}") and len(found.text) <= 300, found.text


def test_a_table_cells_code_is_kept_as_written() -> None:
    # Code is no decoration: a glob's `**`, a `${VAR}` and brackets stay inside their span.
    text = """| Issue | Fix |
|---|---|
| **Tests not collected** | set `testpaths = ["tests/**/*_test.py"]` |
| Wrong home in CI | use `${HOME}/.cache` instead of `~/.cache` |
"""
    assert [(m.kind, m.text) for m in mine(text)] == [
        ("gotcha", 'Tests not collected — fix: set `testpaths = ["tests/**/*_test.py"]`'),
        ("gotcha", "Wrong home in CI — fix: use `${HOME}/.cache` instead of `~/.cache`")]


def test_a_tables_reason_column_makes_each_row_a_choice_with_its_reason() -> None:
    text = """| Setting | Old | New | Why |
|---|---|---|---|
| `PasswordAuthentication` | yes | no | keys only from now on |

| Decision | Rationale |
|---|---|
| Homebrew over MacPorts | the user already has it |
"""
    assert [(m.kind, m.text) for m in mine(text)] == [
        ("decision", "`PasswordAuthentication` yes → no — why: keys only from now on"),
        ("decision", "Homebrew over MacPorts — why: the user already has it")]


def test_a_table_weighing_options_or_listing_issues_alone_gives_nothing() -> None:
    text = """| Option | Pros | Cons |
|---|---|---|
| Redis | fast, shared | one more service |
| SQLite | one file | a single writer |

| Issue | Severity |
|---|---|
| Port 445 open | High |

| Step | Why | Status |
|---|---|---|
| Disable SMBv1 | old and unsafe | ⚠️ TODO |
"""
    assert mine(text) == ()


def test_the_paragraph_under_a_cause_heading_is_the_cause() -> None:
    text = """## Root Cause

The UCI configuration had `server` set as a single option instead of a list. The init script
reads it with `config_list_foreach`, so no upstream was passed on. Everything else was fine.
"""
    cause = ("The UCI configuration had `server` set as a single option instead of a list. The "
             "init script reads it with `config_list_foreach`, so no upstream was passed on.")
    assert [(m.kind, m.text) for m in mine(text)] == [("gotcha", cause)]
    wrong = "### What was wrong\n\nThe token was read before the keychain was unlocked.\n"
    assert [m.kind for m in mine(wrong)] == ["gotcha"]


def test_a_move_a_question_or_another_heading_above_a_paragraph_is_no_cause() -> None:
    for text in ("## Root cause\n\nLet me look at the init script first.\n",
                 "## The problem\n\nWhich of the two configs does the service read?\n",
                 "## What was wrong\n\nHere is what I found:\n\n- the port\n",
                 "## Summary\n\nThe UCI configuration had `server` set as a single option.\n",
                 "## Root cause\n\nI checked the logs and restarted the daemon twice.\n"):
        assert [m for m in mine(text) if m.kind == "gotcha"] == [], text


def test_what_was_wrong_and_what_was_fixed_labelled_are_one_gotcha() -> None:
    text = ("**What was wrong:** the fixture created the database once per session and a test "
            "dropped it.\n\n**What I changed:** the fixture is now function-scoped.")
    gotchas = [m.text for m in mine(text) if m.kind == "gotcha"]
    assert gotchas[-1] == ("The fixture created the database once per session and a test "
                           "dropped it — what I changed: the fixture is now function-scoped.")


OFFERED = """### What Happened

Your desktop client is seeing **39 false positives** from the scanner:
- 2 hardcoded IPs in `docs/SECURITY.md` (security documentation)
- 37 detections in `docs/scan-results.json` (SHA hashes misidentified as Twilio account SIDs)

I've pushed a fix to allowlist these files.

### Quick Fix (Immediate)

**Option 1: Pull the latest changes**
```bash
git pull origin fix-branch
```
"""


def test_a_fix_offered_as_an_option_gives_way_to_what_the_problem_section_says_was_done() -> None:
    # Issue 29: the gotcha's fix was "Option 1: Pull the latest changes." and its cause was cut
    # before "Twilio account SIDs"; what was done is in the problem's own section.
    assert problem_fix(OFFERED) == (
        "Your desktop client is seeing 39 false positives from the scanner: 2 hardcoded IPs in "
        "`docs/SECURITY.md` (security documentation); 37 detections in `docs/scan-results.json` "
        "(SHA hashes misidentified as Twilio account SIDs) Fix: Pushed a fix to allowlist "
        "these files.")
    # Without a done sentence the offered option stays the fix, as before.
    offered = OFFERED.replace("I've pushed a fix to allowlist these files.\n\n", "")
    assert (problem_fix(offered) or "").endswith(" Fix: Option 1: Pull the latest changes.")
