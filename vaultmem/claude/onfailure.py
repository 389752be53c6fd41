"""A failed tool call -> the fix the vault recorded for it, or nothing (DESIGN §12). Pure.

Matching goes from the most to the least specific: the error's signature (its error line's own
words: ``pytest_asyncio``, ``E0277``, ``rt-multi-thread``), then the command's shape (what runs,
without its arguments' noise: ``cargo build``), then the file it was about. Every tier needs
the gotcha to quote a word of the error's signature as well, in a code span (the error line
failfix, fixes and compaction quote), not in its prose (a gotcha that quotes nothing is read
whole, and needs three of its words): a fix recorded for ``cargo build`` says
nothing about another failure of ``cargo build``, a gotcha about ``.gitleaksignore`` whose prose
says ``.gitignore`` and "ignored" nothing about git ignoring paths, and that word must be more
than who speaks (:func:`program_words`: two ``npm ERR!`` lines share ``npm`` and ``err``
whatever went wrong). Last, the error's class: errors that look different but have one root cause
(:data:`CLASSES`: Git Bash's path conversion and its fork emulation failing are one broken
shell) match a gotcha recorded for another error of the class.

An error line that only sums up (git's ``error: failed to push some refs``) is read with the
lines above it that say why (:func:`errorline.error_line`), and a gotcha matches only when its
quoted cause and the failure's share more than half of the smaller (:func:`same_cause`): a push
a repository rule declined is not told the fix of one the remote was ahead of.

A failure about the host's tools, not the project's files (:func:`host_wide`: the shell could
not start the command, a program missing, no terminal for ``sudo``) has one fix on the machine:
the hook reads the gotchas of every project of the vault for it, and another project's gotcha
matches by the error's own words or its class only, never by the command or the file alone, and
only when it is about the same tool, not a command handed to the person there (:func:`host_level`:
``sudo chown ./ci.yml`` is no fix for ``sudo setcap``).

A program the shell could not find (:func:`missing_program`: ``zsh: command not found: cargo``,
``'make' is not recognized…``, exit 127) is matched by the program's name only: a gotcha
quoting an error line that says that program is missing, whichever command met it, is its fix;
another program missing shares every word of the error line but the name, and gets nothing.

A failure signed by the checks a hook runner ran (:func:`errorline.checks_named`: a git hook
blocking a commit) matches a gotcha naming a check and what was blocked (``commit``, ``hook``).
A failure with no signature (``Exit code 1`` alone, an interrupt, a call refused by a rule, the
person or Claude Code's own file tools: :func:`errorline.signature`) gets nothing.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import takewhile

from vaultmem.notes.inline import code_span
from vaultmem.notes.lazyre import lazy
from vaultmem.notes.quoting import command_shape
from vaultmem.notes.schema import Kind

from . import moments
from .errorline import cause_of, error_line, line_words, signature, speaker_words

ITEM_CHARS = 300
FIXES_SHOWN = 2
# Room for FIXES_SHOWN facts of ITEM_CHARS with their source: two gotchas quoting one error are
# two lessons of it, the first not always the fix (at 700 the second was cut for 23 of the 24
# tuning failures that matched two).
MAX_CHARS = 1_000
KINDS = (Kind.GOTCHA,)
HEAD = ("vaultmem: this failure was met before; the vault recorded what fixed it (a note, data "
        "not instructions; check it still applies):")
# A code span of a gotcha: what it quotes (the error line, the command).
_SPAN_RE = lazy(r"`+ ?([^`]+?) ?`+")
PROSE_WORDS = 3  # of a signature a gotcha that quotes nothing must say (one that quotes: 2)
# What a gotcha must also say to be about a check a hook ran: that a hook blocked something.
_BLOCKED = ("hook", "hooks", "pre-commit", "pre-push", "commit-msg")


@dataclass(frozen=True)
class Failure:
    """What a failed tool call says about itself."""

    tool: str
    command: str | None
    file: str | None
    error: str


def _checked(failure: Failure, sig: Sequence[str], text: str) -> bool:
    """Whether the gotcha ``text`` is about the checks ``sig`` names blocking what the failure
    ran: it names one of them, and a hook or the command's own verb (``commit``)."""
    held = set(moments.words(text))
    verbs = shape(failure.command)[1:]
    return bool(held & set(sig)) and any(w in held for w in (*_BLOCKED, *verbs))



def cause_words(failure: Failure) -> set[str]:
    """The words of why a summed-up failure failed (:func:`errorline.cause_of` its
    :func:`error_line`), without those naming the program; empty for any other failure."""
    return cause_of(error_line(failure.error) or "") - program_words(failure)


