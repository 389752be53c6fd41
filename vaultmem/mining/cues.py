"""The cue vocabulary and the kind of knowledge one sentence holds (pure), if any."""

from __future__ import annotations

import re

from vaultmem.mining import lang
from vaultmem.mining.caveats import (
    FLAW_NAMED,
    HARMLESS,
    LIMITATION,
    NO_NEED,
    NOTED,
    OTHERWISE,
    PRIVILEGED,
    TREATS,
    UNAVAILABLE,
)
from vaultmem.mining.cue import Cue
from vaultmem.mining.kinds import (
    ACTOR_ACT,
    ANAPHORA,
    ASK_USER,
    CAUSE_STATED,
    CLAUSE_END_RE,
    CODE_ENV_RE,
    CONTRAST,
    CONTRAST_LEAD,
    CONTRAST_REASONED,
    COURTESY,
    DASH_REASON,
    DECISION,
    DESIGN_REASON,
    DESIGN_VERB,
    DIAGNOSED,
    DONE_VERB,
    ENV_CONTEXT,
    ENV_SUFFIX_RE,
    ENV_VAR_RE,
    FIX_STATED,
    FORM_RULE,
    GOTCHA,
    GOTCHA_WEAK,
    HEDGE,
    KEPT_AS_IS,
    LET_ME_KNOW,
    NAMES_ONLY,
    NARRATION,
    NEEDED,
    NEEDED_STRONG,
    NEXT,
    NEXT_HEDGE,
    NOT_ENV,
    NOT_ENV_CONTEXT,
    NOT_NEEDED,
    NOW_INSTEAD,
    OFFER,
    PASSIVE_CHOICE,
    PASSIVE_CHOSEN,
    PREREQ,
    PREREQ_NARRATION,
    PREREQ_ORDER,
    PREREQ_SETUP,
    PREREQ_STRONG,
    PREREQ_THING,
    QUESTION_OPEN,
    REQUIRES_CODE,
    RESOLVED,
    SELF_NEED,
    SETTING_ARROW,
    SETTING_CHANGED,
    SETTING_CHOSEN,
    SUMMARY_MOVE,
    TEST_INTENT,
    TO_USER,
    WRONG_USE,
)
from vaultmem.mining.states import set_up
from vaultmem.mining.text import (
    PAREN_RE,
    PLACEHOLDER_RE,
    TOPIC_RE,
    WS_RE,
    Masks,
    Unit,
    plain_unit,
)
from vaultmem.notes.lazyre import lazy
from vaultmem.notes.schema import Kind


def classify(unit: Unit, masks: Masks, trailing: bool, *, final: bool = False) -> Kind | None:
    """The kind of knowledge ``unit`` holds, None for none; ``trailing``: it is among the
    questions that end the message; ``final``: it is in the turn's final answer, where a state
    set up by choice is a decision (:mod:`mining.states`)."""
    if unit.label is not None:
        return unit.label
    text = plain_unit(unit.text)
    if not text:
        return None
    topic = TOPIC_RE.match(text)
    bare = text[topic.end() :] if topic else text  # "**Hashing:** went with X" -> "went with X"
    if text.endswith("?"):
        return _question(unit, bare, text, trailing)
    if unit.section is not None and unit.item:
        offer = unit.section == Kind.QUESTION and (OFFER.search(bare) or bare_choice(bare))
        return None if offer or NAMES_ONLY.fullmatch(bare) else unit.section
    if final and text.endswith(":") and len(text.split()) >= 4 \
            and set_up(text[:-1], plain_unit(masks.restore(unit.text))[:-1]):
        return Kind.DECISION  # "Merged `x.py` into `tests/`:" and what it holds below
    if text.endswith(":") or len(text.split()) < 4:
        return None  # a lead-in to what follows, or too short to carry knowledge
    other = lang.of(text)  # a sentence in another language: its table's cues too
    if other is not None:
        return _other(other, unit, bare)
    if LET_ME_KNOW.search(bare) and not OFFER.search(bare) and not bare_choice(bare):
        return Kind.QUESTION
    if NARRATION.search(text) or NARRATION.search(bare):
        return None
    # Asides in parentheses do not carry the sentence's cue ("(… defined but not wired)").
    bare = WS_RE.sub(" ", PAREN_RE.sub(" ", bare)).strip()
    forms = (bare, text) if topic else (bare,)
    if QUESTION_OPEN.search(bare) and not RESOLVED.search(bare):
        return Kind.QUESTION
    if _any(NEXT, forms) and not NEXT_HEDGE.search(bare):
        return Kind.NEXT_STEP
    if HEDGE.search(_main_clause(bare)):
        return None
    if ANAPHORA.search(bare):
        return None
    full = plain_unit(masks.restore(unit.text))
    if SETTING_CHOSEN.search(bare):
        return Kind.DECISION  # its reason may name a symptom ("… because the API times out")
    gotcha = (
        GOTCHA.search(bare)
        or (GOTCHA.search(text) if topic else None)
        or CAUSE_STATED.search(bare)
        or FIX_STATED.search(bare)
        or WRONG_USE.search(bare)
    )
    if gotcha and not TEST_INTENT.search(bare) and not _hedged_near(gotcha):
        return Kind.GOTCHA
    if _is_decision(bare) or (topic is not None and _topic_decision(text, topic.end())):
        return Kind.DECISION
    if FORM_RULE.search(bare) or LIMITATION.search(bare) or DIAGNOSED.search(bare) \
            or TREATS.search(bare) or _any(FLAW_NAMED, forms) or _any(NO_NEED, forms) \
            or HARMLESS.search(bare) or UNAVAILABLE.search(bare) or PRIVILEGED.search(bare):
        return Kind.GOTCHA
    if _is_prerequisite(bare, full, masks, unit.text):
        return Kind.PREREQUISITE
    if _any(GOTCHA_WEAK, forms) or NOTED.search(text) or OTHERWISE.search(bare):
        return Kind.GOTCHA
    if final and any(set_up(form, full) for form in forms):
        return Kind.DECISION
    return None


