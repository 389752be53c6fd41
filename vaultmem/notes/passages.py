"""The lines of a note that answer a search best, as recall shows them (pure).

A note found whose facts (``vaultmem.notes.facts``) do not match answers by its lines: a work
log's answers, compact summaries, tables. A line is shown as a passage that says something on
its own: a line ending in a colon with what it introduces (and the parts headed below it), a
heading or bold line of an answer with its part, a table row with its columns' names, a line of
a work log's tool log (``- Ran …``) after its entry's ``**Answer:**`` line when both fit (the
command or file says where, the answer what came of it; the answer is shown once); at most
about ``facts.SHOWN_CHARS`` characters, a long passage by its first line and the lines that
match, never cut inside a word. A list item matched is also read with its list, under the line
saying what it lists ("Findings:") when that line matches nothing itself: the items together
may answer what none does alone. Lines rank by the different words shown matched, alone and
with those of the work log entry they are in (the prompt asked what its answer's line need not
repeat), then what kind
of line it is (an answer before the tool log and what was said along the way, an ``ASIDE``
callout, before the prompt, a heading or a table header), then the matches; a line shown in
another's passage is not shown again.
"""

from __future__ import annotations

import heapq
import re
from collections.abc import Sequence
from dataclasses import dataclass

from vaultmem.notes.facts import ELLIPSIS, SHOWN_CHARS, marked, window
from vaultmem.notes.mdlines import table_cells
from vaultmem.notes.noise import ASIDE, is_noise
from vaultmem.notes.relevance import Weights, held

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
_ITEM = re.compile(r"^\s*(?:>[ \t]*)*(?:[-*+]|\d{1,3}[.)])[ \t]+\S")  # a list item
_BREAK = re.compile(r"^\s*(?:>[ \t]*)*(?:[-*_][ \t]*){3,}$")  # a thematic break (``---``)
_PASSAGE_LINES = 40  # lines a line introduces that are read at most
# The title of a callout, and of an aside's (``noise.ASIDE``): its lines rank after an answer's,
# with the tool log.
_CALLOUT_TITLE = re.compile(r"^>[ \t]*\[!")
_ASIDE_TITLE = re.compile(rf"^>[ \t]*\[!{ASIDE}\][-+]?(?:[ \t]|$)")
_PROSE, _LOG, _ECHOED = 2, 1, 0


def _shown_line(line: str) -> str:
    """A body line without list, heading, quote or emphasis markup and block id, on one line."""
    return _BLOCK.sub("", _WHITESPACE.sub(" ", _MARKUP.sub("", line)).strip())


