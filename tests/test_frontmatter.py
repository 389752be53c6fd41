"""frontmatter: split, Obsidian-style parse, CLI values, and surgical key edits."""

from __future__ import annotations

import re
from datetime import date, datetime
from typing import Any

import frontmatter as python_frontmatter
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from property_kit import examples

from vaultmem.errors import InvalidYaml
from vaultmem.notes import fmhandler, frontmatter, propedit, textio

NOTE = """\
---
# top comment
type: session
status: active  # active | archived
tags:
  - one
  - two

# between keys
created: 2026-11-20
---
# Title

Body.
"""


def strict_equal(a: Any, b: Any) -> bool:
    """== that tells True from 1 and a date from a datetime."""
    if type(a) is not type(b):
        return False
    if isinstance(a, list):
        return len(a) == len(b) and all(strict_equal(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return list(a) == list(b) and all(strict_equal(a[k], b[k]) for k in a)
    return bool(a == b)


def changed_old_range(old: str, new: str) -> tuple[int, int]:
    """[start, end) of the old lines that differ, after the common prefix and suffix."""
    a, b = old.split("\n"), new.split("\n")
    prefix = 0
    while prefix < min(len(a), len(b)) and a[prefix] == b[prefix]:
        prefix += 1
    suffix = 0
    while suffix < min(len(a), len(b)) - prefix and a[-1 - suffix] == b[-1 - suffix]:
        suffix += 1
    return prefix, len(a) - suffix


# --- split ------------------------------------------------------------------------------------


def test_split_finds_fences_and_body() -> None:
    parts = frontmatter.split("---\na: 1\nb: 2\n---\n# Body\n")
    assert parts == frontmatter.Split(
        has_frontmatter=True, yaml_text="a: 1\nb: 2\n", yaml_start=1, body_start=4, body_offset=18,
        text="",
    )
    assert parts.body == "# Body\n"


@pytest.mark.parametrize(
    "text",
    [
        "",
        "# Just a body\n",
        "---",
        "---\n",
        "---\na: 1\n",  # never closed: Obsidian shows it as text
        "----\na: 1\n----\n",  # four dashes is a thematic break, not a fence
        " ---\na: 1\n---\n",
        "text\n---\na: 1\n---\n",
    ],
)
def test_split_without_frontmatter_is_all_body(text: str) -> None:
    parts = frontmatter.split(text)
    assert not parts.has_frontmatter
    assert (parts.yaml_text, parts.yaml_start, parts.body_start, parts.body) == ("", 0, 0, text)
    assert frontmatter.parse(text) == {}


def test_split_frontmatter_only_with_and_without_final_newline() -> None:
    with_nl = frontmatter.split("---\na: 1\n---\n")
    without = frontmatter.split("---\na: 1\n---")
    for parts in (with_nl, without):
        assert parts.has_frontmatter and parts.yaml_text == "a: 1\n"
        assert parts.body_start == 3 and parts.body == ""


def test_split_accepts_dots_closer_and_trailing_blanks_but_not_indented_fence() -> None:
    assert frontmatter.split("---\na: 1\n...\nbody").body == "body"
    assert frontmatter.split("--- \na: 1\n---\t\nbody").body == "body"
    parts = frontmatter.split("---\nt: |\n  ---\n  x\n---\nbody")
    assert parts.yaml_text == "t: |\n  ---\n  x\n" and parts.body == "body"


def test_split_empty_frontmatter() -> None:
    parts = frontmatter.split("---\n---\nbody\n")
    assert parts.has_frontmatter and parts.yaml_text == "" and parts.body_start == 2
    assert frontmatter.parse("---\n---\nbody\n") == {}


def test_python_frontmatter_handler_uses_the_same_split_and_loader() -> None:
    post = python_frontmatter.loads(NOTE, handler=fmhandler.HANDLER)
    assert post.metadata == frontmatter.parse(NOTE)
    assert post.content == frontmatter.split(NOTE).body.strip()
    assert fmhandler.HANDLER.detect(NOTE)
    assert not fmhandler.HANDLER.detect("---\nnot closed\n")


# --- parse ------------------------------------------------------------------------------------


def test_parse_reads_values_the_obsidian_way() -> None:
    text = (
        "---\nyes_: yes\nno_: No\non_: on\noff_: OFF\ny_: y\nn_: n\nt: true\nf: False\n"
        "time: 10:00\nlong: 1:30:00\nday: 2026-11-22\nstamp: 2026-11-22 10:30:00\n"
        "bad_day: 2026-13-45\nn: 42\nx: 1.5\nnil: ~\nempty:\n1: numeric key\n---\n"
    )
    data = frontmatter.parse(text)
    assert strict_equal(
        data,
        {
            "yes_": "yes",
            "no_": "No",
            "on_": "on",
            "off_": "OFF",
            "y_": "y",
            "n_": "n",
            "t": True,
            "f": False,
            "time": "10:00",
            "long": "1:30:00",
            "day": date(2026, 11, 22),
            "stamp": datetime(2026, 11, 22, 10, 30),
            "bad_day": "2026-13-45",
            "n": 42,
            "x": 1.5,
            "nil": None,
            "empty": None,
            "1": "numeric key",
        },
    )


@pytest.mark.parametrize(
    ("text", "line", "fragment"),
    [
        ("---\na: 1\n b: 2\n---\n", 3, "mapping values are not allowed"),
        ('---\na: "open\nb: 1\n---\n', 2, "quoted scalar"),
        ("---\na:\n\tb: 1\n---\n", 3, "'\\t'"),
        ("---\na: 1\nb: 2\na: 3\n---\n", 4, "duplicate key 'a'"),
        ("---\n- a\n- b\n---\n", 2, "a list"),
        ("---\n\n\nhello\n---\n", 4, "a single value"),
        ("---\na: [1, 2\n---\n", 2, "flow"),
        ("---\na: \x07\n---\n", 2, "#x0007"),
        ("---\na: !!python/name:os.system x\n---\n", 2, "constructor"),
    ],
)
def test_parse_invalid_names_the_file_line(text: str, line: int, fragment: str) -> None:
    with pytest.raises(InvalidYaml) as caught:
        frontmatter.parse(text, path="p/n.md")
    assert caught.value.line == line
    assert caught.value.path == "p/n.md"
    assert fragment in str(caught.value)
    assert str(caught.value).startswith(f"p/n.md:{line}: ")
    assert "\n" not in str(caught.value)


# --- parse_value -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("42", 42),
        ("-3", -3),
        ("1.5", 1.5),
        ("true", True),
        ("False", False),
        ("null", None),
        ("[a, b]", ["a", "b"]),
        ("[1, 'x', 2026-11-22]", [1, "x", date(2026, 11, 22)]),
        ("2026-11-22", date(2026, 11, 22)),
        ("'42'", "42"),
        ('"yes"', "yes"),
        ("yes", "yes"),
        ("on", "on"),
        ("10:00", "10:00"),
        ("#tag", "#tag"),
        ("fixed it # finally", "fixed it # finally"),
        ("[[Auth Service]]", "[[Auth Service]]"),
        ("a: b", "a: b"),
        ("{a: 1}", "{a: 1}"),
        ("[unclosed", "[unclosed"),
        ("", ""),
        ("  padded ", "  padded "),
        ("two\nlines", "two\nlines"),
    ],
)
def test_parse_value(raw: str, expected: Any) -> None:
    assert strict_equal(frontmatter.parse_value(raw), expected)


