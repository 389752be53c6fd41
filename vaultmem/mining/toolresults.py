"""A tool's output -> whether it failed and the line that says why (pure).

A command failed when Claude Code says so (``is_error``) or its ``Exit code`` is not 0. The line
that says why is its first error line (pytest, Python, compilers, npm, Go, Rust, Elixir), else a
Unix tool's diagnostic, else its last line when that one reads as a verdict, else its exit code;
never its first line, which is progress ("Checking 3 source files ...") as often as not.
"""

from __future__ import annotations

import re

from vaultmem.notes.inline import without_escapes
from vaultmem.notes.lazyre import lazy
from vaultmem.notes.privacy import strip_private, strip_wrappers
from vaultmem.notes.redact import Scrub

ERROR_MAX_CHARS = 200

# Compiled on first use (lazyre): a read whose lines were all recorded already needs none.
_EXIT_RE = lazy(r"\AExit code (\d+)")
_TAGS_RE = lazy(r"</?[\w-]+>")
# Lines that say a command failed (anchored at the line start, so that grep output quoting
# "Error" in a source line does not count): pytest, Python, compilers, npm, Go, Rust, Elixir,
# hook runners.
_ERROR_LINE_RE = lazy(
    r"^(?:FAILED\b|ERROR\b|E {2,}\S|[\w.]*(?:Error|Exception)\b|error(?:\[\w+\])?:|fatal:|"
    r"\*\* \([\w.]+\)|"
    r"npm ERR!|panic:|--- FAIL|FAIL\b|=+ .*\b\d+ (?:failed|errors?)\b|"
    # A hook runner's check that failed (pre-commit: ``ruff.........Failed``).
    r"[^\s.][^.\n]{0,60}?\.{3,}\s*(?:\([^)\n]*\)\s*)?Failed\s*$)"
)
# A Unix tool's diagnostic ("ps: unrecognized option: a", "ssh: Could not resolve hostname …")
# or a failure said in words anywhere in a line: the error line when no line above matches.
_TOOL_DIAGNOSTIC_RE = lazy(
    r"^[\w.+-]+: .*\b(?:not found|no such|unrecognized|invalid|illegal|cannot|can't|could not|"
    r"couldn't|unable|denied|refused|timed out|not known|unknown|failed|error|not permitted|"
    r"missing|required|usage)\b|\b(?:command not found|No such file or directory|Permission denied|"
    r"Connection refused|connection timed out|Could not resolve|is not recognized as)\b|"
    # A tool's own explanation over the list of what it refused ("The following paths are
    # ignored by one of your .gitignore files:"): the list and its hints say less.
    r"^The following\b.{0,160}:$",
    re.IGNORECASE,
)
# The last line of a failed command is its verdict only when it says something went wrong
# ("Found 1 issue.", "2 files would be reformatted"); a header or a value is no verdict.
_VERDICT_RE = lazy(
    r"\b(?:fail\w*|errors?|issues?|problems?|violations?|warnings?|would|not|no|cannot|can't|"
    r"invalid|missing|denied|refused|reject\w*|unable|abort\w*|timed out|unknown|undefined|"
    r"expected)\b",
    re.IGNORECASE,
)
_TRACEBACK = "Traceback (most recent call last)"
# Progress a tool prints before its verdict ("Checking 3 source files ..."), or advice after it:
# never the reason.
_PROGRESS_RE = lazy(
    r"^(?:Checking|Compiling|Analy[sz]ing|Running|Building|Downloading|Resolving|Installing|"
    r"Collecting|Loading|Starting|Fetching|Generated|Finished|Scanning|Linting|Formatting)\b|"
    r"^hint:"  # git's advice after its verdict ("hint: Use -f if you really want to add them.")
)


# Lines said just before the error line that are read for what it failed on (see ``failure``).
BEFORE_LINES = 2
CAUSE_SEP = "; "  # between a summing-up error line and the lines above it that say why
# An error line that says the command as a whole failed and leaves why to the lines above it:
# git's ``error: failed to push some refs to …`` (above: ``! [rejected] main -> main (fetch
# first)`` or ``! [remote rejected] … (push declined due to repository rule violations)``), pip's
# ``error: subprocess-exited-with-error``, cargo's ``… due to 2 previous errors``.
_SUMMARY_RE = lazy(r"\A\W*error: (?:failed to push some refs\b|subprocess-exited-with-error\b|"
                   r"could not compile\b.*\bdue to \d+ previous errors?\b)", re.IGNORECASE)


