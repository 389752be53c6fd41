"""One fact, one line (pure): a line of knowledge whose words a longer line of the same kind and
session holds folds into that line.

A session states one fact through several sources: a report's cause with its fix, the same cause
in prose, the failed run that passed after an install, the cause joined to the failed command.
Each source dedups only exact copies of its own; here, where a session's items meet, the shorter
statements fold into the longest, which keeps its own links.

Lines are compared as words: case-folded, ``[[link|alias]]`` read as its alias, code ticks,
``%%comments%%``, dates and punctuation dropped. A shorter line folds into a longer one when

- its words occur whole and in order in the longer line and it has at least
  :data:`MIN_WORDS` of them (a short phrase two facts may share is no fact of its own); or
- it is a near-copy: it holds a code span, and every number and code span it holds is in the
  longer line (a command, an error, a value is what makes a fact that fact: a timeout of 30 s is
  not one of 60 s, a fix by ``npm install`` is not one by editing ``jest.config.js``); it has at
  least :data:`NEAR_MIN_WORDS` distinct content words (stop words left out, a light stem so
  that "passed" meets "passes"), of which :data:`NEAR_SHARE` or more are in the longer line;
  :data:`PAIR_SHARE` or more of its word pairs are too, and every word a negation turns ("not
  pip", "instead of pip") is turned there too (order counts: "use uv, not pip" is no copy of
  "use pip, not uv").

Prose alone (no code span) folds only when contained whole: two prose lines that share most
words ("the login token expires after 30 minutes", "the refresh token …") are often two facts.

At compaction (``failures=True``) one failure is one fact too: capture tells a failure in two
lines, what was said about it ("The build needs the OpenSSL headers (`cargo build` failed:
`…`)") and the run that passed after a fix ("Fixed by running `apt install libssl-dev`:
`cargo build` failed (`…`)"); a line whose failures (each command with its error, one
cut short read as the start of the other) another line names folds into the longer. So does the
person's report of a fix: "Fixed by the person, who said: “changed ownership” (`cat ./x.yml`
failed: `…`)" folds into a longer line whose code spans name a path its failed command names,
"For the person to run `sudo chown … ./x.yml`: …" (one lesson: that line keeps the fix and its
error; a path cut short, ``./x.y…``, is read as the start of the other, and a line cut before
capture wrote the fix first has lost its "For the person to run:"). The session's record keeps both;
the folded line tells the later state, the fix done (:func:`done`: "Fixed by the person running
`sudo chown …`: …"), not a command still to run.
"""

from __future__ import annotations

import heapq
import itertools
import math
import posixpath
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from vaultmem.notes import facts
from vaultmem.notes.lazyre import lazy
from vaultmem.notes.schema import SESSION_SECTION, Kind

MIN_WORDS = 4
NEAR_MIN_WORDS = 5
NEAR_SHARE = 0.85
PAIR_SHARE = 0.5
CANDIDATES = 64  # lines a line is compared with, at most
# Words that turn the next content word: "not pip", "instead of pip", "never on main".
_TURNS = frozenset(("not", "no", "never", "without", "instead", "rather", "than", "avoid", "t"))
# Words that carry no fact of their own (negations are kept: they turn one).
_STOP = frozenset((
    "a", "an", "the", "to", "of", "in", "on", "at", "by", "for", "with", "from", "into", "as",
    "and", "or", "but", "so", "then", "it", "its", "is", "are", "was", "were", "be", "been",
    "this", "that", "these", "those", "after", "before", "when", "while", "now"))
_MD_LINK_RE = lazy(r"\[([^\[\]\n]*)\]\([^()\n]*\)")
_DATE_RE = lazy(r"\b\d{4}-\d{2}-\d{2}(?:[ T]\d{2}:\d{2}(?::\d{2})?)?\b")
_CODE_RE = lazy(r"(`+)(.+?)\1")
_WORD_RE = lazy(r"[^\W_]+")
# A failure as capture writes it: "`cmd` failed (`error`)", "`cmd` failed: `error`".
_FAILURE_RE = lazy(r"(`+) ?([^`]+?) ?\1 failed(?::| \() ?(`+) ?(.+?) ?\3")
# How capture words a command handed to the person and the person's report of a fix
# (:mod:`vaultmem.claude.failfix` writes them; a report folds into the line naming its file).
HANDED = "For the person to run"
REPORTED = "Fixed by the person, who said:"
DONE = "Fixed by the person running"  # a handed line once the person reported the fix
_PATH_RE = lazy(r"[^\s'\"`]*[\\/][^\s'\"`]+")


def _plain(text: str) -> str:
    return _DATE_RE.sub(" ", _MD_LINK_RE.sub(r"\1", facts.visible(text, leaf=True)))


