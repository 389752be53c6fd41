"""lookahead.py: a decision taken before the work it decides is filed under what the next turns
edit (issue 29), through the compaction's extraction of a real-shaped session note."""

from __future__ import annotations

from pathlib import Path

from vaultmem.memory import lookahead, sessionextract
from vaultmem.notes import sections
from vaultmem.store.config import Config

CONFIG = Config(vault=Path("/nonexistent"), project="power-applet")
REL = "claude/projects/power-applet/sessions/2026-01-01-power-applet.md"
QUESTION = "Which approach sounds better for you?"
DECISION = (f"{QUESTION} — chose: Rustup (Official Rust Installer); not chosen: Pacman "
            "(System Package Manager)")
FILED = DECISION.replace(f"{QUESTION} — chose:", "Chose:")  # the entity line: no bare question


def _entry(time: str, title: str, *body: str) -> str:
    return "\n".join([f"### {time} - {title}", "", *body, ""])


ASKED = _entry("08:07", "what are the advantages to using rustup vs…",
               "**Prompt:** what are the advantages to using rustup vs pacman?",
               "**Answer:** Great question! Here's a comparison:", "",
               "> [!note]- Claude's answer (3 lines)", "> Great question!", ">",
               f"> {QUESTION}")
PICKED = _entry("08:15", "Rustup", "**Prompt:** Rustup",
                "**Answer:** The rustup installer needs an interactive terminal.", "",
                "- Ran `curl --proto '=https' -sSf https://sh.rustup.rs | sh -s -- -y`")
ROOT = _entry("08:23", "you can run it", "**Prompt:** you can run it",
              "**Answer:** The binary is built.", "", "- Edited `Cargo.toml`")
BACKEND = _entry("08:31", "you run it", "**Prompt:** you run it",
                 "**Answer:** RAPL needs root.", "", "- Edited `src/backend/rapl.rs`",
                 "- Edited `.github/workflows/build.yml`")


def _note(*entries: str, decisions: str = f"- {DECISION}") -> str:
    return "\n".join([
        "---", "type: session", "project: power-applet", "---", "# Power applet", "",
        "## Work Log", "", *entries, "## Decisions Made", "", decisions, "",
        "## Related Entities", "",
        "- [[Rapl]] — `src/backend/`", "- [[Power Monitor]] — `src/`",
        "- [[CI]] — `.github/workflows/`",
        "- [[Power Applet]] — `power-applet/`", ""])


def _entities(note: str) -> dict[str, tuple[str, ...]]:
    extraction = sessionextract.extract(note, REL, CONFIG)
    return {i.text: i.entities for i in extraction.items if i.kind == "decision"}


def test_an_option_picked_before_any_edit_goes_to_what_the_next_turns_edit() -> None:
    # Rustup was picked in a turn that touched no file; two turns later the backend was edited.
    # The session note's question found its turn; the entity line goes without it.
    assert _entities(_note(ASKED, PICKED, ROOT, BACKEND)) == {FILED: ("Rapl",)}


def test_a_decision_whose_work_comes_too_late_or_after_a_compaction_stays_unfiled() -> None:
    later = _entry("08:29", "check", "**Prompt:** check", "**Answer:** Still building.")
    assert _entities(_note(ASKED, PICKED, ROOT, later, BACKEND))[FILED] == ("Inbox",)
    compacted = _entry("08:30", "Context compacted", "**Outcome:** building the backend")
    assert _entities(_note(ASKED, PICKED, compacted, BACKEND))[FILED] == ("Inbox",)
    # The project's own folder and the CI are no home of it (the CI holds what speaks of it).
    own = BACKEND.replace("`src/backend/rapl.rs`", "`power-applet/main.rs`")
    assert _entities(_note(ASKED, PICKED, ROOT, own))[FILED] == ("Inbox",)


def test_a_decision_whose_own_turn_did_the_work_is_not_the_next_turns_work() -> None:
    # Its turn edited a script of no component (Projects/Scripts/): the work was done there,
    # and the next turn's edit of another folder is other work.
    decision = "Add redact_secrets.py script to auto-redact detected secrets"
    done = _entry("09:00", "redact instead of blocking", "**Prompt:** redact instead",
                  f"**Answer:** Done. {decision}.", "",
                  "- Edited `Projects/Scripts/redact_secrets.py`")
    other = BACKEND.replace("08:31", "09:10")
    assert _entities(_note(done, other, decisions=f"- {decision}"))[decision] == ("Inbox",)
    # The look-alike: the same words in a turn that edited nothing look ahead.
    said = done.replace("- Edited `Projects/Scripts/redact_secrets.py`", "")
    assert _entities(_note(said, other, decisions=f"- {decision}"))[decision] == ("Rapl",)


