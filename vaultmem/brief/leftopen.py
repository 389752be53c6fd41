"""Whether a session's last request was left unfinished (pure): the work a briefing names as
what comes next even when no "Next Steps" list says so.

A session often ends in the middle of a request: the commit hit a merge in progress, the hook
that blocks it needs a program that is missing, the answer announced the next move and the
session stopped. Its answer then ends on what blocks the work, or on a move never made. A
question the person asked ("why a pull request?") is answered by what it says, and an answer
ending on its outcome ("The tests pass.") leaves nothing to finish.
"""

from __future__ import annotations

from vaultmem.mining import settled
from vaultmem.notes.lazyre import lazy

from . import briefrank

# A request that asks rather than tells: its answer is the outcome, nothing is left to do.
_QUESTION = frozenset({"what", "what's", "whats", "why", "how", "is", "are", "was", "were", "can",
                       "could", "do", "does", "did", "should", "would", "which", "where", "when",
                       "who", "whose", "explain", "describe"})
# Where an answer stops short of the request: it announces a move ("Let's proceed with the
# rebase.", "Now I'll run the tests.") the session never made, or says what blocks the work
# ("There's a merge in progress.", "the hook needs Python, which is not found"). Words and
# prefixes, not regexes: these are read at every SessionStart, where compiling costs.
_LEADS = ("now ", "next ", "ok ", "okay ", "so ")
_ANNOUNCES = ("let's ", "let me ", "i'll ", "i will ", "i'm going to ", "we'll ", "we will ",
              "we need to ", "i need to ")
_BLOCKED = frozenset({"missing", "blocked", "blocks", "hung", "hangs", "stuck", "fail", "fails",
                      "failed", "failing", "error", "errors", "conflict", "conflicts", "cannot",
                      "can't", "couldn't", "unable", "still", "need", "needs", "require",
                      "requires", "denied", "refused", "pending"})
_BLOCKED_AFTER_NOT = frozenset({"yet", "found", "installed", "running", "reachable", "available",
                                "possible", "allowed", "working"})
_WORD = lazy(r"[a-z']+")


def _words(text: str) -> list[str]:
    return _WORD.findall(text.casefold().replace("\u2019", "'"))


def question(request: str) -> bool:
    """Whether the person's request asks something rather than asks for work."""
    text = request.strip()
    words = _words(text)
    return text.rstrip("*_ .…").endswith("?") or bool(words) and words[0] in _QUESTION


def _announces(sentence: str) -> bool:
    text = " ".join(_words(sentence)) + " "
    for lead in _LEADS:
        text = text.removeprefix(lead)
    return text.startswith(_ANNOUNCES)


def _blocked(sentence: str) -> bool:
    words = _words(sentence)
    return any(w in _BLOCKED or (w == "not" and after in _BLOCKED_AFTER_NOT)
               or (w == "in" and after == "progress")
               for w, after in zip(words, [*words[1:], ""]))


def unfinished(request: str, answer: str) -> bool:
    """Whether the answer to ``request`` (a request for work, not a question) stops short of it:
    its last sentence that says something announces a move or says what blocks the work, and
    reports nothing done (:func:`settled.said_done`: "Fixed the failing test." is an end)."""
    if not request.strip() or question(request):
        return False
    said = [s for s in briefrank.sentences(answer.strip()) if briefrank.says_something(s)]
    if not said or settled.said_done(said[-1]):
        return False
    return _announces(said[-1]) or _blocked(said[-1])
