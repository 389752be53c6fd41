"""compaction.py: the threshold, the deterministic extractor and the plan (pure)."""

from __future__ import annotations

from datetime import date, timedelta
from pathlib import Path

import pytest

from vaultmem.claude import errorline, onfailure
from vaultmem.memory import compaction, sessionextract
from vaultmem.memory.extraction import Extraction, Item
from vaultmem.notes import names, patch
from vaultmem.store.config import Config
from vaultmem.store.layout import Layout

CONFIG = Config(vault=Path("/nonexistent"), project="demo")
TODAY = date(2026, 11, 22)
REL = "claude/projects/demo/sessions/2026-11-20-auth.md"
LAYOUT = Layout("claude")

NOTE = """\
---
type: session
project: demo
created: 2026-11-20
status: active
continues: "[[Frontmatter Entity]]"
---
# Auth work

## Context

Working on [[Auth]] with [[claude/projects/demo/entities/Database|the db]]; see [[2026-11-19-prev]].
A picture ![[Diagram]] and `[[InCode]]` are not entities.

## Work Log

### 10:30 - Fixed bug in token refresh

Started looking. The Root Cause was a stale [[Cache]] entry. More text.

### 10:45 - Plain work

Edited `x.py`; see [[../../etc/passwd]] for nothing.

### 11:00 - Quiet <private>resolved the password hunter2</private>

Nothing to see.

### 11:10 - WORKAROUND for flaky CI

- Pinned the runner image.

## Decisions Made

- Use JWT for sessions — why: stateless ([[Auth]], [[Redis]])
- Keep <private>secret sauce</private> the cache small
  across restarts
- Plain decision ^old-block

## Open Questions

## Next Steps

## Related Entities

- [[Auth]]
- [[Lonely]]
"""


@pytest.mark.parametrize(
    ("lines", "age", "due", "text", "reason"),
    [
        (600, 1, True, "due: 600 lines", "Compaction threshold exceeded (600 lines)"),
        (300, 4, True, "due: 4 days old", "Compaction threshold exceeded (4 days old)"),
        (600, 4, True, "due: 600 lines, 4 days old",
         "Compaction threshold exceeded (600 lines, 4 days old)"),
        (200, 1, False, "below threshold (200 lines, 1 day old)", ""),
        (499, 0, False, "below threshold (499 lines, 0 days old)", ""),
        (500, 0, True, "due: 500 lines", "Compaction threshold exceeded (500 lines)"),
        (10, 2, False, "below threshold (10 lines, 2 days old)", ""),
        (10, 3, True, "due: 3 days old", "Compaction threshold exceeded (3 days old)"),
    ],
)
def test_verdict(lines: int, age: int, due: bool, text: str, reason: str) -> None:
    v = compaction.verdict(lines, TODAY - timedelta(days=age), TODAY, CONFIG)
    assert (v.due, v.text, v.reason, v.lines, v.age_days) == (due, text, reason, lines, age)


def test_verdict_thresholds_are_configurable() -> None:
    config = Config(vault=Path("/x"), project="p", line_threshold=50, age_threshold_days=1)
    assert compaction.verdict(50, TODAY, TODAY, config).due
    assert compaction.verdict(10, TODAY - timedelta(days=1), TODAY, config).due
    assert not compaction.verdict(49, TODAY, TODAY, config).due


def test_created_date_fallbacks() -> None:
    assert compaction.created_date({"created": date(2026, 1, 2)}, REL, TODAY) == date(2026, 1, 2)
    assert compaction.created_date({"created": "2026-01-03"}, REL, TODAY) == date(2026, 1, 3)
    assert compaction.created_date({}, REL, TODAY) == date(2026, 11, 20)
    assert compaction.created_date({}, "x/notes/free.md", TODAY) == TODAY


def _extract() -> tuple[Extraction, tuple[str, ...]]:
    return sessionextract.extract_report(NOTE, REL, CONFIG)


