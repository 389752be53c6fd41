"""What a command works on: the program it runs, the service it manages, the machine it logs
into (pure; issue 29).

Many sessions are system work in a home folder, not code in a repository: a router over ssh,
DNS, a shell, a package manager, a desktop. Their components are the programs, services and
machines the work is about, and the session's commands name them (``memory.routing.about``
files an item under the one its words name):

- the program a command runs (:func:`tools.program`: wrappers, runners and ``python -m`` read
  through; shells, remote shells and everyday utilities are none), in every part of a command
  line (``a && b | c``);
- the service a service manager acts on, not the manager (``systemctl restart cosmic-panel``,
  ``service nginx reload``, ``rc-service sshd start``, ``brew services start postgresql``; an
  init script run by path, ``/etc/init.d/dnsmasq restart``, is the service by its file name);
- the machine ``ssh`` logs into by name (:func:`tools.ssh_host`), and what the command it runs
  there works on (``ssh root@slate "/etc/init.d/dnsmasq restart"``: Slate and dnsmasq).

Such a subject's entity is named as the session spells it (:func:`spelled`): the way its prose
writes the name inside a sentence (``UCI``, ``BFG``, ``Blocky``), else as its commands write
it, the program's or the init script's file name (``gl_screen``, ``dnsmasq``), never a case
made up for it (``Uci``, ``Gl_screen``).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from vaultmem.mining import commandline, tools
from vaultmem.notes.lazyre import lazy

# Service managers: the word after the verb (or before it, for ``service``) is the service.
_UNIT_AFTER_VERB = frozenset({"systemctl", "rc-service", "sv", "launchctl", "initctl"})
_VERBS = frozenset({"start", "stop", "restart", "reload", "enable", "disable", "status",
                    "try-restart", "reload-or-restart", "kill", "mask", "unmask", "up", "down",
                    "load", "unload", "bootstrap", "bootout", "kickstart"})
# Programs whose name is also an everyday word ("make sure", "the IP", "the log"): a subject,
# never found in prose.
_EVERYDAY = frozenset({"make", "go", "just", "task", "watch", "run", "install", "update",
                       "start", "stop", "screen", "code", "claude", "service", "systemctl",
                       "open", "say", "pass", "yes", "man", "info", "help", "login", "mail",
                       "view", "shutdown", "reboot", "history", "read", "jobs", "log", "ip",
                       "op", "net", "free", "import", "select", "host", "id", "last", "who"})
# Programs that only look (who am I, which system, is the host up, what does the log say):
# the diagnosis of the work, never its subject.
_LOOKS = frozenset({"whoami", "uname", "hostname", "uptime", "ping", "traceroute", "tracert",
                    "tracepath", "nslookup", "dig", "ipconfig", "ifconfig", "netstat", "ss",
                    "dmesg", "lsof", "journalctl", "logread", "sw_vers", "vm_stat",
                    "system_profiler", "printenv", "lsblk", "lscpu", "lsusb", "lspci", "nproc",
                    "eof", "pwd", "id", "groups", "w", "who", "last", "history", "getcap"})
_QUOTED = lazy(r"\"((?:[^\"\\]|\\.)*)\"|'([^']*)'")
_UNIT = lazy(r"[A-Za-z][\w.@+-]*")
# Shell words that start a command without being one (``for f in *; do rm "$f"; done``).
_LEADING = frozenset({"do", "then", "else", "elif", "if", "while", "until", "!", "{", "time"})
_NO_COMMAND = frozenset({"for", "case", "select", "function", "done", "fi", "esac", "}", "in"})
# A PowerShell cmdlet (``Get-Service``, ``Select-Object``): a step of the work, not its subject.
_CMDLET = lazy(r"(?:get|set|new|remove|add|select|where|sort|format|measure|out|test|resolve|"
               r"foreach|group|start|stop|restart|write|read|import|export|invoke|convert|"
               r"convertto|convertfrom|enable|disable|clear|copy|move|rename|join|split|wait|"
               r"register|unregister|update|install|uninstall|find|compare|tee|show)-\w+")


@dataclass(frozen=True)
class Subject:
    """A program, a service or a machine a command names, as its commands write it."""

    name: str
    kind: str  # "program", "service" or "machine"

    @property
    def worked_on(self) -> bool:
        """Whether a command acting on it says its turn is about it (a service, a machine),
        not only that the turn used it (``git add``, ``pytest``: the tools of any turn)."""
        return self.kind != "program"

    @property
    def in_prose(self) -> bool:
        """Whether prose naming it as a word means it (``make`` in "make sure" does not)."""
        return self.name not in _EVERYDAY and len(self.name) >= 2


def of_command(command: str) -> tuple[Subject, ...]:
    """The programs, services and machines ``command`` (one command line) works on, in order,
    once each."""
    found: list[Subject] = []
    line = commandline.run_key(command.rstrip("…").strip())
    host = tools.ssh_host(line)
    if host is not None or line.split(None, 1)[:1] == ["ssh"]:
        if host is not None:
            found.append(Subject(host, "machine"))
        remote = _QUOTED.search(line)
        if remote is not None:
            found.extend(of_command(remote.group(1) or remote.group(2) or ""))
        return tuple(dict.fromkeys(found))
    for words in _parts(line):
        found.extend(_of_part(words))
    return tuple(dict.fromkeys(found))


def _parts(line: str) -> list[list[str]]:
    """The commands of a command line, as words (quotes kept), shell keywords before them
    dropped, a shell's ``-c`` command line read for its own; a loop's or a test's header is
    none."""
    out: list[list[str]] = []
    for words in commandline.command_words(line):
        while words and words[0] in _LEADING:
            words = words[1:]
        inner = commandline.shell_string(words)
        if inner is not None:
            out.extend(_parts(inner))
        elif words and words[0] not in _NO_COMMAND and not words[0].startswith(("$", "(", "[")):
            out.append(words)
    return out


def _of_part(quoted: list[str]) -> list[Subject]:
    """What one command of a command line works on."""
    program = tools.program(" ".join(quoted))
    if program is None or program in _LOOKS or _CMDLET.fullmatch(program):
        return []
    words = [w.strip("'\"") for w in quoted]
    lowered = [w.casefold() for w in words]
    at = next((n for n, w in enumerate(lowered) if w.rsplit("/", 1)[-1] == program), None)
    rest = lowered[at + 1:] if at is not None else []
    args = [w for w in rest if not w.startswith("-")]
    if program in _UNIT_AFTER_VERB:
        units = [w for w in args[1:] if _UNIT.fullmatch(w)] if args[:1] and args[0] in _VERBS \
            else []
        return [Subject(_unit(u), "service") for u in units[:1]]
    if program == "service":
        return [Subject(_unit(args[0]), "service")] if args and _UNIT.fullmatch(args[0]) else []
    if program == "brew" and args[:1] == ["services"]:
        return [Subject(args[2], "service")] if len(args) > 2 and _UNIT.fullmatch(args[2]) \
            else []
    if at is not None and "/init.d/" in words[at]:
        return [Subject(program, "service")]
    return [Subject(program, "program")]


def _unit(name: str) -> str:
    """A service's name without its unit type (``nginx.service`` -> ``nginx``)."""
    return re.sub(r"\.(?:service|socket|timer|target|path|mount)$", "", name)


