"""sharedids.py: a decision or gotcha that names no component goes to the one entity whose lines
share a distinctive identifier with it (issue 29), else stays in the fallback entity."""

from __future__ import annotations

from vaultmem.memory import sharedids
from vaultmem.memory.extraction import Extraction, Item

ENTITIES = "claude/projects/shop/entities"
ENTRY = ("Troubleshot timeouts in the checkout tests: the pool had 5 connections for 20 "
         "workers. Workaround: pool size from `DB_POOL_SIZE`, default 20.")
LINES = ["# Checkout", "", "## Work Log", "", "### 11:34 - Connection pool exhaustion under load",
         "", ENTRY, "", "### 11:40 - Wire refresh endpoint", "", "POST /auth/refresh rotates.",
         "", "## Decisions Made", ""]
NOTE = "\n".join(LINES)
GOTCHA = Item("gotcha", "Connection pool exhaustion under load: Troubleshot timeouts in the "
              "checkout tests: the pool had 5 connections for 20 workers.", ("Inbox",), 4)


def _entity(*lines: str) -> str:
    return "\n".join(["---", "type: entity", "claude_last_accessed: 2026-11-29", "---",
                      "# X", "", "## Key Decisions", "", *lines, ""])


def _refile(*items: Item, notes: dict[str, str] | None = None, note: str = NOTE) -> list[Item]:
    extraction = Extraction(items, "deterministic")
    return list(sharedids.refile(extraction, note, notes or {}, "Inbox").items)


def test_identifiers_are_names_only_code_gives() -> None:
    found = sharedids.identifiers(
        "Set `DB_POOL_SIZE` and pool_size in src/db/settings_loader.py; getUser() and "
        "`InvoiceRenderer` too; GitHub and JavaScript are words, so is README.md, and "
        "[REDACTED_API_KEY] or ‹redacted:api_token› hide a secret; a_b is too short.")
    assert found == {"db_pool_size", "pool_size", "settings_loader.py", "settings_loader",
                     "getuser", "invoicerenderer"}


def test_identifiers_of_a_file_s_line_and_of_dotted_and_scoped_names() -> None:
    found = sharedids.identifiers("See scripts/run_sync.py:54:3, `cfg.retry_limit` and "
                                  "`legion_cli::run`; `Vec::new` and `os.path` are code too.")
    assert found == {"run_sync.py", "run_sync", "retry_limit", "cfg.retry_limit",
                     "legion_cli", "legion_cli::run", "vec::new", "os.path"}


def test_a_gotcha_shares_its_entry_identifier_with_an_item_filed_here() -> None:
    decision = Item("decision", "Database pool size comes from DB_POOL_SIZE (default 20)",
                    ("Database",), 14)
    gotcha, kept = _refile(GOTCHA, decision)
    assert gotcha.entities == ("Database",)
    assert kept == decision


def test_a_decision_shares_an_identifier_with_an_existing_note() -> None:
    decision = Item("decision", "Tokens are checked with `verify_signature` first", ("Inbox",), -1)
    notes = {f"{ENTITIES}/Auth.md": _entity("- 2026-11-01 — verify_signature rejects HS256"),
             f"{ENTITIES}/Billing.md": _entity("- 2026-11-01 — invoices render as PDF")}
    assert _refile(decision, notes=notes)[0].entities == ("Auth",)


def test_an_identifier_of_two_entities_or_of_none_leaves_the_item_in_the_fallback() -> None:
    notes = {f"{ENTITIES}/Database.md": _entity("- 2026-11-01 — DB_POOL_SIZE is read once"),
             f"{ENTITIES}/Workers.md": _entity("- 2026-11-01 — workers size DB_POOL_SIZE")}
    assert _refile(GOTCHA, notes=notes)[0].entities == ("Inbox",)
    lone = {f"{ENTITIES}/Billing.md": _entity("- 2026-11-01 — invoice_total rounds half up")}
    assert _refile(GOTCHA, notes=lone)[0].entities == ("Inbox",)


def test_only_the_note_body_and_no_placeholder_or_common_file_is_shared() -> None:
    # The frontmatter's claude_last_accessed, a redaction mark, package.json: in every note.
    item = Item("gotcha", "claude_last_accessed broke: [REDACTED_API_KEY] in package.json",
                ("Inbox",), -1)
    notes = {f"{ENTITIES}/Auth.md": _entity("- 2026-11-01 — [REDACTED_API_KEY] in package.json")}
    assert _refile(item, notes=notes)[0].entities == ("Inbox",)


def test_an_item_with_a_component_and_a_reference_stay() -> None:
    filed = Item("gotcha", "DB_POOL_SIZE must be 20", ("Workers",), -1)
    reference = Item("reference", "DB_POOL_SIZE", ("Inbox",), -1)
    notes = {f"{ENTITIES}/Database.md": _entity("- 2026-11-01 — DB_POOL_SIZE is read once")}
    assert _refile(filed, reference, notes=notes, note="") == [filed, reference]


def test_a_gotcha_shares_the_identifiers_of_the_passage_that_says_it() -> None:
    # Captured from an answer: its statement sits in a passage naming the script it is about.
    answer = ["### 03:45 - review", "", "**Prompt:** review", "**Answer:** Here is my review.",
              "", "> [!note]- Claude's answer (9 lines)", "> ### 1. Redaction bug", ">",
              "> **Issue:** Phone number regex incorrectly matches UUID segments",
              "> **File:** scripts/sync_raw_logs.py:54", ">",
              "> ### 2. Tests", "> Add tests/test_redaction.py for convert_md.py", ""]
    note = "\n".join(["# Review", "", "## Work Log", "", *answer, "## Gotchas & Fixes", ""])
    gotcha = Item("gotcha", "Phone number regex incorrectly matches UUID segments — fix: "
                  "exclude UUIDs", ("Inbox",), -1)
    notes = {f"{ENTITIES}/sync_raw_logs.md": _entity("- 2026-01-01 — sync_raw_logs.py redacts"),
             f"{ENTITIES}/Converter.md": _entity("- 2026-01-01 — convert_md.py writes one file")}
    assert _refile(gotcha, notes=notes, note=note)[0].entities == ("sync_raw_logs",)
    elsewhere = Item("gotcha", "Phone number regex breaks the README of the logs", ("Inbox",), -1)
    assert _refile(elsewhere, notes=notes, note=note)[0].entities == ("Inbox",)
