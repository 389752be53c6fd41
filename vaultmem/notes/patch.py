"""Pure text edits: a section patch or a frontmatter key edit applied to a note's text.

Edits slice the original lines; nothing is re-rendered, and every line outside the touched region
keeps its bytes. Inside the touched region vaultmem owns whitespace: one blank line between the
heading and its body, between blocks and before the next heading, and one final newline when the
region reaches the end of the file. A list item added next to a tight list joins it.

A missing top-level heading (``create=True``) is created at the level of the note's top-level
sections: a single H1 is taken as the note's title, so its sibling sections' level is used (H2
when it has none); a note without headings gets an H2. It goes at the end of the file, so an H1
title still contains it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from vaultmem.errors import HeadingNotFound, InvalidYaml
from vaultmem.notes import frontmatter, propedit, sections
from vaultmem.notes.lazyre import lazy
from vaultmem.notes.sections import Heading

Op = Literal["append", "prepend", "replace"]

CONFLICT_PROPERTY = "conflicted"
CONFLICT_HEADING = "Claude's Updates (conflicted)"

_LISTS = ("bullet_list", "ordered_list")
# A line markdown-it reads as a `-` list item (compaction's lines, backlinks, most hand-written
# items): `- ` then a word character or `[`, no CR. Its first `|` cell holds more than dashes, so
# it is never a table's delimiter row, and lines like it after one another are one tight bullet
# list; only a delimiter row after it could make it a table header instead.
_PLAIN_ITEM = lazy(r"- [\w\[][^\r]*")
_BLANK = lazy(r"[ \t\r]*")  # blank to markdown-it (sections reads a CR as a space)
_MAX_LEVEL = 6


@dataclass(frozen=True)
class SectionPatch:
    """Put ``content`` into the section at ``heading`` (a path of titles)."""

    heading: tuple[str, ...]
    op: Op
    content: str
    subtree: bool = False  # append after the subsections instead of before the first one
    create: bool = False  # create the heading when missing (under the resolved parent)
    # "first": a path matching several sections writes under the first and warns (vaultmem's own
    # writers); "only": AmbiguousHeading (a person's `vaultmem patch` says which it means).
    prefer: sections.Prefer = "only"


@dataclass(frozen=True)
class SetProperty:
    """Set a frontmatter key."""

    key: str
    value: Any


@dataclass(frozen=True)
class AddToProperty:
    """Add a value to a frontmatter list (no-op when present)."""

    key: str
    value: Any


@dataclass(frozen=True)
class DeleteProperty:
    """Remove a frontmatter key."""

    key: str


@dataclass(frozen=True)
class Rewrite:
    """The whole text replaced by ``fn(text)``. ``fn`` computes its change from the text it is
    given (a pure function), so the edit is re-applied to a note a person changed meanwhile
    like an append is: compaction rewrites an entity in one pass this way (one parse, one write)."""

    fn: Callable[[str], str]


Edit = SectionPatch | SetProperty | AddToProperty | DeleteProperty | Rewrite


@dataclass(frozen=True)
class Applied:
    """What an edit did."""

    text: str
    changed: bool
    created: tuple[str, ...]  # titles of the headings created, outermost first
    warnings: tuple[str, ...] = ()  # e.g. a heading path that matched several sections


def apply(text: str, edit: Edit, *, file: str | None = None) -> Applied:
    """Apply one edit to ``text`` (pure); ``file`` only names the note in errors."""
    if isinstance(edit, SectionPatch):
        return _apply_section(text, edit, file)
    if isinstance(edit, Rewrite):
        new = edit.fn(text)
        return Applied(text=new, changed=new != text, created=())
    try:
        if isinstance(edit, SetProperty):
            new = propedit.set_key(text, edit.key, edit.value, path=file)
        elif isinstance(edit, AddToProperty):
            new = propedit.add_to_list(text, edit.key, edit.value, path=file)
        else:
            new = propedit.delete_key(text, edit.key, path=file)
    except InvalidYaml as err:
        if err.path is None and file is not None:
            raise InvalidYaml(err.message, path=file, line=err.line) from None
        raise
    return Applied(text=new, changed=new != text, created=())


def apply_run(text: str, edits: Sequence[Edit], *, file: str | None = None) -> tuple[Applied, int]:
    """Apply the first of ``edits``, or the run of ``SetProperty`` edits it begins (the text
    they give one after another, read and verified once: ``propedit.set_keys``); and how many
    edits were applied."""
    run = 0
    while run < len(edits) and isinstance(edits[run], SetProperty):
        run += 1
    if run < 2:
        return apply(text, edits[0], file=file), 1
    sets = [edit for edit in edits[:run] if isinstance(edit, SetProperty)]
    try:
        new = propedit.set_keys(text, [(edit.key, edit.value) for edit in sets], path=file)
    except InvalidYaml as err:
        if err.path is None and file is not None:
            raise InvalidYaml(err.message, path=file, line=err.line) from None
        raise
    return Applied(text=new, changed=new != text, created=()), run


def apply_all(text: str, edits: Sequence[Edit], *, file: str | None = None) -> Applied:
    """Apply ``edits`` in order; ``created`` collects every heading created on the way."""
    current = text
    created: list[str] = []
    warnings: list[str] = []
    done = 0
    while done < len(edits):
        step, applied = apply_run(current, edits[done:], file=file)
        done += applied
        current = step.text
        created.extend(step.created)
        warnings.extend(w for w in step.warnings if w not in warnings)
    return Applied(current, current != text, tuple(created), tuple(warnings))


def rebaseable(edit: Edit) -> bool:
    """Whether ``edit`` may be re-applied to text a person changed meanwhile (not a replace)."""
    return not (isinstance(edit, SectionPatch) and edit.op == "replace")


def conflicted(text: str, edit: SectionPatch, *, label: str) -> str:
    """Park ``edit.content`` under ``## Claude's Updates (conflicted)``; other text is untouched."""
    lines, final_nl = _split(text)
    box = next((h for h in sections.headings(text) if h.title == CONFLICT_HEADING), None)
    if box is None:
        lines, final_nl, box = _create_heading(lines, final_nl, 2, CONFLICT_HEADING, 0, len(lines))
    label = " ".join(label.split())
    where = " > ".join(edit.heading)
    title = f"{label} — {where} ({edit.op})" if label else f"{where} ({edit.op})"
    content = _content_lines(edit.content)
    entry = ["#" * min(box.level + 1, _MAX_LEVEL) + " " + title]
    if content:
        entry += [""] + content
    lines, final_nl = _append(lines, final_nl, box.body_start, box.subtree_end, entry)
    out = _join(lines, final_nl)
    # A flat flag Obsidian Bases can filter on (attention.base); a person deletes it with the
    # section. A note without properties is not given any.
    if frontmatter.split(out).has_frontmatter:
        out = propedit.set_key(out, CONFLICT_PROPERTY, True)
    return out