class _Body:
    """A marked note body's lines, each read once for what passages ask of it (a line is read
    by the passages of the lines above it that introduce it), and only when asked: most lines
    of a long work log are never in a passage."""

    def __init__(self, text: str, open_mark: str, close_mark: str) -> None:
        self.lines = text.split("\n")
        self.open, self.close = open_mark, close_mark
        self._shown: dict[int, str] = {}
        self._words: dict[int, set[str]] = {}
        self._read: dict[int, tuple[bool, bool, bool, int]] = {}
        self._under: dict[int, int] = {}  # see under(): non-blank lines only
        self._first: dict[int, int] = {}  # the first row of the table a row is in
        self._answer: dict[int, int | None] = {}  # see answer()
        self._aside: dict[int, bool] = {}  # see aside()
        self._part_of: list[int] = []  # see part_words(): the first line of each line's part
        self._part_words: dict[int, set[str]] = {}

    def shown(self, n: int) -> str:
        """Line ``n`` shown (``_shown_line``)."""
        found = self._shown.get(n)
        if found is None:
            found = self._shown[n] = _shown_line(self.lines[n])
        return found

    def words(self, n: int) -> set[str]:
        """The different words matched on line ``n``."""
        found = self._words.get(n)
        if found is None:
            line = self.lines[n]
            found = self._words[n] = (
                _words(line, self.open, self.close) if self.open in line else set()
            )
        return found

    def part_words(self, at: int) -> set[str]:
        """The different words matched in the part of the note line ``at`` is in: from the
        heading of level 2 or 3 above it outside callouts (a work log's entry, ``### HH:MM -
        <prompt>``, or a section) to the next. Read once for the whole note."""
        if not self._part_of:
            part = 0
            for n, line in enumerate(self.lines):
                if line.startswith(("## ", "### ")):
                    part = n
                self._part_of.append(part)
                if self.open in line:
                    self._part_words.setdefault(part, set()).update(self.words(n))
        return self._part_words.get(self._part_of[at], set())

    def read(self, n: int) -> tuple[bool, bool, bool, int]:
        """Of line ``n``: in a callout (a quote), blank but for quote marks, a fence (```, ~~~),
        its heading level (0: no heading)."""
        found = self._read.get(n)
        if found is None:
            stripped = self.lines[n].strip()
            bare = stripped.lstrip(">").strip()
            found = self._read[n] = (stripped.startswith(">"), not bare,
                                     bare.startswith(("```", "~~~")), _heading_level(bare))
        return found

    def under(self, at: int) -> int:
        """The level of line ``at``: its own as a heading, else that of the heading it is under
        in its callout (or outside callouts); 6 when there is none (any heading ends its
        passage)."""
        quoted = self.read(at)[0]
        walked: list[int] = []
        level = 6
        for n in range(at, -1, -1):
            inside, blank, _, heading = self.read(n)
            if blank:
                continue
            if inside != quoted:
                break
            known = self._under.get(n)
            if known is not None or heading:
                level = heading or known or 6
                break
            walked.append(n)
        for n in walked:  # the lines between share it: a long callout is walked once
            self._under[n] = level
        return level

    def answer(self, at: int) -> int | None:
        """The ``**Answer:**`` line of the work log entry whose tool log line ``at`` is, or None:
        the entry's lines above it, up to its heading or prompt."""
        walked: list[int] = []
        found: int | None = None
        for n in range(at - 1, -1, -1):
            if n in self._answer:
                found = self._answer[n]
                break
            line = self.lines[n]
            if _ANSWER.match(line):
                found = n
                break
            if _ECHO.match(line):
                break  # the entry's heading or prompt (a heading in its answer is quoted)
            walked.append(n)
        for n in walked:  # the lines between share it: an entry's log is walked once
            self._answer[n] = found
        return found

    def aside(self, at: int) -> bool:
        """Whether line ``at`` is inside an ``ASIDE`` callout (its title line above it, in the
        run of quoted lines it is in)."""
        walked: list[int] = []
        found = False
        for n in range(at, -1, -1):
            if n in self._aside:
                found = self._aside[n]
                break
            line = self.lines[n]
            if not line.startswith(">"):
                break
            walked.append(n)
            if _CALLOUT_TITLE.match(line):
                found = _ASIDE_TITLE.match(line) is not None
                break
        for n in walked:  # the lines of a callout share it: a long one is walked once
            self._aside[n] = found
        return found

    def tier(self, at: int) -> int:
        """What kind of line ``at`` is: an answer's, the tool log's (or an aside's), or one
        naming a part."""
        line = self.lines[at]
        if _ECHO.match(line) or _header(self.lines, at):
            return _ECHOED
        return _LOG if _TOOL_LOG.match(line) or self.aside(at) else _PROSE

    def repeats_answer(self, at: int) -> bool:
        """Whether line ``at`` of a callout under a work log's ``**Answer:**`` line (the answer
        kept whole) says nothing that answer line does not: its first paragraph, which the line
        holds. Shown once, as the answer line."""
        answer = self.answer(at)
        said = self.shown(at).casefold()
        return answer is not None and bool(said) and said in self.shown(answer).casefold()

    def intro(self, at: int) -> int | None:
        """The line introducing the list item ``at`` (``- x``, ``1. x``), or None: the nearest
        line above the item and its sibling items, in the same callout (or outside callouts),
        when that line introduces what follows (``_span``: it ends in a colon or names a part of
        an answer) and its passage holds line ``at``."""
        quoted = self.read(at)[0]
        if not _ITEM.match(self.lines[at]):
            return None
        for n in range(at - 1, max(-1, at - _PASSAGE_LINES), -1):
            inside, blank, fence, _ = self.read(n)
            if inside != quoted or fence:
                return None
            if blank or _ITEM.match(self.lines[n]):
                if blank and not inside:
                    return None  # a blank line outside callouts ends the list
                continue
            span, _ = _span(self, n)
            return n if at in span else None
        return None

    def header(self, at: int) -> int | None:
        """The header line of the table whose row ``at`` is (not the header itself), or None."""
        quoted = self.read(at)[0]
        walked: list[int] = []
        first = at
        while True:
            known = self._first.get(first)
            if known is not None:
                first = known
                break
            walked.append(first)
            if not (first > 0 and _ROW.match(self.lines[first - 1])
                    and self.read(first - 1)[0] == quoted):
                break
            first -= 1
        for n in walked:
            self._first[n] = first
        return first if first + 1 < at and _header(self.lines, first) else None


