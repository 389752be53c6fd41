"""A secret given in the next record: Claude asks for one, the person's next prompt is its value
(pure).

"What's the sudo password?" then a prompt that says only "sunshine": no word of the prompt says
it is a password, so the detectors of one text (redact) cannot see it. The transcript's reader
passes the prose Claude ended on before each prompt (:func:`answered`); the prompt's value is
redacted when both hold:

- **Claude asked for a secret's value** in the last sentences of its prose: a question or a
  request naming a secret (secretcontext.WORD) as what is wanted, after "what" or a verb asking
  for it ("What's the db password?", "Could you paste your API token?", "Please provide the
  password for staging.", "I need the GitHub token to continue.", "Which password should I
  use?"); not a question about the secret ("Should I reset the password?", "Which key should
  I use, staging or prod?": a choice).
- **The prompt is a bare value**: one token, maybe quoted, in backticks or bold, maybe after
  "it's", "here it is:", "use", maybe before words of thanks ("hunter2 thanks", "it's hunter2,
  go ahead"); of four characters or more (with its sentence's mark); or, for
  a password, a passphrase of four or five plain words ("purple monkey dishwasher lamp";
  not "ask ops first"); not a reply ("yes", "skip",
  "later"), a path, a URL, an address or a slash command, and not a word of Claude's question
  (an option it named is a choice, not a secret).

AskUserQuestion's answers are read the same way: each ``"question"="answer"`` of its result,
the question being Claude's request (:func:`in_answers`: "Please paste the deploy token." =
"Qz7!mango").

Cheap: the prompt's length is checked first (secretspan.may_answer: this module is imported, and
Claude's prose before a read looked for, only for a prompt that short), so a transcript read
pays nothing for the rest.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from vaultmem.notes.lazyre import lazy
from vaultmem.notes.secretcontext import WORD
from vaultmem.notes.secretspan import MARK_OPEN, is_path, mark, may_answer
from vaultmem.notes.secretwords import passphrase_words

_LEAD = (r"(?:oh|ah|um|its|it['’]s|it\s+is|(?:it\s+)?should\s+be|i\s+(?:think|believe)|here(?:['’]s|\s+it\s+is"
         r"|\s+you\s+go)?|use|try|sure|ok(?:ay)?|yes|yeah|thanks|the\s+password\s+is|password\s+is"
         r"|pw\s+is)")
# Words after the value that say nothing of it ("hunter2 thanks", "it's hunter2, go ahead").
_TAIL = (r"(?:thanks?(?:\s+you)?|thx|ty|please|pls|cheers|go\s+ahead|i\s+think|iirc|btw"
         r"|for\s+now|(?:and\s+)?(?:continue|proceed|retry|try\s+again)|lol|:-?\)"
         r"|\((?:all\s+)?(?:lower|upper)\s*case\)|\(case[- ]sensitive\))")
# A prompt that is one value: maybe a lead-in, maybe quoted or in bold, maybe a full stop, maybe
# a word of thanks after it.
_BARE = lazy(r"(?is)\s*(?:" + _LEAD + r"[\s:,!-]+)*(?P<q>[`'\"]|\*\*|)(?P<v>[^\s`'\"]{4,200})"
             r"(?P=q)(?:[\s,;:!.—–-]+" + _TAIL + r"){0,3}[\s.!]*")
# Claude's request: "what" or a verb asking for something, then (few words, none "to") the
# secret's word: "What's the db password", "paste your API token", "need the password"; not
# "what does the token do", "need me to reset the password".
_ASKING = lazy(
    r"(?i)(?<![\w-])(?:what(?:['’]s|\s+is|\s+are|\s+was)?|provide|share|paste|give|send|tell"
    r"|enter|type|supply|input|post|need)(?:\s+(?:me|us))?\s+"
    r"(?:(?!(?:to|do|does|did|should|shall|would|could|can|will|if|about|kind|type|sort)\b)"
    r"[\w-]+\s+){0,3}?"
    r"(" + WORD + r"|key(?=\s*(?:\?|for\b|to\b|of\b)))(?![\w-])")
# "Which password should I use for the db?": a value asked for when no options are named.
_WHICH_ASK = lazy(r"(?i)(?<![\w-])which\s+(?:[\w-]+\s+){0,2}?(" + WORD + r")(?![\w-])\s+"
                  r"(?:should|shall|do|can)\s+(?:i|we)\s+(?:use|set|enter|try|give)\b[^?]*\?")
_SENTENCE_END = lazy(r"(?<=[.!?])\s+|\n+")
_TAIL_CHARS = 400  # how much of the end of Claude's prose its request is looked for in
_SENTENCES = 3  # in its last sentences
# Replies that give no value.
_REPLIES = frozenset({
    "yes", "yeah", "yep", "yup", "no", "nope", "nah", "ok", "okay", "sure", "done", "skip",
    "continue", "proceed", "go", "next", "cancel", "stop", "later", "none", "nothing", "idk",
    "dunno", "thanks", "thx", "retry", "again", "both", "either", "neither", "default",
    "random", "generate", "fine", "correct", "right", "wrong", "wait", "help", "why", "what",
    "huh", "same", "unknown", "empty", "blank", "nevermind", "please", "maybe", "agreed",
    "approved", "confirmed", "confirm", "good", "great", "perfect", "cool", "nice", "mate",
    "forgot", "dude", "buddy", "whatever", "anything", "yours", "mine", "existing",
})


def answered(prompt: str, asked: str | None,
             allowed: Callable[[str], bool] = lambda value: False) -> str:
    """``prompt`` with its value redacted when it is a bare value and ``asked`` (the prose
    Claude ended on before it) asks for a secret (module docstring); else ``prompt`` as is.
    ``allowed``: the allowlist's test of a value."""
    if not asked or not may_answer(prompt):
        return prompt
    bare = _BARE.fullmatch(prompt)
    if bare is None:
        return _passphrase(prompt, asked)
    value = bare.group("v").rstrip(",;")  # "it's hunter2, go ahead": the comma is the prose's
    said = value.rstrip(".!,;")
    if not _value(said) or said.lower() in asked.lower() or allowed(value) or allowed(said):
        return prompt
    kind = asking(asked)
    if kind is None:
        return prompt
    start = bare.start("v")
    return f"{prompt[:start]}{mark(kind)}{prompt[start + len(value):]}"


