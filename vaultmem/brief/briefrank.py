"""What the briefing leaves out as noise and what it ranks first (pure; issue 29).

The briefing has 8,000 characters. A line earns its room by what it tells the next session:

- **noise** never gets room: a failure that is the tool talking rather than the work breaking
  (``git add`` refused a path ``.gitignore`` ignores, a hook's output cut short, a progress
  banner), a component's change that only names the prompt and the folders it touched;
- **relevant** knowledge comes right after the last session's state: a decision or gotcha that
  shares words with what is still open (a next step, an open question, a failing command) is
  what the next session needs first;
- **the rest by value**: once the last session's state, its open steps and the knowledge
  relevant to them have room, every other line competes by what it tells that the lines chosen
  before it did not (its telling words, a name, a path, a number or a version counting double),
  per character, weighed by its tier: a short point naming the package kept beats a long answer
  retelling what is shown already, and an earlier session's findings beat its tenth failed probe.
"""

from __future__ import annotations

import heapq
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TypeVar

from vaultmem.mining import settled, telling
from vaultmem.mining.factrule import only_folders
from vaultmem.notes.lazyre import lazy
from vaultmem.notes.schema import LINKED

# Two words in common make a line relevant to what is open (one is too often a common word).
RELEVANT_WORDS = 2
MIN_WORD_CHARS = telling.MIN_WORD_CHARS

