"""``python -m bench.eval_moments [--corpus DIR] [--part tuning|held-out|all] [--json]``: the moment
hooks (issue 31, DESIGN §12) on the real transcripts of ``bench/fixtures/real``.

The replay of ``bench.eval_real`` (every hook a process, the transcript as it was at that moment,
the clock then) with the moment hooks added where Claude Code runs them: UserPromptSubmit at each
prompt the person typed, PostToolUseFailure at each tool result marked ``is_error``. A
SessionStart(compact) sees the transcript as Claude Code 2.1.197 leaves it then: up to the
compaction, without the summary (written after the hook; DESIGN §13). Measured:

- post-compaction coverage: of each compacted session's facts established before the compaction
  (all proof words in the transcript before it), those the summary holds, and those the summary
  and vaultmem's context hold together (goal: all but one), and the context's size (<= 2,400);
- recurrence: a failure whose error line (folded as the hook folds it: paths, ids, hashes,
  dates, digits) an earlier session met and got past (the same command passed later in it) is
  recurring: told its fix? (goal >= 90%);
  one no earlier session met is unrelated: told nothing? (goal >= 95%). Repeats within one
  session are counted apart. A silent failure is asked again with the session's injections out
  of the way: when it would then be told something, the hook had told this session those facts
  already (once per fix per session), reported apart as "told earlier in this session". Real sessions rarely meet an earlier session's failure, so each
  failure a session got past is also met again after the replay, in a later session of its
  project (told its fix, when the vault recorded one?) and in a session of another project,
  run there (no ``cd`` before it) (told nothing?, unless the hook reads it as about the host's
  tools: one vault is one machine, so those are counted apart, told there or not), the index up
  to date and no briefing before (which may tell it first);
- labelled recurrences (``recurrences.json``): failures read in the transcripts to recur in a
  later session of the project after an earlier one found the fix; the first such failure of
  each later session: told anything, and told the fix (its proof words)? (goal >= 90%);
- labelled prompts (``moments_prompts.json``): each asked of the replayed vault in a later
  session, after its SessionStart (what the briefing gave is not told again); a fact told counts as expected when it holds one of the prompt's expected proofs
  (precision goal >= 80%), prompts that name no task must get nothing; and the characters the
  replay's own prompts were given per session (<= 1,200 each time);
- hook timings: wall time per call, process start included, as Claude Code waits for it.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

_REPO = Path(__file__).resolve().parents[1]
if str(_REPO) not in sys.path:
    sys.path.insert(0, str(_REPO))

from bench.eval_real import _vaultmem
from bench.moments_report import Report, render, totals
from bench.real_corpus import (
    FIXTURES,
    SPLITS,
    Corpus,
    CorpusError,
    _row,
    environ_corpus,
    holds,
    is_prompt,
    load_corpus,
    plan_events,
    session_uuid,
    used_keep,
)

PROMPTS = FIXTURES / "moments_prompts.json"
RECURRENCES = FIXTURES / "recurrences.json"
NAMES = {"session-start": "SessionStart", "stop": "Stop", "pre-compact": "PreCompact",
         "session-end": "SessionEnd", "user-prompt-submit": "UserPromptSubmit",
         "post-tool-use-failure": "PostToolUseFailure"}
RANK = {"pre-compact": 0, "session-start": 1, "user-prompt-submit": 2,
        "post-tool-use-failure": 3, "stop": 4, "session-end": 5}
# Cygwin's words for a command it could not start (its fork emulation failed), case-folded.
_UNSTARTED = re.compile(r"child_copy: cygheap|\bdofork: child|command failed: cygpath|"
                        r"status_dll_init_failed")
# Paths (POSIX and Windows: ``c:\users\me\.claude\shell-snapshots\snapshot-bash-1-ab12cd.sh``
# varies between runs of one failure as ``/home/me/x`` does), hex and numbers, case-folded.
_FOLD = re.compile(r"(?:[a-z]:)?(?:\\[^\s'\"`\\]+)+|(?:/[^\s'\"`:]+)+|0x[0-9a-f]+|\d+")
_MAPPED = re.compile(r"\S+\s+->\s+\S+")  # git's "main -> main": which branch varies


@dataclass(frozen=True)
class Call:
    """One hook call of the replay: ``hook`` saw the transcript's first ``upto`` lines."""

    when: datetime
    session: str
    upto: int
    hook: str
    cwd: str
    payload: Mapping[str, Any]
    # A failure: its folded error line and the command's words (ground truth for recurrence).
    signature: str = ""
    command: str = ""


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(b.get("text", "")) for b in content if isinstance(b, dict))
    return ""


