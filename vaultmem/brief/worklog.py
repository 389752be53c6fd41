"""What a session note's work log says, read in time order (pure): its turns with their answers
(each answer's recap points, telling sentences and what it says comes next), the command failures
no later run passed, calls that never ran, Claude Code's notice that ended the work, steps done,
the last request no answer followed, and what the session installed or set.

Split from ``digest`` (the rest of a session note's digest), which parses the note once and hands
its lines, block kinds and headings here.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace

from vaultmem.mining import notices
from vaultmem.notes import sections
from vaultmem.notes.lazyre import lazy
from vaultmem.notes.noise import ANSWER_NAME, NOTES_TITLE

from . import briefrank, installs, recapline, recapnext

ENTRY = re.compile(r"(\d{1,2}:\d{2})\s*[-–—]\s*(.*)")
# A turn's answer, or what Claude Code's compact summary says the session was doing then.
ANSWER = re.compile(r"\*\*(?:Answer|Outcome):\*\*\s*(.*\S)")
PROMPT = re.compile(r"\*\*Prompt:\*\*\s*(.*\S)")
# ``- Failed: `pytest -q` ×2 — `E   assert 1 == 2``` and ``- Ran `pytest -q` ×3``, in time order:
# a command that failed and then passed has its Failed line before its Ran line.
FAILED = lazy(r"Failed(?:\s*×\s*\d+)?:\s*((`+)(.+?)\2.*)")
NOT_RUN = lazy(r"Not run:\s*((`+)(.+?)\2.*)")
STOPPED = lazy(r"Stopped by Claude Code:\s*(`+)\s?(.+?)\s?\1\s*$")
RAN = lazy(r"Ran\s+(`+)(.+?)\1")
# A todo item completed, a commit made (stated.DONE, stated.COMMITTED): a next step they name is
# done; a step a later answer reported done (group 1: stated.STEP_DONE) is closed, not shown.
DONE = lazy(r"(?:Done|Committed|(Step done)):\s+(.*\S)")
DONE_STARTS = ("Done:", "Committed:", "Step done:")
# Claude Code's line saying a background command ended (capture no longer makes it an entry).
NOTIFICATION = re.compile(r"\s*<task-notification>")


@dataclass(frozen=True)
class Turn:
    """A work-log entry with the answer Claude gave in it."""

    time: str
    title: str
    answer: str
    # The points of the answer's recap below it (its list items, headings and bold lines), as
    # words: what a briefing with room to spare says of the answer beyond its line.
    details: tuple[str, ...] = ()
    upcoming: tuple[str, ...] = ()  # what its recap's "Next Steps" part says (recapnext)
    ending: str = ""  # the prose the whole answer ends on (recapnext.closing): the last's only


@dataclass
class Log:
    """What a session's work log says, read in time order."""

    turns: list[Turn]
    failing: dict[str, str]  # run key -> the newest failure line's text
    not_run: dict[str, str]  # run key -> the newest "never ran" line's text
    stopped: str = ""
    done: list[str] = field(default_factory=list)
    closed: list[str] = field(default_factory=list)  # steps a later answer reported done
    logged: int = 0
    asked: str = ""  # the newest prompt no answer followed
    last_entry: str = ""  # the title of its newest entry ("Session End" once it ended)
    answered_at: int = -1  # the line of the newest answer
    changed: installs.Changes = field(default_factory=installs.Changes)


