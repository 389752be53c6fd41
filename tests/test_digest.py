"""digest.py: what the briefing reads from session, entity and index notes (pure), on notes in
the contract's format (tests/fixtures/briefing) and on notes a person reorganised."""

from __future__ import annotations

from pathlib import Path

from conftest import FIXTURES
from hypothesis import given, settings
from hypothesis import strategies as st
from property_kit import examples

from vaultmem.brief import digest
from vaultmem.brief.digest import Item

SHOP = FIXTURES / "briefing" / "claude" / "projects" / "shop"
LAST = "claude/projects/shop/sessions/2026-11-21-refunds-and-ci.md"


def _fixture(rel: str) -> str:
    return (SHOP / Path(rel).relative_to("claude/projects/shop")).read_text()


HAND_WRITTEN = """---
type: session
created: 2026-11-20
status: active
---
# Session

## Work Log

### 10:00 - Something

- not a decision

## Decisions Made

- first ^vm-0123abcd
- second
  - nested detail
  continuation line
1. third, numbered
- [x] fourth, a task

```
- inside code is not an item
```

## Open Questions

- why?

## Next Steps
"""


def test_items_are_top_level_list_lines_without_block_ids_or_code() -> None:
    d = digest.session("s/2026-11-21-x.md", HAND_WRITTEN)
    assert [i.text for i in d.decisions] == ["first", "second", "third, numbered", "fourth, a task"]
    assert [i.text for i in d.open_questions] == ["why?"] and d.next_steps == ()
    assert (d.date, d.topic, d.status) == ("2026-11-20", "Session", "active")


def test_item_splits_date_text_and_trailing_links() -> None:
    line = "2026-11-21 — Use RS256 ([[a/b/2026-11-21-x|2026-11-21-x]], [[c|d]]) ^vm-89abcdef"
    assert digest.item(line) == Item("Use RS256", "2026-11-21", ("a/b/2026-11-21-x", "c"))
    assert digest.item("Verify on raw bytes ([[Billing]], [[API]])") == Item(
        "Verify on raw bytes", None, ("Billing", "API"))
    # Links inside the text stay; only a trailing group is the item's routing.
    assert digest.item("[[Auth]] owns tokens").text == "[[Auth]] owns tokens"
    assert digest.item("([[Auth]])") == Item("([[Auth]])")
    filed = digest.item("2026-11-17 — Next, add refunds. ([[Billing]]) ([[a/s|s]]) ^vm-01234567")
    assert filed == Item("Next, add refunds.", "2026-11-17", ("a/s",))


def test_the_last_session_of_the_fixture() -> None:
    d = digest.session(LAST, _fixture(LAST))
    assert (d.date, d.topic, d.status, d.branch) == (
        "2026-11-21", "add the refund endpoint", "active", "feat/refunds")
    assert [(t.time, t.title) for t in d.turns] == [
        ("10:05", "add the refund endpoint"), ("11:40", "run the whole suite"),
        ("12:15", "what is left?")]
    assert d.turns[-1].answer.startswith("Refunds work end to end")
    # test_api and the lint failed, then passed later; the DB tests never did.
    assert d.failing == (
        ('`pytest tests/test_db.py` — `E   psycopg.OperationalError: connection to server at '
         '"localhost" (127.0.0.1), port 5432 failed: Connection refused`'),)
    # ## Next Steps is in the note twice (as a person might paste): both are read.
    assert [i.text for i in d.next_steps] == [
        "Support partial refunds", "Add a Postgres service to the CI workflow",
        "Write the refunds section of the API docs"]
    assert d.entities == ("API", "Billing", "DB")
    assert [i.links for i in d.prerequisites] == [("DB",), ("Billing",)]


def test_private_text_is_gone_before_anything_is_read() -> None:
    text = _fixture(LAST)
    assert "Dana" in text
    d = digest.session(LAST, text)
    assert "Dana" not in repr(d) and "4111" not in repr(d)
    nested = "## Next Steps\n\n- a <private>x <private>y</private> SECRET </private> b\n"
    (step,) = digest.session("s.md", nested).next_steps
    assert "SECRET" not in step.text and step.text.startswith("a")


