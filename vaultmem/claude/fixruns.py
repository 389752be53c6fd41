"""A command's runs in a read -> the gotchas of the failures a later run got past (pure).

Capture (``ingest.story``) hands each finished Bash run here with what ran and was edited before
it; the rules of what counts as a fix are :mod:`vaultmem.mining.fixes`'. Each function appends
the gotcha it finds to ``found`` (the turn's fixes), once.
"""

from __future__ import annotations

from collections.abc import Sequence

from vaultmem.mining import commandline, fixes


def fixed(found: list[str], history: list[fixes.Run], edits_at: list[tuple[int, str]],
           ran_at: list[tuple[int, str]]) -> None:
    """A passing run after a failure of the same command: a gotcha when what changed in between
    plausibly fixed it (:func:`fixes.fix_text`)."""
    passed = history[-1]
    failures = [run for run in history[:-1] if run.failed]
    if not failures:
        return
    failed = failures[-1]
    if any(run.number > failed.number and not run.failed for run in history[:-1]):
        return  # it passed before already: that pass was the fix
    edited = list(dict.fromkeys(p for n, p in edits_at if failed.number < n < passed.number))
    ran = [c for n, c in ran_at if failed.number < n < passed.number]
    text = fixes.fix_text(failed, passed, edited, ran)
    if text is not None and text not in found:
        found.append(text)


def moved_on(found: list[str], history: list[fixes.Run], edits_at: list[tuple[int, str]],
             ran_at: list[tuple[int, str]]) -> None:
    """A failing run after a failure of the same command with another error (``cargo build``
    failed: ``no matching package named `cosmic-time```, then failed on the code): the first
    error was got past, and a gotcha says how when the change in between was to the setup
    (:func:`fixes.fix_text`: a setup command, a variable set, a step added, a program done
    without; an edit of the build's setup only, a manifest: :func:`fixes.setup_edited_text`). A
    change of the code is work in progress: the pass at its end tells what fixed it. A program
    or module not there is :func:`retried`'s (what got it to run)."""
    if len(history) < 2 or not (history[-2].failed and history[-1].failed):
        return
    failed, now = history[-2], history[-1]
    if not failed.error or fixes.missing(failed.error) or \
            fixes.error_key(failed.error) == fixes.error_key(now.error):
        return
    edited = list(dict.fromkeys(p for n, p in edits_at if failed.number < n < now.number))
    ran = [c for n, c in ran_at if failed.number < n < now.number]
    text = fixes.fix_text(failed, now, edited, ran) or fixes.setup_edited_text(failed, edited)
    if text is None or text in found:
        return
    if text.startswith("Fixed by editing "):
        from vaultmem.mining.diagnostics import setup_fix

        if not setup_fix(text.partition(": ")[0]):
            return
    found.append(text)


def rerun(found: list[str], unstarted: dict[str, fixes.Run], past: set[str], command: str,
           ran_at: Sequence[tuple[int, str]]) -> None:
    """A passing run of a command the machine had not started before: a gotcha saying what got
    past it (:func:`fixes.rerun_text`), once per error in the read."""
    for key in fixes.passes(command):
        failed = unstarted.pop(key, None)
        if failed is None or fixes.error_key(failed.error) in past:
            continue
        past.add(fixes.error_key(failed.error))
        text = fixes.rerun_text(failed, [c for n, c in ran_at if n > failed.number])
        if text not in found:
            found.append(text)


def retried(found: list[str], tries: dict[tuple[str, ...], list[fixes.Run]], run: fixes.Run,
             ran_at: Sequence[tuple[int, str]], edits_at: Sequence[tuple[int, str]] = ()
             ) -> None:
    """A run of a program that failed since its last pass: a gotcha when it passed (or failed
    with another error) with an option that fixed a failure (:func:`fixes.retry_text`), or ran
    after what one lacked was installed (:func:`fixes.installed_text`: ``pytest`` found, a test
    red), or when it is a similar run of the last failure (:func:`fixes.similar`: ``pytest tests/test_a.py`` after
    ``pytest tests/test_a.py::test_x``) and what changed in between plausibly fixed it, as for
    a rerun of the same command (:func:`fixes.fix_text`: an edit of what it ran, a setup
    command, a variable set)."""
    key = fixes.retry_key(run.command)
    if key is None:
        return
    if run.failed and fixes.missing(run.error):
        tries.setdefault(key, []).append(run)
        return
    earlier = tries.pop(key, [])
    if run.failed:
        tries[key] = [run]
        # A failure this run got past with another error: the option or the program's path it
        # changed (:func:`fixes.retry_text`: ``~/.cargo/bin/cargo build`` after ``source
        # $HOME/.cargo/env && cargo build`` failed, then failed compiling).
        past = [f for f in earlier if not fixes.missing(f.error) and f.error
                and fixes.error_key(f.error) != fixes.error_key(run.error)]
        if past and (text := fixes.retry_text(past[-1], run)) is not None and text not in found:
            found.append(text)
        earlier = [f for f in earlier if fixes.missing(f.error)]
    for last in reversed(earlier):
        if commandline.run_key(last.command) == commandline.run_key(run.command) and not run.failed:
            continue  # the same command passing: :func:`fixed` weighs it
        ran = [c for n, c in ran_at if last.number < n < run.number]
        text = (fixes.installed_text(last, run, ran) if run.failed
                else fixes.retry_text(last, run) or fixes.installed_text(last, run, ran))
        if text is None and not run.failed and last is earlier[-1] and fixes.similar(
                last.command, run.command):
            edited = list(dict.fromkeys(p for n, p in edits_at if last.number < n < run.number))
            text = fixes.fix_text(last, run, edited, ran)
        if text is not None:
            if text not in found:
                found.append(text)
            return
