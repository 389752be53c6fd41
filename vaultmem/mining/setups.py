"""States a session set up and left in place, as decisions (pure; the lead's decision, stop 49;
issue 28 §5: state over time).

A configuration value written, a package installed or pinned, a service enabled is a decision
even when no reason is said: the next session meets it as the way things are. The shapes are
those the work log already records (:mod:`settingcmds` for command parts, :mod:`configpairs`
for the keys a file tool set), each read into a :class:`Setup` filed under what it configures:

- ``git config [--global] k v``, ``<tool> config set k v`` (npm, pip, gh, kubectl…), ``uci set``,
  ``sysctl -w``, ``gsettings set``, ``defaults write``, ``timedatectl set-timezone``…: the tool;
- ``systemctl enable x``, ``/etc/init.d/x enable``, ``rc-update add x``: the service ``x``;
- an install naming one or two packages: each package (``pinned`` when a version is given; the
  installer is left out of its line, which would file it under the installer too); more at once
  is one line under the installer;
- ``echo 'export K=v' >> ~/.zshrc`` and an Edit or small Write of a config file: each key set
  (at most :data:`PAIRS_TAKEN` in one call: more is a rewrite, no value chosen), under the file's
  component (the caller's) or the tool its path names (``/etc/nginx/…``, ``~/.config/fish/…``).

Left out: a read (``git config k``), a disable, removal or unset (they take a setup back:
:func:`settled` drops it), a key that only labels (``name``, ``description``), a redacted value,
a bulk install from a file (``pip install -r …``). A later setting of the same key supersedes
an earlier one. The caller passes only calls that ran without failing.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from vaultmem.mining import commandline, settingcmds
from vaultmem.mining.configpairs import ARROW, key_of
from vaultmem.notes import schema
from vaultmem.notes.lazyre import lazy
from vaultmem.notes.secretspan import MARK_OPEN

LABEL = schema.SET_UP
PACKAGES_APART = 2  # an install of more packages is one line under its installer
PAIRS_TAKEN = 3  # a file tool setting more keys in one call rewrites the file
VALUE_MAX_CHARS = 80
_QUOTES = "\"'"
LINE_MAX_CHARS = 400  # sessionextract.MAX_ITEM_CHARS: a longer item is cut

# Keys that name or describe a thing rather than set how it behaves.
_LABEL_KEYS = frozenset({"name", "description", "title", "id", "summary", "comment", "label",
                         "labels", "text", "message", "about", "help", "display_name"})
_CONFIG_TOOLS = frozenset({"npm", "pnpm", "yarn", "pip", "pip3", "poetry", "conda", "gh",
                           "glab", "gcloud", "az", "kubectl", "helm", "docker"})
_SET_VERBS = {"set-timezone": "timezone", "set-hostname": "hostname", "set-locale": "locale",
              "set-keymap": "keymap", "set-ntp": "ntp", "set-default": "default target"}
# Options of an install whose next word is no package (a requirements file, an index).
_OPTION_ARGS = frozenset({"-r", "--requirement", "-c", "--constraint", "-e", "--editable",
                          "-f", "--find-links", "-i", "--index-url", "--extra-index-url",
                          "--target", "-t", "--prefix", "--root", "--python", "-p",
                          "--features", "-F", "--registry", "--git", "--branch", "--rev",
                          "--tag", "--path", "--vers", "--version", "-v", "--source",
                          "--index", "--channel", "--group", "-G"})
_PACKAGE = lazy(
    r"\A@?[A-Za-z0-9][\w.+-]*(?:/[\w.+-]+)*(?:\[[\w,-]+\])?(?:(?:==|>=|~=|@|=)[\w.^~*+-]+)?\Z")
_PINNED = lazy(r"(?<=.)(?:==|@|=)(?P<version>v?\d[\w.+-]*)\Z")
_PACKAGE_FILE = lazy(r"\.(?:txt|toml|cfg|lock|json|whl|gz|tgz|zip|deb|rpm|apk|dmg|pkg)\Z")
_EXPORT = lazy(r"\A(?:export\s+)?(?P<key>[A-Za-z_]\w*)=(?P<value>\S.*)\Z")
_UNIT_SUFFIX = lazy(r"\.(?:service|timer|socket|target|path|mount)\Z")


@dataclass(frozen=True)
class Setup:
    """One state set up, as its decision line reads."""

    subject: str  # what it configures ("" : the component of ``path``, the caller's to find)
    keys: tuple[str, ...]  # what it sets, as a later setting of the same thing names it
    text: str  # ``Set up: <what> (<value>)``
    undo: bool = False  # it takes back the setups of ``keys`` (a removal, a disable, an unset)
    path: str = ""  # the file it set values in, as shown
    source: str = ""  # the command part it was read from


def of_call(tool: str, changes: Sequence[str], path: str | None) -> list[Setup]:
    """The setups of one call that ran: a Bash command's kept parts, or the pairs a file tool
    set in the config file ``path`` (as shown)."""
    if tool == "Bash":
        return [replace(s, source=part) for part in changes for s in of_command(part)]
    if path is None or len(changes) > PAIRS_TAKEN:
        return []
    return [s for pair in changes if (s := _of_pair(pair, path)) is not None]


def of_command(part: str) -> list[Setup]:
    """The setups of one kept command part (:func:`settingcmds.parts`)."""
    install = settingcmds.install_args(part)
    if install is not None:
        return _installed(*install)
    words = [commandline.unquoted(w) for w in commandline.words(settingcmds.bare(part))]
    if not words:
        return []
    program = posixpath.basename(words[0])
    if program == "git" and words[1:2] == ["config"]:
        return _git_config(words[2:])
    if program in _CONFIG_TOOLS and words[1:3] in (["config", "set"], ["config", "unset"]):
        return _keyed(program, f"{program} config", words[3:], undo=words[2] == "unset")
    if program == "aws" and words[1:3] == ["configure", "set"]:
        return _keyed("aws", "aws configure", words[3:])
    if program == "uci":
        args = [w for w in words[1:] if w != "-q"]
        if args[:1] == ["set"]:
            return _keyed("uci", "uci", args[1:])
        if args[:1] == ["delete"] and len(args) == 2:
            return [Setup("uci", (f"uci {args[1]}",), "", undo=True)]
        return []
    if program in ("sysctl", "nvram"):
        return _keyed(program, program, [w for w in words[1:] if w not in ("-w", "set")])
    if program in ("gsettings", "dconf") and len(words) >= 4 and words[1] in ("set", "write"):
        return _keyed(program, program, [" ".join(words[2:-1]), words[-1]])
    if program == "defaults" and "write" in words[1:3]:
        args = words[words.index("write") + 1:]
        if len(args) >= 3:
            return _keyed("defaults", "defaults", [" ".join(args[:2]), args[-1]])
        return []
    if program in ("timedatectl", "hostnamectl", "localectl") and len(words) >= 3 \
            and words[1] in _SET_VERBS:
        return _keyed(program, program, [_SET_VERBS[words[1]], " ".join(words[2:])])
    if program == "systemctl" or program == "rc-update" or words[0].startswith("/etc/init.d/"):
        return _service(words)
    if program in ("echo", "printf"):
        return _exported(words)
    return []


def settled(found: Iterable[Setup]) -> list[Setup]:
    """The setups left in place, in the order last set: a later setting of a key supersedes
    the earlier one, an undo drops every setup of its keys."""
    kept: list[Setup] = []
    for setup in found:
        kept = [s for s in kept if not set(s.keys) & set(setup.keys)]
        if not setup.undo:
            kept.append(setup)
    return kept


def joined(group: Sequence[Setup], limit: int = LINE_MAX_CHARS) -> str:
    """One decision line of the setups of one turn filed under one component: ``Set up: a (1);
    b (2)``, the setups past ``limit`` characters counted."""
    line, shown = LABEL, 0
    for setup in group:
        said = setup.text.removeprefix(LABEL).strip()
        if shown and len(line) + len(said) + 2 > limit - len(" (+99 more)"):
            break
        line += ("; " if shown else " ") + said
        shown += 1
    return line + (f" (+{len(group) - shown} more)" if len(group) > shown else "")


def _line(what: str, value: str) -> str:
    return f"{LABEL} {what} ({value.strip().strip(_QUOTES)})"


def _usable(value: str) -> bool:
    """A value a person sets: one scalar (not a table, a list, a block of text, a cut value or a
    redacted one)."""
    value = value.strip()
    return bool(value) and len(value) <= VALUE_MAX_CHARS and MARK_OPEN not in value and \
        not value.startswith(("{", "[", "(", "|", ">")) and not value.endswith("…") and \
        "\\n" not in value and "`" not in value


def _keyed(subject: str, tool: str, args: Sequence[str], *, undo: bool = False) -> list[Setup]:
    """``<tool> <key> <value>`` or ``<tool> <key>=<value>``."""
    args = [a for a in args if a]
    if not args:
        return []
    key, value = args[0], " ".join(args[1:])
    if not value and "=" in key:
        key, _, value = key.partition("=")
    if undo:
        return [Setup(subject, (f"{tool} {key}",), "", undo=True)]
    if not _usable(value) or key.casefold() in _LABEL_KEYS:
        return []
    return [Setup(subject, (f"{tool} {key}",), _line(f"{tool} {key}", value))]


def _git_config(args: Sequence[str]) -> list[Setup]:
    scope, rest, skip = "", [], False
    for n, word in enumerate(args):
        if skip:
            skip = False
        elif word in ("--global", "--system", "--local"):
            scope = word[2:]
        elif word == "--file":
            skip = True
        elif word in ("--unset", "--unset-all") and n + 1 < len(args):
            return [Setup("git", (f"git config {args[n + 1]}",), "", undo=True)]
        elif not word.startswith("-"):
            rest.append(word)
    if len(rest) < 2:
        return []
    what = "git config " + (f"--{scope} " if scope == "global" else "") + rest[0]
    value = " ".join(rest[1:])
    if not _usable(value):
        return []
    return [Setup("git", (f"git config {rest[0]}",), _line(what, value))]


def _installed(command: str, args: str) -> list[Setup]:
    words = command.split()
    tool = next((w for w in words if not re.match(r"python\d*(?:\.\d+)?\Z|-m\Z", w)), words[0])
    tool = posixpath.basename(tool)
    removal = settingcmds.label(f"{command} x") == settingcmds.REMOVED
    if "tap" in words:  # a formula source added, nothing installed yet
        return []
    names: list[tuple[str, str]] = []
    skip = False
    for word in (commandline.unquoted(w) for w in commandline.words(args)):
        if skip or word.startswith("-"):
            skip = not skip and word in _OPTION_ARGS
            continue
        if word in ("install", "add", "-g") or word.startswith((".", "/", "~")) or \
                _PACKAGE_FILE.search(word) or not _PACKAGE.match(word):
            return [] if not removal else _removed(tool, names)
        pinned = _PINNED.search(word)
        name = word[:pinned.start()] if pinned else re.split(r"==|>=|~=|(?<=.)@", word)[0]
        name = name.split("[", 1)[0]
        names.append((name, pinned.group("version") if pinned else ""))
    if removal or not names:
        return _removed(tool, names)
    if len(names) > PACKAGES_APART:
        listed = ", ".join(n for n, _ in names)
        return [Setup(tool, tuple(f"package {n}" for n, _ in names),
                      _line(listed, f"installed with {tool}"))]
    return [Setup(name, (f"package {name}",),
                  _line(name, f"pinned {version}" if version else "installed"))
            for name, version in names]


def _removed(tool: str, names: Sequence[tuple[str, str]]) -> list[Setup]:
    return [Setup(tool, tuple(f"package {n}" for n, _ in names), "", undo=True)] if names else []


def _service(words: Sequence[str]) -> list[Setup]:
    """``systemctl [--user] enable|disable|mask [--now] units``, ``/etc/init.d/x enable``,
    ``rc-update add|del x``."""
    if words[0].startswith("/etc/init.d/"):
        verb, units = (words[1] if len(words) > 1 else ""), [posixpath.basename(words[0])]
    elif words[0] == "rc-update":
        verb = {"add": "enable", "del": "disable"}.get(words[1] if len(words) > 1 else "", "")
        units = list(words[2:3])
    else:
        args = [w for w in words[1:] if not w.startswith("-")]
        verb, units = (args[0], args[1:]) if args else ("", [])
    if verb not in ("enable", "disable", "mask"):
        return []
    out = []
    for unit in units:
        name = _UNIT_SUFFIX.sub("", unit)
        if not name or "$" in name:
            continue
        out.append(Setup(name, (f"service {name}",), "" if verb != "enable"
                         else _line(f"{name} service", "enabled"), undo=verb != "enable"))
    return out


def _exported(words: Sequence[str]) -> list[Setup]:
    """``echo 'export K=v' >> file``: the variable set in a profile or config file."""
    if ">>" not in words and ">" not in words:
        return []
    at = words.index(">>") if ">>" in words else words.index(">")
    said = " ".join(w for w in words[1:at] if not w.startswith("-"))
    found = _EXPORT.match(said.strip())
    path = words[at + 1] if at + 1 < len(words) else ""
    if found is None or not path or not _usable(found.group("value")):
        return []
    key = found.group("key")
    return [Setup(tool_of(path), (f"{path} {key}",),
                  _line(key, found.group("value").strip("\"'")) + f" in {path}", path=path)]


def _of_pair(pair: str, path: str) -> Setup | None:
    key = key_of(pair)
    value = pair[len(key):].removeprefix(" = ").removeprefix(": ")
    old = ""
    if ARROW in value:
        old, _, value = value.partition(f" {ARROW} ")
    bare_key = key.strip("\"'")
    if not _usable(value) or (old and not _usable(old)) or bare_key.rsplit(".", 1)[-1].casefold() in _LABEL_KEYS:
        return None
    name = posixpath.basename(path.replace("\\", "/"))
    value = value.strip().strip("\"'") + (f", was {old.strip().strip(_QUOTES)}" if old else "")
    return Setup("", (f"{path} {bare_key}",), _line(f"{bare_key} in {name}", value), path=path)


def tool_of(path: str) -> str:
    """The tool a config file outside the project belongs to, by its path: ``/etc/nginx/…`` and
    ``~/.config/fish/…`` name their folder, ``.zshrc``/``.gitconfig`` their stem, else ""."""
    path = path.replace("\\", "/")
    found = re.search(r"(?:^|/)(?:etc|\.config)/([\w.-]+)/", path)
    if found is not None:
        return found.group(1)
    name = posixpath.basename(path)
    stem = re.sub(r"\A\.|rc\Z|config\Z|_profile\Z|profile\Z", "", name)
    return stem if name.startswith(".") and stem not in ("", "env") else ""


def superseded(lines: Sequence[str]) -> list[str]:
    """``lines`` (a session's decision lines, oldest first) with each ``Set up:`` setting a
    later line sets again left out of the earlier line ("" when none of it is left): the state
    last set is the one in place. A list item added (``uci x (+ v)``) is its own setting."""
    later: set[str] = set()
    out: list[str] = []
    for line in reversed(lines):
        if not line.startswith(LABEL):
            out.append(line)
            continue
        parts = [p.strip() for p in line[len(LABEL):].split("; ")]
        kept = [p for p in parts if _setting(p) not in later]
        later.update(_setting(p) for p in parts)
        out.append(line if len(kept) == len(parts) else
                   f"{LABEL} {'; '.join(kept)}" if kept else "")
    return out[::-1]


def _setting(part: str) -> str:
    """What one part of a ``Set up:`` line sets: ``Lsa LmCompatibilityLevel (5)`` ->
    ``lsa lmcompatibilitylevel``, ``EDITOR (vim) in ~/.zshrc`` -> ``editor in ~/.zshrc``,
    ``TermService (RDP): Disabled`` -> ``termservice (rdp)``."""
    part = part.split(" (+", 1)[0] if part.endswith(" more)") else part
    if ": " in part and not part.endswith(")"):
        return part.split(": ", 1)[0].casefold()
    what, _, rest = part.partition(" (")
    value, _, where = rest.rpartition(")")
    added = f" + {value[2:]}" if value.startswith("+ ") else ""
    return f"{what}{where}{added}".casefold()