# --- set_key ----------------------------------------------------------------------------------


def test_set_key_replaces_only_the_key_line_and_keeps_its_comment() -> None:
    new = propedit.set_key(NOTE, "status", "archived")
    assert new == NOTE.replace("status: active  # active", "status: archived  # active")


def test_set_key_replaces_a_block_list_and_keeps_comments_between_keys() -> None:
    new = propedit.set_key(NOTE, "tags", ["three"])
    assert new == NOTE.replace("  - one\n  - two\n", "  - three\n")


def test_set_key_new_key_goes_before_the_closing_fence() -> None:
    new = propedit.set_key(NOTE, "archived_to", "[[claude/archive/x]]")
    assert new == NOTE.replace(
        "created: 2026-11-20\n---", 'created: 2026-11-20\narchived_to: "[[claude/archive/x]]"\n---'
    )


def test_set_key_same_value_returns_the_same_string() -> None:
    assert propedit.set_key(NOTE, "status", "active") is NOTE
    assert propedit.set_key(NOTE, "tags", ("one", "two")) is NOTE
    assert propedit.set_key(NOTE, "created", date(2026, 11, 20)) is NOTE
    # a datetime is not the date that is there
    assert propedit.set_key(NOTE, "created", datetime(2026, 11, 20)) is not NOTE


