"""The person's pick among the options Claude's last answer offered -> a decision (pure).

AskUserQuestion states a choice with a schema (:mod:`mining.structured`); as often Claude asks in
prose and the person answers in a short prompt of their own:

    Where should the cache live?          Which approach sounds better for you?
    1. **Redis** (shared by workers)      (after sections "## Rustup …", "## Pacman …")
    2. **Process memory**                 -> "Rustup"
    -> "1"

That prompt is the decision, but read alone it says nothing ("1"); with the options it picks it
says what was chosen and what was not, as an AskUserQuestion answer does:
``Where should the cache live? — chose: Redis (shared by workers); not chosen: Process memory``.

Precision first. A pick that only orders the work decides nothing: the question is Claude's
offer of its next move (``What would you like me to do?``, ``kinds.OFFER``) or the option
picked is one (``Proceed with the rebase``, ``Do both``, ``kinds.NEXT_MOVE``). The answer must
end on the question (its last prose line ends in ``?``, or the list that ends it follows a
lead-in ending in ``:`` or ``?``); the options are the list right before or after that
question, or else the answer's sections of one level (picked only by name). The prompt picks
one only when it is short (at most :data:`MAX_WORDS` words), asks nothing, and names one option
alone: by its number ("2", "option 2", "the second") or by words only that option holds
("rustup", "process memory"). A longer prompt is a request of its own.

A question can offer two ways in prose and no list: "Would you like me to force-remove X as
well, or leave it since Y depends on it?" -> "leave it" is ``… — chose: leave it since Y depends
on it; not chosen: force-remove X``, when the prompt's words are in one way only and not both
ways are Claude's next moves ("Should I run the suite or push?").

A recommendation the person takes is one too: the answer recommends a thing ("ccusage is your
best bet", "I recommend …") and ends offering to act on it ("Want me to install ccusage?"), the
prompt is a short yes; the decision is the recommending sentence (:func:`accepted`).
"""

from __future__ import annotations

from dataclasses import dataclass

from vaultmem.mining.cues import bare_choice
from vaultmem.mining.kinds import NEXT_MOVE, OFFER
from vaultmem.notes import mdlines
from vaultmem.notes.inline import clip, one_line
from vaultmem.notes.lazyre import lazy

MAX_WORDS = 6  # of a prompt that picks an option ("go with option 2 please")
OPTION_CHARS = 100  # of each option in the decision
LABEL_WORDS = 3  # of a line that labels a part of a section ("Advantages:")
TEXT_MAX_CHARS = 300  # of the decision, as an AskUserQuestion's
_FILLER_WORDS = """yes yeah yep ok okay sure please pls let's lets go with use the a an option number
    do i want choose pick prefer take that one this sounds good great fine we it"""
_FILLER = frozenset(_FILLER_WORDS.split())
_ORDINALS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "last": -1}
_NUMBER_RE = lazy(r"^(?:#|no\.?\s*)?(\d{1,2})[.):]?$")
_WORD_RE = lazy(r"[\w'-]+")
_DECOR_RE = lazy(r"\*\*|__|`")
_ASK_RE = lazy(r"(?i)\b(?:would you|should i|shall i|do you|want me|which|choose|pick|prefer"
               r"|options?|either|could (?:i|we)|can i|let me know)\b")
_SENTENCE_END_RE = lazy(r"(?<=[.!])\s+(?=[A-Z])")
_LEAD_DECOR_RE = lazy(r"^[^\w`\"'(]+")
# A question that offers two ways in prose: "Would you like me to <a>, or <b>?"
_EITHER_RE = lazy(
    r"(?i)^(?:.*?\b)?(?:would you like me to|would you prefer (?:that i |me to |to )?|should i|"
    r"shall i|do you want me to|want me to|should we|shall we|do you want to)\s+"
    r"(?P<a>\S.*?),? or (?P<b>\S.*?)\?$")