def test_decisions() -> None:
    ex, _ = _extract()
    decisions = [i for i in ex.items if i.kind == "decision"]
    assert [d.text for d in decisions] == [
        "Use JWT for sessions — why: stateless",
        "Keep the cache small across restarts",
        "Plain decision",
    ]
    assert decisions[0].entities == ("Auth", "Redis")
    # No link in the item, but it mentions the cache the session links: [[Cache]].
    assert decisions[1].entities == ("Cache",)
    # Nothing known: two entities under Related Entities -> the fallback entity.
    assert decisions[2].entities == ("Inbox",)
    assert NOTE.split("\n")[decisions[0].line] == "- Use JWT for sessions — why: stateless ([[Auth]], [[Redis]])"


def test_gotchas_one_per_matching_entry() -> None:
    ex, _ = _extract()
    gotchas = [i for i in ex.items if i.kind == "gotcha"]
    assert [g.text for g in gotchas] == [
        "Fixed bug in token refresh: The Root Cause was a stale [[Cache]] entry.",
        "WORKAROUND for flaky CI: Pinned the runner image.",
    ]
    assert gotchas[0].entities == ("Cache",)
    assert gotchas[1].entities == ("Inbox",)


def test_references_one_per_entity_outside_items() -> None:
    ex, _ = _extract()
    refs = {i.entities[0]: i for i in ex.items if i.kind == "reference"}
    assert set(refs) == {"Auth", "Database", "Lonely"}
    assert refs["Auth"].text.startswith("Working on [[Auth]] with")
    assert refs["Database"].line == refs["Auth"].line
    # Only ever linked bare, and no item goes to it: a plain reference.
    assert refs["Lonely"].text == "Linked from the session"
    # Session names, embeds, code, frontmatter and plain paths are not entities.
    every = {e for i in ex.items for e in i.entities}
    assert not every & {"2026-11-19-prev", "Diagram", "InCode", "Frontmatter Entity", "passwd"}


def test_private_text_never_extracted() -> None:
    ex, _ = _extract()
    blob = "\n".join(i.text for i in ex.items)
    assert "secret" not in blob and "hunter2" not in blob and "password" not in blob
    # "resolved" only inside <private> does not make the 11:00 entry a gotcha.
    assert not any("Quiet" in i.text for i in ex.items)


def test_private_link_is_not_a_reference() -> None:
    text = NOTE.replace("Nothing to see.", "<private>see [[Hidden Entity]]</private>")
    ex = sessionextract.extract(text, REL, CONFIG)
    assert not any("Hidden Entity" in i.entities for i in ex.items)


def test_unsafe_link_is_refused_with_a_warning() -> None:
    text = NOTE.replace("- Plain decision ^old-block", "- Read [[../../x]] first")
    ex, warnings = sessionextract.extract_report(text, REL, CONFIG)
    item = next(i for i in ex.items if i.text.startswith("Read"))
    assert item.text == "Read ../../x first"
    assert item.entities == ("Inbox",)
    assert any("../../x" in w for w in warnings)
    assert any("etc/passwd" in w for w in warnings)


def test_single_related_entity_is_the_fallback() -> None:
    text = NOTE.replace("- [[Lonely]]\n", "")
    ex = sessionextract.extract(text, REL, CONFIG)
    assert next(i for i in ex.items if i.text == "Plain decision").entities == ("Auth",)


def test_the_ci_alone_related_is_the_fallback_only_of_what_speaks_of_it() -> None:
    # Issue 29: a session that edited a workflow beside scripts has CI as its only component;
    # git's and a script's gotchas were filed there with the workflow's. The CI is the home of
    # an item naming nothing only when the item is about it.
    text = NOTE.replace("- [[Lonely]]\n", "").replace("- [[Auth]]\n", "- [[CI]]\n").replace(
        "- Plain decision ^old-block",
        "- Plain decision ^old-block\n- The sync workflow runs only on pull requests")
    ex = sessionextract.extract(text, REL, CONFIG)
    entities = {i.text: i.entities for i in ex.items if i.kind == "decision"}
    assert entities["Plain decision"] == ("Inbox",)
    assert entities["The sync workflow runs only on pull requests"] == ("CI",)
    # Any other lone component is the fallback of everything, as before.
    lone = sessionextract.extract(text.replace("- [[CI]]\n", "- [[Sync]]\n"), REL, CONFIG)
    assert next(i for i in lone.items if i.text == "Plain decision").entities == ("Sync",)