def fold(error: str) -> str:
    """An error line as recurrence compares it: the line the failure hook reads for a failure
    (:func:`errorline.error_line`: a line that only sums up, git's ``error: failed to push some
    refs``, with the lines above it that say why, as capture records it: a push the remote was
    ahead of and one a repository rule declined are two failures), folded as :func:`folded`
    folds it (``E   psycopg…port 5432`` and ``…port 5433`` are one)."""
    from vaultmem.claude.errorline import error_line, summary_line

    line = error_line(error)
    if summary_line(line):
        line = _MAPPED.sub("#", line or "")
    return folded(line) if line and not line.startswith("Exit code") else ""


def folded(text: str) -> str:
    """``text`` with what the failure hook's signature leaves out as varying between runs
    folded (:func:`errorline.folded`: paths, ids, short hashes, temporary names, dates), then
    case-folded, with paths, hex and any number folded too."""
    from vaultmem.claude import errorline

    return _FOLD.sub("#", errorline.folded(text, "#").casefold())


def moment_calls(session: str, raw_lines: Sequence[str], cwd0: str) -> list[Call]:
    """The UserPromptSubmit and PostToolUseFailure calls Claude Code made while ``raw_lines``
    were written."""
    from vaultmem.mining.commandline import run_key

    rows = [_row(raw) for raw in raw_lines]
    calls: list[Call] = []
    tools: dict[str, tuple[str, dict[str, Any]]] = {}
    when, cwd = datetime(1970, 1, 1), cwd0
    for i, row in enumerate(rows):
        if not row:
            continue
        stamp = row.get("timestamp")
        if isinstance(stamp, str):
            try:
                when = datetime.fromisoformat(stamp[:19])
            except ValueError:
                pass
        cwd = str(row.get("cwd") or cwd)
        content = (row.get("message") or {}).get("content")
        if is_prompt(row):
            calls.append(Call(when, session, i, "user-prompt-submit", cwd,
                              {"prompt": _text(content)}))
            continue
        for block in content if isinstance(content, list) else ():
            if not isinstance(block, dict):
                continue
            if block.get("type") == "tool_use":
                tools[str(block.get("id"))] = (str(block.get("name")), block.get("input") or {})
            elif block.get("type") == "tool_result" and block.get("is_error"):
                name, given = tools.get(str(block.get("tool_use_id")), ("tool", {}))
                error = _text(block.get("content"))
                command = str(given.get("command") or "") if isinstance(given, dict) else ""
                calls.append(Call(when, session, i + 1, "post-tool-use-failure", cwd, {
                    "tool_name": name, "tool_input": given, "error": error,
                    "is_interrupt": "interrupted by user" in error}, fold(error),
                    run_key(command) if command else ""))
    return calls


