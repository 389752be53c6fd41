"""Knowledge Claude Code writes with a schema: items without prose mining (pure; DESIGN §11).

What a tool call's input and its result already say, read by their shapes:

- ``AskUserQuestion`` (input ``questions: [{question, header, options: [{label, description}],
  multiSelect}]``; result ``User has answered your questions: "<question>"="<answer>", … You can
  now continue …``): a decision per question answered, with the options not chosen. A call the
  person rejected or left unanswered says nothing.
- ``ExitPlanMode`` approved (input ``plan``, or the plan file Claude wrote before it, or the
  result's ``## Approved Plan:`` part): the plan's decisions, its list items under a heading that
  names a decision, requirement, approach or design, and its lines labelled a recommendation or
  decision (an option named by its letter or number, "Start with Option A", gets the name its
  definition gives, "Option A (Setcap)"); the first sentences of a paragraph under such a
  heading ("## Approach" over "Poll the counters from one task so …"); and the rest of the plan's
  sentences that state a choice as prose does (``answers.mine``'s decisions: "We'll use X rather
  than Y since …"); never the whole plan as one item. A rejected plan (a denied call) says
  nothing.
- ``TodoWrite`` (input ``todos: [{content, status, activeForm}]``): the last list's open items
  (``pending``, ``in_progress``) are next steps, and so are those of an earlier list a new list
  left behind (:func:`todo_state`); every item completed is an outcome (``Done:``).
- An issue tracker's listing run from Bash (``gh issue list``, ``glab mr list``, ``jira issue
  list``, ``linear issue list``, ``bd ready``…): each open item as a next step, its tracker id and
  its title only (a listing is data: nothing else of it is kept).
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from vaultmem.mining.answers import mine
from vaultmem.notes import mdlines
from vaultmem.notes.inline import clip, code_span, one_line
from vaultmem.notes.lazyre import lazy
from vaultmem.notes.schema import Kind

FoundKind = Literal[Kind.DECISION, Kind.NEXT_STEP, "outcome"]
TEXT_MAX_CHARS = 300
TITLE_MAX_CHARS = 120
RESULT_KEEP_CHARS = 16 * 1024  # of a structured call's result, kept to read it
PLAN_KEEP_CHARS = 32 * 1024  # of a plan, kept to read its decisions
PLAN_DECISIONS = 8
LISTING_ITEMS = 15
OPEN = frozenset({"pending", "in_progress"})

ASK = "AskUserQuestion"
PLAN = "ExitPlanMode"
TODO = "TodoWrite"
ANSWERED = "User has answered your questions:"
_ANSWER_END = ". You can now continue"
_APPROVED_RE = lazy(r"\A\s*User has approved (?:your plan|exiting plan mode)\b")
_APPROVED_PLAN_RE = lazy(r"^#{1,6}\s*Approved Plan(?: \([^)\n]*\))?:[ \t]*\n", re.MULTILINE)
_PAIR_RE = lazy(r'"([^"\n]+?)"="([^"\n]*)"')


@dataclass(frozen=True)
class Question:
    """One question of an ``AskUserQuestion`` call and the labels of its options."""

    text: str
    options: tuple[str, ...]
    multi: bool = False


@dataclass(frozen=True)
class Todo:
    """One item of a ``TodoWrite`` list."""

    content: str
    status: str


@dataclass(frozen=True)
class CallData:
    """What a structured call's input says (one per ``ToolCall``, None for the others)."""

    questions: tuple[Question, ...] = ()
    plan: str | None = None  # ExitPlanMode's plan, or the content Claude wrote to a plan file
    todos: tuple[Todo, ...] | None = None
    listing: bool = False  # a Bash command that lists a tracker's issues: its output is read
    written: bool = False  # ``plan`` is a plan file's content Claude wrote (its result is no news)

    @property
    def wants_result(self) -> bool:
        """Whether the call's result says something to keep (an answer, an approval, a list)."""
        return bool(self.questions) or self.listing or (self.plan is not None and not self.written)


@dataclass(frozen=True)
class Found:
    """One item a structured record states."""

    kind: FoundKind
    text: str


Clean = Callable[[str], str]


