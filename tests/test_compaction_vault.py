"""Compaction of captured session notes into a real temp vault: what the entities and the
project's _index.md hold afterwards (issue 9 items 2-3, issue 10 item 8)."""

from __future__ import annotations

import re
import shutil
import unicodedata
from pathlib import Path

import pytest
from compaction_kit import PROJECT, memory, now, snapshot

from vaultmem import faults

SESSIONS = f"claude/projects/{PROJECT}/sessions"
ENTITIES = f"claude/projects/{PROJECT}/entities"
INDEX = f"claude/projects/{PROJECT}/_index.md"
ARCHIVE = f"claude/projects/{PROJECT}/archive/sessions"

CAPTURED = """\
---
type: session
project: demo
created: {day}
status: active
---
# {topic}

## Context

Project demo, cwd /src/shop, branch main

## Work Log

### 10:30 - add token refresh

**Prompt:** add token refresh and fix the failing test
**Answer:** I fixed the bug in the refresh: the root cause was a stale key.
- Edited `src/auth/`: tokens.py (1 file)
- Failed: `pytest -q` — AssertionError

### 11:00 - Gotcha

Gotcha: Gotcha: the webhook needs the raw bytes

### 11:10 - Fixed bug in payments rounding

The root cause was float money. We round once now.

## Decisions Made

- Decision: Use argon2id over bcrypt because it is memory-hard ([[Auth]])
- Store money as integer cents ([[Billing]])

## Gotchas & Fixes

- Gotcha: Gotcha: the webhook needs the raw bytes ([[Billing]])
- The root cause was a stale signing key in the cache ([[Auth]], [[Billing]])

## Prerequisites

- The tests need `REDIS_URL` set

## Open Questions

- Should we run Postgres in CI?

## Next Steps

- Next, add the refund endpoint

## Related Entities

- [[Auth]] — src/auth/, tests/auth/
- [[Billing]] — src/billing/
"""


def _row(stem: str, said: str = "") -> str:
    """A Key Entities row as a regex: the entity, its summary linked to where it comes from."""
    row_id = r" \^vm-[0-9a-f]{8}"
    if not said:
        return re.escape(f"- [[{ENTITIES}/{stem}|{stem}]]") + row_id
    return (re.escape(f"- [[{ENTITIES}/{stem}|{stem}]] ([[{ENTITIES}/{stem}#") + r"[^|\]]+" + re.escape(f"|{said}]])")
            + row_id)


def _session(root: Path, stem: str, text: str) -> str:
    rel = f"{SESSIONS}/{stem}.md"
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return rel


def _captured(root: Path, stem: str, *, day: str = "2026-11-20", topic: str = "Token refresh",
              **replacements: str) -> str:
    text = CAPTURED.format(day=day, topic=topic)
    for old, new in replacements.items():
        text = text.replace(old.replace("_", " "), new)
    return _session(root, stem, text)


def _compact(root: Path, rel: str) -> object:
    report = memory(root).compact_note(rel, force=True, now=now())
    assert report.status == "compacted", report.error
    return report


def _read(root: Path, rel: str) -> str:
    return (root / rel).read_text()


def _entity(name: str, *, aliases: str = "", overview: str = "What it is.") -> str:
    extra = f"aliases: [{aliases}]\n" if aliases else ""
    return (f"---\ntype: entity\nproject: {PROJECT}\n{extra}---\n# {name}\n\n## Overview\n\n"
            f"{overview}\n\n## Key Decisions\n\n## Gotchas & Troubleshooting\n\n"
            f"## Recent Changes\n\n## References\n")


