"""Which tool a gotcha is about: the program of the command it reports failing (pure; issue 29).

A gotcha that names no component of the project is often about a tool the project uses: ``git
push`` rejected, ``git commit`` failing to sign, ``sudo`` needing a terminal, ``pytest`` not
installed. People look such a lesson up under the tool ("what did we learn about git here?"),
not in ``Inbox``, so compaction files it under an entity named after the tool (``git``,
``sudo``, ``pytest``, as the session spells it: ``mining.subjects.spelled``) when nothing in
the item names a component (``memory.sessionextract``).

The tool is the program of the first command the item says failed ("`cmd` failed (`error`)",
"`cmd` failed: `error`", as capture writes failures: ``mining.fixes``), read the way a shell
runs it:

- ``cd … &&``, inline variables and a trailing ``2>&1 | tail`` are skipped (``commandline.run_key``);
  so are wrappers and runners (``sudo``, ``env``, ``nice``, ``time``, ``uv run``, ``npx``…),
  ``python -m pytest`` runs ``pytest``; a wrapper is the tool only when the error is its own
  (``sudo: a terminal is required to read the password``);
- a program given by an absolute path is its file's name (``/usr/bin/git`` -> ``git``,
  ``C:/Program Files/Git/bin/git.exe`` -> ``git``);
- the project's own code is no tool: a program given by a relative path (``./deploy.sh``,
  ``scripts/x.sh``) or an interpreter running a file or a snippet (``python scripts/sync.py``,
  ``node -e …``): its gotcha belongs to that code's component or to none;
- a failure fixed by editing a file ("Fixed by editing `src/app.rs`: `cargo build` failed …")
  is about that file's code, not the tool that reported it;
- a git hook the item names ("the pre-commit hook blocked the commit", "pre-push") is the
  tool before the program that ran it: its gotchas and decisions go to ``Pre-commit``, as the
  pre-commit framework's do (:func:`hook_of`);
- shells, remote shells and the everyday file and text utilities (``bash``, ``ssh``, ``cat``,
  ``cp``, ``grep``, ``curl``…) are no tool either: their failure is about the file, the host or
  the command they ran, not about them.

A session that touched no component of the project but worked on one machine over ssh (``ssh
root@slate "uci set …"``: a router, a server) files what it learnt under that machine, by the
name its commands call it (:func:`ssh_hosts`); a host given by address names no such entity.
"""

from __future__ import annotations

import posixpath
import re

from vaultmem.mining import commandline
from vaultmem.notes.lazyre import lazy

# How capture writes a failure a change to a file fixed (``fixes.fix_text``).
_EDIT_FIXED = lazy(r"\A(?:Fixed|Got it to run) by editing\b")
# A code span, then " failed": a command capture reports failing, its error after it.
_SPAN = lazy(r"(`+) ?((?:(?!\1).)+?) ?\1")
_ERROR_AFTER = lazy(r"\A failed(?: \(|: )(`+) ?((?:(?!\1).)+?) ?\1")
# A git hook by its name (git's hook names; "pre-commit" is also the framework running them).
_HOOK = lazy(r"(?<![\w./-])(pre-commit|pre-push|commit-msg|prepare-commit-msg|pre-merge-commit|"
             r"post-commit|post-checkout|post-merge|pre-rebase|pre-receive|post-receive)"
             r"(?![\w/-]|\.\w)", re.IGNORECASE)
# Wrappers run the command after them; each takes the given number of arguments first.
_WRAPPERS = {"sudo": 0, "doas": 0, "env": 0, "nice": 0, "time": 0, "nohup": 0, "timeout": 1,
             "command": 0, "exec": 0, "xvfb-run": 0, "caffeinate": 0, "stdbuf": 0}
# Runners of a package's program: the program is the word after them.
_RUNNERS = (("uv", "run"), ("uv", "tool", "run"), ("uvx",), ("poetry", "run"), ("pipenv", "run"),
            ("pipx", "run"), ("hatch", "run"), ("pdm", "run"), ("npx",), ("bunx",),
            ("pnpm", "exec"), ("pnpm", "dlx"), ("npm", "exec"), ("yarn", "dlx"),
            ("bundle", "exec"), ("mise", "exec"), ("dotnet", "tool", "run"))
# Interpreters: ``-m module`` runs a tool; a file or ``-c``/``-e`` is the project's own code.
_INTERPRETERS = frozenset({"python", "python3", "py", "pypy", "pypy3", "node", "deno", "bun",
                           "ruby", "perl", "php", "lua", "Rscript", "elixir", "java"})