def test_a_decision_not_found_in_the_log_or_too_short_to_find_stays_unfiled() -> None:
    other = "- Use pacman for everything else on this machine"
    assert _entities(_note(ASKED, PICKED, ROOT, BACKEND, decisions=other))[
        "Use pacman for everything else on this machine"] == ("Inbox",)
    assert lookahead.key("Use A") == ""


def test_the_log_reads_each_entry_s_edits_and_words() -> None:
    note = _note(ASKED, PICKED, ROOT, BACKEND)
    log = lookahead.entries(note.split("\n"), sections.headings(note))
    assert [e.edited for e in log] == [
        (), (), ("Cargo.toml",), ("src/backend/rapl.rs", ".github/workflows/build.yml")]
    assert lookahead.key(DECISION) in log[0].text


def test_an_item_naming_no_component_goes_to_the_ones_its_turn_names() -> None:
    # Issue 29: an item goes to Inbox only when no component is named anywhere in its turn.
    fixed = _entry("16:21", "fix dns", "**Prompt:** fix dns on the router",
                   "**Answer:** DNS works through slate now. The init script reads the server "
                   "as a list, not a single option.", "", "- Ran `git status`")
    ran = _entry("16:30", "commit", "**Prompt:** commit", "**Answer:** The hook blocked the "
                 "commit until the secrets were redacted.", "", "- Ran `git commit -m x`")
    gotchas = ("- The init script reads the server as a list, not a single option — fix: add_list\n"
               "- The hook blocked the commit until the secrets were redacted\n")
    note = (f"---\ntype: session\nproject: power-applet\n---\n# Router\n\n## Work Log\n\n"
            f"{fixed}\n{ran}\n## Gotchas & Fixes\n\n{gotchas}")
    extraction, _ = sessionextract.extract_report(note, REL, CONFIG,
                                                  known=[("Slate", ()), ("Git", ())])
    assert {i.text.split(",")[0]: i.entities for i in extraction.items} == {
        "The init script reads the server as a list": ("Slate",),
        # The commands a turn ran name no component (`git commit` is no word of its prose).
        "The hook blocked the commit until the secrets were redacted": ("Inbox",)}


def test_an_item_naming_nothing_goes_to_the_one_thing_its_turn_s_prompt_names() -> None:
    # The answer names gitleaks and the pre-commit hook; the person asked about gitleaks.
    strict = _entry("18:56", "make sure gitleaks is set to max strict",
                    "**Prompt:** make sure gitleaks is set to max strict",
                    "**Answer:** Gitleaks runs in max strict mode from the pre-commit hook. "
                    "Entropy threshold: 3.5 → 3.0 (more sensitive)", "",
                    "- Ran `gitleaks detect --config=.gitleaks.toml`")
    note = (f"---\ntype: session\nproject: power-applet\n---\n# Leaks\n\n## Work Log\n\n"
            f"{strict}\n## Decisions Made\n\n- Entropy threshold: 3.5 → 3.0 (more sensitive)\n")
    extraction, _ = sessionextract.extract_report(
        note, REL, CONFIG, known=[("gitleaks", ()), ("pre-commit", ())])
    assert [i.entities for i in extraction.items] == [("gitleaks",)]


def test_a_gotcha_of_a_failing_project_script_goes_to_the_script() -> None:
    gotchas = ("- Fixed by running `dos2unix scripts/update_user.sh`: `cd ~/power-applet && "
               "./scripts/update_user.sh bob --dry-run` failed (`bad interpreter: /bin/bash^M`)\n"
               "- Fixed by editing `src/backend/rapl.rs`: `./scripts/check.sh` failed (`E0412`)\n")
    note = (f"---\ntype: session\nproject: power-applet\n---\n# Scripts\n\n"
            f"## Gotchas & Fixes\n\n{gotchas}")
    extraction, _ = sessionextract.extract_report(note, REL, CONFIG)
    assert [i.entities for i in extraction.items] == [("update_user",), ("Inbox",)]