def _write(root: Path, rel: str, text: str) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def test_a_captured_session_files_each_kind_where_it_belongs(tmp_path: Path) -> None:
    rel = _captured(tmp_path, "2026-11-20-token-refresh")
    report = _compact(tmp_path, rel)
    counts = report.counts  # type: ignore[attr-defined]
    assert (counts["decision"], counts["gotcha"], counts["prerequisite"]) == (2, 3, 1)
    auth = _read(tmp_path, f"{ENTITIES}/Auth.md")
    billing = _read(tmp_path, f"{ENTITIES}/Billing.md")
    link = f"([[{ARCHIVE}/2026-11-20-token-refresh|2026-11-20-token-refresh]])"
    assert f"- 2026-11-20 — Use argon2id over bcrypt because it is memory-hard {link} ^vm-" in auth
    assert f"- 2026-11-20 — the webhook needs the raw bytes {link} ^vm-" in billing
    # No doubled or leftover labels anywhere, and one line per fact.
    for text in (auth, billing):
        assert "Gotcha:" not in text and "Decision:" not in text
    assert billing.count("the webhook needs the raw bytes") == 1
    # The hand-written work-log gotcha is routed by its mention of nothing known -> Inbox? No:
    # "payments" is no entity, so the single-entity rule does not apply (two components).
    inbox = _read(tmp_path, f"{ENTITIES}/Inbox.md")
    assert "Fixed bug in payments rounding: The root cause was float money." in inbox
    # The captured turn's answer is no gotcha of its own (capture mined it already): it is what
    # changed in Auth, whose file its turn edited (the outcome, not the prompt and folders).
    assert "I fixed the bug" not in auth.split("## Recent Changes")[0] + billing + inbox
    # Next steps and open questions stay in the session note.
    assert "refund endpoint" not in auth + billing + inbox
    # Overview, related components, recent changes.
    assert ("Code in `src/auth/`, `tests/auth/`. Sessions, first and last "
            f"([[{ARCHIVE}/2026-11-20-token-refresh|2026-11-20-token-refresh]]) "
            "^vm-overview") in auth
    assert f"## Related Entities\n\n- [[{ENTITIES}/Billing|Billing]]\n" in auth
    assert f"## Related Entities\n\n- [[{ENTITIES}/Auth|Auth]]\n" in billing
    assert (f"## Recent Changes\n\n- 2026-11-20 — I fixed the bug in the refresh: the root cause "
            f"was a stale key. {link} ^vm-") in auth
    assert "src/auth/, tests/auth/" not in auth.split("## Recent Changes")[1]
    # Prerequisites in _index.md, Key Entities linking every entity.
    index = _read(tmp_path, INDEX)
    assert f"## Prerequisites\n\n- 2026-11-20 — The tests need `REDIS_URL` set {link} ^vm-" in index
    assert re.search("## Key Entities\n\n" + _row("Auth", "Use argon2id over bcrypt because it is "
                     "memory-hard") + "\n" + _row("Billing", "Store money as integer cents")
                     + "\n" + _row("Inbox") + "\n", index), index


def test_the_same_fact_from_two_sessions_is_one_line_with_two_links(tmp_path: Path) -> None:
    first = _captured(tmp_path, "2026-11-20-a")
    _compact(tmp_path, first)
    second = _captured(tmp_path, "2026-11-24-b", day="2026-11-24", topic="Other work",
                       Decision_="decision: ",
                       memory_hard="memory-hard.")
    _compact(tmp_path, second)
    auth = _read(tmp_path, f"{ENTITIES}/Auth.md")
    lines = [ln for ln in auth.split("\n") if "argon2id" in ln]
    assert lines == [
        f"- 2026-11-20 — Use argon2id over bcrypt because it is memory-hard "
        f"([[{ARCHIVE}/2026-11-20-a|2026-11-20-a]], [[{ARCHIVE}/2026-11-24-b|2026-11-24-b]]) "
        + lines[0].rsplit(" ", 1)[1]
    ]
    # The same outcome of the two sessions is one change with both sessions' links.
    changes = [ln for ln in auth.split("\n") if "I fixed the bug in the refresh" in ln]
    assert len(changes) == 1 and "2026-11-20-a|" in changes[0] and "2026-11-24-b|" in changes[0]
    assert (f"Sessions, first and last ([[{ARCHIVE}/2026-11-20-a|2026-11-20-a]], "
            f"[[{ARCHIVE}/2026-11-24-b|2026-11-24-b]]) ^vm-overview") in auth
    index = _read(tmp_path, INDEX)
    assert index.count("REDIS_URL") == 1
    assert index.count(f"[[{ENTITIES}/Auth|Auth]]") == 1