# Shells that run a script file given to them (``bash deploy.sh``).
_SHELLS = frozenset({"bash", "sh", "zsh", "fish", "dash", "ksh"})
# A file given by a relative path (not ``/…``, ``~/…`` nor ``C:/…``).
_RELATIVE_FILE = lazy(r"(?![A-Za-z]:/)[\w.-]+(?:/[\w.-]+)*")
# Shells, remote shells and everyday utilities: never the tool a gotcha is about.
_NOT_TOOLS = frozenset({
    "bash", "sh", "zsh", "fish", "dash", "ksh", "csh", "tcsh", "powershell", "pwsh", "cmd",
    "ssh", "scp", "sftp", "mosh", "telnet", "cd", "pushd", "popd", "export", "source", ".",
    "set", "unset", "alias", "eval", "echo", "printf", "true", "false", "test", "[", "[[",
    "sleep", "wait", "kill", "killall", "pkill", "pgrep", "ps", "top", "ls", "dir", "cat",
    "less", "more", "head", "tail", "cp", "mv", "rm", "rmdir", "mkdir", "touch", "ln", "chmod",
    "chown", "chgrp", "stat", "file", "find", "fd", "grep", "egrep", "fgrep", "rg", "ag", "sed",
    "awk", "cut", "sort", "uniq", "tr", "wc", "xargs", "tee", "diff", "cmp", "tree", "du", "df",
    "which", "where", "whereis", "type", "readlink", "realpath", "basename", "dirname", "pwd",
    "date", "open", "xdg-open", "start", "curl", "wget", "tar", "zip", "unzip", "gzip",
    "gunzip", "dos2unix", "unix2dos", "nano", "vi", "vim", "code", "findstr", "clear",
})


def tool_of(text: str) -> str | None:
    """The tool whose failure ``text`` reports (the program of the first command it says failed,
    as the module doc reads it), or None."""
    if _EDIT_FIXED.match(text):
        return None
    for span in _SPAN.finditer(text):
        after = text[span.end():]
        if not after.startswith(" failed"):
            continue
        error = _ERROR_AFTER.match(after)
        return program(span.group(2), error.group(2) if error else "")
    return None


def script_of(text: str) -> str | None:
    """The file of the project's own code the first command ``text`` says failed runs (a path
    run directly, ``./scripts/x.sh``, or by an interpreter or a shell, ``python scripts/x.py``,
    ``bash deploy.sh``), as the command writes it; None when that command runs a program, a
    module (``python -m x``) or a snippet. Such a gotcha is about that code, not a tool; a
    failure fixed by editing another file is about that file (None)."""
    spans = list(_SPAN.finditer(text))
    edited = spans[0].group(2).removeprefix("./") if spans and _EDIT_FIXED.match(text) else None
    for span in spans:
        if text[span.end():].startswith(" failed"):
            found = _script(span.group(2))
            return found if edited is None or found == edited else None
    return None


def _script(command: str) -> str | None:
    words = _first_part(commandline.run_key(command.rstrip("…").strip()))
    while words:
        word = words[0].replace("\\", "/")
        name = _name(posixpath.basename(word))
        if _own_file(word) and "/" in word and not _runs_scripts(name):
            return word.removeprefix("./")
        if name in _WRAPPERS:
            words = _after_options(words[1:], _WRAPPERS[name])
            continue
        if not _runs_scripts(name):
            return None
        rest = _after_options(words[1:], 0)
        file = rest[0].replace("\\", "/") if rest else ""
        return file.removeprefix("./") if _own_file(file) and "." in file.lstrip(".") else None
    return None


def _runs_scripts(name: str | None) -> bool:
    """Whether the program ``name`` runs a script file given to it (an interpreter, a shell)."""
    return name is not None and (name in _SHELLS or re.sub(r"[\d.]+$", "", name) in _INTERPRETERS)


def _own_file(word: str) -> bool:
    """Whether ``word`` is a file of the project by a relative path, outside hidden folders."""
    return _RELATIVE_FILE.fullmatch(word) is not None and not any(
        part.startswith(".") and part not in (".", "..") for part in word.split("/")[:-1])


def hook_of(text: str) -> str | None:
    """The git hook ``text`` names (``pre-commit``, ``pre-push``, ``commit-msg``…), or None."""
    found = _HOOK.search(text)
    return found.group(1).casefold() if found else None