def test_a_component_and_a_part_of_it_make_one_component_of_the_session() -> None:
    # Issue 29: a session that edited src/ and src/backend/ named two components; its
    # decisions that name neither went to Inbox. The part is inside the whole: the whole is the
    # session's one component. Two side by side are still two (the fallback).
    text = NOTE.replace("- [[Lonely]]\n", "").replace(
        "- [[Auth]]\n", "- [[Applet]] — `src/`\n- [[Backend]] — `src/backend/`\n")
    ex = sessionextract.extract(text, REL, CONFIG)
    assert next(i for i in ex.items if i.text == "Plain decision").entities == ("Applet",)
    apart = sessionextract.extract(text.replace("`src/backend/`", "`lib/backend/`"), REL, CONFIG)
    assert next(i for i in apart.items if i.text == "Plain decision").entities == ("Inbox",)


def test_keywords_are_configurable() -> None:
    config = Config(vault=Path("/x"), project="demo", gotcha_keywords=("plain work",))
    ex = sessionextract.extract(NOTE, REL, config)
    assert [i.text.split(":")[0] for i in ex.items if i.kind == "gotcha"] == ["Plain work"]


def test_assign_targets_guards_llm_items() -> None:
    raw = Extraction(
        (Item("pattern", "Use [[../../y]] wisely", ("../../y", "Good"), -1),
         Item("decision", "No entity", (), -1)),
        "llm",
    )
    out, warnings = sessionextract.assign_targets(raw, NOTE, REL, CONFIG)
    assert out.items[0].entities == ("Good",)
    assert out.items[0].text == "Use ../../y wisely"
    assert out.items[1].entities == ("Inbox",)
    assert len(warnings) == 2


def test_canonical_undoes_a_failed_run() -> None:
    failed = patch.apply_all(NOTE, compaction.failed_edits("boom")).text
    assert failed != NOTE
    assert compaction.canonical(failed) == NOTE
    with_archive_error = patch.apply_all(
        NOTE, [patch.SetProperty("archive_error", "Verification failed")]
    ).text
    assert compaction.canonical(with_archive_error) == NOTE


def test_entity_targets_project_then_global_then_new() -> None:
    known = [
        "claude/projects/demo/entities/auth.md",
        "claude/global/entities/Redis.md",
        "claude/global/entities/Auth.md",
        "claude/projects/other/entities/Cache.md",
    ]
    got = compaction.entity_targets(["Auth", "Redis", "Cache"], "demo", LAYOUT, known)
    assert got == {
        "Auth": "claude/projects/demo/entities/auth.md",
        "Redis": "claude/global/entities/Redis.md",
        "Cache": "claude/projects/demo/entities/Cache.md",
    }


def _plan(texts: dict[str, str], note: str = NOTE, rel: str = REL) -> compaction.Plan:
    ex = sessionextract.extract(note, rel, CONFIG)
    names_ = {n for i in ex.items for n in i.entities}
    targets = compaction.entity_targets(names_, "demo", LAYOUT, texts)
    return compaction.plan(ex, rel, targets, texts, layout=LAYOUT, today=TODAY,
                           day=date(2026, 11, 20), components_=sessionextract.components(note))


def _composed(plan: compaction.Plan, texts: dict[str, str]) -> dict[str, str]:
    out = {}
    for e in plan.entities:
        base = texts.get(e.rel, e.create_text)
        assert base is not None
        out[e.rel] = e.compose(base, TODAY).text
    return out