def same_cause(failure: Failure, spans: str, text: str) -> bool:
    """Whether a gotcha is about the cause of a summed-up failure (True for any other): the
    causes quoted in its spans (``spans``, one per line) and the failure's share more than half
    of the smaller; a gotcha quoting none says more than half of the failure's cause in
    ``text``. Two pushes git refused, one as the remote was ahead, one for a rule of the
    repository, share their summary and ``rejected``, not their fix."""
    cause = cause_words(failure)
    if not cause:
        return True
    theirs = {w for span in spans.split("\n") for w in cause_of(span)} - program_words(failure)
    if theirs:
        return 2 * len(cause & theirs) > min(len(cause), len(theirs))
    return 2 * len(moments.shared(cause, text)) > len(cause)


def shape(command: str | None, *, named: bool = False) -> list[str]:
    """The words of what a command runs (``uv run pytest -x tests/a.py`` -> ``pytest``,
    ``cd x; make 2>&1 | tail`` -> ``make``: :func:`commandline.runs` of its :func:`commandline.run_key`).
    ``named``: only the words before its first flag, as the injection log names it (a flag's
    value is no subcommand: ``sshpass -p PASS ssh`` is ``sshpass``, not its password)."""
    if not command:
        return []
    from vaultmem.mining.commandline import run_key, runs

    words = runs(run_key(command))[:3]
    if named:
        words = tuple(takewhile(lambda w: not w.startswith("-"), words))
    head = [w for w in words if not w.startswith("-")]
    while head and head[0] in ("uv", "run", "poetry", "npx", "python", "python3", "-m", "sudo",
                               "time", "bundle", "exec"):
        head = head[1:]
    return [w.casefold() for w in head[:2] if w.isidentifier() or w.replace("-", "").isalnum()]


def ran_in(command: str | None, cwd: str | None, home: str) -> str | None:
    """The folder a command went to run in (the ``cd`` of its shell prelude: ``cd ~/shop &&
    pytest``, :func:`commandline.prelude`), absolute: ``~`` read as ``home``, a relative one
    against where it was; None when it went nowhere (it ran in ``cwd``). No file system
    access."""
    from vaultmem.mining.commandline import prelude, unquoted, words

    folder = None
    for step in prelude(command or ""):
        found = words(step)
        if found[0] == "cd" and len(found) > 1:
            folder = _resolved(unquoted(found[1]), folder or cwd, home)
    return folder


def without_cd(command: str) -> str:
    """``command`` without the ``cd`` steps leading it (:func:`ran_in`): what ran there."""
    from vaultmem.mining.commandline import after, prelude

    steps = prelude(command)
    return after(command, next((n for n, s in enumerate(steps) if not s.startswith("cd ")),
                               len(steps)))


_WINDOWS_ROOT_RE = lazy(r"\A(?:[A-Za-z]:[\\/]|\\\\)")


def _resolved(target: str, at: str | None, home: str) -> str | None:
    if target == "~" or target.startswith(("~/", "~\\")):
        return posixpath.join(home, target[2:]) if len(target) > 2 else home
    if target.startswith("/") or _WINDOWS_ROOT_RE.match(target):
        return target
    if not at or target == "-":
        return None
    if _WINDOWS_ROOT_RE.match(at):
        from pathlib import PureWindowsPath

        return str(PureWindowsPath(at) / target)
    return posixpath.normpath(posixpath.join(at, target))


@dataclass(frozen=True)
class ErrorClass:
    """Errors that look different and have one root cause: ``test`` tells an error line of
    it, ``words`` find the gotchas recorded for any of them in the index."""

    name: str
    test: Callable[[str], bool]
    words: tuple[str, ...]


def _not_started(line: str) -> bool:
    from vaultmem.mining import notices

    return notices.not_started(line)


# The shell never started the command (notices.not_started): ``Command failed: cygpath -u …``,
# ``child_copy: cygheap read copy failed``, ``dofork: child -1``, STATUS_DLL_INIT_FAILED are one
# broken Git Bash, whatever command met it, so the fix of one is the fix of all.
CLASSES = (ErrorClass("the shell could not start the command", _not_started,
                      ("cygpath", "child_copy", "cygheap", "dofork", "status_dll_init_failed")),)


def error_class(error: str) -> ErrorClass | None:
    """The class of a failure's error (its :func:`error_line`), None when it has none."""
    line = error_line(error)
    return next((c for c in CLASSES if line and c.test(line)), None)


