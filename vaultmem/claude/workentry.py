"""A turn's work-log entry (pure): its prompt, the answer (its line, and below it the whole answer
when the line cannot hold it), the tool work collapsed, and last, folded, what Claude reported
between its tool calls (``midturn.along``)."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from vaultmem.mining import recap
from vaultmem.mining.commandline import run_key
from vaultmem.notes.facts import copy_key
from vaultmem.notes.inline import code_span, one_line

from . import changelines, console, midturn
from .console import Console
from .toolblocks import ToolCall

if TYPE_CHECKING:
    from vaultmem.mining.setups import Setup

PROMPT_MAX_CHARS = 1500
ANSWER_MAX_CHARS = 400
FILES_SHOWN = 5  # file names listed per folder
FOLDERS_SHOWN = 8  # folder lines per turn
COMMANDS_SHOWN = 8  # command lines per turn
FAILURES_SHOWN = 5  # failure lines per turn
PRINTED_LINE_CHARS = 200  # of what a command the person ran printed, on its line
# A line that gives an answer a structure one line cannot keep: a list item, a heading, a fence,
# a table row, a quote.
_STRUCTURE = re.compile(r"^\s*(?:[-*+][ \t]|\d{1,3}[.)][ \t]|#{1,6}[ \t]|```|~~~|\||>)",
                        re.MULTILINE)
# A list item's or a quote's marker at the start of the first line. Only markers followed by a
# space: "**Done**" opens with bold, not with two bullets.
_LEAD_MARKER = re.compile(r"^(?:(?:[-*+]|\d{1,3}[.)])[ \t]+|>[ \t]?)+")
# The work-log labels of a call that never ran and of Claude Code's notice that ended a turn.
NOT_RUN = "Not run:"
STOPPED = "Stopped by Claude Code:"


@dataclass
class LoggedTurn:
    """One turn being collected."""

    time: str
    title: str
    prompt: str | None
    answer: str | None = None
    prose: list[str] = field(default_factory=list)
    acted: int = 0  # the first messages of ``prose`` a tool call followed
    called: bool = False  # a tool call came in the turn (before its first message, too), or
    # the read began mid-turn
    commits: list[str] = field(default_factory=list)  # messages of its ``git commit`` calls
    calls: dict[str, ToolCall] = field(default_factory=dict)
    edited: list[str] = field(default_factory=list)  # paths as shown, first touch first
    # What its calls that ran changed (toolblocks.changes): config file as shown -> its pairs,
    # and the parts of commands that installed something or changed a setting
    changed: dict[str, list[str]] = field(default_factory=dict)
    settings: list[str] = field(default_factory=list)
    setups: list[Setup] = field(default_factory=list)  # the states they set up (mining.setups)
    read: list[str] = field(default_factory=list)
    commands: dict[str, int] = field(default_factory=dict)  # command -> runs
    failures: dict[str, tuple[str | None, int]] = field(default_factory=dict)  # label -> error, n
    still_failing: dict[str, bool] = field(default_factory=dict)  # label -> its last call failed
    commands_failed: set[str] = field(default_factory=set)  # labels of Bash commands
    run_keys: dict[str, str] = field(default_factory=dict)  # failed command label -> run_key
    fixes: list[str] = field(default_factory=list)  # failure-then-fix gotchas
    # label -> (why, calls): calls Claude Code's permissions stopped or the person rejected
    denied: dict[str, tuple[str | None, int]] = field(default_factory=dict)
    notice: str | None = None  # Claude Code's usage-limit or API error notice that ended it
    summary: str | None = None  # Claude Code's compact summary: this "turn" is the compaction
    interrupted: bool = False  # the person stopped it and Claude said nothing after
    ran: list[Console] = field(default_factory=list)  # what the person ran themselves


def condense(answer: str, knowledge: Sequence[str], limit: int = ANSWER_MAX_CHARS) -> str:
    """Claude's answer as one line: its first paragraph, then the knowledge sentences it does
    not hold yet, up to about ``limit`` characters (cut at a sentence end when it can)."""
    return with_knowledge(_cut(one_line(_first_paragraph(answer)), limit), knowledge, limit)


def with_knowledge(line: str, knowledge: Sequence[str], limit: int = ANSWER_MAX_CHARS) -> str:
    """``line`` and then the knowledge sentences it does not hold yet, up to ``limit``."""
    held = f" {copy_key(line)} "
    for sentence in knowledge:
        sentence = one_line(sentence)
        # Compared by words (copy_key): a mined item may start upper-case where its label stood
        # ("Decision: use"), and the line says it with the emphasis the item was mined without
        # ("**Claude has no** …").
        key = copy_key(sentence)
        if not key or f" {key} " in held:
            continue
        if len(line) + 1 + len(sentence) > limit:
            break
        line = f"{line} {sentence}".strip()
        held += f"{key} "
    return line


def _first_paragraph(text: str) -> str:
    lines: list[str] = []
    fence: str | None = None
    for raw in text.split("\n"):
        stripped = raw.strip()
        if fence is not None:
            if stripped.startswith(fence):
                fence = None
            continue
        if stripped.startswith(("```", "~~~")):
            fence = stripped[:3]
            if lines:
                break
            continue
        if not stripped:
            if lines:
                break
            continue
        if stripped.startswith(("#", "|", "<")) and not lines:
            continue  # a heading, a table or HTML before any prose
        lines.append(_LEAD_MARKER.sub("", stripped).strip() if not lines else stripped)
    return " ".join(lines)


def _cut(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    head = text[:limit]
    end = max(head.rfind(". "), head.rfind("! "), head.rfind("? "))
    return _closed(head[: end + 1]) if end >= limit // 2 else _closed(head.rstrip()) + "…"


def _closed(text: str) -> str:
    """``text`` cut from a longer line, with the bold it cut open closed again: an unpaired
    ``**`` would embolden the rest of the note's line in Obsidian."""
    return text + "**" if text.count("**") % 2 else text


