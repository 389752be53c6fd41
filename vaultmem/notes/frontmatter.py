"""YAML frontmatter: split, read the way Obsidian reads it, and edit one key at a time.

Reading goes through python-frontmatter with :class:`ObsidianYAMLHandler`, whose ``load`` uses
:class:`ObsidianLoader` (a SafeLoader that reads YAML 1.1's ``yes``/``no``/``on``/``off`` and
sexagesimal ``10:00`` as strings, like Obsidian does, and refuses duplicate keys). The frontmatter
boundary is decided by :func:`split` alone, and the handler's ``split`` delegates to it, so the
library and python-frontmatter never disagree on what is frontmatter (its own regex would accept
``----`` and a body-less ``---`` pair differently).

Writing never re-renders the frontmatter: an edit replaces only the lines of one key (found from
the composed YAML nodes, so keys are matched the way YAML reads them, quoted or not) and every
edit is verified by parsing the result. Text is LF without BOM (see ``textio``).

Decisions:
- Fences: `---` (trailing blanks allowed) on line 1, closed by `---` or `...` at column 0; an
  unclosed `---` is body. The key's lines are its key line plus everything up to the next key,
  minus trailing blank lines and column-0 comments (those belong to no key and stay).
- A trailing comment on the key line (`status: active  # why`) is kept when the new value still
  starts on that line (a scalar, a flow list, or `key:` opening a block); it is dropped only when
  the line cannot hold it (a multi-line quoted value).
- Duplicate keys are invalid YAML here (YAML 1.2 and Obsidian reject them, and an edit could not
  know which one to change). Frontmatter written as one flow mapping `{a: 1}` reads fine but is
  refused for edits (InvalidYaml) rather than rewritten.
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
from frontmatter.default_handlers import YAMLHandler
from yaml.constructor import SafeConstructor
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode
from yaml.resolver import Resolver

from vaultmem.errors import InvalidYaml
from vaultmem.notes.fences import Split, split

__all__ = [
    "HANDLER",
    "ObsidianLoader",
    "ObsidianYAMLHandler",
    "Split",
    "add_to_list",
    "delete_key",
    "parse",
    "parse_value",
    "set_key",
    "split",
]

_BOOL = "tag:yaml.org,2002:bool"
_INT = "tag:yaml.org,2002:int"
_FLOAT = "tag:yaml.org,2002:float"
_STR = "tag:yaml.org,2002:str"
_TIMESTAMP = "tag:yaml.org,2002:timestamp"

# A line vaultmem must never emit inside frontmatter: markdown-it's front-matter rule (used by
# sections.py) closes the block on an *indented* fence too.
_FENCE_LIKE = re.compile(r"[ \t]*(?:-{3,}|\.\.\.)[ \t]*")
_NULL_WORDS = frozenset({"~", "null", "Null", "NULL"})


# A YAML alias repeats a node: nested aliases ("billion laughs") make a few lines of frontmatter
# stand for billions of values, and anything that walks them (a copy, the index, JSON) runs until
# killed. Real frontmatter holds tens of values; a document that expands past this is refused.
MAX_EXPANDED_NODES = 10_000


def _children(node: Node) -> list[Node]:
    if isinstance(node, SequenceNode):
        return list(node.value)
    if isinstance(node, MappingNode):
        return [part for pair in node.value for part in pair]
    return []


def _expanded_size(root: Node, limit: int) -> int | None:
    """The nodes of the document once every alias is expanded; None past ``limit`` or when an
    alias sits inside its own anchor (endless). Linear in the distinct nodes, never expands."""
    sizes: dict[int, int] = {}
    open_: set[int] = set()  # nodes whose children are being counted: the ancestors
    stack: list[tuple[Node, bool]] = [(root, False)]
    while stack:
        node, finished = stack.pop()
        key = id(node)
        if finished:
            open_.discard(key)
            total = 1 + sum(sizes[id(child)] for child in _children(node))
            if total > limit:
                return None
            sizes[key] = total
        elif key in open_:
            return None
        elif key not in sizes:
            open_.add(key)
            stack.append((node, True))
            stack.extend((child, False) for child in _children(node))
    return sizes[id(root)]


class ObsidianLoader(yaml.SafeLoader):
    """SafeLoader reading scalars as Obsidian does; duplicate keys are an error; a document whose
    aliases expand past MAX_EXPANDED_NODES is an error, found before anything is constructed."""

    def construct_document(self, node: Node) -> Any:
        """Refuse an alias bomb, then construct as SafeLoader does (every loader of vaultmem,
        libyaml's included, constructs through here)."""
        if _expanded_size(node, MAX_EXPANDED_NODES) is None:
            raise yaml.constructor.ConstructorError(
                None,
                None,
                f"aliases expand to more than {MAX_EXPANDED_NODES:,} values, or into themselves "
                "(an alias bomb?); vaultmem does not read it",
                node.start_mark,
            )
        return super().construct_document(node)

    def construct_mapping(self, node: MappingNode, deep: bool = False) -> dict[Any, Any]:
        """Build a mapping; scalar keys keep their text (Obsidian keys are strings)."""
        seen: dict[str, yaml.Mark] = {}
        for key_node, _ in node.value:
            if isinstance(key_node, ScalarNode) and key_node.tag != "tag:yaml.org,2002:merge":
                if key_node.value in seen:
                    raise yaml.constructor.ConstructorError(
                        "while constructing a mapping",
                        node.start_mark,
                        f"found duplicate key '{key_node.value}'",
                        key_node.start_mark,
                    )
                seen[key_node.value] = key_node.start_mark
        self.flatten_mapping(node)
        mapping: dict[Any, Any] = {}
        for key_node, value_node in node.value:
            if isinstance(key_node, ScalarNode):
                key: Any = key_node.value
            else:
                key = self.construct_object(key_node, deep=deep)
                try:
                    hash(key)
                except TypeError as err:
                    raise yaml.constructor.ConstructorError(
                        "while constructing a mapping",
                        node.start_mark,
                        f"found unhashable key ({err})",
                        key_node.start_mark,
                    ) from None
            mapping[key] = self.construct_object(value_node, deep=deep)
        return mapping

    def construct_lenient_timestamp(self, node: ScalarNode) -> Any:
        """A timestamp-shaped scalar that is not a real date (2026-13-45) stays text."""
        try:
            return self.construct_yaml_timestamp(node)
        except ValueError:
            return self.construct_scalar(node)


def _without(tags: set[str]) -> dict[Any, list[tuple[str, re.Pattern[str]]]]:
    return {
        first: [(tag, rx) for tag, rx in resolvers if tag not in tags]
        for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
    }


# Obsidian reads YAML 1.2-style: only true/false are booleans and there is no base-60 number.
# Everything else keeps PyYAML's YAML 1.1 reading. The resolvers only ever *shrink* PyYAML's, so
# a string PyYAML's dumper leaves unquoted can never be read back as something else.
ObsidianLoader.yaml_implicit_resolvers = _without({_BOOL, _INT, _FLOAT})
ObsidianLoader.add_implicit_resolver(
    _BOOL, re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF")
)
ObsidianLoader.add_implicit_resolver(
    _INT,
    re.compile(
        r"""^(?:[-+]?0b[0-1_]+
        |[-+]?0[0-7_]+
        |[-+]?(?:0|[1-9][0-9_]*)
        |[-+]?0x[0-9a-fA-F_]+)$""",
        re.VERBOSE,
    ),
    list("-+0123456789"),
)
ObsidianLoader.add_implicit_resolver(
    _FLOAT,
    re.compile(
        r"""^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?
        |\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?
        |[-+]?\.(?:inf|Inf|INF)
        |\.(?:nan|NaN|NAN))$""",
        re.VERBOSE,
    ),
    list("-+0123456789."),
)
ObsidianLoader.add_constructor(_TIMESTAMP, ObsidianLoader.construct_lenient_timestamp)


def _compose(loader_class: type[Any], yaml_text: str) -> tuple[Node | None, Any]:
    loader = loader_class(yaml_text)
    try:
        node = loader.get_single_node()
        data = loader.construct_document(node) if node is not None else None
    finally:
        loader.dispose()
    return node, data


try:
    from yaml.cyaml import CParser  # type: ignore[attr-defined,unused-ignore]
except ImportError:  # pragma: no cover - PyYAML built without libyaml
    _FastLoader: type[Any] | None = None
else:

    class _CLoader(CParser, ObsidianLoader):  # type: ignore[misc,unused-ignore]
        """ObsidianLoader's resolvers and constructors over libyaml's parser (~10x faster)."""

        def __init__(self, stream: str) -> None:
            CParser.__init__(self, stream)
            SafeConstructor.__init__(self)
            Resolver.__init__(self)

    _FastLoader = _CLoader

# libyaml and PyYAML's own parser disagree at the edges: libyaml accepts some things PyYAML
# refuses (a `?` or a tag in odd places, tabs, a BOM, `|#`), differs on a few node positions in
# flow collections, and crashes on nesting deep enough to make PyYAML raise RecursionError. So
# libyaml only reads frontmatter in a subset where the two were fuzzed to agree (node kinds,
# positions, styles, values): block style, no flow brackets, tags, anchors, complex keys, block
# scalars, directives, escapes, tabs, CRs or special line breaks, and shallow lines.
# Everything else, and anything libyaml refuses, goes through PyYAML, so results and error
# messages are PyYAML's in every case.
# (A set, not a regex: a class spanning the code points took 5 ms to compile at every start-up.
# Lone surrogates, the rest of the non-printable set, are caught by encoding.)
_NOT_FAST_CHARS = frozenset(
    [chr(c) for first, last in ((0x00, 0x09), (0x0B, 0x1F), (0x7F, 0x9F)) for c in range(first, last + 1)]
    + list("\u2028\u2029\ufeff\ufffe\uffff!&*?|>[]{}%@`\\")
)
_FAST_MAX_LINE_DEPTH = 30  # indentation + '-' + ':' on one line: a bound of its nesting
# A line that is a key or a list item whose whole value is a double-quoted string without escapes
# (Obsidian's `up: "[[Note|alias]]"`, `  - "[[Note]]"`): inside the quotes the indicators above
# are plain characters to both parsers, so the check does not count them there.
_QUOTED_VALUE_LINE = re.compile(r'^([A-Za-z_][\w-]*:[ ]+| *- )"([^"\\\n]*)"(?=[ ]*$)', re.MULTILINE)
_INDICATORS = str.maketrans(dict.fromkeys("!&*?|>[]{}%@`", "x"))


def _fast_ok(yaml_text: str) -> bool:
    if _FastLoader is None:
        return False
    if '"' in yaml_text:
        yaml_text = _QUOTED_VALUE_LINE.sub(
            lambda m: f'{m.group(1)}"{m.group(2).translate(_INDICATORS)}"', yaml_text
        )
    if not _NOT_FAST_CHARS.isdisjoint(yaml_text):
        return False
    try:
        yaml_text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return all(
        len(line) - len(line.lstrip(" ")) + line.count("-") + line.count(":")
        <= _FAST_MAX_LINE_DEPTH
        for line in yaml_text.split("\n")
    )


@functools.lru_cache(maxsize=64)
def _load_nodes(yaml_text: str) -> tuple[Node | None, Any]:
    """Compose and construct with ObsidianLoader; the node keeps every position for edits.

    Cached by text: an edit reads the frontmatter it verified as the next edit's input, and the
    section patches of a note leave its frontmatter as it was. Callers never mutate the result
    (``parse`` hands out copies).
    """
    if _FastLoader is not None and _fast_ok(yaml_text):
        try:
            return _compose(_FastLoader, yaml_text)
        except (yaml.YAMLError, RecursionError):
            pass  # PyYAML decides, and words the error
    return _compose(ObsidianLoader, yaml_text)


def _copy(value: Any) -> Any:
    """A copy of loaded YAML data that shares no list or dict with the cache."""
    if isinstance(value, dict):
        return {key: _copy(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_copy(item) for item in value]
    return value


class ObsidianYAMLHandler(YAMLHandler):
    """python-frontmatter handler: vaultmem's fences, ObsidianLoader for the YAML."""

    def detect(self, text: str) -> bool:
        """True when the text has frontmatter by :func:`split`'s rules."""
        return split(text).has_frontmatter

    def split(self, text: str) -> tuple[str, str]:
        """(YAML text, body) by :func:`split`'s rules."""
        parts = split(text)
        return parts.yaml_text, parts.body

    def load(self, fm: str, **kwargs: object) -> Any:
        """Read YAML text with ObsidianLoader."""
        return _copy(_load_nodes(fm)[1])


HANDLER = ObsidianYAMLHandler()


def _lines(text: str) -> list[str]:
    """Lines with their "\\n"; only "\\n" breaks a line (str.splitlines also breaks on \\x85...)."""
    parts = text.split("\n")
    lines = [part + "\n" for part in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines


def _line_of(yaml_text: str, index: int) -> int:
    """0-based line of a character offset, counting only "\\n" like the rest of vaultmem."""
    return yaml_text.count("\n", 0, max(0, min(index, len(yaml_text))))


def _invalid(err: Exception, parts: Split, path: str | None) -> InvalidYaml:
    """Turn a PyYAML error into InvalidYaml naming the 1-based line of the file."""
    yaml_text = parts.yaml_text
    line: int | None = None
    message = str(err)
    if isinstance(err, yaml.MarkedYAMLError):
        index: int | None = None
        for mark in (err.problem_mark, err.context_mark):
            # "End of stream" points past the text: the opening quote or bracket (the
            # context) is where a person has to look, else the last line with text.
            if mark is not None and yaml_text[mark.index :].strip():
                index = mark.index
                break
        if index is None and (err.problem_mark or err.context_mark):
            index = len(yaml_text.rstrip())
        if index is not None:
            line = parts.yaml_start + _line_of(yaml_text, index) + 1
        message = ", ".join(part for part in (err.context, err.problem) if part)
    elif isinstance(err, yaml.reader.ReaderError):
        line = parts.yaml_start + _line_of(yaml_text, err.position) + 1
        message = f"unacceptable character #x{err.character:04x}"
    elif isinstance(err, RecursionError):
        message = "nested too deeply"
    return InvalidYaml(f"invalid YAML in frontmatter: {message}", path=path, line=line)


class _Doc:
    """A note's frontmatter, loaded, with positions for surgical edits."""

    # A plain class, not a dataclass (as _Span): creating a dataclass costs about a millisecond
    # at import, and every hook imports this module.
    __slots__ = ("data", "lines", "parts", "root", "spans")

    def __init__(
        self, lines: list[str], parts: Split, root: MappingNode | None, data: dict[str, Any]
    ) -> None:
        self.lines = lines
        self.parts = parts
        self.root = root  # None when the frontmatter is empty (or absent)
        self.data = data
        self.spans: list[_Span] | None = None  # read once, by _spans


def _load(text: str, path: str | None) -> _Doc:
    parts = split(text)
    lines = _lines(text)
    if not parts.has_frontmatter:
        return _Doc(lines, parts, None, {})
    try:
        node, data = _load_nodes(parts.yaml_text)
    except (yaml.YAMLError, RecursionError) as err:
        raise _invalid(err, parts, path) from None
    if node is None:
        return _Doc(lines, parts, None, {})
    if not isinstance(node, MappingNode) or not isinstance(data, dict):
        kind = "a list" if isinstance(node, SequenceNode) else "a single value"
        raise InvalidYaml(
            f"frontmatter is {kind}, not a mapping of properties",
            path=path,
            line=parts.yaml_start + _line_of(parts.yaml_text, node.start_mark.index) + 1,
        )
    return _Doc(lines, parts, node, data)


def parse(text: str, *, path: str | None = None) -> dict[str, Any]:
    """The frontmatter as a dict, read the way Obsidian reads it; {} when there is none."""
    data = _data(text, path)
    return {} if data is None else cast("dict[str, Any]", _copy(data))


def _data(text: str, path: str | None) -> dict[str, Any] | None:
    """The frontmatter mapping as cached (never to be mutated); None when there is none."""
    parts = split(text)
    if not parts.has_frontmatter:
        return None
    try:
        data = _load_nodes(parts.yaml_text)[1]
    except (yaml.YAMLError, RecursionError) as err:
        raise _invalid(err, parts, path) from None
    if data is None:
        return None
    if not isinstance(data, dict):
        _load(text, path)  # raises InvalidYaml naming the node's line
    return cast("dict[str, Any]", data)


def parse_value(raw: str) -> Any:
    """A CLI VALUE: a YAML scalar or flow list (`42`, `true`, `[a, b]`, `2026-11-22`), else the raw text."""
    stripped = raw.strip()
    # "[[Note]]" is a wikilink, not a list in a list; "#tag" would be a YAML comment.
    if not stripped or stripped.startswith("[["):
        return raw
    try:
        value = yaml.load(raw, Loader=ObsidianLoader)
    except (yaml.YAMLError, RecursionError):
        return raw
    if isinstance(value, dict):
        return raw
    if value is None and stripped not in _NULL_WORDS:
        return raw
    # A plain string keeps exactly what was typed (YAML would drop "# ..." and fold lines).
    if isinstance(value, str) and stripped[0] not in "'\"":
        return raw
    return value


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
        lines = [" " * indent + line for line in _lines(variant)]
        if not any(_FENCE_LIKE.fullmatch(line.rstrip("\n")) for line in lines):
            yield lines


def _item_emission(item: Any, *, flat: bool, column: int) -> list[str]:
    """Lines of one block-list item whose `-` sits at `column`."""
    text = _dump([item], flat=flat)
    return [" " * column + line for line in _lines(text)]


def _flow_item(item: Any) -> str:
    """One item as written inside `[...]`."""
    return _dump([item], flat=False, flow=True).strip()[1:-1]


# --- positions --------------------------------------------------------------------------------


class _Span:
    """A top-level key's lines in the file: [start, end), 0-based, plus what is on its key line."""

    __slots__ = ("comment", "end", "key", "key_node", "start", "value_node")

    def __init__(
        self, key: str, start: int, end: int, key_node: Node, value_node: Node, comment: str
    ) -> None:
        self.key = key
        self.start = start
        self.end = end
        self.key_node = key_node
        self.value_node = value_node
        self.comment = comment  # a trailing "  # comment" of the key line, kept across edits


def _content_end(node: Node) -> int:
    """Last character offset that belongs to the value (trailing comments and blanks excluded)."""
    if isinstance(node, ScalarNode):
        return node.end_mark.index if node.style not in ("|", ">") else node.start_mark.index
    if isinstance(node, SequenceNode) and not node.flow_style and node.value:
        return _content_end(node.value[-1])
    if isinstance(node, MappingNode) and not node.flow_style and node.value:
        return _content_end(node.value[-1][1])
    return node.end_mark.index


def _spans(doc: _Doc) -> list[_Span]:
    """The top-level keys' spans, read on first use (an edit looks them up several times)."""
    if doc.spans is None:
        doc.spans = _read_spans(doc)
    return doc.spans


def _read_spans(doc: _Doc) -> list[_Span]:
    if doc.root is None:
        return []
    yaml_text = doc.parts.yaml_text
    offset = doc.parts.yaml_start
    yaml_end = doc.parts.body_start - 1  # the closing fence line
    pairs = doc.root.value
    starts = [offset + _line_of(yaml_text, k.start_mark.index) for k, _ in pairs]
    spans = []
    for i, (key_node, value_node) in enumerate(pairs):
        start = starts[i]
        end = starts[i + 1] if i + 1 < len(pairs) else yaml_end
        floor = max(start, offset + _line_of(yaml_text, _content_end(value_node)))
        # Blank lines and column-0 comments after the value belong to no key: they stay.
        while end - 1 > floor and (
            not doc.lines[end - 1].strip() or doc.lines[end - 1].startswith("#")
        ):
            end -= 1
        key_line = doc.lines[start].rstrip("\n")
        comment = ""
        value_line = offset + _line_of(yaml_text, value_node.end_mark.index)
        if value_line == start and not isinstance(value_node, MappingNode):
            col = _column(yaml_text, value_node.end_mark.index)
            match = re.fullmatch(r"(\s+#.*)", key_line[col:])
            comment = match.group(1) if match else ""
        elif offset + _line_of(yaml_text, value_node.start_mark.index) > start:
            col = _column(yaml_text, key_node.end_mark.index)
            match = re.fullmatch(r"\s*:(\s+#.*)", key_line[col:])
            comment = match.group(1) if match else ""
        key = key_node.value if isinstance(key_node, ScalarNode) else ""
        spans.append(_Span(key, start, end, key_node, value_node, comment))
    return spans


def _find(doc: _Doc, key: str) -> _Span | None:
    for span in _spans(doc):
        if isinstance(span.key_node, ScalarNode) and span.key == key:
            return span
    return None


def _root_indent(doc: _Doc) -> int:
    if doc.root is None or not doc.root.value:
        return 0
    return _column(doc.parts.yaml_text, doc.root.value[0][0].start_mark.index)


def _column(yaml_text: str, index: int) -> int:
    """0-based column of a character offset, counting lines the way vaultmem does."""
    return index - (yaml_text.rfind("\n", 0, index) + 1)


def _node_column(doc: _Doc, node: Node) -> int:
    return _column(doc.parts.yaml_text, int(node.start_mark.index))


def _flat_list(doc: _Doc, span: _Span) -> bool | None:
    """True for `- item` at the key's column, False for indented items, None if not a block list."""
    node = span.value_node
    if isinstance(node, SequenceNode) and not node.flow_style and node.value:
        return _node_column(doc, node) == _node_column(doc, span.key_node)
    return None


def _note_flat_style(doc: _Doc) -> bool:
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
            if _same_dict(_data(candidate, None) or {}, expected):
                return candidate
        except InvalidYaml:
            continue
    raise InvalidYaml(
        f"cannot edit property '{key}' without rewriting other lines "
        "(flow-style or unusual frontmatter)",
        path=path,
    )


def _replaced(doc: _Doc, start: int, end: int, new_lines: list[str]) -> str:
    return "".join(doc.lines[:start] + new_lines + doc.lines[end:])


def _with_comment(lines: list[str], comment: str) -> list[str] | None:
    """The emission with the old key line's trailing comment, when its first line can take one."""
    first = lines[0].rstrip("\n")
    if not comment or (len(lines) > 1 and not first.endswith(":")):
        return None
    return [first + comment + "\n", *lines[1:]]


def _set(doc: _Doc, key: str, value: Any, path: str | None, *, flow: bool = False) -> str:
    expected = dict(doc.data)
    expected[key] = value
    return _first_verified(_set_candidates(doc, key, value, flow), expected, path, key)


def _set_candidates(doc: _Doc, key: str, value: Any, flow: bool) -> Iterator[str]:
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
    doc = _load(text, path)
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


def add_to_list(text: str, key: str, value: Any, *, path: str | None = None) -> str:
    """Append one item to a list property (block or flow kept); `text` itself when present."""
    _check_key(key)
    doc = _load(text, path)
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


def _flow_appended(doc: _Doc, node: SequenceNode, item: Any) -> list[str]:
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
    doc = _load(text, path)
    if key not in doc.data:
        return text
    span = _find(doc, key)
    expected = {k: v for k, v in doc.data.items() if k != key}
    candidates = [_replaced(doc, span.start, span.end, [])] if span is not None else []
    return _first_verified(candidates, expected, path, key)
