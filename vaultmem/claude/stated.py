"""What the structured records of a read state, gathered by turn as ``ingest.story`` reads its
lines (:mod:`structured` has the rules; pure)."""

from __future__ import annotations

from collections.abc import Sequence

from vaultmem.memory import anchors
from vaultmem.mining import fold, prompts, settled, structured
from vaultmem.notes.inline import block_safe, clip, one_line
from vaultmem.notes.schema import Kind

from .toolblocks import Outcome, ToolCall
from .workentry import LoggedTurn

DONE = "Done:"  # a work-log line: a todo item completed
COMMITTED = "Committed:"  # a work-log line: a commit's subject
# The open step of a turn the person stopped (ingest); the next prompt takes it up, closing it
UNFINISHED = "Unfinished when the person stopped it:"
UNFINISHED_PROMPT_CHARS = 160  # a stopped turn's prompt in its open step
UNFINISHED_FOUND_CHARS = 240  # and what Claude had found when it was stopped
STEP_DONE = "Step done:"  # a work-log line: a next step said earlier that this turn did


class Told:
    """What the structured records of a read say (``structured``), gathered as its lines go by:
    answers, approved plans and listings by the turn they came in; the todo lists, of which the
    open items left (:func:`structured.todo_state`) are the next steps and every completed item
    a ``Done:`` line; the subjects of the commits made."""

    def __init__(self, steps: Sequence[str] = ()) -> None:
        self.steps = list(steps)  # next steps said before the turn read now, still open
        self.found: dict[int, list[structured.Found]] = {}
        self.todos: list[tuple[LoggedTurn, tuple[structured.Todo, ...]]] = []
        self.done: dict[int, list[str]] = {}
        self.closed: dict[int, list[str]] = {}  # steps said earlier that the turn did
        self.committed: dict[int, list[str]] = {}
        self.written: str | None = None  # the last plan file Claude wrote
        # The plans put to the person, kept whole (``callout.plan``): (plan, approved) by turn;
        # an ExitPlanMode call not answered yet is in ``asked`` (call id -> its turn, its plan)
        # until its outcome, or the read's end (``close``: the session ended waiting on them).
        self.plans: dict[int, list[tuple[str, bool]]] = {}
        self.asked: dict[str, tuple[LoggedTurn, str]] = {}

    def called(self, turn: LoggedTurn, call: ToolCall) -> None:
        """A call made in ``turn``."""
        data = call.data
        if data is None:
            return
        if data.todos is not None:
            self.todos.append((turn, data.todos))
        if data.written and data.plan:
            self.written = data.plan
        if call.tool == structured.PLAN and call.id:
            self.asked[call.id] = (turn, data.plan or self.written or "")

    def ended(self, turn: LoggedTurn, call: ToolCall | None, outcome: Outcome) -> None:
        """A call's outcome, in ``turn`` (the call None when an earlier read saw it)."""
        self.asked.pop(outcome.tool_use_id, None)  # a plan answered, either way
        if outcome.denied:  # a rejected question or plan says nothing; the person's words may
            redirected = prompts.redirect(outcome.said)
            if redirected is not None:
                self.found.setdefault(id(turn), []).append(
                    structured.Found(Kind.DECISION, redirected))
            return
        if outcome.background or outcome.is_error:
            return
        if call is not None and call.command is not None and outcome.error is None:
            subject = structured.commit_subject(call.command, call.message)
            if subject is not None:
                self.committed.setdefault(id(turn), []).append(subject)
            # An item a tracker's command closed is done (``gh issue close 12``).
            self.done.setdefault(id(turn), []).extend(
                f"closed {ident}" for ident in structured.closed(call.command))
        if outcome.said is None:
            return
        data = call.data if call is not None else None
        found: tuple[structured.Found, ...] = ()
        if data is not None and data.listing:
            found = structured.listing_items(outcome.said)
        elif call is None or call.tool == structured.ASK:
            found = structured.answers(data, outcome.said)
        if not found and (call is None or call.tool == structured.PLAN):
            plan = structured.plan_text(data, outcome.said, self.written)
            found = structured.plan_decisions(plan) if plan else ()
            if plan and plan.strip():
                self.plans.setdefault(id(turn), []).append((plan, True))
        self.found.setdefault(id(turn), []).extend(found)

    def close(self) -> None:
        """The todo lists read: the open items they leave, each by its list's turn, and the
        items completed; the plans asked for and not answered when the read ends (the session
        ended waiting on the person) are kept as proposed, with no decision of theirs."""
        for turn, plan in self.asked.values():
            if plan.strip():
                self.plans.setdefault(id(turn), []).append((plan, False))
        steps, done = structured.todo_state([todos for _, todos in self.todos])
        for n, step in steps:
            self.found.setdefault(id(self.todos[n][0]), []).append(step)
        for n, text in done:
            self.done.setdefault(id(self.todos[n][0]), []).append(text)

    def settle(self, turn: LoggedTurn) -> None:
        """The next steps said before ``turn`` (by any source: a summary, prose, a recap, a todo
        list, the note) that its answer reports done (:func:`settled.said_done`) are done: its
        ``Step done:`` lines, which close them (the answer says what was done)."""
        said = settled.said_done(turn.answer or "")
        done = [step for step in self.steps if (said and settled.completed(step, said))
                or (turn.prompt and step.startswith(UNFINISHED))]
        if done:
            self.closed.setdefault(id(turn), []).extend(done)
            self.steps = [step for step in self.steps if step not in done]

    def entry(self, turn: LoggedTurn, entry: str | None) -> str | None:
        """``turn``'s work-log entry with its ``Done:``, ``Step done:`` and ``Committed:``
        lines, then the plans the person approved in it and those left unanswered, whole
        (nothing said is lost)."""
        lines = [f"- {DONE} {block_safe(t)}" for t in self.done.get(id(turn), ())]
        lines += [f"- {STEP_DONE} {block_safe(t)}" for t in self.closed.get(id(turn), ())]
        lines += [f"- {COMMITTED} {block_safe(t)}"
                  for t in dict.fromkeys(self.committed.get(id(turn), ()))]
        plans = dict.fromkeys(self.plans.get(id(turn), ()))
        if not lines and not plans:
            return entry
        from . import callout

        head = entry if entry is not None else f"### {turn.time} - {turn.title}"
        return "\n\n".join([head, *(["\n".join(lines)] if lines else []),
                            *(callout.plan(plan, approved=approved) for plan, approved in plans)])


def left_unfinished(turn: LoggedTurn) -> list[str]:
    """The step a session stopped in the middle of leaves open: its last prompt, and what
    Claude had found when the person stopped it (an earlier turn's step is older news)."""
    if not turn.prompt:
        return []
    found = turn.prose[-1] if turn.prose else ""
    said = clip(one_line(found), UNFINISHED_FOUND_CHARS) if found else ""
    return [f"{UNFINISHED} {clip(turn.prompt, UNFINISHED_PROMPT_CHARS)}"
            + (f" (found so far: {said})" if said else "")]


def done_lines(note_text: str) -> list[str]:
    """What a session note's work log says was done: its ``Done:``, ``Committed:`` and ``Step
    done:`` lines, without their labels."""
    return [line.split(": ", 1)[1] for line in note_text.split("\n")
            if line.startswith((f"- {DONE} ", f"- {COMMITTED} ", f"- {STEP_DONE} "))]


def open_steps(note_text: str) -> list[str]:
    """The next steps a session note lists that none of its ``Done:`` lines closes."""
    done = done_lines(note_text)
    steps = [anchors.strip(s).strip() for s in fold.listed(note_text).get(Kind.NEXT_STEP, ())]
    return [s for s in steps if s and not settled.completed(s, done)]