def passed_later(raw_lines: Sequence[str]) -> set[str]:
    """The commands (run keys) of a transcript that ran without an error at least once."""
    from vaultmem.mining.commandline import run_key

    commands: dict[str, str] = {}
    passed: set[str] = set()
    for raw in raw_lines:
        row = _row(raw)
        content = ((row or {}).get("message") or {}).get("content")
        for block in content if isinstance(content, list) else ():
            if not isinstance(block, dict):
                continue
            given = block.get("input")
            if block.get("type") == "tool_use" and isinstance(given, dict) and given.get("command"):
                commands[str(block.get("id"))] = run_key(str(given["command"]))
            elif block.get("type") == "tool_result" and not block.get("is_error"):
                key = commands.get(str(block.get("tool_use_id")))
                if key:
                    passed.add(key)
    return passed


def _context(out: str) -> str:
    try:
        doc = json.loads(out) if out.strip() else {}
    except ValueError:
        return ""
    return str((doc.get("hookSpecificOutput") or {}).get("additionalContext") or "")


def _fact_lines(context: str) -> list[str]:
    return [line for line in context.split("\n") if line.startswith("- ")]


def replay(corpus: Corpus, root: Path, report: Report) -> dict[str, list[Call]]:
    """Every hook of every session, moment hooks included, into ``root/vault``."""
    lines = {s.id: corpus.paths[s.id].read_bytes().splitlines(keepends=True)
             for s in corpus.sessions}
    texts = {sid: [raw.decode("utf-8", "replace") for raw in raw_lines]
             for sid, raw_lines in lines.items()}
    uuids = {s.id: session_uuid(s, texts[s.id]) for s in corpus.sessions}
    plans: list[list[Call]] = []
    for s in corpus.sessions:
        events = plan_events(s, texts[s.id])
        calls = [Call(e.when, s.id, e.upto, e.hook, e.cwd, dict(e.extra)) for e in events]
        calls += moment_calls(s.id, texts[s.id], events[0].cwd if events else "/")
        calls.sort(key=lambda c: (c.upto, RANK[c.hook]))
        plans.append(calls)
    ordered: list[tuple[datetime, str, int, Call]] = []
    for plan in plans:
        latest = datetime(1970, 1, 1)
        for seq, call in enumerate(plan):  # a clock that went back does not reorder a session
            latest = max(latest, call.when)
            ordered.append((latest, call.session, seq, call))
    ordered.sort(key=lambda o: o[:3])
    written = dict.fromkeys(lines, 0)
    compacted_at: dict[str, int] = {}
    for when, sid, _, call in ordered:
        upto = call.upto
        if call.hook == "pre-compact":
            compacted_at[sid] = upto
        if call.hook == "session-start" and call.payload.get("source") == "compact":
            upto = compacted_at.get(sid, upto)  # the summary is not written yet (2.1.197)
        path = root / "transcripts" / f"{uuids[sid]}.jsonl"
        with path.open("ab") as handle:
            handle.writelines(lines[sid][written[sid]:upto])
        written[sid] = max(written[sid], upto)
        payload = {"session_id": uuids[sid], "transcript_path": str(path), "cwd": call.cwd,
                   "hook_event_name": NAMES[call.hook], **call.payload}
        started = time.perf_counter()
        out, _ = _vaultmem(root, when, ["hook", call.hook], json.dumps(payload))
        report.timings.setdefault(call.hook, []).append((time.perf_counter() - started) * 1000)
        _observe(call, _context(out), texts[sid], report)
        if call.hook == "post-tool-use-failure":
            key = f"{call.session}:{call.upto}"
            report.fresh.setdefault(key, []).append(
                bool(_context(out)) or bool(_unlogged(root, when, payload)))
            report.recorded.setdefault(key, []).append(
                recorded(call, _gotchas(root / "vault", uuids[sid])))
    by_session: dict[str, list[Call]] = {}
    for _, sid, _, call in ordered:
        by_session.setdefault(sid, []).append(call)
    return by_session


