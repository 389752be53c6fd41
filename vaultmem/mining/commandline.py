"""A shell command line read into its commands and their words (pure).

One reading for every miner that looks at a Bash command (``fixes``, ``tools``, ``subjects``,
``settingcmds``, ``notfound``) and for the failure hook (``claude/onfailure``), the way a shell
reads it:

- the commands are split at ``&&``, ``||``, ``;``, ``&``, ``|`` and a line break outside quotes
  (``grep -E "a|b" f`` is one command; a redirection's ``2>&1`` or ``&>`` splits nothing);
- a word is a run of quoted and unquoted pieces (``--name="a b"`` is one word), its quotes kept;
  a quote left open (a command line recorded by its first line) runs to the end;
  :func:`unquoted` reads it as the program gets it (``--name=a b``);
- a shell given a command line to run (``bash -c "a && b"``, ``sudo sh -c '…'``) runs a
  command line of its own (:func:`shell_string`), and so does a remote shell on its host
  (``ssh -p 22 root@host "uci set … && uci commit"``: :func:`remote`);
- the commands leading a line that only set the shell up for the work after them (``cd x &&``,
  ``source ~/.cargo/env &&``, ``. venv/bin/activate;``, ``export A=b &&``) are its
  :func:`prelude`, not its work.
"""

from __future__ import annotations

import functools
import posixpath
from itertools import pairwise

from vaultmem.notes.lazyre import lazy

# A POSIX shell (PowerShell's command line is another language, not read here).
_SHELL = lazy(r"(?:\S*/)?(?:ba|z|da|k)?sh")
_RUN_OPTION = lazy(r"-[a-z]*c")  # ``-c``, ``-lc``
# An inline variable or an ``export`` before the command, with the ``&&`` or ``;`` after it.
ENV_ASSIGN = lazy(r"\A(?:export\s+|env\s+)?([A-Za-z_][A-Za-z0-9_]*)=(?:'[^']*'|\"[^\"]*\"|[^\s;&]*)"
               r"(?:\s*(?:&&|;)\s*|\s+)")
# A pipe into ``tail`` or ``head`` that only shortens the output, after the command.
_TAIL = lazy(
    r"(?:\s*2>&1)?(?:\s*\|\s*(?:tail|head)(?:\s+-n)?(?:\s+-?\d+)?)?(?:\s*2>&1)?\s*(?:…)?\s*\Z"
)
_WORD = lazy(r"""(?:"(?:[^"\\]|\\.)*(?:"|\Z)|'[^']*(?:'|\Z)|\\.|[^\s"'])+""")


def commands(line: str) -> list[tuple[str, str]]:
    """The commands of ``line`` as written (spaces kept), each with the separator before it
    ("" for the first); always at least one."""
    parts: list[tuple[str, str]] = []
    start, joined, quote, n = 0, "", "", 0
    while n < len(line):
        c = line[n]
        if quote:
            if c == "\\" and quote == '"':
                n += 1
            elif c == quote:
                quote = ""
        elif c == "\\":
            n += 1
        elif c in "'\"":
            quote = c
        elif c in ";|&\n" and not (c == "&" and (line[n - 1:n] in (">", "<")
                                                 or line[n + 1:n + 2] == ">")):
            sep = line[n:n + 2] if line[n:n + 2] in ("&&", "||") else c
            parts.append((line[start:n], joined))
            joined, start = sep, n + len(sep)
            n += len(sep)
            continue
        n += 1
    parts.append((line[start:], joined))
    return parts


def words(command: str) -> list[str]:
    """The words of one command, quotes kept (``echo "a b"`` -> ``echo``, ``"a b"``)."""
    return _WORD.findall(command)


def command_words(line: str) -> list[list[str]]:
    """The words of each command of ``line``, quotes kept; a command without words left out."""
    return [found for part, _ in commands(line) if (found := words(part))]


# A command that only sets the shell up for the next one: moves it (``cd``), loads variables
# (``source``, ``.``, ``export``, ``eval "$(pyenv init -)"``), sets its options, or activates an
# environment (``conda activate x``, ``nvm use 20``).
_SHELL_STEPS = frozenset({"cd", "pushd", "source", ".", "export", "set", "unset", "umask",
                          "ulimit", "shopt", "setopt", "eval", "alias", "workon", "deactivate"})
