"""Real notes in tests/corpus/roundtrip: bytes survive, and one key's edit touches only its lines."""

from __future__ import annotations

import re
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from vaultmem.errors import InvalidYaml
from vaultmem.notes import frontmatter, propedit, textio

CORPUS = Path(__file__).parent / "corpus" / "roundtrip"
VALID = sorted(CORPUS.glob("*.md"))
INVALID_DIR = CORPUS / "invalid"

# file -> the 1-based line of the file a person must look at
INVALID_LINES = {
    "bad-indent.md": 5,  # " - b" dedented under a list
    "bom-crlf-invalid.md": 4,  # "status: [" never closed (BOM + CRLF file)
    "colon-in-value.md": 3,  # "title: a: b"
    "duplicate-key.md": 5,  # the second "status:"
    "list-root.md": 2,  # frontmatter is a list
    "python-tag.md": 3,  # !!python/object is not a safe tag
    "scalar-root.md": 2,  # frontmatter is a bare sentence
    "tab-indent.md": 4,  # a tab indents "owner"
    "unclosed-flow.md": 4,  # "[a, b" runs into the next key
    "unclosed-quote.md": 3,  # the opening quote of a quoted scalar that never ends
    "wikilink-unquoted-in-flow.md": 3,  # "{a: [b}"
}


def _read(path: Path) -> tuple[bytes, str, textio.TextFormat]:
    raw = path.read_bytes()
    text, fmt = textio.decode(raw, path=path.name)
    return raw, text, fmt


def _lines(text: str) -> list[str]:
    return text.split("\n")


def _changed_old_range(old: list[str], new: list[str]) -> tuple[int, int]:
    """[start, end) of the old lines that differ, after the common prefix and suffix."""
    prefix = 0
    while prefix < min(len(old), len(new)) and old[prefix] == new[prefix]:
        prefix += 1
    suffix = 0
    while (
        suffix < min(len(old), len(new)) - prefix
        and old[len(old) - 1 - suffix] == new[len(new) - 1 - suffix]
    ):
        suffix += 1
    return prefix, len(old) - suffix


def _key_region(lines: list[str], key: str) -> tuple[int, int]:
    """An independent oracle: the key line up to the next column-0 key line or the fence."""
    pattern = re.compile(r"""^(["']?)""" + re.escape(key) + r"""\1\s*:""")
    start = next(i for i, line in enumerate(lines) if i > 0 and pattern.match(line))
    end = start + 1
    while end < len(lines):
        line = lines[end].rstrip("\r")
        if line in ("---", "..."):
            break
        if line and line[0] not in " \t-#":
            break
        end += 1
    return start, end


def _new_value(current: Any) -> Any:
    if isinstance(current, list):
        return [*current, "added item"]
    if isinstance(current, str):
        return current + " (edited)" if current else "now set"
    if isinstance(current, date):
        return date(2030, 1, 2)
    return "replaced value"


def test_corpus_is_big_enough_and_covers_the_formats() -> None:
    assert len(VALID) >= 28
    raws = {path.name: path.read_bytes() for path in VALID}
    assert any(raw.startswith(b"\xef\xbb\xbf") and b"\r\n" in raw for raw in raws.values())
    assert any(raw.startswith(b"\xef\xbb\xbf") and b"\r\n" not in raw for raw in raws.values())
    assert any(b"\r\n" in raw and not raw.startswith(b"\xef") for raw in raws.values())
    assert raws["empty.md"] == b""
    assert not raws["no-final-newline.md"].endswith(b"\n")
    assert not raws["frontmatter-only-no-newline.md"].endswith(b"\n")
    assert "Café ünïcode.md" in raws
    assert set(INVALID_LINES) == {path.name for path in INVALID_DIR.glob("*.md")}


@pytest.mark.parametrize("path", VALID, ids=lambda p: p.name)
def test_decode_encode_is_byte_identical(path: Path) -> None:
    raw, text, fmt = _read(path)
    assert not text.startswith("\ufeff")
    if fmt.newline == "\r\n":
        assert "\r" not in text
    assert textio.encode(text, fmt) == raw