def test_plan_lines_and_block_ids() -> None:
    plan = _plan({})
    assert plan.archive_rel == "claude/projects/demo/archive/sessions/2026-11-20-auth.md"
    assert [e.name for e in plan.entities] == ["Auth", "Redis", "Cache", "Inbox", "Database"]
    auth = plan.entities[0]
    assert auth.create and auth.create_text is not None
    # The id depends on the kind and the fact, not on the session.
    block = names.block_id("decision", "use jwt for sessions — why: stateless")
    line = ("- 2026-11-20 — Use JWT for sessions — why: stateless "
            "([[claude/projects/demo/archive/sessions/2026-11-20-auth|2026-11-20-auth]]) ^" + block)
    assert auth.lines[0].render() == line
    text = _composed(plan, {})[auth.rel]
    assert "## Key Decisions\n\n" + line + "\n" in text
    assert plan.counts == {"decision": 3, "gotcha": 2, "reference": 3, "pattern": 0,
                           "prerequisite": 0}
    # Inbox is no component: no overview, no related links.
    inbox = next(e for e in plan.entities if e.name == "Inbox")
    assert inbox.overview is None and inbox.related == ()
    # Related: the entities Auth shares an item with, not every one the session touched.
    assert auth.related == ("[[claude/projects/demo/entities/Redis|Redis]]",)


def test_plan_applied_twice_changes_nothing() -> None:
    first = _plan({})
    texts = _composed(first, {})
    again = _plan(texts)
    assert all(not e.create for e in again.entities)
    for e in again.entities:
        composed = e.compose(texts[e.rel], TODAY)
        assert composed.text == texts[e.rel]
        assert composed.added == composed.merged == 0
        assert composed.present == len(e.lines)


def test_backlink_once() -> None:
    plan = _plan({})
    text = _composed(plan, {})[plan.entities[0].rel]
    assert ("## References\n\n- [[claude/projects/demo/archive/sessions/2026-11-20-auth|"
            "2026-11-20-auth]] - Archived session (compacted)\n") in text
    assert text.count("Archived session (compacted)") == 1


def test_an_entity_only_named_gets_its_backlink_and_no_line() -> None:
    """"Linked from the session" says nothing: no Recent Changes line of no content."""
    assert "Lonely" not in [e.name for e in _plan({}).entities]  # no note of no line made
    rel = "claude/projects/demo/entities/Lonely.md"
    before = compaction.new_entity_text("Lonely", "demo", TODAY, "x.md")
    plan = _plan({rel: before})
    lonely = next(e for e in plan.entities if e.name == "Lonely")
    assert lonely.lines == ()
    text = _composed(plan, {rel: before})[lonely.rel]
    assert "Linked from the session" not in text
    assert "- [[claude/projects/demo/archive/sessions/2026-11-20-auth|2026-11-20-auth]] - " \
           "Archived session (compacted)" in text


def test_session_project_refuses_other_paths() -> None:
    assert compaction.session_project(REL) == "demo"
    with pytest.raises(Exception, match="not a session note"):
        compaction.session_project("notes/x.md")


def test_entity_targets_match_case_and_nfc_and_reuse_the_file_name() -> None:
    nfd = "claude/projects/demo/entities/Cafe\u0301.md"
    got = compaction.entity_targets(["auth", "Auth", "Caf\u00e9", "New", "NEW"], "demo", LAYOUT,
                                    [nfd, "claude/global/entities/AUTH.md"])
    assert got == {
        "auth": "claude/global/entities/AUTH.md",
        "Auth": "claude/global/entities/AUTH.md",
        "Caf\u00e9": nfd,
        "New": "claude/projects/demo/entities/New.md",
        "NEW": "claude/projects/demo/entities/New.md",
    }


def test_doubled_labels_are_stripped() -> None:
    assert sessionextract.unlabel("Gotcha: Gotcha: the webhook") == "the webhook"
    assert sessionextract.unlabel("**Decision:** use X") == "use X"
    assert sessionextract.unlabel("Decisions: a") == "a"
    assert sessionextract.unlabel("Root cause: stale key") == "Root cause: stale key"


