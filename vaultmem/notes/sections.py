"""Markdown sections from markdown-it-py tokens: the heading tree and its line ranges.

Only top-level headings are sections: a ``#`` line inside a fence, an HTML block, a list item or a
quote is content. Line numbers are 0-based and end-exclusive, like markdown-it's ``Token.map``, and
lines are split on ``"\\n"`` only (``str.splitlines`` also splits on form feeds and friends, which
would disagree with the parser's line numbers).

A note is parsed many times in a row, one edit apart (each patch resolves its heading in the
text the previous patch made), and every compaction parses entity notes made of the same sections.
So a text is parsed in runs of lines cut before each column-0 ATX heading (``## x``), each run
parsed on its own and cached by its text: an edit re-parses only the runs it touched. That is
exact, not a guess: markdown-it starts afresh on the line after a block ends, and such a heading
line ends every block before it except those that run to a closing line (fences, HTML blocks; and,
to stay on the safe side, tables). When a run ends inside one of those, or nests so deep that
markdown-it gives up on the rest of it, it is joined to the next run and parsed again; the front
matter, whose rule looks ahead from the first line to its closing line, is joined the same way
until it is found.

Most runs (a work-log entry, a ``## Key Decisions`` list) hold only paragraphs, ``- `` lists and
fenced code: :mod:`plainruns` reads those line by line, for a few percent of the cost of
markdown-it, and hands everything else to markdown-it.
"""

from __future__ import annotations

import functools
import re
import threading
from collections import OrderedDict
from collections.abc import Container, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from vaultmem.errors import AmbiguousHeading, HeadingNotFound
from vaultmem.notes import plainruns

if TYPE_CHECKING:  # markdown-it is imported when a run is not plain (see plainruns)
    from markdown_it import MarkdownIt
    from markdown_it.token import Token


@dataclass(frozen=True)
class Heading:
    """A section: its heading and the line ranges it owns (0-based, end-exclusive)."""

    level: int
    title: str  # inline text as written, stripped; an ATX closing sequence is not part of it
    line: int  # first line of the heading
    body_start: int  # line after the heading (2 lines later for a setext heading)
    own_end: int  # next heading of any level, or the line count
    subtree_end: int  # next heading of level <= this one, or the line count
    path: tuple[str, ...]  # titles of the ancestors and itself


@dataclass(frozen=True)
class Block:
    """A top-level block (level 0 in markdown-it's token stream)."""

    kind: str  # the token type without "_open": "paragraph", "bullet_list", "fence", "heading"...
    start: int  # 0-based first line
    end: int  # end-exclusive; a list's range may include blank lines after it
    tight: bool  # lists only: no blank line between items (False for every other kind)


_Found = tuple[int, str, int, int]  # a heading as parsed: level, title, line, body_start


class _Parsed:
    # Private records here and in frontmatter are plain classes, not dataclasses: creating a
    # dataclass costs about a millisecond at import, and every hook imports these modules.
    __slots__ = ("blocks", "headings")

    def __init__(self, headings: tuple[Heading, ...], blocks: tuple[Block, ...]) -> None:
        self.headings = headings
        self.blocks = blocks


MAX_NESTING = 400


@functools.lru_cache(maxsize=1)
def _parser() -> MarkdownIt:
    # Built once per process: sections are on hot paths (every patch resolves a heading).
    from markdown_it import MarkdownIt
    from mdit_py_plugins.front_matter import front_matter_plugin

    md = MarkdownIt("commonmark").use(front_matter_plugin).enable(["table", "strikethrough"])
    # Titles are the inline tokens' raw content; parsing inline markup would only cost time.
    md.disable("inline")
    # Past maxNesting markdown-it stops reading blocks, so every heading after a list nested
    # that deep would vanish. CommonMark's 20 is hit by a 10-deep list; 400 (about 200 list
    # levels) stays inside Python's recursion limit; deeper still hides, never crashes.
    md.options["maxNesting"] = MAX_NESTING
    return md


def line_count(text: str) -> int:
    """Number of lines of ``text`` split on "\\n" (a final newline does not start a new line)."""
    if not text:
        return 0
    return text.count("\n") + (0 if text.endswith("\n") else 1)


def _title(inline: Token) -> str:
    # A setext heading may span several lines; a title is one line.
    return " ".join(part.strip() for part in inline.content.split("\n")).strip()


_ATX_LINES = re.compile(r"^#{1,6}(?:[ \t]|$)", re.MULTILINE)
# Top-level blocks that end for good when the next line is a column-0 ATX heading, even when they
# reach the end of their run. Fences and HTML blocks run on to their closing line; tables are left
# out to stay on the safe side.
_ENDED_BY_HEADING = frozenset(
    {"paragraph", "heading", "bullet_list", "ordered_list", "blockquote", "code_block", "hr",
     "front_matter"}
)


class _Run:
    """The parse of a run of lines on its own (lines relative to the run)."""

    __slots__ = ("blocks", "found", "open_end")

    def __init__(self, blocks: tuple[Block, ...], found: tuple[_Found, ...], open_end: bool) -> None:
        self.blocks = blocks
        self.found = found
        self.open_end = open_end  # its last block reaches its end and may go on past it


