"""YAML frontmatter: split, read the way Obsidian reads it, and loaded with positions for edits.

Reading goes through :class:`ObsidianLoader` (a SafeLoader that reads YAML 1.1's ``yes``/``no``/``on``/``off`` and
sexagesimal ``10:00`` as strings, like Obsidian does, and refuses duplicate keys). The frontmatter
boundary is decided by :func:`split` alone, and the handler's ``split`` delegates to it, so the
library and python-frontmatter never disagree on what is frontmatter (its own regex would accept
``----`` and a body-less ``---`` pair differently). Editing one key at a time is ``propedit``.

Decisions:
- Fences: `---` (trailing blanks allowed) on line 1, closed by `---` or `...` at column 0; an
  unclosed `---` is body.
- Duplicate keys are invalid YAML here (YAML 1.2 and Obsidian reject them, and an edit could not
  know which one to change).
"""

from __future__ import annotations

import functools
import re
from typing import Any, cast

import yaml
from yaml.constructor import SafeConstructor
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode
from yaml.resolver import Resolver

from vaultmem.errors import InvalidYaml
from vaultmem.notes.fences import Split, split
from vaultmem.notes.lazyre import lazy

__all__ = [
    "Doc",
    "ObsidianLoader",
    "Span",
    "Split",
    "cached_data",
    "line_of",
    "load",
    "load_yaml",
    "parse",
    "parse_value",
    "split",
    "split_lines",
]

_BOOL = "tag:yaml.org,2002:bool"
_INT = "tag:yaml.org,2002:int"
_FLOAT = "tag:yaml.org,2002:float"
_TIMESTAMP = "tag:yaml.org,2002:timestamp"

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
_QUOTED_VALUE_LINE = lazy(r'^([A-Za-z_][\w-]*:[ ]+| *- )"([^"\\\n]*)"(?=[ ]*$)', re.MULTILINE)
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


def load_yaml(yaml_text: str) -> Any:
    """The YAML text of a frontmatter read with :class:`ObsidianLoader` (a copy: free to change);
    what python-frontmatter's handler (``fmhandler``) gives."""
    return _copy(_load_nodes(yaml_text)[1])


def split_lines(text: str) -> list[str]:
    """Lines with their "\\n"; only "\\n" breaks a line (str.splitlines also breaks on \\x85...)."""
    parts = text.split("\n")
    lines = [part + "\n" for part in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines


def line_of(yaml_text: str, index: int) -> int:
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
            line = parts.yaml_start + line_of(yaml_text, index) + 1
        message = ", ".join(part for part in (err.context, err.problem) if part)
    elif isinstance(err, yaml.reader.ReaderError):
        line = parts.yaml_start + line_of(yaml_text, err.position) + 1
        message = f"unacceptable character #x{err.character:04x}"
    elif isinstance(err, RecursionError):
        message = "nested too deeply"
    return InvalidYaml(f"invalid YAML in frontmatter: {message}", path=path, line=line)


class Doc:
    """A note's frontmatter, loaded, with positions for surgical edits."""

    # A plain class, not a dataclass (as Span): creating a dataclass costs about a millisecond
    # at import, and every hook imports this module.
    __slots__ = ("data", "lines", "parts", "root", "spans")

    def __init__(
        self, lines: list[str], parts: Split, root: MappingNode | None, data: dict[str, Any]
    ) -> None:
        self.lines = lines
        self.parts = parts
        self.root = root  # None when the frontmatter is empty (or absent)
        self.data = data
        self.spans: list[Span] | None = None  # read once, by propedit._spans


def load(text: str, path: str | None) -> Doc:
    """The note's frontmatter loaded with its lines and nodes; InvalidYaml when it is invalid
    or not a mapping of properties."""
    parts = split(text)
    lines = split_lines(text)
    if not parts.has_frontmatter:
        return Doc(lines, parts, None, {})
    try:
        node, data = _load_nodes(parts.yaml_text)
    except (yaml.YAMLError, RecursionError) as err:
        raise _invalid(err, parts, path) from None
    if node is None:
        return Doc(lines, parts, None, {})
    if not isinstance(node, MappingNode) or not isinstance(data, dict):
        kind = "a list" if isinstance(node, SequenceNode) else "a single value"
        raise InvalidYaml(
            f"frontmatter is {kind}, not a mapping of properties",
            path=path,
            line=parts.yaml_start + line_of(parts.yaml_text, node.start_mark.index) + 1,
        )
    return Doc(lines, parts, node, data)


def parse(text: str, *, path: str | None = None) -> dict[str, Any]:
    """The frontmatter as a dict, read the way Obsidian reads it; {} when there is none."""
    data = cached_data(text, path)
    return {} if data is None else cast("dict[str, Any]", _copy(data))


def cached_data(text: str, path: str | None) -> dict[str, Any] | None:
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
        load(text, path)  # raises InvalidYaml naming the node's line
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


class Span:
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
