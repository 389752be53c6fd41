"""plainruns.py: the line-by-line reading of plain runs agrees with markdown-it, block for block."""

from __future__ import annotations

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from property_kit import examples

from vaultmem.memory import sessionextract
from vaultmem.notes import plainruns, sections

TEXT_CHARS = "ab Z9|[]()*_`#-<>!:=~.\\/^$%&é "
START_CHARS = "aZé([!]^&/.\"`"


def _agrees(text: str) -> bool:
    """Whether plainruns takes the run; when it does, its reading must be markdown-it's."""
    total = sections.line_count(text)
    if plainruns.scan(text, total) is None:
        return False
    sections._RUNS.cache_clear()
    got, want = sections._run(text), sections._run_markdown_it(text, total)
    assert (got.blocks, got.found, got.open_end) == (want.blocks, want.found, want.open_end), text
    return True


# Digits open an ordered list only before "." or ")": dated lines ("2026-01-01 — …") are plain.
DIGIT_STARTS = ["2026-01-01 — ", "1", "12", "1.", "1)", "12.", "3 ", "2026-", "1234567890.", "0)"]
# A bold label ("**Prompt:** …") is plain; "** x" and "***" are not.
BOLD_STARTS = ["**P", "**(", "**é", "**_", "**-", "** ", "***", "**"]
plain_line = st.builds(lambda c, rest: c + rest,
                       st.one_of(st.sampled_from(START_CHARS), st.sampled_from(DIGIT_STARTS),
                                 st.sampled_from(BOLD_STARTS)),
                       st.text(TEXT_CHARS, max_size=30))
# Every common list form: bullets of each character, ordered items of each delimiter.
MARKERS = ["- ", "- ", "* ", "+ ", "1. ", "2. ", "1) ", "10. ", "123456789. ", "0) "]
bullet_line = st.builds(lambda marker, line: marker + line, st.sampled_from(MARKERS), plain_line)
blank_line = st.sampled_from(["", " ", "   "])
heading_line = st.builds(
    lambda level, title, closing: "#" * level + ("" if not title and not closing else " ")
    + title + closing,
    st.integers(1, 6), st.text(TEXT_CHARS.replace("\t", ""), max_size=20),
    st.sampled_from(["", " #", " ##", "#", "  ", " # "]),
)
fence = st.builds(
    lambda marker, info, body, close: "\n".join([marker + info, *body, *close]),
    st.sampled_from(["```", "````", "~~~", "~~~~"]),
    st.text("ab `~#\t", max_size=8),
    st.lists(st.text(TEXT_CHARS + "\t", max_size=12), max_size=4),
    st.sampled_from([[], ["```"], ["~~~"], ["````"], ["   ```"], ["    ```"], ["``` x"],
                     ["```  "], ["~~~~~"]]),
)
front_matter = st.builds(
    lambda opening, body, close: "\n".join([opening, *body, *close]),
    st.sampled_from(["---", "----", "---x", "--- #"]),
    st.lists(st.sampled_from(["a: 1", "", "--", "----", "  ---", "    ---", "....", "b: [x]",
                              "c: |", "\td: 2", "...x"]), max_size=4),
    st.sampled_from([[], ["---"], ["..."], ["...  "], ["----"], ["   ---"], ["---  "]]),
)
# Quote lines (the callouts of ## Compact Summaries): anything after the ">".
quote_line = st.builds(lambda rest: ">" + rest,
                       st.one_of(st.text(TEXT_CHARS + "\t", max_size=20),
                                 st.sampled_from([" [!summary]- x", " ```", " # H", " - a",
                                                  " <div>", " ---", " ===", ""])))
plain_run = st.builds(
    lambda head, lines, final: "\n".join(([head] if head else []) + lines) + final,
    st.one_of(st.none(), heading_line, front_matter),
    st.lists(st.one_of(plain_line, bullet_line, blank_line, fence, quote_line), max_size=25),
    st.sampled_from(["", "\n", "\n\n"]),
)


