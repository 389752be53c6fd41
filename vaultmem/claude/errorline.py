"""A failed tool call's error, read for what tells it from another failure (pure).

- :func:`error_line`: the line capture records for it; one that only sums up (git's
  ``error: failed to push some refs``) with the lines above it that say why (``…; !
  [rejected] main -> main (fetch first)``: :func:`cause_of`).
- :func:`signature`: that line's own words, without the generic error vocabulary, who speaks
  (:func:`speaker_words`) or what varies between runs (paths, ids, hashes, dates:
  :data:`_VARYING_RE`).
  An error line that says nothing but who speaks and a path (``cat: '/sys/…/intel-rapl:0/
  energy_uj': Permission denied``) is signed by the path's last two parts too (its folder and
  name, without the system's folders: :func:`_path_words`), so a permission error on another
  file of the same kind (``…/intel-rapl:1/energy_uj``) shares it, one on any other file not.
- An output with no error line but the checks a hook runner ran (``gitleaks....Failed``, ``-
  hook id: ruff``, ``husky - pre-commit script failed``, ``Running gitleaks scan...``) is signed
  by their names (:func:`checks_named`); capture records such a failure by the line naming the
  check (:func:`check_line`), so its gotcha quotes it.
- A call refused by a rule or the person, or by a rule of Claude Code's own file tools
  (:data:`_TOOL_RULE_RE`: "File has not been read yet. Read it first before writing to it."),
  has no signature: the error says its own fix, and its words ("read", "first") matched gotchas
  about anything else.

The failure hook (``onfailure``) matches gotchas against these.
"""

from __future__ import annotations

import functools
import re

from vaultmem.notes.lazyre import lazy

from . import moments

# Words of error lines that say a command failed, not which failure it is.
_GENERIC = frozenset({
    "error", "errors", "exception", "failed", "failure", "fail", "fatal", "cannot", "could",
    "couldn", "unable", "found", "exit", "code", "such", "file", "directory", "line", "command",
    "denied", "permission", "refused", "invalid", "missing", "unknown", "undefined", "expected",
    "got", "status", "returned", "non-zero", "nonzero", "warning", "traceback", "most", "recent",
    "call", "last", "raise", "raised", "process", "module", "named", "import", "importerror",
    "modulenotfounderror", "type", "value", "key", "attribute", "object", "has", "have", "does",
    "the", "and", "for", "with", "from", "not", "while", "when", "near", "access", "operand",
    "try", "help", "information", "usage",
})

# What differs between two runs of one failure: paths (POSIX, Windows, home), hex addresses,
# hashes and ids (five digits or more), so they never make or break a match.
# Temporary names (``tmpa1b2c3``), short hashes (``def5678``) and ids mixing digits into
# letters (``bfc7fc2``, ``n2f9wd``, inside a name too: ``build_9z8y7x.sh``) vary too.
# Also what a redaction left (``[REDACTED_IP]``, ``‹redacted:password›``), ids (UUIDs), dates and
# times (``2026-01-14T11:05:21Z``, ``12:12PM``) and any word that starts with a digit: a size
# (``301.2KB``), a version, an address, a duration.
_VARYING_RE = lazy(r"\[REDACTED[\w-]*\]|\u2039redacted:[^\u203a\s]*\u203a|"
                   r"\b[0-9a-fA-F]{8}(?:-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}\b|"
                   r"\b\d{1,4}[-/:]\d{1,2}[-/:]\d{1,4}(?:[T ]?\d{1,2}:\d{2}(?::\d{2})?)?"
                   r"(?:[.,]\d+)?(?:Z|[+-]\d{2}:?\d{2})?|\b\d{1,2}:\d{2}(?:\s?[AaPp][Mm])?\b|"
                   r"(?:\b[A-Za-z]:|~)?(?:[\\/][^\s'\"`:,;()\\/]+)+[\\/]?|\b0x[0-9a-fA-F.x]+|"
                   r"\S*\d{5,}\S*|\b[0-9a-f]{8,}\b|\b(?=[0-9a-f]*[a-f])[0-9a-f]*\d[0-9a-f]*\b(?<=\w{7})|"
                   r"\btmp[\w.-]+|\b\d[\w.-]*|(?<![A-Za-z0-9])(?=[A-Za-z0-9]{6,}(?![A-Za-z0-9]))"
                   r"[A-Za-z]*\d+[A-Za-z]+\d[A-Za-z0-9]*")