def _other(language: lang.Language, unit: Unit, text: str) -> Kind | None:
    """The kind of a sentence written in ``language`` (not English), by its table's cues in the
    English rules' order: narration and hedges veto, then an open question, a next step, a
    gotcha, a decision (a choice stated, or an actor's "instead of")."""
    text = WS_RE.sub(" ", PAREN_RE.sub(" ", text)).strip()
    if lang.found(language, "narration", text):
        return None
    if lang.found(language, "unknowns", text):
        return Kind.QUESTION
    if lang.found(language, "hedge", text):  # anywhere: precision first
        return None
    if lang.found(language, "steps", text):
        return Kind.NEXT_STEP
    if lang.found(language, "causes", text):
        return Kind.GOTCHA
    if lang.found(language, "choices", text):
        return Kind.DECISION
    contrast = lang.found(language, "contrast", text)
    if contrast and lang.found(language, "actor", text[: contrast.start()]):
        return Kind.DECISION
    return None


def _hedged_near(match: re.Match[str]) -> bool:
    """Whether the clause around a cue hedges it ("…, which means it might be due to …")."""
    text = match.string
    start = 0
    for boundary in CLAUSE_END_RE.finditer(text, 0, match.start()):
        start = boundary.start()
    return HEDGE.search(text[start : match.end() + 20]) is not None


def _any(pattern: Cue, forms: tuple[str, ...]) -> bool:
    return any(pattern.search(form) for form in forms)


def _main_clause(text: str) -> str:
    """The sentence up to its first reason or subordinate clause (where hedges matter)."""
    end = CLAUSE_END_RE.search(text, 1)
    return text[: end.start()] if end else text


def _topic_decision(text: str, end: int) -> bool:
    """Whether what stands before the colon decides ("Decided against Redis: …") or the whole
    line is a setting's old and new value ("Entropy threshold: 3.5 → 3.0")."""
    return DECISION.search(text[:end].rstrip(" :*_")) is not None \
        or SETTING_ARROW.search(text) is not None


def _is_decision(text: str) -> bool:
    if DECISION.search(text) or PASSIVE_CHOICE.search(text) or KEPT_AS_IS.search(text):
        return True
    if PASSIVE_CHOSEN.search(text) or NOW_INSTEAD.search(text) or CONTRAST_REASONED.search(text):
        return True
    if SETTING_CHANGED.search(text) or SETTING_ARROW.search(text):
        return True
    contrast = CONTRAST.search(text)
    if contrast and ACTOR_ACT.search(text[: contrast.start()]):
        return True
    lead = CONTRAST_LEAD.search(text)
    if lead:
        return NARRATION.search(text[lead.end() - 2 :].lstrip(" ,")) is None
    contrast = CONTRAST.search(text)
    if contrast and DONE_VERB.search(text[: contrast.start()]):
        return True
    dash = DASH_REASON.search(text)
    if dash and SUMMARY_MOVE.search(text[: dash.start()]):
        return True  # "Pinned `node` to 20 — the addon doesn't build on 22"
    # A design move with its reason: "I moved X into Y, so the handlers can be tested …".
    if DESIGN_VERB.search(text) is None:
        return False
    reason = DESIGN_REASON.search(text)
    return bool(reason and DESIGN_VERB.search(text[: reason.start()]))