def test_case_and_nfc_twins_are_one_entity(tmp_path: Path) -> None:
    nfd = unicodedata.normalize("NFD", "Café")
    _write(tmp_path, f"{ENTITIES}/{nfd}.md", _entity(nfd))
    text = CAPTURED.format(day="2026-11-20", topic="Twins").replace(
        "([[Billing]])\n- The root", "([[billing]])\n- The root").replace(
        "- Store money as integer cents ([[Billing]])",
        "- Store money as integer cents ([[Billing]])\n- Brew it strong ([[Café]])")
    assert "[[Café]]" in text and unicodedata.is_normalized("NFC", "Café")
    rel = _session(tmp_path, "2026-11-20-twins", text)
    _compact(tmp_path, rel)
    files = sorted(p.name for p in (tmp_path / ENTITIES).iterdir())
    assert files == sorted(["Auth.md", "Billing.md", f"{nfd}.md", "Inbox.md"])
    assert "Brew it strong" in _read(tmp_path, f"{ENTITIES}/{nfd}.md")
    billing = _read(tmp_path, f"{ENTITIES}/Billing.md")
    assert "the webhook needs the raw bytes" in billing


def test_decide_with_auth_and_Auth_in_one_session_compacts(tmp_path: Path) -> None:
    m = memory(tmp_path)
    m.start_session("s1", topic="twins", now=now())
    m.decide("Use sessions", entities=["auth"], session_id="s1", now=now())
    m.decide("Rotate keys", entities=["Auth"], session_id="s1", now=now())
    nfd = unicodedata.normalize("NFD", "Café")
    _write(tmp_path, f"{ENTITIES}/{nfd}.md", _entity(nfd))
    m.decide("Grind finer", entities=["Café"], session_id="s1", now=now())
    rel = m.end_session(compact=False, session_id="s1", now=now()).note
    _compact(tmp_path, rel)
    names = sorted(p.name for p in (tmp_path / ENTITIES).iterdir())
    assert names == sorted(["auth.md", f"{nfd}.md"])
    auth = _read(tmp_path, f"{ENTITIES}/auth.md")
    assert "Use sessions" in auth and "Rotate keys" in auth
    assert "Grind finer" in _read(tmp_path, f"{ENTITIES}/{nfd}.md")


def test_routing_by_mention_alias_component_link_and_inbox_last(tmp_path: Path) -> None:
    _write(tmp_path, f"{ENTITIES}/Billing.md", _entity("Billing", aliases="payments, invoices"))
    _write(tmp_path, "claude/global/entities/Redis.md", _entity("Redis"))
    note = """\
---
type: session
project: demo
created: 2026-11-20
---
# Routing

## Decisions Made

- Round payments once, at the end ([[Auth]])
- Keep redis connections pooled
- Invoices are immutable
- Prefer small functions
- Authors write tests first

## Related Entities

- [[Auth]] — src/auth/
- [[API]] — src/api/
"""
    rel = _session(tmp_path, "2026-11-20-routing", note)
    _compact(tmp_path, rel)
    billing = _read(tmp_path, f"{ENTITIES}/Billing.md")
    auth = _read(tmp_path, f"{ENTITIES}/Auth.md")
    redis = _read(tmp_path, "claude/global/entities/Redis.md")
    inbox = _read(tmp_path, f"{ENTITIES}/Inbox.md")
    # By the component link and by the alias it mentions.
    assert "Round payments once" in auth and "Round payments once" in billing
    assert "Invoices are immutable" in billing and "Invoices are immutable" not in inbox
    # A global entity by its name, as a word (case-insensitively).
    assert "Keep redis connections pooled" in redis
    # Nothing known: Inbox, the last resort. "Authors" is not the word "Auth".
    assert "Prefer small functions" in inbox and "Authors write tests first" in inbox
    assert "Authors" not in auth
    index = _read(tmp_path, INDEX)
    assert re.search(_row("Billing", "Invoices are immutable"), index), index