def folded(text: str, mark: str = " ") -> str:
    """``text`` with what varies between two runs of one failure (:data:`_VARYING_RE`: paths,
    ids, short hashes, temporary names, dates, numbers) replaced by ``mark``."""
    return _VARYING_RE.sub(mark, text)


# What a hook runner prints for the checks it ran, when no line of the output is an error line:
# pre-commit's ``name.....Failed`` and ``- hook id: name``, husky's ``husky - pre-commit script
# failed``, lint-staged's ``✖ eslint --fix``, a hook script's own ``Running gitleaks scan...``.
_CHECK_FAILED_RE = lazy(
    r"^(?:(?P<name>[^\s.][^.\n]{0,60}?)\.{3,}\s*\(?[^)\n]*\)?\s*Failed\b|- hook id: (?P<id>\S+)|"
    r"husky - (?P<hook>[\w-]+) (?:hook|script)\b.*\b(?:failed|exited)|[\u2716\u2717\u00d7]\s+"
    r"(?P<tool>[\w.@/-]+))", re.IGNORECASE)
# The head of an error line that names who speaks, not what went wrong: ``npm ERR!``,
# ``sudo:``, ``E   ``, ``fatal:`` (a code such as ``error[E0599]:`` says what, so it is kept).
_HEAD_RE = lazy(r"\A\W*((?:[A-Za-z][\w.+-]*\s*){1,2})(?:!|:|\s{2,})")
_LEADERS_RE = lazy(r"\.{3,}")
_PATH_RE = lazy(r"(?:\b[A-Za-z]:|~|\.{1,2})?(?:[\\/][^\s'\"`:,;()\\/]+)+")
# Folders every machine has: a path's part that says nothing of what the file is.
_SYSTEM_FOLDERS = frozenset({"home", "users", "usr", "var", "etc", "tmp", "temp", "opt", "bin",
                             "lib", "sys", "proc", "dev", "local", "share", "mnt", "root"})
_CHECK_RUNNING_RE = lazy(r"^\W*Running (?P<name>[\w.-]+)")
# Claude Code's file tools refusing a call by their own rules (2.1's wording), not a failure of
# the project or the machine.
_TOOL_RULE_RE = lazy(
    r"\A\W*(?:<tool_use_error>\s*)?(?:File has not been read yet\b|File has been modified since "
    r"read\b|String to replace not found in file\b|Found \d+ matches of the string to replace\b|"
    r"No changes to make: old_string and new_string are exactly the same\b|"
    r"InputValidationError\b)", re.IGNORECASE)
HEADER_LINES = 3  # of an output, read for the check a hook script says it runs
CHECKS_NAMED = 3
# Words a check's name shares with any failure: they name no check.
_NOT_A_CHECK = frozenset({"test", "tests", "check", "checks", "hook", "hooks", "build", "lint",
                          "script", "scripts", "task", "tasks", "command", "all", "files"})


def signature(error: str) -> list[str]:
    """The error line's own words: those that tell this failure from another of the same
    command (no generic error vocabulary, no exit code, nothing that varies between runs);
    when it has none, the program the shell could not find (``sh: 1: rg: not found``), else
    the names of the checks a hook runner ran (:func:`checks_named`: ``Exit code 1``, ``Found 1
    error.``); none for a rule of Claude Code's file tools."""
    if _TOOL_RULE_RE.match(error) is not None or _refused(error):
        return []
    words = line_words(error)
    if words:
        return words
    from vaultmem.mining.notfound import missing_program as named

    # ``sh: 1: rg: not found``: no word of three letters but the program's name.
    program = named(error_line(error))
    return [program] if program else checks_named(error)


def _refused(error: str) -> bool:
    """Whether the call never ran by a rule or a person's say (a permission denied, a tool use
    the person rejected or interrupted, a file too big to read), not because the machine could
    not start it: two refusals share their wording, not a cause."""
    from vaultmem.mining import notices

    denied = notices.denial(error)
    return denied is not None and not notices.not_started(denied)


def line_words(error: str) -> list[str]:
    line = error_line(error)
    if line is None or line.startswith("Exit code"):
        return []
    words = [w for w in moments.words(folded(_LEADERS_RE.sub(" ", line)))
             if w not in _GENERIC and not w.startswith("/")]
    if len(set(words) - speaker_words(line)) < 2:
        # "cat: '/sys/…/intel-rapl:0/energy_uj': Permission denied" says nothing but the path:
        # the kind of file it is about (its folder and name) tells this failure from another.
        words += [w for w in _path_words(line) if w not in words]
    return words


