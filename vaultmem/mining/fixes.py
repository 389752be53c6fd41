"""A command that failed and later passed: was something fixed, and what? (pure)

Capture turns "failed, then passed" into a gotcha only when the change in between plausibly
fixed it (DESIGN §10: a fix is credited only to a change that plausibly caused it):

- the same command passing with an environment variable set inline (``REDIS_URL=… pytest``
  after ``pytest``) was fixed by that variable, whatever was edited meanwhile;
- otherwise an edit counts only when it touched what the failing command ran or what its error
  names: a file, folder, module or test name shared by the edited path and the command or its
  error line (``pytest tests/test_billing.py`` and ``src/billing/webhook.py``; an error naming
  ``InvoiceRenderer`` and ``lib/shop/invoice_renderer.ex``). Only those edits are named;
- a command run in between that changed the setup (``uv add x``, ``git pull``) or worked on a
  file the failing command ran or its error names (``dos2unix scripts/x.sh`` after ``./scripts/x.sh``
  failed with ``bad interpreter: /bin/bash^M``), when no edit explains it;
- the next run of the same program and subcommand passing with a long option the failed one
  lacked, one its error names or one that skips a step (``git commit --no-gpg-sign`` after ``git
  commit`` failed with ``gpg failed to sign the data``; ``--no-verify``): :func:`retry_text`;
- a check that only reports (linters, formatters, type checkers), git and file inspection
  (``git push`` without an upstream, ``cat`` of an output file not written yet) never make one,
  except a git command that a git command changing the setup in between fixed (``git push``
  rejected, ``git pull``, ``git push``);
- nor does a compiler's diagnostic on code being written (``error[E0412]: cannot find type``)
  that edits of source files cleared: an edit of the build's setup (``Cargo.toml``) still does
  (:mod:`diagnostics`).

Runs of one command are matched by :func:`commandline.run_key`: inline variables, a leading ``cd … &&`` and
a trailing ``2>&1 | tail -n 20`` do not make another command.
"""

from __future__ import annotations

import functools
import posixpath
import re
from collections.abc import Sequence
from dataclasses import dataclass

from vaultmem.mining import commandline, diagnostics
from vaultmem.notes.inline import clip, code_span, one_line
from vaultmem.notes.lazyre import lazy

from .mentions import path_keys, text_keys

FILES_SHOWN = 5
ERROR_CHARS = 160  # of the error a fix's gotcha shows
KEY_ERROR_CHARS = 120  # of the error two fixes of one failure are compared by (a shown one is cut)


@dataclass(frozen=True)
class Run:
    """One run of a command: where it happened in the read, how it ended."""

    number: int  # event number in the read; -1 for a failure an earlier hook recorded
    failed: bool
    error: str | None
    command: str  # as shown in the note (one line)


# Version control and its forge: their commands are work on the repository, not a fix of a file.
_FORGES = frozenset({"gh", "git"})
# A first word (after ``uv run``, ``npx``…) whose failure then pass is never a fix worth keeping.
_CHECKS = frozenset({
    "ruff", "flake8", "pylint", "black", "isort", "mypy", "pyright", "eslint", "prettier",
    "stylelint", "rubocop", "golangci-lint", "gofmt", "goimports", "shellcheck", "markdownlint",
    "tsc", "credo", "git", "gh", "ls", "cat", "head", "tail", "stat", "test", "wc", "grep", "rg",
    "find", "diff", "which", "echo", "pwd", "sleep", "kill", "pkill", "ps", "mkdir", "rm", "cp",
    "mv", "touch", "chmod", "[", "true", "false", "file", "tree", "du", "df",
})
_CHECK_PAIRS = frozenset({
    ("mix", "format"), ("mix", "credo"), ("mix", "dialyzer"), ("cargo", "fmt"),
    ("cargo", "clippy"), ("go", "vet"), ("npm", "lint"), ("yarn", "lint"), ("pnpm", "lint"),
    ("npm", "format"), ("yarn", "format"), ("pnpm", "format"), ("bun", "lint"),
})
_RUNNERS = ("uv run", "poetry run", "pipenv run", "npx", "bunx", "pnpm exec", "bundle exec",
            "python -m", "python3 -m", "npm run", "yarn run", "pnpm run", "time", "sudo", "nice")