def test_failures_pass_only_when_the_same_command_passes_later() -> None:
    # Capture's form, in time order: a command that failed then passed has its Failed line
    # before its Ran line; one still failing has it after.
    log = (
        "## Work Log\n\n### 09:00 - one\n\n- Failed: `make e2e` ×2 — `E0`\n"
        "- Ran `make e2e` ×3\n- Ran `make test`\n- Failed: `make test` — `boom`\n"
        "- Ran `make lint`\n- Failed: `make lint` — `E1`\n- Failed: Edit `a.py` — `no match`\n\n"
        "### 09:30 - two\n\n- Ran `make lint` ×2\n- Ran `tox -e py312` ×2\n"
        "- Failed: `tox -e py312` ×2 — `E2`\n\n```\n- Ran `tox -e py312`\n```\n"
    )
    d = digest.session("s.md", log)
    # e2e was fixed in its turn; lint passed in the next entry; the failed edit is not a
    # command; the `Ran` in code is not a run.
    assert d.failing == ("`make test` — `boom`", "`tox -e py312` ×2 — `E2`")


def test_a_question_the_next_prompt_replied_to_is_no_open_question() -> None:
    note = (
        "## Work Log\n\n### 09:00 - one\n\n**Prompt:** set up the router\n\n"
        "**Answer:** Done. Which would you prefer: **DoH** or DoT?\n\n"
        "### 09:04 - Continued\n\n**Answer:** The lease table is full. Is the lease time right?\n\n"
        "### 09:05 - two\n\n**Prompt:** DoH\n\n**Answer:** Switched.\n\n"
        "> [!abstract]- Claude's answer (4 lines)\n> Switched to DoH.\n>\n"
        "> Should I also block ads on `br-lan`?\n\n"
        "## Open Questions\n\n- Which would you prefer: DoH or DoT?\n"
        "- Is the lease time right?\n- Should I also block ads on `br-lan`?\n"
        "- Who owns the router?\n"
    )
    # The first two were asked before the prompt "DoH"; the third in the last entry is open;
    # the fourth is in no entry: kept.
    assert [q.text for q in digest.session("s.md", note).open_questions] == [
        "Should I also block ads on `br-lan`?", "Who owns the router?"]


def test_a_pipeline_ending_in_a_lookup_is_a_lookup_here_or_on_a_remote_host() -> None:
    # A pipeline's exit status is its last command's: "| grep x" failing found no x, whether it
    # ran here or through ssh; a pipeline whose last command does the work still fails.
    log = (
        "## Work Log\n\n### 09:00 - one\n\n"
        "- Failed: `ssh admin@10.0.0.2 \"ps | grep vpnd | grep -v grep\"` — `Exit code 1`\n"
        "- Failed: `systemctl list-units | grep -i backup` — `Exit code 1`\n"
        "- Failed: `ipconfig | findstr /i \"Gateway\"` — `Exit code 1`\n"
        "- Failed: `ssh admin@10.0.0.2 \"opkg update && opkg install vpnd\"` — `Exit code 255`\n"
        "- Failed: `cat deploy.env | xargs ./deploy.sh` — `deploy: missing TOKEN`\n"
        "- Failed: `grep -E \"TODO|FIXME\" src/` — `Exit code 1`\n"
        "- Failed: `ls dist && ./publish.sh` — `publish: not logged in`\n"
    )
    assert [f.split(" — ")[0] for f in digest.session("s.md", log).failing] == [
        '`ssh admin@10.0.0.2 "opkg update && opkg install vpnd"`',
        "`cat deploy.env | xargs ./deploy.sh`", "`ls dist && ./publish.sh`"]


def test_a_lookup_that_found_nothing_is_no_failure_left_open() -> None:
    # grep's exit 1 is "no match", ls's and cat's "no such file": not a broken state.
    log = (
        "## Work Log\n\n### 09:00 - one\n\n- Failed: `grep -rn refund_total lib/` — `Exit code 1`\n"
        "- Failed: `cat /tmp/out.log` — `cat: /tmp/out.log: No such file or directory`\n"
        "- Failed: `uv run which ruff` — `Exit code 1`\n- Failed: `git push` — `error: failed`\n"
    )
    assert digest.session("s.md", log).failing == ("`git push` — `error: failed`",)