_YES = frozenset(["yes", "yeah", "yep", "yup", "sure", "ok", "okay", "please", "go", "do", "sounds"])
# An offer to act on something named: "Want me to install ccusage for you?"
_OFFER_ACT_RE = lazy(r"(?i)\b(?:want me to|would you like me to|should i|shall i|do you want me to)"
                     r"\s+(?P<what>[^?]+)\?$")
_OFFER_WORDS = frozenset(["for", "you", "now", "set", "up", "install", "use", "it", "them", "this", "that"])
# A sentence that recommends one thing: "X is your best bet", "I recommend X".
_RECOMMENDS_RE = lazy(r"(?i)\b(?:is|are) (?:your|the|my) (?:best|safest|simplest) (?:bet|option|"
                      r"choice|pick)\b|\bi(?:'d| would)? recommend\b|\bmy recommendation\b|"
                      r"\brecommended\b|\bi(?:'d| would) go with\b|\bi suggest\b")
# A choice record as :func:`_decision` and ``structured`` write it: "<question> — chose: …".
_RECORD_RE = lazy(r"^(?P<asked>.+?) — chose: (?P<rest>.+)$")
_ASKED_END_RE = lazy(r"(?<=[.!?])\s+(?=[A-Z])")
_WAY_END_RE = lazy(r"(?i)(?:,|\s)+(?:as well|too|instead|for now)$")


@dataclass(frozen=True)
class _Line:
    kind: str  # "item", "heading", "prose"
    text: str
    level: int = 0  # a heading's level, an item's indent
    block: int = 0  # consecutive items share one


def picked(asked: str | None, prompt: str | None) -> str | None:
    """The decision ``prompt`` makes by picking an option ``asked`` (Claude's answer right
    before it) offered, or None (see the module)."""
    if not asked or not prompt:
        return None
    said = one_line(prompt).strip()
    words = _WORD_RE.findall(said.casefold())
    if not words or len(words) > MAX_WORDS or said.endswith("?"):
        return None
    lines = _read(asked)
    asking = _question(lines)
    if asking is None or not asking[1]:
        either = _either(lines, words)
        if either is not None or asking is None:
            return either
    assert asking is not None
    question, options = asking
    if OFFER.search(question):
        return None  # "What would you like me to do next?": the pick orders the work
    headings = _sections(lines)
    number = _number(words)
    if number is not None:
        index = number - 1 if number > 0 else number
        if not -len(options) <= index < len(options):
            return None  # no list beside the question, or no such option
        chosen = options[index]
        return _decision(question, chosen, [o for o in options if o is not chosen])
    named = [w for w in words if w not in _FILLER and len(w) > 1]
    if not named:
        return None
    for group, listed in ((options, True), ([t for t, _ in headings], False)):
        holding = [o for o in group if set(named) <= set(_WORD_RE.findall(o.casefold()))]
        if len(holding) == 1:
            others = [o for o in group if o is not holding[0]] if listed else \
                _alike(headings, holding[0])
            return _decision(question, holding[0], others)
        if holding:
            return None  # the words name more than one option: no pick
    return None


def _either(lines: list[_Line], words: list[str]) -> str | None:
    """The pick of a prompt between the two ways one question at the answer's end offers in
    prose ("Should I force-remove X as well, or leave it since Y depends on it?" -> "leave
    it"), or None. One way must act on something (not both Claude's next moves: "run the
    tests or push?"), and the prompt's words must be in one way only."""
    last = lines[-1] if lines else None
    if last is None or last.kind != "prose":
        return None
    asked = [s for s in _ASKED_END_RE.split(last.text) if s.endswith("?")]
    ways = _EITHER_RE.match(asked[-1]) if asked else None
    if ways is None:
        return None
    first, second = (_WAY_END_RE.sub("", ways.group(g)).strip() for g in ("a", "b"))
    named = {w for w in words if w not in _FILLER and len(w) > 1}
    holding = [w for w in (first, second) if named and named <= _words(w)]
    if len(holding) != 1 or (NEXT_MOVE.search(first) and NEXT_MOVE.search(second)):
        return None
    other = second if holding[0] is first else first
    return clip(f"{asked[-1]} — chose: {holding[0]}; not chosen: {other}", TEXT_MAX_CHARS,
                words=False)


