"""Editing frontmatter one key at a time: set, add to a list, delete; each edit verified.

Writing never re-renders the frontmatter: an edit replaces only the lines of one key (found from
the composed YAML nodes, so keys are matched the way YAML reads them, quoted or not) and every
edit is verified by parsing the result. Text is LF without BOM (see ``textio``).

Decisions:
- The key's lines are its key line plus everything up to the next key, minus trailing blank
  lines and column-0 comments (those belong to no key and stay).
- A trailing comment on the key line (`status: active  # why`) is kept when the new value still
  starts on that line (a scalar, a flow list, or `key:` opening a block); it is dropped only when
  the line cannot hold it (a multi-line quoted value).
- Frontmatter written as one flow mapping `{a: 1}` reads fine but is refused for edits
  (InvalidYaml) rather than rewritten.
- Emission: PyYAML decides the quoting; `[[links]]` are double-quoted; lists are block lists in
  the note's own indentation (Obsidian's `  - item` by default); multi-line strings are `|`
  blocks; no line that looks like a fence is ever written.
"""

from __future__ import annotations

import datetime as dt
import functools
import math
import re
import unicodedata
from collections.abc import Iterable, Iterator
from typing import Any, cast

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from vaultmem.errors import InvalidYaml
from vaultmem.notes.frontmatter import Doc, Span, cached_data, line_of, load, split_lines

_STR = "tag:yaml.org,2002:str"
# A line vaultmem must never emit inside frontmatter: markdown-it's front-matter rule (used by
# sections.py) closes the block on an *indented* fence too.
_FENCE_LIKE = re.compile(r"[ \t]*(?:-{3,}|\.\.\.)[ \t]*")


# --- values -----------------------------------------------------------------------------------


def _normalize(value: Any) -> Any:
    """The value as parse() will read it back; TypeError for what YAML cannot hold."""
    if value is None or isinstance(value, (bool, int, float, str, dt.date)):
        return value
    if isinstance(value, (list, tuple)):
        return [_normalize(item) for item in value]
    if isinstance(value, dict):
        for key in value:
            if not isinstance(key, str):
                raise TypeError(f"frontmatter mapping keys must be strings, not {key!r}")
        return {key: _normalize(item) for key, item in value.items()}
    raise TypeError(f"cannot write a {type(value).__name__} into frontmatter")


def _same(a: Any, b: Any) -> bool:
    """Equality that tells 1 from True from 1.0, and a date from a datetime."""
    if type(a) is not type(b):
        return False
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, float) and math.isnan(a):
        return math.isnan(b)
    return bool(a == b)


def _same_dict(a: dict[str, Any], b: dict[str, Any]) -> bool:
    return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)


# --- emission ---------------------------------------------------------------------------------


class _Dumper(yaml.SafeDumper):
    """Obsidian's layout: `  - item` under a key; no anchors; links and long text readable."""

    indentless = False  # `- item` at the key's column, as non-Obsidian tools write lists
    multiline_style: str | None = "|"  # how multi-line strings are written; None: PyYAML decides

    def increase_indent(self, flow: bool = False, indentless: bool = False) -> None:
        """Indent block sequences under a key unless the note writes `- item` at column 0."""
        super().increase_indent(flow, indentless and self.indentless)

    def ignore_aliases(self, data: Any) -> bool:
        """Never emit &anchors: Obsidian shows them as text."""
        return True


def _represent_str(dumper: _Dumper, value: str) -> yaml.ScalarNode:
    # Obsidian writes links in properties double-quoted: archived_to: "[[x]]".
    if value.startswith("[["):
        return dumper.represent_scalar(_STR, value, style='"')
    if "\n" in value and dumper.multiline_style:
        # A literal block reads like the note; the emitter falls back to quotes when it must.
        return dumper.represent_scalar(_STR, value, style=dumper.multiline_style)
    return dumper.represent_str(value)


_DUMPERS: dict[tuple[bool, str | None], type[_Dumper]] = {}
for _flat in (False, True):
    for _style in ("|", None, '"'):
        _cls = cast(
            "type[_Dumper]",
            type("_Dumper", (_Dumper,), {"indentless": _flat, "multiline_style": _style}),
        )
        _cls.add_representer(str, _represent_str)
        _cls.add_representer(tuple, yaml.SafeDumper.represent_list)
        _DUMPERS[(_flat, _style)] = _cls


def _dump(
    data: Any,
    *,
    flat: bool,
    flow: bool = False,
    multiline: str | None = "|",
    quoted: bool = False,
) -> str:
    out = yaml.dump(
        data,
        Dumper=yaml.SafeDumper if quoted else _DUMPERS[(flat, multiline)],
        default_flow_style=flow,
        default_style='"' if quoted else None,
        allow_unicode=True,
        sort_keys=False,
        width=float("inf"),
    )
    if out.endswith("\n...\n"):
        out = out[: -len("...\n")]
    return out