def _unlogged(root: Path, when: datetime, payload: Mapping[str, Any]) -> str:
    """What the failure hook would tell had nothing been injected into this session before:
    the hook again, on the same vault at the same moment, with the injection log out of the way
    (then put back as it was). A silent hook that would tell something here kept quiet because
    it told this session those facts already (once per fix per session)."""
    logs = {path: path.read_bytes() for path in
            (root / "vault" / ".vaultmem").glob("hosts/*/injections.jsonl")}
    for path in logs:
        path.unlink()
    try:
        out, _ = _vaultmem(root, when, ["hook", "post-tool-use-failure"], json.dumps(payload))
    finally:
        for path in (root / "vault" / ".vaultmem").glob("hosts/*/injections.jsonl"):
            path.unlink()
        for path, data in logs.items():
            path.write_bytes(data)
    return _context(out)


def _observe(call: Call, context: str, raw_lines: Sequence[str], report: Report) -> None:
    if context:
        report.given.setdefault(call.session, []).append((call.upto, context, call.hook))
    if call.hook == "user-prompt-submit" and context:
        report.prompt_chars[call.session] = report.prompt_chars.get(call.session, 0) + len(context)
        report.prompt_max = max(report.prompt_max, len(context))
    if call.hook == "session-start" and call.payload.get("source") == "compact":
        report.compactions.append({"session": call.session, "upto": call.upto, "context": context})
    if call.hook == "pre-compact":
        report.boundaries[call.session] = call.upto
    if call.hook == "post-tool-use-failure":
        report.told.setdefault(f"{call.session}:{call.upto}", []).append(bool(context))
        report.contexts.setdefault(f"{call.session}:{call.upto}", []).append(context)


def measure_failures(corpus: Corpus, by_session: Mapping[str, Sequence[Call]],
                     report: Report) -> None:
    """Sort each failure into recurring, unrelated or a repeat, with whether it was told."""
    texts = {s.id: corpus.paths[s.id].read_text(encoding="utf-8", errors="replace").splitlines()
             for s in corpus.sessions}
    fixed_in = {sid: passed_later(lines) for sid, lines in texts.items()}
    met: dict[str, set[str]] = {}  # signature -> sessions that met it and got past it
    seen_any: dict[str, set[str]] = {}
    told = {key: list(values) for key, values in report.told.items()}
    fresh = {key: list(values) for key, values in report.fresh.items()}
    held = {key: list(values) for key, values in report.recorded.items()}
    for s in corpus.sessions:  # in the order the sessions started
        mine: set[str] = set()
        hook_told = False  # the failure hook gave this session context before
        for call in by_session.get(s.id, ()):
            if call.hook != "post-tool-use-failure":
                continue
            was_told = told[f"{call.session}:{call.upto}"].pop(0)
            # Silent, it would have told a fix to a session told nothing before: it told this
            # session those facts already (an earlier failure's or prompt's context).
            earlier_told = fresh[f"{call.session}:{call.upto}"].pop(0) and not was_told
            fix_held = held[f"{call.session}:{call.upto}"].pop(0)  # the vault had its fix then
            before, hook_told = hook_told, hook_told or was_told
            if not call.signature or call.payload.get("is_interrupt"):
                continue
            earlier = met.get(call.signature, set()) - {s.id}
            # Met before in this session: a repeat (the hook told its fix the first time, once).
            if call.signature in mine or s.id in seen_any.get(call.signature, set()):
                report.repeats.append((call.signature, was_told))
            elif earlier:
                report.recurring.append((call.signature, was_told))
                report.recurring_after_told += not was_told and before
                report.recurring_told_before += earlier_told
                report.recurring_recorded += fix_held
                report.recurring_recorded_told += fix_held and (was_told or earlier_told)
            elif not (seen_any.get(call.signature, set()) - {s.id}):
                report.unrelated.append((call.signature, was_told))
                report.unrelated_told_before += earlier_told
            mine.add(call.signature)
            seen_any.setdefault(call.signature, set()).add(s.id)
            if call.command and call.command in fixed_in[s.id]:
                met.setdefault(call.signature, set()).add(s.id)