@settings(max_examples=examples(600), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(plain_run)
@example(">9\n>\n>\n\n")  # two empty quote lines: markdown-it's map takes the blank after
def test_a_plain_run_reads_as_markdown_it_parses_it(text: str) -> None:
    _agrees(text)


@settings(max_examples=examples(600), deadline=None)
@given(st.lists(st.text(TEXT_CHARS + "\t", max_size=12), max_size=12).map("\n".join))
def test_whatever_run_it_takes_it_reads_as_markdown_it(text: str) -> None:
    _agrees(text)


def test_the_runs_of_a_work_log_and_an_entity_are_plain() -> None:
    entry = (
        "### 10:30 - Fix the token refresh\n\nFixed bug where [[Auth]] kept a stale key.\n"
        "- Prompt: fix it\n- Write: `src/auth.py`\n- Ran `pytest -q`\n\n"
    )
    decisions = (
        "## Key Decisions\n\n- use RS256 because keys rotate "
        "([[claude/projects/shop/archive/sessions/2026-11-20-a|2026-11-20-a]]) ^vm-1a2b3c4d\n"
        "- [ ] check the clock skew\n![[diagram.png]]\n\n"
    )
    fenced = "### 11:00 - Migrate\n\nRan it:\n```bash\n# not a heading\n\tmake\n```\n- done\n"
    head = "---\ntype: session\ntags: [claude, session]\n---\n\n"
    unclosed = "### 11:31 - Traced it\n\nText.\n\n```yaml\nretries: 3\n"  # a "# x" line cut it
    dated = (
        "## Key Decisions\n\n- 2026-03-02 — use RS256 because keys rotate "
        "([[claude/projects/shop/archive/sessions/2026-03-02-a|2026-03-02-a]], "
        "[[claude/projects/shop/archive/sessions/2026-03-05-b|2026-03-05-b]]) ^vm-1a2b3c4d\n"
        "- 2026-03-04 — keep the pool small ([[x|y]]) ^vm-00ff00ff\n2026 was the year.\n\n"
    )
    lists = (
        "## Steps\n\n1. install it\n2. run `vaultmem init`\n10) no: another list\n",
        "## Notes\n\n* a [[Link|alias]] ^vm-0a0a0a0a\n* 2026-01-01 — dated\n\nText.\n+ plus\n",
    )
    for text in (entry, decisions, fenced, head, unclosed, dated, lists[1]):
        assert _agrees(text)
    assert _agrees("## Steps\n\n1. install it\n2. run `vaultmem init`\n") is True
    assert _agrees("### 10:30 - Fix\n\n**Prompt:** fix it\n* a\n**Ran:** `x`\n") is True
    assert plainruns.scan(lists[0], sections.line_count(lists[0])) is None


def test_what_only_markdown_it_can_read_is_left_to_it() -> None:
    for text in (
        "---\ntitle: x\n",  # front matter never closed
        "## A\n\npara\n===\n",  # a setext heading
        "## A\n\npara\n1. one\n",  # an ordered list interrupting a paragraph
        "## A\n\n- one\n* two\n",  # a list of another marker right after one
        "## A\n\n1. one\n\n2) two\n",
        "## A\n\n- 1. nested ordered\n",  # an ordered list inside a bullet item
        "## A\n\n- 2026) x\n",
        "## A\n\n- a\n  - nested\n",  # indented content
        "## A\n\npara\n> quote\n",  # a quote interrupting a paragraph
        "## A\n\n> quote\nlazy\n",  # a lazy continuation line
        "## A\n\n>\n",  # an empty quote (markdown-it's map takes the line after it)
        "## A\n\n> a\n> >\n",  # an empty quote nested in one (the same)
        "## A\n\n| a | b |\n|---|---|\n",  # a table
        "## A\n\n[ref]: https://example.com\n",
        "## A\n\n<div>\n\n# x\n</div>\n",
        "#tag line\n",  # not an ATX heading
        "## A\n\ttab\n",
    ):
        assert plainruns.scan(text, sections.line_count(text)) is None, text


def test_an_atx_title_loses_its_closing_sequence_as_markdown_it_says() -> None:
    for text in ("## Title ##\n", "## Title#\n", "##   \n", "## #\n", "# a # b #  \n", "###\n"):
        assert _agrees(text), text


# -- list items (the decisions of a session note) --------------------------------------------

items_chunk = st.builds(
    lambda head, lines, final: "\n".join(([head] if head else []) + lines) + final,
    st.one_of(st.none(), heading_line, st.just("---"), st.just("--- x")),
    st.lists(st.one_of(plain_line, bullet_line, bullet_line, blank_line, fence), max_size=20),
    st.sampled_from(["", "\n", "\n\n"]),
)


@settings(max_examples=examples(600), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(items_chunk)
def test_list_items_read_as_markdown_it_reads_them(text: str) -> None:
    got = plainruns.list_items(text)
    if got is not None:
        assert got == sessionextract._list_items(text), text


def test_the_items_of_a_decisions_section_are_read_plainly() -> None:
    chunk = "\n- use RS256 because keys rotate ([[Auth]])  \n  \n- keep it\nlazy line\n\n\nafter\n"
    assert plainruns.list_items(chunk) == sessionextract._list_items(chunk) == [
        ("use RS256 because keys rotate ([[Auth]])", 1, 3),
        ("keep it\nlazy line", 3, 7),
    ]
    assert plainruns.list_items("---\n- a\n") is None  # a thematic break: markdown-it's