def test_a_component_named_as_code_spells_it_is_found_not_the_inbox(tmp_path: Path) -> None:
    # "Invoice Renderer" written as a class, a module or an installed binary's name: the same
    # component (issue 19: the module and class names the summary and the prose use).
    note = """\
---
type: session
project: demo
created: 2026-11-20
---
# Routing

## Gotchas & Fixes

- `InvoiceRenderer` dropped the footer on empty carts: fixed by guarding the totals
- Copying over the running `invoice-renderer` binary fails with Text file busy: stop it first
- The ledger sum overflowed on 32-bit builds: fixed by using i64

## Related Entities

- [[Invoice Renderer]] — lib/shop/invoice_renderer/
- [[Ledger]] — lib/shop/ledger/
"""
    rel = _session(tmp_path, "2026-11-20-routing", note)
    _compact(tmp_path, rel)
    renderer = _read(tmp_path, f"{ENTITIES}/Invoice Renderer.md")
    ledger = _read(tmp_path, f"{ENTITIES}/Ledger.md")
    assert "dropped the footer" in renderer and "Text file busy" in renderer
    assert "overflowed" in ledger and "overflowed" not in renderer
    assert not (tmp_path / ENTITIES / "Inbox.md").exists()


def test_a_component_named_by_the_words_that_start_or_end_its_name_is_found(
        tmp_path: Path) -> None:
    # People and Claude say "the power monitor" of Cosmic Applet Power Monitor (two words or
    # more of its name, at its start or end); one word ("the monitor") or a run of its own
    # entity ("Applet Power" here) names that one, not the longer name.
    _write(tmp_path, f"{ENTITIES}/Applet Power.md", _entity("Applet Power"))
    note = """\
---
type: session
project: demo
created: 2026-11-20
---
# Routing

## Gotchas & Fixes

- The power monitor's subscription was never polled: fixed by using stream::channel
- The monitor flickered on resume: fixed by redrawing once
- The applet power estimate was off by 10 W: fixed by reading the panel's brightness

## Related Entities

- [[Cosmic Applet Power Monitor]] — src/
- [[Rapl]] — lib/backend/
"""
    rel = _session(tmp_path, "2026-11-20-routing", note)
    _compact(tmp_path, rel)
    monitor = _read(tmp_path, f"{ENTITIES}/Cosmic Applet Power Monitor.md")
    inbox = _read(tmp_path, f"{ENTITIES}/Inbox.md")
    assert "never polled" in monitor and "never polled" not in inbox
    assert "flickered" in inbox and "flickered" not in monitor
    assert "off by 10 W" in _read(tmp_path, f"{ENTITIES}/Applet Power.md")
    assert "off by 10 W" not in monitor


def test_index_key_entities_kept_current_and_a_persons_text_survives(tmp_path: Path) -> None:
    index = ("---\ntype: project-index\nproject: demo\n---\n# demo\n\n## Overview\n\n"
             "My own overview of the shop.\n\n## Key Entities\n\nThe parts:\n\n"
             "## Runbook\n\n1. start redis\n2. run it\n")
    _write(tmp_path, INDEX, index)
    _write(tmp_path, f"{ENTITIES}/Search.md", _entity("Search", overview="Full-text search."))
    _compact(tmp_path, _captured(tmp_path, "2026-11-20-a"))
    got = _read(tmp_path, INDEX)
    assert "My own overview of the shop." in got
    assert ("## Runbook\n\n1. start redis\n2. run it\n\n## Prerequisites\n\n"
            f"- 2026-11-20 — The tests need `REDIS_URL` set ([[{ARCHIVE}/2026-11-20-a|"
            "2026-11-20-a]]) ^vm-") in got
    # The sections vaultmem keeps and the note lacked come at the end, after the person's.
    assert got.endswith(f"## Recent Sessions\n\n- [[{ARCHIVE}/2026-11-20-a|2026-11-20-a]] ^"
                        + got.rsplit("^", 1)[1])
    assert re.search(
        "## Key Entities\n\nThe parts:\n\n"
        + _row("Auth", "Use argon2id over bcrypt because it is memory-hard") + "\n"
        + _row("Billing", "Store money as integer cents") + "\n" + _row("Inbox") + "\n"
        + _row("Search", "Full-text search.") + "\n\n## Runbook", got), got
    # A later session with a newer decision updates the row of Auth only.
    later = CAPTURED.format(day="2026-11-24", topic="Later").replace(
        "- Decision: Use argon2id", "- Rotate signing keys weekly ([[Auth]])\n- Use argon2id")
    _compact(tmp_path, _session(tmp_path, "2026-11-24-b", later))
    got = _read(tmp_path, INDEX)
    assert re.search(_row("Auth", "Rotate signing keys weekly") + "\n", got), got
    assert got.count(f"- [[{ENTITIES}/Auth|Auth]]") == 1 and "The parts:" in got


