"""entitynote, entityparse: dated unique lines, related links, the overview, Key Entities (pure)."""

from __future__ import annotations

from datetime import date

from vaultmem.memory import entitynote, entityparse
from vaultmem.memory.entitynote import Line, Overview
from vaultmem.notes import names

TODAY = date(2026, 11, 22)
ENTITY = """\
---
type: entity
updated: 2026-10-01
---
# Auth

## Overview

Created by vaultmem when compacting [[a/2026-11-01-x|2026-11-01-x]].

## Key Decisions

- An older decision
- 2026-11-01 — Use argon2 ([[a/2026-11-01-x|2026-11-01-x]]) ^vm-aaaaaaaa
- old fact ([[a/2026-10-01-y|2026-10-01-y]]) ^vm-bbbbbbbb
- 2026-11-10 — later ([[a/2026-11-10-z|2026-11-10-z]]) ^vm-cccccccc

## Gotchas & Troubleshooting

## References
"""


def _line(text: str, day: str, stem: str, heading: str = "Key Decisions") -> Line:
    key = entityparse.fact_key(text)
    return Line(heading, day, text, names.block_id("decision", key),
                names.block_id(f"{stem}.md", "decision", key), f"[[a/{stem}|{stem}]]")


def test_fact_key_ignores_case_space_and_trailing_punctuation() -> None:
    assert entityparse.fact_key("Use  Argon2id.") == entityparse.fact_key("use argon2id")
    assert entityparse.fact_key("Cafe\u0301!") == entityparse.fact_key("café")
    assert entityparse.fact_key("a b") != entityparse.fact_key("ab")


def test_new_lines_go_in_date_order_and_a_known_fact_gets_a_second_link() -> None:
    new = [_line("brand new", "2026-11-05", "2026-11-05-w"),
           _line("newest", "2026-11-20", "2026-11-20-v"),
           Line("Key Decisions", "2026-11-05", "use argon2.", "vm-aaaaaaaa", "vm-00000000",
                "[[a/2026-11-05-w|2026-11-05-w]]")]
    got = entitynote.compose(ENTITY, new, today=TODAY)
    lines = got.text.split("\n")
    body = lines[lines.index("## Key Decisions") + 2 : lines.index("## Gotchas & Troubleshooting") - 1]
    assert body == [
        "- An older decision",
        ("- 2026-11-01 — Use argon2 ([[a/2026-11-01-x|2026-11-01-x]], "
        "[[a/2026-11-05-w|2026-11-05-w]]) ^vm-aaaaaaaa"),
        "- old fact ([[a/2026-10-01-y|2026-10-01-y]]) ^vm-bbbbbbbb",
        "- 2026-11-05 — brand new ([[a/2026-11-05-w|2026-11-05-w]]) ^" + new[0].block,
        "- 2026-11-10 — later ([[a/2026-11-10-z|2026-11-10-z]]) ^vm-cccccccc",
        "- 2026-11-20 — newest ([[a/2026-11-20-v|2026-11-20-v]]) ^" + new[1].block,
    ]
    assert (got.added, got.merged, got.present) == (2, 1, 0)
    assert "updated: 2026-11-22" in got.text
    assert got.summary == ("^" + new[1].block, "newest")
    again = entitynote.compose(got.text, new, today=TODAY)
    assert again.text == got.text and (again.added, again.merged, again.present) == (0, 0, 3)


def test_an_old_format_line_is_recognised_and_takes_the_first_date() -> None:
    # The same fact again: the old line gets the link, and the date of its first session.
    again = _line("Old fact", "2026-11-05", "2026-11-05-w")
    got = entitynote.compose(ENTITY, [again], today=TODAY)
    assert ("- 2026-10-01 — old fact ([[a/2026-10-01-y|2026-10-01-y]], "
            "[[a/2026-11-05-w|2026-11-05-w]]) ^vm-bbbbbbbb") in got.text.split("\n")
    # This session's own line in the old format (its id from the session's file name): there.
    old_id = names.block_id("2026-10-01-y.md", "decision", "old fact")
    text = ENTITY.replace("^vm-bbbbbbbb", "^" + old_id)
    same = _line("old fact", "2026-10-01", "2026-10-01-y")
    assert same.old_block == old_id
    got = entitynote.compose(text, [same], today=TODAY)
    assert got.present == 1 and got.added == 0
    assert got.text == text