def measure_labelled(corpus: Corpus, by_session: Mapping[str, Sequence[Call]],
                     labels: Sequence[Mapping[str, Any]], report: Report) -> None:
    """Score each labelled recurrence whose sessions are all in this part: the first failure
    of each later session that holds one of its error strings, told anything and told the fix
    by the failure hook, and whether the fix was in the session's context by then at all
    (``fix_known``: its briefing or a prompt's facts gave it earlier, so the failure hook, which
    tells a fix once per session, rightly said nothing; ``fix_by``: the hook that gave it first,
    "" when none did)."""
    ids = {s.id for s in corpus.sessions}
    for label in labels:
        if not {label["fixed_in"], *label["later"]} <= ids:
            continue
        errors = [e.casefold() for e in label["errors"]]
        for sid in label["later"]:
            calls = [c for c in by_session.get(sid, ()) if c.hook == "post-tool-use-failure"]
            seen: dict[str, int] = {}
            found: dict[str, Any] = {"label": label["id"], "session": sid, "met": False,
                                     "told": False, "told_fix": False, "fix_known": False}
            for call in calls:  # the n-th call at one transcript line has the n-th context
                key = f"{call.session}:{call.upto}"
                nth, seen[key] = seen.get(key, 0), seen.get(key, 0) + 1
                if any(e in str(call.payload.get("error", "")).casefold() for e in errors):
                    context = report.contexts.get(key, [""] * (nth + 1))[nth]
                    found.update(met=True, told=bool(context), told_fix=any(
                        holds(context, proof) for proof in label["fix"]))
                    by = next((hook for upto, text, hook in report.given.get(sid, ())
                               if upto <= call.upto and text != context and any(
                                   holds(text, proof) for proof in label["fix"])), "")
                    found.update(fix_known=found["told_fix"] or bool(by), fix_by=by)
                    break
            report.labelled.append(found)


# Claude Code's tools that write what Claude gives them into a file: their input and the
# snippet their result echoes are Claude's attempt, not a fact the session established.
_WRITERS = frozenset({"Edit", "MultiEdit", "Write", "NotebookEdit"})


def established(lines: Sequence[str]) -> str:
    """The text of transcript ``lines`` (JSONL) that can establish a fact: the person's prompts,
    Claude's messages and thinking, what tools reported; not the code Claude wrote into files
    (:data:`_WRITERS`' input and result), which a later change may have taken back: a session
    that wrote ``applet::run``, then replaced it with ``app::run``, had not established that
    applets start with ``applet::run`` (it found that after its compaction)."""
    kept: list[str] = []
    writes: set[str] = set()
    for raw in lines:
        message = (_row(raw) or {}).get("message")
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, str):
            kept.append(content)
            continue
        for block in content if isinstance(content, list) else ():
            if not isinstance(block, dict):
                continue
            kind = block.get("type")
            if kind == "tool_use":
                if block.get("name") in _WRITERS:
                    writes.add(str(block.get("id")))
                else:
                    kept.append(json.dumps(block.get("input"), ensure_ascii=False))
            elif kind == "tool_result" and block.get("tool_use_id") not in writes:
                kept.append(_text(block.get("content")))
            elif kind in ("text", "thinking"):
                kept.append(str(block.get(kind, "")))
    return "\n".join(kept)


def measure_compactions(corpus: Corpus, report: Report) -> None:
    """Coverage of the facts established before each compaction."""
    from vaultmem.claude.aftercompact import summary_of

    for item in report.compactions:
        sid = item["session"]
        lines = corpus.paths[sid].read_text(encoding="utf-8", errors="replace").splitlines()
        boundary = report.boundaries.get(sid, item["upto"])
        before = established(lines[:boundary])
        summary = summary_of(lines[boundary:item["upto"]]) or ""
        named = [f for f in corpus.facts if f.session == sid and holds("\n".join(
            lines[:boundary]), f.proof)]
        facts = [f for f in named if holds(before, f.proof)]
        alone = [f.name for f in facts if holds(summary, f.proof)]
        both = [f.name for f in facts if holds(summary + "\n" + item["context"], f.proof)]
        item.update({"facts": len(facts), "in_code_only": len(named) - len(facts),
                     "summary": len(alone), "with_vaultmem": len(both),
                     "chars": len(item["context"]),
                     "missed": [f.name for f in facts if f.name not in both]})
        del item["context"]