# --- section patches ---------------------------------------------------------------------------


def _apply_section(text: str, edit: SectionPatch, file: str | None) -> Applied:
    content = _content_lines(edit.content)
    created: tuple[str, ...] = ()
    lines, final_nl = _split(text)
    warnings = _ambiguity(text, edit, file)
    try:
        target = sections.resolve(text, edit.heading, file=file, prefer=edit.prefer)
    except HeadingNotFound:
        if not edit.create or not edit.heading:
            raise
        lines, final_nl, target, created = _create_path(text, edit.heading, file, edit.prefer)

    if edit.op in ("append", "prepend") and not content:
        pass  # nothing to add (a created heading still stands)
    elif edit.op == "append":
        end = target.subtree_end if edit.subtree else target.own_end
        # Only the blocks after the last subheading decide whether a list continues.
        tail = max(
            [h.body_start for h in sections.headings(text) if target.line < h.line < end],
            default=target.body_start,
        )
        lines, final_nl = _append(lines, final_nl, target.body_start, end, content, tail)
    elif edit.op == "prepend":
        lines, final_nl = _prepend(lines, final_nl, target, content)
    else:
        end = target.subtree_end if edit.subtree else target.own_end
        middle = [""] + content if content else []
        if end < len(lines):
            middle.append("")
        lines, final_nl = _splice(lines, final_nl, target.body_start, end, middle)
    new = _join(lines, final_nl)
    return Applied(text=new, changed=new != text, created=created, warnings=warnings)


def _ambiguity(text: str, edit: SectionPatch, file: str | None) -> tuple[str, ...]:
    """The warning for a lenient patch whose path (or its parent's) matches several sections."""
    if edit.prefer == "only":
        return ()
    for depth in range(len(edit.heading), 0, -1):
        found = sections.matching(text, edit.heading[:depth])
        if len(found) > 1:
            spec = "::".join(edit.heading[:depth])
            lines = ", ".join(str(h.line + 1) for h in found)
            where = file or "the note"
            warning = (f"{where}: heading '{spec}' appears {len(found)} times (lines {lines}); "
                       "vaultmem wrote under the first")
            return (warning,)
        if found:
            return ()
    return ()


def _append(
    lines: list[str],
    final_nl: bool,
    start: int,
    end: int,
    content: list[str],
    tail: int | None = None,
) -> tuple[list[str], bool]:
    """Add ``content`` after the last non-blank line of ``lines[start:end]``.

    ``tail`` (default ``start``) is where the blocks after the last subheading begin.
    """
    # The body's trailing blank lines are part of the touched region: they are re-laid.
    last = _trim_end(lines, start, end)
    tail = start if tail is None else tail
    joins = last > tail and _starts_list(content) and _ends_in_tight_list(lines, tail, last)
    middle = ([] if joins else [""]) + content
    if end < len(lines):
        middle.append("")
    return _splice(lines, final_nl, last, end, middle)


def _prepend(
    lines: list[str], final_nl: bool, target: Heading, content: list[str]
) -> tuple[list[str], bool]:
    start, end = target.body_start, target.own_end
    first = next((i for i in range(start, end) if lines[i].strip()), None)
    if first is None:
        return _append(lines, final_nl, start, end, content)
    joins = _ends_tight_list_text(content) and _starts_list(lines[first:end])
    middle = [""] + content + ([] if joins else [""])
    return _splice(lines, final_nl, start, first, middle)


