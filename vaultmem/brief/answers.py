"""The sessions' answers and items as briefing lines (pure): each on one line, cut between words
to its length, an answer without the sentences an item the briefing lists says (said there only),
without the ones that say nothing, and from the point.
"""

from __future__ import annotations

from collections.abc import Sequence

from vaultmem.notes import inline
from vaultmem.notes.facts import copy_key
from vaultmem.notes.lazyre import lazy

from . import briefrank
from .dedup import CONTAINED_MIN_CHARS
from .digest import EntityDigest, Item, SessionDigest
from .worklog import Turn

ITEM_MAX_CHARS = 300
DETAIL_MAX_CHARS = 200
ANSWER_MAX_CHARS = 420
# An earlier answer's line: a sentence or two (condensed), not a paragraph.
OUTCOME_MAX_CHARS = 200
# What a part of a condensed line costs beyond its characters: a two-word point is no bargain.
PART_COST = 20
TITLE_MAX_CHARS = 80


def one_line(text: str) -> str:
    """``text`` on one line: control and line-separator characters shown as escapes."""
    return inline.one_line(text, controls="escape")


def cut(text: str, limit: int) -> str:
    return inline.one_line(text.strip(), limit, cut="words", controls="escape")


def item_line(i: Item, *, dated: bool = False) -> str:
    text = i.text
    if i.links and not dated:
        # A path link (``claude/projects/p/entities/Auth``) is shown by its note's name, the
        # alias vaultmem writes for it: paths would spend the budget and read as noise.
        text += " (" + ", ".join(link.rsplit("/", 1)[-1] for link in i.links) + ")"
    if dated and i.date:
        text = f"{i.date} — {text}"
    # Cut between words, keeping the first code span (a fix after its explanation) or a
    # "<cause>. Fix: <fix>" line's fix. Not the error a failure's quote holds, as capture keeps
    # it for the failure hook: a reader wants the lesson, and the words before the quote are it.
    return inline.clip_keeping_fix(one_line(briefrank.tidy(text.strip())), ITEM_MAX_CHARS)


def item_lines(items: Sequence[Item], *, dated: bool = False) -> list[str]:
    return [item_line(i, dated=dated) for i in items if i.text.strip()]


def lessons(items: Sequence[Item], *, dated: bool = False) -> list[str]:
    """Decisions or gotchas as lines: one that is only a heading (its part mined without it,
    :func:`briefrank.title_only`) tells nothing."""
    return item_lines([i for i in items if not briefrank.title_only(i.text)], dated=dated)


class Known:
    """The normalised text of every item the briefing may list (``keys``), and those of them
    an answer left a sentence to (``used``), to be said in the item's line only; ``steps``:
    the text of each step, prerequisite and question, by its normalised text."""

    def __init__(self, keys: set[str], steps: dict[str, str]) -> None:
        self.keys = keys
        self.used: set[str] = set()
        # Each step long enough to be told inside an answer, by its last characters: an answer's
        # end is looked up, not compared with every step.
        self.ends: dict[str, list[tuple[str, str]]] = {}
        for key, text in steps.items():
            if len(text) >= CONTAINED_MIN_CHARS:
                self.ends.setdefault(text[-CONTAINED_MIN_CHARS:], []).append((key, text))

    def unlisted(self, answer: str) -> str:
        """``answer`` without the steps capture appended to its line (workentry.with_knowledge:
        a next step, a prerequisite, a question mined from the turn, one after the other at its
        end) that the briefing lists: such a line is no lesson inside a longer one (dedup), it
        stays listed, and the answer would say it twice. (A decision or gotcha appended stays:
        dedup leaves it to the answer holding it.)"""
        lead, dash, points = answer.partition(" — ")
        cut = True
        while cut:
            cut = False
            for key, text in self.ends.get(lead[-CONTAINED_MIN_CHARS:], ()):
                rest = lead[:-len(text)]
                if key in self.keys and lead.endswith(text) and rest[-1:].isspace() \
                        and rest.strip():
                    lead, cut = rest.rstrip(), True
                    self.used.add(key)
                    break
        return lead + dash + points

    def listed(self, sentence: str, own: str | None = None) -> bool:
        """The sentence (``own``: its copy_key when known) is an item the briefing lists, or a
        lead-in to one ("Let me clarify: Want me to …?" whose question is listed)."""
        _, colon, tail = sentence.rpartition(": ")
        for key in (copy_key(sentence) if own is None else own,
                    copy_key(tail) if colon else None):
            if key is not None and key in self.keys:
                self.used.add(key)
                return True
        return False


def turn_lines(s: SessionDigest, known: Known, *, last: bool = False, upto: int | None = None,
               rest: list[str] | None = None) -> list[str]:
    """The session's answers as lines; a sentence the briefing lists as an item anyway (a
    decision, a next step, a prerequisite mined from this very answer) is said there only, and
    one that says nothing (:func:`briefrank.says_something`) not at all; an answer left empty is
    no line. Of the ``last`` session's final answer, too long for its line, the end is kept
    with its start: where the session left off is how it ends ("… The build passes; the deploy
    still needs the API key."); any other answer is :func:`condensed`, and the parts it leaves
    out are added to ``rest``. ``upto``: only the turns before it."""
    out: list[str] = []
    for n, t in enumerate(s.turns[:upto]):
        final = last and n == len(s.turns) - 1
        kept = said(t, known, ending=final)
        if not kept:
            continue
        if kept[-1].endswith(":"):
            kept[-1] = kept[-1][:-1] + "."  # its list is not on the line: the report ends here
        head = " ".join(p for p in (t.time, cut(t.title, TITLE_MAX_CHARS)) if p)
        if final:
            out.append(ends_kept(head, kept, ANSWER_MAX_CHARS))
            continue
        line, left = condensed(head, kept, OUTCOME_MAX_CHARS)
        out.append(line)
        if rest is not None:
            rest += [cut(f"{t.time} {part}" if t.time else part, DETAIL_MAX_CHARS) for part in left]
    return out


