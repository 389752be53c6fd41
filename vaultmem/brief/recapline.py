"""What a line of an answer kept whole says (pure): the point of its recap an outcome line
names, the detail a briefing with room to spare tells, the sentences of its prose that name
something. ``digest`` reads an answer's lines in order and keeps the state between them."""

from __future__ import annotations

import re

from vaultmem.mining import factrule
from vaultmem.notes.lazyre import lazy
from vaultmem.notes.mdlines import table_cells

from . import briefrank

# A point of an answer's recap (a ``> [!abstract]`` callout): a heading, a line all bold, or a
# bold label and what follows it ("**Power profile:** set to `performance`").
RECAP_POINT = lazy(r"^>[ \t]?(?:#{1,6}[ \t]+(.+?)[ \t#]*|(?:\d{1,3}[.)][ \t]+)?"
                   r"(\*\*[^*\n]+\*\*(?:[ \t]*:?[ \t]*\S.*|:)?))[ \t]*$")
RECAP_POINTS = 6
# A list item of an answer's recap ("> - **Why:** keys rotate", "> 2. Run the migration").
RECAP_ITEM = lazy(r"^>[ \t]?(?:[-*+]|\d{1,3}[.)])[ \t]+(.*\S)")
DETAILS = 12  # recap points kept of one answer
DETAIL_MIN_WORDS = 5  # a shorter point is a section's title ("Plan Summary"), not a fact
PROSE_DETAILS = 6  # sentences of an answer's prose kept beside its recap's points
# A recap's bold line that is only a title ("**Your results:**"), and a list item that is only
# a link to a source ("[Release notes](https://…)", bold or not).
TITLE = lazy(r"\*\*[^*\n]+\*\*[ \t]*:?")
SOURCE = lazy(r"(?:\*\*)?\[[^\]\n]+\]\([^)\s]+\)(?:\*\*)?[ \t]*")
CHOICE = lazy(r"[A-H][).][ \t]")  # "A) TOML — simple": a choice offered, not a fact
GLOSS = lazy(r"\s*\([^()]*\)\s*$")  # a title's gloss: "(P0)", "(Recommended)"
# Marks that are no words (emphasis, emoji); a currency sign is part of its amount, a backslash
# part of its Windows path (``C:\Users\me``, not "C: Users me").
_NOT_WORDS = lazy(r"[^\w`'\"()/\\.,:;!?&+=<>@#%$€£¥-]+")
# What names something (telling.SPECIFIC_WORD, but a dot or colon only inside a word: not the
# one ending a sentence or leading into a list): a number, code, a path, ``snake_case``,
# ``camelCase``, an acronym, ``a-hyphenated-name``, ``file.ext``.
_NAMES = lazy(r"[\d`_/@#]|[a-z][A-Z]|[A-Z]{2}|\w-\w|\w[.:]\w")


# A mark escaped by the note's writer or by Markdown (``\%\%``, ``\^abc``, ``\<b>``, ``\_x``):
# the mark is kept, the backslash is not (``C:\Users`` keeps its own).
_ESCAPED = lazy(r"\\([%<>^#*_\[\]|`])")


def plain(text: str) -> str:
    """A recap point as words: emphasis, emoji, escapes and a trailing colon dropped."""
    if "\\" in text:
        text = _ESCAPED.sub(r"\1", text)
    text = _NOT_WORDS.sub(" ", text.replace("**", "").replace("__", "")).strip()
    return text.rstrip(":").strip()


def words(text: str) -> str:
    """A text's words alone, case-folded: what two wordings with other marks share."""
    return " ".join(plain(text).split()).casefold()


def point(line: str) -> str:
    """The point a recap's line makes for its answer's outcome line: a heading or a bold line
    ("" for another line, and for a heading that only titles its part: "The Fix", "Critical
    Fixes (P0)", or that names only paths)."""
    found = RECAP_POINT.match(line)
    if found is None:
        return ""
    said = plain(found.group(1) or found.group(2))
    if briefrank.bare_title(said) or briefrank.only_paths(said) or (
            found.group(1) is not None and briefrank.title_only(GLOSS.sub("", said))):
        return ""
    return said