# AskUserQuestion's result: ``"<question>"="<answer>"`` for each question asked.
_PAIR = lazy(r'"([^"\n]+?)"="([^"\n]*)"')


def in_answers(said: str, allowed: Callable[[str], bool] = lambda value: False) -> str:
    """AskUserQuestion's result ``said`` with each answer redacted that is a bare value of a
    secret its question asks for (:func:`answered`: "Please paste the deploy token." =
    "Qz7!mango"); ``said`` as it is when none is."""
    def one(m: re.Match[str]) -> str:
        given = answered(m.group(2), m.group(1), allowed)
        return m.group(0) if given == m.group(2) else f'"{m.group(1)}"="{given}"'

    return _PAIR.sub(one, said) if '"="' in said else said


def asking(prose: str) -> str | None:
    """The kind of secret the end of ``prose`` asks the person for, or None."""
    tail = prose[-_TAIL_CHARS:]
    for sentence in _SENTENCE_END.split(tail.strip())[-_SENTENCES:]:
        m = _ASKING.search(sentence)
        if m is None and " or " not in sentence and "," not in sentence:
            m = _WHICH_ASK.search(sentence)  # no options named: the value itself is asked for
        if m is None:
            continue
        word = m.group(1).lower()
        if "pass" in word or word.startswith("pw"):
            return "password"
        return "token" if "token" in word else "api-key" if "key" in word else "secret"
    return None


def _passphrase(prompt: str, asked: str) -> str:
    """``prompt`` redacted whole when it is a passphrase of four plain words or more ("purple
    monkey dishwasher lamp": secretwords.passphrase_words) answering a request for a password."""
    said = prompt.strip().strip("'\"`")
    if not 4 <= len(said.split()) <= 5 or not passphrase_words(said) or asking(asked) != "password" or any(
            word.lower() in _REPLIES or word.lower() in asked.lower() for word in said.split()):
        return prompt
    start = prompt.index(said)
    return f"{prompt[:start]}{mark('password')}{prompt[start + len(said):]}"


def _value(value: str) -> bool:
    """Whether a prompt's one token can be a secret: not a reply, a path, a URL, an address,
    a slash command, a mark already there, or a number of one or two digits (an option)."""
    low = value.lower().strip("*_")
    if len(low) < 4 or low in _REPLIES or MARK_OPEN in value:
        return False
    if value.startswith(("/", "~", "$", "http://", "https://", "<", "#")) or is_path(value):
        return False
    return not ("@" in value and "." in value.split("@")[-1])