@functools.lru_cache(maxsize=256)
def _key_part(key: str, flat: bool) -> str:
    """`key:` as YAML writes the key (quoted when it must be)."""
    return _dump({key: None}, flat=flat).rstrip("\n").removesuffix(" null")


def _variants(key: str, value: Any, *, flat: bool, flow: bool) -> Iterator[str]:
    # Lazily: the first variant nearly always verifies, and each one costs a YAML dump.
    key_part = _key_part(key, flat)
    if flow:
        # Keep the note's `key: [a, b]` style.
        inner = _dump([value], flat=flat, flow=True).strip()
        if inner.startswith("[") and "\n" not in inner:
            yield f"{key_part} {inner[1:-1]}\n"
    yield _dump({key: value}, flat=flat)
    yield _dump({key: value}, flat=flat, multiline=None)
    yield _dump({key: value}, flat=flat, multiline='"')
    quoted = _dump(value, flat=flat, quoted=True)
    if quoted.count("\n") == 1:
        # Escaped and on one line: always possible for a scalar.
        yield f"{key_part} {quoted}"
    yield _dump({key: value}, flat=flat, quoted=True)


def _emissions(key: str, value: Any, *, flat: bool, flow: bool, indent: int) -> Iterator[list[str]]:
    """Candidate line lists for `key: value`, best first (each one is verified by the caller)."""
    for variant in _variants(key, value, flat=flat, flow=flow):
        lines = [" " * indent + line for line in split_lines(variant)]
        if not any(_FENCE_LIKE.fullmatch(line.rstrip("\n")) for line in lines):
            yield lines


def _item_emission(item: Any, *, flat: bool, column: int) -> list[str]:
    """Lines of one block-list item whose `-` sits at `column`."""
    text = _dump([item], flat=flat)
    return [" " * column + line for line in split_lines(text)]


def _flow_item(item: Any) -> str:
    """One item as written inside `[...]`."""
    return _dump([item], flat=False, flow=True).strip()[1:-1]


# --- positions --------------------------------------------------------------------------------


def _content_end(node: Node) -> int:
    """Last character offset that belongs to the value (trailing comments and blanks excluded)."""
    if isinstance(node, ScalarNode):
        return node.end_mark.index if node.style not in ("|", ">") else node.start_mark.index
    if isinstance(node, SequenceNode) and not node.flow_style and node.value:
        return _content_end(node.value[-1])
    if isinstance(node, MappingNode) and not node.flow_style and node.value:
        return _content_end(node.value[-1][1])
    return node.end_mark.index


def _spans(doc: Doc) -> list[Span]:
    """The top-level keys' spans, read on first use (an edit looks them up several times)."""
    if doc.spans is None:
        doc.spans = _read_spans(doc)
    return doc.spans


def _read_spans(doc: Doc) -> list[Span]:
    if doc.root is None:
        return []
    yaml_text = doc.parts.yaml_text
    offset = doc.parts.yaml_start
    yaml_end = doc.parts.body_start - 1  # the closing fence line
    pairs = doc.root.value
    starts = [offset + line_of(yaml_text, k.start_mark.index) for k, _ in pairs]
    spans = []
    for i, (key_node, value_node) in enumerate(pairs):
        start = starts[i]
        end = starts[i + 1] if i + 1 < len(pairs) else yaml_end
        floor = max(start, offset + line_of(yaml_text, _content_end(value_node)))
        # Blank lines and column-0 comments after the value belong to no key: they stay.
        while end - 1 > floor and (
            not doc.lines[end - 1].strip() or doc.lines[end - 1].startswith("#")
        ):
            end -= 1
        key_line = doc.lines[start].rstrip("\n")
        comment = ""
        value_line = offset + line_of(yaml_text, value_node.end_mark.index)
        if value_line == start and not isinstance(value_node, MappingNode):
            col = _column(yaml_text, value_node.end_mark.index)
            match = re.fullmatch(r"(\s+#.*)", key_line[col:])
            comment = match.group(1) if match else ""
        elif offset + line_of(yaml_text, value_node.start_mark.index) > start:
            col = _column(yaml_text, key_node.end_mark.index)
            match = re.fullmatch(r"\s*:(\s+#.*)", key_line[col:])
            comment = match.group(1) if match else ""
        key = key_node.value if isinstance(key_node, ScalarNode) else ""
        spans.append(Span(key, start, end, key_node, value_node, comment))
    return spans


def _find(doc: Doc, key: str) -> Span | None:
    for span in _spans(doc):
        if isinstance(span.key_node, ScalarNode) and span.key == key:
            return span
    return None


