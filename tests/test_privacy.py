"""privacy: one tokenizer for private spans, three shapes of output (strip, blank, stream)."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from vaultmem.notes import privacy
from vaultmem.notes.privacy import PrivateStream, blank_private, strip_private

SECRET = "SECRET"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("a <private>b</private> c", "a  c"),
        ("a <Private>\nb\n</PRIVATE> c", "a  c"),
        ("a <private>b\nc\nd", "a "),
        ("a </private> b", "a  b"),
        ("x <private>1</private> y <private>2</private> z", "x  y  z"),
        ("no tags", "no tags"),
        ("<private>a <private>b</private> SECRET </private>tail", "tail"),
        ("<private>a <private>b <private>c</private></private> SECRET </private>!", "!"),
        ('<private class="x">SECRET</private >ok', "ok"),
        ("<PRIVATE data-a='1'>SECRET</Private\n>ok", "ok"),
        ("</private></private>a<private>SECRET", "a"),
        ("<private>a</private></private>b", "b"),
        ("<privateer>not a tag</privateer>", "<privateer>not a tag</privateer>"),
        ("1 < 2 and 3 > 2", "1 < 2 and 3 > 2"),
        ("<private\nclass=x>SECRET</private>ok", "ok"),
    ],
)
def test_strip_private(text: str, expected: str) -> None:
    assert strip_private(text) == expected


def test_blank_private_keeps_line_numbers() -> None:
    text = "a\n<private>b\n<private>c\n</private>\nSECRET\n</private>d\ne"
    blanked = blank_private(text)
    assert blanked.count("\n") == text.count("\n")
    assert SECRET not in blanked
    assert blanked.split("\n")[0] == "a" and blanked.split("\n")[-1] == "e"
    assert blanked.split("\n")[-2] == "d"


def test_stream_carries_an_open_span_across_messages() -> None:
    stream = PrivateStream()
    assert stream.feed("keep <private>hide") == "keep "
    assert stream.inside
    assert stream.feed(f"all {SECRET} of it") == ""
    assert stream.feed("<private>deeper</private> still hidden </private> shown") == " shown"
    assert not stream.inside
    assert stream.feed("</private>plain") == "plain"


def test_stream_depth_round_trips() -> None:
    first = PrivateStream()
    first.feed("<private>a <private>b")
    again = PrivateStream(first.depth)
    assert again.feed("c</private> SECRET") == ""
    assert again.feed("</private>out") == "out"


_pieces = st.lists(
    st.sampled_from(["<private>", "</private>", "<PRIVATE x=1>", "</Private >", "a", "\n", SECRET, " "]),
    max_size=30,
)


def _reference(parts: list[str]) -> str:
    """A slow, obviously right version: a depth counter over the parts."""
    depth, out = 0, []
    for part in parts:
        if re.fullmatch(r"<private\b[^>]*>", part, re.IGNORECASE):
            depth += 1
        elif re.fullmatch(r"</private\b[^>]*>", part, re.IGNORECASE):
            depth = max(0, depth - 1)
        elif depth == 0:
            out.append(part)
    return "".join(out)


@given(_pieces)
def test_strip_matches_a_depth_counter(parts: list[str]) -> None:
    text = "".join(parts)
    assert strip_private(text) == _reference(parts)
    assert blank_private(text).replace("\n", "") == _reference(parts).replace("\n", "")
    assert blank_private(text).count("\n") == text.count("\n")


@given(_pieces, st.integers(min_value=0, max_value=30))
def test_stream_split_anywhere_between_parts(parts: list[str], cut: int) -> None:
    stream = PrivateStream()
    joined = stream.feed("".join(parts[:cut])) + stream.feed("".join(parts[cut:]))
    assert joined == _reference(parts)


def test_clean_prompt_removes_tags_and_private() -> None:
    assert privacy.clean_prompt("<system-reminder>x</system-reminder> hi <private>no</private>") == "hi"
    assert privacy.clean_prompt("<private>only</private>") is None