def state_key(command: str) -> str:
    """What makes two runs one check for whether it still fails: :func:`commandline.run_key`, read with the
    shell's quoting, without a runner before it (``uv run``, ``poetry run``, ``npx``…): a
    failure of ``pytest -q`` is passed by ``uv run pytest -q``."""
    key = commandline.run_key(command)
    words = _words(key)
    if words is None:
        return key
    while True:
        for runner in _RUNNERS:
            parts = runner.split()
            if len(words) > len(parts) and [w.casefold() for w in words[: len(parts)]] == parts:
                words = words[len(parts):]
                break
        else:
            return " ".join(words)


def passes(command: str) -> frozenset[str]:
    """The state keys a command that passed passes: its own, and each part of the ``&&`` chain
    it ends with (``docker compose up -d db && pytest -q`` passed, so did ``pytest -q``; after
    ``;`` or ``||`` only the last part's status is the command's)."""
    keys = {state_key(command)}
    parts = commandline.commands(commandline.run_key(command))
    # The last part's status is the command's (unless ``||`` ran it only when the one before
    # failed); a part ``&&`` joins to a part that ran passed too.
    last = len(parts) - 1
    if parts[last][1] == "||":
        return frozenset(keys)
    keys.add(state_key(parts[last][0]))
    for n in range(last - 1, -1, -1):
        if parts[n + 1][1] != "&&":
            break
        keys.add(state_key(parts[n][0]))
    return frozenset(keys)


# A session runs the same commands again and again (state_key, passes and retry_key each read
# every run): a command line is read once.
@functools.lru_cache(maxsize=1024)
def stages(command: str) -> tuple[tuple[tuple[str, ...], ...], ...]:
    """The command line's commands (between ``&&``, ``;``…), each its pipeline's stages, each
    stage its words as the program gets them (:mod:`commandline`'s one reading, quotes taken
    off). A command of several lines is recorded by its first (``git commit -m "$(cat <<'EOF'
    …``), which leaves its quote open: the words before it (``--no-verify``) count."""
    found: list[tuple[tuple[str, ...], ...]] = []
    for part, sep in commandline.commands(command):
        stage = tuple(commandline.unquoted(w) for w in commandline.words(part))
        if sep == "|" and found:
            found[-1] = (*found[-1], stage)
        else:
            found.append((stage,))
    return tuple(found)


def _head(command: str) -> list[str]:
    """The words of a command line's first command (after :func:`commandline.run_key`), quotes read."""
    return list(stages(commandline.run_key(command))[0][0])


def _words(command: str) -> list[str] | None:
    """A simple command's words (quotes read), None when it holds a separator or a pipe."""
    found = stages(command)
    return list(found[0][0]) if len(found) == 1 and len(found[0]) == 1 else None


def env_names(command: str) -> tuple[str, ...]:
    """The environment variables a command sets inline (``A=1 B=2 pytest`` -> A, B)."""
    names: list[str] = []
    text = command.strip()
    while True:
        match = commandline.ENV_ASSIGN.match(text)
        if match is not None:
            names.append(match.group(1))
            text = text[match.end():]
            continue
        steps = commandline.prelude(text)  # ``cd x && export A=1 &&``: the variables it sets
        if not steps:
            return tuple(names)
        for step in steps:
            step += " "
            while (match := commandline.ENV_ASSIGN.match(step)) is not None:
                names.append(match.group(1))
                step = step[match.end():]
        text = commandline.without_prelude(text)


# A first word whose non-zero exit says "not there" (no match, no such file, no such process,
# the files differ), not that something is broken.
_LOOKUPS = frozenset({
    "grep", "egrep", "fgrep", "rg", "ag", "find", "fd", "ls", "cat", "head", "tail", "less",
    "which", "type", "whereis", "command", "test", "[", "[[", "stat", "file", "wc", "ps",
    "pgrep", "diff", "cmp", "readlink", "realpath", "tree", "du", "lsof", "echo", "pwd",
    "findstr",
})