def test_a_state_query_that_reported_a_state_is_no_failure_left_open() -> None:
    # "status" exits non-zero to say "stopped" or "inactive": read and acted on, not broken work.
    log = (
        "## Work Log\n\n### 09:00 - one\n\n- Failed: `vpnctl status` — `Exit code 1`\n"
        "- Failed: `sudo systemctl status nginx.service` — `Exit code 3`\n"
        "- Failed: `systemctl is-active backup.timer` — `Exit code 3`\n"
        "- Failed: `docker ps -a` — `Cannot connect to the Docker daemon`\n"
        "- Failed: `ssh admin@10.0.0.2 \"git status\"` — `fatal: not a git repository`\n"
        "- Failed: `systemctl restart nginx.service` — `Job for nginx.service failed`\n"
        "- Failed: `docker compose up -d` — `port is already allocated`\n"
    )
    assert [f.split(" — ")[0] for f in digest.session("s.md", log).failing] == [
        "`systemctl restart nginx.service`", "`docker compose up -d`"]


def test_an_answer_leading_into_a_list_is_told_by_its_recap_s_headings_and_bold_lines() -> None:
    log = (
        "## Work Log\n\n### 18:24 - what is this noise\n\n"
        "**Answer:** I've fixed the noise! Here's what I changed:\n\n"
        "> [!abstract]- Claude's answer (9 lines)\n> ## 🎯 SILENCED!\n>\n"
        "> I've fixed the noise! Here's what I changed:\n>\n> ## ❌ The Problem\n"
        "> - every scan **failed** the build\n> **Updated 2 workflows with "
        "`continue-on-error: true`:**\n> ### 1. **Gitleaks** (`gitleaks.yml`)\n"
        "> **Power profile:** set to `performance` ✓\n\n"
        "- Ran `git push`\n\n### 18:30 - why a PR\n\n**Answer:** Let me explain:\n\n"
        "- Ran `git status`\n\n> ## Not a recap of this entry's answer\n"
    )
    first, second = digest.session("s.md", log).turns
    assert first.answer == (
        "I've fixed the noise! Here's what I changed: — SILENCED!; Updated 2 "
        "workflows with `continue-on-error: true`; 1. Gitleaks (`gitleaks.yml`); Power profile: set to "
        "`performance`")  # a heading that only titles its part ("The Problem") is left out
    assert second.answer == "Let me explain:"
    # Its recap's points beyond its line, titles of a few words left out; none for the other.
    assert first.details == ("every scan failed the build",)  # the others are in its line
    assert second.details == ()


def test_a_prompt_kept_whole_or_a_plan_approved_is_no_recap_of_the_answer() -> None:
    log = (
        "## Work Log\n\n### 09:00 - paste the spec\n\n"
        "**Prompt:** the spec: … 2,000 characters more\n"
        "**Answer:** Read it. Here is my plan:\n\n"
        "> [!note]- Claude's answer (3 lines)\n> Read it. Here is my plan:\n"
        "> **Tokens:** refreshed by the client\n\n"
        "> [!info]- The prompt whole (3,500 characters)\n> ## The spec\n"
        "> - **Auth:** tokens expire after an hour\n\n"
        "> [!info]- Plan approved (3 lines)\n> ## Approach\n> - **Store:** SQLite\n"
    )
    (turn,) = digest.session("s.md", log).turns
    # The answer's own callout is its recap; the prompt's and the plan's lines are not.
    assert turn.answer == "Read it. Here is my plan: — Tokens: refreshed by the client"
    assert "Auth" not in repr(turn) and "SQLite" not in repr(turn)
    # An answer its line holds whole has no callout: the prompt's below it is not its ending.
    short = log.replace("**Answer:** Read it. Here is my plan:", "**Answer:** Read it, all clear.")
    short = short[:short.index("> [!note]")] + short[short.index("> [!info]"):].replace(
        "> ## The spec\n", "> ## The spec\n> Auth tokens expire after an hour, it says.\n>\n")
    (turn,) = digest.session("s.md", short).turns
    assert turn.answer == "Read it, all clear." and "Auth" not in repr(turn)