def _span(body: _Body, at: int) -> tuple[list[int], bool]:
    """The lines of the passage of line ``at``, and whether ``at`` names a part of an answer:
    line ``at``, and when it introduces what follows (it ends in a colon: "You need to run:";
    or it names a part of an answer: a heading or bold line in a callout) the lines it
    introduces, fenced code included: such a line alone says nothing. A blank line after them,
    a heading of the line's level or above (the level of the heading it is under; the parts
    headed deeper than that are what it introduces), the end (start) of the callout the line is
    in, or a thematic break (``---``) ends what it introduces (a table's ``|---|`` line is left
    out); a work log's ``**Answer:**`` line and a table row introduce nothing."""
    line = body.lines[at]
    if _ROW.match(line):
        return [at], False
    if _TOOL_LOG.match(line):
        answer = body.answer(at)  # a command or file says where; its turn's answer, what came of it
        return ([answer, at] if answer is not None else [at]), False
    part = ">" in line and _PART.match(line) is not None
    colon = ":" in line and body.shown(at).endswith(":")  # a cheap test first: every line is read
    if not (colon or part) or _ANSWER.match(line):
        return [at], False  # a work log's answer line is a cut first sentence, then the log
    quoted, level = body.read(at)[0], body.under(at)
    out = [at]
    for n in range(at + 1, min(len(body.lines), at + 1 + _PASSAGE_LINES)):
        inside, blank, fence, heading = body.read(n)
        if blank:
            if len(out) > 1 and not inside:
                break  # a blank line (an empty quote line is inside its callout)
            continue
        if inside != quoted or 0 < heading <= level or _BREAK.match(body.lines[n]):
            break  # out of (into) the callout the line is in, the next part at its level or a rule
        if _RULE_ROW.match(body.lines[n]):
            continue  # a table's |---| line says nothing
        if part and len(out) > 1 and _PART.match(body.lines[n]):
            break  # the next part of the answer
        if not fence:
            out.append(n)
    return out, part


def _passage(body: _Body, span: Sequence[int], part: bool) -> list[tuple[int, str]]:
    """The lines of a passage (``_span``) shown: a table row under its columns' names, a part's
    title and the headings in it with a colon. (line number, shown) each."""
    marks = body.open + body.close
    at = span[0]
    out = [(at, _row(body, at, body.shown(at)) if _ROW.match(body.lines[at])
            else _titled(body.shown(at), marks) if part else body.shown(at))]
    for n in span[1:]:
        out.append((n, _titled(body.shown(n), marks) if body.read(n)[3] else body.shown(n)))
    return out


def _header(lines: Sequence[str], at: int) -> bool:
    """Whether line ``at`` is the header of a table: it names columns, as a heading names a part."""
    return (_ROW.match(lines[at]) is not None and at + 1 < len(lines)
            and _RULE_ROW.match(lines[at + 1]) is not None)


