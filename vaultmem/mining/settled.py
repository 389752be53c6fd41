"""State over time: a next step a later event completed (pure; DESIGN §11, issue 28).

A step is done when a later line says so: a todo item completed or a commit made (``Done:``,
``Committed:`` lines of the work log, :mod:`stated`), a tracker's close, or a sentence of the
session's final answer reporting the work done, or the state it left (running, passing, fixed),
with nothing in it left open. It matches the step by the same text, the same tracker id, most of
its words, or the state it aimed at: what it acts on reported running, passing or fixed ("The
panel and applet are running" closes "Add the applet to the panel config and restart"), what it
said was not yet done reported done ("… pushed" closes "… complete but not yet pushed").
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from vaultmem.notes.lazyre import lazy

_WORD_RE = lazy(r"[^\W_]+(?:[-'][^\W_]+)*")
_LEAD_ID_RE = lazy(r"\A(#\d{1,7}|[A-Z][A-Z0-9]{1,9}-\d{1,7}|[a-z][a-z0-9]{0,15}-[a-z0-9]{3,10})\s")
_STOP_WORDS = frozenset({
    "the", "and", "for", "with", "into", "from", "that", "this", "then", "them", "its", "our",
    "your", "all", "any", "are", "was", "were", "has", "have", "had", "not", "now", "new", "use",
    "using", "via", "per", "out", "off", "over", "also", "just", "more", "some", "each", "when",
})
# A file a step names (``app.rs``, ``src/auth/tokens.py``): the same action on it is the step.
_FILE_RE = lazy(r"[\w./-]*\w\.[A-Za-z][A-Za-z0-9]{0,5}\b")
DONE_SHARE = 0.75  # of a step's words a done line must hold
DONE_MIN_WORDS = 2
# A line reporting the state its object is in ("The panel and applet are running.", "All tests
# pass now", "the login bug is fixed"): a step on that object (its words but its verb) is done.
_STATE_SAID_RE = lazy(
    r"\b(?:is|are|was|were|now|all|both)\b[^.;:]*?\b(?:running|working|passing|pass|green|"
    r"live|deployed|merged|pushed|published|fixed|resolved|done|complete|completed|in place|"
    r"installed|enabled|configured|set up)\b|\b(?:runs|works|pass(?:es)?|succeeds?)\b(?! if\b)",
    re.IGNORECASE)
# A step that brings a thing up ("Add it to the panel config and restart") is done when a later
# line reports that thing running; one that makes it pass ("Fix the login test") when a line
# reports it passing or fixed. Stems, as _stems gives them.
_BRING_UP = frozenset({"start", "restart", "relaunch", "launch", "reload", "boot", "deploy",
                       "spin", "bring", "install", "enable"})
_MAKE_PASS = frozenset({"fix", "repair", "resolv", "debug", "test", "verify"})
_RUNNING_RE = lazy(r"\b(?:running|up and running|live|started|launched|loaded|deployed|"
                   r"installed|enabled)\b", re.IGNORECASE)
_PASSING_RE = lazy(r"\b(?:pass(?:es|ing)?|green|fixed|resolved|works|working)\b", re.IGNORECASE)
STATE_SHARE = 0.5  # of what such a step acts on, the line reporting its state names as much


def _brought_to_state(step_stems: frozenset[str], acted_on: frozenset[str], line: str,
                      said: frozenset[str]) -> bool:
    """Whether ``line`` reports the state a step bringing something up (or making it pass)
    aims at, of most of what it acts on (``The panel and applet are now running`` closes
    ``Add to panel config and restart``)."""
    if (step_stems & _BRING_UP and _RUNNING_RE.search(line)) or (
            step_stems & _MAKE_PASS and _PASSING_RE.search(line)):
        things = acted_on - _BRING_UP - _MAKE_PASS
        shared = len(things & said)
        return shared > 0 and shared >= STATE_SHARE * len(things)
    return False


@lru_cache(maxsize=2048)
def _stems(text: str) -> frozenset[str]:
    """A text's content words, crudely stemmed (``added``/``adds``/``adding`` -> ``add``); kept
    for the next ask: a done line is weighed against every step, a step against every line."""
    out = set()
    for word in _WORD_RE.findall(text.casefold()):
        if len(word) < 3 or word in _STOP_WORDS:
            continue
        for suffix in ("ing", "ed", "es", "s", "e"):
            if word.endswith(suffix) and len(word) - len(suffix) >= 3:
                word = word[: -len(suffix)]
                break
        out.add(word)
    return frozenset(out)


def _first_stem(text: str) -> str:
    """The stem of a text's first word (its verb, in a step: "Create …", "Fix …")."""
    first = _WORD_RE.search(text.replace("`", ""))
    return next(iter(_stems(first.group(0))), "") if first else ""


# A step that is a state left open ("The rewrite is complete but not yet pushed"): what it says
# is not done yet, and what it says it of.
_NOT_YET_RE = lazy(r"\b(?:not|n't)(?: yet| been)? (\w+)", re.IGNORECASE)
SUBJECT_SHARE = 0.5  # of what a state step speaks of, a line reporting it done names as much