def summary_line(line: str | None) -> bool:
    """Whether an error line only sums up that the command failed (:data:`_SUMMARY_RE`)."""
    return bool(line) and _SUMMARY_RE.match(line or "") is not None


def failure(output: str, is_error: bool, scrub: Scrub, *,
            said_before: bool = False) -> tuple[bool, str | None]:
    """(whether a tool result says it failed, its first error line or None, redacted by
    ``scrub``, one line of at most ERROR_MAX_CHARS).

    ``said_before``: the error line is followed (after ``"; "``) by the lines just above it that
    say in words what failed, as far as they fit: a summary such as git's ``error: failed to
    push some refs`` says that something failed, the line above it (``! [rejected] main ->
    main (fetch first)``) what and why."""
    exit_code = _EXIT_RE.match(output)
    failed = is_error or (exit_code is not None and exit_code.group(1) != "0")
    first_error: str | None = None
    diagnostic: str | None = None  # the first line saying in words that something failed
    verdict: str | None = None  # the last line that is not progress: a tool's summary
    above: list[str] = []  # the last lines read before the error line
    # A terminal's colours (``\x1b[31m``) would hide an error line's start from the patterns.
    for line in without_escapes(strip_wrappers(strip_private(output))).splitlines():
        line = _TAGS_RE.sub("", line).strip()
        if not line or _EXIT_RE.match(line):
            continue
        if line.startswith(_TRACEBACK):
            first_error = first_error or line  # the exception line below it says more
            continue
        if _ERROR_LINE_RE.match(line):
            if said_before and not first_error:
                first_error = _with_cause(line, above)
            else:
                first_error = line
            break
        above = [*above[1 - BEFORE_LINES:], line]
        if failed and diagnostic is None and _TOOL_DIAGNOSTIC_RE.search(line):
            diagnostic = line
        if not _PROGRESS_RE.match(line):
            verdict = line
    if exit_code is not None and verdict is not None and not _VERDICT_RE.search(verdict):
        verdict = None  # "=== dnsmasq.d/ ===" or an address printed before the failing step
    # A failure without an error line: a diagnostic, the tool's last word (its summary), else
    # its exit code; never its first line, which is progress ("Checking 3 source files ...")
    # as often as not.
    fallback = diagnostic or verdict or (f"Exit code {exit_code.group(1)}" if exit_code else None)
    error = first_error or (fallback if failed else None)
    error = scrub(error) if error is not None else None
    if error is not None and len(error) > ERROR_MAX_CHARS:
        error = error[: ERROR_MAX_CHARS - 1].rstrip() + "…"
    return failed, error


def _with_cause(error: str, above: list[str]) -> str:
    """The error line, then those of the lines just above it (nearest last) that say in words
    something went wrong and are no progress, while the whole fits ERROR_MAX_CHARS."""
    said = [line for line in above if _VERDICT_RE.search(line) and not _PROGRESS_RE.match(line)]
    out = error
    for line in said:
        line = " ".join(line.split())
        if len(out) + len(CAUSE_SEP) + len(line) > ERROR_MAX_CHARS:
            out, line = shortened(out), shortened(line)  # the URL pushed to says no why
            if len(out) + len(CAUSE_SEP) + len(line) > ERROR_MAX_CHARS:
                break
        out += CAUSE_SEP + line
    return out


# A path or URL of three parts or more (``/home/dev/.cache/x/y.py``, ``https://host/org/r.git``,
# ``C:\Users\me\x``): its last two parts say which file; the folders before them vary.
_LONG_PATH_RE = lazy(r"\b[A-Za-z][\w+.-]*://[^\s'\"`/]+(?:/[^\s'\"`/]+){2,}|"
                     r"(?<![\w.:/\\])(?:[A-Za-z]:|~)?(?:[\\/][^\s'\"`\\/]+){3,}")
_PARTS_RE = lazy(r"[\\/][^\s'\"`\\/]+")


def shortened(line: str) -> str:
    """``line`` with each long path or URL in it shortened to ``…`` and its last two parts
    (``cat: '…/intel-rapl:0/energy_uj': Permission denied``): what tells one failure from
    another (the words, the file's folder and name) kept in less room."""
    return _LONG_PATH_RE.sub(lambda m: "\u2026" + "".join(_PARTS_RE.findall(m.group(0))[-2:]),
                             line)