def answer_parts(answer: str, knowledge: Sequence[str]) -> tuple[str, str | None]:
    """The ``**Answer:**`` line of a turn's final answer, and the answer whole as a folded
    callout when the line does not hold all of it (DESIGN §11: nothing said is lost).

    Plain prose that fits is the line itself, every paragraph of it ("Done." and what follows);
    a longer or structured answer is said by its first paragraph, and kept whole below. Either
    line goes on with the knowledge the turn's other messages stated (``knowledge``). A recap an
    output style imposes (``mining.recap``) is said by its summary and what it says was done."""
    done = recap.outcome(answer)
    if done is not None:  # a recap's line is what it says was done, the recap kept whole below
        from . import callout

        return with_knowledge(done, knowledge), callout.answer(answer)
    flat = one_line(answer)
    if len(flat) <= ANSWER_MAX_CHARS and _STRUCTURE.search(answer) is None:
        # The knowledge has the room it has after the first paragraph alone (condense).
        first = len(one_line(_first_paragraph(answer)))
        return with_knowledge(flat, knowledge, ANSWER_MAX_CHARS + len(flat) - first), None
    from . import callout  # only a long answer pays for it

    return condense(answer, knowledge), callout.answer(answer)


def work_entry(turn: LoggedTurn, knowledge: Sequence[str]) -> str | None:
    """The work-log entry of ``turn`` (``knowledge``: its mined lines); None when empty."""
    head: list[str] = []
    said: list[str] = []  # what the lines cut short, kept whole below them: the answer first
    if turn.prompt:
        head.append(f"**Prompt:** {one_line(turn.prompt, PROMPT_MAX_CHARS)}")
    if turn.answer:
        answer, whole = answer_parts(turn.answer, knowledge)
        if answer:
            head.append(f"**Answer:** {answer}")
        if whole is not None:
            said.append(whole)
    if turn.prompt and len(one_line(turn.prompt)) > PROMPT_MAX_CHARS:
        from . import callout

        said.append(callout.prompt(turn.prompt))
    ran, printed = _ran_lines(turn.ran)
    work = ran + _work_lines(turn)
    # Before the final answer (the last message), what Claude reported along the way.
    along = midturn.along(turn.prose[:-1])
    if not head and not work and not along:
        return None  # a notice alone (repeated at each later Stop) adds nothing to the story
    if turn.notice:
        work.append(f"- {STOPPED} {code_span(turn.notice)}")
    parts = [f"### {turn.time} - {turn.title}"]
    if head:
        parts.append("\n".join(head))
    parts.extend(said)
    if work:
        parts.append("\n".join(work))
    parts.extend(printed)
    if along:
        from . import callout

        parts.append(callout.notes(along))
    return "\n\n".join(parts)