def test_a_persons_line_with_the_same_fact_is_left_alone() -> None:
    got = entitynote.compose(ENTITY, [_line("an older decision.", "2026-11-05", "s")],
                             today=TODAY)
    assert got.text == ENTITY and got.present == 1


GOTCHAS = """\
# Git

## Gotchas & Troubleshooting

- 2026-11-01 — Fixed with `--no-gpg-sign`: `git commit` failed (`error: gpg failed to sign \
the data: gpg-agent socket unreachable`) ([[a/s1|s1]]) ^vm-11111111
- The `origin` remote is gone after git-filter-repo: re-add it before pushing

## References
"""


def _gotcha(text: str, day: str, stem: str) -> Line:
    key = entityparse.fact_key(text)
    return Line("Gotchas & Troubleshooting", day, text, names.block_id("gotcha", key),
                names.block_id(f"{stem}.md", "gotcha", key), f"[[a/{stem}|{stem}]]")


def test_the_same_lesson_in_other_words_is_one_dated_line() -> None:
    # Issue 29: a later session re-files a lesson in its own words; the note keeps one line,
    # with its words (a person may have edited them), the later session's link added.
    later = _gotcha("Fixed with `--no-gpg-sign`: `git pull` failed (`error: gpg failed to sign "
                    "the data: gpg-agent socket unreachable`)", "2026-11-05", "s2")
    got = entitynote.compose(GOTCHAS, [later], today=TODAY)
    rows = [r for r in got.text.split("\n") if r.startswith("- ")]
    assert rows[0] == ("- 2026-11-01 — Fixed with `--no-gpg-sign`: `git commit` failed (`error: "
                       "gpg failed to sign the data: gpg-agent socket unreachable`) "
                       "([[a/s1|s1]], [[a/s2|s2]]) ^vm-11111111")
    assert len(rows) == 2 and (got.added, got.merged) == (0, 1)
    # A person's line saying it: left alone, the lesson counts as there.
    person = _gotcha("git-filter-repo removes the `origin` remote: re-add it before pushing",
                     "2026-11-05", "s2")
    got = entitynote.compose(GOTCHAS, [person], today=TODAY)
    assert got.text == GOTCHAS and got.present == 1
    # Another lesson sharing a few words is a line of its own.
    other = _gotcha("`git commit` failed: the pre-commit hook needs Python on the PATH",
                    "2026-11-05", "s2")
    assert entitynote.compose(GOTCHAS, [other], today=TODAY).added == 1


def test_a_sessions_near_copies_keep_the_line_telling_more() -> None:
    short = _gotcha("The applet started with `cosmic::app::run` instead of "
                    "`cosmic::applet::run`.", "2026-11-05", "s2")
    longer = _gotcha("The applet started with the wrong runtime (`cosmic::app::run` → "
                     "`cosmic::applet::run`) and the panel stayed empty", "2026-11-05", "s2")
    got = entitynote.compose(GOTCHAS, [short, longer], today=TODAY)
    rows = [r for r in got.text.split("\n") if "cosmic" in r]
    assert len(rows) == 1 and "the panel stayed empty" in rows[0]
    again = entitynote.compose(got.text, [short, longer], today=TODAY)
    assert again.text == got.text


def test_a_sessions_lines_quoting_the_same_code_are_one_lesson() -> None:
    # Issue 29: an answer and its recap said one fix in words that share nothing but what they
    # quote; the entity note showed both.
    said = _gotcha("I was using `cosmic::app::run` instead of `cosmic::applet::run`.",
                   "2026-11-05", "s2")
    recap = _gotcha("Using wrong runtime (`cosmic::app::run` → `cosmic::applet::run`)",
                    "2026-11-05", "s2")
    got = entitynote.compose(GOTCHAS, [said, recap], today=TODAY)
    rows = [r for r in got.text.split("\n") if "cosmic" in r]
    assert len(rows) == 1 and "wrong runtime" in rows[0]
    # One code span shared, or another span quoted, is another lesson.
    other = _gotcha("`cosmic::app::run` opens a window, not a panel applet", "2026-11-05", "s2")
    more = _gotcha("Using `cosmic::app::run` → `cosmic::applet::run` needs `applet` feature",
                   "2026-11-05", "s2")
    got = entitynote.compose(GOTCHAS, [recap, other, more], today=TODAY)
    assert len([r for r in got.text.split("\n") if "cosmic" in r]) == 3


