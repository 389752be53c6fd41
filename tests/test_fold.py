"""mining/fold.py: a line whose words a longer line of its kind holds folds into it; two facts
that merely share words, a value or an order stay two."""

from __future__ import annotations

import pytest

from vaultmem.mining import fold

REPORT = ("`python deploy.py --env staging` failed with `ModuleNotFoundError: No module named "
          "'requests'` because the `requests` package was not installed in the virtualenv. Fix: "
          "Installed it with `pip install requests`; the staging deploy now passes.")
SOURCES = [
    "The deploy failed because the `requests` package was not installed in the virtualenv.",
    REPORT,
    ("`python deploy.py --env staging` failed with `ModuleNotFoundError: No module named "
    "'requests'` because the `requests` package was not installed in the virtualenv."),
    ("`python deploy.py --env staging` failed (`ModuleNotFoundError: No module named "
    "'requests'`); it passed after running `pip install requests`"),
    ("The deploy failed because the `requests` package was not installed in the virtualenv. "
    "(`python deploy.py --env staging` failed: `ModuleNotFoundError: No module named "
    "'requests'`)"),
]


def test_four_sources_of_one_fact_fold_into_the_longest() -> None:
    assert fold.folds([("gotcha", t) for t in SOURCES]) == [1, 1, 1, 1, 1]


def test_words_ignore_case_ticks_links_comments_dates_and_punctuation() -> None:
    assert fold.words("2026-11-22 — Use `[[entities/Auth|auth]]` tokens! %%vm-anchor x%%") == (
        "use", "auth", "tokens")
    assert fold.holds("Rotate the Auth tokens daily, via cron.", "rotate the `auth` tokens daily")
    # A path link is compared by the name it is about, as an alias is.
    assert fold.words("Rotate [[claude/projects/x/entities/Auth]] tokens") == (
        "rotate", "auth", "tokens")


def test_a_near_copy_with_the_same_code_and_a_reworded_clause_folds() -> None:
    assert fold.holds("`make build` fails with `cc: not found` because `gcc` is missing in the "
                      "image; fixed by installing `build-essential`",
                      "`make build` failed (`cc: not found`) because `gcc` was missing")


@pytest.mark.parametrize(("longer", "shorter"), [
    # a short phrase two facts share is no fact of its own
    ("Run the tests with uv run pytest before pushing", "the tests with"),
    # another value
    ("Set the request timeout to 60 seconds because the upstream is slow",
     "Set the request timeout to 30 seconds"),
    # the same words in another order turn the fact
    ("Use `pip`, not `uv`, for installing the build packages here",
     "Use `uv`, not `pip`, for installing the build packages"),
    ("Use `pip` instead of `uv` for installing the build packages here",
     "Use `uv` instead of `pip` for installing the build packages"),
    # the same failure fixed another way (its fix's command is not in the longer line)
    (("`npm test` failed (`Error: Cannot find module 'x'`); it passed after editing "
     "`jest.config.js`"),
     "`npm test` failed (`Error: Cannot find module 'x'`); it passed after running `npm install`"),
    # most words shared, the fact is another (prose alone folds only when contained whole)
    ("The login token expires after 30 minutes and is refreshed by the client",
     "The refresh token expires after 30 minutes"),
])
def test_different_facts_that_share_words_stay_two(longer: str, shorter: str) -> None:
    assert not fold.holds(longer, shorter)
    assert fold.folds([("gotcha", longer), ("gotcha", shorter)]) == [0, 1]


def test_only_lines_of_one_kind_fold() -> None:
    assert fold.folds([("decision", REPORT), ("gotcha", SOURCES[2])]) == [0, 1]


def test_equal_words_keep_the_first_and_a_longer_line_is_kept_where_it_stands() -> None:
    assert fold.folds([("gotcha", "Pin `ruff` to 0.6."), ("gotcha", "pin ruff to 0.6"),
                       ("gotcha", "Pin `ruff` to 0.6 in CI: 0.7 flags every import.")]) == [2, 2, 2]
    assert fold.folds([("gotcha", "pin ruff to 0.6 now"), ("gotcha", "Pin ruff to 0.6 now.")]
                      ) == [1, 1]


