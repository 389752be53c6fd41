"""A state a final answer says was set up by choice -> a decision, with no reason needed (pure).

A final answer reports what the turn left in place. Most of it is progress ("Updated the
README", "Added a test"), but some shapes name a choice among alternatives even without a
reason: a later session meets that choice and must not undo it.

- a thing that now works another way: ``The API client now uses httpx``, ``The worker now
  points to the staging queue``, ``Backups now default to zstd`` (not ``it now passes``: a
  subject of its own, and a verb of use or wiring, not a symptom);
- a thing configured to behave one way: ``Configured nginx to use HTTP/2``, ``The logger is
  configured to write JSON``; a default or a switch: ``JSON is now the default output``,
  ``Enabled `noImplicitAny` in tsconfig.json`` (not ``temporarily``, ``to debug``);
- a file or folder given a name or a place: ``Merged `test_x.py` into `Projects/Tests/```,
  ``Moved the homeserver files into Projects/Zima`` (not ``Renamed `getUser` to `fetchUser```
  nor ``Moved the Stripe calls into `billing.py```: refactoring steps);
- a setting given a value: ``I set the timeout to 30 seconds``, ```max_connections` is now set
  to 50``, ``Changed the log level from DEBUG to INFO``, ``Pinned `numpy` to 1.26`` (the thing
  set is a setting's name or code; ``Set up the database`` is a step, and a bare ``Set the
  timeout to 30 seconds.`` may be an instruction).

``Switched from A to B``, ``Chose/Picked X`` and ``Replaced A with B`` are decisions anywhere
(``kinds.CHOSE``). These shapes count only in the final answer (the messages after the turn's
last tool call: ``answers.mine_turn``), never while Claude works (a "Set X to Y" between tool
calls is a step in progress); hedges, narration and questions are vetoed as for any sentence.
"""

from __future__ import annotations

from vaultmem.mining.cue import cue

# The thing: a few words or code, never a pronoun or a discourse word ("It now uses …",
# "Now let me …", "This now …": what "it" is, the memory reading the line alone never knows).
_THING = (r"^(?:\w+:\s+)?(?!(?:i|we|you|it|this|that|there|they|these|those|now|then|so|"
          r"let|everything|nothing|all)\b)(?:[\w`'./\ue000\ue001-]+:? ){1,6}")