def test_an_earlier_session_moves_the_line_up() -> None:
    text = ("# X\n\n## Key Decisions\n\n- 2026-11-01 — a ([[a/s1|s1]]) ^vm-11111111\n"
            "- 2026-11-10 — b ([[a/s2|s2]]) ^vm-22222222\n")
    late = Line("Key Decisions", "2026-10-01", "B", "vm-22222222", "vm-0", "[[a/s0|s0]]")
    got = entitynote.compose(text, [late], today=TODAY)
    assert got.text.endswith("## Key Decisions\n\n- 2026-10-01 — b ([[a/s0|s0]], [[a/s2|s2]]) "
                             "^vm-22222222\n- 2026-11-01 — a ([[a/s1|s1]]) ^vm-11111111\n")


def test_lines_inside_a_fence_are_not_read() -> None:
    text = ("# X\n\n## Key Decisions\n\n```\n- 2026-11-01 — a ([[a/s1|s1]]) ^vm-11111111\n```\n")
    line = Line("Key Decisions", "2026-11-01", "a", "vm-11111111", "vm-0", "[[a/s2|s2]]")
    got = entitynote.compose(text, [line], today=TODAY)
    assert got.added == 0 and got.present == 1  # the id is in the note: never twice
    other = Line("Key Decisions", "2026-11-01", "c", "vm-33333333", "vm-0", "[[a/s2|s2]]")
    got = entitynote.compose(text, [other], today=TODAY)
    assert got.text.endswith("```\n\n- 2026-11-01 — c ([[a/s2|s2]]) ^vm-33333333\n")


def test_missing_sections_are_added_and_the_rest_keeps_its_bytes() -> None:
    text = "---\nupdated: 2026-01-01\n---\n# Mine\n\nMy own words.\n\n## Notes\n\nKeep me.\n"
    got = entitynote.compose(
        text, [_line("x", "2026-11-05", "s", "Gotchas & Troubleshooting")],
        related=("[[Billing]]", "[[billing]]", "[[API]]"),
        backlink="- [[a/s|s]] - Archived session (compacted)", today=TODAY)
    assert got.text.startswith("---\nupdated: 2026-11-22\ndecisions: 0\ngotchas: 1\n---\n"
                               "# Mine\n\nMy own words.\n\n"
                               "## Notes\n\nKeep me.\n\n## Gotchas & Troubleshooting\n\n- 2026")
    assert got.text.endswith("\n\n## Related Entities\n\n- [[Billing]]\n- [[API]]\n\n"
                             "## References\n\n- [[a/s|s]] - Archived session (compacted)\n")
    again = entitynote.compose(got.text, [], related=("[[API]]",),
                               backlink="- [[a/s|s]] - Archived session (compacted)",
                               today=TODAY)
    assert again.text == got.text


