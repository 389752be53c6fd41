"""frontmatter's libyaml path reads exactly what PyYAML's own parser reads, or is not taken."""

from __future__ import annotations

from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from property_kit import examples
from yaml.nodes import MappingNode, Node, SequenceNode

from vaultmem.errors import InvalidYaml
from vaultmem.notes import frontmatter

pytestmark = pytest.mark.skipif(frontmatter._FastLoader is None, reason="PyYAML without libyaml")

# Pieces that make valid and invalid block YAML, with the characters the fast path accepts.
PIECES = [
    "k: ", "\n  - ", "\n- ", "\nk2: ", "abc", " # c", '"x"', "'y'", "\n", "  ", ":", "-", " ",
    "2026-01-02", "yes", "10:00", '"x: y"', "'a''b'", "\n  k3: v", "-\n", ":\n", "#", "é", "😀",
    ",", ".", "~", "null", "1.5", "0x1F", "\n---\n", "...", "<<: ", "=",
    '"[[a|b]]"', '"{x} [y]"', '"!&*?"', '"%@`>"', '"a # b"', "\nup: ", "\n  - ",
    # and characters it refuses, so that a looser check would be caught
    "[", "]", "{", "}", "?", "!", "&", "*", "|", ">", "@", "`", "%", "\\", "\t", "\r", "\ufeff",
]


def _shape(node: Node | None) -> Any:
    """What the edits use of a node: kind, tag, positions, value; styles only as truthiness."""
    if node is None:
        return None
    value = node.value
    if isinstance(node, MappingNode):
        value = [(_shape(key), _shape(item)) for key, item in value]
    elif isinstance(node, SequenceNode):
        value = [_shape(item) for item in value]
    return (
        type(node).__name__,
        node.tag,
        node.start_mark.index,
        node.end_mark.index,
        getattr(node, "style", None) or None,
        bool(getattr(node, "flow_style", None)),
        value,
    )


def _read(loader: type[Any], text: str) -> Any:
    try:
        node, data = frontmatter._compose(loader, text)
    except (yaml.YAMLError, RecursionError):
        return "error"
    return _shape(node), repr(data)


@settings(deadline=None, max_examples=examples(2000))
@given(st.lists(st.sampled_from(PIECES), max_size=16).map("".join))
def test_libyaml_reads_what_pyyaml_reads_where_it_is_used(text: str) -> None:
    if not frontmatter._fast_ok(text):
        return
    assert frontmatter._FastLoader is not None
    pure = _read(frontmatter.ObsidianLoader, text)
    fast = _read(frontmatter._FastLoader, text)
    # libyaml may refuse what PyYAML reads (PyYAML then decides); never the other way round,
    # and never a different reading.
    assert fast == pure or fast == "error"


@pytest.mark.parametrize(
    "text",
    [
        "k: [a, b]\n",  # flow collections
        "k: {a: 1}\n",
        "k: !tag x\n",  # tags, anchors, aliases, complex keys, block scalars, directives
        "k: &a x\nj: *a\n",
        "? k\n: v\n",
        "k: |\n  x\n",
        "k: >\n  x\n",
        "%YAML 1.2\n---\nk: v\n",
        'k: "a\\tb"\n',  # escapes
        "k:\tv\n",  # tabs, CRs, BOMs, special line breaks, control characters
        "k: v\r\n",
        "\ufeffk: v\n",
        "k: a\u2028b\n",
        "k: a\x85b\n",
        "k: a\x07b\n",
        "k:\n" + "".join("  " * i + "- \n" for i in range(1, 40)),  # deep nesting
    ],
)
def test_texts_where_the_parsers_may_disagree_go_to_pyyaml(text: str) -> None:
    assert not frontmatter._fast_ok(text)


def test_vaultmem_frontmatter_takes_the_fast_path() -> None:
    text = (
        "type: session\nproject: shop-api\ntags:\n  - claude/session\n  - shop-api\n"
        "created: 2026-11-22\nstatus: active  # why\nsession_ids:\n  - 0b65fdf8-5ad3\n"
        "title: 'Auth: tokens'\nwhen: 10:00\n"
    )
    assert frontmatter._fast_ok(text)


def test_links_in_double_quotes_take_the_fast_path() -> None:
    text = 'archived_to: "[[claude/p/archive/s|s]]"\nup:\n  - "[[A]]"\n  - "[[B|b]]"\n'
    assert frontmatter._fast_ok(text)
    # ...but not with an escape, a comment after the quotes, or in a flow list
    assert not frontmatter._fast_ok('up: "[[A]]\\n"\n')
    assert not frontmatter._fast_ok('up: "[[A]]"  # x\n')
    assert not frontmatter._fast_ok('up: ["[[A]]"]\n')


def test_errors_are_worded_by_pyyaml() -> None:
    # libyaml refuses this too, with other words; the message and line are PyYAML's.
    note = "---\ntype: session\ntitle: a: b\n---\nbody\n"
    assert frontmatter._fast_ok("type: session\ntitle: a: b\n")
    with pytest.raises(InvalidYaml) as err:
        frontmatter.parse(note, path="n.md")
    assert err.value.line == 3
    assert "mapping values are not allowed here" in str(err.value)


def test_parse_hands_out_copies_of_the_cached_reading() -> None:
    note = "---\ntags:\n  - a\nnested:\n  k:\n    - 1\n---\n"
    first = frontmatter.parse(note)
    first["tags"].append("b")
    first["nested"]["k"].append(2)
    assert frontmatter.parse(note) == {"tags": ["a"], "nested": {"k": [1]}}