def test_nothing_found_is_said_in_the_report(tmp_path: Path) -> None:
    note = ("---\ntype: session\nproject: demo\ncreated: 2026-11-20\n---\n# Chat\n\n## Work Log\n\n"
            "### 10:00 - talk\n\n**Prompt:** hello\n**Answer:** hi there\n\n## Decisions Made\n")
    report = _compact(tmp_path, _session(tmp_path, "2026-11-20-chat", note))
    warnings = report.warnings  # type: ignore[attr-defined]
    assert "no decisions, gotchas or prerequisites found in 2 lines" in warnings


@pytest.mark.parametrize("fault", ["compact:entity-patch:Auth", "compact:entity-patch:Billing",
                                   "compact:index", "compact:archive-write", "write"])
def test_a_rerun_after_a_crash_converges(tmp_path: Path, fault: str) -> None:
    initial = tmp_path / "initial"
    _write(initial, f"{ENTITIES}/Auth.md", _entity("Auth"))
    _compact(initial, _captured(initial, "2026-11-20-a"))
    rel = _captured(initial, "2026-11-24-b", day="2026-11-24", topic="Again")
    reference = tmp_path / "reference"
    shutil.copytree(initial, reference)
    _compact(reference, rel)
    expected = snapshot(reference)
    work = tmp_path / "work"
    shutil.copytree(initial, work)
    faults.arm(fault)
    try:
        memory(work).compact_note(rel, force=True, now=now())
    except faults.InjectedFault:
        pass
    finally:
        faults.disarm()
    assert snapshot(work) != expected
    _compact(work, rel)
    assert snapshot(work) == expected
    # And once more: nothing changes.
    memory(work).compact_note(f"{ARCHIVE}/2026-11-24-b.md", force=True, now=now())
    assert snapshot(work) == expected


def test_an_unreadable_entity_stops_only_a_compaction_that_writes_into_it(tmp_path: Path) -> None:
    broken = tmp_path / ENTITIES / "Broken.md"
    broken.parent.mkdir(parents=True)
    broken.write_bytes(b"---\ntype: entity\n---\n# Broken\n\n\xff\xfe not UTF-8\n")
    before = broken.read_bytes()
    _compact(tmp_path, _captured(tmp_path, "2026-11-20-a"))
    assert broken.read_bytes() == before
    assert re.search(_row("Broken"), _read(tmp_path, INDEX))
    note = CAPTURED.format(day="2026-11-21", topic="Broken").replace(
        "- Store money as integer cents ([[Billing]])", "- Fix it ([[Broken]])")
    rel = _session(tmp_path, "2026-11-21-b", note)
    report = memory(tmp_path).compact_note(rel, force=True, now=now())
    assert report.status == "failed" and "Broken.md" in (report.error or "")
    assert broken.read_bytes() == before


def test_a_reorganised_entity_is_written_under_the_first_of_duplicated_sections(
    tmp_path: Path,
) -> None:
    text = (f"---\ntype: entity\nproject: {PROJECT}\n---\n# Auth\n\n## Key Decisions\n\n"
            "- Mine, first\n\n## Notes\n\nA person's notes.\n\n## key decisions\n\n"
            "- Mine, pasted again\n")
    _write(tmp_path, f"{ENTITIES}/Auth.md", text)
    _compact(tmp_path, _captured(tmp_path, "2026-11-20-a"))
    got = _read(tmp_path, f"{ENTITIES}/Auth.md")
    first = got.index("## Key Decisions")
    second = got.index("## key decisions")
    line = got.index("— Use argon2id over bcrypt")
    assert first < line < got.index("## Notes") < second
    assert got.count("Use argon2id over bcrypt") == 1
    assert "- Mine, first\n" in got and "A person's notes." in got
    assert got.endswith("## key decisions\n\n- Mine, pasted again\n") or \
        "## key decisions\n\n- Mine, pasted again\n\n## " in got