def test_any_answer_s_recap_points_are_its_details() -> None:
    log = (
        "## Work Log\n\n### 19:28 - compare the two\n\n"
        "**Answer:** Here is the comparison. Want more?\n\n"
        "> [!abstract]- Claude's answer (6 lines)\n> ## Feature Comparison\n"
        "> - AeroSpace's `accordion` layout = COSMIC's `stack`\n"
        "> 2. **Fundamental difference:** AeroSpace is keyboard-only\n"
        "> - AeroSpace's `accordion` layout = COSMIC's `stack`\n> plain prose line\n\n"
        "- Ran `ls`\n\n> - a quote after the log line is not the answer's recap at all\n"
    )
    (turn,) = digest.session("s.md", log).turns
    assert turn.answer == "Here is the comparison. Want more?"
    assert turn.details == ("AeroSpace's `accordion` layout = COSMIC's `stack`",
                            "Fundamental difference: AeroSpace is keyboard-only")


def test_a_recap_s_titles_and_cited_sources_are_no_details() -> None:
    # An answer written as a report: headings of several words and bold lines alone title the
    # points below them; a list of links closing it names its sources. Neither is a fact.
    log = (
        "## Work Log\n\n### 09:10 - why does the editor hang on save\n\n"
        "**Answer:** It is a known bug of the editor's 4.2 release.\n\n"
        "> [!abstract]- Claude's answer (9 lines)\n> ### What I Checked on Your Machine\n"
        "> - Autosave runs every second and blocks the UI thread while indexing\n"
        "> **Your settings in short (as of today):**\n"
        "> - **Workaround:** turn autosave off until 4.3 ships\n"
        "> #### 2. **Safer Reset Procedure** (`~/.editor/state`)\n"
        "> **Before:** the editor froze for minutes on large files\n"
        "> - [Editor issue tracker: hang on save](https://example.org/issues/812)\n"
        "> - **[Release notes 4.3](https://example.org/notes)**\n\n- Ran `ls`\n"
    )
    (turn,) = digest.session("s.md", log).turns
    assert turn.details == ("Autosave runs every second and blocks the UI thread while indexing",
                            "Workaround: turn autosave off until 4.3 ships",
                            "Before: the editor froze for minutes on large files")


def test_a_recap_point_its_answer_line_already_says_is_no_detail() -> None:
    # The answer's line keeps the recap's first words with their emphasis and dashes; the same
    # words below are no second point.
    log = (
        "## Work Log\n\n### 05:04 - how popular is the package\n\n"
        "**Answer:** **12,400** installs in the past year. Casks don't auto-update—run the "
        "upgrade yourself.\n\n"
        "> [!abstract]- Claude's answer (4 lines)\n> - **12,400** installs in the past year\n"
        "> - Casks don't auto-update—run the upgrade yourself\n"
        "> - It ships as a prebuilt binary, hence a cask and not a formula\n"
        "> - **Last month:** $28.60 for the API, €3 in fees\n\n- Ran `ls`\n"
    )
    (turn,) = digest.session("s.md", log).turns
    assert turn.details == ("It ships as a prebuilt binary, hence a cask and not a formula",
                            "Last month: $28.60 for the API, €3 in fees")


def test_a_question_in_a_recap_and_the_choices_it_offers_are_no_details() -> None:
    # A real planning session: the answer asks, then lists the choices it offers (below the
    # question, or lettered A), B)… under a heading).
    log = (
        "## Work Log\n\n### 19:54 - plan it\n\n**Answer:** Let me interview you first.\n\n"
        "> [!abstract]- Claude's answer (7 lines)\n"
        "> - Tree-based window layouts like those of i3 and sway\n"
        "> **What's your target for v0.1?** Should we aim for:\n"
        "> - **A) Full COSMIC parity** — drag-drop zones, stacks, keyboard, the works\n"
        "> - **B) Core tiling first** — get tree tiling and keyboard working\n"
        "> **Constraints:** no Wayland here, it must use the Accessibility APIs\n"
        "> - Sandboxing limits what the app may do on macOS\n"
        "> ### 8. Configuration Format\n"
        "> - **A) TOML** (like AeroSpace) — simple, familiar\n"
        "> - **B) JSON** — universal, easy parsing and writing\n\n- Ran `ls`\n"
    )
    (turn,) = digest.session("s.md", log).turns
    assert turn.details == ("Tree-based window layouts like those of i3 and sway",
                            "Constraints: no Wayland here, it must use the Accessibility APIs",
                            "Sandboxing limits what the app may do on macOS")