def accepted(asked: str | None, prompt: str | None) -> str | None:
    """The recommendation the person took: ``asked`` (Claude's answer right before the prompt)
    recommends something ("**ccusage** is your best bet - it works on Windows") and ends
    offering to act on it ("Want me to install ccusage for you?"), and the prompt is a short
    yes ("yes install ccusage"); the decision is the recommending sentence. None otherwise: an
    offer with no recommendation ("Want me to commit?" -> "yes") decides nothing."""
    if not asked or not prompt:
        return None
    said = one_line(prompt).strip().casefold()
    words = _WORD_RE.findall(said)
    if not words or len(words) > MAX_WORDS or said.endswith("?") or words[0] not in _YES:
        return None
    lines = [line for line in _read(asked) if line.kind != "heading"]
    if not lines or lines[-1].kind != "prose" or not lines[-1].text.endswith("?"):
        return None
    offer = [s for s in _ASKED_END_RE.split(lines[-1].text) if s.endswith("?")][-1]
    acted = _OFFER_ACT_RE.search(offer)
    if acted is None:
        return None
    wanted = {w for w in _WORD_RE.findall(acted.group("what").casefold())
              if w not in _FILLER and w not in _OFFER_WORDS and len(w) > 2}
    for line in reversed(lines[:-1]):
        for sentence in reversed(_ASKED_END_RE.split(line.text)):
            named = set(_WORD_RE.findall(sentence.casefold()))
            if _RECOMMENDS_RE.search(sentence) and wanted & named:
                return clip(sentence.strip(), TEXT_MAX_CHARS, words=False)
    return None


def _words(text: str) -> set[str]:
    """The words of ``text``, and the parts of its hyphenated ones ("force-remove": "remove")."""
    words = set(_WORD_RE.findall(text.casefold()))
    return words | {part for word in words for part in word.split("-") if part}


def _alike(sections: list[tuple[str, frozenset[str]]], chosen: str) -> list[str]:
    """The other sections laid out as ``chosen``'s (the same labels: "Advantages:",
    "Disadvantages:"): the alternatives a comparison weighed, not its recommendation or its
    install command."""
    labels = next(labels for title, labels in sections if title == chosen)
    return [t for t, other in sections if labels and other == labels and t != chosen]


def _read(text: str) -> list[_Line]:
    """The answer's list items (first line), headings and prose lines, outside code."""
    out: list[_Line] = []
    block = 0
    for _, line, inside in mdlines.lines_outside_fences(text.split("\n")):
        if inside or not line.strip() or mdlines.FENCE.match(line):
            continue
        heading = mdlines.HEADING.match(line)
        item = None if heading else mdlines.LIST_ITEM.match(line)
        if heading:
            block += 1
            out.append(_Line("heading", _label(heading.group(2)), len(heading.group(1)), block))
        elif item:
            if not out or out[-1].kind != "item":
                block += 1
            out.append(_Line("item", _label(line[item.end():]), len(item.group(1)), block))
        elif out and out[-1].kind == "item" and line[:1].isspace():
            continue  # an item's own continuation
        else:
            block += 1
            out.append(_Line("prose", _DECOR_RE.sub("", line).strip(), 0, block))
    return out


def _question(lines: list[_Line]) -> tuple[str, list[str]] | None:
    """The question that ends the answer and the options of the list beside it."""
    if not lines:
        return None
    last = lines[-1]
    if last.kind == "prose" and last.text.endswith("?"):
        before = lines[-2] if len(lines) > 1 else None
        if before is not None and before.kind == "item":
            return last.text, _items(lines, before.block)
        lead = _lead(lines, len(lines) - 1)  # "Would you like me to:" above items above "?"
        return last.text, [] if lead is None else _items(lines, lines[lead].block)
    if last.kind == "item":
        start = next(i for i, line in enumerate(lines) if line.block == last.block)
        if start and lines[start - 1].kind == "prose" and _asks(lines[start - 1].text):
            return lines[start - 1].text.rstrip(":").strip(), _items(lines, last.block)
    return None