def test_a_read_only_note_is_skipped_with_one_warning_and_left_byte_for_byte(
    tmp_path: Path,
) -> None:
    auth = tmp_path / ENTITIES / "Auth.md"
    auth.parent.mkdir(parents=True)
    auth.write_text(_entity("Auth"))
    auth.chmod(0o444)  # its owner says: leave this note alone
    before = auth.read_bytes()
    report = memory(tmp_path).compact_note(_captured(tmp_path, "2026-11-20-a"), force=True,
                                           now=now())
    assert report.status == "compacted", report.error
    assert auth.read_bytes() == before and auth.stat().st_mode & 0o777 == 0o444
    said = [w for w in report.warnings if "read-only" in w]
    assert said == [(f"{ENTITIES}/Auth.md: read-only (chmod), left as it is; its items stay in "
                    "the archived session")]
    assert "Store money as integer cents" in _read(tmp_path, f"{ENTITIES}/Billing.md")

    session = tmp_path / _captured(tmp_path, "2026-11-21-b", day="2026-11-21")
    session.chmod(0o444)
    kept = session.read_bytes()
    skipped = memory(tmp_path).compact_note(f"{SESSIONS}/2026-11-21-b.md", force=True, now=now())
    assert skipped.status == "skipped: read-only (chmod)" and session.read_bytes() == kept
    assert not (tmp_path / ARCHIVE / "2026-11-21-b.md").exists()


def test_entity_lines_follow_the_fact_rule_and_an_item_goes_to_two_entities(
        tmp_path: Path) -> None:
    text = CAPTURED.format(day="2026-11-20", topic="Rules").replace(
        "- Store money as integer cents ([[Billing]])",
        "- Store money as integer cents ([[Billing]])\n"
        "- Let me check the signing key first ([[Auth]])\n"
        "- <command-name>/clear</command-name> cleared ([[Auth]])\n"
        "- Refresh work: src/auth/, tests/auth/ ([[Auth]])\n"
        "- I've properly separated the token code into two modules ([[Auth]])\n"
        "- I can't run sudo commands interactively, but I can tell you the command to run. "
        "Run this in your terminal: `sudo systemctl restart tokend` ([[Auth]])\n"
        "- Retries back off exponentially ([[Auth]], [[Billing]], [[Queue]])")
    rel = _session(tmp_path, "2026-11-20-rules", text)
    _compact(tmp_path, rel)
    auth = _read(tmp_path, f"{ENTITIES}/Auth.md")
    billing = _read(tmp_path, f"{ENTITIES}/Billing.md")
    assert "Use argon2id over bcrypt" in auth  # the facts are filed
    for flawed in ("Let me check", "command-name", "Refresh work", "properly separated",
                   "I can't run sudo", "Run this"):
        assert flawed not in auth + billing, flawed
    # What a lead introduced is the line.
    assert "— `sudo systemctl restart tokend` (" in auth
    # At most two entities: the first two it names.
    assert "Retries back off exponentially" in auth and "Retries back off" in billing
    assert not (tmp_path / ENTITIES / "Queue.md").exists()
    assert "Let me check the signing key" in _read(tmp_path, f"{ARCHIVE}/2026-11-20-rules.md")