# The kinds of lines the briefing's last line counts, by the first word of their list's title.
WHAT = {
    "outcome": "answers", "more": "points of answers", "failed": "failures",
    "not": "calls not run", "cut": "stops", "next": "next steps", "open": "open questions",
    "decisions": "decisions", "gotchas": "gotchas", "recent": "changes",
    "asked": "unanswered requests", "installed,": "installs and settings",
    "changed,": "points of answers",
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
# Only the exit status, no line of what went wrong: a past failure that teaches nothing.
_EXIT_ONLY = lazy(r"(?:exit(?:ed with)?(?: code| status)?|returned)\s*:?\s*-?\d+\.?", re.IGNORECASE)
_WORDS = lazy(r"[A-Za-z][\w.-]*[A-Za-z0-9]|\d[\w.-]*[A-Za-z][\w.-]*")
_STOP = telling.STOP_WORDS


def noise_failure(line: str) -> bool:
    """Whether a failure line (``cmd`` — output) is the tool talking, not the work breaking."""
    _, dash, output = line.partition(" — ")
    said = output if dash else line
    return bool(_IGNORED_PATHS.search(said) or _TRUNCATED.search(said.strip("` ")))


def exit_only(line: str) -> bool:
    """Whether a failure line (``cmd`` — output) gives nothing but an exit code: worth saying
    while it is the state the last session left, not as an earlier session's history."""
    _, dash, output = line.partition(" — ")
    return bool(dash) and bool(_EXIT_ONLY.fullmatch(output.strip("` ")))


def lead_in(text: str) -> bool:
    """Whether a step, question or prerequisite is only a heading that led into its list
    ("CI/CD Will Run Automatically::", "Deployment Steps:"): the list is not in it."""
    bare = text.rstrip()
    return bare.endswith(":") and title_only(bare.rstrip(":*_ "))


# What an item leads with before its gloss ("Install macOS 26.2 - may contain the fix",
# "Install macOS 26.2 immediately (may revert the change)"): the step it names.
_GLOSS_START = lazy(r"\s+[-–—(]\s*|[:;,]\s+")
SAME_HEAD_MIN_WORDS = 3


def same_step(one: str, other: str) -> bool:
    """Whether two steps or prerequisites name one thing: most of their words are one's
    (settled.restates), or the words one leads with (before its gloss, at least
    SAME_HEAD_MIN_WORDS of them, a version counted) start the other's lead."""
    if settled.restates(one, other):
        return True
    heads = sorted((_GLOSS_START.split(t.strip(), 1)[0].casefold().split() for t in (one, other)),
                   key=len)
    short, long = heads
    return len(short) >= SAME_HEAD_MIN_WORDS and long[:len(short)] == short


# A heading's colon doubled ("CI/CD Will Run Automatically:: Multi-platform tests"): a line
# joined from a recap kept of its heading.
_DOUBLE_COLON = lazy(r"(?<=\w)::(?=\s|$)")
_BOLD = lazy(r"\*\*")
_CODE = lazy(r"`+[^`]*`+")


def tidy(text: str) -> str:
    """``text`` without a doubled colon after a word, and without a bold mark left unpaired:
    one that closes where none is open ("… does Impact**: Minimal", a label joined from a recap
    without its opening mark), else the last one open. Code is no markup: a glob's ``**`` or a
    path's ``::`` inside a code span (```logs/**```) stays as written."""
    if "**" not in text and "::" not in text:
        return text
    spans = [(m.start(), m.end()) for m in _CODE.finditer(text)]

    def in_code(at: int) -> bool:
        return any(start <= at < end for start, end in spans)

    if "::" in text:
        text = _DOUBLE_COLON.sub(lambda m: m.group() if in_code(m.start()) else ":", text)
        spans = [(m.start(), m.end()) for m in _CODE.finditer(text)]
    marks = [m.start() for m in _BOLD.finditer(text) if not in_code(m.start())]
    if len(marks) % 2 == 0:
        return text
    opened: int | None = None
    for at in marks:
        if opened is not None:
            opened = None
        elif at and not text[at - 1].isspace() and not text[at + 2:at + 3].isalnum():
            return text[:at] + text[at + 2:]  # a close with nothing open
        else:
            opened = at
    at = marks[-1] if opened is None else opened
    return text[:at] + text[at + 2:]


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


# -- the lines after the must-haves, by what they tell ------------------------------------

T = TypeVar("T")
# A line's value per character is its new telling words over its length plus what a line costs
# anyway (its bullet, its share of a title): a two-word line is no bargain.
LINE_COST = 40
SPECIFIC = telling.SPECIFIC  # a name, path, number or version tells more than a plain word
# Each tier after the must-haves is worth half the one before it: a recap's point (two tiers
# below a component's gotcha) must tell four times as much per character to go first. At 0.8
# short figures ("Jan 14: $10.51") took the room of decisions; 0.5 held 3 more labelled facts
# on the tuning sessions and 3 more on the held-out ones.
TIER_DECAY = 0.5
# A line's telling words, each with what it tells (mining.telling: the entity notes read them
# too).
information = telling.information
_SPECIFIC = telling.SPECIFIC_WORD


def by_value(lines: Sequence[T], text: Callable[[T], str], tier: Callable[[T], float],
             must: float) -> Iterator[T]:
    """``lines`` in the order they get room: those of tier ``must`` or better first, by tier
    (stable); then the others by what they add to everything before them, per character,
    weighed by TIER_DECAY for each tier past ``must``, the better tier and then the earlier
    line first when they tell as much (lazy greedy: a line's worth only falls as more is
    told)."""
    told: set[str] = set()

    def worth(n: int) -> float:
        said = info[n]
        new = sum(v for word, v in said.items() if word not in told)
        weight: float = TIER_DECAY ** max(0.0, tier(lines[n]) - must)
        return weight * new / (len(text(lines[n])) + LINE_COST)

    info = [information(text(line)) for line in lines]
    first = sorted((n for n, line in enumerate(lines) if tier(line) <= must),
                   key=lambda n: tier(lines[n]))
    for n in first:
        told.update(info[n])
        yield lines[n]
    # Equal worth: the better tier, then the order the briefing reads.
    heap = [(-worth(n), tier(line), n) for n, line in enumerate(lines) if tier(line) > must]
    heapq.heapify(heap)
    while heap:
        _, rank, n = heapq.heappop(heap)
        now = (-worth(n), rank, n)
        if heap and now > heap[0]:
            heapq.heappush(heap, now)  # it tells less than when it was ranked: back in line
            continue
        told.update(info[n])
        yield lines[n]


# -- an answer's sentences that say nothing ------------------------------------------------

_INTERJECTION = lazy(r"[^.?:]*![*_\s\W]*")
# A bare acknowledgement ("Done.", "Perfect", "You're absolutely right.", "Sounds good!").
_ACKNOWLEDGEMENT = lazy(
    r"[*_\s]*(?:ok(?:ay)?|done|perfect|great|excellent|awesome|nice|sure|yes|yep|right|"
    r"exactly|absolutely|understood|got it|sounds good|all set|no problem|will do|of course|"
    r"you(?:'re| are) (?:absolutely |totally |completely )?right|thanks?(?: you)?)"
    r"(?:[\s,]+(?:ok(?:ay)?|done|perfect|great|sure|right|thanks?))*[\s.!*_\W]*",
    re.IGNORECASE)
_WORD = lazy(r"[^\W_]")
# A request back to the person ("If it's another one, let me know its name."): no outcome.
_ASKS_BACK = lazy(r"(?:if\b[^.]*,\s*)?(?:please |just )?(?:let me know|feel free to|tell me)\b",
                  re.IGNORECASE)
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
# "Let me …" announces whatever it names ("Let me clarify the workflow:", "Now let me create a
# summary."), but "Let me know" asks back.
_PREAMBLE = lazy(
    r"(?:(?:now|ok(?:ay)?|first|next|so),? )?(?:"
    r"let me (?!know\b)\w+|"
    r"(?:I'?ll|I will|Let's|I'?m going to|I'?d be happy to|I can help)\b"
    r"(?: (?:first|now|quickly))? (?:help|check|look|investigate|examine|explore|read|search|"
    r"find|start|begin|take|analy[sz]e|review|see|inspect|dig|figure|understand|try|walk)\b)",
    re.IGNORECASE)
# The end of an announcement that leads into what it announces ("Let me clarify: — Reviews: …").
_LEAD_END = lazy(r":\s+(?:[—–-]+\s+)?(?=\S)")


def from_the_point(sentences: list[str]) -> list[str]:
    """The sentences from what was found or done on: leading announcements of a move dropped
    while a sentence follows them (an announcement leading into its content with a colon cut
    off it), and a prefix announcing the finding cut off the first."""
    start = 0
    while start < len(sentences) - 1 and _PREAMBLE.match(sentences[start].lstrip("*_ ")):
        start += 1
    out = sentences[start:]
    first = out[0].strip() if out else ""
    cut = _PREAMBLE_PREFIX.match(first)
    lead = _LEAD_END.search(first) if not cut and _PREAMBLE.match(first.lstrip("*_ ")) else None
    if cut or lead:
        rest = first[(cut or lead).end():]  # type: ignore[union-attr]
        out[0] = rest[:1].upper() + rest[1:]
    return out


TITLE_MAX_WORDS = 3
TITLE_ONLY_MAX_WORDS = 6  # the longest heading a title that announces its part is taken for
TITLE_ONLY_MAX_CHARS = 80
# A heading that names what its part tells ("What We Accomplished This Session", "How it
# works", "Where things stand"): a title at any length up to TITLE_ONLY_MAX_WORDS.
_ANNOUNCES = lazy(r"(?:what|why|how|where|when|which|who)\b", re.IGNORECASE)


def bare_title(point: str) -> bool:
    """Whether a recap's heading says nothing of its own: a question ("Why separate steps?"),
    a few plain words with no name, number or path ("The Problem", "Current State"), or words
    announcing its part ("What Was Removed from History")."""
    words = point.split()
    announces = bool(_ANNOUNCES.match(point)) and len(words) <= TITLE_ONLY_MAX_WORDS and not (
        "," in point or ":" in point)  # "When the cache is cold, the API times out" tells
    return point.rstrip("*_ ").endswith("?") or announces or (
        len(words) <= TITLE_MAX_WORDS and not any(_SPECIFIC.search(w) for w in words))


# A word of a path: a folder in it (``src/app``, ``C:\Users``), a drive (``C:``), a file name
# (``README.md``, ``rebase.ps1``), each in any quotes or brackets.
_PATH_WORD = lazy(r"[`'\"(\[]*(?:[^\s`]*[/\\][^\s`]*|[A-Za-z]:|[\w.-]+\.[A-Za-z]\w{0,4})"
                  r"[`'\")\],;:]*")


def words_beside_paths(point: str) -> int:
    """How many words of a recap's point are neither paths nor files (``C:\\Program Files\\Git``,
    ``src/app/main.py``) nor bare marks: what it says of where something is."""
    words = point.split()
    if not _PATHISH.search(point):
        return len(words) - len(_MARKS.findall(point))
    return sum(1 for w in words if _WORD.search(w) and not _PATH_WORD.fullmatch(w))


_PATHISH = lazy(r"[/\\]|\w\.[A-Za-z]|\b[A-Za-z]:(?!\w)")  # what a path or a file name holds
_MARKS = lazy(r"(?<!\S)[^\w\s]+(?!\S)")  # a word of marks alone ("-", "→")


def only_paths(point: str) -> bool:
    """Whether a recap's point names only paths or files: where something is, nothing said of
    it."""
    return words_beside_paths(point) == 0


# Words a title leaves in lower case ("Removed from History").
_TITLE_SMALL = frozenset({"a", "an", "the", "of", "and", "or", "for", "from", "to", "in", "on",
                          "with", "by", "at", "vs", "via", "as", "into"})
_DID = lazy(r"[A-Z][a-z]+(?:ed|ing)")  # "Switched to Windows-native GPG" says what was done
_TITLE_WORD = lazy(r"[A-Z][\w'/&+-]*|[A-Z0-9][\w'/&+-]*[A-Za-z][\w'/&+-]*")


def title_only(text: str) -> bool:
    """Whether a decision or gotcha is only a heading: a few capitalised words with nothing
    said of them ("MSYS2 Fork Emulation Failures", "Database Migration Issues"): no word in
    lower case but a title's small ones, no colon, code, number, parenthesis or sentence mark.
    The part it titled is not in it; a line that starts with a number ("2869 SSDP/UPnP: …"),
    a verb that says what was done ("Switched to Windows-native GPG"), or holds a lower-case
    word is more than a title."""
    if len(text) > TITLE_ONLY_MAX_CHARS:
        return False  # most lessons: no title is that long
    words = text.split()
    return 1 < len(words) <= TITLE_ONLY_MAX_WORDS and not _DID.fullmatch(words[0]) and all(
        w.casefold() in _TITLE_SMALL or _TITLE_WORD.fullmatch(w) for w in words)


_SENTENCE_END = lazy(r"(?:(?<=[.!?])|(?<=[.!?][*_])|(?<=[.!?][*_]{2}))\s+")


def sentences(text: str) -> list[str]:
    """``text``'s sentences (each ends at . ! or ?, emphasis closing with it: "**Done!** The …")."""
    return _SENTENCE_END.split(text)


def asks_back(answer: str) -> bool:
    """Whether an answer only asks back ("… a few things I need to clarify: What content should
    be pushed?"): it ends in a question and none of its sentences says what was done or found,
    so the request it answered is still open."""
    said = sentences(answer.strip())
    return answer.rstrip("*_ ").endswith("?") and not any(says_something(s) for s in said)


def says_something(sentence: str) -> bool:
    """False for a sentence that carries no content in a one-line answer: a lead-in whose list
    the answer line no longer holds ("Here's what changed:"), a short exclamation, a bare
    acknowledgement or mark ("Done.", "✓"), Claude greeting ("I'm Claude Code, ready to
    help…"), or a question back to the person ("Which approach sounds better for you?"): an
    outcome is what was done or found; a question still open is listed as one."""
    text = sentence.strip()
    bare = text.rstrip("*_ ")
    # "Merged `x` into `Projects/Tests/`:" reports the work before the list of it; "Here's
    # what changed:" and a bold title ("**Updated `deploy.toml`:**") only lead into it.
    leads = bare.endswith(":") and (text.startswith(("**", "__"))
                                    or not settled.said_done(bare[:-1]))
    if not _WORD.search(text) or leads or bare.endswith("?") or _GREETING.match(text) \
            or _ACKNOWLEDGEMENT.fullmatch(text) or _ASKS_BACK.match(text.lstrip("*_ ")):
        return False
    return not (_INTERJECTION.fullmatch(text) and len(text.split()) <= INTERJECTION_MAX_WORDS)