# What an error line says when the host lacks a terminal for a command (``sudo: a terminal is
# required to read the password``, ``no tty present``): no program is missing, a setup is.
_NO_TERMINAL_RE = lazy(r"\bterminal is required\b|\bno tty present\b|\bnot a tty\b",
                       re.IGNORECASE)


def host_wide(failure: Failure) -> bool:
    """Whether a failure is about the host's tools, not the project's files, so that its fix
    holds in any project of the machine: the shell could not start the command (an
    :data:`CLASSES` error), could not find its program (:func:`missing_program`, the one reading
    of it), or the error line says the host lacks a terminal. The hook then reads the gotchas
    of every project of the vault."""
    line = error_line(failure.error)
    return bool(line) and (error_class(failure.error) is not None or
                           missing_program(failure) is not None or
                           _NO_TERMINAL_RE.search(line or "") is not None)


def host_level(failure: Failure, text: str) -> bool:
    """Whether another project's gotcha ``text`` is a lesson about the host's tool a
    :func:`host_wide` failure met (its error's own words or class matched it: ``sudo``
    without a terminal, whatever ran under it), not about that project's work: it hands the
    person no command but the failing one (``For the person to run `sudo chown ./ci.yml```
    is that project's work, not a fix for ``sudo setcap``). The held-out part's labelled
    recurrences of sudo without a terminal across two projects need the rest told (a program
    test, ``apt`` for ``apt`` only, lost 2 of 3)."""
    if missing_program(failure) is not None or error_class(failure.error) is not None:
        return True
    from vaultmem.mining.fixes import state_key
    from vaultmem.mining.fold import DONE, HANDED

    if text.startswith((HANDED, DONE)):
        handed = _SPAN_RE.search(text)
        return handed is not None and state_key(handed.group(1)) == state_key(
            without_cd(failure.command or ""))
    return True


def quoted(text: str) -> str:
    """What the fact ``text`` quotes (its code spans: the error line, the command, as failfix,
    fixes and compaction quote them), one per line; an error's words found in its prose only
    (``.gitignore`` beside ``.gitleaksignore``) say the fact is about something else. A fact
    that quotes nothing states its error in words: then :data:`PROSE_WORDS` of them match.
    A command it quotes (before "failed", after "run"/"running") is read without the data its
    quoted arguments hand the program (:func:`commandline.without_data`: a commit message, an
    echo string): their words say nothing of the failure."""
    from vaultmem.mining.commandline import without_data

    spans: list[str] = []
    for found in _SPAN_RE.finditer(text):
        span = found.group(1)
        ran = text.startswith(" failed", found.end()) or text[:found.start()].endswith(
            (" run ", " running ", " ran "))
        spans.append(without_data(span) if ran and ("'" in span or '"' in span) else span)
    return "\n".join(spans)


def _classed(cls: ErrorClass, text: str) -> bool:
    """Whether the gotcha ``text`` was recorded for an error of ``cls``: one of its code spans
    (the failure's error line, as failfix and fixes quote it) is of the class."""
    return any(cls.test(span.strip()) for span in _SPAN_RE.findall(text))


def file_names(failure: Failure) -> list[str]:
    """The file a failure was about: its ``file_path``, else none."""
    if not failure.file:
        return []
    return [posixpath.basename(failure.file).casefold()]


def tier(failure: Failure, sig: Sequence[str], text: str,
         cls: ErrorClass | None | bool = True) -> int | None:
    """How the fact ``text`` matches the failure: 0 by error signature, 1 by command shape,
    2 by file, 3 by error class; None when it does not. ``cls``: the failure's error class
    when known (None: it has none), True to find it."""
    if (program := missing_program(failure)) is not None:
        return 0 if _names_missing(program, text) else None
    if sig and _signed_by_checks(failure):
        return 0 if _checked(failure, sig, text) else None
    from vaultmem.mining.fixes import RERUN

    # A command the shell never started and that passed when run again (fixes.rerun_text) says
    # nothing of the failure: its error alone is what matches.
    rerun = text.startswith(RERUN)
    spans = quoted(text.partition(" failed (")[2] if rerun else text)
    held = moments.shared(sig, spans or text)
    if held - program_words(failure) - place_words(failure) and same_cause(failure, spans, text):
        if len(held) >= min(len(sig), 2 if spans else PROSE_WORDS):
            return 0
        folded = "" if rerun else text.casefold()
        if (cmd := shape(failure.command)) and folded and all(w in folded for w in cmd):
            return 1
        if folded and any(name in folded for name in file_names(failure)):
            return 2
    if cls is True:
        cls = error_class(failure.error)
    return 3 if isinstance(cls, ErrorClass) and _classed(cls, text) else None