def words(text: str) -> tuple[str, ...]:
    """The words of ``text`` as lines are compared: case-folded, without links' targets, code
    ticks, comments, dates and punctuation."""
    return tuple(_WORD_RE.findall(_plain(text).casefold()))


def _stem(word: str) -> str:
    for end in ("ing", "ed", "es", "s"):
        if len(word) > len(end) + 3 and word.endswith(end):
            return word[: -len(end)]
    return word


@dataclass(frozen=True)
class _Shape:
    words: tuple[str, ...]
    joined: str  # " w1 w2 … " for whole-phrase tests
    content: frozenset[str]  # stems of the words that are no stop words
    pairs: frozenset[tuple[str, str]]
    marks: tuple[str, ...]  # numbers and code spans, as " w1 w2 "
    coded: bool  # holds a code span
    turned: frozenset[tuple[str, str]]  # (negation, the content word it turns)
    failures: tuple[tuple[str, str], ...] = ()  # (command, error), each without a cut's "…"
    spans: frozenset[str] = frozenset()  # the paths its code spans name
    reported: bool = False  # the person's report of a fix

    @classmethod
    def of(cls, text: str) -> _Shape:
        found = words(text)
        stems = tuple(_stem(w) for w in found)
        codes = [" ".join(words(m.group(2))) for m in _CODE_RE.finditer(_plain(text))]
        marks = [*(w for w in found if any(c.isdigit() for c in w)), *(c for c in codes if c)]
        turned = frozenset((w, next((s for v, s in zip(found[n + 1:], stems[n + 1:],
                                                          strict=True) if v not in _STOP), ""))
                           for n, w in enumerate(found) if w in _TURNS)
        return cls(found, f" {' '.join(found)} ",
                   frozenset(s for w, s in zip(found, stems, strict=True) if w not in _STOP),
                   frozenset(itertools.pairwise(stems)),
                   tuple(f" {m} " for m in dict.fromkeys(marks)), any(codes), turned,
                   tuple((_uncut(m.group(2)), _uncut(m.group(4)))
                         for m in _FAILURE_RE.finditer(text)),
                   frozenset().union(*(_paths(m.group(2)) for m in _CODE_RE.finditer(text))),
                   text.startswith(REPORTED))

    def failed_paths(self) -> frozenset[str]:
        """The paths the commands of this line's failures name."""
        return frozenset(_paths(" ".join(command for command, _ in self.failures)))


def _folder_key(path: str) -> str:
    """The key that finds a line by a path's folder (a path cut short keeps its folder)."""
    return "\0/" + posixpath.dirname(path)


def _paths(command: str) -> frozenset[str]:
    """The paths a command names, without a leading ``./`` and a cut's ``…``."""
    return frozenset(p for found in _PATH_RE.findall(command)
                     if (p := found.rstrip("…").removeprefix("./").casefold()))


def _uncut(text: str) -> str:
    return " ".join(text.rstrip("…").split()).casefold()


def _same(one: str, other: str) -> bool:
    """Two spans of one command or error: equal, or one the start of the other (cut short)."""
    return bool(one and other) and (one.startswith(other) or other.startswith(one))


def _one_failure(longer: _Shape, shorter: _Shape) -> bool:
    """Whether every failure ``shorter`` names is one ``longer`` names."""
    return bool(shorter.failures) and all(
        any(_same(c, lc) and _same(e, le) for lc, le in longer.failures)
        for c, e in shorter.failures)


def _reported_fix(longer: _Shape, shorter: _Shape) -> bool:
    """Whether ``shorter`` is the person's report of a fix to a file ``longer`` names: a path
    the reported failure's command names is one a code span of ``longer`` names."""
    return shorter.reported and not longer.reported and any(
        _same(path, named) for path in shorter.failed_paths() for named in longer.spans)


def _holds(longer: _Shape, shorter: _Shape, failures: bool = False) -> bool:
    if len(shorter.words) > len(longer.words) or not shorter.words:
        return False
    if shorter.words == longer.words or failures and (
            _one_failure(longer, shorter) or _reported_fix(longer, shorter)):
        return True
    if len(shorter.words) >= MIN_WORDS and shorter.joined in longer.joined:
        return True
    if not shorter.coded or len(shorter.content) < NEAR_MIN_WORDS or \
            len(shorter.words) == len(longer.words) or not shorter.turned <= longer.turned:
        return False
    if len(shorter.content & longer.content) < NEAR_SHARE * len(shorter.content):
        return False
    if len(shorter.pairs & longer.pairs) < PAIR_SHARE * len(shorter.pairs):
        return False
    return all(mark in longer.joined for mark in shorter.marks)


def reported_failure(text: str) -> str:
    """The failure a report of the person's fix names (```cat x` failed: `…```), "" when
    ``text`` is no such report: the line it folds into keeps it (the error the failure hook
    meets again)."""
    found = _FAILURE_RE.search(text) if text.startswith(REPORTED) else None
    return found.group(0) if found else ""