def test_a_change_is_the_outcome_of_the_turn_that_edited_the_component() -> None:
    from vaultmem.memory import changes
    from vaultmem.notes import sections

    note = ("# s\n\n## Work Log\n\n### 10:00 - a\n\n**Answer:** Let me look at it.\n"
            "- Edited `src/auth/`: `a.py`, `b.py` (2 files)\n\n### 10:30 - b\n\n"
            "**Answer:** Tokens now refresh a minute early. Because clocks drift.\n"
            "- Edited `src/auth/c.py`\n\n### 11:00 - c\n\n**Answer:** Docs updated.\n"
            "- Edited the project root: `README.md`, `a.toml` (2 files)\n")
    log = changes.turns(note.split("\n"), sections.headings(note))
    assert [t.edited for t in log] == [("src/auth/a.py", "src/auth/b.py"), ("src/auth/c.py",),
                                       ("README.md", "a.toml")]
    assert changes.change(["src/auth/"], log) == "Tokens now refresh a minute early."
    assert changes.change(["src/auth/"], log[:1]) is None  # thinking aloud is no change
    narrated = note.replace("Let me look at it.", "I've properly split the token code in two.")
    assert changes.change(["src/auth/"], changes.turns(
        narrated.split("\n"), sections.headings(narrated))[:1]) is None  # nor a narration
    assert changes.change(["src/billing/"], log) is None  # nothing edited there
    # Closing words are no outcome; the model's narration of one reads as the outcome.
    done = note.replace("Let me look at it.", "Done! I've now updated the token code. Here's how:")
    assert changes.change(["src/auth/"], changes.turns(
        done.split("\n"), sections.headings(done))[:1]) == "Updated the token code."
    closing = note.replace("Let me look at it.", "All tasks completed successfully! Tokens "
                           "now refresh early.")
    assert changes.change(["src/auth/"], changes.turns(
        closing.split("\n"), sections.headings(closing))[:1]) == "Tokens now refresh early."
    bare = note.replace("Let me look at it.", "Done!")
    assert changes.change(["src/auth/"], changes.turns(
        bare.split("\n"), sections.headings(bare))[:1]) is None
    # A label that introduces what follows says nothing of what came of the turn.
    labelled = note + ("\n### 12:00 - d\n\n**Answer:** **Updated `src/auth/c.py`:**\n"
                       "- Edited `src/auth/c.py`\n\n### 12:30 - e\n\n**Answer:** Here's the "
                       "new layout:\n- Edited `src/auth/d.py`\n")
    log = changes.turns(labelled.split("\n"), sections.headings(labelled))
    assert changes.change(["src/auth/"], log) == "Tokens now refresh a minute early."
    # A cheer is no change: the fix the answer states is, else a sentence that states one.
    cheer = note.replace("Let me look at it.", "I've fixed all that login spam! Here's what "
                         "caused it: expired tokens… Fix: Refresh tokens with `refresh()` "
                         "before each call:")
    assert changes.change(["src/auth/"], changes.turns(
        cheer.split("\n"), sections.headings(cheer))[:1]) == (
        "Refresh tokens with `refresh()` before each call")
    cheer = note.replace("Let me look at it.", "Fixed all that login spam! Tokens live an hour.")
    assert changes.change(["src/auth/"], changes.turns(
        cheer.split("\n"), sections.headings(cheer))[:1]) == "Tokens live an hour."
    cheer = note.replace("Let me look at it.", "Fixed all that login spam!")
    assert changes.change(["src/auth/"], changes.turns(
        cheer.split("\n"), sections.headings(cheer))[:1]) is None


def test_the_project_itself_is_no_component_of_it(tmp_path: Path) -> None:
    # A session begun in ~ touched ~/demo/… before it moved into ~/demo: capture named the
    # folder "Demo". The project's notes are the project's; its items go to the components
    # they name, else the fallback.
    text = CAPTURED.format(day="2026-11-20", topic="Moved").replace(
        "- Store money as integer cents ([[Billing]])",
        "- Store money as integer cents ([[Billing]], [[Demo]])\n"
        "- Keep the release notes in one file ([[Demo]])").replace(
        "- [[Billing]] — src/billing/", "- [[Billing]] — src/billing/\n- [[Demo]] — `demo/`")
    rel = _session(tmp_path, "2026-11-20-moved", text)
    _compact(tmp_path, rel)
    assert not (tmp_path / ENTITIES / "Demo.md").exists()
    assert "Store money as integer cents" in _read(tmp_path, f"{ENTITIES}/Billing.md")
    assert "Keep the release notes in one file" in _read(tmp_path, f"{ENTITIES}/Inbox.md")