# What prose is not: fenced blocks and code spans (commands, paths, errors).
_FENCED = lazy(r"^ {0,3}(`{3,}|~{3,})[^\n]*\n.*?^ {0,3}\1", re.MULTILINE | re.DOTALL)
_CODE_SPAN = lazy(r"(`+)[^\n]*?\1")
# What starts a sentence, just before a word: the line's start after list, quote, heading and
# emphasis marks, or a sentence's end (a word there is capitalised whatever its spelling).
_SENTENCE_START = lazy(r"(?:^|\n)[ \t]*(?:(?:[-*+>]|\d+[.)]|#{1,6}|\[[ xX]\])[ \t]+)*"
                       r"[*_\"'(]*$|[.!?:][ \t]+[*_\"'(]*$")


def spelled(text: str, names: Iterable[str]) -> dict[str, str]:
    """How ``text`` (a session's note) spells each of ``names`` (as commands write them), by
    the name case-folded: the spelling its prose uses most inside a sentence (``UCI``,
    ``Blocky``; the first met of equals), else the name as written. Code, commands and a
    sentence's first word (capitalised whatever the name) say nothing of its spelling."""
    wanted = {name.casefold(): name for name in names if name}
    out = dict(wanted)
    if not wanted:
        return out
    prose = _CODE_SPAN.sub(" ", _FENCED.sub(" ", text))
    pattern = re.compile(r"(?<![\w./@-])(?:" + "|".join(
        re.escape(n) for n in sorted(wanted, key=len, reverse=True)) + r")(?![\w/@-]|\.\w)",
        re.IGNORECASE)
    seen: dict[str, Counter[str]] = {}
    for found in pattern.finditer(prose):
        if _SENTENCE_START.search(prose, max(0, found.start() - 80), found.start()):
            continue
        seen.setdefault(found.group(0).casefold(), Counter())[found.group(0)] += 1
    for key, forms in seen.items():
        out[key] = forms.most_common(1)[0][0]
    return out