def test_a_recap_table_s_rows_are_details_each_cell_under_its_column() -> None:
    # A report's table of what changed: each row a detail, its cells named by the header (the
    # header and the separator are none); a table in a fenced block is code, not a recap's.
    log = (
        "## Work Log\n\n### 19:17 - rewrite the history\n\n**Answer:** History rewritten.\n\n"
        "> [!abstract]- Claude's answer (9 lines)\n> History rewritten.\n>\n"
        "> | Metric | Before | After |\n> |---|:---:|---|\n"
        "> | **Secret Findings** | 16,684 | 392 (97.6% reduction) |\n"
        "> | Repository size | 9.0 MB | 784 KB |\n>\n> ```\n"
        "> | Cache entries in dnsmasq | 1000 | 5000 |\n> ```\n\n- Ran `ls`\n"
    )
    (turn,) = digest.session("s.md", log).turns
    assert turn.details == ("Secret Findings: Before 16,684, After 392 (97.6% reduction)",
                            "Repository size: Before 9.0 MB, After 784 KB")


def test_what_the_last_session_installed_or_set_is_read_from_its_ran_and_labelled_lines() -> None:
    log = (
        "## Work Log\n\n### 10:00 - set it up\n\n**Answer:** Set up.\n\n"
        "- Ran `npm install -g ccusage 2>&1`\n- Ran `git status`\n- Ran `git add -A`\n"
        "- Ran `cd app && pip install -r requirements-dev.txt && pytest -q`\n"
        "- Ran `ssh root@router \"uci set dhcp.cachesize='5000' && uci commit\"`\n"
        "- Set: `uci set dhcp.cachesize='5000'`\n- Set: `git config --global pull.rebase true`\n"
        "- Ran `npm install -g ccusage`\n- Ran `gh secret set ANTHROPIC_API_KEY`\n"
        "- Ran `echo $PATH`\n- Ran `export CARGO_HOME=/opt/cargo && cargo build`\n"
        "- Ran `cd app && export PATH=\"$HOME/.cargo/bin:$PATH\" && cargo test`\n"
        "- Ran `export RUST_LOG=debug && npm install -g tsx`\n- Ran `export CARGO_HOME=/opt/cargo`\n"
    )
    # Each command that did, as it ran (its output's redirect aside), once; a part capture
    # labelled that such a command holds is not said again. A variable exported for the
    # commands after it in the same call sets nothing that stays (the call's shell ends with
    # it): what those commands install is read as any command's.
    assert digest.session("s.md", log).changed == (
        "npm install -g ccusage", "cd app && pip install -r requirements-dev.txt && pytest -q",
        "ssh root@router \"uci set dhcp.cachesize='5000' && uci commit\"",
        "git config --global pull.rebase true", "gh secret set ANTHROPIC_API_KEY",
        "export RUST_LOG=debug && npm install -g tsx", "export CARGO_HOME=/opt/cargo")
    # An earlier session's (its prose not read) are not.
    assert digest.session("s.md", log, prose=False).changed == ()


def test_entity_lines_newest_first_from_every_copy_of_a_duplicated_section() -> None:
    rel = "claude/projects/shop/entities/Billing.md"
    d = digest.entity(rel, _fixture(rel))
    assert d.name == "Billing" and d.newest == "2026-11-21"
    assert [(i.date, i.text[:24]) for i in d.decisions] == [
        ("2026-11-21", "I chose idempotency keys"), ("2026-11-20", "Verify webhook signature"),
        ("2026-11-15", "Amounts are integers in ")]
    assert len(d.gotchas) == 1 and d.gotchas[0].links  # the session link, dropped from the text
    assert d.changes == ()
    assert "[[" not in d.gotchas[0].text and "^vm-" not in d.gotchas[0].text


def test_undated_entity_lines_keep_file_order_newest_last() -> None:
    text = "## Key Decisions\n\n- old\n- 2026-01-02 — dated\n- newer\n- newest\n"
    d = digest.entity("e/X.md", text)
    assert [i.text for i in d.decisions] == ["dated", "newest", "newer", "old"]
    assert d.newest == "2026-01-02"
    # The older dated forms compaction also reads: "date: text" and "date - text".
    other = digest.entity("e/Y.md", "## Key Decisions\n\n- 2026-01-03: a\n- 2026-01-04 - b\n")
    assert [(i.date, i.text) for i in other.decisions] == [("2026-01-04", "b"), ("2026-01-03", "a")]