def test_entity_notes_tell_the_later_state_what_changed_and_the_outer_component(
        tmp_path: Path) -> None:
    # Issue 29, read on the tuning vault: a command handed to the person stayed "For the person
    # to run" after the person said it was done; Recent Changes said "Fixed all that
    # notification spam!"; a session of src/ and src/backend/ sent what named neither to Inbox.
    text = CAPTURED.format(day="2026-11-20", topic="Workflows").replace(
        "**Answer:** I fixed the bug in the refresh: the root cause was a stale key.",
        "**Answer:** I've fixed all that notification spam! Here's what caused it: every scan "
        "failed the build… Fix: Updated the scan workflow with `continue-on-error: true`:").replace(
        "- Gotcha: Gotcha: the webhook needs the raw bytes ([[Billing]])",
        "- For the person to run `sudo chown $USER ./src/auth/keys.pem`: the key file is owned "
        "by root (`sudo cat ./src/auth/keys.pem` failed: `sudo: a terminal is required`)\n"
        "- Fixed by the person, who said: \u201cdone\u201d (`cat ./src/auth/keys.pem` failed: "
        "`cat: ./src/auth/keys.pem: Permission denied`)").replace(
        "- [[Auth]] — src/auth/, tests/auth/\n- [[Billing]] — src/billing/\n",
        "- [[Auth]] — src/\n- [[Billing]] — src/billing/\n")
    rel = _session(tmp_path, "2026-11-20-workflows", text)
    _compact(tmp_path, rel)
    auth = _read(tmp_path, f"{ENTITIES}/Auth.md")
    gotchas, changes = auth.split("## Gotchas & Troubleshooting")[1].split("## Recent Changes")
    assert "— Fixed by the person running `sudo chown $USER ./src/auth/keys.pem`: the key " \
        "file is owned by root" in gotchas
    assert "For the person to run" not in auth and "Permission denied" in gotchas
    assert "For the person to run `sudo chown" in _read(tmp_path, f"{ARCHIVE}/2026-11-20-workflows.md")
    assert "— Updated the scan workflow with `continue-on-error: true` (" in changes
    assert "spam" not in auth
    # Billing's folder is inside Auth's: what names neither goes to Auth, not to Inbox.
    assert "Fixed bug in payments rounding" in auth
    assert not (tmp_path / ENTITIES / "Inbox.md").exists()


AUDIT = """\
---
type: session
project: demo
created: 2026-11-20
---
# Audit

## Work Log

### 10:00 - audit the open ports

**Prompt:** audit the open ports
**Answer:** Port 2869 was open.

- Ran `powershell.exe -Command "Get-NetTCPConnection -State Listen"`

### 10:30 - save the report in my shop repo

**Prompt:** save the report in my shop repo
**Answer:** Saved.

- Edited `Documents/shop/docs/`: `audit.md` (1 file)

## Gotchas & Fixes

- Port 2869 (SSDP) was open: service stopped and disabled
- The shop repo signs commits with the Windows GnuPG

## Related Entities

- [[Shop]] — `Documents/shop/`
"""


def test_another_project_s_folder_is_no_home_of_a_session_that_worked_elsewhere(
        tmp_path: Path) -> None:
    # A session in ~ audited the machine and saved its report in ~/Documents/shop, itself a
    # project of the vault: the shop folder is a side job, no home for what names nothing;
    # what names it still goes to it.
    _write(tmp_path, "claude/projects/shop/_index.md", "# shop\n")
    rel = _session(tmp_path, "2026-11-20-audit", AUDIT)
    _compact(tmp_path, rel)
    inbox, shop = _read(tmp_path, f"{ENTITIES}/Inbox.md"), _read(tmp_path, f"{ENTITIES}/Shop.md")
    assert "Port 2869" in inbox and "Port 2869" not in shop
    assert "signs commits with the Windows GnuPG" in shop


def test_another_project_s_folder_is_the_home_of_a_session_that_worked_only_there(
        tmp_path: Path) -> None:
    _write(tmp_path, "claude/projects/shop/_index.md", "# shop\n")
    only_there = AUDIT.replace('powershell.exe -Command "Get-NetTCPConnection -State Listen"',
                               "cd ~/Documents/shop && git status")
    rel = _session(tmp_path, "2026-11-20-audit", only_there)
    _compact(tmp_path, rel)
    assert "Port 2869" in _read(tmp_path, f"{ENTITIES}/Shop.md")