def test_what_is_left_to_do_makes_no_reference_and_no_line_keeps_its_link_group() -> None:
    note = (
        "---\ntype: session\ncreated: 2026-11-13\n---\n# Refunds\n\n## Work Log\n\n"
        "### 09:00 - Start on refunds\n\n- Edited `src/billing/`: refunds.py ([[Billing]])\n"
        "- Looked at the schema ([[DB]], [[Orders]]) ^ab12\n\n"
        "## Open Questions\n\n- Should CI use a real Postgres? ([[Billing]], [[Refunds]])\n\n"
        "## Next Steps\n\n- Add the refund endpoint ([[Refunds]])\n"
    )
    ex, _ = sessionextract.extract_report(note, REL, CONFIG)
    refs = {i.entities[0]: i.text for i in ex.items if i.kind == "reference"}
    assert refs["Billing"].startswith("Edited `src/billing/`: refunds.py")
    assert refs["DB"] == refs["Orders"] == "Looked at the schema"
    assert "Refunds" not in refs  # linked only from what is left to do
    assert not any("[[" in text for text in refs.values())


def test_a_near_spelling_goes_to_the_entity_that_exists() -> None:
    known = {"claude/projects/demo/entities/Invoice.md",
             "claude/global/entities/Power Monitor.md"}
    got = compaction.entity_targets(["Invoices", "power_monitor", "Refund", "refunds"], "demo",
                                    LAYOUT, known)
    assert got == {
        "Invoices": "claude/projects/demo/entities/Invoice.md",
        "power_monitor": "claude/global/entities/Power Monitor.md",
        "Refund": "claude/projects/demo/entities/Refund.md",
        "refunds": "claude/projects/demo/entities/Refund.md",  # one new note for both
    }


def test_a_name_that_starts_or_ends_another_goes_to_the_entity_that_exists() -> None:
    # "Power Monitor" (src/power_monitor.rs) and "Cosmic Applet Power Monitor" (the crate's
    # folder) are one feature; a one-word name ("Auth" of "Auth Tokens") may be a part of its own.
    known = {"claude/projects/demo/entities/Cosmic Applet Power Monitor.md",
             "claude/projects/demo/entities/Auth.md",
             "claude/projects/demo/entities/Billing Webhooks.md"}
    got = compaction.entity_targets(
        ["power_monitor", "Auth Tokens", "Stripe Billing Webhooks", "Billing", "Rate Limiter",
         "Rate Limiter Redis", "Monitor"], "demo", LAYOUT, known)
    entities = "claude/projects/demo/entities/"
    assert got == {
        "power_monitor": f"{entities}Cosmic Applet Power Monitor.md",
        "Auth Tokens": f"{entities}Auth Tokens.md",
        "Stripe Billing Webhooks": f"{entities}Billing Webhooks.md",
        "Billing": f"{entities}Billing.md",
        "Rate Limiter": f"{entities}Rate Limiter.md",
        "Rate Limiter Redis": f"{entities}Rate Limiter.md",  # a new name met before it
        "Monitor": f"{entities}Monitor.md",
    }


def test_one_failure_told_in_two_gotchas_is_one_entity_item() -> None:
    said = ("The build needs the OpenSSL headers: install `libssl-dev` (`cargo build` failed: "
            "`error: failed to run custom build command for openssl-sys`)")
    passed = ("`cargo build` failed (`error: failed to run custom build command for "
              "openssl-sys`); it passed after running `sudo apt install libssl-dev`")
    text = (f"---\ntype: session\nproject: demo\ncreated: 2026-11-20\n---\n# Build\n\n"
            f"## Gotchas & Fixes\n\n- {said} ([[Build]])\n- {passed} ([[Build]])\n")
    ex = sessionextract.extract(text, REL, CONFIG)
    assert [i.text for i in ex.items if i.kind == "gotcha"] == [said]