def _later(root: Path, when: datetime, sid: str, cwd: str, hook: str,
           payload: Mapping[str, Any], *, brief: bool = True) -> str:
    """A hook of a later session, after its SessionStart (which brings the index up to date
    and briefs: what the briefing gave is not told again) unless not ``brief``; its context."""
    if brief:
        start = {"session_id": sid, "cwd": cwd, "hook_event_name": "SessionStart",
                 "source": "startup"}
        _vaultmem(root, when, ["hook", "session-start"], json.dumps(start))
    out, _ = _vaultmem(root, when, ["hook", hook], json.dumps(
        {"session_id": sid, "cwd": cwd, "hook_event_name": NAMES[hook], **payload}))
    return _context(out)


def _last_cwds(corpus: Corpus) -> dict[str, str]:
    return {s.id: next((str(r["cwd"]) for r in map(_row, reversed(corpus.paths[s.id].read_text(
        encoding="utf-8", errors="replace").splitlines())) if r and r.get("cwd")), "/")
        for s in corpus.sessions}


def _gotchas(vault: Path, without: str = "") -> str:
    """Every gotcha line the vault holds, as written; not those of the notes of session ``without`` (its frontmatter names it), which the failure
    hook does not read to that session."""
    from vaultmem.notes.facts import facts

    found = []
    for path in vault.rglob("*.md"):
        text = path.read_text(encoding="utf-8", errors="replace")
        if without and without in text.split("\n---", 1)[0]:
            continue
        found += [f.text for f in facts(text, stem=path.stem, note_type=None) if f.kind == "gotcha"]
    return "\n".join(found)


def recorded(call: Call, gotchas: str) -> bool:
    """Whether the vault recorded a fix for a failure: a gotcha holds its command (capture's
    "`cmd` failed (…); it passed after …") or the start of its error line (a mined one). A shell
    that could not start the command (:data:`_UNSTARTED`: Git Bash's fork emulation failing,
    which ``Command failed: cygpath …`` and ``[main] bash … child_copy`` both say) is one failure
    whatever command met it and whichever program Cygwin names: a gotcha quoting any such error
    recorded its fix."""
    command = _FOLD.sub("#", call.command.casefold())
    said = _FOLD.sub("#", gotchas.casefold())  # a command as quoted: what varies kept apart
    unstarted = _UNSTARTED.search(str(call.payload.get("error", "")).casefold())
    return bool(command and f"{command}` failed" in said) or bool(
        call.signature and call.signature[:40] in folded(gotchas)) or bool(
        unstarted and _UNSTARTED.search(said))