def _root_indent(doc: Doc) -> int:
    if doc.root is None or not doc.root.value:
        return 0
    return _column(doc.parts.yaml_text, doc.root.value[0][0].start_mark.index)


def _column(yaml_text: str, index: int) -> int:
    """0-based column of a character offset, counting lines the way vaultmem does."""
    return index - (yaml_text.rfind("\n", 0, index) + 1)


def _node_column(doc: Doc, node: Node) -> int:
    return _column(doc.parts.yaml_text, int(node.start_mark.index))


def _flat_list(doc: Doc, span: Span) -> bool | None:
    """True for `- item` at the key's column, False for indented items, None if not a block list."""
    node = span.value_node
    if isinstance(node, SequenceNode) and not node.flow_style and node.value:
        return _node_column(doc, node) == _node_column(doc, span.key_node)
    return None


def _note_flat_style(doc: Doc) -> bool:
    """The list style of the note's first block list; Obsidian's `  - item` when there is none."""
    for span in _spans(doc):
        flat = _flat_list(doc, span)
        if flat is not None:
            return flat
    return False


# --- edits ------------------------------------------------------------------------------------


def _first_verified(
    candidates: Iterable[str], expected: dict[str, Any], path: str | None, key: str
) -> str:
    """The first candidate text whose frontmatter reads back as expected."""
    for candidate in candidates:
        try:
            if _same_dict(cached_data(candidate, None) or {}, expected):
                return candidate
        except InvalidYaml:
            continue
    raise InvalidYaml(
        f"cannot edit property '{key}' without rewriting other lines "
        "(flow-style or unusual frontmatter)",
        path=path,
    )


def _replaced(doc: Doc, start: int, end: int, new_lines: list[str]) -> str:
    return "".join(doc.lines[:start] + new_lines + doc.lines[end:])


def _with_comment(lines: list[str], comment: str) -> list[str] | None:
    """The emission with the old key line's trailing comment, when its first line can take one."""
    first = lines[0].rstrip("\n")
    if not comment or (len(lines) > 1 and not first.endswith(":")):
        return None
    return [first + comment + "\n", *lines[1:]]


def _set(doc: Doc, key: str, value: Any, path: str | None, *, flow: bool = False) -> str:
    expected = dict(doc.data)
    expected[key] = value
    return _first_verified(_set_candidates(doc, key, value, flow), expected, path, key)


def _set_candidates(doc: Doc, key: str, value: Any, flow: bool) -> Iterator[str]:
    """The texts `_set` tries, best first, built one at a time."""
    if not doc.parts.has_frontmatter:
        for lines in _emissions(key, value, flat=False, flow=False, indent=0):
            yield "---\n" + "".join(lines) + "---\n" + doc.parts.body
        return
    span = _find(doc, key)
    indent = _root_indent(doc)
    if span is None:
        flat = _note_flat_style(doc)
        at = doc.parts.body_start - 1
        for lines in _emissions(key, value, flat=flat, flow=False, indent=indent):
            yield _replaced(doc, at, at, lines)
        return
    own = _flat_list(doc, span)
    flat = own if own is not None else _note_flat_style(doc)
    for lines in _emissions(key, value, flat=flat, flow=flow, indent=indent):
        commented = _with_comment(lines, span.comment)
        if commented is not None:
            yield _replaced(doc, span.start, span.end, commented)
        yield _replaced(doc, span.start, span.end, lines)


def _check_key(key: str) -> None:
    # A property name is one line of printable text in Obsidian; YAML would need `? |` blocks.
    if any(unicodedata.category(char) in ("Cc", "Cs", "Zl", "Zp") for char in key):
        raise ValueError(f"a property name must be one line of printable text, not {key!r}")


def set_key(text: str, key: str, value: Any, *, path: str | None = None) -> str:
    """Set one property, changing only that key's lines; `text` itself when nothing changes."""
    _check_key(key)
    doc = load(text, path)
    value = _normalize(value)
    if key in doc.data and _same(doc.data[key], value):
        return text
    span = _find(doc, key) if key in doc.data else None
    flow = (
        span is not None
        and isinstance(span.value_node, SequenceNode)
        and bool(span.value_node.flow_style)
    )
    return _set(doc, key, value, path, flow=flow and isinstance(value, list))