def test_set_key_creates_frontmatter_and_keeps_the_body() -> None:
    assert propedit.set_key("", "a", 1) == "---\na: 1\n---\n"
    assert propedit.set_key("# T\n\nx", "a", "b") == "---\na: b\n---\n# T\n\nx"
    unclosed = "---\nnot: frontmatter\n"
    new = propedit.set_key(unclosed, "a", "b")
    assert new == "---\na: b\n---\n" + unclosed
    assert frontmatter.parse(new) == {"a": "b"}


def test_set_key_frontmatter_only_notes() -> None:
    assert propedit.set_key("---\na: 1\n---", "b", 2) == "---\na: 1\nb: 2\n---"
    assert propedit.set_key("---\na: 1\n---", "a", 2) == "---\na: 2\n---"
    assert propedit.set_key("---\n---\n", "a", "x") == "---\na: x\n---\n"
    assert propedit.set_key("---\na: 1\n...\nbody", "b", 2) == "---\na: 1\nb: 2\n...\nbody"


@pytest.mark.parametrize(
    ("value", "line"),
    [
        ("yes", "k: 'yes'"),
        ("10:00", "k: '10:00'"),
        ("null", "k: 'null'"),
        ("#x", "k: '#x'"),
        ("[[link]]", 'k: "[[link]]"'),
        ("[[a]] and [[b]]", 'k: "[[a]] and [[b]]"'),
        ("a: b", "k: 'a: b'"),
        (" lead", "k: ' lead'"),
        ("", "k: ''"),
        ("42", "k: '42'"),
        ("2026-11-22", "k: '2026-11-22'"),
        ("Café ünïcode 🚀", "k: Café ünïcode 🚀"),
        (date(2026, 11, 22), "k: 2026-11-22"),
        (True, "k: true"),
        (7, "k: 7"),
        (None, "k: null"),
        ([], "k: []"),
    ],
)
def test_set_key_scalar_emission(value: Any, line: str) -> None:
    new = propedit.set_key("---\nk: old\n---\n", "k", value)
    assert new == f"---\n{line}\n---\n"
    assert strict_equal(frontmatter.parse(new)["k"], value)


def test_set_key_quotes_keys_that_need_it() -> None:
    new = propedit.set_key("", "yes", 1)
    new = propedit.set_key(new, "a: b", 2)
    new = propedit.set_key(new, "#k", 3)
    new = propedit.set_key(new, "clé", 4)
    assert new == "---\n'yes': 1\n'a: b': 2\n'#k': 3\nclé: 4\n---\n"
    assert frontmatter.parse(new) == {"yes": 1, "a: b": 2, "#k": 3, "clé": 4}
    # an existing quoted key is found and replaced in place
    assert propedit.set_key(new, "a: b", 5) == new.replace("'a: b': 2", "'a: b': 5")


def test_set_key_lists_dicts_and_list_of_dicts_in_block_style() -> None:
    base = "---\ntitle: x\n---\n"
    assert propedit.set_key(base, "tags", ["a", "[[b]]"]) == (
        '---\ntitle: x\ntags:\n  - a\n  - "[[b]]"\n---\n'
    )
    recalls = [{"project": "x", "date": date(2026, 11, 22), "context": "auth"}]
    assert propedit.set_key(base, "cross_project_recalls", recalls) == (
        "---\ntitle: x\ncross_project_recalls:\n"
        "  - project: x\n    date: 2026-11-22\n    context: auth\n---\n"
    )
    assert propedit.set_key(base, "meta", {"a": 1, "b": ["c"]}) == (
        "---\ntitle: x\nmeta:\n  a: 1\n  b:\n    - c\n---\n"
    )


