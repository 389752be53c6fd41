"""inline.py: captured text as one line of Markdown that opens no block of its own."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt
from property_kit import examples

from vaultmem.notes.inline import (
    block_safe,
    clip,
    clip_keeping_error,
    code_span,
    one_line,
    without_escapes,
)

MD = MarkdownIt()
HOSTILE = st.text(alphabet=st.sampled_from(list("#`~>|-+*=_<1.) \n\tab")), max_size=30)


def test_one_line_collapses_and_caps() -> None:
    assert one_line("  a\n\n b\tc  ") == "a b c"
    assert one_line("x" * 30, max_chars=10) == "x" * 10 + " … 20 characters more"
    assert one_line("short", max_chars=10) == "short"


def test_clip_cuts_between_words_and_outside_code_spans() -> None:
    assert clip("short", 10) == "short"
    assert clip("Fix the token check in the auth middleware", 20) == "Fix the token check…"
    # An open span would swallow the rest of a heading: the cut comes before it.
    assert clip("Fix the `verify_token_expiry(now, leeway)` check", 30) == "Fix the…"
    assert clip("Run `a` then `b c d e f g h`", 20) == "Run `a` then…"
    assert clip("`one_long_command --with flags and more`", 20) == "one_long_command…"
    assert clip("x" * 50, 11) == "x" * 10 + "…"


def test_clip_never_cuts_inside_a_link() -> None:
    assert clip("Filed under [[Payments Gateway]] today", 24) == "Filed under…"


def test_clip_at_the_character_cuts_where_the_room_ends() -> None:
    assert clip("Fix the token check in the auth middleware", 20, words=False) == (
        "Fix the token check…")
    assert clip("Fix the `verify_token`", 12, words=False) == "Fix the `ve…"


def test_one_line_cuts_as_asked() -> None:
    text = "Fix the token\ncheck in the auth middleware"
    assert one_line(text, 20, cut="words") == "Fix the token check…"
    assert one_line(text, 16, cut="chars") == "Fix the token c…"
    assert one_line(text, 20) == "Fix the token check … 22 characters more"


def test_one_line_shows_controls_as_escapes_when_asked() -> None:
    assert one_line("a\nb\u2028c  d", controls="escape") == "a\\nb\\u2028c  d"
    assert one_line("a\nb c", 4, cut="words", controls="escape") == "a\\n…"


@given(st.text(alphabet=st.sampled_from(list("ab `` ")), max_size=40), st.integers(2, 40))
@settings(max_examples=examples(200))
def test_a_clipped_line_leaves_no_code_span_open(text: str, room: int) -> None:
    clipped = clip(text, room)
    assert len(clipped) <= room
    rendered = MD.renderInline(clipped + " `x`")
    # What follows the clipped text is still its own code span.
    assert rendered.endswith("<code>x</code>") or text == clipped


def test_a_terminal_s_escape_sequences_leave_no_codes_behind() -> None:
    # A hook's coloured output pasted into a prompt, a colouring tool's error line.
    pasted = "commit failed: \x1b[1;33m⚠ Running the scan\x1b[0m \x1b[90m10:58AM\x1b[0m WRN"
    assert without_escapes(pasted) == "commit failed: ⚠ Running the scan 10:58AM WRN"
    assert without_escapes("\x1b]0;build\x07\x1b[2KE   assert") == "E   assert"
    assert without_escapes("a\x1bM b") == "a b"


def test_block_openers_are_escaped() -> None:
    assert block_safe("## Decisions Made") == "\\## Decisions Made"
    assert block_safe("```python") == "\\```python"
    assert block_safe("- item") == "\\- item"
    assert block_safe("> quote") == "\\> quote"
    assert block_safe("| a | b |") == "\\| a | b |"
    assert block_safe("1. first") == "1\\. first"
    assert block_safe("plain text") == "plain text"


@pytest.mark.parametrize("text", ["--", "- -", "-- -", "-  -"])
def test_hyphens_after_a_bullet_are_not_a_thematic_break(text: str) -> None:
    # "- " + "--" is "- --": three hyphens, a thematic break that would end the list.
    tokens = MD.parse(f"- {block_safe(text)}\n- next\n")
    assert [t.type for t in tokens if t.nesting == 1].count("list_item_open") == 2


@settings(max_examples=examples(300), deadline=None)
@given(HOSTILE)
def test_a_list_item_of_any_text_stays_one_item_with_one_paragraph(text: str) -> None:
    tokens = MD.parse(f"- {block_safe(text)}\n- next\n")
    kinds = [t.type for t in tokens if t.nesting == 1]
    assert kinds.count("bullet_list_open") == 1
    assert kinds.count("list_item_open") == 2
    assert set(kinds) <= {"bullet_list_open", "list_item_open", "paragraph_open"}


@settings(max_examples=examples(300), deadline=None)
@given(st.text(max_size=30))
def test_code_spans_read_back_whatever_they_hold(text: str) -> None:
    line = one_line(text)
    children = MD.parseInline(f"x {code_span(line)} y")[0].children or []
    spans = [t.content for t in children if t.type == "code_inline"]
    assert spans == [line] or (not line.strip() and len(spans) <= 1)


_WHY = "A long explanation of why the file cannot be read here at all. For the person to run: "
_FIX = "`sudo chown me x.yml` (`sudo cat x.yml` failed: `sudo: a terminal is required`)"


@pytest.mark.parametrize(
    ("text", "max_chars", "kept"),
    [
        # The fix first and the error it fixed: the cut spares both, and the prose goes.
        (f"{_WHY}{_FIX}", 110,
         ("A long explanation of why the… `sudo chown me x.yml` `sudo cat x.yml` failed: "
          "`sudo: a terminal is required`")),
        # Too little room for the failed command too: the error alone, set apart from the fix.
        (f"{_WHY}{_FIX}", 90,
         ("A long explanation of why… `sudo chown me x.yml` … failed: `sudo: a terminal is "
          "required`")),
        # mining/fixes' wording, "`cmd` failed (`error`)", closes its parenthesis.
        (("Fixed by running `make deps` after a long talk about the build and its many steps: "
          "`make` failed (`No rule to make target libfoo.a`)"), 100,
         ("Fixed by running `make deps` after a long talk… `make` failed (`No rule to make target "
          "libfoo.a`)")),
    ],
)
def test_a_cut_keeps_the_error_a_failure_quotes(text: str, max_chars: int, kept: str) -> None:
    assert clip_keeping_error(text, max_chars) == kept
    assert len(kept) <= max_chars


def test_a_cut_with_no_error_quote_or_room_for_it_is_the_plain_cut() -> None:
    text = "word " * 40 + "`cmd` failed: `" + "e" * 80 + "`"
    assert clip_keeping_error(text, 100) == clip(text, 100)
    assert clip_keeping_error("short `cmd` failed: `x`", 100) == "short `cmd` failed: `x`"