def read(lines: Sequence[str], kind: Sequence[str], heads: Iterable[sections.Heading],
         ranges: Iterable[tuple[int, int]], prose: bool = True) -> Log:
    """Turns with answers (their recap's points and, with ``prose``, its telling sentences as
    details), command failures (and calls that never ran) no later run of that
    command passed, Claude Code's notice that ended the work, the number of entries.

    The log reads in time order: a ``Ran`` line after a command's ``Failed`` line is a run that
    passed. Only commands count: a tool that failed (an edit that did not apply) has no "pass".
    ``lines`` are a note's lines, ``kind`` the kind of top-level block each belongs to, ``heads``
    its headings, ``ranges`` its work-log sections' (body start, subtree end).
    """
    log = Log([], {}, {})
    turns, failing = log.turns, log.failing
    logged = 0
    by_line = {h.line: h for h in heads}
    # Of each turn, its recap's points beyond its line and what it says comes next, set on the
    # turn once it is read (one copy of the turn each, not one per point).
    told: list[tuple[list[str], recapnext.Upcoming]] = []
    # The words of the newest answer's line (its recap points joined in), read when a point of
    # its recap is weighed first.
    answer_words: str | None = None
    for start, end in ranges:
        time, title = "", ""
        points: list[str] | None = None  # the recap points of the entry's lead-in answer
        details: list[str] | None = None  # the points of the recap of the entry's answer
        upcoming: recapnext.Upcoming | None = None  # what that recap says comes next
        asking = False  # in the recap, below a question: its list items are its options
        fenced = False  # in a fenced block of a quote
        answered: int | None = None  # the entry's turn (its place in ``told``) once answered
        # Sentences of a quote's prose kept as details (none read without ``prose``).
        told_prose = 0 if prose else recapline.PROSE_DETAILS
        lead, header = "", list[str]()  # an answer's first line; a table's header in its recap
        for n in range(start, end):
            line = lines[n].rstrip("\r")
            head = by_line.get(n)
            if head is not None:
                points = details = upcoming = answered = None
                told_prose = 0 if prose else recapline.PROSE_DETAILS
                logged += 1
                match = ENTRY.fullmatch(head.title)
                time, title = (match.group(1), match.group(2)) if match else ("", head.title)
                log.last_entry = title.strip()
                if NOTIFICATION.match(title):
                    title = ""  # an older note's entry for a background command's end: no prompt
                continue
            block = kind[n]
            if block not in ("blockquote", ""):
                points = None  # the recap is the block right below its answer, or none
                details = upcoming = None
            if block == "paragraph":
                prompt = PROMPT.match(line)
                if prompt:
                    log.asked = prompt.group(1)
                answer = ANSWER.match(line)
                # An older note may hold Claude Code's usage-limit notice as an answer: none.
                if answer and not notices.api_notice(answer.group(1)):
                    log.stopped = ""
                    if not briefrank.asks_back(answer.group(1)):
                        log.asked = ""  # answered; a question back leaves the request open
                    lead = answer.group(1)
                    turns.append(Turn(time, title, lead))
                    log.answered_at = n
                    points = [] if lead.endswith(":") else None
                    details = []
                    upcoming = recapnext.Upcoming()
                    told.append((details, upcoming))
                    answered = len(told) - 1
                    answer_words = None
            if block == "blockquote" and line.startswith("> [!") and ANSWER_NAME not in line:
                # What Claude reported along the way, a plan approved, a prompt kept whole: no
                # recap of the answer; what Claude found along the way tells its details too.
                points = details = upcoming = None
                if answered is not None and NOTES_TITLE in line:
                    details = told[answered][0]
            if block == "blockquote" and line.startswith("> [!"):
                told_prose = 0 if prose else recapline.PROSE_DETAILS
                fenced = False
            # A fence in the quote: its lines are code or output (a string test: an answer has
            # hundreds of lines).
            fence = details is not None and block == "blockquote" \
                and line[1:].lstrip().startswith(("```", "~~~"))
            if fence:
                fenced = not fenced
            if block == "blockquote" and points is not None and turns:
                # An answer that ends leading into a list ("Here's what changed:") says its
                # outcome in the recap kept below it: its headings and bold lines, in order.
                said = recapline.point(line)
                if said and said not in points and said not in lead \
                        and len(points) < recapline.RECAP_POINTS:
                    points.append(said)
                    turns[-1] = replace(turns[-1], answer=f"{lead} — " + "; ".join(points))
                    answer_words = None
            if block == "blockquote" and upcoming is not None and turns:
                upcoming.feed(line)
            if block == "blockquote" and details is not None and turns:
                said, asking, listed = recapline.detail(line, asking)
                below = lines[n + 1] if n + 1 < end else ""
                said, header = recapline.row(line, below, header) \
                    if line.startswith("> |") and not fenced else (said, [])  # a table's rows
                # Its prose's sentences that tell a name, a path or a number (a fenced block's
                # lines are code or output, a table's its cells).
                if not listed and not (fenced or fence) \
                        and told_prose < recapline.PROSE_DETAILS \
                        and not line.startswith(("> [!", "> |")):
                    for sentence in recapline.telling_sentences(line[1:]):
                        if told_prose < recapline.PROSE_DETAILS and sentence not in details:
                            if answer_words is None:
                                answer_words = recapline.words(turns[-1].answer)
                            if recapline.words(sentence) not in answer_words:
                                details.append(sentence)
                                told_prose += 1
                # Its answer line may say it with emphasis or a dash ("**254** installs"): the
                # words are compared, not the marks.
                if len(details) < recapline.DETAILS and recapline.telling(said) \
                        and said not in details:
                    if answer_words is None:
                        answer_words = recapline.words(turns[-1].answer)
                    if recapline.words(said) not in answer_words:
                        details.append(said)
            elif block == "bullet_list" and line.startswith(("- ", "* ")):
                body = line[2:].strip()
                if prose:
                    log.changed.add(body)
                # Its first word tells which may match (each compiled on first use, if ever).
                failed = (FAILED.match(body) if body.startswith("Failed") else None) or (
                    NOT_RUN.match(body) if body.startswith("Not run") else None)
                ran = RAN.match(body) if not failed and body.startswith("Ran") else None
                stopped = STOPPED.match(body) if body.startswith("Stopped") else None
                done = DONE.match(body) if body.startswith(DONE_STARTS) else None
                if done:
                    (log.closed if done.group(1) else log.done).append(done.group(2))
                # Keyed by run: ``REDIS_URL=… pytest -q`` passing passes ``pytest -q`` too.
                never = failed is not None and (body.startswith("Not run") or notices.denial(
                    _failure_error(failed.group(1))) is not None)
                # A lookup that found nothing (or never ran) leaves nothing to pick up; a call
                # that never ran is kept apart (an older note wrote one the permissions stopped
                # as a failure).
                if failed or (ran and (failing or log.not_run)):
                    from vaultmem.mining import fixes  # a log without failures needs none of it
                if failed and not fixes.looks_up_only(failed.group(3).strip()):
                    into = log.not_run if never else failing
                    command = fixes.state_key(failed.group(3).strip())
                    into.pop(command, None)  # the newest last
                    into[command] = failed.group(1)
                elif ran and (failing or log.not_run):
                    # ``uv run pytest``, ``cd x && pytest``, ``make db && pytest`` pass ``pytest``
                    # (read only while a failure waits for it: a session runs hundreds).
                    for key in fixes.passes(ran.group(2).strip()):
                        failing.pop(key, None)
                        log.not_run.pop(key, None)
                elif stopped:
                    log.stopped = stopped.group(2)
    log.logged = logged
    for n, (details, upcoming) in enumerate(told):
        if details or upcoming.lines:
            turns[n] = replace(turns[n], details=tuple(details), upcoming=tuple(upcoming.lines))
    if turns and log.answered_at >= 0:
        ending = recapnext.closing(_answer_text(lines, kind, log.answered_at))
        turns[-1] = replace(turns[-1], ending=ending)
    return log


def _answer_text(lines: Sequence[str], kind: Sequence[str], at: int) -> list[str]:
    """The lines of the callout holding the whole answer whose line is ``at`` (none when the
    quote below it is another: what Claude said along the way, a prompt or a plan kept whole)."""
    n = at + 1
    while n < len(lines) and not lines[n].strip():
        n += 1
    end = n
    while end < len(lines) and kind[end] == "blockquote":
        end += 1
    return [] if n == end or ANSWER_NAME not in lines[n] else list(lines[n:end])


def _failure_error(failure: str) -> str:
    """The error of a ``Failed:`` line's text (after its command and ``— ``), without its code
    span's backticks."""
    _, dash, error = failure.partition(" — ")
    return error.strip().strip("`").strip() if dash else ""