def test_the_overview_fills_a_placeholder_and_keeps_a_persons_words() -> None:
    seen = Overview(("src/auth/", "tests/auth/"), "2026-11-05", "[[a/2026-11-05-w|2026-11-05-w]]")
    got = entitynote.compose(ENTITY, [], overview=seen, today=TODAY)
    # One text whatever the sessions (notemerge unites the links of two machines' lines).
    line = ("Code in `src/auth/`, `tests/auth/`. Sessions, first and last "
            "([[a/2026-11-01-x|2026-11-01-x]], [[a/2026-11-05-w|2026-11-05-w]]) ^vm-overview")
    assert "## Overview\n\n" + line + "\n\n## Key Decisions" in got.text
    later = Overview(("src/auth/jwt/",), "2026-11-20", "[[a/2026-11-20-v|2026-11-20-v]]")
    got2 = entitynote.compose(got.text, [], overview=later, today=TODAY)
    assert ("Code in `src/auth/`, `src/auth/jwt/`, `tests/auth/`. Sessions, first and last "
            "([[a/2026-11-01-x|2026-11-01-x]], [[a/2026-11-20-v|2026-11-20-v]]) ^vm-overview"
            ) in got2.text
    # A merged line holding more sessions is read back to its first and last.
    merged = got2.text.replace("[[a/2026-11-20-v|2026-11-20-v]]) ^vm-overview",
                               "[[a/2026-11-20-v|2026-11-20-v]], [[a/2026-11-07-u|2026-11-07-u]])"
                               " ^vm-overview")
    assert entitynote.compose(merged, [], overview=later, today=TODAY).text == got2.text
    assert entitynote.compose(got2.text, [], overview=later, today=TODAY).text == got2.text
    person = ENTITY.replace("Created by vaultmem when compacting [[a/2026-11-01-x|2026-11-01-x]].",
                            "Auth is the login flow. I wrote this.")
    assert entitynote.compose(person, [], overview=seen, today=TODAY).text == person
    empty = ENTITY.replace("Created by vaultmem when compacting [[a/2026-11-01-x|2026-11-01-x]].\n\n",
                           "")
    got3 = entitynote.compose(empty, [], overview=seen, today=TODAY)
    assert ("## Overview\n\nCode in `src/auth/`, `tests/auth/`. Sessions, first and last "
            "([[a/2026-11-05-w|2026-11-05-w]]) ^vm-overview\n\n## Key") in got3.text
    assert entityparse.summary(got3.text) == ("^vm-cccccccc", "later")  # the newest decision
    assert entityparse.summary(person.replace("- 2026", "- x")) == (
        "Overview", "Auth is the login flow. I wrote this.")


def test_key_entities_rows_replace_ours_and_keep_a_persons() -> None:
    index = ("---\ntype: project-index\n---\n# shop\n\n## Overview\n\nMy project.\n\n"
             "## Key Entities\n\nThe parts I care about:\n- [[Auth]] — old summary\n"
             "- [[Elsewhere]] — a note of mine\n\n## Mine\n\nText.\n")
    auth = entitynote.key_entity_row("Auth", ("^vm-aaaaaaaa", "Use [argon2] | fast"))
    billing = entitynote.key_entity_row("Billing", ("", ""))
    row_id = names.block_id("key-entity", "auth")
    assert auth == f"- [[Auth]] ([[Auth#^vm-aaaaaaaa|Use (argon2) / fast]]) ^{row_id}"
    assert billing == "- [[Billing]] ^" + names.block_id("key-entity", "billing")
    rows = {"auth": auth, "billing": billing}
    prereq = Line("Prerequisites", "2026-11-05", "The tests need `REDIS_URL` set", "vm-12345678",
                  "vm-0", "[[a/s|s]]")
    got = entitynote.compose_index(index, [prereq], rows, today=TODAY)
    assert got.text == (
        "---\ntype: project-index\nupdated: 2026-11-22\n---\n# shop\n\n## Overview\n\n"
        "My project.\n\n## Key Entities\n\nThe parts I care about:\n"
        f"- [[Elsewhere]] — a note of mine\n{auth}\n{billing}\n\n"
        "## Mine\n\nText.\n\n## Prerequisites\n\n"
        "- 2026-11-05 — The tests need `REDIS_URL` set ([[a/s|s]]) ^vm-12345678\n")
    assert entityparse.key_entity_rows(got.text) == {
        "auth": auth, "billing": billing, "elsewhere": "- [[Elsewhere]] — a note of mine"}
    assert entitynote.compose_index(got.text, [prereq], rows, today=TODAY).text == got.text


