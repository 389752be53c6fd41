"""What the structured records of a read state, gathered by turn as ``ingest.story`` reads its
lines (:mod:`structured` has the rules; pure)."""

from __future__ import annotations

from vaultmem.mining import structured
from vaultmem.notes.inline import block_safe

from .transcript import Outcome, ToolCall
from .workentry import LoggedTurn

DONE = "Done:"  # a work-log line: a todo item completed
COMMITTED = "Committed:"  # a work-log line: a commit's subject


class Told:
    """What the structured records of a read say (``structured``), gathered as its lines go by:
    answers, approved plans and listings by the turn they came in; the todo lists, of which the
    last one's open items are the next steps and every completed item a ``Done:`` line; the
    subjects of the commits made."""

    def __init__(self) -> None:
        self.found: dict[int, list[structured.Found]] = {}
        self.todos: list[tuple[LoggedTurn, tuple[structured.Todo, ...]]] = []
        self.done: dict[int, list[str]] = {}
        self.committed: dict[int, list[str]] = {}
        self.written: str | None = None  # the last plan file Claude wrote

    def called(self, turn: LoggedTurn, call: ToolCall) -> None:
        """A call made in ``turn``."""
        data = call.data
        if data is None:
            return
        if data.todos is not None:
            self.todos.append((turn, data.todos))
        if data.written and data.plan:
            self.written = data.plan

    def ended(self, turn: LoggedTurn, call: ToolCall | None, outcome: Outcome) -> None:
        """A call's outcome, in ``turn`` (the call None when an earlier read saw it)."""
        if outcome.denied or outcome.background or outcome.is_error:
            return  # a rejected question or plan says nothing
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
        self.found.setdefault(id(turn), []).extend(found)

    def close(self) -> None:
        """The todo lists read: the last one's open items, and the items completed."""
        steps, done = structured.todo_state([todos for _, todos in self.todos])
        if steps:
            self.found.setdefault(id(self.todos[-1][0]), []).extend(steps)
        for n, text in done:
            self.done.setdefault(id(self.todos[n][0]), []).append(text)

    def entry(self, turn: LoggedTurn, entry: str | None) -> str | None:
        """``turn``'s work-log entry with its ``Done:`` and ``Committed:`` lines."""
        lines = [f"- {DONE} {block_safe(t)}" for t in self.done.get(id(turn), ())]
        lines += [f"- {COMMITTED} {block_safe(t)}"
                  for t in dict.fromkeys(self.committed.get(id(turn), ()))]
        if not lines:
            return entry
        head = entry if entry is not None else f"### {turn.time} - {turn.title}"
        return head + "\n\n" + "\n".join(lines)
