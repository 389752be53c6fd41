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

import functools
import re
from collections.abc import Iterable
from typing import TYPE_CHECKING

from vaultmem.notes.lazyre import LazyPattern, lazy

if TYPE_CHECKING:  # the tables are imported when a rule first needs them, not with this module
    from vaultmem.notes.schema import Kind

    from .table import Language as Language


@functools.cache
def languages() -> tuple[Language, ...]:
    """The languages with a table, besides English (imported at the first call)."""
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


@functools.cache
def no_task_words() -> frozenset[str]:
    """The words of every language that name no task (for the prompt hooks' stop list)."""
    return frozenset().union(*(language.no_task for language in languages()))


# ---- which language a sentence is written in --------------------------------------------------
_WORD = lazy(r"[^\W\d_]+(?:['’][^\W\d_]+)?")
_ENGLISH_TEXT = (
    "the a an and is are was were to of that with for this it its you we i not have has be been "
    "by on from as at which but so"
)
_ENGLISH = frozenset(_ENGLISH_TEXT.split())
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
