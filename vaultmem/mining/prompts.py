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

A directive in a general shape is a rule too, once Claude acts on it (the turn called a tool or
answered without asking back): "don't use sudo for pip installs", "commits should be signed",
"use pnpm for installs", "I prefer tabs",
"the API should return 404 for missing users", "we should use pytest not unittest". Not "don't
push yet" (for now), "the tests should pass" (an expectation), "we should fix the parser" (a
request for work) nor "it should work now" (what "it" is, the line alone never says).

A prompt that changes the course of the work is a choice the person made (``Choice from the
person: …``), kept the same way: a correction that names what to do ("no, use pnpm", "actually,
let's go with Postgres"), a "don't X, Y instead" ("dont block the commit, instead redact each
secret"), or a pick stated outright ("let's go with SQLite", "stick with the current schema").
"no", "no, that's not it", a question ("why did you use X instead?") and a task ("use the CLI to
raise the fan speed") choose nothing. The other languages' phrases are ``mining.lang``'s
``corrections`` ("nein, nimm …", "à la place", "en su lugar").

The words the person types when rejecting a tool call ("… To tell you how to proceed, the user
said:\n<words>") are such a course change whatever their cue (:func:`redirect`): what Claude was
about to do was refused, and they say what to do instead. Their questions are left out.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from vaultmem.mining import lang
from vaultmem.mining.choices import accepted, picked
from vaultmem.notes.inline import one_line
from vaultmem.notes.lazyre import lazy

LABEL = "Rule from the person:"
CHOICE_LABEL = "Choice from the person:"
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
# "don't use sudo for pip": a way of working ruled out ("don't push yet" is for now only).
_DONT_USE = lazy(r"(?:don'?t|do not|dont) (?:ever )?(?:use|rely on|depend on|hard-?code|mock)\s+"
                 r"(?!.*\b(?:yet|for now|right now|this time|until|before)\b)\S", re.IGNORECASE)
# "use pnpm for installs", "let's use SQLite as the cache": a tool given a role ("use the CLI to
# raise the fan speed" is a task); "I prefer tabs", "I'd rather keep one file": a preference.
_USE_FOR = lazy(r"(?:let'?s |lets |we(?:'ll| will) |just )?use (?!(?:it|this|that|them)\b)\S+"
                r"(?: \S+){0,3}? (?:for|as) (?!(?:now|a (?:moment|while|test)|testing|debugging)\b)"
                r"\S|i(?:'d| would)? (?:prefer|rather)\b", re.IGNORECASE)
# "commits should be signed", "the API should return 404 …": how a thing of the project must be;
# not a pronoun's ("it should work"), an expectation ("should pass", "should be fixed") or a
# request for work ("we should fix …": the verb must state how, not what to do now).
_SHOULD = lazy(
    r"(?!(?:i|you|it|this|that|these|those|there|they|he|she|which|what|who|how|why|when|"
    r"everything|something|nothing|all)\b)(?:[\w`'./-]+ ){1,5}(?:should|must|has to|have to|"
    r"needs? to)(?: (?:always|never|only) \w|(?: not)? (?:use|be|return|stay|live|go|follow|"
    r"default|point|accept|reject|require|include|exclude|show|display|store|match|raise|throw|"
    r"ignore|skip|support|contain|prefer|sort|log|print|start with|end with|run on|run in|"
    r"read from|write to)\b(?! (?:fine|ok|okay|good|able|possible|working|passing|there|enough|"
    r"done|gone|back|visible|better|easy|fast|faster|safe|run|set up|in place|ready|the same)"
    r"\b)(?! \w+(?:ed|en)\b(?<!\bsigned)(?<!\bencrypted)))",
    re.IGNORECASE)
_CHOOSE = (r"(?:use|switch (?:\S+ ){0,3}?to|go (?:back )?(?:with|to)|stick with|stay with|revert to|"
           r"keep|make (?:it|them|that|this)|change (?:it|them|that|this) to|call (?:it|them)|"
           r"name (?:it|them)|put (?:it|them)|move (?:it|them)|store (?:it|them)|settle on)")
# A correction: "no, use pnpm", "nope - keep the old name", "actually, let's go with Postgres".
_CORRECTION = lazy(
    r"^(?:no(?:pe|ah?)?|nah|not (?:that|this|like that)|actually|wait|rather|instead)\b[\s,.!:;-]*"
    r"(?:(?:please|pls|just|then|so)\b[\s,]*)*(?:let'?s |we(?:'ll| will| should) )?" + _CHOOSE
    + r"\b", re.IGNORECASE)
# A pick said outright: "let's go with SQLite", "stick with the current schema".
# Not "switch to the main branch" or "let's use the debugger": a step as often as a choice.
_PICK = lazy(r"^(?:let'?s |we(?:'ll| will) )?(?:go with|stick with|stay with|settle on)\b",
             re.IGNORECASE)
# "don't X, Y instead", "instead of X, do Y", "use X instead": a way swapped for another.
_INSTEAD = lazy(r"\binstead\b|\brather than\b", re.IGNORECASE)
_SWAP_OPENS = lazy(
    r"^(?:(?:when|while|for|on|in|if|before|after)\b[^,]{0,120},?\s*)?(?:(?:please|pls|just)\s+)?"
    r"(?:don'?t|do not|dont|stop|never|no more|instead of\b|" + _CHOOSE + r"\b)|"
    r"\b(?:don'?t|do not|dont)\b[^.?!]{1,120}\binstead\b",
    re.IGNORECASE)
# Asking, not choosing: "why did you use X instead?", "can you switch to …", "should we …".
_ASKS = lazy(r"^(?:why|how|what|which|can|could|would|should|shall|is|are|do|does|did|will|"
             r"may)\b", re.IGNORECASE)
_OPTION_ONLY = lazy(r"\b(?:option|approach|plan|choice|number|variant)\s*#?\w\b|"
                   r"\b(?:the )?(?:first|second|third|fourth|last|other) (?:one|option)\b",
                   re.IGNORECASE)
MAX_OPTION_WORDS = 6
_CHOICE_OTHER = lazy(lambda: lang.words(lang.every("corrections")), re.IGNORECASE)
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


def _directs(sentence: str) -> bool:
    """Whether ``sentence`` is a rule or a directive in a general shape (see the module)."""
    if _states_rule(sentence):
        return True
    text = _LEAD.sub("", sentence.strip(), count=1)
    if text.rstrip().endswith("?") or _ASKS.match(text) \
            or len(re.findall(r"\w+", text)) < MIN_WORDS + 1:
        return False
    return any(shape.match(text) is not None for shape in (_DONT_USE, _SHOULD, _USE_FOR))


def rule(prompt: str | None, *, acted: bool = False) -> str | None:
    """The ``Rule from the person: …`` item a prompt states, or None; ``acted``: Claude acted
    on the prompt, so a directive in a general shape counts too."""
    return _stated(prompt, _directs if acted else _states_rule, LABEL)


def _stated(prompt: str | None, states: Callable[[str], bool], label: str) -> str | None:
    """``label`` and the prompt when a sentence of it ``states`` (the prompt whole when short,
    else those sentences), or None."""
    if not prompt:
        return None
    said = [s for s in _SENTENCES.split(prompt.strip()) if s.strip()]
    stating = [s for s in said if states(s)]
    if not stating:
        return None
    flat = one_line(prompt)
    text = flat if len(flat) <= WHOLE_CHARS else one_line(" ".join(stating), RULE_CHARS)
    return f"{label} {text}"


def _chooses(sentence: str) -> bool:
    """Whether ``sentence`` changes the course of the work (see the module)."""
    text = _LEAD.sub("", sentence.strip(), count=1)
    if text.rstrip().endswith("?") or _ASKS.match(text) \
            or len(re.findall(r"\w+", text)) < MIN_WORDS:
        return False
    if _OPTION_ONLY.search(text) and len(text.split()) <= MAX_OPTION_WORDS:
        return False  # "let's go with option 2": which one, only the answer before it says
    if _CORRECTION.match(text) or _PICK.match(text):
        return True
    if _INSTEAD.search(text) and _SWAP_OPENS.search(text):
        return True
    return _CHOICE_OTHER.search(text) is not None


def choice(prompt: str | None) -> str | None:
    """The ``Choice from the person: …`` item a prompt states, or None."""
    return _stated(prompt, _chooses, CHOICE_LABEL)


_REJECTED = lazy(r"\bthe tool use was rejected\b.*?\bthe user said:\s*(?P<said>\S.*)\Z",
                 re.IGNORECASE | re.DOTALL)
_ASKED_RE = lazy(r"\?\s*$")


def redirect(result: str | None) -> str | None:
    """The ``Choice from the person: …`` item of a tool call the person rejected with words of
    their own (its result), or None: their sentences but the questions."""
    found = _REJECTED.search(result or "")
    if found is None:
        return None
    said = [s for s in _SENTENCES.split(found.group("said").strip())
            if s.strip() and not _ASKED_RE.search(s)]
    text = one_line(" ".join(said), RULE_CHARS)
    if len(re.findall(r"\w+", text)) < MIN_WORDS:
        return None
    return f"{CHOICE_LABEL} {text}"


def decisions(prompt: str | None, asked: str | None, *, acted: bool = False) -> list[str]:
    """What a prompt decides: the rule it states, the option it picks of those ``asked`` (the
    answer before it) offered, the recommendation of ``asked`` it takes (:mod:`mining.choices`),
    else the course it sets (:func:`choice`); ``acted``: as for :func:`rule`."""
    found = [text for text in (rule(prompt, acted=acted), picked(asked, prompt),
                               accepted(asked, prompt))
             if text is not None]
    if not found:
        found += [text for text in (choice(prompt),) if text is not None]
    return found