def test_a_long_gotcha_cut_to_one_line_keeps_the_error_it_quotes() -> None:
    # The failure hook finds a gotcha by the error it quotes: the cut spares the explanation.
    why = ("The deploy workflow file is owned by root with restricted permissions, so it cannot "
           "be read or edited from here until its owner changes; the same holds for the other "
           "generated workflow files in that folder. ")
    said = (f"{why}For the person to run: `sudo chown $USER:$USER .github/workflows/deploy.yml` "
            "(`sudo cat .github/workflows/deploy.yml` failed: `sudo: a terminal is required to "
            "read the password; either use the -S option to read from standard input or "
            "configure an askpass helper`)")
    text = (f"---\ntype: session\nproject: demo\ncreated: 2026-11-20\n---\n# Deploy\n\n"
            f"## Gotchas & Fixes\n\n- {said} ([[Deploy]])\n")
    [gotcha] = [i for i in sessionextract.extract(text, REL, CONFIG).items if i.kind == "gotcha"]

    assert len(gotcha.text) <= sessionextract.MAX_ITEM_CHARS
    assert "`sudo chown $USER:$USER .github/workflows/deploy.yml`" in gotcha.text
    assert "failed: `sudo: a terminal is required to read the password" in gotcha.text
    failure = onfailure.Failure("Bash", "sudo systemctl restart nginx", None,
                                "Exit code 1\nsudo: a terminal is required to read the password; "
                                "either use the -S option to read from standard input")
    assert onfailure.tier(failure, errorline.signature(failure.error), gotcha.text) == 0


def test_a_reported_fix_folds_into_the_handed_line_keeping_its_error() -> None:
    """One lesson, one line: the line that named the file keeps the fix, and the report's
    failure (the error the failure hook meets again) joins it."""
    handed = ("For the person to run `sudo chown $USER:$USER ./.github/workflows/build.yml`: "
              "the workflow file is owned by root (600). " + "It cannot be read. " * 12 + "To… " +
              "(`sudo cat ./.github/workflows/build.yml` failed: `sudo: a terminal is required`)")
    reported = ("Fixed by the person, who said: \u201cchanged ownership i think\u201d (`cat "
                "./.github/workflows/build.yml` failed: `cat: ./.github/workflows/build.yml: "
                "Permission denied`)")
    note = f"# s\n\n## Gotchas & Fixes\n\n- {handed} ([[CI]])\n- {reported} ([[CI]])\n"
    gotchas = [i for i in sessionextract.extract(note, REL, CONFIG).items if i.kind == "gotcha"]
    assert len(gotchas) == 1
    text = gotchas[0].text
    # The later state wins: the command the person was handed is done, not still to run.
    assert text.startswith("Fixed by the person running `sudo chown $USER:$USER ./.github/")
    assert "For the person to run" not in text
    assert "sudo chown $USER:$USER ./.github/workflows/build.yml" in text
    assert text.endswith("build.yml: Permission denied`)")
    assert len(text) <= sessionextract.MAX_ITEM_CHARS
    assert "……" not in text


def test_a_tools_gotcha_goes_to_the_tool_not_the_fallback() -> None:
    # Issue 29: gotchas whose turn named no component (git push rejected, signing failed,
    # sudo needing a terminal) sat in Inbox; people look them up under the tool.
    gotchas = """\
## Gotchas & Fixes

- Fixed with `--no-gpg-sign`: `git commit` failed (`error: gpg failed to sign the data`)
- Git Bash forks fail under MSYS2: exclude its folder from Defender
- Fixed by running `git pull`: `git push` failed (`! [rejected] main (fetch first)`) ([[Auth]])
- Fixed by editing `src/app.rs`: `cargo build` failed (`error[E0412]: no type Message`)
- For the person to run `sudo ufw enable` (`sudo ufw enable` failed: `sudo: a terminal is \
required to read the password`)
- Pre-commit hook blocked the commit: `git commit` failed (`gitleaks found 3 leaks`)

## Open Questions"""
    text = NOTE.replace("## Open Questions", gotchas, 1)
    ex = sessionextract.extract(text, REL, CONFIG)
    entities = {i.text.split(":")[0]: i.entities for i in ex.items if i.kind == "gotcha"}
    # Named as the session spells the tool: its commands (a sentence's first word is
    # capitalised whatever the name), never a case made up for it (issue 29: "Uci").
    assert entities["Fixed with `--no-gpg-sign`"] == ("git",)
    assert entities["Git Bash forks fail under MSYS2"] == ("git",)  # a tool the session's ran
    # What it links first, then the tool its own words name (issue 29: no more than two).
    assert entities["Fixed by running `git pull`"] == ("Auth", "git")
    assert entities["Fixed by editing `src/app.rs`"] == ("Inbox",)  # the code's, not cargo's
    assert entities["For the person to run `sudo ufw enable` (`sudo ufw enable` failed"] == (
        "sudo",)
    assert entities["Pre-commit hook blocked the commit"] == ("pre-commit",)  # the hook named