def test_a_setup_line_another_line_states_is_left_out() -> None:
    # Issue 29: the CI entity held "Set up: continue-on-error in security-scan.yml (true)" under
    # the Recent Changes line saying it in words: one state, one line, the worded one.
    setup = _line("Set up: continue-on-error in security-scan.yml (true)", "2026-11-05", "s2")
    change = Line("Recent Changes", "2026-11-05", "Updated 2 workflows with "
                  "`continue-on-error: true` on all jobs", "vm-12121212", "vm-0", "[[a/s2|s2]]")
    got = entitynote.compose(ENTITY, [setup, change], today=TODAY)
    assert "Set up:" not in got.text and "`continue-on-error: true`" in got.text
    # Stated by a row already there, in any section.
    assert "Set up:" not in entitynote.compose(got.text, [setup], today=TODAY).text
    # Not stated: another value, settings left uncounted, a negation, one of two settings.
    for said in ("Set up: continue-on-error in security-scan.yml (false)",
                 "Set up: continue-on-error in ci.yml (true) (+2 more)"):
        assert "Set up:" in entitynote.compose(got.text, [_line(said, "2026-11-06", "s3")],
                                               today=TODAY).text, said
    installed = _line("Set up: gitleaks (installed)", "2026-11-06", "s3")
    noted = _gotcha("The hook warns when gitleaks is not installed", "2026-11-06", "s3")
    assert "Set up: gitleaks" in entitynote.compose(ENTITY, [installed, noted], today=TODAY).text
    stated = _gotcha("cachesize=5000 keeps more names", "2026-11-06", "s3")
    for said, out in (("Set up: uci dhcp.@dnsmasq[0].cachesize (5000)", False),
                      ("Set up: uci dhcp.cachesize (5000); uci dhcp.logqueries (1)", True)):
        text = entitynote.compose(ENTITY, [_line(said, "2026-11-06", "s3"), stated],
                                  today=TODAY).text
        assert ("Set up:" in text) is out, said


def test_a_later_sessions_fix_quoting_a_rows_code_and_its_cut_error_is_that_row() -> None:
    # Issue 29: "Fixed with `--no-gpg-sign`: `git commit` failed (`error: gpg failed to sign the
    # data:`)" came again a week later under the row quoting the same fix, command and error
    # (there with the warnings after it); too few words for the telling rule.
    row = ("Fixed with `--no-gpg-sign`: `git commit` failed (`error: gpg failed to sign the "
           "data:; warning: unable to access…`)")
    text = entitynote.compose(GOTCHAS, [_gotcha(row, "2026-11-05", "s2")], today=TODAY).text
    again = _gotcha("Fixed with `--no-gpg-sign`: `git commit` failed (`error: gpg failed to "
                    "sign the data:`)", "2026-11-09", "s3")
    got = entitynote.compose(text, [again], today=TODAY)
    assert (got.added, got.merged) == (0, 1), got.text
    # Another command, or a short span that only begins the row's, is another lesson.
    tag = "Fixed with `--no-gpg-sign`: `git tag` failed (`error: gpg failed to sign the data:`)"
    short = "Fixed with `--no-gpg`: `git commit` failed (`error: gpg failed to sign the data:`)"
    for said in (tag, short):
        assert entitynote.compose(text, [_gotcha(said, "2026-11-09", "s3")],
                                  today=TODAY).added == 1, said


def test_a_label_restating_the_chosen_option_is_the_choices_line() -> None:
    # Issue 29: "Type: COSMIC Panel Applet (integrated into cosmic-panel)" stood under the
    # question's line that chose "COSMIC Panel Applet (Recommended)".
    asked = _line("Do you want a panel applet or a tray icon? — chose: COSMIC Panel Applet "
                  "(Recommended); not chosen: Standalone System Tray Icon", "2026-11-05", "s2")
    said = _line("Type: COSMIC Panel Applet (integrated into cosmic-panel)", "2026-11-05", "s2")
    got = entitynote.compose(ENTITY, [asked, said], today=TODAY)
    assert "Type: COSMIC" not in got.text and "— chose: COSMIC Panel Applet" in got.text
    # Another value, or a value that only begins with the option, is a line of its own.
    for other in ("Type: GNOME Shell extension", "Type: COSMIC Panel Applet with a menu"):
        text = entitynote.compose(ENTITY, [asked, _line(other, "2026-11-05", "s2")],
                                  today=TODAY).text
        assert other in text, other
    # A choice put first ("Chose: …") is restated the same way.
    first = _line("Chose: Update the scanner config; not chosen: Skip the hook", "2026-11-05", "s2")
    again = _line("Approach: Update the scanner config (suggested by the audit team)",
                  "2026-11-05", "s2")
    assert "Approach:" not in entitynote.compose(ENTITY, [first, again], today=TODAY).text
