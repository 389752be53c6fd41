"""One dated line per lesson in an entity note (pure; issue 29): a line bound for a section that
tells what a row of it tells, or what another line of the same compaction tells, is that row or
line (:func:`mining.telling.same_lesson`: three quarters of its telling words, names and flags
counting double, and all its numbers).

The same lesson re-filed by a later session keeps the row's words (a person may have edited
them) and gains the session's link (``entitynote``); a person's row saying it counts as there.
Of a session's near-copies (an answer and its recap), the most telling is kept; two lines of
a session quoting the same two or more code spans and no other are one lesson too ("I was using
`app::run` instead of `applet::run`", "Wrong runtime (`app::run` → `applet::run`)"): what they
quote is what makes the lesson, their prose only says it twice. A label and a value whose value
is the option a question's line says was chosen ("Type: COSMIC Panel Applet (integrated)") is
that line: the answer restated.

A ``Set up:`` line (:mod:`mining.setups`) whose every setting another line of the note, or of
the same compaction, states with its value ("Updated 2 workflows with `continue-on-error: true`"
for "Set up: continue-on-error in security-scan.yml (true)") is left out (:func:`told_setups`):
the prose line says the state and why, the setup line only repeats it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from vaultmem.memory import entityparse
from vaultmem.mining import telling
from vaultmem.notes import schema
from vaultmem.notes.lazyre import lazy

# Rows of a section compared with a new line, at most, for each of its words looked up: a note
# of one repeated vocabulary is not read whole for each line.
LESSON_POOL = 16
_FENCE_LINE = lazy(r"\n {0,3}(?:`{3,}|~{3,})")  # in "\n" + the rows
_SPAN = lazy(r"(`+)(.+?)\1")
MIN_SPANS = 2  # one span shared (a command, a path) is no lesson shared
PREFIX_MIN_CHARS = 16  # a shorter span cut from another is another ("git push", "git push -f")
# A choice as mining.choices writes it, and a line that is a label and a value.
_CHOSE = lazy(r"(?:^| — )[Cc]hose: (?P<chosen>[^;]+?)(?:; not chosen: |$)")
_LABELLED = lazy(r"(?P<label>[\w/ -]{1,40}): (?P<value>[^:]+)")
_PARENS = lazy(r"\([^()]*\)")
# One setting of a setup line: "<what> (<value>)", a file's name after it for an export.
_SETTING = lazy(r"(?P<what>[^;()]+?) \((?P<value>[^()]+)\)(?: in \S+)?")

# A line bound for a note: its heading, text, block id, and whether it is there already.
Bound = tuple[str, str, str, bool]


def folds(note: entityparse.Note, new: Sequence[Bound]) -> dict[int, tuple[str, str]]:
    """For each line of ``new`` that tells what a row of its section or a more telling line of
    ``new`` tells: its index -> (the text, the block id) of that row or line ("" for a
    person's row). Lines there already are left out."""
    out: dict[int, tuple[str, str]] = {}
    for heading in dict.fromkeys(line[0] for line in new):
        rows = _Rows(note, heading)
        kept: list[tuple[str, str]] = []
        at = [n for n, line in enumerate(new) if line[0] == heading and not line[3]]
        # The most telling first: a near-copy folds into the line that tells more.
        for n in sorted(at, key=lambda n: -sum(telling.information(new[n][1]).values())):
            _, text, block, _ = new[n]
            same = next((k for k in kept if telling.same_lesson(text, k[0])
                         or same_quotes(text, k[0]) or same_choice(text, k[0])), None) \
                or rows.same_lesson(text) or rows.same_quotes(text)
            if same is None:
                kept.append((text, block))
            else:
                out[n] = same
    return out


def same_quotes(text: str, other: str) -> bool:
    """Whether ``text`` and ``other`` quote the same MIN_SPANS or more code spans, and no
    other (case and spacing aside; an error quoted whole in one and cut in the other, one a
    prefix of the other of PREFIX_MIN_CHARS or more, is the same span)."""
    quoted, theirs = _quotes(text), _quotes(other)
    if len(quoted) < MIN_SPANS or len(quoted) != len(theirs):
        return False
    return quoted == theirs or (all(any(_same_span(a, b) for b in theirs) for a in quoted)
                                and all(any(_same_span(b, a) for a in quoted) for b in theirs))


def same_choice(text: str, other: str) -> bool:
    """Whether ``text`` is a label and a value ("Type: COSMIC Panel Applet (integrated)") whose
    value, its parentheses aside, is the option ``other`` says was chosen ("… — chose: COSMIC
    Panel Applet (Recommended); not chosen: …"): the answer restated in a summary."""
    found, chose = _LABELLED.fullmatch(text), _CHOSE.search(other)
    return found is not None and chose is not None and \
        _bare(found.group("value")) == _bare(chose.group("chosen"))


def _bare(text: str) -> str:
    return " ".join(_PARENS.sub(" ", text).split()).casefold().rstrip(".")


def _same_span(one: str, other: str) -> bool:
    if one == other:
        return True
    short, long = sorted((one.rstrip("…. :;"), other.rstrip("…. :;")), key=len)
    return len(short) >= PREFIX_MIN_CHARS and long.startswith(short)


def _quotes(text: str) -> frozenset[str]:
    return frozenset(" ".join(m.group(2).split()).casefold() for m in _SPAN.finditer(text))


class _Rows:
    """The rows of one section of a note, read only where they share a telling word with a
    line asked about."""

    def __init__(self, note: entityparse.Note, heading: str) -> None:
        found = note.span(heading) if heading.casefold() not in note.bodies else None
        self.text, self.start, self.end = (note.whole, *found) if found is not None \
            else ("", 0, 0)
        if _FENCE_LINE.search(self.text, max(self.start - 1, 0), self.end):
            self.end = self.start  # a fenced "- " is no row: such a section is not compared
        self.folded: str | None = None

    def same_lesson(self, text: str) -> tuple[str, str] | None:
        """(text, block id) of a row telling what ``text`` tells ("" for a person's row), or
        None."""
        said = telling.information(text)
        if len(said) < telling.NEAR_MIN_WORDS or self.start == self.end:
            return None
        if self.folded is None:
            self.folded = self.text[self.start:self.end].casefold()
        # A row telling NEAR of it holds one of its words weighing more than the rest.
        whole, weight, starts = sum(said.values()), 0.0, set()
        for word in sorted(said, key=lambda w: (-said[w], -len(w), w)):
            starts.update(self._rows_with(word))
            weight += said[word]
            if weight > (1 - telling.NEAR) * whole:
                break
        for start in sorted(starts):
            stop = self.text.find("\n", start, self.end)
            got = entityparse.read_row(self.text[start: stop if stop >= 0 else self.end])
            if got is not None and got.text and telling.same_lesson(text, got.text):
                return got.text, got.block or ""
        return None

    def same_quotes(self, text: str) -> tuple[str, str] | None:
        """(text, block id) of a row quoting what ``text`` quotes (:func:`same_quotes`), or
        None; only rows holding its first quote are read."""
        first = _SPAN.search(text)
        if first is None or self.start == self.end:
            return None
        if self.folded is None:
            self.folded = self.text[self.start:self.end].casefold()
        for start in sorted(self._rows_with(" ".join(first.group(2).split()).casefold())):
            stop = self.text.find("\n", start, self.end)
            got = entityparse.read_row(self.text[start: stop if stop >= 0 else self.end])
            if got is not None and got.text and same_quotes(text, got.text):
                return got.text, got.block or ""
        return None

    def _rows_with(self, word: str) -> list[int]:
        """Where the rows holding ``word`` start (LESSON_POOL at most)."""
        assert self.folded is not None
        found: list[int] = []
        at = self.folded.find(word)
        while at >= 0 and len(found) < LESSON_POOL:
            row = self.text.rfind("\n", self.start - 1, self.start + at) + 1
            if self.text.startswith("- ", row) and row not in found:
                found.append(row)
            at = self.folded.find(word, at + len(word))
        return found


def told_setups(note: entityparse.Note, new: Sequence[Bound]) -> set[int]:
    """The indexes of the ``Set up:`` lines of ``new`` (not there already) each of whose
    settings a row of ``note`` or another line of ``new`` states: its key and its value side by
    side ("`continue-on-error: true`", "cachesize=5000", "log_size to 512"), in a line that is
    no setup line itself. A line with settings left uncounted ("(+2 more)") is kept."""
    out: set[int] = set()
    others: list[str] | None = None
    for n, (_, text, _, there) in enumerate(new):
        if there or not text.startswith(schema.SET_UP):
            continue
        patterns = _setting_patterns(text.removeprefix(schema.SET_UP).strip())
        if not patterns:
            continue
        if others is None:
            others = [t for _, t, _, _ in new if not t.startswith(schema.SET_UP)] + [
                row for row in note.whole.split("\n")
                if row.startswith("- ") and schema.SET_UP not in row]
        if all(any(p.search(other) for other in others) for p in patterns):
            out.add(n)
    return out


def _setting_patterns(said: str) -> list[re.Pattern[str]]:
    """A pattern for each setting of a setup line's text (its key, or the key's last dotted
    part, then its value, at most a separator apart); none when one cannot be read."""
    out = []
    for part in said.split("; "):
        found = _SETTING.fullmatch(part.strip())
        if found is None or "," in found.group("what"):
            return []
        what = found.group("what").split(" in ")[0].split()
        key = what[0] if what[-1] == "service" else what[-1]
        keys = {key, key.rsplit(".", 1)[-1]} - {""}
        value = found.group("value").split(", was ")[0].strip()
        out.append(re.compile(
            r"(?<![\w.-])(?:" + "|".join(re.escape(k) for k in sorted(keys)) + r")[`'\"]?\s*"
            r"(?:[:=(]|\bto\b|→|->)?\s*[`'\"]?" + re.escape(value) + r"(?![\w.])",
            re.IGNORECASE))
    return out