def test_set_key_keeps_the_list_style_of_the_note() -> None:
    flat = "---\ntags:\n- a\n- b\nother: 1\n---\n"
    assert propedit.set_key(flat, "tags", ["c", "d"]) == "---\ntags:\n- c\n- d\nother: 1\n---\n"
    # a new list in a note whose lists are flat is flat too
    assert propedit.set_key(flat, "aliases", ["x"]).endswith("other: 1\naliases:\n- x\n---\n")
    indented = "---\ntags:\n  - a\n---\n"
    assert propedit.set_key(indented, "tags", ["c"]) == "---\ntags:\n  - c\n---\n"


def test_set_key_replaces_a_block_scalar_with_its_blank_lines() -> None:
    text = "---\nsummary: |\n  one\n\n  two\n\n# kept\nafter: 1\n---\n"
    assert propedit.set_key(text, "summary", "short") == (
        "---\nsummary: short\n\n# kept\nafter: 1\n---\n"
    )


def test_set_key_multiline_string_never_writes_a_fence_line() -> None:
    new = propedit.set_key("---\na: 1\n---\nbody\n", "a", "x\n---\ny")
    assert frontmatter.parse(new) == {"a": "x\n---\ny"}
    assert frontmatter.split(new).body == "body\n"
    yaml_lines = frontmatter.split(new).yaml_text.split("\n")
    assert not any(re.fullmatch(r"\s*(-{3,}|\.\.\.)\s*", line) for line in yaml_lines)
    readable = propedit.set_key("---\na: 1\n---\n", "a", "line one\nline two")
    assert readable == "---\na: |-\n  line one\n  line two\n---\n"


def test_set_key_refuses_invalid_yaml_and_odd_values() -> None:
    bad = "---\na: [\n---\nbody\n"
    with pytest.raises(InvalidYaml) as caught:
        propedit.set_key(bad, "a", 1, path="n.md")
    assert caught.value.line == 2 and caught.value.path == "n.md"
    with pytest.raises(TypeError):
        propedit.set_key(NOTE, "k", {1, 2})
    with pytest.raises(TypeError):
        propedit.set_key(NOTE, "k", {1: "non-string key"})
    with pytest.raises(ValueError, match="one line"):
        propedit.set_key(NOTE, "two\nlines", 1)
    with pytest.raises(ValueError, match="one line"):
        propedit.add_to_list(NOTE, "tab\tkey", 1)


def test_set_key_refuses_flow_style_root_it_cannot_edit_surgically() -> None:
    text = "---\n{a: 1, b: 2}\n---\n"
    assert frontmatter.parse(text) == {"a": 1, "b": 2}
    with pytest.raises(InvalidYaml, match="cannot edit property 'a'"):
        propedit.set_key(text, "a", 3, path="n.md")


def test_set_key_keeps_crlf_and_bom_through_textio() -> None:
    raw = "\ufeff---\r\na: 1\r\nb: 2\r\n---\r\nbody\r\n".encode()
    text, fmt = textio.decode(raw)
    out = textio.encode(propedit.set_key(text, "a", 3), fmt)
    assert out == "\ufeff---\r\na: 3\r\nb: 2\r\n---\r\nbody\r\n".encode()


# --- add_to_list -------------------------------------------------------------------------------


def test_add_to_list_flow_keeps_flow_style() -> None:
    assert propedit.add_to_list("---\ntags: [a, b]\n---\n", "tags", "c") == (
        "---\ntags: [a, b, c]\n---\n"
    )
    assert propedit.add_to_list("---\ntags: []\n---\n", "tags", "c") == "---\ntags: [c]\n---\n"
    assert propedit.add_to_list("---\ntags: [a, 'b',]\n---\n", "tags", "x, y") == (
        "---\ntags: [a, 'b', 'x, y']\n---\n"
    )
    assert propedit.add_to_list("---\nup: [a]\n---\n", "up", "[[N]]") == (
        '---\nup: [a, "[[N]]"]\n---\n'
    )