def _remote_session(ran: str, related: str = "") -> dict[str, tuple[str, ...]]:
    text = f"""\
---
type: session
project: demo
created: 2026-11-20
---
# Router

## Work Log

### 10:00 - ssh into the router and stop the cloud services

{ran}

## Gotchas & Fixes

- The screen service polled the removed services every 5 s: stopped and disabled

## Decisions Made

- WAN DNS leak protection enabled (firewall.wan_drop_leaked_dns)
{related}"""
    ex = sessionextract.extract(text, REL, CONFIG)
    return {i.text.split(" ")[0]: i.entities for i in ex.items if i.kind != "reference"}


def test_a_session_on_one_machine_over_ssh_files_under_the_machine() -> None:
    # Issue 29: a session that administered a router over ssh edited no file of the project,
    # and all it learnt sat in Inbox; people look it up under the machine.
    one = "- Ran `ssh -o ConnectTimeout=5 root@slate \"opkg remove gl-cloud\"`"
    assert _remote_session(one) == {"The": ("slate",), "WAN": ("slate",)}
    # By address only, two machines, or a component of its own: as before.
    assert set(_remote_session("- Ran `ssh root@10.0.0.1 uptime`").values()) == {("Inbox",)}
    two = one + "\n- Ran `ssh nas df -h`"
    assert set(_remote_session(two).values()) == {("Inbox",)}
    own = "\n## Related Entities\n\n- [[Firewall]] — `firewall/`\n"
    assert set(_remote_session(one, own).values()) == {("Firewall",)}


def test_system_work_files_under_the_program_service_or_machine_it_names() -> None:
    # Issue 29: a session in the home folder administering a router's DNS touched no folder of
    # a project; its components are the programs and services its commands name.
    def turn(at: str, ran: str, answer: str) -> str:
        return f"### {at} - work\n\n**Prompt:** go on\n**Answer:** {answer}\n\n- Ran `{ran}`\n\n"

    text = f"""\
---
type: session
project: demo
created: 2026-11-20
---
# Router

## Work Log

{turn("10:00", 'ssh root@10.0.0.1 "/etc/init.d/dnsmasq restart"',
      "The upstream server has to be a list, not a single option.")}\
{turn("10:10", 'ssh root@10.0.0.1 "/etc/init.d/blocky restart && /etc/init.d/dnsmasq restart"',
      "Both came back once the restart order was swapped around.")}\
{turn("10:20", "npx ccusage daily", "Usage tracking works on Windows with the CLI only.")}\
## Gotchas & Fixes

- The upstream server has to be a list, not a single option
- Both came back once the restart order was swapped around
- Enabling queryLog in Blocky v0.23 makes DNS queries time out

## Decisions Made

- ccusage as the usage tracker on Windows
- Usage tracking works on Windows with the CLI only
"""
    ex = sessionextract.extract(text, REL, CONFIG)
    assert {i.text: i.entities for i in ex.items if i.kind != "reference"} == {
        # Its own words first: a service or a program the session's commands name, named as
        # its prose spells it inside a sentence, else as its commands do.
        "Enabling queryLog in Blocky v0.23 makes DNS queries time out": ("Blocky",),
        "ccusage as the usage tracker on Windows": ("ccusage",),
        # Else the one service its turn's commands act on.
        "The upstream server has to be a list, not a single option": ("dnsmasq",),
        # A turn about two things lends neither; a program it only ran names no subject.
        "Both came back once the restart order was swapped around": ("Inbox",),
        "Usage tracking works on Windows with the CLI only": ("Inbox",)}