def _work_lines(turn: LoggedTurn) -> list[str]:
    """Files, then commands; the log reads in time order, so a command that failed and then
    passed has its ``Failed`` line before its ``Ran`` line, one still failing after it. A tool
    call that failed and then worked (an Edit retried) is left out: it was chatter. Calls that
    never ran (denied, rejected) come last, counted, unless the turn ran them after all."""
    lines = _folder_lines(turn.edited)
    lines.extend(changelines.lines(turn.changed, turn.settings,
                                   list(turn.commands)[:COMMANDS_SHOWN]))
    fixed: list[str] = []
    still: list[tuple[int, str]] = []
    for label, (error, count) in turn.failures.items():
        if turn.still_failing.get(label, True):
            still.append((count, _failure_line(label, error, count)))
        elif label in turn.commands_failed:
            fixed.append(_failure_line(label, error, count))
    # What still fails is what the next session meets first, the most repeated (a command
    # failing seventy times) before a one-off: those are shown when not all fit.
    failing = [line for _, line in sorted(still, key=lambda s: -s[0])]
    shown = (failing + fixed)[:FAILURES_SHOWN]
    lines.extend(line for line in fixed if line in shown)
    commands = list(turn.commands.items())
    for command, runs in commands[:COMMANDS_SHOWN]:
        lines.append(f"- Ran {code_span(command)}" + (f" ×{runs}" if runs > 1 else ""))
    if len(commands) > COMMANDS_SHOWN:
        rest = commands[COMMANDS_SHOWN:]
        lines.append(f"- Ran {len(rest)} more commands ({sum(n for _, n in rest)} runs)")
    lines.extend(line for line in failing if line in shown)
    if len(fixed) + len(failing) > FAILURES_SHOWN:
        lines.append(f"- {len(fixed) + len(failing) - FAILURES_SHOWN} more failures")
    # Calls the permissions stopped (or the person rejected) never ran: no failure of theirs.
    # One that ran later in the turn (approved, or the shell started it on a retry) was chatter.
    ran = {run_key(command) for command in turn.commands}  # ``x`` and ``x 2>&1`` are one run
    denied = sorted(((label, d) for label, d in turn.denied.items()
                     if run_key(label.strip("`").strip()) not in ran), key=lambda d: -d[1][1])
    for label, (why, count) in denied[:FAILURES_SHOWN]:
        lines.append(_failure_line(label, why, count).replace("- Failed:", f"- {NOT_RUN}", 1))
    if len(denied) > FAILURES_SHOWN:
        lines.append(f"- {len(denied) - FAILURES_SHOWN} more calls not run")
    return lines


def _ran_lines(ran: Sequence[Console]) -> tuple[list[str], list[str]]:
    """What the person ran themselves that the note keeps (``console.kept``): a ``- You ran``
    line each, with the first line it printed; and, folded, what one printed that its line
    cannot hold."""
    lines: list[str] = []
    printed: list[str] = []
    for each in ran:
        if each.command is None or not console.kept(each):
            continue
        output = (each.output or "").strip("\n")
        first = one_line(output.split("\n", 1)[0])
        shown = f" — {code_span(first[:PRINTED_LINE_CHARS])}" if first else ""
        lines.append(f"- You ran {code_span(each.command)}{shown}")
        if "\n" in output or len(first) > PRINTED_LINE_CHARS:
            from . import callout

            printed.append(callout.printed(each.command, output))
    return lines, printed


def _failure_line(label: str, error: str | None, count: int) -> str:
    times = f" ×{count}" if count > 1 else ""
    why = f" — {code_span(one_line(error))}" if error else ""
    return f"- Failed: {label}{times}{why}"


def _folder_lines(paths: Sequence[str]) -> list[str]:
    by_folder: dict[str, list[str]] = {}
    for path in paths:
        folder, name = posixpath.split(path)
        by_folder.setdefault(folder, []).append(name)
    lines: list[str] = []
    for folder, files in list(by_folder.items())[:FOLDERS_SHOWN]:
        if len(files) == 1:
            lines.append(f"- Edited {code_span(one_line(posixpath.join(folder, files[0])))}")
            continue
        names = ", ".join(code_span(one_line(f)) for f in files[:FILES_SHOWN])
        more = ", …" if len(files) > FILES_SHOWN else ""
        where = code_span(one_line(folder + "/")) if folder else "the project root"
        lines.append(f"- Edited {where}: {names}{more} ({len(files)} files)")
    if len(by_folder) > FOLDERS_SHOWN:
        rest = list(by_folder.values())[FOLDERS_SHOWN:]
        lines.append(f"- Edited {sum(len(f) for f in rest)} more files in {len(rest)} folders")
    return lines