def call_data(name: str, tool_input: dict[str, Any], clean: Clean) -> CallData | None:
    """What the input of a call of tool ``name`` says, when it is one of the structured ones
    (``clean``: private text out and secrets redacted); None otherwise."""
    if name == ASK:
        asked = (_question(v, clean) for v in _list(tool_input.get("questions")))
        questions = tuple(q for q in asked if q is not None)
        return CallData(questions=questions) if questions else None
    if name == PLAN:
        plan = tool_input.get("plan") or tool_input.get("planContent")
        return CallData(plan=clean(plan)[:PLAN_KEEP_CHARS] if isinstance(plan, str) else "")
    if name == TODO:
        listed = (_todo(v, clean) for v in _list(tool_input.get("todos")))
        todos = tuple(t for t in listed if t is not None)
        return CallData(todos=todos)
    if name == "Write" and is_plan_file(tool_input.get("file_path")):
        content = tool_input.get("content")
        return CallData(plan=clean(content)[:PLAN_KEEP_CHARS], written=True) \
            if isinstance(content, str) else None
    if name == "Bash":
        command = tool_input.get("command")
        return CallData(listing=True) if isinstance(command, str) and is_listing(command) \
            else None
    return None


def is_plan_file(path: Any) -> bool:
    """A path Claude writes a plan to in plan mode (``~/.claude/plans/<slug>.md``, a
    ``…-plan.md`` elsewhere)."""
    if not isinstance(path, str) or not path.endswith(".md"):
        return False
    folder, name = posixpath.split(path.replace("\\", "/").casefold())
    return posixpath.basename(folder) == "plans" or "plan" in name.removesuffix(".md").split("-") \
        or name.removesuffix(".md") == "plan"


def result_shaped(output: str) -> bool:
    """A result whose own words say it is an answer or an approval (its call may be in an
    earlier read)."""
    head = output.lstrip()[:80]
    return head.startswith(ANSWERED) or _APPROVED_RE.match(head) is not None


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _question(value: Any, clean: Clean) -> Question | None:
    if not isinstance(value, dict) or not isinstance(value.get("question"), str):
        return None
    options = tuple(clean(o["label"]).strip() for o in _list(value.get("options"))
                    if isinstance(o, dict) and isinstance(o.get("label"), str))
    text = clean(value["question"]).strip()
    return Question(text, tuple(o for o in options if o), value.get("multiSelect") is True) \
        if text else None


def _todo(value: Any, clean: Clean) -> Todo | None:
    if not isinstance(value, dict) or not isinstance(value.get("content"), str):
        return None
    content = one_line(clean(value["content"]))
    status = value.get("status")
    return Todo(content, status if isinstance(status, str) else "") if content else None


# -- AskUserQuestion ------------------------------------------------------------------------------


def answers(data: CallData | None, said: str) -> tuple[Found, ...]:
    """The decisions of an answered ``AskUserQuestion``: ``said`` is its result. Questions known
    from the call's input are found by their text (an answer may hold quotes and commas);
    without the input, the ``"question"="answer"`` pairs of the result."""
    body = said.strip()
    if not body.startswith(ANSWERED):
        return ()
    body = body[len(ANSWERED):]
    end = body.rfind(_ANSWER_END)
    body = body[:end] if end >= 0 else body
    found: list[Found] = []
    questions = data.questions if data is not None else ()
    pairs = _located(body, questions) if questions else \
        [(Question(m.group(1), ()), m.group(2)) for m in _PAIR_RE.finditer(body)]
    for question, answer in pairs:
        text = _decision(question, answer)
        if text:
            found.append(Found(Kind.DECISION, text))
    return tuple(found)


def _located(body: str, questions: Sequence[Question]) -> list[tuple[Question, str]]:
    """Each question's answer: from its ``"question"="`` to the next known question's."""
    starts: list[tuple[int, int, Question]] = []
    at = 0
    for question in questions:
        key = f'"{question.text}"="'
        where = body.find(key, at)
        if where < 0:
            continue
        starts.append((where, where + len(key), question))
        at = where + len(key)
    pairs = []
    for n, (_, start, question) in enumerate(starts):
        stop = starts[n + 1][0] if n + 1 < len(starts) else len(body)
        raw = body[start:stop].rstrip().removesuffix(",").rstrip()
        # ``…"=answer" (notes: …)``: the answer closes at its last quote.
        close = raw.rfind('"')
        pairs.append((question, raw[:close] if close >= 0 else raw))
    return pairs


def _decision(question: Question, answer: str) -> str:
    answer = one_line(answer)
    if not answer:
        return ""
    chosen = [o for o in question.options if o == answer
              or (question.multi and o in [a.strip() for a in answer.split(",")])]
    if not chosen and answer in question.options:
        chosen = [answer]
    others = [o for o in question.options if o not in chosen]
    text = f"{one_line(question.text)} — chose: {answer}"
    if others:
        text += "; not chosen: " + ", ".join(others)
    return clip(text, TEXT_MAX_CHARS, words=False)