def test_project_index() -> None:
    d = digest.project_index(_fixture("claude/projects/shop/_index.md"))
    assert d.entities == ("Auth", "Billing", "API", "DB", "Checkout")
    assert [i.date for i in d.prerequisites] == ["2026-11-19", "2026-11-18"]
    # No ## Key Entities: every link outside code counts.
    bare = digest.project_index("# shop\n\n- [[E3]]\n- [[E1|one]]\n\n```\n[[E2]]\n```\n")
    assert bare.entities == ("E3", "E1")


def test_invalid_yaml_and_no_frontmatter_are_read() -> None:
    bad = "---\nstatus: [unclosed\n---\n## Decisions Made\n\n- kept\n"
    d = digest.session("s/2026-11-21-x.md", bad)
    assert (d.date, d.topic, d.status, [i.text for i in d.decisions]) == (
        "2026-11-21", "x", "active", ["kept"])
    plain = digest.session("s/notes.md", "## Next Steps\n\n- go\n")
    assert (plain.topic, [i.text for i in plain.next_steps]) == ("notes", ["go"])
    assert digest.session("s/2026-11-22-new.md", "---\ntype: session\n---\n# new\n").empty


_DAYS = ["2026-01-02", "2025-12-31", "2026-01-02", "", "2026-03-04", "2024-07-07", ""]


@settings(max_examples=examples(200), deadline=None)
@given(st.lists(st.tuples(st.sampled_from(_DAYS), st.booleans()), max_size=40),
       st.integers(0, 12))