def measure_probes(corpus: Corpus, root: Path, by_session: Mapping[str, Sequence[Call]],
                   when: datetime, report: Report) -> None:
    """Each failure a session got past, met again in a later session of its project (must be
    told its fix when the vault recorded one) and in a session of another project (must be
    told nothing)."""
    cwds = _last_cwds(corpus)
    gotchas = _gotchas(root / "vault")
    # The index brought up to date once, as a SessionStart would; the probes run without its
    # briefing, which may tell a fix first (then the failure hook rightly says nothing again).
    _vaultmem(root, when, ["recall", "--all-projects", "--json", "index"])
    texts = {s.id: corpus.paths[s.id].read_text(encoding="utf-8", errors="replace").splitlines()
             for s in corpus.sessions}
    projects = {s.id: s.project for s in corpus.sessions}
    n = 0
    for s in corpus.sessions:
        fixed = passed_later(texts[s.id])
        others = [o.id for o in corpus.sessions if o.project != s.project]
        seen: set[str] = set()
        for call in by_session.get(s.id, ()):
            if (call.hook != "post-tool-use-failure" or not call.signature or call.signature in seen
                    or call.command not in fixed or call.payload.get("is_interrupt")):
                continue
            seen.add(call.signature)
            n += 1
            again = _later(root, when, f"eval-recur-{n}", cwds[s.id], call.hook, call.payload,
                           brief=False)
            elsewhere = _later(root, when, f"eval-other-{n}", cwds[others[0]], call.hook,
                               _run_here(call.payload), brief=False) if others else ""
            report.probe_contexts.append((f"{call.command[:60]} — {call.signature[:80]}", again,
                                          elsewhere))
            report.probes.append({"session": s.id, "project": projects[s.id],
                                  "recorded": recorded(call, gotchas), "host": _of_host(call),
                                  "command": call.command[:80], "signature": call.signature[:120],
                                  "told_again": bool(again), "told_elsewhere": bool(elsewhere)})


def _of_host(call: Call) -> bool:
    """Whether the failure hook reads a failure as about the host's tools
    (:func:`onfailure.host_wide`): its fix holds in another project of the vault as well."""
    from vaultmem.claude.onfailure import Failure, host_wide

    return host_wide(Failure(str(call.payload.get("tool_name") or "tool"), call.command, None,
                             str(call.payload.get("error") or "")))


def _run_here(payload: Mapping[str, Any]) -> Mapping[str, Any]:
    """A failure's payload with its command run where the session is, without the ``cd`` before
    it (``cd ~/shop && git commit`` failed in shop, whichever session ran it)."""
    from vaultmem.claude.onfailure import without_cd

    given = payload.get("tool_input")
    if not isinstance(given, dict) or not isinstance(given.get("command"), str):
        return payload
    return {**payload, "tool_input": {**given, "command": without_cd(given["command"])}}


def measure_prompts(corpus: Corpus, root: Path, labels: Sequence[Mapping[str, Any]],
                    when: datetime, report: Report) -> None:
    """Ask each labelled prompt of the replayed vault in a later session."""
    cwds = _last_cwds(corpus)
    for n, label in enumerate(labels):
        context = _later(root, when, f"eval-prompt-{n}", cwds[label["session"]],
                         "user-prompt-submit", {"prompt": label["prompt"]})
        out = json.dumps({"hookSpecificOutput": {"additionalContext": context}})
        lines = _fact_lines(_context(out))
        good = [ln for ln in lines if any(holds(ln, proof) for proof in label["expect"])]
        bad = [ln for ln in lines if any(holds(ln, proof) for proof in label.get("not", []))]
        report.prompts.append({"prompt": label["prompt"], "told": len(lines),
                               "expected": len(good), "unwanted": len(bad),
                               "unexpected": [ln for ln in lines if ln not in good],
                               "silent_wanted": not label["expect"], "chars": len(
                                   _context(out)), "wanted": len(label["expect"])})


def evaluate(corpus: Corpus, root: Path, labels: Sequence[Mapping[str, Any]],
             recurrences: Sequence[Mapping[str, Any]] = ()) -> Report:
    """Replay ``corpus`` into ``root`` and measure the moment hooks."""
    for folder in (root / "vault", root / "home" / ".config" / "vaultmem", root / "transcripts"):
        folder.mkdir(parents=True, exist_ok=True)
    (root / "home" / ".config" / "vaultmem" / "config.toml").write_text(
        "start_compaction_budget = 60.0\n", encoding="utf-8")  # as bench.eval_real does
    report = Report(part=corpus.sessions[0].split if corpus.sessions else SPLITS[0],
                    sessions=len(corpus.sessions))
    by_session = replay(corpus, root, report)
    measure_failures(corpus, by_session, report)
    measure_labelled(corpus, by_session, recurrences, report)
    measure_compactions(corpus, report)
    ids = {s.id for s in corpus.sessions}
    last = max(c.when for calls in by_session.values() for c in calls)
    measure_probes(corpus, root, by_session, last, report)
    measure_prompts(corpus, root, [p for p in labels if p["session"] in ids], last, report)
    return report