def test_a_line_the_note_holds_under_its_kind_is_not_added_again() -> None:
    note = ("## Work Log\n\n- Failed: `python deploy.py --env staging` failed with something\n\n"
            "## Gotchas & Fixes\n\n- " + REPORT + " ([[Deploy]])\n")
    listed = fold.listed(note)
    assert listed == {"gotcha": [REPORT]}
    assert fold.folds([("gotcha", SOURCES[0]), ("decision", SOURCES[0])], listed) == [None, 1]


SAID = ("The build needs the OpenSSL headers: install `libssl-dev` (`cargo build` failed: "
        "`error: failed to run custom build command for openssl-sys`)")
PASSED = ("`cargo build` failed (`error: failed to run custom build command for openssl-sys`); "
          "it passed after running `sudo apt install libssl-dev`")


def test_one_failure_told_twice_folds_at_compaction_only() -> None:
    lines = [("gotcha", SAID), ("gotcha", PASSED)]
    assert fold.folds(lines) == [0, 1]  # capture keeps both in the session's record
    assert fold.folds(lines, failures=True) == [0, 0]
    # A failure cut short is the start of the same one.
    cut = PASSED.replace("custom build command for openssl-sys", "custom build…")
    assert fold.folds([("gotcha", SAID), ("gotcha", cut)], failures=True) == [0, 0]


@pytest.mark.parametrize("other", [
    # another error of the same command
    ("`cargo build` failed (`error[E0412]: cannot find type Message`); it passed after editing "
     "`src/app.rs`"),
    # the same error of another command
    ("`cargo test` failed (`error: failed to run custom build command for openssl-sys`); it "
     "passed after running `sudo apt install libssl-dev`"),
])
def test_another_failure_does_not_fold(other: str) -> None:
    assert fold.folds([("gotcha", SAID), ("gotcha", other)], failures=True) == [0, 1]


HANDED_LINE = (
    "The workflow file is owned by root (600). For the person to run: `sudo chown $USER:$USER "
    "./.github/workflows/build.yml` (`sudo cat ./.github/workflows/build.yml` failed: `sudo: a "
    "terminal is required to read the password`)")


def _reported(path: str) -> str:
    return (f"Fixed by the person, who said: \u201cchanged ownership i think\u201d (`cat {path}` "
            f"failed: `cat: {path}: Permission denied`)")


def test_the_persons_report_of_a_handed_fix_folds_into_the_handed_line() -> None:
    """One lesson, one line: the handed line keeps the fix and the error; a report of a fix
    on another file, or before compaction, stays."""
    same = _reported(".github/workflows/build.yml")
    assert fold.folds([("gotcha", HANDED_LINE), ("gotcha", same)], failures=True) == [0, 0]
    assert fold.folds([("gotcha", same), ("gotcha", HANDED_LINE)], failures=True) == [1, 1]
    assert fold.folds([("gotcha", HANDED_LINE), ("gotcha", same)]) == [0, 1]
    other = _reported("src/app.py")
    assert fold.folds([("gotcha", HANDED_LINE), ("gotcha", other)], failures=True) == [0, 1]
    # A cut took the handed line's label and cut its path short: still that file's line.
    cut = ("The workflow file is owned by root (600). You'll… `sudo chown $USER:$USER "
           "./.github/workflows/bu…` `sudo cat ./.github/workflows/build.yml` failed: `sudo: a "
           "terminal is required to read the password`")
    assert fold.folds([("gotcha", cut), ("gotcha", same)], failures=True) == [0, 0]
    unreported = same.replace(fold.REPORTED, "The person said:")
    assert fold.folds([("gotcha", HANDED_LINE), ("gotcha", unreported)],
                      failures=True) == [0, 1]