def _create_path(
    text: str, path: tuple[str, ...], file: str | None, prefer: sections.Prefer = "only"
) -> tuple[list[str], bool, Heading, tuple[str, ...]]:
    """Create the missing tail of ``path`` under its longest existing prefix."""
    parent: Heading | None = None
    depth = 0
    for depth in range(len(path) - 1, 0, -1):
        parent = sections.find(text, path[:depth], file=file, prefer=prefer)
        if parent is not None:
            break
    else:
        depth = 0
    lines, final_nl = _split(text)
    if parent is None:
        level, floor, end = _root_level(sections.headings(text)), 0, len(lines)
    else:
        level, floor, end = parent.level + 1, parent.body_start, parent.subtree_end
    missing = path[depth:]
    made: Heading | None = None
    for title in missing:
        if level > _MAX_LEVEL:
            raise HeadingNotFound(
                f"cannot create '{title}': Markdown headings stop at level {_MAX_LEVEL}",
                path=file,
                heading="::".join(path),
            )
        lines, final_nl, made = _create_heading(lines, final_nl, level, title, floor, end, file)
        level, floor, end = made.level + 1, made.body_start, made.subtree_end
    assert made is not None  # path is non-empty and the full path was not found
    return lines, final_nl, made, missing


def _create_heading(
    lines: list[str],
    final_nl: bool,
    level: int,
    title: str,
    floor: int,
    end: int,
    file: str | None = None,
) -> tuple[list[str], bool, Heading]:
    """Insert an empty ``level`` heading at ``end`` (after the trailing blank lines above it)."""
    last = _trim_end(lines, floor, end)
    middle = ([""] if last > 0 else []) + ["#" * level + " " + title]
    if end < len(lines):
        middle.append("")
    lines, final_nl = _splice(lines, final_nl, last, end, middle)
    line = last + (1 if last > 0 else 0)
    made = next((h for h in sections.headings(_join(lines, final_nl)) if h.line == line), None)
    # A title Markdown reads differently ("X #" loses its "#"), or a heading swallowed by an
    # unclosed fence above, must not be written as if it had worked.
    if made is None or made.title != title or made.level != level:
        raise HeadingNotFound(
            f"cannot create heading '{title}' here: Markdown would not read it back as that "
            "heading (special characters in the title, or an unclosed code fence above?)",
            path=file,
            heading=title,
        )
    return lines, final_nl, made


def _root_level(found: Sequence[Heading]) -> int:
    # A lone H1 is the note's title, never a sibling: new top-level sections go one level below.
    h1 = [h for h in found if h.level == 1]
    rest = [h.level for h in found if not (len(h1) == 1 and h is h1[0])]
    return min(rest) if rest else 2


# --- lists -------------------------------------------------------------------------------------


def _ends_in_tight_list(lines: list[str], start: int, end: int) -> bool:
    # Parse only the region, not the whole note: the text after a top-level heading is a run of
    # top-level blocks, so it parses the same on its own.
    return _ends_tight_list_text(lines[start:end])


def _ends_tight_list_text(lines: list[str]) -> bool:
    first = 0
    while first < len(lines) and _BLANK.fullmatch(lines[first]):
        first += 1  # blank lines before the first block make no block
    if first < len(lines) and all(_PLAIN_ITEM.fullmatch(line) for line in lines[first:]):
        return True  # one tight bullet list, as markdown-it reads it (no parse needed)
    found = sections.blocks("\n".join(lines) + "\n")
    return bool(found) and found[-1].kind in _LISTS and found[-1].tight


def _starts_list(lines: list[str]) -> bool:
    if lines and _PLAIN_ITEM.fullmatch(lines[0]) and (
        "|" not in lines[0] or len(lines) == 1 or _PLAIN_ITEM.fullmatch(lines[1])
    ):
        return True
    found = sections.blocks("\n".join(lines) + "\n")
    return bool(found) and found[0].kind in _LISTS


# --- lines -------------------------------------------------------------------------------------


def _split(text: str) -> tuple[list[str], bool]:
    """Lines split on "\\n" only, and whether the text ends with a newline."""
    if not text:
        return [], False
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
        return lines, True
    return lines, False


def _join(lines: list[str], final_nl: bool) -> str:
    if not lines:
        return ""
    return "\n".join(lines) + ("\n" if final_nl else "")


def _splice(
    lines: list[str], final_nl: bool, start: int, end: int, middle: list[str]
) -> tuple[list[str], bool]:
    # A region that reaches the end of the file owns the final newline.
    return lines[:start] + middle + lines[end:], True if end >= len(lines) else final_nl


def _trim_end(lines: list[str], start: int, end: int) -> int:
    while end > start and not lines[end - 1].strip():
        end -= 1
    return end


def _content_lines(content: str) -> list[str]:
    """Content as lines without leading or trailing blank lines ([] when empty)."""
    lines = content.replace("\r\n", "\n").split("\n")
    first = next((i for i, line in enumerate(lines) if line.strip()), len(lines))
    last = _trim_end(lines, first, len(lines))
    return lines[first:last]
