"""recall's lines of a note found (a work-log answer, a compact summary), each cause of a fact
in the note but not in the lines shown: the tool log taking the room, a list cut after its first
lines, a heading of an answer shown without its part, a line introducing parts headed below it."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from vaultmem.search import recall
from vaultmem.store.config import Config
from vaultmem.store.vault import Vault

TODAY = dt.date(2026, 11, 22)
NOTE = "claude/projects/shop/sessions/2026-11-16-ci.md"


def _session(vault: Path, body: str) -> None:
    path = vault / NOTE
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        "---\ntype: session\nproject: shop\nupdated: 2026-11-16\nstatus: active\n---\n"
        f"# CI\n\n## Work Log\n\n### 10:00 - fix the ci\n\n{body}", encoding="utf-8")


def _shown(vault: Path, query: str, limit: int = 5) -> list[str]:
    result = recall.recall(Vault(vault), Config(vault=vault, project="shop"), query,
                           today=TODAY, limit=limit)
    return [h.text for h in result.hits]


def test_an_answer_line_comes_before_tool_log_lines_that_match_as_much(vault_root: Path) -> None:
    _session(vault_root, (
        "- Ran `wombat-deploy --canary`\n"
        "- Edited `deploy/wombat.toml`\n"
        "- Failed: `deploy --canary` — `wombat: no canary slot`\n"
        "> The wombat canary needs a free slot: historical deploys hold them all.\n"
    ))
    shown = _shown(vault_root, "wombat", limit=2)
    # What went wrong and what came of it before the commands run and the files edited.
    assert shown == ["Failed: `deploy --canary` — `wombat: no canary slot`",
                     "The wombat canary needs a free slot: historical deploys hold them all."]


def test_what_was_said_along_the_way_comes_after_the_answer(vault_root: Path) -> None:
    from vaultmem.claude import callout

    aside = "I think the wombat canary fails as no wombat slot of the canary slot pool is free."
    notes = callout.notes([aside])
    _session(vault_root, (
        f"**Answer:** Done.\n\n{notes}\n\n### 10:30 - and now\n\n"
        "**Answer:** The wombat canary failed: no slot was free, so I freed two.\n"
    ))
    # The answer first, though the aside says the words more often and earlier; it still shows.
    assert _shown(vault_root, "wombat canary slot") == [
        "Answer: The wombat canary failed: no slot was free, so I freed two.",
        "I think the wombat canary fails as no wombat slot of the canary slot pool is free."]


def test_a_long_list_shows_its_first_line_and_the_lines_that_match(vault_root: Path) -> None:
    # The lines before the one that matches the word the first line lacks fill the room alone.
    steps = "".join(f">    - Step {n}: moved the ledger fixtures of module {n} aside\n"
                    for n in range(12))
    _session(vault_root, (
        "> 6. **Ledger rewrite**: the user asked to rewrite the ledger history. I:\n"
        f"{steps[: len(steps) // 2]}"
        ">    - Verified with the audit: 16,684 -> 392 findings\n"
        f"{steps[len(steps) // 2 :]}"
    ))
    [shown] = _shown(vault_root, "ledger rewrite findings", limit=1)
    assert shown.startswith("Ledger rewrite: the user asked to rewrite the ledger history. I:")
    assert "Verified with the audit: 16,684 -> 392 findings" in shown  # never cut away
    assert "…" in shown and len(shown) <= 330
    assert "Step 11: moved the ledger fixtures of module 11 aside" not in shown


def test_a_heading_of_an_answer_comes_with_its_part_once(vault_root: Path) -> None:
    _session(vault_root, (
        "> [!abstract]- Claude's answer (9 lines)\n"
        "> #### 1. **Auto-redaction script** (`scripts/redact_numbat_secrets.py`)\n"
        ">    - Scans the staged files\n"
        ">    - Keeps the first 4 and last 4 characters of a secret\n"
        ">\n"
        "> #### 2. **Pre-commit hook**\n"
        ">    - Runs the auto-redaction before every commit\n"
        "- Edited `docs/`: `AUTO-REDACTION.md`, `numbat.md` (2 files)\n"
    ))
    shown = _shown(vault_root, "numbat auto-redaction")
    assert shown[0] == (
        "Auto-redaction script (`scripts/redact_numbat_secrets.py`): Scans the staged files "
        "Keeps the first 4 and last 4 characters of a secret"
    )
    assert not any(s.startswith("Keeps the first 4") for s in shown[1:])  # shown once


def test_a_line_introducing_parts_headed_below_it_shows_them(vault_root: Path) -> None:
    _session(vault_root, (
        "> ## The fix\n>\n"
        "> **Updated 2 pipelines with `continue-on-error: true` on all jobs:**\n>\n"
        "> ### 1. **Scan** (`.github/pipelines/scan.yml`)\n"
        ">    - Main scan: non-blocking\n>\n"
        "> ## Next\n>\n"
        "> Watch the next run of the pipelines.\n"
    ))
    shown = _shown(vault_root, "pipelines non-blocking", limit=1)
    assert shown == [("Updated 2 pipelines with `continue-on-error: true` on all jobs: Scan "
                      "(`.github/pipelines/scan.yml`): Main scan: non-blocking")]


def test_a_table_row_comes_under_its_columns_names_before_the_header(vault_root: Path) -> None:
    _session(vault_root, (
        "> | Phase | Focus | Key deliverables |\n"
        "> |-------|-------|------------------|\n"
        "> | **1** | Foundation | Window tracking, layout tree |\n"
        "> | **2** | Keyboard phase | Hotkeys, workspaces |\n"
    ))
    shown = _shown(vault_root, "phase 1", limit=3)
    assert shown == [
        "Phase: 1; Focus: Foundation; Key deliverables: Window tracking, layout tree",
        "Phase: 2; Focus: Keyboard phase; Key deliverables: Hotkeys, workspaces",
        # The header names columns as a heading names a part: after the rows.
        "| Phase | Focus | Key deliverables |",
    ]


def test_words_of_lines_a_passage_leaves_out_do_not_rank_it(vault_root: Path) -> None:
    long_line = "The zebra " + " ".join(["archive"] * 45)
    _session(vault_root, (
        "> Files renamed:\n"
        f"> - {long_line}\n"
        "\n"
        "> The zebra folder was renamed too.\n"
    ))
    shown = _shown(vault_root, "renamed zebra", limit=1)
    assert shown == ["The zebra folder was renamed too."]


def test_a_long_log_of_introducing_lines_still_shows_its_best_line_first() -> None:
    from vaultmem.notes import passages

    steps = "\n".join(f"> - the \x02wombat\x03 step {n} runs:" for n in range(3000))
    body = f"{steps}\n\nThe \x02wombat\x03 \x02canary\x03 failed twice.\n"
    shown = [text for text, _ in passages.best_lines(body, "\x02", "\x03", 3)]
    assert shown[0] == "The wombat canary failed twice."
    # Each introducing line comes with the lines it introduces; none is shown twice.
    assert shown[1].startswith("the wombat step 0 runs: the wombat step 1 runs:")
    assert len(set(shown)) == 3


def test_a_passage_ends_at_a_rule_and_leaves_a_tables_rule_line_out() -> None:
    from vaultmem.notes import passages

    body = (
        "> Here is what the \x02wombat\x03 change did:\n"
        "> | Metric | Before |\n> |--------|--------|\n> | Runs | 3 |\n>\n> ---\n"
        "> Next, the canary.\n"
    )
    [(shown, _)] = passages.best_lines(body, "\x02", "\x03")
    assert shown == "Here is what the wombat change did: | Metric | Before | | Runs | 3 |"


def test_a_code_fence_matched_by_its_language_is_no_line_shown() -> None:
    from vaultmem.notes import passages

    body = "Run it again:\n```\x02bash\x03\n./deploy.sh\n```\n- The \x02bash\x03 script needs LF endings\n"
    shown = [text for text, _ in passages.best_lines(body, "\x02", "\x03", 3)]
    assert shown == ["The bash script needs LF endings"]


def test_a_tool_log_line_comes_with_its_entrys_answer_line_once(vault_root: Path) -> None:
    _session(vault_root, (
        "**Prompt:** set it up\n"
        "**Answer:** Built the koala review action; it needs the KOALA_TOKEN secret.\n\n"
        "- Edited `ci/koala-review-pipeline.yml`\n"
        "- Ran `git add ci/koala-review-pipeline.yml`\n"
    ))
    shown = _shown(vault_root, "koala review pipeline", limit=3)
    # The file names where, the answer what came of it: one passage; the answer is not shown
    # again with the next log line, which comes alone.
    assert shown == [
        ("Answer: Built the koala review action; it needs the KOALA_TOKEN secret. "
         "Edited `ci/koala-review-pipeline.yml`"),
        "Ran `git add ci/koala-review-pipeline.yml`",
    ]


def test_a_tool_log_line_whose_answer_line_leaves_no_room_comes_alone(vault_root: Path) -> None:
    answer = "The numbat service now starts " + " ".join(["cleanly"] * 45) + "."
    _session(vault_root, (
        f"**Prompt:** go\n**Answer:** {answer}\n\n"
        "- Ran `mkdir -p ~/src/numbat-pipeline && cd ~/src/numbat-pipeline && git init`\n"
    ))
    shown = _shown(vault_root, "numbat pipeline", limit=1)
    assert shown == ["Ran `mkdir -p ~/src/numbat-pipeline && cd ~/src/numbat-pipeline && git init`"]


def test_items_under_a_line_saying_what_they_list_come_together(vault_root: Path) -> None:
    # No item holds every word asked, the list does: it is shown under its lead-in, which
    # matches nothing itself; the items are not shown again alone.
    _session(vault_root, (
        "> [!note]- Claude's answer (6 lines)\n"
        "> ### Option 2: wombat as the login shell\n"
        "> **Status**: limited\n>\n"
        "> **Findings:**\n"
        "> - The launcher has no setting to change the default shell\n"
        "> - Its tool is hardcoded to use dash\n"
        "> - You can run wombat commands through the tool\n"
        "\n- Ran `wombat --version`\n"
    ))
    shown = _shown(vault_root, "wombat default shell setting")
    assert shown[0] == ("Findings: The launcher has no setting to change the default shell "
                        "Its tool is hardcoded to use dash You can run wombat commands through "
                        "the tool")
    assert not any(s.startswith(("The launcher", "You can run")) for s in shown[1:])


def test_a_line_holding_every_word_comes_before_one_repeating_a_few(vault_root: Path) -> None:
    _session(vault_root, (
        "> The canary, the canaries and every canary of the pool are in the canary sheet.\n"
        "> \n"
        "> The wombat canary waits for a free slot.\n"
    ))
    # Two words of the query said once answer more than one word said four times over.
    assert _shown(vault_root, "wombat canary", limit=1) == [
        "The wombat canary waits for a free slot."]


def test_the_line_naming_what_few_lines_name_comes_first(vault_root: Path) -> None:
    _session(vault_root, (
        "> We deploy on Mondays.\n> \n> Each deploy is logged.\n> \n> A deploy is quick.\n> \n"
        "> Every deploy takes a slot: the deploy, the deploy and the deploy again.\n> \n"
        "> Deploying to eu-west needs a reserved slot.\n"
    ))
    # "Deploying" is said on one line of the note, "deploy" on most: saying the common word
    # more often does not outweigh it (relevance: BM25 over the note's lines).
    assert _shown(vault_root, "deploy slot", limit=1) == [
        "Deploying to eu-west needs a reserved slot."]


def test_a_lower_ranked_note_holding_every_word_on_a_line_is_shown(vault_root: Path) -> None:
    for n in range(6):
        path = vault_root / f"claude/projects/shop/sessions/2026-11-1{n}-gpg-{n}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        # Notes saying "gpg" and "commit" often, on lines of their own, rank first.
        path.write_text(
            "---\ntype: session\nproject: shop\nupdated: 2026-11-16\n---\n# Work\n\n## Work Log\n\n"
            + "".join(f"> The gpg agent of host {n} ran again ({k}).\n>\n> Commit {n}{k} was made.\n>\n"
                      for k in range(8)), encoding="utf-8")
    # A long note saying them once ranks last.
    _session(vault_root, "".join(f"> Step {k} of the release went as planned.\n>\n" for k in range(80))
             + "> The commit failed: gpg could not sign it, so it was made with --no-gpg-sign.\n")
    # The line holding both words is shown, however its note ranks among those holding them.
    assert any("--no-gpg-sign" in text for text in _shown(vault_root, "gpg commit", limit=5))


def test_an_answer_line_of_the_entry_that_asked_comes_before_one_of_another_entry(
        vault_root: Path) -> None:
    _session(vault_root, (
        "**Prompt:** tidy the logs\n"
        "**Answer:** The gateway logs rotate daily.\n\n"
        "### 11:00 - why does the gateway refuse queries\n\n"
        "**Prompt:** why does the gateway refuse queries\n"
        "**Answer:** Pinned the gateway upstream list to port 5335; lookups pass again.\n"
    ))
    # Both answers name one word of the query, the first one earlier and shorter; the entry
    # whose prompt asked the rest holds the answer.
    assert _shown(vault_root, "gateway refuse queries", limit=3) == [
        "Prompt: why does the gateway refuse queries",
        "Answer: Pinned the gateway upstream list to port 5335; lookups pass again.",
        "Answer: The gateway logs rotate daily."]