# A query of a service's or tool's state (``tailscale status``, ``systemctl status x``,
# ``systemctl is-active x``, ``docker ps``): its non-zero exit reports the state ("stopped",
# "inactive", "daemon not reachable"), which the session read and acted on; re-running it
# repairs nothing, so it is no broken work to pick up, like a look-up that found nothing.
_STATE_QUERIES = frozenset({"status", "is-active", "is-enabled", "is-failed"})
_LISTINGS = frozenset({("docker", "ps"), ("podman", "ps")})


def _reports_only(program: tuple[str, str] | None) -> bool:
    """Whether a program (its first two words) only looks up or reports a state; an empty
    command does nothing either."""
    return program is None or program[0] in _LOOKUPS or program[1] in _STATE_QUERIES \
        or program in _LISTINGS


def _program(command: str) -> tuple[str, str] | None:
    """The command's first two words (after ``uv run``, ``npx``…), case-folded; None if empty."""
    words = _unrun(_head(command))
    if not words:
        return None
    second = words[1].casefold() if len(words) > 1 else ""
    return posixpath.basename(words[0]).casefold(), second


def checks_only(command: str) -> bool:
    """Whether the command only checks or inspects (lint, format, types, git, files)."""
    program = _program(command)
    if program is None:
        return True
    first, second = program
    if first in _CHECKS or first.endswith(("lint", "fmt")):
        return True
    return (first, second) in _CHECK_PAIRS or (first, second.split(":")[0]) in _CHECK_PAIRS


def looks_up_only(command: str) -> bool:
    """Whether the command only looks something up (``grep``, ``ls``, ``which``, ``ps``…) or
    queries a state (``tailscale status``, ``docker ps``): its failure means "not found" or
    reports the state, which is no broken work for the next session to pick up. So
    does a pipeline ending in a lookup (``ps | grep x``, also run remotely: ``ssh host "… | grep
    x"``): its exit status is its last command's."""
    return all(_looks_up(found) for found in stages(command))


def _looks_up(stages: Sequence[Sequence[str]]) -> bool:
    last = stages[-1]
    if len(stages) > 1:  # ``cat deploy.env | xargs ./deploy.sh`` does work; ``… | grep x`` looks
        return bool(last) and posixpath.basename(last[0]).casefold() in _LOOKUPS
    if len(last) > 2 and posixpath.basename(last[0]).casefold() == "ssh" and " " in last[-1]:
        return looks_up_only(last[-1])  # ``ssh host "…"``: the remote command's status
    program = _program(" ".join(last))
    return _reports_only(program) or (program is not None and program[0] == "cd")


def plausible(edited: Sequence[str], command: str, error: str | None) -> list[str]:
    """The edited paths that share a name with what the command ran or its error names."""
    wanted = text_keys(commandline.run_key(command)) | text_keys(error or "")
    return [path for path in edited if path_keys(path) & wanted]


# A gotcha the fix texts write: "Fixed by running `fix`: `command` failed (`error`)", the fix
# first so a line cut to length keeps it; and as they wrote it before, "`command` failed
# (`error`); it passed …" (spans as code_span makes).
_FIX_LINE_RE = lazy(r"\A(?P<fix>(?:Fixed|Got it to run) (?:by running|by editing|with) .+?: )?"
                    r"(`+) ?(?P<command>.+?) ?\2 failed(?: \((`+) ?(?P<error>.+?) ?\4\))?"
                    r"(?(fix)|; it passed )")
# Words of an error that differ between runs of one failure: ids, numbers, file names, paths
# (POSIX and Windows ones).
_VARYING_WORD_RE = lazy(r"\S*[\d./\\]\S*")


def failure_key(text: str) -> str | None:
    """What makes two failure-then-fix gotchas one lesson: the command as :func:`commandline.run_key` sees
    it and its error without the words that vary between runs (ids, numbers, file names); None
    for a text :func:`fix_text` did not write. The fix is left out: the second time the same
    failure passes, the files edited on the way differ, the lesson does not. A command the
    shell never started that passed when rerun (:data:`RERUN`) is one lesson per error,
    whatever the command was."""
    found = _FIX_LINE_RE.match(text)
    if found is None:
        return None
    if found.group("fix") == f"{RERUN}: ":  # the shell's failure: whatever command met it
        return f"\n{error_key(found.group('error'))}"
    return f"{commandline.run_key(found.group('command'))}\n{error_key(found.group('error'))}"