def _asks(lead: str) -> bool:
    """Whether a lead-in above the list that ends an answer asks for a pick: a question, or a
    line ending in ``:`` that offers ("Should I:", "Options:"), not a label ("Next steps:")."""
    return lead.endswith("?") or lead.endswith(":") and _ASK_RE.search(lead) is not None


def _lead(lines: list[_Line], index: int) -> int | None:
    """The first item of a list right above line ``index`` that a question leads into."""
    if index < 1 or lines[index - 1].kind != "item":
        return None
    block = lines[index - 1].block
    start = next(i for i, line in enumerate(lines) if line.block == block)
    ok = start and lines[start - 1].kind == "prose" and lines[start - 1].text.endswith((":", "?"))
    return start if ok else None


def _items(lines: list[_Line], block: int) -> list[str]:
    """The top-level items of one list (the options): two or more, else none."""
    items = [line for line in lines if line.block == block and line.kind == "item"]
    top = min((line.level for line in items), default=0)
    options = [line.text for line in items if line.level == top and line.text]
    return options if len(options) >= 2 else []


def _sections(lines: list[_Line]) -> list[tuple[str, frozenset[str]]]:
    """The answer's sections of its most used heading level (two or more): each title with its
    labels (its subheadings, and its prose lines of at most :data:`LABEL_WORDS` words ending
    in ``:``), case aside."""
    levels = [line.level for line in lines if line.kind == "heading"]
    if not levels:
        return []
    level = max(set(levels), key=levels.count)
    found: list[tuple[str, set[str]]] = []
    for line in lines:
        heading = line.kind == "heading"
        if heading and line.level <= level:
            # A section of an upper level ends the one before: a title "" is no section.
            found.append((line.text if line.level == level else "", set()))
        elif found and (heading or line.kind == "prose" and line.text.endswith(":")
                        and len(line.text.split()) <= LABEL_WORDS):
            found[-1][1].add(line.text.rstrip(":").strip().casefold())
    sections = [(title, frozenset(labels)) for title, labels in found if title]
    return sections if len(sections) >= 2 else []


def _number(words: list[str]) -> int | None:
    """The option number a prompt names alone ("2", "option 2", "the second one"), or None."""
    rest = [w for w in words if w not in _FILLER]
    if len(rest) != 1:
        return None
    if rest[0] in _ORDINALS:
        return _ORDINALS[rest[0]]
    match = _NUMBER_RE.match(rest[0])
    return int(match.group(1)) if match and int(match.group(1)) > 0 else None


def _label(text: str) -> str:
    """An option as one short line: emphasis and leading symbols gone, no trailing ``:``/``?``."""
    text = _LEAD_DECOR_RE.sub("", _DECOR_RE.sub("", text)).strip()
    return clip(one_line(text).rstrip(":?").strip(), OPTION_CHARS)


def _decision(question: str, chosen: str, others: list[str]) -> str | None:
    if NEXT_MOVE.search(chosen):
        return None  # "Proceed with the rebase": Claude's next move, no decision
    asked = _SENTENCE_END_RE.split(one_line(question))[-1]  # "Done! Would you like to" -> its ask
    text = f"{asked} — chose: {chosen}"
    if others:
        text += "; not chosen: " + ", ".join(others)
    return clip(text, TEXT_MAX_CHARS, words=False)


def plain(decision: str) -> str:
    """A choice record as an entity line: without its question when that names nothing of what
    was picked ("Which option would you like? — chose: X; not chosen: Y" -> "Chose: X; not
    chosen: Y", ``cues.bare_choice``). Under a component's Key Decisions such a question reads
    as noise before the decision, and the options say it all; the session note keeps it, as it
    finds the turn the pick was made in (``memory.lookahead``)."""
    record = _RECORD_RE.match(decision)
    if record is None or not bare_choice(record.group("asked")):
        return decision
    return "Chose: " + record.group("rest")