def _row(body: _Body, at: int, shown: str) -> str:
    """A table row with each cell under its column's name (``Phase: 1; Focus: Foundation``):
    a row alone does not say what its cells are. The row as it is when it is the header, or
    its table has none (a ``|---|`` line under its first), or the cells do not line up."""
    first = body.header(at)
    if first is None:
        return shown
    names, cells = table_cells(body.shown(first)), table_cells(shown)
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


def _words(text: str, open_mark: str, close_mark: str) -> set[str]:
    """The different words matched in a marked text, casefolded."""
    return set(_matched(text, open_mark, close_mark))


def _matched(text: str, open_mark: str, close_mark: str) -> list[str]:
    """The words matched in a marked text, casefolded, one per match."""
    return [part.split(close_mark, 1)[0].casefold() for part in text.split(open_mark)[1:]]


def _fit(
    passage: Sequence[tuple[int, str]], open_mark: str, close_mark: str, limit: int
) -> tuple[str, frozenset[int]]:
    """A passage's lines joined in about ``limit`` characters, and the line numbers kept: all
    when they fit, else its first line, then while they fit the lines matching words the first
    does not, the other lines holding a match, the rest, each in order; ``…`` where lines were
    left out."""
    parts = [p for _, p in passage]
    sizes = [len(p) - 2 * p.count(open_mark) for p in parts]
    if sum(sizes) + len(parts) - 1 <= limit:
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


@dataclass(frozen=True)
class Passage:
    """A line of a note as recall shows it (see ``ranked_lines``)."""

    text: str  # plain text, at most ``limit`` characters
    spans: tuple[tuple[int, int], ...]  # (start, end) offsets of the matched words in ``text``
    noise: bool  # the line says nothing of its own (``vaultmem.notes.noise``)
    # The words matched in the part of the note the line is in (its work log entry: the prompt
    # that asked what the line answers), casefolded: what ranked it with its own words.
    context: frozenset[str] = frozenset()


def best_lines(
    text: str, open_mark: str, close_mark: str, count: int = 1, limit: int = SHOWN_CHARS
) -> list[tuple[str, tuple[tuple[int, int], ...]]]:
    """``ranked_lines`` as (text, spans) pairs."""
    return [(p.text, p.spans) for p in ranked_lines(text, open_mark, close_mark, count, limit)]


def _weights(body: _Body) -> Weights:
    """The BM25 weights of the lines of ``body`` (``relevance.Weights``): its non-blank lines,
    their length, the lines holding each matched word."""
    lines = [line for line in body.lines if line.strip()]
    weights = Weights(len(lines), sum(len(line) for line in lines))
    for line in lines:
        if body.open in line:
            weights.count(_matched(line, body.open, body.close))
    return weights