# Words of a command that changes the machine's setup (``pip install x``, ``uv sync``, ``git
# config …``, ``git restore --staged x``, ``chmod +x``, ``docker compose up -d``).
_SETUP_WORDS = frozenset({
    "install", "add", "sync", "config", "set", "enable", "start", "up", "init", "chmod",
    "chown", "ln", "export", "restore", "reset", "unset", "mkdir", "createdb", "migrate",
    "login", "activate", "source", "link", "setx", "add-mppreference", "pull", "fetch",
})
# A path in a command or an error line: a word with a folder (``scripts/x.sh``) or an extension.
_PATH_RE = lazy(r"[\w.~-]*(?:/[\w.~-]+)+|[\w~-][\w.~-]*\.[A-Za-z][\w]{0,7}\b")
# A long option that skips a step of the command (a hook, signing, a check) rather than tuning it.
_SKIP_OPTION_RE = lazy(r"\A--(?:no|skip|ignore|without)-[\w-]+\Z")


def setup_command(command: str) -> bool:
    """Whether a command changes the setup (installs, configures, starts, unstages) in its
    first words, rather than looking something up or running the work."""
    words = [w.casefold() for w in _unrun(_head(command))[:3]]
    return bool(words) and not looks_up_only(command) and any(w in _SETUP_WORDS for w in words)


def _unrun(words: list[str]) -> list[str]:
    """A command's words without the runner before the program (``python -m pip install`` ->
    ``pip install``)."""
    for runner in _RUNNERS:
        parts = runner.split()
        if [w.casefold() for w in words[: len(parts)]] == parts:
            return words[len(parts):]
    return words


def file_stems(text: str) -> set[str]:
    """The names of the files a command or an error line names by a path (their stems, as
    matching sees them): ``./scripts/update_username.sh`` -> ``updateusername``."""
    stems: set[str] = set()
    for path in _PATH_RE.findall(text):
        if path.startswith("/dev/"):
            continue
        last = path.replace("\\", "/").rstrip("/").rsplit("/", 1)[-1]
        stems |= path_keys(last)
    return stems


def works_on(command: str, failed: Run) -> bool:
    """Whether ``command`` (run after ``failed``) did something to a file the failed command
    ran or its error names, rather than looking it up or committing it."""
    program = _program(command)
    if program is None or program[0] in _FORGES or looks_up_only(command):
        return False
    named = file_stems(commandline.run_key(failed.command)) | file_stems(failed.error or "")
    return bool(file_stems(commandline.run_key(command)) & named)


def _tool(command: str) -> str:
    """The program a command runs (after ``cd … &&``, variables and runners), case-folded."""
    program = _program(command)
    return program[0] if program else ""


def _failure(failed: Run, command: str | None = None) -> str:
    """"`command` failed (`error`)", the error cut to ERROR_CHARS (:func:`error_quote`): what a
    fix's gotcha says after the fix, so that a line cut to length loses the end of the error,
    not the fix."""
    why = f" ({code_span(error_quote(failed.error, ERROR_CHARS))})" if failed.error else ""
    return f"{code_span(command or failed.command)} failed{why}"


_SAME_MAPPED_RE = lazy(r"(?<!\S)(\S+) -> \1(?!\S)")  # git's ``main -> main``: one name
CAUSE_MIN_CHARS = 40  # of a summing-up error line left before the cause its quote keeps


def error_quote(error: str | None, max_chars: int) -> str:
    """An error line as a gotcha quotes it, one line of at most ``max_chars``. When it is longer,
    what the failure hook matches a later failure by (its words, the last two parts of a path it
    names, the cause after a summing-up line) is kept and the rest goes first: a long path or
    URL is shortened to ``…/`` and its last two parts, then the summing-up part before the
    cause (``error: failed to push some refs to …; ! [remote rejected] … (push declined due to
    repository rule violations)``) is cut, then the end."""
    from vaultmem.mining.toolresults import CAUSE_SEP, shortened, summary_line

    line = one_line(error or "")
    if len(line) <= max_chars:
        return line
    line = _SAME_MAPPED_RE.sub(r"\1", shortened(line))
    head, sep, cause = line.partition(CAUSE_SEP)
    if len(line) > max_chars and sep and summary_line(head):
        room = max(max_chars - len(cause) - len(sep), CAUSE_MIN_CHARS)
        line = f"{clip(head, room)}{sep}{cause}"
    return clip(line, max_chars)