# -- ExitPlanMode -------------------------------------------------------------------------------

# A heading whose list items are the plan's choices (not its steps, files or checks).
_DECISION_HEADING_RE = lazy(
    r"\b(?:decisions?|requirements?|approach|design|architecture|choices?|strategy|stack|"
    r"solution|trade-?offs?|conventions?)\b", re.IGNORECASE)
_NOT_DECISION_HEADING_RE = lazy(
    r"\b(?:steps?|phases?|files?|tasks?|verification|testing|tests?|checklist|timeline|"
    r"references?|future|structure|overview)\b", re.IGNORECASE)
_LABELLED_RE = lazy(
    r"^\s*(?:[-*+]\s+|\d{1,3}[.)]\s+)?\*\*(?:recommendation|decision|chosen approach|approach|"
    r"choice|recommended)\s*:?\s*\*\*\s*:?\s*(?P<text>\S.*)$", re.IGNORECASE)
_PREFERRED_RE = lazy(r"\((?:preferred|recommended|chosen)\)", re.IGNORECASE)
# An option the plan defines, by its heading or lead line: "### Option A: Setcap (Simple, for
# testing)", "- **Approach 2** — a systemd daemon": its key ("option a") and its name.
_OPTION_DEFINED_RE = lazy(
    r"^\s*(?:#{1,6}\s+|(?:[-*+]|\d{1,3}[.)])\s+)?(?:\*\*|__)?(?P<key>(?:option|approach|"
    r"alternative|variant|solution) (?:[A-Z]|\d{1,2}))\b(?:\*\*|__)?\s*[:.)—–-]+\s*(?:\*\*|__)?"
    r"(?P<name>[^(\n:—–*_]*[^\s(:—–*_-])", re.IGNORECASE)
# A reference to one in a decision line: "Start with Option A for MVP" (not already named:
# "Option A: Setcap", "Option A (Setcap)").
_OPTION_USED_RE = lazy(
    r"\b(?:option|approach|alternative|variant|solution) (?:[A-Z]|\d{1,2})\b(?!\s*[:(—–])",
    re.IGNORECASE)
OPTION_NAME_WORDS = 6  # of an option's name put beside its letter
_ITEM_RE = lazy(r"^(?P<indent>[ \t]*)(?:[-*+]|\d{1,3}[.)])\s+(?:\[.\]\s+)?(?P<text>\S.*)$")
_EMPHASIS_RE = lazy(r"\*\*|__")


def plan_text(data: CallData | None, said: str, written: str | None) -> str | None:
    """The plan the person approved: the call's ``plan``, else the result's ``## Approved
    Plan:`` part, else ``written`` (the last plan file Claude wrote); None when the result is
    no approval."""
    if not _APPROVED_RE.match(said):
        return None
    if data is not None and data.plan:
        return data.plan
    part = _APPROVED_PLAN_RE.search(said)
    if part is not None:
        return said[part.end():]
    return written


def plan_decisions(plan: str) -> tuple[Found, ...]:
    """The decisions an approved plan states: the top-level list items right under a heading
    that names a choice, the first paragraph's sentences under one, lines labelled a
    recommendation or decision or marked preferred, then the other lines' sentences that state
    a choice (outside code fences; at most PLAN_DECISIONS)."""
    found: list[str] = []
    rest: list[str] = []  # the lines not taken, mined as prose after
    options = _options(plan)
    under = False  # below a heading that names the plan's choices
    said = False  # a paragraph under that heading was taken
    paragraph: list[str] = []  # the one being read under that heading
    fence: str | None = None
    for raw in [*plan.split("\n"), ""]:
        line = raw.rstrip()
        stripped = line.strip()
        heading = mdlines.HEADING.match(line) if fence is None else None
        item = _ITEM_RE.match(line)
        if paragraph and (not stripped or heading or item or stripped.startswith(("```", "~~~"))):
            _take(found, _named(_first_sentences(one_line(_EMPHASIS_RE.sub(
                "", " ".join(paragraph)))), options))
            paragraph = []
        if fence is not None:
            fence = None if stripped.startswith(fence) else fence
            continue
        if stripped.startswith(("```", "~~~")):
            fence = stripped[:3]
            continue
        if heading is not None:
            title = heading.group(2)
            under = _DECISION_HEADING_RE.search(title) is not None \
                and _NOT_DECISION_HEADING_RE.search(title) is None
            said = False
            if not under:
                rest.append(line)
            continue
        labelled = _LABELLED_RE.match(line)
        text = ""
        if labelled is not None:
            text = labelled.group("text")
        elif item is not None and not item.group("indent") and (
                under or _PREFERRED_RE.search(item.group("text"))):
            text = item.group("text")
        elif paragraph:
            paragraph.append(stripped)
            continue
        elif under and not said and item is None and _opens(stripped):
            paragraph, said = [stripped], True
            continue
        if not text and not under:  # a detail under the plan's choices is no choice of its own
            rest.append(line)
        _take(found, _named(one_line(_EMPHASIS_RE.sub("", text)), options))
    for mined in mine("\n".join(rest)):
        if mined.kind == Kind.DECISION:
            _take(found, _named(one_line(mined.text), options))
    return tuple(Found(Kind.DECISION, t) for t in found[:PLAN_DECISIONS])


