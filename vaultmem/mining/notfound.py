"""A program the shell could not find, read from an error line (pure).

``bash: line 1: gh: command not found``, ``zsh: command not found: cargo``, ``/bin/sh: 1: cargo:
not found``, ``'make' is not recognized as an internal or external command``, PowerShell's
``The term 'make' is not recognized``, ``git: 'lfs' is not a git command``, ``env: 'python': No
such file or directory``: each names one program, and the failure hook matches a fix recorded
for it by that name, whichever command met it (``claude/onfailure``).
"""

from __future__ import annotations

import functools
import re

from vaultmem.notes.lazyre import lazy

from . import commandline

_SHELL_SAYS = r"(?:\S*/)?(?:ba|z|da|k|a|fi)?sh(?:\.exe)?:(?: line)?(?: \d+:)?"
# A program the shell could not find, as each shell says it (the name in ``prog``; ``path``:
# "No such file or directory", which names the program only when the shell speaks of what
# it ran, not of a redirection's file: :func:`missing_program` checks the command ran it).
_NO_PROGRAM_RE = lazy(
    rf"\A\W*(?:{_SHELL_SAYS} (?P<sh>[^\s:]+): (?:command )?not found\b|"
    r"\S*: command not found: (?P<zsh>\S+)|"
    r"fish: Unknown command:? (?P<fish>\S+)|"
    r"'(?P<cmd>[^'\n]+)' is not recognized as an internal or external command|"
    r"(?:\S+ : )?The term '(?P<ps>[^'\n]+)' is not recognized as (?:the|a) name of a cmdlet|"
    r"(?P<git>[\w.-]+): '(?P<sub>[\w.-]+)' is not a [\w.-]+ command|"
    r"error: no such (?:sub)?command:? [`'\"]?(?P<sub2>[\w.:-]+)|"
    r"(?:\S*/)?env: ['\u2018\"]?(?P<env>[^'\u2019\"\n:]+)['\u2019\"]?: No such file or directory|"
    rf"{_SHELL_SAYS} (?P<path>[^\s:]+): No such file or directory\s*\Z|"
    r"\S*: no such file or directory: (?P<zpath>\S+)\s*\Z)", re.IGNORECASE)


_NO_PROGRAM_SAID = ("not found", "not recognized", "unknown command", " command",
                    "no such file")  # case-folded: what every form of _NO_PROGRAM_RE says


@functools.lru_cache(maxsize=64)  # a failure's line, weighed against each gotcha found
def missing_program(line: str | None, command: str | None = None) -> str | None:
    """The program an error line says the shell could not find, case-folded, without its
    folder and ``.exe`` (``bash: line 1: gh: command not found``, ``zsh: command not found:
    cargo``, ``'make' is not recognized as an internal or external command``, ``git: 'lfs' is not
    a git command`` -> ``git lfs``); None for any other line. "No such file or directory" names
    the program when the shell says it of what ``command`` runs (``./run.sh``), not of a file
    (``cat x``'s, a redirection's); without a command, whatever the shell names."""
    folded = (line or "").casefold()
    # Most error lines say none of it: they do not pay for the pattern (a hook compiles it).
    if not any(said in folded for said in _NO_PROGRAM_SAID):
        return None
    found = _NO_PROGRAM_RE.match(line or "")
    if found is None:
        return None
    if found.group("git"):
        return f"{found.group('git')} {found.group('sub')}".casefold()
    name = next(g for g in found.groups() if g)
    if (found.group("path") or found.group("zpath")) and command is not None:
        key = commandline.run_key(command)
        ran = {_program_name(words[0]) for words in commandline.command_words(key) if words}
        if _program_name(name) not in ran:
            return None
    return _program_name(name)


def _program_name(word: str) -> str:
    """A program as written (``~/.cargo/bin/cargo``, ``C:\\bin\\make.exe``): its name."""
    name = word.strip("'\"`").replace("\\", "/").rsplit("/", 1)[-1].casefold()
    return name.removesuffix(".exe")
