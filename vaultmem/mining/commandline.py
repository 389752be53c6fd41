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
  command line of its own (:func:`shell_string`).
"""

from __future__ import annotations

from vaultmem.notes.lazyre import lazy

# A POSIX shell (PowerShell's command line is another language, not read here).
_SHELL = lazy(r"(?:\S*/)?(?:ba|z|da|k)?sh")
_RUN_OPTION = lazy(r"-[a-z]*c")  # ``-c``, ``-lc``
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