def ranked_lines(
    text: str, open_mark: str, close_mark: str, count: int = 1, limit: int = SHOWN_CHARS,
    terms: Sequence[str] = (),
) -> list[Passage]:
    """The ``count`` lines of a marked note body that answer best, best first, each once: a line
    that says something before one that is noise (a heading outside a callout, a ``key: value``
    line, a list of links: ``vaultmem.notes.noise``), then most of the query's ``terms`` held
    (``relevance.held``; most different matched words without terms) in the line and what it
    introduces (see ``_passage``), counted again with those its part of the note holds (the
    work log entry it is in: ``_Body.part_words``), then a line of an answer before one of the tool log (``- Ran
    …``) before the prompt (``**Prompt:**``) or a heading, then the heaviest (``relevance``:
    BM25 of the passage among the note's lines, so the line naming what few lines name, said
    briefly, comes first), then the first. Each as plain text without list, heading, quote or
    emphasis markup, with what it introduces: whole when it fits, else its first line and the
    lines that match (``_fit``), and a window from the sentence holding most matched words of
    what is still too long (``window``). A line shown with the passage of another is not shown
    again."""
    body = _Body(text, open_mark, close_mark)
    marks = open_mark + close_mark
    weights = _weights(body)

    def terms_in(found: set[str]) -> int:
        return len(held(found, terms)) if terms else len(found)

    def held_by(words: set[str], at: int) -> int:
        # What the line holds, and what its part holds with it: an answer's line naming one
        # word of the query in the entry whose prompt asked the rest comes before a line of
        # another entry holding as many words of it.
        return terms_in(words) + terms_in(words | body.part_words(at))

    def weigh(read: Sequence[int]) -> float:
        matched = [w for n in read for w in _matched(body.lines[n], open_mark, close_mark)]
        size = sum(len(body.lines[n]) - 2 * body.lines[n].count(open_mark) for n in read)
        return weights.weight(matched, size)

    # Every line is ranked first by what its whole passage matches, which is at least what is
    # shown of it (``_fit`` and ``window`` only leave out; the weight is the whole passage's in
    # both): a line is fitted and shown only when it may still rank before those shown already,
    # so a note of thousands of matching lines costs about what its lines' marks do.
    bounds: list[tuple[int, int, int, float, int, list[int], bool]] = []
    intros: set[int] = set()  # introducing lines without a match of their own, queued
    for at, line in enumerate(body.lines):
        if open_mark not in line or body.read(at)[2]:
            continue  # no match, or a code fence's line: its language (```bash) says nothing
        if line.startswith(">") and body.repeats_answer(at):
            continue
        span, part = _span(body, at)
        header = body.header(at) if _ROW.match(line) else None
        read = [*span, header] if header is not None else span
        words = set().union(*(body.words(n) for n in read))
        bounds.append((int(is_noise(line, marks)), -held_by(words, at), -body.tier(at),
                       -weigh(read), at, span, part))
        intro = body.intro(at)
        if intro is not None and intro not in intros and open_mark not in body.lines[intro]:
            # The list a line is an item of, with the line saying what it lists ("Findings:"):
            # its items together may answer what no item alone does.
            intros.add(intro)
            span, part = _span(body, intro)
            words = set().union(*(body.words(n) for n in span))
            bounds.append((int(is_noise(body.lines[intro], marks)), -held_by(words, intro),
                           -body.tier(intro), -weigh(span), intro, span, part))
    bounds.sort(key=lambda b: b[:5])
    ready: list[tuple[tuple[int, int, int, float, int], _Shown, frozenset[int], float]] = []
    out: list[Passage] = []
    seen: set[str] = set()
    covered: set[int] = set()
    next_bound = 0
    # A line's matches in the lines a passage leaves out make its bound loose: past this many
    # fitted, the best of them are shown (a note of thousands of introducing lines).
    budget = 4 * count + 20

    # ``minus``: a passage's weight negated, as the keys hold it (the heaviest sorts first).
    def push(noise: int, at: int, span: Sequence[int], part: bool, minus: float) -> None:
        fitted, kept = _fit(_passage(body, span, part), open_mark, close_mark, limit)
        if at not in kept:  # a tool log line whose answer line leaves it no room: it alone
            fitted, kept = _fit(_passage(body, [at], part), open_mark, close_mark, limit)
        plain, spans = window(*marked(fitted, open_mark, close_mark), limit)
        if spans:
            # Ranked by what is shown of it: words left out of the lines shown do not count.
            key = (noise, -held_by({plain[s:e].casefold() for s, e in spans}, at),
                   -body.tier(at), minus, at)
            heapq.heappush(ready, (key, (plain, spans), kept, minus))

    while len(out) < count:
        while next_bound < len(bounds) and (
            not ready or (next_bound < budget and bounds[next_bound][:5] <= ready[0][0])
        ):
            noise, _, _, minus, at, span, part = bounds[next_bound]
            next_bound += 1
            push(noise, at, span, part, minus)
        if not ready:
            break
        (noise, *_, at), shown, kept, minus = heapq.heappop(ready)
        if shown[0].casefold() in seen or at in covered:
            continue
        if min(kept) in covered:  # a tool log line whose answer line is shown: it alone
            push(noise, at, [at], False, minus)
            continue
        seen.add(shown[0].casefold())
        covered |= kept
        out.append(Passage(shown[0], shown[1], bool(noise), frozenset(body.part_words(at))))
    return out