def test_add_to_list_block_appends_after_the_last_item() -> None:
    assert propedit.add_to_list(NOTE, "tags", "three") == NOTE.replace(
        "  - two\n", "  - two\n  - three\n"
    )
    flat = "---\ntags:\n- a\n# c\nnext: 1\n---\n"
    assert propedit.add_to_list(flat, "tags", "b") == "---\ntags:\n- a\n- b\n# c\nnext: 1\n---\n"
    recalls = "---\nr:\n  - project: x\n    date: 2026-11-20\n---\n"
    new = propedit.add_to_list(recalls, "r", {"project": "y", "date": date(2026, 11, 22)})
    assert new == (
        "---\nr:\n  - project: x\n    date: 2026-11-20\n  - project: y\n    date: 2026-11-22\n---\n"
    )


def test_add_to_list_creates_and_converts() -> None:
    assert propedit.add_to_list("", "tags", "a") == "---\ntags:\n  - a\n---\n"
    assert propedit.add_to_list("---\ntags:\n---\n", "tags", "a") == "---\ntags:\n  - a\n---\n"
    assert propedit.add_to_list("---\ntags: a  # c\n---\n", "tags", "b") == (
        "---\ntags:  # c\n  - a\n  - b\n---\n"
    )


def test_add_to_list_present_value_is_a_no_op() -> None:
    assert propedit.add_to_list(NOTE, "tags", "one") is NOTE
    assert propedit.add_to_list(NOTE, "status", "active") is NOTE
    # 1 is not True, and "1" is not 1
    assert propedit.add_to_list("---\nn: [1]\n---\n", "n", True) == "---\nn: [1, true]\n---\n"
    assert propedit.add_to_list("---\nn: [1]\n---\n", "n", "1") == "---\nn: [1, '1']\n---\n"


def test_add_to_list_refuses_a_mapping_and_invalid_yaml() -> None:
    with pytest.raises(InvalidYaml, match="is a mapping") as caught:
        propedit.add_to_list("---\nm:\n  a: 1\n---\n", "m", "x", path="n.md")
    assert caught.value.line == 2 and caught.value.path == "n.md"
    with pytest.raises(InvalidYaml):
        propedit.add_to_list("---\nm: 'x\n---\n", "m", "x")


# --- delete_key --------------------------------------------------------------------------------


def test_delete_key() -> None:
    assert propedit.delete_key(NOTE, "tags") == NOTE.replace("tags:\n  - one\n  - two\n", "")
    assert propedit.delete_key(NOTE, "status") == NOTE.replace(
        "status: active  # active | archived\n", ""
    )
    assert propedit.delete_key(NOTE, "missing") is NOTE
    assert propedit.delete_key("no frontmatter\n", "a") == "no frontmatter\n"
    assert propedit.delete_key("---\na: 1\n---\nbody", "a") == "---\n---\nbody"
    with pytest.raises(InvalidYaml):
        propedit.delete_key("---\na: 1\na: 2\n---\n", "a")


# --- properties --------------------------------------------------------------------------------

TRICKY = st.sampled_from(
    [
        "yes", "no", "on", "off", "y", "N", "10:00", "1:30:00", "", " x", "x ", "[[a]]",
        "[[a|b]] c", "#t", "a # b", "null", "~", "true", "42", "0755", "1e5", "2026-11-22",
        "2026-13-45", "- item", "---", "...", "a: b", "{x}", "'q'", '"dq"', "é", "x\ny",
        "tab\there", "!tag", "&anchor", "*alias", "%", "@", "`",
    ]
)  # fmt: skip
KEYS = st.text(
    alphabet=st.characters(categories=("L", "N")) | st.sampled_from("_-. "),
    min_size=1,
    max_size=12,
)
SCALARS = st.one_of(
    TRICKY,
    st.text(max_size=20),
    st.integers(min_value=-(10**12), max_value=10**12),
    st.booleans(),
    st.dates(min_value=date(1900, 1, 1), max_value=date(2100, 12, 31)),
)
VALUES = st.one_of(SCALARS, st.lists(st.one_of(TRICKY, st.text(max_size=12)), max_size=4))
PROPERTIES = st.dictionaries(KEYS, VALUES, max_size=6)


