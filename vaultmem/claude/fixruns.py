"""A command's runs in a read -> the gotchas of the failures a later run got past (pure).

Capture (``ingest.story``) hands each finished Bash run here with what ran and was edited before
it; the rules of what counts as a fix are :mod:`vaultmem.mining.fixes`'. Each function appends
the gotcha it finds to ``found`` (the turn's fixes), once.
"""

from __future__ import annotations

from collections.abc import Sequence

from vaultmem.mining import fixes


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
    """A run of a program that failed since its last pass: a gotcha when it passed with an
    option that fixed a failure (:func:`fixes.retry_text`) or ran after what one lacked was
    installed (:func:`fixes.installed_text`: ``pytest`` found, a test red), or when it is a
    similar run of the last failure (:func:`fixes.similar`: ``pytest tests/test_a.py`` after
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
        earlier = [f for f in earlier if fixes.missing(f.error)]
    for last in reversed(earlier):
        if fixes.run_key(last.command) == fixes.run_key(run.command) and not run.failed:
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