class _Lru:
    """A small thread-safe LRU map bounded by entries and by the characters of the keys."""

    def __init__(self, entries: int, chars: int) -> None:
        self._data: OrderedDict[str, object] = OrderedDict()
        self._entries = entries
        self._chars = chars
        self._size = 0
        self._lock = threading.Lock()

    def get(self, key: str) -> object | None:
        with self._lock:
            value = self._data.get(key)
            if value is not None:
                self._data.move_to_end(key)
            return value

    def cache_clear(self) -> None:
        """Forget everything (as functools caches do)."""
        with self._lock:
            self._data.clear()
            self._size = 0

    def put(self, key: str, value: object) -> None:
        with self._lock:
            if key in self._data:
                return
            self._data[key] = value
            self._size += len(key)
            while len(self._data) > self._entries or (self._size > self._chars and self._data):
                old, _ = self._data.popitem(last=False)
                self._size -= len(old)


_TEXTS = _Lru(entries=32, chars=4_000_000)  # whole texts -> _Parsed
_RUNS = _Lru(entries=2048, chars=4_000_000)  # runs of lines -> _Run


def _parse(text: str) -> _Parsed:
    hit = _TEXTS.get(text)
    if isinstance(hit, _Parsed):
        return hit
    # markdown-it treats a lone "\r" as a line break; vaultmem's core does not (a mixed-ending
    # file keeps "\r" as a character), so blank it out to keep line numbers in step.
    clean = text.replace("\r", " ")
    total = line_count(text)
    blocks, found = _scan_runs(clean, total)
    parsed = _assemble(blocks, found, total)
    _TEXTS.put(text, parsed)
    return parsed


def _scan_tokens(tokens: list[Token], offset: int) -> tuple[list[Block], list[_Found]]:
    found: list[_Found] = []
    blocks: list[Block] = []
    for index, token in enumerate(tokens):
        if token.level != 0 or token.map is None or token.nesting == -1:
            continue
        start, end = token.map
        kind = token.type.removesuffix("_open")
        tight = False
        if kind in ("bullet_list", "ordered_list"):
            tight = _is_tight(tokens, index)
        blocks.append(Block(kind=kind, start=start + offset, end=end + offset, tight=tight))
        if token.type == "heading_open":
            found.append(
                (int(token.tag[1:]), _title(tokens[index + 1]), start + offset, end + offset)
            )
    return blocks, found


def _run(text: str) -> _Run:
    """The parse of a run of lines on its own, cached by its text."""
    hit = _RUNS.get(text)
    if isinstance(hit, _Run):
        return hit
    total = line_count(text)
    plain = plainruns.scan(text, total)
    if plain is not None:
        # Paragraphs, "- " lists and fences (most runs), read line by line.
        rows, headings_ = plain
        last = rows[-1] if rows else None
        run = _Run(tuple(Block(*row) for row in rows), tuple(headings_),
                   last is not None and last[2] >= total and last[0] not in _ENDED_BY_HEADING)
    else:
        run = _run_markdown_it(text, total)
    _RUNS.put(text, run)
    return run


def _run_markdown_it(text: str, total: int) -> _Run:
    tokens = _parser().parse(text)
    blocks, found = _scan_tokens(tokens, 0)
    last = blocks[-1] if blocks else None
    open_end = (
        last is not None and last.end >= total and last.kind not in _ENDED_BY_HEADING
    ) or any(token.level >= MAX_NESTING - 2 for token in tokens)
    # (Nested past maxNesting, markdown-it skips to the end of what it parses: the end of the
    # run here, the end of the note in the whole text. Such a run is joined to the next.)
    return _Run(tuple(blocks), tuple(found), open_end)


def _scan_runs(clean: str, total: int) -> tuple[list[Block], list[_Found]]:
    """The top-level blocks and headings of ``clean``, run by run (see the module docstring)."""
    # Where runs may start: (character offset, line) of every column-0 ATX line but the first.
    offsets = [0]
    lines = [0]
    line = pos = 0
    for match in _ATX_LINES.finditer(clean):
        at = match.start()
        if at:
            line += clean.count("\n", pos, at)
            pos = at
            offsets.append(at)
            lines.append(line)
    offsets.append(len(clean))
    lines.append(total)
    last = len(offsets) - 1
    # Front matter is open until its first block says it closed (its rule looks ahead from line 1).
    front_open = clean.startswith("-")
    blocks: list[Block] = []
    found: list[_Found] = []
    i = 0
    while i < last:
        j = i + 1
        step = 1
        while True:
            run = _run(clean[offsets[i] : offsets[j]])
            if j == last:
                break
            # A run still open (an unclosed <!-- or fence) grows by doubling, not heading by
            # heading: 8,000 headings after an unclosed comment re-parsed a growing run 8,000
            # times (34 s). Any end where the run is closed splits as the whole text would.
            step *= 2
            if front_open and not (run.blocks and run.blocks[0].kind == "front_matter"):
                j = min(i + step, last)
                continue
            front_open = False
            if not run.open_end:
                break
            j = min(i + step, last)
        start = lines[i]
        blocks.extend(Block(b.kind, b.start + start, b.end + start, b.tight) for b in run.blocks)
        found.extend((level, title, at + start, body + start)
                     for level, title, at, body in run.found)
        i = j
    return blocks, found