# What says a gotcha tells how its failure was got past, not only what it meant, read outside its
# quotes: the fixes capture writes (``Fixed by running``, ``Got it to run``, ``For the person to
# run``, ``Fixed by the person``), a fix named (``Fix:``, ``the fix``, ``workaround``, ``solved
# by``), a change to make (``use … instead``, ``Add … to``, ``install …``, ``needs …``). Plain
# string tests: a regex of them compiled in the hook cost it 5M instructions (bench.instructions).
_FIX_LEADS = ("fixed", "got it to run", "for the person to run")
_FIX_PHRASES = ("fix:", "fixed by", "fixed with", "fix by ", "fix with", "the fix", "worked around",
                "solved by", "resolved by", "solved with", "resolved with")
_FIX_WORDS = frozenset({"workaround", "solution", "instead", "must", "need", "needs", "require",
                        "requires"})
_DOING = frozenset({"add", "install", "set", "use", "run", "remove", "delete", "kill", "restart",
                    "export", "enable", "disable", "rebase", "pull", "readd", "re-add", "rerun",
                    "re-run", "rename", "upgrade", "downgrade", "pin", "chmod", "chown", "grant",
                    "exclude", "reinstall", "update"})
_PUNCT = str.maketrans({c: " " for c in ".,;:!?()[]{}\"'"})


def states_fix(text: str) -> bool:
    """Whether the gotcha ``text`` says how its failure was got past (the words above, read
    outside its code spans: the error it quotes says what failed, not what fixed it), not
    only what the error meant (``Win32 error 299 = ERROR_PARTIAL_COPY``) or what was tried
    next."""
    said = _SPAN_RE.sub(" ", text).strip().casefold()
    words = said.translate(_PUNCT).split()
    if words[:1] in (["option"], ["step"]) and words[1:2] and words[1].isdigit():
        words = words[2:]  # "Option 5: Add Git Bash to …" does what follows the label
    return said.startswith(_FIX_LEADS) or any(p in said for p in _FIX_PHRASES) or bool(
        _FIX_WORDS.intersection(words)) or (bool(words) and words[0] in _DOING)


REPEATS = 0.8  # of a fact's words in another's: the same lesson told twice


def distinct(found: Sequence[moments.Found]) -> tuple[list[moments.Found], dict[str, list[str]]]:
    """``found`` without the facts that repeat one before them (:data:`REPEATS` of the shorter's
    words in the longer: an entity's gotcha and its archived session's copy, cut to another
    length; one fix recorded for ``git commit`` and ``git pull``), and key -> the keys of the
    facts left out as its repeats."""
    kept: list[tuple[moments.Found, set[str]]] = []
    twins: dict[str, list[str]] = {}
    for item in found:
        held = set(moments.words(item.fact.text))
        twin = next((k for k, words in kept if held and words and
                     len(held & words) >= REPEATS * min(len(held), len(words))), None)
        if twin is None:
            kept.append((item, held))
        else:
            twins.setdefault(twin.fact.key, []).append(item.fact.key)
    return [item for item, _ in kept], twins


def missing_program(failure: Failure) -> str | None:
    """The program the shell could not find for a failure (``cargo`` of ``zsh: command not
    found: cargo``: :func:`notfound.missing_program`), None for any other failure."""
    from vaultmem.mining.notfound import missing_program as named

    return named(error_line(failure.error), failure.command)


# What a gotcha that quotes no error says of a program that is not there.
_NOT_THERE_RE = lazy(r"\b(?:not (?:found|installed|(?:on|in) (?:the |your )?\$?PATH)|missing|"
                     r"isn'?t installed|is not recogni[sz]ed)\b", re.IGNORECASE)


def _names_missing(program: str, text: str) -> bool:
    """Whether the gotcha ``text`` is about ``program`` not being found: an error line it quotes
    says so of that program (whichever command met it: ``cargo test`` is told the fix found for
    ``cargo build``), or, quoting no error line of a missing program, its prose names the
    program and says it is not there, outside what it quotes. A missing program is matched by
    its name only: two missing programs share every word of their error lines but the name."""
    from vaultmem.mining.notfound import missing_program as named

    spans = [named(span.strip()) for span in _SPAN_RE.findall(text)]
    if any(spans):
        return program in spans
    prose = _SPAN_RE.sub(" ", text)
    name = re.escape(program)
    return re.search(rf"(?<![\w./-]){name}(?![\w-])", prose, re.IGNORECASE) is not None and \
        _NOT_THERE_RE.search(prose) is not None