def speaker_words(line: str) -> set[str]:
    """The words of an error line that say who speaks (``cat:``, ``npm ERR!``, ``EACCES:``,
    ``PermissionError``), not what went wrong."""
    head = _HEAD_RE.match(line)
    found = set(moments.words(head.group(1))) if head is not None else set()
    found.update(w for w in moments.words(line) if w.endswith(("error", "exception")) or
                 w in ("err", "errno"))
    return found


def _path_words(line: str) -> list[str]:
    """The words of the last two parts of each path an error line names (``…/intel-rapl:0/
    energy_uj`` -> intel-rapl, energy_uj), without the system's own folders and what varies
    between runs (numbers, ids, temporary names)."""
    found: list[str] = []
    for path in _PATH_RE.findall(line):
        parts = [p for p in re.split(r"[\\/]", path) if p not in ("", ".", "..", "~")][-2:]
        for part in parts:
            found += [w for w in moments.words(folded(part))
                      if w not in _SYSTEM_FOLDERS and w not in _GENERIC]
    return list(dict.fromkeys(found))


def checks_named(output: str) -> list[str]:
    """The names of the checks a failed output says failed (``gitleaks....Failed``, ``- hook
    id: ruff``), else of those its first lines say it runs (``Running gitleaks scan...``);
    [] when it names none."""
    names = [w for _, name in _check_lines(output) for w in moments.words(name)]
    return [w for w in dict.fromkeys(names) if _names_a_check(w)][:CHECKS_NAMED]


def check_line(output: str) -> str | None:
    """The first line of a failed output that names a check a hook runner ran (as
    :func:`checks_named` reads them), escapes removed; None when none does. Capture records it
    for a failure with no error line, so that its gotcha quotes the check (``Running gitleaks
    scan...``) rather than ``Exit code 1``."""
    return next((line for line, name in _check_lines(output)
                 if any(_names_a_check(w) for w in moments.words(name))), None)


def _names_a_check(word: str) -> bool:
    return word not in _NOT_A_CHECK and word not in _GENERIC and not word.isdigit()


def _check_lines(output: str) -> list[tuple[str, str]]:
    """(line, the check's name) of each line saying a check failed, else of each of the first
    lines saying one runs."""
    from vaultmem.notes.inline import without_escapes

    failed: list[tuple[str, str]] = []
    running: list[tuple[str, str]] = []
    lines = [ln.strip() for ln in without_escapes(output).splitlines()]
    header = [ln for ln in lines if ln and not ln.startswith("Exit code")][:HEADER_LINES]
    for line in lines:
        found = _CHECK_FAILED_RE.match(line)
        if found is not None:
            failed.append((line, next(g for g in found.groups() if g)))
    for line in header:
        found = _CHECK_RUNNING_RE.match(line)
        if found is not None:
            running.append((line, found.group("name")))
    return failed or running


CAUSE_SEP = "; "  # between an error line and the lines above it that say why (toolresults)


def summary_line(line: str | None) -> bool:
    """Whether an error line only sums up that the command failed (git's ``error: failed to
    push some refs``: :func:`toolresults.summary_line`)."""
    from vaultmem.mining import toolresults

    return toolresults.summary_line(line)


@functools.lru_cache(maxsize=16)  # a failure's line is asked for once per gotcha weighed
def error_line(error: str) -> str | None:
    """The line capture records for a failure: the shell's own when the machine never started
    the command (Git Bash's fork failed: what any command printed after it says less), else the
    tool's first error line (:func:`toolresults.failure`), followed by the lines above it that
    say why when it only sums up (:func:`summary_line`), as capture records it: two pushes
    git refused for different causes share their summary line, not their fix."""
    from vaultmem.mining import notices, toolresults

    denied = notices.denial(error)
    if denied is not None and notices.not_started(denied):
        return denied
    line = toolresults.failure(error, True, lambda text: text)[1]
    if summary_line(line):
        line = toolresults.failure(error, True, lambda text: text, said_before=True)[1]
    return line


# A name mapped to a name (git's ``main -> main``, a rename): which ones varies between runs.
_MAPPED_RE = lazy(r"\S+\s+->\s+\S+")


def cause_of(line: str) -> set[str]:
    """The words of what a summed-up error line says why (what follows its summary) that the
    summary does not say; empty for any other line."""
    if not summary_line(line) or CAUSE_SEP not in line:
        return set()
    head, cause = line.split(CAUSE_SEP, 1)
    said = set(moments.words(folded(head)))
    cause = folded(_MAPPED_RE.sub(" ", cause))
    return {w for w in moments.words(cause) if w not in said and w not in _GENERIC}