def detail(line: str, asking: bool) -> tuple[str, bool, bool]:
    """What a recap's line says as a detail ("" when nothing: a title, a source cited, a
    question and the choices below it), whether the lines below it are a question's choices
    (``asking``: they are below this one), and whether the line is a list item, a heading or
    a bold line (else prose)."""
    item = RECAP_ITEM.match(line)
    found = item or RECAP_POINT.match(line)
    if found is None:
        return "", asking, False
    said = plain(next((g for g in found.groups() if g), ""))
    if "?" in said:
        # A question asked (the note lists it under Open Questions), and the items below it
        # are the choices offered: neither is a fact of the answer.
        return "", True, True
    if item is None:
        if found.group(1) is not None or TITLE.fullmatch(found.group(2) or ""):
            return "", False, True  # a heading or a bold line alone titles the points below
        return said, False, True
    if SOURCE.fullmatch(item.group(1)) or asking or CHOICE.match(said):
        return "", asking, True  # a source cited ("- [Docs page](https://…)"), a choice
    return said, asking, True


def telling(point_: str) -> bool:
    """Whether a detail says enough: DETAIL_MIN_WORDS words, a path one word at most (a point
    naming files says little of them)."""
    return len(point_.split()) >= DETAIL_MIN_WORDS \
        and briefrank.words_beside_paths(point_) >= DETAIL_MIN_WORDS


def telling_sentences(line: str) -> list[str]:
    """The sentences of a quoted answer's prose line that tell something specific (a name, a
    path, a number) in DETAIL_MIN_WORDS words or more, paths aside; not a question, an
    exclamation, nor a line the entity notes' rule tells is no fact (thinking aloud, Claude
    narrating its turn, a label: mining.factrule). The cheap tests first: an answer has
    hundreds of lines."""
    if line.count(" ") < DETAIL_MIN_WORDS or not _NAMES.search(line):
        return []
    out: list[str] = []
    for sentence in briefrank.sentences(plain(line)):
        if len(sentence.split()) < DETAIL_MIN_WORDS or "?" in sentence \
                or not _NAMES.search(sentence):
            continue
        sentence = factrule.trim(sentence)
        if telling(sentence) and briefrank.says_something(sentence) \
                and not factrule.flaw(sentence):
            out.append(sentence)
    return out


# A point that says what changed or why (a value beside the one it replaced, a verb of change
# leading it, a cause or a limit), not a figure a report lists ("Current Date: …", "OS: …").
_CHANGED = lazy(
    r"→|->|⇒|\bfrom\s+\S+\s+to\b|\(was:?\s|^\W*(?:increased|decreased|raised|lowered|reduced|"
    r"enabled|disabled|removed|deleted|added|created|installed|uninstalled|set|changed|moved|"
    r"renamed|replaced|fixed|updated|upgraded|switched|configured|restored|killed|stopped|"
    r"blocked|excluded|kept|preserved|preserves|boost\w*|merged|tagged|pinned)\b",
    re.IGNORECASE)
_WHY = lazy(r"\b(?:because|due to|requires?|needs?|must|cannot|can't|doesn't|does not|won't|"
            r"isn't|not supported|no longer|instead of)\b", re.IGNORECASE)


def knowledge(point_: str) -> bool:
    """Whether an answer's point says what changed or why (:data:`_CHANGED`, :data:`_WHY`)."""
    return bool(_CHANGED.search(point_) or _WHY.search(point_))


_SEPARATOR = lazy(r"[\s|:-]+")


def row(line: str, below: str, header: list[str]) -> tuple[str, list[str]]:
    """What a row of a recap's table says as a detail, each cell after its column's header
    ("Secret Findings: Before 16,684, After 392"), and the header of the rows that follow: a row
    the separator is ``below`` is one ("" for it, for the separator, and for a row under no
    header). ``header`` is the one read before (digest keeps it for the answer's lines)."""
    body = line[1:].strip()
    if _SEPARATOR.fullmatch(body):
        return "", header
    cells = [plain(cell) for cell in table_cells(body)]
    if _SEPARATOR.fullmatch(below.lstrip(">").strip() or "x"):
        return "", cells
    if not header:
        return "", header  # no table's row: a line of pipes with no header above it
    named = [f"{header[n]} {cell}" if n < len(header) and header[n] else cell
             for n, cell in enumerate(cells) if n and cell]
    return (f"{cells[0]}: " + ", ".join(named) if cells[0] and named else ""), header