def _take(found: list[str], text: str) -> None:
    text = clip(text, TEXT_MAX_CHARS, words=False)
    if len(text.split()) >= 2 and text not in found:
        found.append(text)


_SENTENCE_END_RE = lazy(r"(?<=[.!])\s+(?=[A-Z`*_])")
PARAGRAPH_SENTENCES = 2  # of a paragraph under a heading naming the plan's choices
PARAGRAPH_MIN_WORDS = 5


def _opens(line: str) -> bool:
    """A prose line that opens a paragraph saying something: not a lead-in to a list (its
    last words end with ``:``), a table's row or a quote."""
    return len(line.split()) >= PARAGRAPH_MIN_WORDS and not line.endswith(":") \
        and not line.startswith(("|", ">", "<!--"))


def _first_sentences(text: str) -> str:
    """The paragraph's first sentences; none when it only leads into what follows."""
    if text.endswith(":"):
        return ""
    return " ".join(_SENTENCE_END_RE.split(text)[:PARAGRAPH_SENTENCES])


def _options(plan: str) -> dict[str, str]:
    """The options ``plan`` defines, by key ("option a") -> name ("Setcap"); the first
    definition of a key wins."""
    named: dict[str, str] = {}
    for line in plan.split("\n"):
        defined = _OPTION_DEFINED_RE.match(line)
        if defined is not None:
            name = " ".join(defined.group("name").split()[:OPTION_NAME_WORDS])
            if name:
                named.setdefault(defined.group("key").casefold(), name)
    return named


def _named(text: str, options: dict[str, str]) -> str:
    """``text`` with each option it refers to by letter or number named: "Start with Option A
    for MVP" -> "Start with Option A (Setcap) for MVP" (a recommendation that names no option
    says nothing read alone)."""
    def name(used: re.Match[str]) -> str:
        known = options.get(used.group(0).casefold())
        return f"{used.group(0)} ({known})" if known else used.group(0)

    return _OPTION_USED_RE.sub(name, text) if options else text


# -- TodoWrite ----------------------------------------------------------------------------------


def todo_state(lists: Sequence[tuple[Todo, ...]]
               ) -> tuple[tuple[tuple[int, Found], ...], tuple[tuple[int, str], ...]]:
    """The next steps ``lists`` leave open, each with the list that says so: the last list's
    open items, and those of a list work was done on (an item completed) that the next list
    does not go on with (it shares none of its items: new work began, "Test if the errors are
    gone" was never done), unless a later list completed them, renamed as they were
    (:func:`settled.completed`); a list the next one goes on with was re-planned, its items
    dropped or renamed. And the items completed in any list that the last one does not hold
    open: (the list that first says so, its text)."""
    if not lists:
        return (), ()
    from vaultmem.mining.settled import completed

    last = lists[-1]
    still = {t.content for t in last if t.status in OPEN}
    steps: list[tuple[int, Found]] = []
    for n, todos in enumerate(lists[:-1]):
        if {t.content for t in todos} & {t.content for t in lists[n + 1]} or not any(
                t.status == "completed" for t in todos):
            continue
        later = [t.content for after in lists[n + 1:] for t in after if t.status == "completed"]
        steps += [(n, Found(Kind.NEXT_STEP, clip(t.content, TEXT_MAX_CHARS, words=False)))
                  for t in todos if t.status in OPEN and t.content not in still
                  and not completed(t.content, later)]
    steps += [(len(lists) - 1, Found(Kind.NEXT_STEP, clip(t.content, TEXT_MAX_CHARS, words=False)))
              for t in last if t.status in OPEN]
    done: dict[str, int] = {}
    for n, todos in enumerate(lists):
        for t in todos:
            if t.status == "completed" and t.content not in still:
                done.setdefault(clip(t.content, TEXT_MAX_CHARS, words=False), n)
    return tuple(steps), tuple((n, text) for text, n in done.items())