def test_the_newest_lines_of_a_long_entity_are_those_a_full_read_puts_first(
    rows: list[tuple[str, bool]], limit: int
) -> None:
    """An entity read for its newest ``limit`` lines of a kind gives the first ``limit`` lines
    of a full read, in its order, and counts the others as left out."""
    lines = [
        f"- {f'{day} — ' if day else ''}Fact {n}{' %%vm-anchor a.py@abc%%' if anchored else ''}"
        f" ([[s{n}]]) ^vm-{n:08x}"
        for n, (day, anchored) in enumerate(rows)
    ]
    text = ("# Auth\n\n## Key Decisions\n\n" + "\n".join(lines)
            + "\n\n## Gotchas & Troubleshooting\n\n" + "\n".join(lines[: len(lines) // 2]) + "\n")
    full = digest.entity("p/entities/Auth.md", text)
    newest = digest.entity("p/entities/Auth.md", text, limit)
    assert newest.decisions == full.decisions[:limit]
    assert newest.gotchas == full.gotchas[:limit]
    assert newest.left_out == max(0, len(full.decisions) - limit) + max(
        0, len(full.gotchas) - limit)
    assert full.left_out == 0


def test_a_block_id_is_cut_where_the_regex_cut_it() -> None:
    for raw in ("2026-01-01 — a ^vm-abc", "2026-01-01 — a ^vm-abc  \r", "a^vm-x", "a ^vm-x y",
                "a ^vm-a ^vm-b", "2026-01-01 — ^vm-abc", "^vm-", " ^vm-ab-c"):
        text = digest.BLOCK_ID.sub("", raw.rstrip("\r")).strip()
        found = digest.DATED.fullmatch(text)
        assert digest._dated(raw) == ((found.group(1), found.group(2)) if found else (None, text))


_PARTS = ["", "   ", "# Auth", "## Key Decisions", "## Gotchas & Troubleshooting", "### Sub",
          "## Recent Changes", "- 2026-01-01 — Use argon2 ([[a/s|s]]) ^vm-aaaa1111",
          "- 2026-03-02 — Tokens %%vm-anchor a.py@1a2b commit 9f8e7d6%% ([[a/s|s]]) ^vm-c3",
          "- Use argon2 ([[a/x|x]]) ^vm-bbbb2222", "* starred", "+ plus", "- [ ] task",
          "- [x] done", "1. ordered", "2. second", "Plain words.", "**Bold:** label",
          "```", "- in a fence?", "> quote", "    indented", "<div>", "---", "- ~~retired~~",
          "Setext", "===", "- ", "[ref]: /u", "- [[Db]]", "%% comment %%", "- 2026-01-02: colon"]
_FRONTS = ["---\ntype: entity\ntags:\n- flat\n---\n", "", "# Title\n", "---\nunclosed\n"]


@settings(max_examples=examples(300), deadline=None)
@given(st.sampled_from(_FRONTS), st.lists(st.sampled_from(_PARTS), max_size=30), st.booleans(),
       st.sampled_from([None, 2]))
def test_an_entity_read_by_its_lines_is_the_entity_parsed(
    front: str, parts: list[str], nl: bool, limit: int | None
) -> None:
    text = front + "\n".join(parts) + ("\n" if nl else "")
    fast = digest.entity("p/entities/Auth.md", text, limit)
    saved = digest.entityparse.plain_headings
    try:
        digest.entityparse.plain_headings = lambda text: None  # type: ignore[assignment]
        slow = digest.entity("p/entities/Auth.md", text, limit)
    finally:
        digest.entityparse.plain_headings = saved  # type: ignore[assignment]
    assert fast == slow


def test_a_long_entity_is_read_by_its_lines() -> None:
    rows = "\n".join(f"- 2026-01-{1 + i % 28:02d} — Fact {i} ([[a/s|s]]) ^vm-{i:08x}"
                     for i in range(300))
    text = f"# Auth\n\n## Key Decisions\n\n{rows}\n"
    assert digest.entityparse.plain_headings(text) is not None  # no parse
    note = digest._Note(text, lists_only=True)
    assert note.kind[4] == "bullet_list" and len(note.items(("Key Decisions",))[0]) == 300


def test_the_last_request_no_answer_followed_is_what_the_session_was_asked() -> None:
    # A session that ended while working on a request (the Session End came before any
    # answer): the request itself is the work it left open.
    note = (
        "## Work Log\n\n### 09:00 - one\n\n**Prompt:** set up the router\n\n**Answer:** Done.\n\n"
        "### 09:10 - two\n\n**Prompt:** push the logs, then make the repo public\n\n"
        "- Ran `python sync.py`\n\n### 09:12 - Session End\n\nReason: other\n"
    )
    assert digest.session("s.md", note).asked == "push the logs, then make the repo public"
    # Answered, even in the entry after a compaction ("Continued"): nothing is left asked.
    answered = note.replace("### 09:12 - Session End", "### 09:11 - Continued\n\n**Answer:** Pushed.")
    assert digest.session("s.md", answered).asked == ""
    # A usage-limit notice is no answer.
    limited = note.replace("- Ran `python sync.py`",
                           "**Answer:** You've hit your limit · resets 5pm")
    assert digest.session("s.md", limited).asked == "push the logs, then make the repo public"


_STARTED = (
    "---\ntype: session\ntags:\n  - claude/session\nstatus: active\n---\n# Session 2026-11-22 10:30\n\n"
    "## Context\n\nProject [[p]], started 2026-11-22 10:30.\n\n## Work Log\n\n## Decisions Made\n\n"
    "## Next Steps\n\n## Related Entities\n"
)


def test_a_note_just_started_is_told_without_parsing_and_anything_more_is_read() -> None:
    assert digest.just_started(_STARTED) and digest.session("s.md", _STARTED).empty
    assert digest.just_started(_STARTED.replace("\n", "\r\n"))
    for more in ("### 10:31 - fix it\n", "- Ran `make`\n", "1. step one\n", "## Notes\n",
                 "> recap\n", "**Answer:** done\n"):
        assert not digest.just_started(_STARTED + more), more
    # No frontmatter has a blank line: then its lines count as the body's.
    assert not digest.just_started(_STARTED.replace("status: active\n", "\n- x\n"))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from([
    "# Title", "## Work Log", "## Next Steps", "### 10:00 - entry", "## Notes", "- item",
    "  - nested", "1. first", "> quote", "**Answer:** yes", "plain words", "", "---", "```",
    "#### deep", "Decisions Made", "* star", "+ plus", "## Decisions Made", "#no space",
]), max_size=12))
def test_a_note_told_just_started_has_nothing_the_digest_would_brief(lines: list[str]) -> None:
    text = "\n".join(lines) + "\n"
    for note in (text, "---\nstatus: active\n---\n" + text):
        if digest.just_started(note):
            assert digest.session("s.md", note).empty, note


def test_a_request_answered_only_by_a_question_back_is_still_asked() -> None:
    note = (
        "## Work Log\n\n### 17:52 - push\n\n**Prompt:** push the router notes to the repo\n\n"
        "**Answer:** I can see a git repository here, but I need to clarify: What content "
        "should be pushed?\n\n### 17:53 - Session End\n\nReason: other\n"
    )
    assert digest.session("s.md", note).asked == "push the router notes to the repo"
    # An answer that says what was done, even starting with an acknowledgement, settles it.
    for answer in ("Perfect!", "Pushed the notes. Anything else?"):
        done = note.replace(note[note.index("**Answer:**"):note.index("\n\n### 17:53")],
                            f"**Answer:** {answer}")
        assert digest.session("s.md", done).asked == "", answer


def test_a_recap_point_naming_only_paths_is_no_point_and_a_windows_path_keeps_its_backslashes(
) -> None:
    log = (
        "## Work Log\n\n### 17:09 - write the rebase script\n\n"
        "**Answer:** Here's what I set up:\n\n"
        "> [!abstract]- Claude's answer (8 lines)\n"
        "> **`C:\\Users\\me\\Documents\\proj\\`**\n"
        "> **Script ready:** run it as admin\n"
        "> - `C:\\Program Files\\Git` - Git installation directory\n"
        "> - `src/app/main.py` `src/app/cli.py`\n"
        "> - The rebase script is saved at `C:\\Users\\me\\rebase.ps1` for later\n"
        "> - Rebase Script: `C:\\Users\\me\\rebase-all.ps1`\n\n- Ran `ls`\n"
    )
    (turn,) = digest.session("s.md", log).turns
    assert turn.answer == "Here's what I set up: — Script ready: run it as admin"
    assert turn.details == ("The rebase script is saved at `C:\\Users\\me\\rebase.ps1` for later",)


def test_an_answer_s_prose_and_what_claude_found_along_the_way_tell_its_details() -> None:
    log = (
        "## Work Log\n\n### 10:42 - you were stuck, what happened?\n\n"
        "**Answer:** The panel and the applet are running now.\n\n"
        "> [!note]- Claude's answer (9 lines)\n> The panel and the applet are running now.\n>\n"
        "> Let me check the logs again before we go on with `journalctl`.\n"
        "> The subscription used `stream::unfold()`, but the other applets use "
        "`stream::channel()`. It polls every 330ms now.\n"
        "> It works great now!\n>\n> ```\n> PowerUpdate: CPU=0.0W, GPU=Some(5.95)W in the log\n"
        "> ```\n> | Metric | Value in watts per second |\n\n- Ran `ls`\n\n"
        "> [!info]- Claude's notes along the way (2)\n"
        "> I can see the problem: the timeout killed it after 10 seconds (exit code 137).\n>\n"
        "> **FOUND THE BUG!** I was using `cosmic::app::run` but applets need "
        "`cosmic::applet::run`.\n\n"
        "### 10:50 - thanks\n\n**Prompt:** thanks\n\n"
        "> [!info]- Claude's notes along the way (1)\n"
        "> No answer in this entry: the port 8080 note belongs to no turn's details.\n"
    )
    (turn,) = digest.session("s.md", log).turns
    assert turn.details == (
        ("The subscription used `stream::unfold()`, but the other applets use "
         "`stream::channel()`."),
        "It polls every 330ms now.",
        "FOUND THE BUG! I was using `cosmic::app::run` but applets need `cosmic::applet::run`.",
    )


def test_a_recap_heading_that_only_titles_its_part_is_no_point_of_the_answer() -> None:
    log = (
        "## Work Log\n\n### 04:03 - review it\n\n**Answer:** Here's the review:\n\n"
        "> [!note]- Claude's answer (5 lines)\n> ## COMPREHENSIVE REVIEW COMPLETE\n"
        "> ### Critical Fixes (P0)\n> ### Fixed the UUID redaction in `sync.py`\n"
        "> ### New Features (P2)\n\n- Ran `ls`\n"
    )
    (turn,) = digest.session("s.md", log).turns
    assert turn.answer == "Here's the review: — Fixed the UUID redaction in `sync.py`"