def program(command: str, error: str = "") -> str | None:
    """The tool ``command`` runs, ``error`` being what it printed (a wrapper's own error makes
    the wrapper the tool), or None for the project's own code, a shell or a utility."""
    line = commandline.run_key(command.rstrip("…").strip())
    words = _speaking_part(line, error) or _first_part(line)
    while words:
        name = _name(words[0])
        if name is None:
            return None
        if name in _WRAPPERS:
            if re.match(re.escape(name) + r"\b\S*:", error.strip(), re.IGNORECASE):
                return name
            words = _after_options(words[1:], _WRAPPERS[name])
            continue
        runner = next((r for r in _RUNNERS if tuple(w.casefold() for w in words[:len(r)]) == r),
                      None)
        if runner is not None:
            words = _after_options(words[len(runner):], 0)
            continue
        if re.sub(r"[\d.]+$", "", name) in _INTERPRETERS:
            rest = words[1:]
            if len(rest) >= 2 and rest[0] == "-m":
                words = rest[1:]
                continue
            return None  # a file or a snippet the interpreter runs: the project's own code
        return None if name in _NOT_TOOLS else name
    return None


def _first_part(command: str) -> list[str]:
    """The words of the first command of a command line (:mod:`commandline`) that is
    not a ``cd`` or a variable, as the program gets them; [] when unreadable."""
    return [commandline.unquoted(w) for w in _first_words(command)]


def _first_words(command: str) -> list[str]:
    """:func:`_first_part`'s words as written, quotes kept."""
    for words in commandline.command_words(command):
        head = commandline.unquoted(words[0])
        if head.casefold() not in ("cd", "pushd", "export", "set") and "=" not in head:
            return words
    return []


def _command_words(command: str) -> list[list[str]]:
    """The words of each command of a command line as the program gets them
    (:func:`commandline.unquoted`); a command without words left out."""
    return [[commandline.unquoted(w) for w in words] for words in commandline.command_words(command)]


def _speaking_part(command: str, error: str) -> list[str]:
    """The words of the command of a command line whose program ``error`` starts by naming
    (``createuser app && psql …`` failing with ``psql: error: …``: the psql part), [] when
    the error names none of its commands."""
    head = _ERROR_HEAD.match(error)
    if head is None:
        return []
    return next((words for words in _command_words(command)
                 if _name(words[0]) == head.group(1).casefold()), [])


_ERROR_HEAD = re.compile(r"\s*([\w.+-]+):\s")


def _after_options(words: list[str], arguments: int) -> list[str]:
    """``words`` without the options (and ``arguments`` values) a wrapper takes first."""
    rest = list(words)
    while rest and (rest[0].startswith("-") or "=" in rest[0]):
        rest = rest[1:]
    return rest[arguments:]


def _name(word: str) -> str | None:
    """A program word as a tool's name: an absolute path's file name without ``.exe``; None for
    a relative path (the project's own script) or a word that names no program."""
    word = word.replace("\\", "/")
    if "/" in word:
        if not (word.startswith(("/", "~/")) or re.match(r"[A-Za-z]:/", word)):
            return None
        word = posixpath.basename(word)
    word = re.sub(r"\.exe$", "", word, flags=re.IGNORECASE)
    return word.casefold() if re.fullmatch(r"[A-Za-z][\w.+-]*", word) else None


_HOST_NAME = lazy(r"[A-Za-z][A-Za-z0-9-]*")  # a machine's own name, not an address


def ssh_host(command: str) -> str | None:
    """The machine ``command`` logs into by ssh, by the name people call it (``ssh -p 2222
    root@slate 'uptime'`` -> ``slate``), or None: no ssh command, or a host given by address (an
    IP, a domain name) or as ``localhost``: an address names no machine a person looks up."""
    found = commandline.remote(_first_words(commandline.run_key(command.rstrip("…").strip())))
    host = found[0].rpartition("@")[2] if found else ""
    return host.casefold() if _HOST_NAME.fullmatch(host) and host.casefold() != "localhost" \
        else None


def ssh_hosts(text: str) -> tuple[str, ...]:
    """The machines the commands in ``text``'s code spans log into by ssh, by name
    (:func:`ssh_host`), in order of first mention."""
    found = (ssh_host(span.group(2)) for span in _SPAN.finditer(text) if "ssh" in span.group(2))
    return tuple(dict.fromkeys(host for host in found if host))