def fix_text(failed: Run, passed: Run, edited: Sequence[str], ran: Sequence[str] = ()
             ) -> str | None:
    """The gotcha ``failed`` then ``passed`` make, ``edited`` being the paths edited in
    between (in order) and ``ran`` the commands that passed in between; None when nothing in
    between plausibly fixed it: an edit of what it ran or names, or a command that changed
    the setup (:func:`setup_command`) or worked on such a file (:func:`works_on`)."""
    other = [c for c in dict.fromkeys(ran) if state_key(c) != state_key(failed.command)]
    if checks_only(failed.command):
        # (Staging files fixes no git command: ``git add`` is work, not setup, here.)
        fixed_by = [c for c in other if setup_command(c) and _tool(c) == _tool(failed.command)
                    == "git" and (_program(c) or ("", ""))[1] != "add"]
        if not fixed_by:
            return None
        return f"Fixed by running {_shown(fixed_by[-1], failed)}: {_failure(failed)}"
    added = [n for n in env_names(passed.command) if n not in env_names(failed.command)]
    if added:
        names = ", ".join(code_span(n) for n in added)
        return f"Fixed with {names} set: {_failure(failed)}"
    if (dropped := _dropped(failed, passed)) is not None:
        return f"Fixed by running it without {code_span(dropped)}: {_failure(failed)}"
    files = plausible(edited, failed.command, failed.error)
    setup = [c for c in other if _tool(c) not in _FORGES
             and (setup_command(c) or works_on(c, failed))]
    if not files and setup:
        named = ", ".join(_shown(c, failed) for c in setup[:FILES_SHOWN])
        return f"Fixed by running {named}: {_failure(failed)}"
    if not edited and not setup and (steps := _steps_added(failed, passed)):
        return f"Fixed by running {steps} first: {_failure(failed)}"  # nothing else changed
    if not files or diagnostics.code_in_progress(failed.error or "", " ".join(files)):
        return None  # nothing in between fixed it, or a compile error of code being written
    named = ", ".join(code_span(one_line(p)) for p in files[:FILES_SHOWN])
    more = f" and {len(files) - FILES_SHOWN} more" if len(files) > FILES_SHOWN else ""
    return f"Fixed by editing {named}{more}: {_failure(failed)}"


def setup_edited_text(failed: Run, edited: Sequence[str]) -> str | None:
    """The gotcha of a run whose next run got past its error when only files of the build's
    setup were edited in between (``Cargo.toml``: :func:`diagnostics.setup_file`), however that
    run ended; None when another file was edited too, or the command only checks."""
    if not edited or checks_only(failed.command) or not all(map(diagnostics.setup_file, edited)):
        return None
    named = ", ".join(code_span(one_line(p)) for p in edited[:FILES_SHOWN])
    return f"Fixed by editing {named}: {_failure(failed)}"


def _dropped(failed: Run, passed: Run) -> str | None:
    """The program the shell could not find for ``failed`` that only took its output (a stage
    after the first of a pipeline: ``cargo test | tail -30``, ``zsh: command not found: tail``)
    and that ``passed`` runs nowhere: the run got past it by doing without; None otherwise
    (the run's own program missing is found another way: :func:`installed_text`)."""
    from .notfound import missing_program

    program = missing_program(failed.error, failed.command)

    def named(stage: Sequence[str]) -> str:
        return stage[0].replace("\\", "/").rsplit("/", 1)[-1].casefold() if stage else ""

    if program is None or not any(named(stage) == program for command in stages(failed.command)
                                  for stage in command[1:]):
        return None
    ran = {named(stage) for command in stages(passed.command) for stage in command}
    return program if program not in ran else None


RERUN = "Fixed by running it again"  # a command the shell never started, passing when rerun


