"""plainruns.py: the line-by-line reading of plain runs agrees with markdown-it, block for block."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from vaultmem import plainruns, sections

TEXT_CHARS = "ab Z9|[]()*_`#-<>!:=~.\\/^$%&é "
START_CHARS = "aZé([!]^&/.\""


def _markdown_it(text: str) -> tuple[list[tuple[str, int, int, bool]], list[tuple[int, str, int, int]]]:
    blocks, found = sections._scan_tokens(sections._parser().parse(text), 0)
    return [(b.kind, b.start, b.end, b.tight) for b in blocks], found


def _agrees(text: str) -> bool:
    """Whether the plain reading (when it takes the run) is markdown-it's; True if it declines."""
    got = plainruns.scan(text, sections.line_count(text))
    if got is None:
        return False
    assert got == _markdown_it(text), text
    return True


plain_line = st.builds(lambda c, rest: c + rest, st.sampled_from(START_CHARS),
                       st.text(TEXT_CHARS, max_size=30))
bullet_line = plain_line.map(lambda line: "- " + line)
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
plain_run = st.builds(
    lambda head, lines, final: "\n".join(([head] if head else []) + lines) + final,
    st.one_of(st.none(), heading_line, front_matter),
    st.lists(st.one_of(plain_line, bullet_line, blank_line, fence), max_size=25),
    st.sampled_from(["", "\n", "\n\n"]),
)


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(plain_run)
def test_a_plain_run_reads_as_markdown_it_parses_it(text: str) -> None:
    _agrees(text)


@settings(max_examples=600, deadline=None)
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
    for text in (entry, decisions, fenced, head):
        assert _agrees(text)


def test_what_only_markdown_it_can_read_is_left_to_it() -> None:
    for text in (
        "---\ntitle: x\n",  # front matter never closed
        "## A\n\n```\nnever closed\n",  # a fence running on past the run
        "## A\n\npara\n===\n",  # a setext heading
        "## A\n\n1. one\n2. two\n",  # an ordered list
        "## A\n\n- a\n  - nested\n",  # indented content
        "## A\n\n> quote\n",
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