_ACTIVATES = frozenset({("conda", "activate"), ("mamba", "activate"), ("micromamba", "activate"),
                        ("nvm", "use"), ("fnm", "use"), ("pyenv", "shell"), ("rbenv", "shell"),
                        ("sdk", "use")})
_ASSIGNMENT = lazy(r"[A-Za-z_]\w*=")


def prelude(line: str) -> tuple[str, ...]:
    """The commands leading ``line`` before ``&&`` or ``;`` that only set the shell up for the
    work after them (``cd x``, ``source ~/.cargo/env``, ``. venv/bin/activate``, ``export A=b``,
    ``conda activate x``), each as written, blanks squeezed; () when none or when nothing else
    runs (``cd x`` alone is the work)."""
    parts = commands(line.strip())
    return tuple(" ".join(words(part)) for part, _ in parts[:_steps(parts)])


def without_prelude(line: str) -> str:
    """``line`` from its first command after its :func:`prelude` on, as written."""
    return after(line, _steps(commands(line.strip())))


def after(line: str, n: int) -> str:
    """``line`` from its ``n``-th command (0-based) on, as written; its last when it has
    fewer."""
    parts = commands(line.strip())
    n = min(n, len(parts) - 1)
    return (parts[n][0] + "".join(sep + part for part, sep in parts[n + 1:])).strip()


def _steps(parts: list[tuple[str, str]]) -> int:
    """How many of the commands ``parts`` lead with are its :func:`prelude`."""
    n = 0
    for (part, _), (_, sep) in pairwise(parts):
        found = words(part)
        if sep not in ("&&", ";") or not found or not (
                found[0] in _SHELL_STEPS or tuple(found[:2]) in _ACTIVATES
                or all(_ASSIGNMENT.match(w) for w in found)):
            break
        n += 1
    return n if any(words(part) for part, _ in parts[n:]) else 0


def shell_string(words: list[str]) -> str | None:
    """The command line a POSIX shell is given to run (``bash -lc "a && b"``), its quotes
    taken off; None for any other command."""
    if not words or not _SHELL.fullmatch(words[0]):
        return None
    for n, word in enumerate(words[1:-1], 1):
        if _RUN_OPTION.fullmatch(word):
            return unquoted(words[n + 1])
        if not word.startswith("-"):
            return None
    return None


# Remote shells, and ssh's options that take a value (OpenSSH's ssh(1)): its first other word is
# the destination.
_REMOTE_SHELLS = frozenset({"ssh", "mosh"})
_SSH_VALUED = frozenset("BbcDEeFIiJLlmOoPpQRSWw")


def remote(words: list[str]) -> tuple[str, str] | None:
    """(the destination, the command line it runs there) of an ``ssh`` or ``mosh`` command's
    words, quotes kept (``ssh -p 2222 root@slate "uci set a=b && uci commit"`` -> ``root@slate``,
    ``uci set a=b && uci commit``), the command line as the remote shell gets it, "" for a
    login; None for any other command or when no destination is given."""
    if not words or posixpath.basename(unquoted(words[0])) not in _REMOTE_SHELLS:
        return None
    rest = list(words[1:])
    while rest and rest[0].startswith("-") and rest[0] != "--":
        flag = rest.pop(0)
        if len(flag) == 2 and flag[1] in _SSH_VALUED and rest:
            rest.pop(0)
    if not rest or rest[0] == "--":
        return None
    given = rest[1:]
    while given and given[0].startswith("-"):  # options may follow it (``mosh host -- cmd``)
        flag = given.pop(0)
        if flag == "--":
            break
        if len(flag) == 2 and flag[1] in _SSH_VALUED and given:
            given.pop(0)
    return unquoted(rest[0]), " ".join(unquoted(w) for w in given)


# A quoted piece of a word (its quotes kept) holding a blank: a sentence, not a name; a path
# with a blank (``"/home/me/My Project"``, ``"$HOME/a b"``, ``"C:\\Program Files"``) is a name.
_QUOTED_PROSE = lazy(r"""(?:"(?![/~.$]|[A-Za-z]:)(?:[^"\\]|\\.)*\s(?:[^"\\]|\\.)*(?:"|\Z)|"""
                     r"""'(?![/~.$]|[A-Za-z]:)[^']*\s[^']*(?:'|\Z))""")
# Programs whose quoted argument is a command line they run (``ssh host "…"``, ``sudo sh -c``).
_RUNS_LINE = frozenset({"ssh", "sudo", "env", "nohup", "timeout", "xargs", "watch"})