_NOW_USES = cue(
    _THING + r"now (?:(?:also|only|always) )?(?:uses?|points? (?:to|at)|defaults? to|"
    r"targets?|runs? (?:on|in|under|as)|listens? on|binds? to|depends? on|rel(?:y|ies) on|"
    r"reads? from|writes? to|connects? to|lives? (?:in|at|under)|is (?:set|pinned|configured) "
    r"(?:to|at)|is (?:managed|handled|served|stored|hosted|built|signed) (?:by|in|on|with|from)|"
    r"goes through|routes? through|authenticates? (?:with|via))\b",
    "now",
)
_CONFIGURED = cue(
    r"^(?:(?:i|we)(?:'ve| have)? )?(?:also )?configured (?!(?:it|this|that|them)\b)(?:[\w`'./\ue000\ue001-]+ ){1,6}?to "
    r"(?!be\b)[a-z]+\b|" + _THING + r"(?:is|are) (?:now )?configured to (?!be\b)[a-z]+\b",
    "configured",
)
# A thing given a default or a switch: "JSON is now the default output", "Strict mode is now
# enabled"; said once done ("Enabled `noImplicitAny` in tsconfig.json", "Disabled the telemetry
# service"), not for a while ("temporarily", "for now", "to debug").
_IS_NOW = cue(
    _THING + r"(?:is|are) now (?:the )?(?:default|enabled|disabled|on by default|off by default|"
    r"required|optional|mandatory|opt-in|opt-out|read-only)\b",
    "now",
)
_SWITCHED = cue(
    r"^(?:(?:i|we)(?:'ve| have)? )?(?:also )?(?:enabled|disabled) (?!(?:it|this|that|them)\b)"
    r"(?!.*\b(?:temporar\w*|for now|to (?:debug|test|check|see|verify|investigate)|while)\b)"
    r"(?:the |a )?\S",
    "enabled|disabled",
)
# A file or folder given a name or a place: "Merged `test_x.py` into `Projects/Tests/`",
# "Moved the homeserver files into Projects/Zima", "Renamed `docs/old/` to `docs/guides/`"
# (read with its code: the thing moved is a file or a folder, or it goes into a folder; a
# function renamed or code moved into a file is a refactoring step, no choice to keep).
_PATHLIKE = r"`?[\w.~-]*(?:/[\w.~-]*)+`?|`?[\w~-]+\.[a-z][a-z0-9]{0,4}`?"
_FOLDER = r"`?[\w.~-]*(?:/[\w.~-]*)*/[\w~-]*/?`?(?=[\s,:;)]|\.(?:\s|$)|$)"
_PLACED = cue(
    r"^(?:(?:i|we)(?:'ve| have)? )?(?:also )?(?:renamed|moved|merged|relocated|consolidated) "
    r"(?:(?:the |all )?(?:[^\s,;]+ ){0,4}?(?:" + _PATHLIKE + r")(?: [^\s,;]+){0,3}? "
    r"(?:to|into|under|in) \S|(?:[^\s,;]+ ){1,6}?(?:to|into|under) (?:the )?" + _FOLDER + r")",
    "renamed|moved|merged|relocated|consolidated",
)
# A setting's name (as ``settingvalues`` spells them) or code, given a value.
_SETTING = (
    r"(?:threshold|timeout|limit|size|buffer|interval|ttl|retries|port|level|depth|workers|"
    r"pool|concurrency|max\w*|min\w*|cap|quota|delay|backoff|frequency|window|capacity|jobs|"
    r"threads|connections|version|mode|model|region|branch|shell|editor|theme|locale|"
    r"encoding|format|driver|backend|engine|provider|strategy|policy|default)s?"
)
_NAMED = (r"(?:the |its |our )?(?:(?:[\w.-]+ ){0,3}?" + _SETTING + r"|(?:[\w.-]+ )?"
          r"\ue000\d+\ue001(?: (?:setting|option|value|flag|key|variable|field))?)(?: (?:in|of|for) "
          r"(?:the )?(?:[\w./-]+ |\ue000\d+\ue001 ){1,2}?)?")
# "Changed `parse()` to return None": a behaviour changed, no setting given a value.
_INFINITIVE = (r"(?:return|handle|use|be|do|make|call|check|read|write|accept|reject|skip|"
               r"include|exclude|allow|run|work|raise|throw|take|print|log|show|load|save)\b")
# "Set" alone may be an instruction ("Set the timeout to 30 seconds." in a how-to): said by
# someone ("I set …"), in the past only ("Pinned …", "Changed …") or as a state ("The default
# model is now set to …", "`max_connections` set to 50").
_SET_TO = cue(
    r"^(?:(?:(?:i|we)(?:'ve| have)? )(?:also )?set|(?:(?:i|we)(?:'ve| have)? )?(?:also )?"
    r"(?:pinned|changed|switched|defaulted)) (?!up\b)" + _NAMED + r" (?:from \S+(?: \S+){0,2} )?"
    r"to (?!" + _INFINITIVE + r")\S|^(?:\w+:\s+)?" + _NAMED + r" (?:is |are )?(?:now )?(?:set|pinned) (?:to|at) \S",
    "set|pinned|changed|switched|defaulted",
)


def set_up(text: str, full: str) -> bool:
    """Whether ``text`` (one sentence, plain: emphasis gone, code masked; ``full``: the same
    with its code) says a state was set up by choice (see the module)."""
    return any(shape.search(text) is not None
               for shape in (_NOW_USES, _CONFIGURED, _SET_TO, _IS_NOW, _SWITCHED)) \
        or _PLACED.search(full) is not None