def _not_yet_done(step: str, said: frozenset[str]) -> bool:
    """Whether ``step`` says something is not yet done ("… but NOT YET PUSHED") and ``said``
    (a done line's stems) reports that very thing of it done ("… has been pushed")."""
    found = _NOT_YET_RE.search(step)
    if found is None or not (_stems(found.group(1)) & said):
        return False
    subject = _stems(step[: found.start()]) - {"but"}
    shared = len(subject & said)
    return shared > 0 and shared >= SUBJECT_SHARE * len(subject)


def _object_stems(step: str, verb: str) -> frozenset[str]:
    """A step's words but its verb (the first word): what it acts on ("Start the panel and
    applet" -> panel, applet)."""
    first = _WORD_RE.search(step.replace("`", ""))
    rest = step.replace("`", "")[first.end():] if first else step
    return _stems(rest) - {verb}


def completed(step: str, done: Sequence[str]) -> bool:
    """Whether a next step is one of the ``done`` lines (a todo item completed, a commit's
    subject, a sentence reporting the work done): the same text, the same tracker id, the same
    first word (its verb) on a file it names, most of its words, or a line reporting what it
    acts on running, passing, fixed or done (``The panel and applet are running`` closes
    ``Start the panel and applet``), or, for a step that says something is not yet done, a line
    saying it of the same thing (``The history rewrite was pushed`` closes ``The history rewrite
    is complete but not yet pushed``)."""
    key = " ".join(_WORD_RE.findall(step.casefold()))
    ident = _LEAD_ID_RE.match(step.replace("`", ""))
    words = _stems(step)
    verb = _first_stem(step)
    acted_on = _object_stems(step, verb)
    files = {f.casefold().rsplit("/", 1)[-1] for f in _FILE_RE.findall(step)}
    for line in done:
        if files and verb and verb == _first_stem(line) and files & {
                f.casefold().rsplit("/", 1)[-1] for f in _FILE_RE.findall(line)}:
            return True
        if " ".join(_WORD_RE.findall(line.casefold())) == key:
            return True
        if ident is not None and re.search(
                rf"(?<![\w#-]){re.escape(ident.group(1))}(?![\w-])", line):
            return True
        said = _stems(line)
        shared = words & said
        if len(shared) >= DONE_MIN_WORDS and len(shared) >= DONE_SHARE * len(words):
            return True
        if acted_on and _STATE_SAID_RE.search(line) and not _OPEN_SAID_RE.search(line) and (
                acted_on <= said or _brought_to_state(words, acted_on, line, said)):
            return True
        if _not_yet_done(step, said):
            return True
    return False


# Two steps are one step said twice (a compact summary's pending task and its "next step", a
# todo item and a recap's line) when the other holds this share of the shorter one's words, and
# at least RESTATE_MIN_WORDS of them: fewer ("Import the GPG key", "Verify the GPG key
# imported") are two steps on one thing.
RESTATE_SHARE = (2, 3)
RESTATE_MIN_WORDS = 4


def restates(one: str, other: str) -> bool:
    """Whether two next steps say one step: most of the shorter one's content words (at least
    RESTATE_MIN_WORDS) are the other's (``Rebuild with the debug logging and test that
    PowerUpdate messages flow`` restates ``Debug why PowerUpdate messages are lost: added debug
    logging, rebuild and test``)."""
    a, b = _stems(one), _stems(other)
    shared = len(a & b)
    num, den = RESTATE_SHARE
    return shared >= RESTATE_MIN_WORDS and shared * den >= num * min(len(a), len(b))


def restated(steps: Sequence[str]) -> set[int]:
    """The indexes of the steps (oldest first) that a later one restates: the newest wording
    of a step is the one to keep."""
    return {n for n, step in enumerate(steps)
            if any(restates(later, step) for later in steps[n + 1:])}


# A sentence that reports work done ("Added the CSV exporter.", "The tests now pass ✅") and one
# that leaves it open ("still", "not yet", "next", "need to"…).
_DONE_SAID_RE = lazy(
    r"\b(?:done|fixed|added|implemented|created|updated|removed|completed|finished|resolved|"
    r"installed|configured|wrote|written|committed|pushed|merged|deployed|migrated|renamed|"
    r"moved|enabled|disabled|built|restarted|documented|refactored|replaced|cleaned up|set up|"
    r"now (?:works?|running|runs|passes|pass))\b|✅|✓", re.IGNORECASE)
_OPEN_SAID_RE = lazy(
    r"\b(?:not|no|never|still|yet|next|todo|remaining|remains|need|needs|should|will|would|"
    r"could|can|pending|later|once|if|when|until|want|try)\b|n't\b|\?", re.IGNORECASE)
_SENTENCE_RE = lazy(r"(?<=[.!?])\s+|\s+[—–;]\s+|\n+")


def said_done(answer: str, details: Sequence[str] = ()) -> list[str]:
    """The sentences of a final answer (and the points of its recap) that report work done or
    the state it left (running, passing, fixed), with nothing in them leaving it open."""
    found = []
    for text in (answer, *details):
        for sentence in _SENTENCE_RE.split(text):
            if (_DONE_SAID_RE.search(sentence) or _STATE_SAID_RE.search(sentence)) \
                    and not _OPEN_SAID_RE.search(sentence):
                found.append(sentence)
    return found