def set_keys(text: str, items: Iterable[tuple[str, Any]], *, path: str | None = None) -> str:
    """Set several properties: the text ``set_key`` gives, one key after another, read and
    verified once instead of once a key (a hook's SessionEnd sets half a dozen). Lists, and
    anything the one-pass emission does not verify, go the one-key way."""
    items = list(items)
    for key, _ in items:
        _check_key(key)
    doc = load(text, path)
    pairs = [(key, _normalize(value)) for key, value in items]
    if not doc.parts.has_frontmatter or any(isinstance(v, (list, dict)) for _, v in pairs):
        return _one_by_one(text, pairs, path)
    expected = dict(doc.data)
    replaced: dict[int, tuple[int, list[str]]] = {}  # span start -> (span end, its lines)
    added: list[str] = []
    new_keys: set[str] = set()
    indent = _root_indent(doc)
    for key, value in pairs:
        if key in expected and _same(expected[key], value):
            continue
        expected[key] = value
        lines = next(_emissions(key, value, flat=False, flow=False, indent=indent), None)
        span = _find(doc, key)
        if lines is None or (span is None) != (key not in doc.data) or key in new_keys:
            return _one_by_one(text, pairs, path)  # (a new key set twice: in its order)
        if span is None:
            new_keys.add(key)
            added.extend(lines)
        else:
            replaced[span.start] = (span.end, _with_comment(lines, span.comment) or lines)
    if not replaced and not added:
        return text
    at = doc.parts.body_start - 1
    out: list[str] = []
    line = 0
    for start in sorted(replaced):
        end, lines = replaced[start]
        out += doc.lines[line:start] + lines
        line = end
    out += doc.lines[line:at] + added + doc.lines[at:]
    candidate = "".join(out)
    try:
        if _same_dict(cached_data(candidate, None) or {}, expected):
            return candidate
    except InvalidYaml:
        pass
    return _one_by_one(text, pairs, path)


def _one_by_one(text: str, pairs: Iterable[tuple[str, Any]], path: str | None) -> str:
    for key, value in pairs:
        text = set_key(text, key, value, path=path)
    return text


def add_to_list(text: str, key: str, value: Any, *, path: str | None = None) -> str:
    """Append one item to a list property (block or flow kept); `text` itself when present."""
    _check_key(key)
    doc = load(text, path)
    item = _normalize(value)
    if key not in doc.data or doc.data[key] is None:
        return _set(doc, key, [item], path)
    current = doc.data[key]
    if isinstance(current, dict):
        span = _find(doc, key)
        raise InvalidYaml(
            f"property '{key}' is a mapping, not a list: cannot add an item to it",
            path=path,
            line=span.start + 1 if span else None,
        )
    if not isinstance(current, list):
        if _same(current, item):
            return text
        return _set(doc, key, [current, item], path)
    if any(_same(existing, item) for existing in current):
        return text
    expected = dict(doc.data)
    expected[key] = [*current, item]
    span = _find(doc, key)
    candidates: list[str] = []
    if span is not None:
        node = span.value_node
        if isinstance(node, SequenceNode) and node.flow_style:
            candidates.extend(_flow_appended(doc, node, item))
        elif isinstance(node, SequenceNode) and node.value:
            flat = _flat_list(doc, span) is True
            lines = _item_emission(item, flat=flat, column=_node_column(doc, node))
            candidates.append(_replaced(doc, span.end, span.end, lines))
    try:
        return _first_verified(candidates, expected, path, key)
    except InvalidYaml:
        # An unusual layout: re-emit the whole list, still only this key's lines.
        flow = span is not None and bool(getattr(span.value_node, "flow_style", False))
        return _set(doc, key, [*current, item], path, flow=flow)


def _flow_appended(doc: Doc, node: SequenceNode, item: Any) -> list[str]:
    """The text with `item` written before the closing `]` of a flow list."""
    yaml_text = doc.parts.yaml_text
    close = node.end_mark.index - 1
    if yaml_text[close : close + 1] != "]":
        return []
    inner = yaml_text[node.start_mark.index + 1 : close]
    head = inner.rstrip()
    tail = inner[len(head) :]
    if not head.strip():
        new_inner = _flow_item(item) + tail
    elif head.endswith(","):
        new_inner = head + " " + _flow_item(item) + tail
    else:
        new_inner = head + ", " + _flow_item(item) + tail
    new_yaml = yaml_text[: node.start_mark.index + 1] + new_inner + yaml_text[close:]
    prefix = "".join(doc.lines[: doc.parts.yaml_start])
    suffix = "".join(doc.lines[doc.parts.body_start - 1 :])
    return [prefix + new_yaml + suffix]


def delete_key(text: str, key: str, *, path: str | None = None) -> str:
    """Remove one property's lines; `text` itself when the key is absent."""
    doc = load(text, path)
    if key not in doc.data:
        return text
    span = _find(doc, key)
    expected = {k: v for k, v in doc.data.items() if k != key}
    candidates = [_replaced(doc, span.start, span.end, [])] if span is not None else []
    return _first_verified(candidates, expected, path, key)