def _assemble(blocks: list[Block], found: list[_Found], total: int) -> _Parsed:
    """Headings with their ranges and paths, from the top-level blocks and headings."""
    # subtree_end: the next heading of level <= this one, found with a monotonic stack from the
    # right so a 60,000-line note with thousands of headings stays linear.
    subtree_ends = [total] * len(found)
    pending: list[tuple[int, int]] = []  # (level, line) of headings to the right
    for index in range(len(found) - 1, -1, -1):
        level, _, line, _ = found[index]
        while pending and pending[-1][0] > level:
            pending.pop()
        if pending:
            subtree_ends[index] = pending[-1][1]
        pending.append((level, line))

    result: list[Heading] = []
    ancestors: list[tuple[int, str]] = []
    for index, (level, title, line, body_start) in enumerate(found):
        while ancestors and ancestors[-1][0] >= level:
            ancestors.pop()
        ancestors.append((level, title))
        own_end = found[index + 1][2] if index + 1 < len(found) else total
        result.append(
            Heading(
                level=level,
                title=title,
                line=line,
                body_start=body_start,
                own_end=own_end,
                subtree_end=subtree_ends[index],
                path=tuple(name for _, name in ancestors),
            )
        )
    return _Parsed(headings=tuple(result), blocks=tuple(blocks))


def _is_tight(tokens: list[Token], open_index: int) -> bool:
    # markdown-it hides the paragraphs of a tight list's items; a loose list shows them.
    depth = 0
    item_level = tokens[open_index].level + 2
    for index in range(open_index, len(tokens)):  # no slice: a copy per list would be quadratic
        token = tokens[index]
        depth += token.nesting
        if token.type == "paragraph_open" and token.level == item_level and not token.hidden:
            return False
        if depth == 0:
            break
    return True


def headings(text: str) -> list[Heading]:
    """The sections of ``text`` in document order (top-level headings only)."""
    return list(_parse(text).headings)


def blocks(text: str) -> list[Block]:
    """The top-level blocks of ``text`` in document order (front matter included)."""
    return list(_parse(text).blocks)


def parse_path(spec: str) -> tuple[str, ...]:
    """Split a CLI heading spec: ``"Parent::Child"`` -> ``("Parent", "Child")``; empty parts dropped."""
    return tuple(part.strip() for part in spec.split("::") if part.strip())


def _spec(path: Sequence[str]) -> str:
    return "::".join(path)


def _matches(found: Sequence[Heading], path: tuple[str, ...]) -> list[Heading]:
    size = len(path)
    exact = [h for h in found if len(h.path) >= size and h.path[-size:] == path]
    if exact:
        return exact
    folded = tuple(part.casefold() for part in path)
    return [
        h
        for h in found
        if len(h.path) >= size and tuple(part.casefold() for part in h.path[-size:]) == folded
    ]


# How a heading path that matches several sections is taken. "only": AmbiguousHeading listing
# them (a person's `patch` must say which). "first": the first of them, in document order
# (vaultmem's own writers and readers: a duplicate heading a person pasted must not stop the
# memory; callers warn with `matching`).
Prefer = Literal["only", "first"]


def matching(text: str, path: Sequence[str]) -> list[Heading]:
    """Every heading whose path ends with ``path`` (exact case, else any case), in order."""
    wanted = tuple(path)
    return _matches(_parse(text).headings, wanted) if wanted else []


def find(
    text: str, path: Sequence[str], *, file: str | None = None, prefer: Prefer = "only"
) -> Heading | None:
    """The heading whose path ends with ``path`` or None; when several match, AmbiguousHeading
    (``prefer="only"``) or the first of them (``prefer="first"``)."""
    candidates = matching(text, path)
    if len(candidates) > 1 and prefer == "only":
        wanted = tuple(path)
        listed = "; ".join(f"{' > '.join(h.path)} (line {h.line + 1})" for h in candidates)
        raise AmbiguousHeading(
            f"matches {len(candidates)} headings: {listed}; give a longer path (Parent::Child)",
            path=file,
            heading=_spec(wanted),
        )
    return candidates[0] if candidates else None


def resolve(
    text: str, path: Sequence[str], *, file: str | None = None, prefer: Prefer = "only"
) -> Heading:
    """The one heading whose path ends with ``path`` (exact case first, then any case)."""
    found = find(text, path, file=file, prefer=prefer)
    if found is None:
        message = "empty heading path" if not tuple(path) else "no such heading"
        raise HeadingNotFound(message, path=file, heading=_spec(path))
    return found


def under(heads: Sequence[Heading], line: int, starts: Container[int]) -> bool:
    """Whether ``line`` (0-based) is in the body of one of ``heads`` starting at ``starts``."""
    return any(h.line in starts and h.body_start <= line < h.subtree_end for h in heads)
