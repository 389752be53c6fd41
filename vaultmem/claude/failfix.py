"""A failure and what the session did about it -> a gotcha tied to the error (pure).

``fixes`` credits a fix when the failed command later passed after a change that plausibly
caused it. Many fixes are not that: the environment was changed or worked around (a folder
excluded from the antivirus, DLLs rebased, a dependency installed), or the person was asked to
run a command (``sudo`` needs their terminal). What the session knew then is in Claude's prose
after the failure. Two rules read it (issue 31 item 1):

- the message right after the failure, whose line names the error (one of its own words:
  :func:`errorline.signature`, or a code span the error line holds) and says why it failed or
  what to do about it (a cause, a fix, a workaround, a command for the person to run);
- a later message whose line names the error (a code span, or two of its words) and says what
  it means, why, or how it was fixed.

A message that explains something else (the task, another failure) is not tied to the failure
before it; one explanation tells one lesson, however many failures it names.

A message that ends by handing the person a command block ("You'll need to execute this in
your terminal:", "You can run one of these commands:") is tied to a failure whose command the
block runs, or whose file it works on (``sudo chown … ./x.yml`` after ``cat ./x.yml`` was
denied), and the gotcha says so in fixed words, the fix first as "Fixed by running `…`: …" is
written: "For the person to run `…`: <why>" (:data:`HANDED`), so that a cut spares it. Claude's
own lead ("I can't run sudo commands interactively. You'll need to …:") is no fact and goes
(``factrule.trim``). The failure the handed command reruns is named first, so that its error
survives a cut.

The gotcha holds the error line, so that :mod:`onfailure` finds it by the error's signature
when the failure comes back. A failure of another tool than Bash (a file the Read or Write tool
was denied, a fetch, an MCP tool) is weighed alike and named as the work log names it (``Read
`x.yml` failed: …``). A failure nothing was said about gets nothing, and so does an
interrupt or a call that never ran (``ingest`` does not pass those).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass

from vaultmem.mining import factrule, fold, notices
from vaultmem.notes.inline import code_span, one_line
from vaultmem.notes.lazyre import lazy

ERROR_CHARS = 120  # of the error line kept in the gotcha
COMMAND_CHARS = 60
SAID_CHARS = 300  # of the explanation kept, its fix command included
FIX_CHARS = 120  # of a fix command at least, when the explanation before it is long
FAILURES_NAMED = 2  # by one gotcha: those one message explains
LINES_KEPT = 2  # lines of a message that explain one failure
NEXT_LINES = 3  # transcript lines from a failure to the message "right after" it
HANDED, REPORTED = fold.HANDED, fold.REPORTED  # fold reads them back at compaction
REPORT_CHARS = 240  # a longer prompt is a new task, not a report of what was done

# What says why a failure happened or what to do about it. "instead" alone is a next move.
_SAID_WHY_RE = lazy(
    r"\b(?:because|caused by|due to|root cause|the (?:issue|problem|error|cause|culprit) "
    r"(?:is|was|here is)|this means|which means|means that|symptoms? of|requires?|needs? to be|"
    r"must be|is missing|are missing|not installed|isn'?t installed|workaround|worked around|"
    r"fix(?:ed)? (?:it|this|by)|the fix|resolved by|solved by|yourself|manually|"
    r"in (?:(?:your|a|the) (?:own )?)?terminal|by hand|(?:non-?)?interactive(?:ly)?|"
    r"(?:please|you(?:'ll| will)? need to|you can|you should) "
    r"run|run (?:this|these|the following)|excluded?|exclusions?)\b|`[^`]+` = ",
    re.IGNORECASE,
)
_SPAN_RE = lazy(r"`([^`\n]{6,})`")
# An introduction that hands the block after it to the person (not "Add this to Cargo.toml:").
_HANDING_RE = lazy(
    r"\b(?:yourself|manually|by hand|in (?:(?:your|a|the) (?:own )?)?terminal|"
    r"(?:please |you(?:'ll| will)? need to |you can |you should )(?:run|execute)|"
    r"run (?:this|these|it|the following)(?: commands?)? (?:yourself|manually|in))\b",
    re.IGNORECASE)
# The person reporting what they did: "I fixed it by …", "changed ownership", "works after …".
_REPORTED_RE = lazy(
    r"\A(?:ok(?:ay)?[,.!]?\s+|done[,.!]?\s+)?(?:(?:i|we)(?:'ve| have)?\s+(?:just\s+|already\s+)?)?"
    r"(?:fixed|solved|resolved|changed|ran|installed|reinstalled|updated|upgraded|added|"
    r"removed|deleted|enabled|disabled|restarted|rebooted|granted|exported|chowned|chmodded|"
    r"cleared|killed|unlocked|logged in|signed in)\b(?! my mind)|\bfixed (?:it|this|that) by\b|"
    r"\b(?:it|that|this)(?:'s| is)? work(?:s|ing|ed)? (?:now )?after\b|\bworks now\b",
    re.IGNORECASE)
_PATH_RE = lazy(r"[^\s'\"`]*[\\/][^\s'\"`]+")
# A line that only announces the next step ("Let me try …") says nothing learnt.
_MOVE_RE = lazy(r"\A(?:let me|let's|i'll|i will|now i|now let|next,? i)\b", re.IGNORECASE)
_LIST_RE = lazy(r"\A(?:[-*+]|\d+[.)])\s+")
_SENTENCE_RE = lazy(r"(?<=[.!?])\s+(?=[A-Z`*])")
# Claude's lead-in before what it found: "I see the issue - ", "Ah, ", "Found it! ", "I see that ".
_NARRATION_RE = lazy(
    r"\A(?:(?:ah|oh|ok(?:ay)?|alright|good news|great|perfect)\b[,!.:]?\s*(?:[-\u2013\u2014]\s+)?)*"
    r"(?:(?:I(?:'ve| have)? )?(?:see|found|notice|noticed|spotted|understand|identified)\b"
    r"(?: (?:the|a|what)(?: real| actual| root)?(?: issue| problem| cause| bug| culprit| it)?)?"
    r"(?: it)?(?: now)?(?:\s*[-\u2013\u2014:!.,]\s*|\s+that\s+))?",
    re.IGNORECASE)


@dataclass(frozen=True)
class Met:
    """A failure met in the session: its command (None for another tool), its error line, and
    where in the read it ended (-1: an earlier read; the note's work log said so)."""

    command: str | None
    error: str
    number: int
    label: str = ""  # how the work log names a call of another tool: Read `x.yml`


@dataclass(frozen=True)
class Said:
    """A message of Claude's (or the person's prompt) and where in the read it stands."""

    number: int
    text: str
    person: bool = False  # the person's prompt, not Claude's message


def gotchas(met: Sequence[Met], said: Sequence[Said]) -> list[tuple[int, str]]:
    """(index in ``said`` of the message that tells it, gotcha text) for each failure of ``met``
    something was said about; one per error signature, the first failure of it first. One
    message tells one lesson: the failures it explains are named in one gotcha."""
    from .errorline import signature

    told: dict[int, tuple[list[tuple[int, str]], list[Met]]] = {}  # message -> lines, failures
    signed: set[tuple[str, ...]] = set()
    for failure in met:
        sig = signature(failure.error)
        if not sig or tuple(sig) in signed:
            continue
        after = [n for n, s in enumerate(said) if s.number > failure.number and not s.person]
        hit = (_next_said(failure, sig, said, after) or _named(failure, sig, said, after)
               or _reported(failure, said))
        if hit is None:
            continue
        signed.add(tuple(sig))
        index, lines = hit
        kept, failures = told.setdefault(index, ([], []))
        kept.extend(line for line in lines if line not in kept)
        failures.append(failure)
    return [(index, gotcha_text(failures, sorted(kept)[:LINES_KEPT], said[index].text))
            for index, (kept, failures) in told.items()]


def gotcha_text(failures: Sequence[Met], lines: Sequence[tuple[int, str]], message: str = ""
                ) -> str:
    """``<explanation> [`<fix command>`] (`<command>` failed: `<error>`)``: the problem and its
    fix first, then what it is for. ``lines``: (line number in ``message``, line) explaining;
    when the last ends by introducing a code block (``run this in your terminal:``), the
    block's first command is the fix, whole or cut between words."""
    said = _without_narration(" ".join(text for _, text in lines))
    command = _fix_command(message, lines[-1][0]) if lines and said.endswith(":") else None
    if command:
        # The problem, then the sentence that brings in its fix (in fixed words when it hands
        # the fix to the person: see the module docstring).
        sentences = _SENTENCE_RE.split(lines[-1][1].replace("**", "").strip())
        handed = bool(_HANDING_RE.search(sentences[-1]))
        # Of a line after the problem's, only the sentence that brings in the fix.
        last = sentences[-1:] if len(lines) > 1 else sentences
        if handed:
            last = [] if len(lines) > 1 else sentences[:-1]
        # A heading before it ("Firewall Logging - Requires Your Password") ends its sentence.
        before = [t if t.endswith((".", "!", "?", ":")) else f"{t}." for _, t in lines[:-1]]
        said = _without_narration(" ".join([*before, *last]))
        failures = sorted(failures, key=lambda f: (f.command != command,
                                                   not _same_command(command, f.command)))
        if handed:
            # The fix first, as "Fixed by running `…`: …" is written; Claude's own lead ("I
            # can't run sudo interactively.") is no fact and goes.
            said = factrule.trim(said)
            span = code_span(one_line(command, max(SAID_CHARS - len(HANDED) - len(said) - 6,
                                                   FIX_CHARS), cut="words"))
            head = f"{HANDED} {span}"
            rest = SAID_CHARS - len(head) - 2
            said = f"{head}: {one_line(said, rest, cut='words')}" if said and rest > 0 else head
            named = "; ".join(_failed(f) for f in failures[:FAILURES_NAMED])
            return f"{said} ({named})"
    if command:
        span = code_span(one_line(command, max(SAID_CHARS - len(said) - 3, FIX_CHARS),
                                  cut="words"))
        said = f"{one_line(said, SAID_CHARS - len(span) - 1, cut='words')} {span}"
    else:
        said = one_line(said, SAID_CHARS, cut="words")
    named = "; ".join(_failed(f) for f in failures[:FAILURES_NAMED])
    return f"{said} ({named})"


def _failed(failure: Met) -> str:
    """```<command>` failed: `<error>```, or ``Read `x.yml` failed: …`` for another tool."""
    if failure.command:
        what = f"{code_span(one_line(failure.command, COMMAND_CHARS, cut='words'))} "
    else:
        what = f"{failure.label} " if failure.label else ""
    return what + _error_span(failure.error)


def _without_narration(text: str) -> str:
    """``text`` without Claude's lead-in ("I see the issue - ", "Ah, "), then capitalised (a
    text without one is left as it is: ``sudo needs…`` names a command)."""
    text = text.replace("**", "").strip()
    rest = _NARRATION_RE.sub("", text, count=1).strip()
    if not rest or rest == text:
        return text
    return rest[0].upper() + rest[1:] if rest[0].islower() else rest


def _fix_command(message: str, after: int) -> str | None:
    """The first command of the code block that follows line ``after`` of ``message`` (comments
    and blank lines skipped), when nothing but blank lines comes between."""
    lines = message.splitlines()
    n = after + 1
    while n < len(lines) and not lines[n].strip():
        n += 1
    if n >= len(lines) or not lines[n].strip().startswith("```"):
        return None
    for line in lines[n + 1:]:
        line = line.strip()
        if line.startswith("```"):
            return None
        if line and not line.startswith(("#", "//", "REM ")):
            return line.removeprefix("$ ")
    return None


def _next_said(failure: Met, sig: Sequence[str], said: Sequence[Said], after: Sequence[int]
               ) -> tuple[int, list[tuple[int, str]]] | None:
    """The message right after the failure, when its lines name the error (one of its words
    does) and say why or what to do."""
    if not after or failure.number < 0:
        return None  # a failure of an earlier read: its next message was read then
    if said[after[0]].number - failure.number > NEXT_LINES:
        return None  # more work came between: the message is about that
    lines = _explaining(said[after[0]].text, (failure.error, sig, failure.command), 1)
    return (after[0], lines) if lines else None


def _reported(failure: Met, said: Sequence[Said]) -> tuple[int, list[tuple[int, str]]] | None:
    """The person's next prompt after the failure, when it reports what they did about it ("I
    fixed it by …", "changed ownership", "works after …"): nothing Claude said explains it."""
    index = next((n for n, s in enumerate(said) if s.person and s.number > failure.number), None)
    if index is None:
        return None
    prompt = one_line(said[index].text, REPORT_CHARS + 1)
    if len(prompt) > REPORT_CHARS or not _REPORTED_RE.search(prompt):
        return None
    return index, [(0, f"{REPORTED} \u201c{prompt}\u201d")]


def _named(failure: Met, sig: Sequence[str], said: Sequence[Said], after: Sequence[int]
           ) -> tuple[int, list[tuple[int, str]]] | None:
    """A later message whose lines name the error and say what it means, why or what fixed it."""
    for index in after:
        lines = _explaining(said[index].text, (failure.error, sig, failure.command), 2)
        if lines:
            return index, lines
    return None


def _explaining(text: str, naming: tuple[str, Sequence[str], str | None], words: int
                ) -> list[tuple[int, str]]:
    """(line number, line) of the lines of ``text`` that say why or what to do and name the
    failure of ``naming`` (error line, its signature, command): by a code span the error line
    holds, by ``words`` of its signature (all of them when it has fewer), or by the failed
    command itself, in a span or as the code block the line brings in (a command handed to the
    person to run: ``run this in your terminal:``); at most LINES_KEPT."""
    from . import moments

    kept: list[tuple[int, str]] = []
    error, sig, command = naming
    folded = error.casefold()
    for number, line, line_spans in _saying_why(text):
        spans = [s for s in line_spans if s.casefold() in folded or _same_command(s, command)]
        handed = line.endswith(":") and _same_target(_fix_command(text, number), command)
        if not spans and len(moments.shared(sig, line)) < min(words, len(sig)) and not handed:
            continue
        if handed and not kept and (why := _why_before(text, number)) is not None:
            kept.append(why)  # "… because it's owned by root." before "You can run:"
        kept.append((number, line))
        if len(kept) == LINES_KEPT:
            break
    return kept


# Each failure of a turn is weighed against each message after it: a message's lines are read
# once (a long session's capture read them once per failure it met before).
@functools.lru_cache(maxsize=256)
def _saying_why(text: str) -> tuple[tuple[int, str, tuple[str, ...]], ...]:
    """(line number, line, its code spans) of the lines of ``text`` that say why or what to do
    (list markers and heading marks off; not a move on to the next step)."""
    found: list[tuple[int, str, tuple[str, ...]]] = []
    for number, raw in enumerate(text.splitlines()):
        line = _LIST_RE.sub("", raw.strip().lstrip("#").strip())
        if line and not _MOVE_RE.match(line) and _SAID_WHY_RE.search(line):
            found.append((number, line, tuple(_SPAN_RE.findall(line))))
    return tuple(found)


def _why_before(text: str, number: int) -> tuple[int, str] | None:
    """The line before line ``number`` of ``text`` (blank lines skipped) when it says why."""
    lines = text.splitlines()
    for back in range(number - 1, -1, -1):
        line = _LIST_RE.sub("", lines[back].strip().lstrip("#").strip())
        if line:
            return (back, line) if _SAID_WHY_RE.search(line) and not _MOVE_RE.match(
                line) and not line.endswith(":") else None
    return None


def _same_target(said: str | None, command: str | None) -> bool:
    """Whether a command Claude handed over reruns the failed one or works on a file it named
    (the last two segments of a path alike: ``./.github/x.yml`` and ``~/r/.github/x.yml``)."""
    if _same_command(said, command):
        return True
    if not said or not command:
        return False

    from vaultmem.mining.commandline import run_key

    def tails(text: str) -> set[str]:
        # The folder a command runs in (``cd ~/repo && …``, a lone ``cd ~/repo``) is no file of it.
        found: set[str] = set()
        text = run_key(text)
        if text.startswith("cd "):
            return found
        for path in _PATH_RE.findall(text):
            parts = [p for p in path.replace("\\", "/").split("/") if p not in ("", ".", "~")]
            if len(parts) >= 2:
                found.add("/".join(parts[-2:]).casefold())
        return found

    return bool(tails(said) & tails(command))


def _same_command(said: str | None, command: str | None) -> bool:
    """Whether a command Claude wrote is the failed one (as a rerun of it is: :func:`state_key`)."""
    if not said or not command:
        return False
    from vaultmem.mining.fixes import state_key

    return state_key(said) == state_key(command)


_FAILED_RE = lazy(
    r"\A- (?P<how>Failed|Not run): (`+) ?(?P<command>.+?) ?\2(?: ×\d+)?(?: — (`+) ?(?P<error>.+?) ?\4)?\s*\Z")


def met_in_note(note_text: str) -> list[Met]:
    """The failures of commands the note's work log records (``- Failed: `cmd` — `error```, and
    ``- Not run:`` when the machine never started it), first first: the failures of earlier
    reads of this session that no gotcha of this module explains yet."""
    met: list[Met] = []
    told: list[str] = []  # the gotchas this module wrote already
    for line in note_text.split("\n"):
        if not line.startswith(("- Failed: `", "- Not run: `")):
            if line.startswith("- ") and " failed: `" in line:
                told.append(line)
            continue
        found = _FAILED_RE.match(line)
        if found is None or not (error := found.group("error")):
            continue
        # A call that never ran counts only when the machine stopped it (not a refusal).
        if found.group("how") == "Failed" or notices.not_started(error):
            met.append(Met(found.group("command"), error, -1))
    said = "\n".join(told)
    return [m for m in met if _error_span(m.error) not in said]


def _error_span(error: str) -> str:
    from vaultmem.mining.fixes import error_quote

    return f"failed: {code_span(error_quote(error, ERROR_CHARS))}"