_PARTS = lazy(r"( — |; )")


def condensed(head: str, sentences: Sequence[str], limit: int) -> tuple[str, list[str]]:
    """``head → sentences`` within ``limit``, and the parts left out: when too long, its first
    part and then, in their order, those of its other parts (sentences, a recap's points) that
    tell the most per character (a name, a path, a value counting double:
    briefrank.information) among those that fit: a sentence or two, not a paragraph, that
    keeps the words a fact rests on. A first part longer than ``limit`` on its own (a report
    run into one paragraph) is cut between words at ANSWER_MAX_CHARS as before: cut at
    ``limit``, the held-out sets lost three facts such lines held."""
    whole = " ".join(sentences)
    line = f"{head} → {whole}" if head else whole
    if len(line) <= limit:
        return line, []
    parts: list[tuple[str, str]] = []  # (what joins it to the part before, its text)
    for sentence in sentences:
        pieces = _PARTS.split(sentence)
        parts.append((" " if parts else "", pieces[0]))
        parts += [(pieces[n], pieces[n + 1]) for n in range(1, len(pieces) - 1, 2)]
    first = f"{head} → {parts[0][1]}" if head else parts[0][1]
    room = limit - len(first)
    if room <= 0 or len(parts) < 2:
        return cut(line, ANSWER_MAX_CHARS), []
    told = set(briefrank.information(first))
    worth: list[tuple[float, int]] = []
    for n, (sep, text) in enumerate(parts[1:], 1):
        said = briefrank.information(text)
        new = sum(v for word, v in said.items() if word not in told)
        worth.append((-new / (len(sep) + len(text) + PART_COST), n))
    kept: set[int] = set()
    for value, n in sorted(worth):
        cost = len(parts[n][0]) + len(parts[n][1])
        if value < 0 and cost <= room:
            kept.add(n)
            room -= cost
    out = first
    for n in sorted(kept):
        # After a lead-in whose list is left out ("… options:"), the part follows it plainly.
        out += (" " if out.endswith(":") else parts[n][0]) + parts[n][1]
    return one_line(out), [text for n, (_, text) in enumerate(parts) if n and n not in kept]


def said(t: Turn, known: Known, *, ending: bool = False) -> list[str]:
    """The sentences of the turn's answer line that say something no listed item says, from the
    point; with ``ending``, then those of the paragraph its whole answer ends on (a session's
    last answer: where it left off), unless its line holds them already."""
    said = briefrank.sentences(known.unlisted(t.answer))
    if ending and t.ending and t.ending not in t.answer:
        said += briefrank.sentences(t.ending)
    return briefrank.from_the_point([x for x, key in once(said) if briefrank.says_something(x)
                                     and not known.listed(x, key)])


def once(sentences: Sequence[str]) -> list[tuple[str, str]]:
    """The sentences, each with its copy_key, without one that says again in its words what
    one before it said (an answer's line with a caveat mined from it appended in other marks:
    "**X** doesn't …" and "X doesn't …")."""
    out: list[tuple[str, str]] = []
    keys: set[str] = set()
    said = " "  # the keys so far, parted by " | " (never in a key)
    for sentence in sentences:
        key = copy_key(sentence)
        if key in keys or (len(key) >= CONTAINED_MIN_CHARS and f" {key} " in said):
            continue
        out.append((sentence, key))
        keys.add(key)
        said += f"{key} | "
    return out


def ends_kept(head: str, sentences: Sequence[str], limit: int) -> str:
    """``head → sentences`` within ``limit``: when too long, its first sentence (cut) and then,
    after "…", as many of its last sentences as fit in half of it."""
    whole = " ".join(sentences)
    line = f"{head} → {whole}" if head else whole
    if len(line) <= limit or len(sentences) < 2:
        return cut(line, limit)
    end: list[str] = []
    for sentence in reversed(sentences[1:]):
        if len(" ".join([sentence, *end])) > limit // 2:
            break
        end.insert(0, sentence)
    if not end:
        return cut(line, limit)
    ending = " ".join(end)
    start = " ".join(sentences[: len(sentences) - len(end)])
    first = f"{head} → {start}" if head else start
    return f"{cut(first, limit - len(ending) - 3)} … {ending}"


def details(s: SessionDigest) -> list[str]:
    """The points of the session's answers beyond their lines, each after its turn's time."""
    return [cut(f"{t.time} {d}" if t.time else d, DETAIL_MAX_CHARS)
            for t in s.turns for d in t.details]


def known(sessions_: Sequence[SessionDigest], prerequisites: Sequence[Item],
          entities: Sequence[EntityDigest]) -> Known:
    """The normalised text of every item the briefing may list, and the text of its steps."""
    steps = [*prerequisites]
    for s in sessions_:
        steps += [*s.prerequisites, *s.open_questions, *s.next_steps]
    items = [*steps]
    for s in sessions_:
        items += [*s.decisions, *s.gotchas]
    for e in entities:
        items += [*e.decisions, *e.gotchas]
    return Known({copy_key(i.text) for i in items},
                  {copy_key(i.text): i.text.strip() for i in steps})
