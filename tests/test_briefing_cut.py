"""A briefing line cut to its length keeps its first code span: a gotcha's fix is that command,
the words before it are what a cut can spare (brief/context._item)."""

from __future__ import annotations

from vaultmem.brief import context
from vaultmem.brief.digest import Item

FIX = "`sudo chown $USER:$USER ./shop/.github/workflows/deploy.yml`"


def test_a_cut_that_would_lose_the_fix_command_spares_the_words_before_it() -> None:
    lead = "I'm unable to read the workflow file because it's owned by root (600). " * 5
    line = context._item(Item(f"{lead}For the person to run: {FIX} (`cat x` failed: `denied`)"))
    assert FIX in line and len(line) <= context.ITEM_MAX_CHARS
    assert line.startswith("I'm unable to read the workflow file because it's owned by root")
    assert "(`cat x` failed" not in line  # what follows the command is what goes


def test_a_line_that_fits_or_holds_its_command_is_cut_as_before() -> None:
    short = f"Owned by root. For the person to run: {FIX}"
    assert context._item(Item(short)) == short
    early = f"{FIX} fixes it. " + "More words about the workflow file. " * 12
    line = context._item(Item(early))
    assert line.startswith(FIX) and line.endswith("…") and len(line) <= context.ITEM_MAX_CHARS


def test_a_fix_line_as_capture_writes_it_keeps_its_fix_when_cut() -> None:
    # The fix first (mining.fixes): the generic cut spares it and shortens the error quote.
    command = "cd " + "/very/long/worktree" * 8 + " && python -m pytest tests/ -v"
    text = (f"Fixed by running `pip install -r requirements-dev.txt`: `{command}` failed "
            f"(`{'E   ModuleNotFoundError: no module named pytest ' * 3}`)")
    line = context._item(Item(text))
    assert line.startswith("Fixed by running `pip install -r requirements-dev.txt`: ")
    assert line.endswith("…") and len(line) <= context.ITEM_MAX_CHARS