# -- an issue tracker's listing -----------------------------------------------------------------

_TRACKERS = frozenset({"gh", "glab", "jira", "linear", "bd", "beads", "tea", "hub", "lab",
                       "acli", "az", "gitea", "fj", "berg", "tk", "jj-issue"})
_NOUNS = frozenset({"issue", "issues", "pr", "prs", "mr", "mrs", "ticket", "tickets", "task",
                    "tasks", "bug", "bugs", "story", "stories", "epic", "epics", "work-item",
                    "workitem", "pulls", "pull"})
_VERBS = frozenset({"list", "ls", "ready", "search"})
_SEGMENT_RE = lazy(r"&&|\|\||[;|\n]")
_ENV_WORD_RE = lazy(r"\A[A-Za-z_][A-Za-z0-9_]*=")
_RUNNER_WORDS = frozenset({"npx", "bunx", "pnpm", "yarn", "uvx", "sudo", "time", "env", "exec",
                           "dlx", "run", "uv", "poetry", "pipenv", "bundle"})


def is_listing(command: str) -> bool:
    """Whether one of the command's parts lists a tracker's work: a tracker's program with a
    listing verb (``gh issue list``, ``bd ready``), or an issue noun then one (``… issue list``)."""
    for part in _SEGMENT_RE.split(command[:2000]):
        words = [w.strip("'\"") for w in part.split()]
        while words and (_ENV_WORD_RE.match(words[0]) or words[0] in _RUNNER_WORDS
                         or words[0] == "cd"):
            words = words[2:] if words[0] == "cd" else words[1:]
        if not words:
            continue
        program = posixpath.basename(words[0]).casefold()
        head = [w.casefold() for w in words[1:5]]
        verbs = [n for n, w in enumerate(head) if w in _VERBS]
        if not verbs:
            continue
        if program in _TRACKERS or program.endswith(("-cli", "issues")):
            return True
        if any(w in _NOUNS for w in head[: verbs[0]]) or program in _NOUNS:
            return True
    return False


# An id: ``#12``, ``PROJ-123``, or a hash id with a prefix (``bd-a1b2``, one digit at least).
_ID_RE = lazy(r"(?:#\d{1,7}|[A-Z][A-Z0-9]{1,9}-\d{1,7}|[a-z][a-z0-9]{0,15}-(?=[a-z0-9]*\d)"
              r"[a-z0-9]{3,10}(?:\.\d{1,3})?)")
_FIELD_SPLIT_RE = lazy(r"\t|\s{2,}")
_NUMBERED_RE = lazy(r"\A\s*(?:\d{1,4}[.)]|[-*•○◐●✓✗]|\[[ x]\])\s+")
_TAG_RE = lazy(r"\A(?:\[[^\]\n]{1,20}\]|\([^)\n]{1,20}\)|P\d|[○◐●✓✗•]|[-:—–|])\s*")
_STATES = frozenset({"open", "opened", "closed", "merged", "draft", "done", "resolved",
                     "cancelled", "canceled", "completed", "in progress", "in_progress", "to do",
                     "todo", "backlog", "ready", "blocked", "triage", "in review", "pending"})
_CLOSED = frozenset({"closed", "merged", "done", "resolved", "cancelled", "canceled",
                     "completed"})
_REF_RE = lazy(r"\A\S*[#!]\d+\Z")  # ``group/proj#12``: a reference again, not a title
_DATE_RE = lazy(r"\A(?:\d{4}-\d{2}-\d{2}\S*|about .* ago|\d+ \w+ ago|less than .* ago)\Z")


def listing_items(output: str) -> tuple[Found, ...]:
    """The open items of a tracker's listing: ``<id> <title>`` each, at most LISTING_ITEMS;
    lines that name no id (headers, counts, hints) and closed items are passed over."""
    found: dict[str, str] = {}
    for raw in output.split("\n"):
        parsed = _listed(raw)
        if parsed is None:
            continue
        ident, title = parsed
        found.setdefault(ident, title)
        if len(found) == LISTING_ITEMS:
            break
    # The id in a code span: it stays an id (never a heading, a tag or a list's number).
    return tuple(Found(Kind.NEXT_STEP, f"{code_span(ident)} {title}")
                 for ident, title in found.items())