def shown(report: Report) -> str:
    """Every context the hooks gave in ``report``'s replay and its probes, as given, to read
    them as the developer would (the tuning part only: the held-out notes are not read)."""
    out = []
    for sid, items in report.given.items():
        for upto, context, hook in items:
            if hook == "session-start" and not context.startswith("vaultmem: this session"):
                continue  # a briefing: bench.eval_real's to read
            out.append(f"=== {sid}:{upto} {hook} ({len(context):,} chars)\n{context}")
    for probe, again, elsewhere in report.probe_contexts:
        for where, context in (("again", again), ("elsewhere", elsewhere)):
            if context:
                out.append(f"=== probe {where}: {probe} ({len(context):,} chars)\n{context}")
    return "\n\n".join(out) + "\n"


def _of_project(corpus: Corpus, project: str) -> Corpus:
    sessions = tuple(s for s in corpus.sessions if s.project == project)
    ids = {s.id for s in sessions}
    return Corpus(sessions, tuple(f for f in corpus.facts if f.session in ids), corpus.keep,
                  {i: p for i, p in corpus.paths.items() if i in ids})


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.eval_moments", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=Path, help="folder holding the transcripts")
    parser.add_argument("--facts", type=Path, default=FIXTURES / "facts.json")
    parser.add_argument("--part", choices=[*SPLITS, "all"], default="all")
    parser.add_argument("--project", help="replay only the sessions of this project (quicker)")
    parser.add_argument("--keep", type=Path, help="replay into this (empty) folder and keep it")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument("--show", type=Path, help="write what the hooks told in the tuning "
                        "part (every injection, as given) to this file, to read them")
    args = parser.parse_args(argv)
    if (used := used_keep(args.keep, SPLITS if args.part == "all" else (args.part,))) is not None:
        print(f"eval_moments: {used}: not empty (give --keep an empty or new folder)",
              file=sys.stderr)
        return 2
    try:
        corpus = load_corpus(args.facts, [args.corpus] if args.corpus else environ_corpus())
    except CorpusError as err:
        print(f"eval_moments: {err}", file=sys.stderr)
        return 2
    labels = json.loads(PROMPTS.read_text(encoding="utf-8"))["prompts"]
    recurrences = json.loads(RECURRENCES.read_text(encoding="utf-8"))["recurrences"]
    parts = [corpus.part(p) for p in (SPLITS if args.part == "all" else (args.part,))]
    if args.project:
        parts = [_of_project(part, args.project) for part in parts]
    reports = []
    with tempfile.TemporaryDirectory(prefix="vaultmem-eval-moments-") as tmp:
        base = args.keep or Path(tmp)
        for part in parts:
            if part.sessions:
                reports.append(evaluate(part, base / part.sessions[0].split, labels,
                                        recurrences))
    if args.show:
        args.show.write_text("\n".join(shown(r) for r in reports if r.part == "tuning"),
                             encoding="utf-8")
    if args.json:
        # What each failure was told stays out: it is the vault's text, held-out part included.
        print(json.dumps({r.part: {**{k: v for k, v in asdict(r).items()
                                       if k not in ("contexts", "given", "prompts",
                                                    "probe_contexts")},
                                   "prompts": [{k: v for k, v in p.items() if k != "unexpected"}
                                               for p in r.prompts],
                                   "totals": totals(r)} for r in reports}, indent=1))
    else:
        print("\n\n".join(render(r, RECURRENCES.name) for r in reports))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