@settings(deadline=None, max_examples=examples(150))
@given(props=PROPERTIES, body=st.sampled_from(["", "# T\n", "body without newline"]))
def test_property_set_key_builds_exactly_the_dict(props: dict[str, Any], body: str) -> None:
    text = body
    for key, value in props.items():
        text = propedit.set_key(text, key, value)
    assert strict_equal(frontmatter.parse(text), props)
    if props:
        assert frontmatter.split(text).body == body
    else:
        assert text == body


@st.composite
def styled_notes(draw: st.DrawFn) -> tuple[str, dict[str, Any]]:
    """A note written in the styles people and tools use, with its expected properties."""
    keys = draw(st.lists(st.from_regex(r"[a-z][a-z_]{0,7}", fullmatch=True), unique=True,
                         min_size=1, max_size=6))  # fmt: skip
    lines = ["---"]
    expected: dict[str, Any] = {}
    for key in keys:
        if draw(st.booleans()):
            lines.append(draw(st.sampled_from(["# a comment", "", "#"])))
        style = draw(st.sampled_from(["plain", "quoted", "flow", "block", "flat", "comment"]))
        word = draw(st.from_regex(r"[a-z]{1,6}", fullmatch=True))
        if style == "plain":
            lines.append(f"{key}: {word}")
            expected[key] = word
        elif style == "quoted":
            lines.append(f'{key}: "{word}: x"')
            expected[key] = f"{word}: x"
        elif style == "comment":
            lines.append(f"{key}: {word}   # why")
            expected[key] = word
        elif style == "flow":
            lines.append(f"{key}: [{word}, '{word}2']")
            expected[key] = [word, f"{word}2"]
        else:
            pad = "  " if style == "block" else ""
            lines += [f"{key}:", f"{pad}- {word}", f"{pad}- {word}3"]
            expected[key] = [word, f"{word}3"]
    lines += ["---", "# Body", ""]
    return "\n".join(lines), expected


@settings(deadline=None, max_examples=examples(150), suppress_health_check=[HealthCheck.too_slow])
@given(note=styled_notes(), data=st.data())
def test_property_set_one_key_leaves_every_other_line(
    note: tuple[str, dict[str, Any]], data: st.DataObject
) -> None:
    text, expected = note
    assert frontmatter.parse(text) == expected
    key = data.draw(st.sampled_from(sorted(expected)))
    value = data.draw(VALUES)
    new = propedit.set_key(text, key, value)
    after = frontmatter.parse(new)
    assert strict_equal(after, {**expected, key: value})
    old_lines = text.split("\n")
    start, end = changed_old_range(text, new)
    key_line = old_lines.index(next(line for line in old_lines if line.startswith(f"{key}:")))
    following = [
        i
        for i in range(key_line + 1, len(old_lines))
        if re.match(r"[a-z_]+:|---$|#|$", old_lines[i])
    ]
    region_end = following[0] if following else len(old_lines)
    if start < end:
        assert key_line <= start and end <= region_end, (key, start, end, key_line, region_end)
    # and deleting it removes only its lines
    gone = propedit.delete_key(text, key)
    assert frontmatter.parse(gone) == {k: v for k, v in expected.items() if k != key}
    start, end = changed_old_range(text, gone)
    assert start == key_line and end <= region_end


