"""A briefing line cut to its length keeps its fix (brief/answers.item_line,
notes/inline.clip_keeping_span): capture writes the fix first ("Fixed by running `…`: …", "For
the person to run `…`: …"), which the plain cut keeps; a fix after its explanation (a block the
explanation brings in, a note written before that order) is kept too, the words before it cut.
The error a failure's quote holds goes before the explanation: a reader wants the lesson."""

from __future__ import annotations

from vaultmem.brief import answers
from vaultmem.brief.digest import Item
from vaultmem.claude import failfix

FIX = "`sudo chown $USER:$USER ./shop/.github/workflows/deploy.yml`"
LEAD = "I'm unable to read the workflow file because it's owned by root (600). " * 5


def test_a_handed_fix_as_capture_writes_it_keeps_fix_and_explanation_when_cut() -> None:
    line = answers.item_line(Item(f"{failfix.HANDED} {FIX}: {LEAD}(`cat x` failed: `denied`)"))
    assert line.startswith(f"{failfix.HANDED} {FIX}: I'm unable")
    assert line.endswith("…") and "denied" not in line and len(line) <= answers.ITEM_MAX_CHARS


def test_a_cut_that_would_lose_a_fix_after_its_explanation_spares_the_words_before_it() -> None:
    line = answers.item_line(Item(f"{LEAD}Add this to the workflow: {FIX} (`cat x` failed: `denied`)"))
    assert FIX in line and len(line) <= answers.ITEM_MAX_CHARS
    assert line.startswith("I'm unable to read the workflow file because it's owned by root")
    assert "(`cat x` failed" not in line  # what follows the command is what goes


def test_a_line_that_fits_or_holds_its_command_is_cut_as_before() -> None:
    short = f"Owned by root. For the person to run: {FIX}"
    assert answers.item_line(Item(short)) == short
    early = f"{FIX} fixes it. " + "More words about the workflow file. " * 12
    line = answers.item_line(Item(early))
    assert line.startswith(FIX) and line.endswith("…") and len(line) <= answers.ITEM_MAX_CHARS


def test_a_fix_line_as_capture_writes_it_keeps_its_fix_when_cut() -> None:
    # The fix first (mining.fixes): the generic cut spares it and shortens the error quote.
    command = "cd " + "/very/long/worktree" * 8 + " && python -m pytest tests/ -v"
    text = (f"Fixed by running `pip install -r requirements-dev.txt`: `{command}` failed "
            f"(`{'E   ModuleNotFoundError: no module named pytest ' * 3}`)")
    line = answers.item_line(Item(text))
    assert line.startswith("Fixed by running `pip install -r requirements-dev.txt`: ")
    assert line.endswith("…") and len(line) <= answers.ITEM_MAX_CHARS


def test_a_cause_and_fix_line_keeps_its_fix_whole_and_cuts_the_cause() -> None:
    # mining.answers writes "<cause>. Fix: <fix>": a long cause took the fix's words before.
    cause = "Your workflows were failing every time a scanner found something: BUILD FAILED; " * 4
    fix = "Fix: Updated 2 workflows with `continue-on-error: true` on all jobs"
    line = answers.item_line(Item(f"{cause.strip()}. {fix}"))
    assert line.endswith(f"… {fix}") and len(line) <= answers.ITEM_MAX_CHARS
    assert line.startswith("Your workflows were failing every time")
    # A fix longer than half the room is cut as before (the cause kept, the line cut at its end).
    long_fix = "Fix: " + "rewrote the scanner's configuration file by hand " * 5
    line = answers.item_line(Item(f"{cause.strip()}. {long_fix}"))
    assert line.startswith("Your workflows were failing") and line.endswith("…")
    assert len(line) <= answers.ITEM_MAX_CHARS and long_fix not in line
