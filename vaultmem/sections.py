"""Markdown sections from markdown-it-py tokens: the heading tree and its line ranges.

Only top-level headings are sections: a ``#`` line inside a fence, an HTML block, a list item or a
quote is content. Line numbers are 0-based and end-exclusive, like markdown-it's ``Token.map``, and
lines are split on ``"\\n"`` only (``str.splitlines`` also splits on form feeds and friends, which
would disagree with the parser's line numbers).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass

from markdown_it import MarkdownIt
from markdown_it.token import Token
from mdit_py_plugins.front_matter import front_matter_plugin

from .errors import AmbiguousHeading, HeadingNotFound


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


@dataclass(frozen=True)
class _Parsed:
    headings: tuple[Heading, ...]
    blocks: tuple[Block, ...]


@functools.lru_cache(maxsize=1)
def _parser() -> MarkdownIt:
    # Built once per process: sections are on hot paths (every patch resolves a heading).
    md = MarkdownIt("commonmark").use(front_matter_plugin).enable(["table", "strikethrough"])
    # Titles are the inline tokens' raw content; parsing inline markup would only cost time.
    md.disable("inline")
    return md


def line_count(text: str) -> int:
    """Number of lines of ``text`` split on "\\n" (a final newline does not start a new line)."""
    if not text:
        return 0
    return text.count("\n") + (0 if text.endswith("\n") else 1)


def _title(inline: Token) -> str:
    # A setext heading may span several lines; a title is one line.
    return " ".join(part.strip() for part in inline.content.split("\n")).strip()


@functools.lru_cache(maxsize=8)
def _parse(text: str) -> _Parsed:
    # markdown-it treats a lone "\r" as a line break; vaultmem's core does not (a mixed-ending
    # file keeps "\r" as a character), so blank it out to keep line numbers in step.
    tokens = _parser().parse(text.replace("\r", " "))
    found: list[tuple[int, str, int, int]] = []  # level, title, line, body_start
    blocks: list[Block] = []
    for index, token in enumerate(tokens):
        if token.level != 0 or token.map is None or token.nesting == -1:
            continue
        start, end = token.map
        kind = token.type.removesuffix("_open")
        tight = False
        if kind in ("bullet_list", "ordered_list"):
            tight = _is_tight(tokens, index)
        blocks.append(Block(kind=kind, start=start, end=end, tight=tight))
        if token.type == "heading_open":
            found.append((int(token.tag[1:]), _title(tokens[index + 1]), start, end))

    total = line_count(text)
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


def find(text: str, path: Sequence[str], *, file: str | None = None) -> Heading | None:
    """The heading whose path ends with ``path`` or None; AmbiguousHeading when several match."""
    wanted = tuple(path)
    if not wanted:
        return None
    candidates = _matches(_parse(text).headings, wanted)
    if len(candidates) > 1:
        listed = "; ".join(f"{' > '.join(h.path)} (line {h.line + 1})" for h in candidates)
        raise AmbiguousHeading(
            f"matches {len(candidates)} headings: {listed}; give a longer path (Parent::Child)",
            path=file,
            heading=_spec(wanted),
        )
    return candidates[0] if candidates else None


def resolve(text: str, path: Sequence[str], *, file: str | None = None) -> Heading:
    """The one heading whose path ends with ``path`` (exact case first, then any case)."""
    found = find(text, path, file=file)
    if found is None:
        message = "empty heading path" if not tuple(path) else "no such heading"
        raise HeadingNotFound(message, path=file, heading=_spec(path))
    return found