@pytest.mark.parametrize("path", VALID, ids=lambda p: p.name)
def test_parse_agrees_with_split(path: Path) -> None:
    _, text, _ = _read(path)
    data = frontmatter.parse(text, path=path.name)
    parts = frontmatter.split(text)
    assert isinstance(data, dict)
    if not parts.has_frontmatter:
        assert data == {}
        assert parts.body == text
    else:
        assert text.endswith(parts.body)
        assert text.split("\n")[parts.body_start - 1].rstrip("\r") in ("---", "...")


@pytest.mark.parametrize("path", VALID, ids=lambda p: p.name)
def test_set_existing_key_changes_only_its_lines(path: Path) -> None:
    _, text, fmt = _read(path)
    data = frontmatter.parse(text, path=path.name)
    old_lines = _lines(text)
    for key, current in data.items():
        value = _new_value(current)
        new = propedit.set_key(text, key, value)
        new_lines = _lines(new)
        start, end = _changed_old_range(old_lines, new_lines)
        region = _key_region(old_lines, key)
        assert region[0] <= start and end <= region[1], (key, start, end, region)
        after = frontmatter.parse(new)
        assert after[key] == value
        assert list(after) == list(data)
        assert {k: v for k, v in after.items() if k != key} == {
            k: v for k, v in data.items() if k != key
        }
        encoded = textio.encode(new, fmt)
        assert encoded.startswith(b"\xef\xbb\xbf") == fmt.bom
        if fmt.newline == "\r\n":
            assert encoded.count(b"\n") == encoded.count(b"\r\n")


@pytest.mark.parametrize("path", VALID, ids=lambda p: p.name)
def test_set_to_the_same_value_returns_the_same_text(path: Path) -> None:
    _, text, _ = _read(path)
    for key, current in frontmatter.parse(text).items():
        assert propedit.set_key(text, key, current) is text


@pytest.mark.parametrize("path", VALID, ids=lambda p: p.name)
def test_set_new_key_only_adds_lines(path: Path) -> None:
    _, text, _ = _read(path)
    data = frontmatter.parse(text)
    new = propedit.set_key(text, "vm_new_key", "yes")
    old_lines, new_lines = _lines(text), _lines(new)
    start, end = _changed_old_range(old_lines, new_lines)
    assert start == end, "no old line may change or disappear"
    parts = frontmatter.split(text)
    if parts.has_frontmatter:
        # the new key lands right before the closing fence
        assert start == parts.body_start - 1
        assert new_lines[start] == "vm_new_key: 'yes'"
    else:
        assert new == "---\nvm_new_key: 'yes'\n---\n" + text
    after = frontmatter.parse(new)
    assert after == {**data, "vm_new_key": "yes"}
    assert list(after)[-1] == "vm_new_key"


@pytest.mark.parametrize("path", VALID, ids=lambda p: p.name)
def test_delete_each_key_only_removes_lines(path: Path) -> None:
    _, text, _ = _read(path)
    data = frontmatter.parse(text)
    for key in data:
        new = propedit.delete_key(text, key)
        old_lines, new_lines = _lines(text), _lines(new)
        start, end = _changed_old_range(old_lines, new_lines)
        assert len(new_lines) == len(old_lines) - (end - start)
        region = _key_region(old_lines, key)
        assert region[0] == start and end <= region[1]
        assert frontmatter.parse(new) == {k: v for k, v in data.items() if k != key}


@pytest.mark.parametrize("name", sorted(INVALID_LINES))
def test_invalid_yaml_names_file_and_line(name: str) -> None:
    path = INVALID_DIR / name
    raw, text, fmt = _read(path)
    with pytest.raises(InvalidYaml) as caught:
        frontmatter.parse(text, path=name)
    assert caught.value.path == name
    assert caught.value.line == INVALID_LINES[name]
    assert str(caught.value).startswith(f"{name}:{INVALID_LINES[name]}: ")
    for edit in (
        lambda: propedit.set_key(text, "status", "archived", path=name),
        lambda: propedit.add_to_list(text, "tags", "x", path=name),
        lambda: propedit.delete_key(text, "type", path=name),
    ):
        with pytest.raises(InvalidYaml) as edit_error:
            edit()
        assert edit_error.value.line == INVALID_LINES[name]
        assert edit_error.value.path == name
    assert path.read_bytes() == raw
    assert textio.encode(text, fmt) == raw
