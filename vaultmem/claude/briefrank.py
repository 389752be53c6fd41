"""What the briefing leaves out as noise and what it ranks first (pure; issue 29).

The briefing has 8,000 characters. A line earns its room by what it tells the next session:

- **noise** never gets room: a failure that is the tool talking rather than the work breaking
  (``git add`` refused a path ``.gitignore`` ignores, a hook's output cut short, a progress
  banner), a component's change that only names the prompt and the folders it touched;
- **relevant** knowledge comes right after the last session's state: a decision or gotcha that
  shares words with what is still open (a next step, an open question, a failing command) is
  what the next session needs first.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from vaultmem.memory.changes import LINKED
from vaultmem.memory.factrule import only_folders
from vaultmem.notes.lazyre import lazy

# Two words in common make a line relevant to what is open (one is too often a common word).
RELEVANT_WORDS = 2
MIN_WORD_CHARS = 4

# The kinds of lines the briefing's last line counts, by the first word of their list's title.
WHAT = {
    "outcome": "answers", "more": "points of answers", "failed": "failures",
    "not": "calls not run", "cut": "stops", "next": "next steps", "open": "open questions",
    "decisions": "decisions", "gotchas": "gotchas", "recent": "changes",
}
WHAT_SHOWN = 4  # kinds the last line names, the most left out first
UNREAD = "older component lines"
UNTITLED = "prerequisites"  # the one list without a title

# An exclamation this short ("Great question!", "Done!") says nothing about the work.
INTERJECTION_MAX_WORDS = 3

_IGNORED_PATHS = lazy(r"paths? (?:are|is) ignored by one of your \.gitignore|"
                      r"\bignored by (?:one of your )?\.?gitignore\b", re.IGNORECASE)
# Output cut short by whoever relayed it, or a hook's banner: no error line to learn from.
_TRUNCATED = lazy(r"\btruncated\b|\[\.\.\.|\.\.\.\s*\(\d+ (?:more )?(?:lines?|chars?)|"
                  r"^\W*(?:\[\d+(?:;\d+)*m|running\b.*\bhook\b)", re.IGNORECASE)
_WORDS = lazy(r"[A-Za-z][\w.-]*[A-Za-z0-9]|\d[\w.-]*[A-Za-z][\w.-]*")
_STOP = frozenset({
    "this", "that", "with", "from", "into", "then", "than", "when", "what", "which", "there",
    "their", "they", "them", "have", "been", "were", "will", "would", "should", "could",
    "after", "before", "about", "only", "also", "just", "more", "most", "some", "each", "every",
    "other", "same", "make", "made", "need", "needs", "used", "uses", "using", "file", "files",
    "run", "runs", "ran", "added", "fixed", "instead", "because", "still", "does", "done",
    "once", "first", "last", "next", "step", "steps", "work", "works", "session", "here",
    "command", "error", "failed", "fails", "output", "true", "false", "none", "data",
})


def noise_failure(line: str) -> bool:
    """Whether a failure line (``cmd`` — output) is the tool talking, not the work breaking."""
    _, dash, output = line.partition(" — ")
    said = output if dash else line
    return bool(_IGNORED_PATHS.search(said) or _TRUNCATED.search(said.strip("` ")))


def noise_change(text: str) -> bool:
    """Whether a component's change line says nothing: only the session's prompt and its
    folders, or that a session named the component."""
    return only_folders(text) or text.strip().rstrip(".") == LINKED


def words(texts: Iterable[str]) -> frozenset[str]:
    """The telling words of ``texts`` (case-folded; short and common words aside)."""
    out: set[str] = set()
    for text in texts:
        for word in _WORDS.findall(text):
            folded = word.casefold().strip(".-")
            if len(folded) >= MIN_WORD_CHARS and folded not in _STOP:
                out.add(folded)
    return frozenset(out)


def relevant(text: str, open_words: frozenset[str]) -> bool:
    """Whether ``text`` shares enough telling words with what is open."""
    return bool(open_words) and len(words([text]) & open_words) >= RELEVANT_WORDS


def what(title: str) -> str:
    """What a titled list of the briefing holds, as its last line counts it."""
    first = title.split(" ", 1)[0].rstrip(":").casefold()
    return WHAT.get(first, first)


def left_out(whats: Iterable[str], unread: int = 0) -> str:
    """" (12 answers, 5 gotchas)": the kinds of the lines left out (``what`` of each, ""
    for a prerequisite), the most first; ``unread``: component lines never read."""
    counts: dict[str, int] = {}
    for kind in whats:
        counts[kind or UNTITLED] = counts.get(kind or UNTITLED, 0) + 1
    if unread:
        counts[UNREAD] = unread
    ranked = sorted(counts.items(), key=lambda c: -c[1])[:WHAT_SHOWN]
    return " (" + ", ".join(f"{n} {kind}" for kind, n in ranked) + ")" if ranked else ""


def widest(count: int, whats: Iterable[str], unread: int = 0) -> str:
    """The longest :func:`left_out` text for at most ``count`` lines of the kinds ``whats``:
    the room the briefing reserves for it."""
    kinds = {kind or UNTITLED for kind in whats} | ({UNREAD} if unread else set())
    names = sorted(kinds, key=len)[-WHAT_SHOWN:]
    return " (" + ", ".join(f"{count} {kind}" for kind in names) + ")" if names else ""


# -- an answer's sentences that say nothing ------------------------------------------------

_INTERJECTION = lazy(r"[^.?:]*![*_\s\W]*")
# Claude introducing itself or asking what to do: a greeting's answer, nothing done or found.
_GREETING = lazy(r"(?:I'?m|I am) Claude\b|(?:How|What) can I (?:help|assist)(?: you)?\b|"
                       r"What would you like (?:me )?to work on\b", re.IGNORECASE)


# Claude thinking aloud before the answer: a prefix that only announces the finding ("I see the
# issue: …", "Great question — …"), and a sentence that announces a move ("Let me check the
# logs.", "I'll help you set up the CLI.") before the sentences that say what came of it.
_PREAMBLE_PREFIX = lazy(
    r"(?:I (?:can )?see (?:the|what the) (?:issue|problem|cause|error)(?: is)?|(?:Great|Good) "
    r"question|Got it|Understood|I understand)(?:\s*(?::|[—–]|--|,)\s*|\s+-\s+)(?=\S)",
    re.IGNORECASE)
_PREAMBLE = lazy(
    r"(?:I'?ll|I will|Let me|Let's|I'?m going to|I'?d be happy to|I can help)\b"
    r"(?: (?:first|now|quickly))? (?:help|check|look|investigate|examine|explore|read|search|"
    r"find|start|begin|take|analy[sz]e|review|see|inspect|dig|figure|understand|try|walk)\b",
    re.IGNORECASE)


def from_the_point(sentences: list[str]) -> list[str]:
    """The sentences from what was found or done on: leading announcements of a move dropped
    while a sentence follows them, and a prefix announcing the finding cut off the first."""
    start = 0
    while start < len(sentences) - 1 and _PREAMBLE.match(sentences[start].lstrip("*_ ")):
        start += 1
    out = sentences[start:]
    cut = _PREAMBLE_PREFIX.match(out[0].strip()) if out else None
    if cut:
        rest = out[0].strip()[cut.end():]
        out[0] = rest[:1].upper() + rest[1:]
    return out


def says_something(sentence: str) -> bool:
    """False for a sentence that carries no content in a one-line answer: a lead-in whose list
    the answer line no longer holds ("Here's what changed:"), a short exclamation, or Claude
    greeting ("I'm Claude Code, ready to help…", "What can I help you with today?")."""
    text = sentence.strip()
    if not text or text.rstrip("*_ ").endswith(":") or _GREETING.match(text):
        return False
    return not (_INTERJECTION.fullmatch(text) and len(text.split()) <= INTERJECTION_MAX_WORDS)