def rerun_text(failed: Run, ran: Sequence[str]) -> str:
    """The gotcha of a command the machine never started (the shell's fork or path conversion
    failed: ``notices.not_started``) that passed when run again, ``ran`` being the commands that
    passed in between: the setup one of them changed (``Add-MpPreference -ExclusionPath …``),
    else the rerun itself. The failure was the shell's, not the command's: whatever the command
    was, running it again got past it, and a later session meeting it is told so."""
    setup = [c for c in dict.fromkeys(ran) if _tool(c) not in _FORGES and setup_command(c)]
    if not setup:
        return f"{RERUN}: {_failure(failed)}"
    named = ", ".join(_shown(c, failed) for c in setup[:FILES_SHOWN])
    return f"Fixed by running {named}: {_failure(failed)}"


def _shown(command: str, failed: Run) -> str:
    """A command named as a fix, in a code span, without its shell prelude when the failed
    command had the same (``cd ~/shop &&`` before both: the fix is what ran after it)."""
    steps = commandline.prelude(command)
    if steps and set(steps) <= set(commandline.prelude(failed.command)):
        command = commandline.without_prelude(command)
    return code_span(one_line(command))


def _steps_added(failed: Run, passed: Run) -> str:
    """The steps of the shell prelude the passing run had and the failed one lacked (``source
    ~/.cargo/env`` before ``cargo build``), in code spans; "" when none."""
    had = set(commandline.prelude(failed.command))
    return ", ".join(code_span(one_line(s)) for s in commandline.prelude(passed.command)
                     if s not in had)


def error_key(error: str | None) -> str:
    """What makes two errors one for :func:`failure_key`: the start of the error line without
    the words that vary between runs (ids, numbers, file names), case-folded."""
    shown = (error or "")[:KEY_ERROR_CHARS]
    return " ".join(_VARYING_WORD_RE.sub(" ", shown).split()).casefold()


def retry_text(failed: Run, passed: Run) -> str | None:
    """The gotcha of a failed run whose next run of the same program and subcommand passed with
    long options it lacked (``git commit --no-gpg-sign`` after ``git commit`` failed: ``gpg
    failed to sign the data``): options its error names a word of, or that skip a step
    (``--no-verify``); or whose next run passed with the program given by its path
    (``~/.cargo/bin/cargo build``); None otherwise (another run, options that only tune it)."""
    before, after = _last_part(failed.command), _last_part(passed.command)
    if before is None or after is None:
        return None
    if after[0] != before[0] and after[1:] == before[1:] and "/" in after[0].replace("\\", "/"):
        # The same run with the program given by its path (``~/.cargo/bin/cargo build`` after
        # ``cargo build`` failed): the shell found no such program, or another one.
        return f"Fixed by running {code_span(one_line(' '.join(after)))}: {_failure(failed)}"
    if before[:2] != after[:2]:
        return None
    had = {w.split("=", 1)[0] for w in before}
    error = text_keys(failed.error or "")
    added = [w.split("=", 1)[0] for w in after if w.startswith("--") and len(w) > 3
             and w.split("=", 1)[0] not in had]
    # The options the error names, else those that skip a step (``--no-verify``).
    wanted = [o for o in dict.fromkeys(added) if text_keys(o) & error] or [
        o for o in dict.fromkeys(added) if _SKIP_OPTION_RE.match(o)]
    if not wanted:
        return None
    options = ", ".join(code_span(o) for o in wanted)
    return f"Fixed with {options}: {_failure(failed, ' '.join(before[:2]))}"


def similar(failed: str, passed: str) -> bool:
    """Whether ``passed`` is another run of what ``failed`` ran (same program and subcommand,
    :func:`retry_key`): its arguments, options aside, are those of the failed run or a part of
    them (``pytest tests/test_a.py`` after ``pytest tests/test_a.py::test_x``; ``cargo build
    --release`` after ``cargo build --release --quiet``), or the other way round; a run on
    other files, hosts or packages is another task. Both are one command each (``a && b``
    passing after ``c && b`` failed ran other work than ``b``)."""
    if len(commandline.commands(commandline.run_key(failed))) > 1 or len(commandline.commands(commandline.run_key(passed))) > 1:
        return False
    before, after = _last_part(failed), _last_part(passed)
    if before is None or after is None or retry_key(failed) != retry_key(passed):
        return False
    mine, theirs = _arguments(before), _arguments(after)
    return all(any(_within(a, b) for b in mine) for a in theirs) or all(
        any(_within(b, a) for a in theirs) for b in mine)