def _listed(raw: str) -> tuple[str, str] | None:
    """A listing line's id and title; None for a line that is not an open item."""
    line = _NUMBERED_RE.sub("", raw.strip(), count=1)
    if not line:
        return None
    fields = [f.strip() for f in _FIELD_SPLIT_RE.split(line) if f.strip()]
    if any(f.casefold() in _CLOSED for f in fields):
        return None
    if len(fields) > 1:
        # Columns (``gh``'s tab-separated ``12  OPEN  Title  labels  date``, ``jira``'s
        # ``Bug  PROJ-1  Summary  To Do``): the id is a column, the title the next free text.
        at = next((n for n, f in enumerate(fields[:3]) if _ID_RE.fullmatch(f)
                   or (n == 0 and f.isdigit() and "\t" in line)), None)
        if at is None:
            return None
        ident = fields[at] if not fields[at].isdigit() else f"#{fields[at]}"
        title = next((f for f in fields[at + 1:] if f.casefold() not in _STATES
                      and not _REF_RE.match(f) and not _DATE_RE.match(f)), "")
        title = _strip_tags(title)
    else:
        # One run of words (``bd-a1b2 [P1] open - Fix the thing``, ``[P1] bd-a1b2: Fix it``).
        rest = line
        while True:
            stripped = _TAG_RE.sub("", rest, count=1)
            if stripped == rest:
                break
            rest = stripped
        found = _ID_RE.match(rest)
        if found is None:
            return None
        ident = found.group(0)
        title = rest[found.end():]
        words = title.split()
        while words and words[0].casefold().strip(":") in _STATES:
            words = words[1:]
        title = _strip_tags(" ".join(words))
    title = one_line(title)
    if not any(c.isalpha() for c in title):
        return None
    return ident, clip(title, TITLE_MAX_CHARS, words=False)


def _strip_tags(text: str) -> str:
    rest = text.strip()
    while True:
        stripped = _TAG_RE.sub("", rest, count=1)
        if stripped == rest:
            return rest
        rest = stripped


_CLOSE_VERBS = frozenset({"close", "merge", "done", "resolve", "complete", "finish"})
_BARE_ID_RE = lazy(r"\A(?:#?\d{1,7}|[A-Z][A-Z0-9]{1,9}-\d{1,7}|[a-z][a-z0-9]{0,15}-"
                   r"(?=[a-z0-9]*\d)[a-z0-9]{3,10})\Z")


def closed(command: str) -> tuple[str, ...]:
    """The ids a tracker's command closes (``gh issue close 12``, ``gh pr merge 31``, ``bd close
    bd-a1b2``): ``#12``, ``#31``, ``bd-a1b2``; none for any other command."""
    for part in _SEGMENT_RE.split(command[:2000]):
        words = [w.strip("'\"") for w in part.split()]
        if not words or posixpath.basename(words[0]).casefold() not in _TRACKERS:
            continue
        verbs = [n for n, w in enumerate(words[1:4], 1) if w.casefold() in _CLOSE_VERBS]
        if not verbs:
            continue
        ids = [w for w in words[verbs[0] + 1:] if _BARE_ID_RE.match(w)]
        return tuple(w if not w.isdigit() else f"#{w}" for w in ids)
    return ()


# -- commits ------------------------------------------------------------------------------------

_COMMIT_SUBJECT_RE = lazy(
    r"\bgit\s+(?:-\S+\s+(?:[^\s-]\S*\s+)?)*?commit\b.*?(?:-m|--message)(?:\s+|=)"
    r"(?:\"(?P<double>[^\"$`]+)\"|'(?P<single>[^']+)')")


def commit_subject(command: str | None, message: str | None) -> str | None:
    """The subject line of a ``git commit``: its message's first line (a message of several
    lines), else the quoted ``-m`` of a one-line command; None for no commit."""
    if message:
        first = next((line.strip() for line in message.split("\n") if line.strip()), "")
        return clip(one_line(first), TEXT_MAX_CHARS, words=False) if first else None
    if not command or "commit" not in command:
        return None
    found = _COMMIT_SUBJECT_RE.search(command)
    if found is None:
        return None
    subject = (found.group("double") or found.group("single") or "").strip()
    return clip(one_line(subject), TEXT_MAX_CHARS, words=False) if subject else None
