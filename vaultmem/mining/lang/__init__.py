"""The words of the rules in languages other than English, one table per language (pure).

People use Claude Code in their own language; the rules that find knowledge in a session were
written in English and stay in the modules that apply them (``kinds``, ``text``, ``prompts``,
``claude.records``, ``claude.moments``). Each other language is one :class:`Language` table in
its own module (``de``, ``fr``, ``es``), listing, for every rule family, the phrases that play
the English words' part; the rule modules read them only through the helpers here. Adding a
language is adding a module and its entry in :data:`LANGUAGES`.

An entry is a regular-expression fragment, matched case-blind as whole words. The labels and
the prompt families (greetings, carrying on, rules the person sets, words that name no task)
apply whatever the language; the sentence cues (next steps, decisions, gotchas, hedges,
narration) apply to a sentence only when :func:`of` finds it written in that language, so they
never touch an English sentence and English precision stays what it was.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from vaultmem.notes.lazyre import LazyPattern, lazy
from vaultmem.notes.schema import Kind


@dataclass(frozen=True)
class Language:
    """The phrases of one language, by rule family (each entry a case-blind regex fragment)."""

    code: str
    # Common short words that tell a sentence is in this language (none shared with the others).
    marks: frozenset[str]
    # ---- prompts: what names no work ----
    greetings: tuple[str, ...]  # a prompt that only greets
    fillers: tuple[str, ...]  # words around a request that name nothing ("please", "ok")
    carry_on: tuple[str, ...]  # asking only to carry on ("continue", "where were we")
    carry_on_tail: tuple[str, ...]  # what may follow it ("where we left off", "the last session")
    no_task: frozenset[str]  # words of a prompt that name no task ("thanks", "yes") and glue
    rules: tuple[str, ...]  # what opens a rule the person sets ("never", "from now on")
    not_rules: tuple[str, ...]  # what looks like one and is not ("never mind", "still")
    # ---- labels: a heading, a lead-in line or a label before a colon ----
    sections: dict[Kind, tuple[str, ...]] = field(default_factory=dict)
    labels: dict[Kind, tuple[str, ...]] = field(default_factory=dict)  # only before a colon
    done: tuple[str, ...] = ()  # a heading naming what was done ("Completed", "Changes made")
    # ---- sentence cues (applied to a sentence written in this language) ----
    next: tuple[str, ...] = ()  # a next step: "still needs to", "the next step is"
    decision: tuple[str, ...] = ()  # a choice stated as made: "we decided to", "I went with"
    contrast: tuple[str, ...] = ()  # "instead of": a decision when an ``actor`` did it
    actor: tuple[str, ...] = ()  # a first-person actor who did something ("I have", "we")
    gotcha: tuple[str, ...] = ()  # a cause or fix stated as found: "the cause was", "because"
    question: tuple[str, ...] = ()  # a question stated as open: "it is unclear whether"
    hedge: tuple[str, ...] = ()  # a hedge or hypothetical: no decision, gotcha or step
    narration: tuple[str, ...] = ()  # Claude's next move in this turn: "let me check"


def wordset(text: str) -> frozenset[str]:
    """The words of ``text`` (split on white space) as a set: a table's word lists."""
    return frozenset(text.split())


def languages() -> tuple[Language, ...]:
    """The languages with a table, besides English."""
    from . import de, es, fr

    return (de.LANGUAGE, fr.LANGUAGE, es.LANGUAGE)


def either(fragments: Iterable[str]) -> str:
    """The fragments as one non-capturing alternation (``(?:a|b)``)."""
    return "(?:" + "|".join(fragments) + ")"


def words(fragments: Iterable[str]) -> str:
    """The fragments as one alternation of whole words."""
    return r"(?<!\w)" + either(fragments) + r"(?!\w)"


def every(family: str) -> list[str]:
    """One family's fragments of every language (``"greetings"``, ``"rules"``…)."""
    return [entry for language in languages() for entry in getattr(language, family)]


def every_kind(family: str, kind: Kind) -> list[str]:
    """The fragments every language names ``kind`` with in ``family`` (``sections``, ``labels``)."""
    return [entry for language in languages() for entry in getattr(language, family).get(kind, ())]


def no_task_words() -> frozenset[str]:
    """The words of every language that name no task (for the prompt hooks' stop list)."""
    return frozenset().union(*(language.no_task for language in languages()))


# ---- which language a sentence is written in --------------------------------------------------
_WORD = lazy(r"[^\W\d_]+(?:['’][^\W\d_]+)?")
_ENGLISH = wordset(
    "the a an and is are was were to of that with for this it its you we i not have has be been "
    "by on from as at which but so"
)
MIN_MARKS = 2  # of a language's marks a sentence holds, more than of English's


def of(text: str) -> Language | None:
    """The language (not English) ``text`` is written in, or None: the one whose marks it holds
    most, at least ``MIN_MARKS`` of them (one when it holds no English mark), and more than it
    holds English ones."""
    said = [word.casefold().replace("’", "'") for word in _WORD.findall(text)]
    if not said:
        return None
    english = sum(word in _ENGLISH for word in said)
    best: Language | None = None
    most = 0
    for language in languages():
        count = sum(word in language.marks for word in said)
        if count > most:
            best, most = language, count
    if best is None or most <= english or (most < MIN_MARKS and english):
        return None
    return best


# ---- a language's sentence cues, compiled once each -------------------------------------------
_CUES: dict[tuple[str, str], LazyPattern | None] = {}


def cue(language: Language, family: str) -> LazyPattern | None:
    """``family``'s fragments of ``language`` as one case-blind pattern of whole words (None
    when the language lists none)."""
    key = (language.code, family)
    if key not in _CUES:
        fragments = getattr(language, family)
        _CUES[key] = lazy(words(fragments), re.IGNORECASE) if fragments else None
    return _CUES[key]


def found(language: Language | None, family: str, text: str) -> re.Match[str] | None:
    """Where ``family``'s cue of ``language`` first occurs in ``text`` (None: no language, no
    cue, or no match)."""
    if language is None:
        return None
    pattern = cue(language, family)
    return pattern.search(text) if pattern is not None else None
