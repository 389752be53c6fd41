from __future__ import annotations

import hashlib
import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from vaultmem.errors import UnsafePath
from vaultmem.notes.names import (
    FORBIDDEN_CHARS,
    MAX_NAME_BYTES,
    MAX_NAME_CHARS,
    block_id,
    is_safe_filename,
    sanitize_filename,
    slug,
)


@pytest.mark.parametrize(
    ("text", "max_words", "expected"),
    [
        ("My Project", None, "my-project"),
        ("  Fix   the --- login__bug!  ", None, "fix-the-login-bug"),
        ("Café Über Straße", None, "cafe-uber-straße"),
        ("Ünïcödé naïve résumé", None, "unicode-naive-resume"),
        ("日本語 のテスト", None, "日本語-のテスト"),
        ("How do I fix the auth token refresh bug today", 6, "how-do-i-fix-the-auth"),
        ("one two", 6, "one-two"),
        ("one two three", 0, ""),
        ("!!! ??? ...", None, ""),
        ("", None, ""),
        ("v2.0 release", None, "v2-0-release"),
        ("ﬁle ①", None, "file-1"),  # NFKD compatibility forms fold too
    ],
)
def test_slug(text: str, max_words: int | None, expected: str) -> None:
    assert slug(text, max_words=max_words) == expected


@given(st.text())
def test_slug_is_lowercase_hyphen_words(text: str) -> None:
    result = slug(text)
    assert result == result.lower() or not result.isascii()
    assert "--" not in result
    assert not result.startswith("-") and not result.endswith("-")
    assert slug(result) == result


@pytest.mark.parametrize("char", sorted(FORBIDDEN_CHARS))
def test_every_forbidden_char_is_removed(char: str) -> None:
    assert sanitize_filename(f"a{char}b") == "a b"
    assert sanitize_filename(f"a {char} b") == "a b"
    assert not is_safe_filename(f"a{char}b")


def test_forbidden_set_is_the_design_list() -> None:
    assert set('*"\\/<>:|?#^[]%') == FORBIDDEN_CHARS


@pytest.mark.parametrize(
    "char", ["\x00", "\x01", "\t", "\n", "\r", "\x1f", "\x7f", "\x85", "\u2028"]
)
def test_control_chars_are_removed(char: str) -> None:
    assert sanitize_filename(f"x{char}y") == "x y"
    assert not is_safe_filename(f"x{char}y")


@pytest.mark.parametrize(
    ("title", "expected"),
    [
        ("Auth: JWT/Refresh", "Auth JWT Refresh"),
        ("C# tips", "C tips"),
        ("What is [[this]]?", "What is this"),
        ("100% done", "100 done"),
        ("  spaced out  ", "spaced out"),
        ("trailing dots...", "trailing dots"),
        (".hidden", "hidden"),
        ("..", None),
        ("a  b", "a  b"),  # a person's double space is theirs
        ("Über Straße", "Über Straße"),
        ("CON", "CON_"),
        ("con", "con_"),
        ("Nul", "Nul_"),
        ("PRN.backup", "PRN_.backup"),
        ("COM1", "COM1_"),
        ("lpt9", "lpt9_"),
        ("COM10", "COM10"),
        ("CONSOLE", "CONSOLE"),
        ("???", None),
        ("", None),
        ("  . ", None),
    ],
)
def test_sanitize_filename(title: str, expected: str | None) -> None:
    if expected is None:
        with pytest.raises(UnsafePath):
            sanitize_filename(title)
    else:
        assert sanitize_filename(title) == expected
        assert is_safe_filename(expected)


def test_sanitize_filename_is_nfc() -> None:
    decomposed = "Cafe\u0301"
    result = sanitize_filename(decomposed)
    assert result == "Caf\u00e9"
    assert not is_safe_filename(decomposed)


def test_long_names_are_cut_on_a_character_boundary() -> None:
    assert len(sanitize_filename("a" * 500)) == MAX_NAME_CHARS
    # Three-byte characters hit the byte bound first; the cut never splits one.
    cut = sanitize_filename("語" * 200)
    assert len(cut.encode("utf-8")) <= MAX_NAME_BYTES
    assert cut == "語" * (MAX_NAME_BYTES // 3)
    # A base letter and its combining mark (no precomposed form) stay together.
    pair = "q\u0307"
    cut = sanitize_filename("x" * (MAX_NAME_CHARS - 1) + pair)
    assert cut == "x" * (MAX_NAME_CHARS - 1)
    # No trailing space is left by the cut.
    assert sanitize_filename("a" * (MAX_NAME_CHARS - 1) + " bcd") == "a" * (MAX_NAME_CHARS - 1)


@given(st.text(min_size=1))
def test_sanitized_names_are_safe_and_stable(title: str) -> None:
    try:
        name = sanitize_filename(title)
    except UnsafePath:
        return
    assert is_safe_filename(name)
    assert sanitize_filename(name) == name
    assert name == unicodedata.normalize("NFC", name)


@given(st.text(min_size=1))
def test_safe_names_survive_sanitizing(name: str) -> None:
    if is_safe_filename(name):
        assert sanitize_filename(name) == name


def test_block_id() -> None:
    expected = "vm-" + hashlib.sha256(b"a\x1fb").hexdigest()[:8]
    assert block_id("a", "b") == expected
    assert block_id("a", "b") != block_id("ab")
    assert block_id("session.md", "decision", "Use JWT").startswith("vm-")
    assert len(block_id("x")) == 11
    assert all(c.isalnum() or c == "-" for c in block_id("x"))
