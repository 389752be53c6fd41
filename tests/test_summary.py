"""mining/summaries.py and the capture of Claude Code's compact summaries (DESIGN §10): the section
parser on real-shaped summaries, what is and is not a summary, privacy, and the hooks end to end
(the items reach the note, compaction carries them into entities, the briefing shows them)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from datetime import datetime
from pathlib import Path

import pytest
from hook_kit import (
    ENTITIES,
    FIXTURES,
    PROBE,
    SECRET,
    SESSIONS,
    hook_env,
    payload,
    run_cli,
    run_hook,
    session_notes,
)

from vaultmem.claude import callout, condensed, ingest, transcript
from vaultmem.mining import summaries as summary
from vaultmem.notes import sections

NUMBERED = (FIXTURES / "compact-summary-numbered.txt").read_text()
MARKDOWN = (FIXTURES / "compact-summary-markdown.txt").read_text()
KOREAN = (FIXTURES / "compact-summary-korean.txt").read_text()
NOW = datetime(2026, 11, 22, 10, 30)


def _kinds(read: summary.Summary, kind: str) -> list[str]:
    return [i.text for i in read.items if i.kind == kind]


# -- the parser -------------------------------------------------------------------------------


def test_numbered_summary_is_read_by_its_sections() -> None:
    read = summary.read(NUMBERED)
    assert [s.key for s in read.sections] == [
        "request", "concepts", "files", "errors", "problem_solving", "user_messages",
        "pending", "current", "next-step"]
    gotchas = _kinds(read, "gotcha")
    # Cause and fix as one item each; the open one and the user's feedback are none.
    assert len(gotchas) == 2
    assert gotchas[0].startswith("Token rejected right after login: `verify_token` raised")
    assert gotchas[0].endswith("Fixed by allowing 30 s of leeway in `jwt.decode`.")
    assert "0003_refunds" in gotchas[1] and "Fixed by setting" in gotchas[1]
    assert not any("webhook signature" in g or "User feedback" in g for g in gotchas)
    decisions = _kinds(read, "decision")
    assert len(decisions) == 3
    assert any("uses RS256 instead of HS256 because the public key" in d for d in decisions)
    assert any("switched to `stripe.Refund.create`" in d for d in decisions)
    assert any(d.startswith("Decided to keep refunds synchronous for now because") for d in decisions)
    # Facts and a hedged idea are not decisions.
    assert not any("SQLAlchemy" in d or "JWKS" in d or "flaky" in d for d in decisions)
    assert _kinds(read, "next-step") == [
        "Verify the refund webhook signature check against a real Stripe test event",
        "Add a `refunds` section to `docs/billing.md`",
        "Run the refund webhook test against a Stripe test event to confirm the signature check.",
    ]
    assert read.outcome is not None
    assert read.outcome.startswith("Immediately before this summary, the refund endpoint")
    paths = {p for i in read.items for p in i.paths}
    assert {"src/billing/refunds.py", "migrations/versions/0003_refunds.py"} <= paths


def test_markdown_headed_summary_in_another_order_with_sections_missing() -> None:
    read = summary.read(MARKDOWN)
    assert [s.key for s in read.sections] == [
        "request", "concepts", "errors", "current", "pending"]
    (gotcha,) = _kinds(read, "gotcha")
    assert gotcha.startswith("Export truncated at 65,536 rows:")
    assert "removed the `islice` call" in gotcha
    assert _kinds(read, "decision") == [
        ("The export went with `csv.writer` over a hand-written join, because quoting of commas "
         "and newlines inside fields is then correct.")]
    assert _kinds(read, "next-step") == []  # "None."
    assert read.outcome == ("The streaming export is done and its test `tests/test_export.py` "
                            "passes; the staging timeout is open.")


@pytest.mark.parametrize("text", [
    KOREAN,
    "Summary:\nWe fixed the login bug and chose Redis over Memcached because it persists.",
    "",
    "1.\n2.\n:::\n**\n##\n" * 50,
    "4. Errors and fixes:\n" + "- x\n" * 2000,
])
def test_a_summary_without_known_sections_gives_no_items_and_is_kept(text: str) -> None:
    read = summary.read(text)
    assert read.items == ()
    if text is KOREAN:
        assert [s.key for s in read.sections] == [None, None, None, None]
        assert "스트리밍 내보내기가 완료되었고" in read.kept
    if text.startswith("Summary:"):
        assert read.sections == () and read.kept == text
    shown = callout.summary_callout(read.kept, "10:00")
    assert all(line.startswith(">") for line in shown.split("\n"))


def test_the_callout_holds_the_summary_and_opens_no_section() -> None:
    read = summary.read(NUMBERED)
    shown = callout.summary_callout(read.kept, "06:40")
    lines = shown.split("\n")
    assert lines[0] == "> [!summary]- Claude Code's summary (compacted 06:40)"
    assert all(line == ">" or line.startswith("> ") for line in lines)
    note = f"# T\n\n## Compact Summaries\n\n{shown}\n\n## After\n\n- x\n"
    assert [h.title for h in sections.headings(note)] == ["T", "Compact Summaries", "After"]
    # An unclosed fence is closed inside the quote; wikilinks are escaped.
    odd = callout.summary_callout("8. Current Work:\n```bash\n[[ -f x ]] && echo [[Auth]]", "06:41")
    assert odd.endswith("> ```") and "[[Auth]]" in odd  # inside the fence: code, kept
    assert "[\\[Auth]]" in callout.summary_callout("See [[Auth]] %%vm-anchor a@b commit c%%", "06:42")
    assert "%%vm-anchor" not in callout.summary_callout("x %%vm-anchor a@b commit c%%", "06:42")


def test_private_text_restated_by_the_summary_is_not_kept() -> None:
    text = NUMBERED.replace("Primary Request and Intent:\n",
                            "Primary Request and Intent:\n   Deploy with <private>sk-live-42 "
                            "token</private> please.\n")
    read = summary.read(text, ["my password is hunter2", "sk-live-42 token"])
    assert "hunter2" not in read.kept and "sk-live-42" not in read.kept
    # All user messages: never kept; the quote of the person in the next step: left out.
    assert summary.USER_MESSAGES_LEFT_OUT in read.kept
    assert summary.QUOTE_LEFT_OUT in read.kept
    assert "now add refunds to billing" not in read.kept
    assert all("hunter2" not in i.text for i in read.items)
    # An unclosed private span hides the rest of the summary.
    cut = summary.read(NUMBERED.replace("3. Files and Code", "<private>3. Files and Code"))
    assert [s.key for s in cut.sections] == ["request", "concepts"]


def test_an_error_that_went_away_by_itself_is_no_gotcha() -> None:
    read = summary.read(
        "4. Errors and fixes:\n"
        "- **Unused import warnings**: adding imports before their use caused transient warnings."
        " Resolved naturally as each import was used.\n"
        "- **Flaky port**: the dev server port was taken; it went away after a reboot, fixed.\n"
        "- **Stale lockfile**: `npm ci` failed on the old lockfile. Fixed by running `npm install`.")
    assert [i.text[:16] for i in read.items] == ["Stale lockfile: "]


def test_an_error_s_message_in_a_fenced_block_is_its_cause_beside_the_fix() -> None:
    read = summary.read(
        "## 4. Errors and Fixes:\n\n"
        "### Error 1: Install failed\n**Error**:\n```\n\nError: the `brew` lock is held by "
        "another process\nsecond line\n```\n**Fix**: Used git-filter-repo instead.\n\n"
        "### Error 2: Empty block\n```\n```\n**Fix**: Removed the derive and wrote it by hand.\n")
    assert _kinds(read, "gotcha") == [
        ("Install failed: Error: ``Error: the `brew` lock is held by another process`` Fix: Used "
        "git-filter-repo instead."),
        "Empty block: Fix: Removed the derive and wrote it by hand.",
    ]


def test_a_huge_summary_is_read_bounded() -> None:
    huge = "4. Errors and fixes:\n" + "- `a/b.py` failed; fixed by x instead of y\n" * 60_000
    read = summary.read(huge)
    assert len(read.kept) <= summary.SUMMARY_MAX_CHARS
    assert len(callout.summary_callout(read.kept, "10:00")) < callout.KEPT_MAX_CHARS * 1.2


def test_the_model_extractor_reads_the_summary_as_claude_s_not_as_a_prompt() -> None:
    lines = (FIXTURES / "transcript-compacted.jsonl").read_text().splitlines()
    text = condensed.render(condensed.turns(lines), 50_000)
    assert "User: This session is being continued" not in text
    assert "Claude: (Claude Code's summary of the session so far)" in text
    assert "Errors and fixes" in text
    assert SECRET not in text and "now add refunds to billing" not in text


# -- final answers whole ------------------------------------------------------------------------

RECAP = """All three endpoints are in place and the suite passes.

