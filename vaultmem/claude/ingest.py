"""Transcript lines -> edits of the session note: one readable entry per turn, and the knowledge
mined from Claude's prose (pure).

A turn is a prompt and everything until the next prompt. Its work-log entry (``workentry``:
``### HH:MM - <prompt's first words>``) holds the prompt, Claude's final answer as one line (and
below it the whole answer, when the line cannot hold it: nothing said is lost), and the tool work
collapsed: files touched as one line per folder, each command once with a count, each failure
once with its first error line. Lines before the first prompt of a read (a turn a hook saw half of) go to a
``Continued`` entry.

A rule the person sets in a prompt ("never commit without signing": ``mining.prompts``),
knowledge (``mining.answers``, a turn's messages read together) and failure-then-fix patterns (a
command failed, then passed after a change that plausibly fixed it: ``mining.fixes``) become
one-line items under the sections of their kind, each followed by
the ``([[Component]], …)`` group of the components its turn touched (``memory.components``); an
item whose words the note or a longer item of its kind holds is not added (``mining.fold``).
``## Related Entities`` lists each component once, with its folders.

Every captured field is one line; text that is not Claude's prose sits in code spans, and any
item's start is escaped so that it cannot open a heading, fence, list, quote or table.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, tzinfo

from vaultmem.memory import anchors
from vaultmem.mining import (
    commandline,
    commits,
    diagnostics,
    fixes,
    fold,
    mentions,
    notices,
    prompts,
)
from vaultmem.mining.answers import mine_listed, mine_turn
from vaultmem.mining.outage import outage
from vaultmem.notes import schema
from vaultmem.notes.inline import block_safe, clip, code_span, one_line, without_escapes
from vaultmem.notes.patch import Edit, SectionPatch
from vaultmem.notes.schema import Kind

from . import changelines, console, failfix, fixruns, midturn, setupitems
from .console import Console
from .notelisted import known_items
from .notified import background_end
from .records import interrupted as records_interrupted
from .stated import Told, left_unfinished
from .toolblocks import FILE_TOOLS, READ_TOOLS, ToolCall
from .transcript import Turn
from .turncomponents import about as _about
from .turncomponents import components as _components
from .turncomponents import name_key as _name_key
from .turncomponents import said_components as _said_components
from .turncomponents import shown as _shown
from .turncomponents import top as _top
from .workentry import LoggedTurn, work_entry

WORK_LOG = (schema.WORK_LOG,)
GOTCHAS = (schema.GOTCHAS_AND_FIXES,)
RELATED = (schema.RELATED_ENTITIES,)
SUMMARIES = (schema.COMPACT_SUMMARIES,)
COMPACTED_TITLE = "Context compacted"
SUMMARY_COMPONENTS = 2  # an item of a summary goes to the components it names, at most these
FILES_SECTION = "files"  # the summary's section of the files worked on (summaries.SECTION_TITLES)
SECTION_OF_KIND: dict[Kind, tuple[str, ...]] = {
    kind: (section,) for kind, section in schema.SESSION_SECTION.items()}
ITEM_ORDER = tuple(schema.SESSION_SECTION)
TITLE_WORDS = 8
TITLE_CHARS = 80
FOLDERS_PER_COMPONENT = 3

Miner = Callable[[str], Sequence[tuple[str, str]]]  # prose -> (kind, text) pairs


def _kind(spelled: str) -> Kind | None:
    """The kind a miner names (either spelling), or None for one no section holds."""
    try:
        return Kind(spelled)
    except ValueError:
        return None


def _bare(name: str) -> str:
    return f"[[{name}]]"


def _mine_turn(messages: Sequence[str], miner: Miner | None, acted: int = 0,
               called: bool = False) -> list[tuple[str, str]]:
    """The knowledge of one turn's messages: read together, so that a cause Claude states while
    thinking aloud is kept only with the fix a later message of the turn reports, or when it
    tells it after the turn's last tool call (``acted``: the first messages a tool call
    followed; ``called``: the turn called a tool)."""
    if miner is not None:
        return [pair for text in messages for pair in miner(text)]
    return [(m.kind, m.text) for m in mine_turn(messages, acted, called=called)]


@dataclass(frozen=True)
class Item:
    """One line of knowledge for a section of the note."""

    kind: Kind
    text: str
    components: tuple[str, ...]
    files: tuple[str, ...] = ()  # the paths the turn touched, as shown (anchors.py)
    anchor: str = ""  # their ``%%vm-anchor …%%`` comment, set by capture

    def render(self, link: Callable[[str], str] | None = None) -> str:
        """``- <text> %%vm-anchor …%% ([[A]], [[B]])``; ``link`` writes a component's link
        (``links.entity_link``: by path, the name as alias), else ``[[Name]]``."""
        links = ", ".join((link or _bare)(c) for c in self.components)
        anchor = f" {self.anchor}" if self.anchor else ""
        # Claude's prose cannot plant an anchor of its own: only capture's comment is kept.
        text = anchors.strip(block_safe(self.text))
        return f"- {text}{anchor}" + (f" ({links})" if links else "")


@dataclass(frozen=True)
class Story:
    """What a batch of transcript lines adds to the note, before dedup against it."""

    entries: tuple[str, ...]  # rendered work-log entries
    items: tuple[Item, ...]
    components: Mapping[str, tuple[str, ...]]  # component -> folders (as shown)
    summaries: tuple[str, ...] = ()  # Claude Code's compact summaries, as collapsed callouts
    # Names only a test's file name gave (tests/test_refunds.py): kept where the note knows them.
    tested_only: frozenset[str] = frozenset()


def title_of(text: str) -> str:
    """A work-log title: the first words of a text, without characters that break a heading."""
    words = without_escapes(text).replace("#", "").replace("[[", "").replace("]]", "").split()
    room = min(len(" ".join(words[:TITLE_WORDS])), TITLE_CHARS) + 1
    return clip(" ".join(words), room) or "Note"


def _time(stamp: str | None, fallback: datetime, tz: tzinfo | None) -> str:
    if stamp:
        try:
            moment = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
        except ValueError:
            moment = fallback
        else:
            moment = moment.astimezone(tz) if moment.tzinfo else moment
    else:
        moment = fallback
    return moment.strftime("%H:%M")


def story(
    turns: Sequence[Turn],
    *,
    now: datetime,
    cwd: str | None = None,
    rules: Mapping[str, str] | None = None,
    miner: Miner | None = None,
    failing: Mapping[str, str | None] | None = None,
    private: Sequence[str] = (),
    known: Sequence[str] = (),
    met: Sequence[failfix.Met] = (),
    project: str = "",
    steps: Sequence[str] = (),
    asked: str | None = None,
) -> Story:
    """The entries, items and components of ``turns`` (transcript lines, in order).

    ``failing``: commands the note says still fail (:func:`notelisted.open_failures`), so that a fix in
    these turns of a failure an earlier hook recorded is a gotcha too. ``private``: what the
    person marked private in the session (a compact summary may restate it). ``known``: the
    components the note names already: a turn that touched none of their files but names one
    in its prompt or answers is about it (an item goes to the fallback entity only when no
    component is named anywhere in its turn). ``met``: the failures earlier reads recorded
    (:func:`failfix.met_in_note`), whose explanation may come in these turns. ``project``: the
    vault project the note is filed under (a folder of its name is no component of it).
    ``steps``: the next steps the note holds open; one a later answer reports done gets a
    ``Done:`` line in that turn's entry, as any step said in ``turns`` (``Told.settle``).
    ``asked``: the answer the note's last entry keeps whole (a prompt may pick an option in it).
    A last turn the person stopped, Claude saying nothing after, leaves its step open
    (:func:`stated.left_unfinished`; Claude Code runs no Stop hook after a stop, so the next read,
    at the next prompt or SessionEnd, holds it, and a next prompt closes it)."""
    collected: list[LoggedTurn] = []
    current: LoggedTurn | None = None
    # run_key(command) -> its runs in order; a failure an earlier hook recorded is event -1
    runs: dict[str, list[fixes.Run]] = {
        commandline.run_key(command): [fixes.Run(-1, True, error, command)]
        for command, error in (failing or {}).items()}
    edits_at: list[tuple[int, str]] = []  # (event no, path shown)
    ran_at: list[tuple[int, str]] = []  # (event no, command that passed)
    tries: dict[tuple[str, ...], list[fixes.Run]] = {}  # failures since a program's pass
    for command, error in (failing or {}).items():  # an earlier read's, not passed since
        if (key := fixes.retry_key(command)) is not None:
            tries.setdefault(key, []).append(fixes.Run(-1, True, error, command))
    # state key -> the last run of it the machine never started (the shell failed), and the
    # errors of those a rerun got past already (one lesson per error, whatever the command)
    unstarted: dict[str, fixes.Run] = {}
    rerun_past: set[str] = set()
    calls: dict[str, ToolCall] = {}
    records = Told(steps)  # what the structured records say (structured.py), by turn
    failed_here = list(met)  # failures and Claude's messages, for what was said about them
    said: list[failfix.Said] = []
    said_in: list[LoggedTurn] = []
    failed_in: dict[int, LoggedTurn] = {}  # event no of a failed run -> its turn
    came_back: set[int] = set()  # ids of turns with a failed command that passed later
    for number, line in enumerate(turns):
        when = _time(line.timestamp, now, now.tzinfo)
        if line.summary is not None:
            # The compaction is an entry of its own; what Claude does next is "Continued".
            collected.append(LoggedTurn(when, COMPACTED_TITLE, None, summary=line.summary))
            current = None
            continue
        if line.console is not None:
            current = _ran(collected, current, line.console, when)
            continue
        if (line.text or line.calls) and current is not None and asked_by_command(current):
            # A slash command without arguments Claude works on (``/init``): the person's prompt.
            current = _asked(collected, current, when)
            said.append(failfix.Said(number, current.prompt or "", person=True))
            said_in.append(current)
        ended = background_end(line.prompt)
        outcomes = line.outcomes if ended is None else (*line.outcomes, ended)
        if line.prompt and ended is None:
            current = LoggedTurn(when, title_of(line.prompt), line.prompt)
            collected.append(current)
            said.append(failfix.Said(number, line.prompt, person=True))  # "I fixed it by …"
            said_in.append(current)
        elif current is None:
            # The read began mid-turn: what it reads came after the turn's earlier work.
            current = LoggedTurn(when, "Continued", None, called=True)
            collected.append(current)
        if line.interrupted or any(o.denied and records_interrupted(o.error) for o in outcomes):
            current.interrupted = True
        if line.text:
            current.interrupted = False  # Claude went on after the stop
            current.prose.append(line.text)
            current.answer = line.text
            said.append(failfix.Said(number, line.text))
            said_in.append(current)
        if line.notice:
            current.notice = line.notice
        if line.calls:
            current.acted = len(current.prose)
            current.called = True
        for call in line.calls:
            calls[call.id] = call
            records.called(current, call)
            if call.message is not None:
                current.commits.append(call.message)
            if call.path is not None:
                shown = _shown(call.path, cwd)
                if call.tool in FILE_TOOLS:
                    _add(current.edited, shown)
                    edits_at.append((number, shown))
                elif call.tool in READ_TOOLS:
                    _add(current.read, shown)
            if call.command is not None:
                command = one_line(call.command)
                current.commands[command] = current.commands.get(command, 0) + 1
        for outcome in outcomes:
            made = calls.get(outcome.tool_use_id)
            records.ended(current, made, outcome)
            if made is None or outcome.background:
                continue  # a command moved to the background has not ended yet
            if outcome.denied:  # it never ran: no failure, no pass, no run
                if made.command is not None and outcome.error and notices.not_started(
                        outcome.error):  # but the machine stopped it: what was done about it?
                    failed_here.append(failfix.Met(one_line(made.command), outcome.error, number))
                    unstarted[fixes.state_key(one_line(made.command))] = fixes.Run(
                        number, True, outcome.error, one_line(made.command))
                label = _label(made, cwd)
                why, count = current.denied.get(label, (outcome.error, 0))
                current.denied[label] = (why, count + 1)
                ran = one_line(made.command) if made.command is not None else ""
                if current.commands.get(ran, 0) > 1:
                    current.commands[ran] -= 1
                else:
                    current.commands.pop(ran, None)
                continue
            failed = outcome.is_error or (made.tool == "Bash" and outcome.error is not None)
            if not failed and made.changes:  # a call that failed changed nothing
                changelines.keep(current.changed, current.settings, made, cwd)
                from vaultmem.mining import setups  # only for a call that changed something

                current.setups += setups.of_call(made.tool, made.changes,
                                                 made.path and _shown(made.path, cwd))
            if made.command is not None:
                command = one_line(made.command)
                history = runs.setdefault(commandline.run_key(command), [])
                run = fixes.Run(number, failed, outcome.error, command)
                history.append(run)
                if failed:
                    failed_in[number] = current
                    fixruns.moved_on(current.fixes, history, edits_at, ran_at)
                else:
                    # A gotcha of its failures that says the service was down is none (below).
                    came_back.update(id(failed_in[r.number]) for r in history
                                     if r.failed and r.number in failed_in)
                    fixruns.fixed(current.fixes, history, edits_at, ran_at)
                    fixruns.rerun(current.fixes, unstarted, rerun_past, command, ran_at)
                    ran_at.append((number, command))
                fixruns.retried(current.fixes, tries, run, ran_at, edits_at)
            label = _label(made, cwd)
            if failed:
                error, count = current.failures.get(label, (outcome.error, 0))
                current.failures[label] = (error, count + 1)
                if made.command is not None:
                    current.commands_failed.add(label)
                    if outcome.error:
                        failed_here.append(failfix.Met(one_line(made.command), outcome.error,
                                                       number))
                    current.run_keys[label] = fixes.state_key(one_line(made.command))
                elif outcome.error:  # a file tool, a fetch, an MCP tool: explained alike
                    failed_here.append(failfix.Met(None, outcome.error, number, label))
            if label in current.failures:
                current.still_failing[label] = failed
            if not failed and made.command is not None:
                # The same command passing with a variable set inline, behind a runner or at the
                # end of an ``&&`` chain passes the failed one too.
                passed = fixes.passes(one_line(made.command))
                for other, other_key in current.run_keys.items():
                    if other_key in passed:
                        current.still_failing[other] = False
    records.close()
    # A state left in place is a decision; a later setting of it, or its undoing, supersedes it.
    left = {id(s) for s in setupitems.settled([s for turn in collected for s in turn.setups])}
    for index, text in failfix.gotchas(failed_here, said):
        if text not in said_in[index].fixes:
            said_in[index].fixes.append(text)
    for turn in collected:
        if turn.answer and turn.acted == len(turn.prose):
            # A call followed its last words: the read stopped mid-turn, and they are no final
            # answer; what they report is the outcome so far, the move they announce is not.
            turn.answer = midturn.reported(turn.answer)
    items: list[Item] = []
    folders: dict[str, list[str]] = {}
    entries: list[str] = []
    callouts: list[str] = []
    from_source: set[str] = set()  # names the source gives (not only a test's name)
    # The first folders of the files the turns touched: a path said in prose counts only from
    # one of them (it may be relative to another folder than the session's).
    roots = {_top(p) for turn in collected for p in (*turn.edited, *turn.read)} - {""}
    for turn in collected:
        if turn.summary is not None:
            compacted, found, callout = _compacted(turn, cwd, rules, folders, private,
                                                   from_source, project)
            entries.append(compacted)
            items.extend(found)
            records.steps += [i.text for i in found if i.kind == Kind.NEXT_STEP]
            callouts.extend(callout)
            continue
        records.settle(turn)  # the steps said before it that its answer reports done
        touched = turn.edited or turn.read
        spoken = [turn.prompt or "", *turn.prose]
        named = (_components(touched, cwd, rules, folders, from_source, project)
                 or mentions.named_in(spoken, [*folders, *known])
                 or _said_components(spoken, roots, cwd, rules, folders, from_source, project))
        mined = _mine_turn(turn.prose, miner, turn.acted, turn.called)
        # A commit message says what it lists as such ("Setup required:", "TODO:"), and the
        # changes its body gives a reason for (mining/commits).
        mined += [(m.kind, m.text) for text in turn.commits for m in mine_listed(text)
                  if (m.kind, m.text) not in mined]
        mined += [(Kind.DECISION, d) for text in turn.commits for d in commits.decisions(text)
                  if (Kind.DECISION, d) not in mined]
        files = tuple(touched)
        # What a structured record states first: prose mining repeats none of it.
        stated = [(f.kind, f.text) for f in records.found.get(id(turn), ())]
        # A rule the person set, an option they picked in the answer before: decisions as said.
        # (A directive in a general shape counts once Claude acted on it: called a tool, or
        # answered without asking back.)
        acted = turn.called or bool(turn.prose and not turn.prose[-1].rstrip().endswith("?"))
        stated[:0] = [(Kind.DECISION, text)
                      for text in prompts.decisions(turn.prompt, asked, acted=acted)]
        asked = turn.answer
        if turn is collected[-1] and turn.interrupted:
            stated += [(Kind.NEXT_STEP, step) for step in left_unfinished(turn)]
        mined = [pair for pair in mined if pair not in stated]
        first = len(items)
        for spelled, text in [*stated, *mined, *((Kind.GOTCHA, fix) for fix in turn.fixes)]:
            kind = _kind(spelled)
            if kind is None:
                continue  # a kind no section holds (an outcome): the work-log entry says it
            text = one_line(text)
            if kind == Kind.GOTCHA and (diagnostics.code_in_progress(text, text)
                                     or diagnostics.bare_error(text)):
                continue  # a compile error of code being written, or an error and no lesson
            if kind == Kind.GOTCHA and id(turn) in came_back and outage(text):
                continue  # the service was down and came back: no lesson, no fix
            # Filed under what it is about (at most two), not every component the turn touched;
            # a component only a test's name gives so far weighs nothing (it may be dropped).
            weighed = [(p, n) for p, n in named if _name_key(n) in from_source] or named
            items.append(Item(kind, text, _about(text, weighed, files), files))
            records.steps += [text] if kind == Kind.NEXT_STEP else []
        fixed = [i.text for i in items[first:] if i.kind == Kind.GOTCHA]
        items += [Item(Kind.DECISION, text, names, files)
                  for text, names in setupitems.lines(turn, left, named, fixed)]
        entry = records.entry(turn, work_entry(turn, [text for _, text in mined]))
        if entry is not None:
            entries.append(entry)
    where = {name: tuple(paths[:FOLDERS_PER_COMPONENT]) for name, paths in folders.items()}
    tested = frozenset(n for n in folders if _name_key(n) not in from_source)
    return Story(tuple(entries), tuple(items), where, tuple(callouts), tested)


def _compacted(turn: LoggedTurn, cwd: str | None, rules: Mapping[str, str] | None,
               folders: dict[str, list[str]], private: Sequence[str], from_source: set[str],
               project: str = "") -> tuple[str, list[Item], list[str]]:
    """A compaction's work-log entry (one line: its outcome), the items its summary states, each
    with the components its paths name, and the summary kept whole as a collapsed callout."""
    from vaultmem.mining import summaries  # only a session that was compacted pays for the parser

    from .callout import summary_callout

    read = summaries.read(turn.summary or "", private)
    # The files the summary worked on (its "Files and Code Sections"; the whole summary's when it
    # has none), with their components: an item naming none of its own is about those its text
    # mentions, else those most of those files belong to (as a turn's item is about its turn's
    # components). A file named elsewhere (a finding listed, a plan's) is no part of the work.
    worked = [s.body for s in read.sections if s.key == FILES_SECTION] or [read.kept]
    shown_all = [_shown(p, cwd) for body in worked for p in summaries.paths_in(body)]
    # (Read on copies: a file the summary only names is no component the session touched; nor
    # is a test's name alone: ``tests/test_redaction.py`` in a list of findings.)
    source = set(from_source)
    summary_files = _components(shown_all, cwd, rules, {k: list(v) for k, v in folders.items()},
                                source, project)
    summary_files = [(path, name) for path, name in summary_files if _name_key(name) in source]
    items = []
    for found in read.items:
        if found.kind == "outcome":
            continue
        names: tuple[str, ...] = ()
        for path in found.paths:
            if len(names) == SUMMARY_COMPONENTS:
                break
            shown = _shown(path, cwd)
            names += tuple(n for _, n in _components([shown], cwd, rules, folders, from_source,
                                                     project) if n not in names)
        if not names and found.kind != Kind.NEXT_STEP:
            names = _about(found.text, summary_files)
        items.append(Item(found.kind, one_line(found.text), names))
    entry = f"### {turn.time} - {COMPACTED_TITLE}"
    if read.outcome:
        entry += f"\n\n**Outcome:** {block_safe(read.outcome)}"
    callout = [summary_callout(read.kept, turn.time)] if read.kept.strip() else []
    return entry, items, callout


def _ran(collected: list[LoggedTurn], current: LoggedTurn | None, ran: Console, when: str
         ) -> LoggedTurn | None:
    """The entry after what the person ran themselves (``console``): the entry of the commands
    they ran just before, else a new one named by it. Output with no command waiting for it
    (one an earlier read recorded) is left out."""
    if ran.command is None:
        if current is not None and current.ran and current.ran[-1].output is None:
            current.ran[-1] = replace(current.ran[-1], output=ran.output)
            _name_ran(current)
        return current
    if current is None or not current.ran or current.prompt is not None or current.answer:
        current = LoggedTurn(when, title_of(ran.command), None)
        collected.append(current)
    current.ran.append(ran)
    _name_ran(current)
    return current


def _name_ran(entry: LoggedTurn) -> None:
    """An entry of commands the person ran is named by the first the note keeps."""
    shown = [r.command for r in entry.ran if r.command and console.kept(r)]
    if shown:
        entry.title = title_of(shown[0])


def asked_by_command(entry: LoggedTurn) -> bool:
    """Whether ``entry`` ends on a slash command that printed nothing before Claude went on."""
    last = entry.ran[-1] if entry.ran and entry.prompt is None and not entry.answer else None
    return last is not None and not last.shell and last.output is None


def _asked(collected: list[LoggedTurn], entry: LoggedTurn, when: str) -> LoggedTurn:
    """The turn of the slash command ``entry`` ends on, as its prompt (see ``asked_by_command``)."""
    command = entry.ran.pop().command or ""
    if not entry.ran:  # the command alone: its entry becomes the turn, at the command's time
        collected.remove(entry)
        when = entry.time
    asked = LoggedTurn(when, title_of(command), command)
    collected.append(asked)
    return asked


def _add(seq: list[str], value: str) -> None:
    if value not in seq:
        seq.append(value)


def _label(call: ToolCall, cwd: str | None) -> str:
    if call.command is not None:
        return code_span(one_line(call.command))
    if call.path is not None:
        return f"{call.tool} {code_span(one_line(_shown(call.path, cwd)))}"
    return call.tool


def component_names(told: Story) -> list[str]:
    """Every component ``told`` links: its items' and its Related Entities'."""
    return list(dict.fromkeys([*(c for i in told.items for c in i.components), *told.components]))


def edits_for(told: Story, note_text: str = "",
              link: Callable[[str], str] | None = None) -> list[Edit]:
    """The section patches that add ``told`` to a note holding ``note_text`` (empty: nothing
    to say). Items and components the note already lists are left out. ``link`` writes a
    component's link (see :meth:`Item.render`)."""
    texts, names = known_items(note_text)
    # The same failure fixed again later in the session (another id in its error, other files
    # edited on the way) is the lesson the note already has.
    failures = {key for key in map(fixes.failure_key, texts) if key is not None}
    # A component only a test's name gave counts where the note already has it from source.
    dropped = {n for n in told.tested_only if _name_key(n) not in names}
    edits: list[Edit] = []
    if told.entries:
        edits.append(_append(WORK_LOG, "\n\n".join(told.entries)))
    by_kind: dict[Kind, list[str]] = {}
    into = fold.folds([(i.kind, i.text) for i in told.items], fold.listed(note_text))
    for n, item in enumerate(told.items):
        if dropped.intersection(item.components):
            item = replace(item, components=tuple(c for c in item.components if c not in dropped))
        line = item.render(link)
        body = anchors.strip(line[2:].split(" ([[", 1)[0] if item.components else line[2:])
        failure = fixes.failure_key(body) if item.kind == Kind.GOTCHA else None
        if into[n] != n or body in texts or failure in failures:
            continue
        texts.add(body)
        if failure is not None:
            failures.add(failure)
        by_kind.setdefault(item.kind, []).append(line)
    for kind in ITEM_ORDER:
        if by_kind.get(kind):
            edits.append(_append(SECTION_OF_KIND[kind], "\n".join(by_kind[kind])))
    related = []
    for name, folders in told.components.items():
        if _name_key(name) in names or name in dropped:
            continue
        names.add(_name_key(name))
        where = ", ".join(code_span(one_line(f)) for f in folders)
        related.append(f"- {(link or _bare)(name)}" + (f" — {where}" if where else ""))
    if related:
        edits.append(_append(RELATED, "\n".join(related)))
    if told.summaries:
        edits.append(_append(SUMMARIES, "\n\n".join(told.summaries)))
    return edits


def _append(heading: tuple[str, ...], content: str) -> SectionPatch:
    return SectionPatch(heading, "append", content, subtree=True, create=True, prefer="first")