def without_data(line: str) -> str:
    """``line`` without the quoted text it hands a program as data (a commit message, an echo
    string, a title: a quoted argument holding a blank, not a path), its commands and
    separators kept; a command line a shell or ``ssh`` is given to run (``bash -c "a && b"``,
    ``ssh host "…"``) is read as one. What a command runs is its shape, what it says is not:
    two failures sharing the words of their messages share no cause."""
    kept: list[str] = []
    for part, sep in commands(line):
        found = words(part)
        runs_line = bool(found) and (shell_string(found) is not None or
                                     found[0].rsplit("/", 1)[-1] in _RUNS_LINE)
        kept.append(sep)
        kept += [without_data(unquoted(w)) if runs_line and w[:1] in "'\"" and " " in w
                 else _QUOTED_PROSE.sub("", w) for w in found]
    return " ".join(" ".join(kept).split())


def unquoted(word: str) -> str:
    """A word as the shell hands it to the program: its quotes taken off, its escapes read
    (``--name="a b"`` -> ``--name=a b``, ``'it'\\''s'`` -> ``it's``, ``a\\ b`` -> ``a b``); a quote
    left open (a command line recorded by its first line) runs to the end, a last lone
    backslash goes."""
    out: list[str] = []
    quote, n = "", 0
    while n < len(word):
        c = word[n]
        if c == quote:
            quote = ""
        elif quote == "'":
            out.append(c)
        elif c == "\\" and (not quote or word[n + 1:n + 2] in ('"', "\\", "$", "`")):
            out.append(word[n + 1:n + 2])  # in double quotes only these are escaped
            n += 1
        elif not quote and c in "'\"":
            quote = c
        else:
            out.append(c)
        n += 1
    return "".join(out)


# Shell words that open or close a compound command (``for …; do x; done``), not a program.
_OPENERS = frozenset({"do", "then", "else", "elif", "if", "while", "until", "{", "!", "time"})
_CLOSERS = frozenset({"done", "fi", "esac", "}"})
# Commands that report or wait rather than do the work (``… && echo "Installed"``, ``sleep 1``).
_ASIDES = frozenset({"echo", "printf", "true", "false", ":", "sleep", "wait"})


@functools.lru_cache(maxsize=1024)  # the failure hook asks it again for each gotcha it weighs
def runs(line: str) -> tuple[str, ...]:
    """The words of what ``line`` runs, as the program gets them: the first stage of its last
    command that does the work, not one run only when the one before failed (``which a ||
    which b`` ran ``which a``), a report or a wait (``make && echo done``, ``sleep 1``; ``echo
    x | gpg --import`` ran ``gpg``) or a loop's closing word (the first command when all are
    such); what ``ssh host "…"`` runs there; () when it has no words."""
    last: tuple[str, ...] = ()
    first: tuple[str, ...] = ()
    pipeline: list[tuple[str, ...]] = []
    fallback = False
    for part, sep in [*commands(line), ("", "")]:
        if sep == "|":
            pipeline.append(_opened(part))
            continue
        work = next((stage for stage in pipeline if stage and stage[0] not in _ASIDES), ())
        if pipeline and pipeline[0]:
            first = first or pipeline[0]
            if not fallback and work and work[0] not in _CLOSERS:
                last = work
        pipeline, fallback = [_opened(part)], sep == "||"
    found = last or first
    if len(found) > 2 and posixpath.basename(found[0]) == "ssh" and " " in found[-1]:
        return runs(found[-1])
    return found


def _opened(part: str) -> tuple[str, ...]:
    """A command's words as the program gets them, without the words opening a compound
    command before it (``do``, ``then``)."""
    found = [unquoted(w) for w in words(part)]
    while found and found[0] in _OPENERS:
        found = found[1:]
    return tuple(found)


@functools.lru_cache(maxsize=2048)  # pure, and asked of every run several times
def run_key(command: str) -> str:
    """What makes two runs the same command: without inline variables and the shell's prelude
    before it (``cd … &&``, ``source ~/.cargo/env &&``: :func:`prelude`), and
    ``2>&1 | tail`` after it."""
    text = command.strip()
    while True:
        stripped = without_prelude(ENV_ASSIGN.sub("", text, count=1))
        if stripped == text:
            break
        text = stripped
    return _TAIL.sub("", text).strip() or command.strip()
