"""The lines of a note that answer a search best, as recall shows them (pure).

A note found whose facts (``vaultmem.notes.facts``) do not match answers by its lines: a work
log's answers, compact summaries, tables. A line is shown as a passage that says something on
its own: a line ending in a colon with what it introduces (and the parts headed below it), a
heading or bold line of an answer with its part, a table row with its columns' names; at most
about ``facts.SHOWN_CHARS`` characters, a long passage by its first line and the lines that
match, never cut inside a word. Lines rank by the different words shown matched, then what kind
of line it is (an answer before the tool log before the prompt, a heading or a table header),
then the matches; a line shown in another's passage is not shown again.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from vaultmem.notes.facts import ELLIPSIS, SHOWN_CHARS, marked, window

_BLOCK = re.compile(r"[ \t]+\^([A-Za-z0-9-]+)$")
_WHITESPACE = re.compile(r"\s+")
_MARKUP = re.compile(
    r"^\s*(?:(?:[-*+]|\d+[.)])\s+(?:\[.\]\s+)?|#{1,6}\s+|>\s*)+|\*\*|__|\[\[|\]\]"
)


# A line that restates what was asked rather than what was found: the prompt of a session's
# work log (``**Prompt:** …``) and the ``### HH:MM - <prompt>`` heading that names it; any
# heading outside an answer's callout names a part rather than saying something. A query is
# phrased like a question, so these lines match it best while holding no answer.
_ANSWER = re.compile(r"^\s*\*\*Answer:\*\*")
_ECHO = re.compile(r"^\s*(?:#{1,6}\s|\*\*Prompt:\*\*)")
# The tool log vaultmem writes of a turn (``- Ran `cmd```, ``- Edited `file```): what was done,
# named by its command and paths; a line of an answer saying as much of the query says what
# came of it. (A ``- Failed: …`` line says what went wrong: an answer.)
_TOOL_LOG = re.compile(r"^[-*+][ \t]+(?:Ran|Edited)[ \t]")
# A heading, or a line all in bold, inside an answer's callout (``> ### 1. Auto-redaction``,
# ``> **3. Made the workflows non-blocking**``): it names a part of the answer, which follows it.
_PART = re.compile(r"^\s*(?:>[ \t]*)+(?:#{1,6}[ \t]+\S|(?:\d{1,3}[.)][ \t]+)?\*\*[^*]+\*\*[ \t]*$)")
_ROW = re.compile(r"^\s*(?:>[ \t]*)*\|")
_RULE_ROW = re.compile(r"^\s*(?:>[ \t]*)*\|?(?:[ \t]*:?-+:?[ \t]*\|)+[ \t]*(?::?-+:?[ \t]*)?$")
_PASSAGE_LINES = 40  # lines a line introduces that are read at most
_PROSE, _LOG, _ECHOED = 2, 1, 0


def _shown_line(line: str) -> str:
    """A body line without list, heading, quote or emphasis markup and block id, on one line."""
    return _BLOCK.sub("", _WHITESPACE.sub(" ", _MARKUP.sub("", line)).strip())


def _passage(lines: Sequence[str], at: int, marks: str) -> list[tuple[int, str]]:
    """Line ``at`` shown, and when it introduces what follows (it ends in a colon: "You need to
    run:"; or it names a part of an answer: a heading or bold line in a callout) the lines it
    introduces, fenced code included, each shown: such a line alone says nothing. A blank line
    after them, a heading of the line's level or above (the level of the heading it is under;
    the parts headed deeper than that are what it introduces), or the end (start) of the
    callout the line is in ends what it introduces; a work log's ``**Answer:**`` line introduces
    nothing. (line number, shown) each (a part's title gets a colon: ``marks`` are the match
    marks to look past for its end)."""
    shown = _shown_line(lines[at])
    if _ROW.match(lines[at]):
        return [(at, _row(lines, at, shown))]
    part = _PART.match(lines[at]) is not None
    if not (shown.endswith(":") or part) or _ANSWER.match(lines[at]):
        return [(at, shown)]  # a work log's answer line is a cut first sentence, then the log
    quoted = lines[at].lstrip().startswith(">")
    level = _level(lines, at, quoted)
    out = [(at, _titled(shown, marks) if part else shown)]
    for n, line in enumerate(lines[at + 1 : at + 1 + _PASSAGE_LINES], at + 1):
        stripped = line.strip()
        bare = stripped.lstrip(">").strip()
        if not bare:
            if len(out) > 1 and not stripped.startswith(">"):
                break  # a blank line (an empty quote line is inside its callout)
            continue
        if stripped.startswith(">") != quoted or 0 < _heading_level(bare) <= level:
            break  # out of (into) the callout the line is in, or the next part at its level
        if part and len(out) > 1 and _PART.match(line):
            break  # the next part of the answer
        if not bare.startswith(("```", "~~~")):
            shown = _shown_line(line)
            out.append((n, _titled(shown, marks) if _heading_level(bare) else shown))
    return out


def _cells(shown: str) -> list[str]:
    """The cells of a table row shown (``| a | b |``), stripped."""
    return [c.strip() for c in shown.strip().strip("|").split("|")]


def _header(lines: Sequence[str], at: int) -> bool:
    """Whether line ``at`` is the header of a table: it names columns, as a heading names a part."""
    return (_ROW.match(lines[at]) is not None and at + 1 < len(lines)
            and _RULE_ROW.match(lines[at + 1]) is not None)


def _row(lines: Sequence[str], at: int, shown: str) -> str:
    """A table row with each cell under its column's name (``Phase: 1; Focus: Foundation``):
    a row alone does not say what its cells are. The row as it is when it is the header, or
    its table has none (a ``|---|`` line under its first), or the cells do not line up."""
    quoted = lines[at].lstrip().startswith(">")
    first = at
    while first > 0 and _ROW.match(lines[first - 1]) and (
        lines[first - 1].lstrip().startswith(">") == quoted
    ):
        first -= 1
    if first + 1 >= at or not _header(lines, first):
        return shown
    names, cells = _cells(_shown_line(lines[first])), _cells(shown)
    if len(names) != len(cells):
        return shown
    return "; ".join(f"{n}: {c}" if n else c for n, c in zip(names, cells, strict=True) if c)


def _titled(shown: str, marks: str) -> str:
    """A part's title as the start of what follows it: with a colon unless it ends a sentence
    (``marks``: the match marks to look past)."""
    return shown if shown.rstrip(marks)[-1:] in (":", ".", "!", "?", "") else shown + ":"


def _heading_level(bare: str) -> int:
    """The level of a heading line (without its quote marks), 0 for any other line."""
    hashes = len(bare) - len(bare.lstrip("#"))
    return hashes if 0 < hashes <= 6 and bare[hashes : hashes + 1] in (" ", "\t") else 0


def _level(lines: Sequence[str], at: int, quoted: bool) -> int:
    """The level of line ``at``: its own as a heading, else that of the heading it is under in
    its callout (or outside callouts); 6 when there is none (any heading ends its passage)."""
    for n in range(at, max(-1, at - 5 * _PASSAGE_LINES), -1):
        stripped = lines[n].strip()
        if stripped and stripped.startswith(">") != quoted:
            break
        found = _heading_level(stripped.lstrip(">").strip())
        if found:
            return found
    return 6


def _words(text: str, open_mark: str, close_mark: str) -> set[str]:
    """The different words matched in a marked text, casefolded."""
    return {part.split(close_mark, 1)[0].casefold() for part in text.split(open_mark)[1:]}


def _fit(
    passage: Sequence[tuple[int, str]], open_mark: str, close_mark: str, limit: int
) -> tuple[str, frozenset[int]]:
    """A passage's lines joined in about ``limit`` characters, and the line numbers kept: all
    when they fit, else its first line, then while they fit the lines matching words the first
    does not, the other lines holding a match, the rest, each in order; ``…`` where lines were
    left out."""
    parts = [p for _, p in passage]
    sizes = [len(p) - 2 * p.count(open_mark) for p in parts]
    if sum(sizes) + len(parts) <= limit + limit // 10:
        return " ".join(parts), frozenset(n for n, _ in passage)
    head = _words(parts[0], open_mark, close_mark)
    rank = [0] + [
        1 if _words(p, open_mark, close_mark) - head else 2 if open_mark in p else 3
        for p in parts[1:]
    ]
    kept = {0}
    used = sizes[0]
    for wanted in (1, 2, 3):
        for n in range(1, len(parts)):
            if rank[n] == wanted and used + 1 + sizes[n] <= limit:
                kept.add(n)
                used += 1 + sizes[n]
    out: list[str] = []
    for n in range(len(parts)):
        if n in kept:
            out.append(parts[n])
        elif not out or out[-1] != ELLIPSIS:
            out.append(ELLIPSIS)
    return " ".join(out), frozenset(passage[n][0] for n in kept)


_Shown = tuple[str, tuple[tuple[int, int], ...]]  # a line shown, and its matches' offsets


def best_lines(
    text: str, open_mark: str, close_mark: str, count: int = 1, limit: int = SHOWN_CHARS
) -> list[tuple[str, tuple[tuple[int, int], ...]]]:
    """The ``count`` lines of a marked note body that answer best, best first, each once: most
    different matched words (in the line and what it introduces, see ``_passage``), then a line
    of an answer before one of the tool log (``- Ran …``) before the prompt (``**Prompt:**``) or
    a heading, then most matches, then the first. Each as plain text without list, heading,
    quote or emphasis markup, with what it introduces: whole when it fits, else its first line
    and the lines that match (``_fit``), and a window around the first match of what is still
    too long (``window``). A line shown with the passage of another is not shown again."""
    lines = text.split("\n")
    scored: list[tuple[int, int, int, int, _Shown, frozenset[int]]] = []
    for at, line in enumerate(lines):
        if open_mark not in line:
            continue
        fitted, kept = _fit(_passage(lines, at, open_mark + close_mark), open_mark, close_mark,
                            limit)
        plain, spans = window(*marked(fitted, open_mark, close_mark), limit)
        if not spans:
            continue
        # Ranked by what is shown of it: words left out of the lines shown do not count.
        words = {plain[s:e].casefold() for s, e in spans}
        tier = (_ECHOED if _ECHO.match(line) or _header(lines, at)
                else _LOG if _TOOL_LOG.match(line) else _PROSE)
        scored.append((-len(words), -tier, -len(spans), at, (plain, spans), kept))
    out: list[_Shown] = []
    seen: set[str] = set()
    covered: set[int] = set()
    for *_, at, shown, kept in sorted(scored, key=lambda s: s[:4]):
        if shown[0].casefold() in seen or at in covered:
            continue
        seen.add(shown[0].casefold())
        covered |= kept
        out.append(shown)
        if len(out) == count:
            break
    return out