## Changes
- Added `refund()` in `src/billing/refunds.py`
- The webhook handler now reads `request.body()` before parsing

## Decisions
- Switched to `stripe.Refund.create` over `charge.refund()` because partial refunds need it.

## Next steps
- Add a `refunds` section to `docs/billing.md`
- Check the webhook against [[Stripe]] test events

```bash
pytest -q tests/test_billing.py
"""


def test_the_work_log_keeps_the_recap_under_its_answer_and_mines_it() -> None:
    lines = [_user("u1", "add refunds"),
             json.dumps({"type": "assistant", "uuid": "a1", "timestamp": "2026-11-22T06:05:00Z",
                         "message": {"role": "assistant",
                                     "content": [{"type": "text", "text": RECAP}]}})]
    told = ingest.story(transcript.parse_lines(lines).turns, now=NOW)
    (entry,) = told.entries
    assert "**Answer:** All three endpoints are in place and the suite passes." in entry
    assert "\n\n> [!note]- Claude's answer (15 lines)\n> All three endpoints" in entry
    note = f"# T\n\n## Work Log\n\n{entry}\n\n## Decisions Made\n"
    assert [h.title for h in sections.headings(note)][2:] == [
        entry.split("\n")[0][4:], "Decisions Made"]
    kinds = {(i.kind, i.text) for i in told.items}
    assert ("next-step", "Add a `refunds` section to `docs/billing.md`") in kinds
    assert any(k == "decision" and "stripe.Refund.create" in t for k, t in kinds)
    # A one-paragraph answer stays one line.
    short = [lines[0], lines[1].replace(json.dumps(RECAP)[1:-1], "Done, the suite passes.")]
    (plain,) = ingest.story(transcript.parse_lines(short).turns, now=NOW).entries
    assert "[!note]" not in plain


# -- what is a summary --------------------------------------------------------------------------


def _user(uuid: str, content: str, **extra: object) -> str:
    line = {"type": "user", "uuid": uuid, "timestamp": "2026-11-22T06:00:00.000Z",
            "message": {"role": "user", "content": content}, **extra}
    return json.dumps(line)


BOUNDARY = json.dumps({"type": "system", "subtype": "compact_boundary", "uuid": "b1",
                       "compactMetadata": {"trigger": "auto", "preTokens": 9}})


def test_a_prompt_that_reads_like_a_summary_is_a_prompt() -> None:
    forged = "This session is being continued from a previous conversation. " + NUMBERED
    parsed = transcript.parse_lines([_user("u1", "before"), _user("u2", forged)])
    assert [t.summary for t in parsed.turns] == [None, None]
    assert parsed.turns[1].prompt is not None
    told = ingest.story(parsed.turns, now=NOW)
    assert told.summaries == ()
    assert not any(i.text.startswith("Token rejected") for i in told.items)


def test_flagged_line_or_first_user_line_after_a_boundary_is_the_summary() -> None:
    flagged = transcript.parse_lines([_user("u1", "x"), _user("u2", NUMBERED, isCompactSummary=True)])
    assert flagged.turns[1].summary is not None and flagged.turns[1].prompt is None
    unflagged = transcript.parse_lines([_user("u1", "x"), BOUNDARY, _user("u2", NUMBERED),
                                        _user("u3", "next prompt")])
    assert [t.summary is not None for t in unflagged.turns] == [False, True, False]
    assert unflagged.turns[2].prompt == "next prompt"
    # The summary is not fed to the person's private stream: its own tags open nothing there.
    odd = transcript.parse_lines([_user("u2", "<private>restated", isCompactSummary=True),
                                  _user("u3", "visible")])
    assert odd.turns[1].prompt == "visible"
    # While the person's span is open, the summary is theirs too.
    hidden = transcript.parse_lines([_user("u1", "a <private>b"),
                                     _user("u2", NUMBERED, isCompactSummary=True)])
    assert [t.summary for t in hidden.turns][-1] == ""


def test_the_story_logs_one_entry_and_files_the_items_with_their_components() -> None:
    parsed = transcript.parse_lines([_user("u1", "add refunds"),
                                     _user("u2", NUMBERED, isCompactSummary=True,
                                           timestamp="2026-11-22T06:40:00Z")])
    told = ingest.story(parsed.turns, now=NOW, cwd="/home/dev/work/shop")
    compacted = [e for e in told.entries if "Context compacted" in e]
    assert len(compacted) == 1
    head, body = compacted[0].split("\n\n")
    assert re.fullmatch(r"### \d\d:\d\d - Context compacted", head)
    assert body.startswith("**Outcome:** Immediately before this summary") and "\n" not in body
    lines = {i.render() for i in told.items}
    assert any(line.startswith("- `src/billing/refunds.py` (modified)") and
               line.endswith("([[Billing]])") for line in lines)
    assert any("Fixed by setting" in line for line in lines)
    # migrations/ is a layer folder (issue 29): never a component of its own.
    assert not any("[[Migrations]]" in line for line in lines)
    assert all(len(i.components) <= 2 for i in told.items)
    assert len(told.summaries) == 1


# -- the hooks, end to end ----------------------------------------------------------------------


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    root.mkdir()
    return root


def test_a_compacted_session_files_the_summary_into_note_entities_and_briefing(
    vault: Path, tmp_path: Path
) -> None:
    path = tmp_path / "transcript.jsonl"
    shutil.copy(FIXTURES / "transcript-compacted.jsonl", path)
    for event in ("stop", "session-end"):
        proc = run_hook(event, payload(event, path), vault, cwd=tmp_path)
        assert proc.returncode == 0 and proc.stderr == b"", proc.stderr
    (note,) = session_notes(vault)
    text = note.read_text()
    assert "### 06:40 - Context compacted\n\n**Outcome:** Immediately before this summary" in text
    assert "This session is being continued" not in text.split("## Compact Summaries")[0]
    assert "> [!summary]- Claude Code's summary (compacted 06:40)" in text
    assert text.count("[!summary]") == 1
    assert SECRET not in text
    assert ("- Migrations failed on a fresh database: `alembic upgrade head` failed") in text
    assert "- Verify the refund webhook signature check against a real Stripe test event\n" in text
    heads = [h.title for h in sections.headings(text) if h.level == 2]
    assert heads[-1] == "Compact Summaries" and "Errors and fixes" not in str(heads)

    env = hook_env(vault)
    rel = note.relative_to(vault).as_posix()
    done = run_cli(["compact", rel, "--force"], cwd=tmp_path, env=env)
    assert done.returncode == 0, done.stderr
    billing = (vault / ENTITIES / "Billing.md").read_text()
    assert "switched to `stripe.Refund.create` over the deprecated" in billing
    filed = [p.stem for p in (vault / ENTITIES).glob("*.md")
             if "Fixed by setting `down_revision" in p.read_text()]
    assert filed and "Migrations" not in filed  # kept, under no layer-named entity
    archive = next((vault / SESSIONS).parent.glob("archive/sessions/*.md")).read_text()
    assert "> [!summary]- Claude Code's summary (compacted 06:40)" in archive

    start = run_hook("session-start", payload("session-start", None, session_id="next-session"),
                     vault, cwd=tmp_path)
    context = json.loads(start.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "06:40 Context compacted → Immediately before this summary" in context
    # The summary's step was done after the compaction ("The webhook signature check passes
    # against the Stripe test event"): the next session is not told to do it again.
    assert "Verify the refund webhook signature check" not in context
    assert "webhook signature check passes" in context
    assert SECRET not in context


def test_a_note_holding_a_summary_is_still_read_without_markdown_it(
    vault: Path, tmp_path: Path
) -> None:
    """The callouts are plain runs (plainruns reads quotes): later hooks on a compacted session,
    and a turn whose answer is kept whole, spare importing markdown-it."""
    path = tmp_path / "transcript.jsonl"
    shutil.copy(FIXTURES / "transcript-compacted.jsonl", path)
    proc = run_hook("stop", payload("stop", path), vault, cwd=tmp_path)
    assert proc.returncode == 0 and proc.stderr == b"", proc.stderr
    answer = {"type": "assistant", "uuid": "a-after", "timestamp": "2026-11-22T06:50:00Z",
              "message": {"role": "assistant", "content": [{"type": "text", "text": RECAP}]}}
    with path.open("a") as handle:
        handle.write(_user("u-after", "Now document the refunds") + "\n")
        handle.write(json.dumps(answer) + "\n")
    probe = subprocess.run(
        [sys.executable, "-c", PROBE.replace("sys.argv[0]", repr(json.dumps(["markdown_it"]))),
         "--vault", str(vault), "hook", "stop"],
        input=json.dumps(payload("stop", path)).encode(), capture_output=True, cwd=tmp_path,
        env=hook_env(vault), timeout=120, check=False,
    )
    assert json.loads(probe.stderr) == {"code": 0, "heavy": []}
    (note,) = session_notes(vault)
    assert "**Prompt:** Now document the refunds" in note.read_text()
    assert "> [!note]- Claude's answer (15 lines)" in note.read_text()


def test_a_compile_error_fixed_in_the_code_being_written_is_no_gotcha() -> None:
    # Three diagnostics of code that did not build yet, each fixed by changing that code: the
    # summary kept in the note holds them, no item does. The runtime error and the one fixed in
    # the manifest are lessons.
    read = summary.read(
        "4. Errors and Fixes:\n\n"
        "### **Error 1: Widget label type mismatch**\n```\nerror[E0308]: mismatched types: "
        "expected `Label`, found `String`\n```\n**Fix**: Wrapped the value in `Label::new()` "
        "instead of passing the string\n\n"
        "### **Error 2: Missing Clone**\n```\nerror[E0277]: the trait bound `Meter: Clone` is "
        "not satisfied\n```\n**Fix**: Added `#[derive(Clone)]` to Meter\n\n"
        "### **Error 3: Wrong prop type**\n```\nsrc/panel/Gauge.tsx(8,3): error TS2322: Type "
        "'number' is not assignable to type 'string'.\n```\n**Fix**: Converted the value with "
        "`String(watts)`\n\n"
        "### **Error 4: Async runtime without timers**\n```\nerror: A Tokio 1.x context was "
        "found, but timers are disabled.\n```\n**Fix**: Enabled the `time` feature of tokio in "
        "Cargo.toml\n\n"
        "### **Error 5: Unknown crate**\n```\nerror[E0433]: failed to resolve: use of "
        "undeclared crate or module `sysinfo`\n```\n**Fix**: Added the sysinfo dependency\n\n"
        "### **Error 6: Socket in use**\n```\nOSError: [Errno 98] Address already in use\n```\n"
        "**Fix**: Stopped the old dev server before starting a new one\n")
    gotchas = _kinds(read, "gotcha")
    assert [g.split(":")[0] for g in gotchas] == [
        "Async runtime without timers", "Unknown crate", "Socket in use"]
    assert "E0277" in read.kept and "TS2322" in read.kept


def test_a_bold_label_inside_a_numbered_summary_opens_no_section() -> None:
    # "**Current Status**:" under an error entry is that entry's label, not "Current Work".
    read = summary.read(
        "4. Errors and fixes:\n\n### **Error 3: Two panels after login**\n"
        "**Current Status**: STILL OPEN - two panel processes keep starting\n\n"
        "8. Current Work:\n\nI was tracing why the meter shows no readings in the panel.\n")
    assert [s.key for s in read.sections] == ["errors", "current"]
    assert read.outcome == "I was tracing why the meter shows no readings in the panel."
    # An entry that relays the person's feedback (their words) is no gotcha, fix or not.
    relayed = summary.read(
        "4. Errors and fixes:\n\n### **Error 6: Blank meter**\n**User Feedback**: \"just an "
        "empty box in the bar\"\n**Diagnosis**: the label used the panel's own color\n"
        "**Fix**: Set an explicit label color\n")
    assert _kinds(relayed, "gotcha") == []
    # "User Feedback: None" relays nothing.
    none = summary.read(
        "4. Errors and fixes:\n\n### Error 2: Hook blocked the docs commit\n**Error**: the "
        "scanner flagged example keys\n**Fix**: Committed the docs with `--no-verify`\n"
        "**User Feedback**: None - went ahead with the bypass\n")
    assert len(_kinds(none, "gotcha")) == 1
    # Without numbered or headed sections, bold titles still open them.
    plain = summary.read("**Current Work:** Wiring the meter into the panel applet.\n")
    assert [s.key for s in plain.sections] == ["current"]


def test_a_summary_item_naming_no_file_is_filed_under_the_components_the_summary_names() -> None:
    parsed = transcript.parse_lines([_user("u1", "add refunds"),
                                     _user("u2", NUMBERED, isCompactSummary=True,
                                           timestamp="2026-11-22T06:40:00Z")])
    told = ingest.story(parsed.turns, now=NOW, cwd="/home/dev/work/shop")
    by_text = {i.text.split(":")[0]: i.components for i in told.items}
    # "Token rejected right after login: `verify_token` raised …" names no path of its own.
    assert by_text["Token rejected right after login"] == ("Auth",)
    # Next steps stay the session's; a file the summary only names is no component touched.
    assert all(i.components == () for i in told.items if i.kind == "next-step")
    assert set(told.components) <= {"Auth", "Billing"}


GITLEAKS = """This session is being continued from a previous conversation that ran out of context.

Summary:
1. Primary Request and Intent:
   The user asked to harden gitleaks for this repository.

3. Files and Code Sections:
   - **`tests/test_redaction.py`**
     - the only file left in the allowlist
   - **`scripts/scan.sh`** (modified)

4. Errors and fixes:
   - **Invalid ignore entries**: gitleaks warned `WRN Invalid .gitleaksignore entry`. Fixed by \
listing fingerprints instead of wildcards.
"""


def _summary_items(summary_text: str) -> list[ingest.Item]:
    parsed = transcript.parse_lines([_user("u1", "harden gitleaks"),
                                     _user("u2", summary_text, isCompactSummary=True,
                                           timestamp="2026-11-22T06:40:00Z")])
    return list(ingest.story(parsed.turns, now=NOW, cwd="/home/dev/work/shop").items)


def test_a_test_only_named_in_a_summary_gives_its_items_no_component() -> None:
    # Issue 29: a summary naming `tests/test_redaction.py` among gitleaks' findings (no source
    # of a redaction module in sight) filed its gotchas about gitleaks under "Redaction".
    (gotcha,) = [i for i in _summary_items(GITLEAKS) if i.kind == "gotcha"]
    assert gotcha.text.startswith("Invalid ignore entries")
    assert gotcha.components == ()
    # The look-alike: the source's redaction module beside its test names the component.
    source = GITLEAKS.replace("   - **`scripts/scan.sh`** (modified)",
                              "   - **`src/redaction/rules.py`** (modified)")
    (gotcha,) = [i for i in _summary_items(source) if i.kind == "gotcha"]
    assert gotcha.components == ("Redaction",)


def test_a_file_a_summary_lists_outside_the_files_worked_on_gives_no_component() -> None:
    # Issue 29: gitleaks' findings listed in the summary (gemini-slate/*.md) filed the history
    # rewrite's gotchas under "Gemini Slate", a folder the work never touched.
    findings = GITLEAKS + (
        "\n5. Problem Solving:\n   - Remaining findings: 45 hardcoded-ip in "
        "`gemini-slate/network_plan.md`, 39 in `gemini-slate/setup_guide.md`\n")
    (gotcha,) = [i for i in _summary_items(findings) if i.kind == "gotcha"]
    assert gotcha.components == ()
    # The look-alike: the same folder among the files worked on is the work's component.
    worked = findings.replace("   - **`scripts/scan.sh`** (modified)",
                              "   - **`gemini-slate/network_plan.md`** (modified)")
    (gotcha,) = [i for i in _summary_items(worked) if i.kind == "gotcha"]
    assert gotcha.components == ("Gemini Slate",)


def test_an_error_entry_that_labels_why_it_happened_is_a_gotcha_without_a_fix() -> None:
    text = """Summary:
1. Primary Request and Intent:
   Harden the secret scanner.

2. Errors and fixes:
### Error 1: Invalid ignore entries
**Error**:
```
WRN Invalid .scanignore entry fingerprint=logs/**
```
**Issue**: .scanignore doesn't support wildcards like .gitignore does
**Impact**: Minimal - just warnings

### Error 2: History rewrite removed the remote
**Explanation**: A safety feature of the rewrite tool. Can be re-added with `git remote add origin`

### Error 3: Slow scan
**Impact**: The scan took 40 s
"""
    gotchas = _kinds(summary.read(text), "gotcha")
    assert len(gotchas) == 2
    # The glob's ``**`` stays inside its code span; it pairs with no bold label after it.
    assert gotchas[0] == (
        "Invalid ignore entries: Error: `WRN Invalid .scanignore entry fingerprint=logs/**` "
        "Issue: .scanignore doesn't support wildcards like .gitignore does "
        "Impact: Minimal - just warnings")
    assert gotchas[1].startswith("History rewrite removed the remote: Explanation: A safety")


def test_the_files_a_summary_works_on_include_bracketed_folders() -> None:
    # Next.js routes and a redacted user name hold brackets: the path is whole, not its tail.
    said = ("3. Files and Code Sections:\n   - `app/[slug]/page.tsx` (created)\n"
            "   ### `/home/[USER]/shop/src/backend/rapl.rs`\n   - reads RAPL\n")
    assert summary.paths_in(said) == ("app/[slug]/page.tsx",
                                      "/home/[USER]/shop/src/backend/rapl.rs")


PICKED = """Summary:
1. Primary Request and Intent:
   The user wants a tray widget showing the disk temperature.

   User explicitly chose:
   - A panel applet (not a standalone window)
   - Refresh every 2 seconds

   - User asked to read the sensors without root
   - User decided whether to ship a daemon later

2. Problem Solving:
   - The user chose SQLite for the history file.

6. All user messages:
   - the user chose to keep this private
"""


def test_the_persons_pick_a_summary_reports_is_a_decision_with_its_list() -> None:
    assert _kinds(summary.read(PICKED, []), "decision") == [
        "User explicitly chose: A panel applet (not a standalone window); Refresh every 2 seconds",
        "The user chose SQLite for the history file.",
    ]