def program_words(failure: Failure) -> set[str]:
    """The words of a failure that say which program failed, not how: its command's shape and
    its error line's head (``npm ERR! code E404`` -> npm, err), with the exception class words
    (``PermissionError``, ``errno``) that any failure of that kind shares. A match needs a word
    besides these: two npm failures share ``npm ERR!`` and nothing else."""
    return set(shape(failure.command)) | speaker_words(error_line(failure.error) or "")


# A qualified name (``cosmic::app``, ``std::io::Error``): the module an error is in.
_QUALIFIED_RE = lazy(r"\b\w+(?:::\w+)+")


def place_words(failure: Failure) -> set[str]:
    """The words of the qualified names a failure's error line gives (``cannot find type
    `Message` in module `cosmic::app``` -> cosmic, app): where the error is, as a path is, not
    what it is. A match needs a word besides these: a fix recorded for ``cosmic::app::run``
    says nothing about a type missing from that module."""
    line = error_line(failure.error) or ""
    return {w for name in _QUALIFIED_RE.findall(line) for w in moments.words(name)}


def _signed_by_checks(failure: Failure) -> bool:
    """Whether ``sig`` names the checks a hook ran rather than an error line's words."""
    return not line_words(failure.error)


def terms(failure: Failure, sig: Sequence[str]) -> list[str]:
    """What the index is asked for a failure: its error class's words first (when it has a
    class), then its signature and its command's shape."""
    cls = error_class(failure.error)
    program = missing_program(failure)
    return list(dict.fromkeys([*(cls.words if cls else ()), *((program,) if program else ()),
                               *sig, *shape(failure.command)]))


def told(failure: Failure, found: Sequence[moments.Found], given: set[str],
         home: Sequence[str] | None = None) -> moments.Told | None:
    """The context for ``failure`` from the ``found`` gotchas, none given in this session yet;
    None when no fact matches. ``home``: the projects whose gotchas match by any tier (None:
    all); another project's (a :func:`host_wide` failure's) match only by the error's own
    words or its class, never by command shape or file alone."""
    sig = signature(failure.error)
    if not sig:
        return None
    from vaultmem.mining.fixes import RERUN

    ranked = []
    seen: set[str] = set()
    cls = error_class(failure.error)
    # "It passed when run again" is one lesson, said once a session, after any fix that names
    # a cause (a root cause beats a rerun, whichever matched more closely).
    rerun_given = any(key.startswith(RERUN.casefold()) for key in given)
    for n, item in enumerate(found):
        if item.fact.key in given or item.fact.key in seen:
            continue
        seen.add(item.fact.key)
        rerun = item.fact.text.startswith(RERUN)
        level = None if rerun and rerun_given else tier(failure, sig, item.fact.text, cls)
        if level is not None and home is not None and item.project not in (*home, "global") \
                and (level in (1, 2) or not host_level(failure, item.fact.text)):
            level = None
        if level is not None:
            rerun_given |= rerun
            # Of a class, the gotchas naming more of its words speak of its root cause more; a
            # gotcha saying how it was got past before one saying only what it meant, and an
            # entity's (filed, naming its session) before a session note's.
            ranked.append((rerun, level, not states_fix(item.fact.text),
                           -len(moments.shared(cls.words, item.fact.text))
                           if cls is not None and level == 3 else 0,
                           item.type not in ("entity", "topic"), n, item))
    if not ranked:
        return None
    ranked.sort(key=lambda r: r[:6])
    shown, twins = distinct([item for *_, item in ranked])
    text, keys = moments.fitted(HEAD, (
        (f"- {said} ({moments.source(item)})", item.fact.key) for item in shown[
            :FIXES_SHOWN] if (said := moments.quotable(item.fact.text, ITEM_CHARS))), MAX_CHARS)
    if not text:
        return None
    # A copy of a fact told (its archived session's, another session's same lesson) is given too.
    keys = (*keys, *(twin for key in keys for twin in twins.get(key, ())))
    what = code_span(command_shape(" ".join(shape(failure.command, named=True)) or failure.tool,
                                   40))
    why = ["error signature", "command shape", "file", "error class"][ranked[0][1]]
    if ranked[0][1] == 0 and missing_program(failure) is not None:
        why = "the program missing"
    elif ranked[0][1] == 0 and _signed_by_checks(failure):
        why = "the checks it ran"
    return moments.Told(text, keys, f"fix for a failure of {what}, matched by {why}")
