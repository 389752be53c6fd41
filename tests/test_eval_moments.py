"""bench.eval_moments' reading of a transcript: where Claude Code runs the moment hooks, and the
ground truth of recurrence (a failure's folded error line, the commands that passed)."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

import pytest

from bench import eval_moments
from bench.moments_report import Report, render, totals


def _line(**row: object) -> str:
    return json.dumps({"timestamp": "2026-01-01T10:00:00", "cwd": "/w/shop", **row})


TRANSCRIPT = [
    _line(type="user", message={"content": "run the db tests"}),
    _line(type="assistant", message={"content": [
        {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "cd /w && pytest"}}]}),
    _line(type="user", message={"content": [
        {"type": "tool_result", "tool_use_id": "t1", "is_error": True,
         "content": "Exit code 1\nE   OperationalError: port 5432 failed: Connection refused"}]}),
    _line(type="assistant", message={"content": [
        {"type": "tool_use", "id": "t2", "name": "Bash", "input": {"command": "pytest"}}]}),
    _line(type="user", message={"content": [
        {"type": "tool_result", "tool_use_id": "t2", "is_error": False, "content": "1 passed"}]}),
    _line(type="user", isCompactSummary=True, message={"content": "summary"}),
]


def test_moment_calls_are_the_prompts_and_the_failed_tool_results() -> None:
    calls = eval_moments.moment_calls("s", TRANSCRIPT, "/")

    assert [(c.hook, c.upto) for c in calls] == [("user-prompt-submit", 0),
                                                 ("post-tool-use-failure", 3)]
    assert calls[0].payload == {"prompt": "run the db tests"}
    failure = calls[1]
    assert failure.payload["tool_input"] == {"command": "cd /w && pytest"}
    assert failure.command == "pytest" and failure.payload["is_interrupt"] is False
    assert failure.signature == eval_moments.fold(
        "Exit code 1\nE   OperationalError: port 5433 failed: Connection refused")
    assert "#" in failure.signature and "5432" not in failure.signature


def test_passed_later_and_fold() -> None:
    assert eval_moments.passed_later(TRANSCRIPT) == {"pytest"}
    assert eval_moments.fold("Exit code 1") == ""
    assert eval_moments.fold("cp: /home/a/x: Text file busy") == eval_moments.fold(
        "cp: /home/b/y: Text file busy")
    # A Windows path varies between runs of one failure as a POSIX one does.
    assert eval_moments.fold("Command failed: cygpath -u 'c:\\users\\me'") == eval_moments.fold(
        "Command failed: cygpath -u 'C:\\Users\\me\\.claude\\snapshot-bash-17-hyxgvg.sh'")


def test_fold_folds_what_the_failure_hook_reads_as_varying() -> None:
    # Ids, short hashes and temporary names vary between runs of one failure (the hook's
    # signature leaves them out): recurrence's ground truth reads them alike.
    assert eval_moments.fold("error: snapshot bfc7fc2 is missing") == eval_moments.fold(
        "error: snapshot a1e9d3f is missing")
    assert eval_moments.fold("OSError: no space left on device: tmpab12cd") == eval_moments.fold(
        "OSError: no space left on device: tmpzz99qq")
    assert eval_moments.fold("error: snapshot bfc7fc2 is missing") != eval_moments.fold(
        "error: branch bfc7fc2 is missing")


def test_a_fix_is_recorded_when_a_gotcha_names_the_command_or_the_error() -> None:
    (failure,) = [c for c in eval_moments.moment_calls("s", TRANSCRIPT, "/")
                  if c.hook == "post-tool-use-failure"]
    capture = "- `pytest` failed (`e   operationalerror`); it passed after editing `db.py`"
    mined = "- db tests: " + failure.signature + " fix: start postgres"

    assert eval_moments.recorded(failure, capture)
    assert eval_moments.recorded(failure, mined)
    assert not eval_moments.recorded(failure, "- `npm test` failed (`x`); it passed")


def test_a_shell_that_could_not_start_a_command_has_one_recorded_fix_whatever_ran() -> None:
    # Git Bash's fork failing is one failure whether Cygwin names cygpath or bash, whatever ran.
    error = ("Command failed: cygpath -u 'C:\\Users\\me'\n      0 [main] cygpath (31128) "
             "child_copy: cygheap read copy failed, 0x0..0x8000224B0, done 0, Win32 error 299")
    call = eval_moments.Call(datetime(2026, 1, 1), "s", 3, "post-tool-use-failure", "/",
                             {"error": error}, eval_moments.fold(error), "git status")
    gotcha = ("- `ssh host` failed: `0 [main] bash (#) child_copy: cygheap read copy failed`; "
              "it passed after restarting")
    assert eval_moments.recorded(call, gotcha)
    assert not eval_moments.recorded(call, "- `npm test` failed (`x`); it passed")


def test_a_labelled_recurrence_scores_the_first_matching_failure_of_each_later_session() -> None:
    from datetime import datetime

    from bench.real_corpus import Corpus, RealSession

    def failure(sid: str, upto: int, error: str) -> eval_moments.Call:
        return eval_moments.Call(datetime(2026, 1, 2), sid, upto, "post-tool-use-failure", "/w",
                                 {"error": error})

    corpus = Corpus(tuple(RealSession(i, "p", f"p/{i}.jsonl", "0" * 64) for i in "abcd"), (), (),
                    {})
    by_session = {
        "b": [failure("b", 4, "ls: x: no such file"), failure("b", 4, "Exit code 1\nsudo: a "
              "terminal is required to read the password"), failure("b", 9, "sudo: a terminal "
              "is required")],
        "c": [failure("c", 2, "sudo: a terminal is required")],
        "d": [failure("d", 2, "sudo: a terminal is required")],
    }
    report = eval_moments.Report(contexts={
        "b:4": ["", "Earlier (a): run the sudo command yourself in Terminal."],
        "b:9": ["told again"], "c:2": ["Something about sudo."]},
        # c's briefing gave the fix before its failure; a prompt after it does not count.
        given={"c": [(1, "Gotcha: sudo needs a terminal: run it by hand.", "session-start")],
               "d": [(5, "run it yourself", "user-prompt-submit")]})
    label = {"id": "sudo", "errors": ["SUDO: a terminal is required"], "fixed_in": "a",
             "later": ["b", "c", "d"], "fix": [["yourself"], ["by hand"]]}
    elsewhere = {**label, "id": "other", "fixed_in": "z"}  # a session of another part

    eval_moments.measure_labelled(corpus, by_session, [label, elsewhere], report)

    assert report.labelled == [
        {"label": "sudo", "session": "b", "met": True, "told": True, "told_fix": True,
         "fix_known": True, "fix_by": ""},
        {"label": "sudo", "session": "c", "met": True, "told": True, "told_fix": False,
         "fix_known": True, "fix_by": "session-start"},
        {"label": "sudo", "session": "d", "met": True, "told": False, "told_fix": False,
         "fix_known": False, "fix_by": ""}]
    counts = eval_moments.totals(report)
    assert (counts["labelled"], counts["labelled_told"], counts["labelled_told_fix"],
            counts["labelled_fix_known"]) == (3, 2, 1, 2)
    assert counts["labelled_fix_by"] == {"session-start": 1}
    assert "given before by session-start 1" in eval_moments.render(report, "r.json")


def test_the_committed_recurrence_labels_name_corpus_sessions_in_one_part_each() -> None:
    facts = json.loads((eval_moments.FIXTURES / "facts.json").read_text(encoding="utf-8"))
    split = {s["id"]: s["split"] for s in facts["sessions"]}
    labels = json.loads(eval_moments.RECURRENCES.read_text(encoding="utf-8"))["recurrences"]
    assert labels
    for label in labels:
        sessions = [label["fixed_in"], *label["later"]]
        assert len({split[s] for s in sessions}) == 1, label["id"]
        assert label["errors"] and all(proof for proof in label["fix"])


def test_a_failure_met_again_in_its_session_is_a_repeat_not_a_recurrence(tmp_path: Path) -> None:
    from datetime import datetime

    from bench.real_corpus import Corpus, RealSession

    error = "E   OperationalError: port 5432 failed: Connection refused"
    (tmp_path / "a.jsonl").write_text("\n".join(TRANSCRIPT) + "\n")  # met, then pytest passed
    for sid in "bc":
        (tmp_path / f"{sid}.jsonl").write_text("")

    def failure(sid: str, upto: int, error: str) -> eval_moments.Call:
        return eval_moments.Call(datetime(2026, 1, 2), sid, upto, "post-tool-use-failure", "/w",
                                 {"error": error}, eval_moments.fold(error), "pytest")

    corpus = Corpus(tuple(RealSession(i, "p", f"{i}.jsonl", "0" * 64) for i in "abc"), (), (),
                    {i: tmp_path / f"{i}.jsonl" for i in "abc"})
    by_session = {"a": [failure("a", 3, error)],
                  "b": [failure("b", 2, error), failure("b", 5, error)],
                  "c": [failure("c", 1, "KeyError: 'currency'"), failure("c", 4, error)]}
    report = eval_moments.Report(told={"a:3": [False], "b:2": [True], "b:5": [False],
                                       "c:1": [True], "c:4": [False]},
                                 fresh={"a:3": [False], "b:2": [True], "b:5": [True],
                                        "c:1": [True], "c:4": [True]},
                                 recorded={"a:3": [False], "b:2": [False], "b:5": [True],
                                           "c:1": [False], "c:4": [True]})

    eval_moments.measure_failures(corpus, by_session, report)

    assert [told for _, told in report.recurring] == [True, False]  # b's first, c's
    assert [told for _, told in report.repeats] == [False]  # b's second: told once already
    assert report.recurring_after_told == 1  # c was told something before it
    assert report.recurring_told_before == 1  # c's, silent as what it had was told before
    assert "or earlier in this session: 2/2 (100%)" in render(report, "recurrences.json")
    assert (report.recurring_recorded, report.recurring_recorded_told) == (1, 1)  # c's


def test_a_sessions_own_notes_hold_no_fix_recorded_for_it(tmp_path: Path) -> None:
    gotcha = "## Gotchas & Troubleshooting\n\n- `pytest` failed: `E   KeyError: 'x'`\n"
    (tmp_path / "own.md").write_text(f"---\nsession_ids: [s-1]\n---\n{gotcha}")
    (tmp_path / "other.md").write_text(f"---\nsession_ids: [s-2]\n---\n{gotcha.replace('x', 'y')}")

    assert "'y'" in eval_moments._gotchas(tmp_path, "s-1")
    assert "'x'" not in eval_moments._gotchas(tmp_path, "s-1")
    assert "'x'" in eval_moments._gotchas(tmp_path)


def test_a_silent_failure_is_asked_again_without_the_sessions_injections(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    log = tmp_path / "vault" / ".vaultmem" / "hosts" / "h" / "injections.jsonl"
    log.parent.mkdir(parents=True)
    log.write_text('{"session": "s", "keys": ["k"]}\n')
    seen = []

    def hook(root: Path, when: object, args: object, stdin: str) -> tuple[str, str]:
        seen.append(log.exists())
        log.write_text('{"session": "s", "keys": ["k"], "event": "again"}\n')
        return json.dumps({"hookSpecificOutput": {"additionalContext": "the fix"}}), ""

    monkeypatch.setattr(eval_moments, "_vaultmem", hook)

    assert eval_moments._unlogged(tmp_path, datetime(2026, 1, 1), {"error": "x"}) == "the fix"
    assert seen == [False]  # the hook ran with no injection log
    assert log.read_text() == '{"session": "s", "keys": ["k"]}\n'  # put back as it was


def test_a_failure_about_the_host_told_in_another_project_is_counted_apart() -> None:
    # One vault is one machine: a failure about its tools told in another project is no fault.
    report = Report(part="tuning", sessions=2)
    probe = {"session": "a", "project": "p", "recorded": True, "command": "git status",
             "signature": "x", "told_again": True}
    report.probes += [{**probe, "host": True, "told_elsewhere": True},
                      {**probe, "host": False, "told_elsewhere": False},
                      {**probe, "host": True, "told_elsewhere": False, "recorded": False}]
    t = totals(report)
    assert (t["probes_silent_elsewhere"], t["probes_host"], t["probes_host_told_elsewhere"]) == (
        1, 2, 1)
    text = render(report, "recurrences.json")
    assert "told nothing 1/1 (100%)" in text
    # A host failure no fix was recorded for has nothing to be told: counted apart.
    assert ("of those whose fix the vault recorded told it there 1/1 (100%) (goal >= 90%), of "
            "those with no fix recorded silent there 1/1 (100%) (right: nothing to tell)") in text
    assert t["probes_host_unrecorded_silent"] == 1
    gitbash = ("Command failed: cygpath -u 'C:\\Users\\me'\n 0 [main] cygpath (31128) "
               "child_copy: cygheap read copy failed")
    call = eval_moments.Call(datetime(2026, 1, 1), "s", 3, "post-tool-use-failure", "/",
                             {"tool_name": "Bash", "error": gitbash}, "", "git status")
    assert eval_moments._of_host(call)
    assert not eval_moments._of_host(eval_moments.Call(
        datetime(2026, 1, 1), "s", 3, "post-tool-use-failure", "/",
        {"tool_name": "Bash", "error": "Exit code 1\nE   AssertionError: 2 != 3"}, "", "pytest"))


def test_a_summed_up_push_failure_folds_with_its_cause() -> None:
    ahead = ("Exit code 1\n ! [rejected]        {0} -> {0} (fetch first)\nerror: failed to "
             "push some refs to 'github.com:me/shop.git'")
    declined = ("Exit code 1\n ! [remote rejected] main -> main (push declined due to "
                "repository rule violations)\nerror: failed to push some refs to "
                "'github.com:me/shop.git'")

    assert eval_moments.fold(ahead.format("main")) == eval_moments.fold(ahead.format("dev"))
    assert eval_moments.fold(ahead.format("main")) != eval_moments.fold(declined)
    assert "fetch first" in eval_moments.fold(ahead.format("main"))


def test_a_fact_named_only_in_code_claude_wrote_is_not_established_by_it() -> None:
    # Before its compaction the session wrote `applet::run` into main.rs, then replaced it with
    # `app::run`: the code it wrote is an attempt, not a fact it had established. What a tool
    # reported (a file read), Claude's messages and the person's prompts establish one.
    def row(kind: str, content: object) -> str:
        return json.dumps({"type": kind, "message": {"role": kind, "content": content}})

    lines = [row("user", "build the applet"),
             row("assistant", [{"type": "tool_use", "id": "w1", "name": "Edit", "input": {
                 "new_string": "cosmic::applet::run::<App>(())"}}]),
             row("user", [{"type": "tool_result", "tool_use_id": "w1",
                           "content": "8    cosmic::applet::run::<App>(())"}]),
             row("assistant", [{"type": "tool_use", "id": "r1", "name": "Read", "input": {
                 "file_path": "Cargo.toml"}}]),
             row("user", [{"type": "tool_result", "tool_use_id": "r1",
                           "content": 'tokio = { features = ["rt-multi-thread"] }'}]),
             row("assistant", [{"type": "thinking", "thinking": "the panel restarts it"},
                               {"type": "text", "text": "Use `cosmic::app::run` here."}]),
             "{not json"]

    text = eval_moments.established(lines)

    assert "applet::run" not in text
    assert all(w in text for w in ("build the applet", "rt-multi-thread",
                                   "the panel restarts it", "cosmic::app::run"))