def _arguments(words: Sequence[str]) -> list[str]:
    """A run's arguments after its program (and subcommand): its words that are no option."""
    return [w for w in words[1:] if not w.startswith("-")]


def _within(part: str, whole: str) -> bool:
    """Whether the argument ``part`` names ``whole`` or what holds it (a folder, a test file
    of a test: ``tests`` for ``tests/test_a.py``, ``tests/a.py`` for ``tests/a.py::test_x``)."""
    part, whole = part.rstrip("/"), whole.rstrip("/")
    return whole == part or whole.startswith((f"{part}/", f"{part}::"))


def retry_key(command: str) -> tuple[str, ...] | None:
    """What makes two runs tries of one thing for :func:`retry_text` and :func:`installed_text`:
    the program (after ``python -m``, ``npx``…) and its subcommand, when it has one, of the last
    part of the command's ``&&`` chain; None when unreadable."""
    words = _last_part(command)
    program = _program(" ".join(words)) if words else None
    if program is None:
        return None
    first, second = program
    return (first, second) if _SUBCOMMAND_RE.fullmatch(second) else (first,)


# A program's subcommand (``commit``, ``run``, ``build``), not an argument (``tests/``, ``-v``).
_SUBCOMMAND_RE = lazy(r"[a-z][a-z-]*")
# An error saying the program or a module it needs is not there.
_MISSING_RE = lazy(
    r"\bno module named\b|\bmodulenotfounderror\b|\bcommand not found\b|\bnot installed\b|"
    r"\bcannot find module\b|\bis not recogni[sz]ed as (?:an|the name)\b|\bnot found in path\b",
    re.IGNORECASE,
)
_INSTALL_RE = lazy(r"\b(?:install|add|sync)\b", re.IGNORECASE)


def missing(error: str | None) -> bool:
    """Whether an error says the program or a module it needs is not there."""
    return error is not None and _MISSING_RE.search(error) is not None


def installed_text(failed: Run, passed: Run, ran: Sequence[str]) -> str | None:
    """The gotcha of a run that failed because something was not installed, when a later run
    of the same program (other arguments) passed after an install ran in between (``python -m
    pytest tests/`` failed: ``No module named pytest``; ``pip install -r requirements-dev.txt``;
    ``python -m pytest tests/test_x.py`` passed) or with a variable set that the failed run
    lacked (``cargo build`` failed: ``command not found: cargo``; ``export PATH=
    "$HOME/.cargo/bin:$PATH" && cargo build`` ran); None otherwise."""
    if not missing(failed.error):
        return None
    installs = [c for c in dict.fromkeys(ran) if setup_command(c)
                and _INSTALL_RE.search(" ".join(_unrun(_head(c))[:3]))]
    # A later run that failed for another reason still ran: the install got it that far.
    done = "Got it to run" if passed.failed else "Fixed"
    if installs:
        return f"{done} by running {_shown(installs[-1], failed)}: {_failure(failed)}"
    # Or a variable the later run set and the failed one did not (``PATH``: the program is
    # found once its folder is on it).
    added = [n for n in env_names(passed.command) if n not in env_names(failed.command)]
    if added:
        return f"{done} with {', '.join(code_span(n) for n in added)} set: {_failure(failed)}"
    # Or the shell's prelude it added (``source ~/.cargo/env &&``, ``. venv/bin/activate &&``).
    steps = _steps_added(failed, passed)
    return f"{done} by running {steps} first: {_failure(failed)}" if steps else None


def _last_part(command: str) -> list[str] | None:
    """The words of the last part of a command's ``&&`` chain (the run that passed or failed),
    read with the shell's quoting, case-folded program first; None when unreadable."""
    part = commandline.commands(commandline.run_key(command))[-1][0].strip()
    program = _program(part)
    words = _words(part)
    if program is None or not words or program[1].startswith("-"):
        return None
    return words
