"""Prompts: a rule the person states in one (pure; issue 28: nothing said is lost).

"never commit without signing", "always run the linter before pushing", "from now on, use pnpm
not npm", "don't use sudo for pip": the person sets how the work is done. Such a prompt is the
fact itself, not a question whose answer follows, so the turn keeps it as a decision
(``Rule from the person: …``) beside its work-log line: recall shows it as a fact, the briefing
and the entity notes can carry it, and the record after a compaction lists it.

A rule opens the prompt, or a sentence of it ("ok. never push to main."): ``never``,
``always``, ``from now on``, ``don't/do not … ever``, ``make sure to always``, ``stop using``,
``avoid``, ``prefer``, ``use X instead of Y``, ``use X, not Y``. "never mind" and a cue with
fewer than ``MIN_WORDS`` words ("never again", "always?") set no rule; a question sets none.
The rule is the prompt when it is short, else the sentences that state it. The other languages'
openers are ``mining.lang``'s ``rules`` ("ab jetzt", "désormais", "a partir de ahora").
"""

from __future__ import annotations

import re

from vaultmem.mining import lang
from vaultmem.mining.choices import accepted, picked
from vaultmem.notes.inline import one_line
from vaultmem.notes.lazyre import lazy

LABEL = "Rule from the person:"
MIN_WORDS = 3  # "never again" sets no rule
WHOLE_CHARS = 240  # a prompt this short is kept whole (its other sentences say the rule's how)
RULE_CHARS = 400  # of the sentences kept of a longer prompt
_SENTENCES = lazy(r"(?<=[.!?;])\s+|\n+")
_LEAD = lazy(r"^\W*(?:(?:ok(?:ay)?|so|and|also|but|please|pls|remember|note|fyi|btw|important)"
             r"\b[\s,:!.-]*)*", re.IGNORECASE)
_CUE = lazy(
    r"(?:never|always|from now on|going forward|in future|from here on|"
    r"(?:don'?t|do not|dont) (?:\w+ ){0,6}?(?:ever|again)\b|(?:don'?t|do not|dont) ever|"
    r"make sure (?:to |that )?(?:you )?always|stop using|avoid|prefer|"
    r"use \S+(?: \S+){0,3}? (?:instead of|rather than|not) )\b",
    re.IGNORECASE,
)
_NOT_A_RULE = lazy(r"never ?mind|nevermind", re.IGNORECASE)
# The same in the other languages (``mining.lang``): "nie ohne Tests pushen", "désormais, …".
_LEAD_OTHER = lazy(lambda: r"^\W*(?:" + lang.words(lang.every("fillers")) + r"[\s,:!.-]*)*",
                   re.IGNORECASE)
_CUE_OTHER = lazy(lambda: lang.words(lang.every("rules")), re.IGNORECASE)
_NOT_A_RULE_OTHER = lazy(lambda: lang.words(lang.every("not_rules")), re.IGNORECASE)


def _opens_rule(text: str) -> bool:
    """Whether ``text`` (its lead words off) opens with a rule's cue, in English or another
    language."""
    if _CUE.match(text) and not _NOT_A_RULE.match(text):
        return True
    other = _LEAD_OTHER.sub("", text, count=1)
    return _CUE_OTHER.match(other) is not None and _NOT_A_RULE_OTHER.match(other) is None


def _states_rule(sentence: str) -> bool:
    """Whether ``sentence`` opens with a rule's cue and says enough to be one."""
    text = _LEAD.sub("", sentence.strip(), count=1)
    if not _opens_rule(text) or text.rstrip().endswith("?"):
        return False
    return len(re.findall(r"\w+", text)) >= MIN_WORDS


def rule(prompt: str | None) -> str | None:
    """The ``Rule from the person: …`` item a prompt states, or None."""
    if not prompt:
        return None
    said = [s for s in _SENTENCES.split(prompt.strip()) if s.strip()]
    stating = [s for s in said if _states_rule(s)]
    if not stating:
        return None
    flat = one_line(prompt)
    text = flat if len(flat) <= WHOLE_CHARS else one_line(" ".join(stating), RULE_CHARS)
    return f"{LABEL} {text}"


def decisions(prompt: str | None, asked: str | None) -> list[str]:
    """What a prompt decides: the rule it states, the option it picks of those ``asked`` (the
    answer before it) offered, the recommendation of ``asked`` it takes (:mod:`mining.choices`)."""
    return [text for text in (rule(prompt), picked(asked, prompt), accepted(asked, prompt))
            if text is not None]