@settings(deadline=None, max_examples=examples(200))
@given(
    lines=st.lists(
        st.text(alphabet=st.characters(codec="utf-8", exclude_characters="\r\n")), max_size=8
    ),
    crlf=st.booleans(),
    bom=st.booleans(),
    final_newline=st.booleans(),
)
def test_property_decode_encode_round_trip(
    lines: list[str], crlf: bool, bom: bool, final_newline: bool
) -> None:
    newline = "\r\n" if crlf else "\n"
    body = newline.join(["---", "a: 1", "---", *lines]) + (newline if final_newline else "")
    raw = (("\ufeff" if bom else "") + body).encode("utf-8")
    if b"\x00" in raw:
        return
    text, fmt = textio.decode(raw)
    assert textio.encode(text, fmt) == raw
    # an edit that sets the same value leaves the bytes as they were
    if frontmatter.split(text).has_frontmatter:
        assert textio.encode(propedit.set_key(text, "a", 1), fmt) == raw


def _alias_bomb(levels: int = 9, width: int = 9) -> str:
    lines = ["a0: &a0 [" + ", ".join(["lol"] * width) + "]"]
    for level in range(1, levels + 1):
        lines.append(f"a{level}: &a{level} [" + ", ".join([f"*a{level - 1}"] * width) + "]")
    return "---\n" + "\n".join(lines) + "\n---\nbody\n"


@pytest.mark.parametrize(
    "text",
    [
        _alias_bomb(),
        "---\na: &a [x, *a]\n---\n",  # an alias inside its own anchor
        # wide, not deep: 5 x 5,000 aliases of a mapping
        "---\nb: &b {k: 1}\nbig: &big [" + ", ".join(["*b"] * 5000) + "]\nall: [*big, *big, *big, *big, *big]\n---\n",
        # merge keys expand too
        "---\nb: &b {k: [1, 2, 3]}\n" + "".join(f"m{i}: &m{i}\n  <<: [*{'b' if i == 0 else f'm{i - 1}'}]\n  v{i}: [*b, *b]\n" for i in range(9)) + "top: [" + ", ".join("*m8" for _ in range(4000)) + "]\n---\n",
    ],
)
def test_alias_bombs_are_refused_before_anything_is_built(text: str) -> None:
    with pytest.raises(InvalidYaml) as info:
        frontmatter.parse(text, path="bomb.md")
    assert info.value.path == "bomb.md" and "alias" in info.value.message
    with pytest.raises(InvalidYaml):
        propedit.set_key(text, "status", "active", path="bomb.md")


def test_aliases_within_the_bound_still_read() -> None:
    text = "---\nbase: &b [1, 2]\nagain: *b\nmerged:\n  <<: {k: 1}\n---\n"
    assert frontmatter.parse(text) == {"base": [1, 2], "again": [1, 2], "merged": {"k": 1}}


@settings(deadline=None, max_examples=examples(300), suppress_health_check=[HealthCheck.too_slow])
@given(note=styled_notes(), data=st.data())
def test_property_set_keys_gives_the_text_set_key_gives_one_after_another(
    note: tuple[str, dict[str, Any]], data: st.DataObject
) -> None:
    """One read and one verification for several keys (a SessionEnd's properties), the same
    bytes as setting them one by one: existing keys, new ones, a key twice, lists."""
    text, expected = note
    keys = st.one_of(st.sampled_from(sorted(expected)), KEYS)
    items = data.draw(st.lists(st.tuples(keys, VALUES), max_size=5))
    one_by_one = text
    for key, value in items:
        one_by_one = propedit.set_key(one_by_one, key, value)
    assert propedit.set_keys(text, items) == one_by_one


def test_set_keys_sets_a_sessions_closing_properties_in_one_pass(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(propedit, "_one_by_one", None)  # not the key-by-key way
    text = ("---\ntype: session\nupdated: 2026-11-20  # by vaultmem\ncwd: /old\n---\n\n"
            "# S\n")
    items = [("claude_last_accessed", date(2026, 11, 22)), ("cwd", "/work/x"),
             ("host", "box"), ("updated", date(2026, 11, 22))]
    assert propedit.set_keys(text, items) == (
        "---\ntype: session\nupdated: 2026-11-22  # by vaultmem\ncwd: /work/x\n"
        "claude_last_accessed: 2026-11-22\nhost: box\n---\n\n# S\n")