# The words of a question asking only to pick among what came before it ("Which option do you
# prefer?", "Which approach sounds better for you?", "Let me know which path you want to
# take!"): it names nothing, and the options it points at are not in it. No open question.
_CHOICE_TEXT = """
    which what whichever option options approach approaches path paths one ones way ways route
    routes choice choices direction alternative alternatives plan variant these those them this
    that of the a an do does did would will should could can is are was sounds sound seems
    better best good right preferable preferred prefer like want wish choose pick go take use
    with for to you your you'd we us our i me let know please interests interest suits suit
    works work appeals makes sense here now then so ok okay and or between
"""
_CHOICE_WORDS = frozenset(_CHOICE_TEXT.split())
_WORDS = lazy(r"[a-z']+")


def bare_choice(text: str) -> bool:
    """Whether a question only asks to pick among what came before it (``_CHOICE_WORDS``)."""
    words = _WORDS.findall(text.casefold())
    return bool(words) and words[0] in ("which", "what", "let", "please") \
        and all(word in _CHOICE_WORDS for word in words)


def _question(unit: Unit, text: str, whole: str, trailing: bool) -> Kind | None:
    words = text.split()
    if len(words) < 3 or NARRATION.search(whole) or NARRATION.search(text):
        return None
    other = lang.of(whole)
    if other is not None:  # the English offers and asks do not read it: its own cues do
        asked = unit.section == Kind.QUESTION or lang.found(other, "unknowns", text)
        return Kind.QUESTION if asked else None
    if COURTESY.search(text) or OFFER.search(text) or bare_choice(text):
        return None
    if unit.section == Kind.QUESTION:
        return Kind.QUESTION
    if trailing and (ASK_USER.search(text) or TO_USER.search(text)):
        return Kind.QUESTION
    if QUESTION_OPEN.search(text) or QUESTION_OPEN.search(whole):  # "Open question — who …?"
        return Kind.QUESTION
    return None


def _is_prerequisite(text: str, full: str, masks: Masks, masked: str) -> bool:
    """``text`` has code masked; ``full`` has it restored (package and tool names live there)."""
    if NOT_NEEDED.search(text) or SELF_NEED.search(text):
        return False
    if PREREQ_ORDER.search(text):
        return True
    needed = NEEDED.search(text) is not None
    if PREREQ_NARRATION.search(text) and not needed:
        return False  # "I've set REDIS_URL in .env": what was done, not what is needed
    env_var = _env_var(masked, masks, text)
    prereq = PREREQ.search(text) or PREREQ.search(full)
    thing = env_var or ((prereq or needed) and PREREQ_THING.search(full) is not None)
    if thing and prereq:
        return True
    if PREREQ_STRONG.search(text):
        return True
    if PREREQ_SETUP.search(text) and (env_var or (thing and needed)):
        return True
    if PREREQ_SETUP.search(text) and re.match(r"(?i)install\b", text):
        return True
    if REQUIRES_CODE.search(full):
        return True
    return env_var and NEEDED_STRONG.search(text) is not None


def _env_var(masked: str, masks: Masks, text: str) -> bool:
    """An environment variable named in the sentence: by its name (``REDIS_URL``) or its context
    (``set PGPASSWORD``); not a constant or macro (``SIMPLE_AUTOMATION_TEST``)."""
    plain = PLACEHOLDER_RE.sub(" ", masked)
    names = [m.group(0).lstrip("$") for m in ENV_VAR_RE.finditer(plain)]
    names += [code.lstrip("$").split("=")[0] for code in masks.code(masked)]
    names = [name for name in names if _is_env_name(name)]
    if NOT_ENV_CONTEXT.search(text):
        return False
    if any(ENV_SUFFIX_RE.search(name) for name in names):
        return True
    return bool(names) and ENV_CONTEXT.search(text) is not None


def _is_env_name(name: str) -> bool:
    """``REDIS_URL``; in a code span also ``PGPASSWORD`` (all capitals, not an SQL/HTTP word)."""
    if ENV_VAR_RE.fullmatch(name):
        return True
    return CODE_ENV_RE.fullmatch(name) is not None and name not in NOT_ENV