def done(handed: str) -> str:
    """``handed`` told as done once the person reported the fix: "For the person to run `x`: …"
    -> "Fixed by the person running `x`: …"; any other line as it is."""
    if not handed.startswith(HANDED):
        return handed
    return f"{DONE}{handed[len(HANDED):]}"


def holds(longer: str, shorter: str) -> bool:
    """Whether ``shorter`` states nothing ``longer`` does not (the rule of the module doc)."""
    return _holds(_Shape.of(longer), _Shape.of(shorter))


class _Pool:
    """Lines of one kind, found by their content words: a line that holds another has all but
    ``floor((1 - NEAR_SHARE) * n)`` of its ``n`` content words, so one of any that many plus one
    of them finds it (a session of thousands of items is not compared pair by pair). At most
    :data:`CANDIDATES` lines are tried, the longest first: a note of one repeated vocabulary
    stays linear."""

    def __init__(self, failures: bool = False) -> None:
        self.failures = failures  # one failure is one fact (see the module)
        self.shapes: list[_Shape] = []
        self.owners: list[int | None] = []  # the line each stands for (None: the note's)
        self.by_stem: dict[str, list[int]] = {}

    def add(self, shape: _Shape, owner: int | None) -> None:
        spans = {_folder_key(path) for path in shape.spans} if self.failures else set()
        for stem in shape.content | self._commands(shape) | spans:
            self.by_stem.setdefault(stem, []).append(len(self.shapes))
        self.shapes.append(shape)
        self.owners.append(owner)

    def holder(self, shape: _Shape) -> tuple[bool, int | None]:
        """(found, the owner of the first line that holds ``shape``)."""
        spare = len(shape.content) - math.ceil(NEAR_SHARE * len(shape.content) - 1e-9)
        keys = sorted(shape.content, key=lambda k: len(self.by_stem.get(k, ())))[: spare + 1]
        keys += sorted(self._commands(shape))  # a line naming the same failure, in other words
        keys += sorted(self._reported(shape))  # a line naming the file of a reported fix
        found = heapq.nsmallest(CANDIDATES, {n for k in keys for n in self.by_stem.get(k, ())}
                                ) if keys else range(min(CANDIDATES, len(self.shapes)))
        return next(((True, self.owners[n]) for n in found
                     if _holds(self.shapes[n], shape, self.failures)), (False, None))

    def _commands(self, shape: _Shape) -> set[str]:
        """Keys that find the lines naming a failure by its command's first word."""
        if not self.failures:
            return set()
        return {"\0" + command.split(" ", 1)[0] for command, _ in shape.failures if command}

    def _reported(self, shape: _Shape) -> set[str]:
        """Keys that find the lines handing the person a command on a path the reported
        failure names."""
        if not self.failures or not shape.reported:
            return set()
        return {_folder_key(path) for path in shape.failed_paths()}


def folds(lines: Sequence[tuple[str, str]],
          known: Mapping[str, Sequence[str]] | None = None, *,
          failures: bool = False) -> list[int | None]:
    """For each ``(kind, text)`` of ``lines``: its own index when it is kept, the index of the
    line it folds into, or None when a line ``known`` lists under its kind (the note's) holds
    it. The longest line of a fact is kept, at its own place; equal words keep the first.
    ``failures``: a line naming only failures a longer line names folds too (compaction)."""
    shapes = [_Shape.of(text) for _, text in lines]
    pools: dict[str, _Pool] = {}
    for kind, texts in (known or {}).items():
        for text in texts:
            pools.setdefault(kind, _Pool(failures)).add(_Shape.of(text), None)
    into: list[int | None] = list(range(len(lines)))
    order = sorted(range(len(lines)), key=lambda n: (-len(shapes[n].words),
                                                     -len(lines[n][1]), n))
    for n in order:
        pool = pools.setdefault(lines[n][0], _Pool(failures))
        found, by = pool.holder(shapes[n])
        if found:
            into[n] = None if by is None else into[by]  # one folded folds on into its holder
        pool.add(shapes[n], n)
    return into


def listed(note_text: str) -> dict[str, list[str]]:
    """The item lines of a session note by the kind of their section (``SESSION_SECTION``), each
    without its trailing ``([[…]])`` group."""
    kinds = {title: kind for kind, title in SESSION_SECTION.items()}
    found: dict[str, list[str]] = {}
    kind: Kind | None = None
    for line in note_text.split("\n"):
        if line.startswith("## "):
            kind = kinds.get(line[3:].strip())
        elif kind is not None and line.startswith("- "):
            body = line[2:].rstrip()
            group = body.rfind(" ([[")
            found.setdefault(kind, []).append(body[:group] if group != -1 and body.endswith(
                "]])") else body)
    return found
