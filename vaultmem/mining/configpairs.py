"""What a Write, Edit or MultiEdit of a config-like file set, as short ``key = value`` lines (pure;
issue 28: knowledge that lives only in tool inputs).

A developer later asks "what did we set the timeout to?": the value is in the tool call's input,
never in Claude's prose. For a file read as configuration (by its name: ``.toml``, ``.yaml``,
``.ini``, ``.env``, systemd units, shell rc files, files under ``/etc/``…; :func:`config_like`),
the lines that set a key are kept:

- a Write: the keys it sets, in file order;
- an Edit (and each edit of a MultiEdit): the lines its new text adds, a key whose value changed
  as ``key: old → new``.

Left out: source code and prose (their diff lives in git, a doc is no setting), comments, section
headers, keys without a value (a YAML parent ``jobs:``), and everything past the caps. Every pair is
taken from text the caller redacted whole (a key cut from its value is no longer recognised) and
a key named like a secret keeps no value it did not redact (``API_TOKEN = ‹redacted:token›``).
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Iterable
from typing import Any

from vaultmem.notes.lazyre import lazy
from vaultmem.notes.secretnames import name_kind
from vaultmem.notes.secretspan import MARK_OPEN, mark

PAIRS_MAX = 12  # pairs kept per call (the entry shows fewer: workentry)
KEY_MAX_CHARS = 48
VALUE_MAX_CHARS = 60
SCAN_CHARS = 64 * 1024  # of a file's text, read for its pairs
ARROW = "→"

_SUFFIXES = frozenset({
    ".toml", ".yaml", ".yml", ".ini", ".cfg", ".conf", ".config", ".env", ".properties",
    ".json", ".jsonc", ".json5", ".service", ".timer", ".socket", ".mount", ".path", ".target",
    ".network", ".netdev", ".link", ".plist", ".rc", ".desktop", ".tf", ".tfvars", ".hcl",
    ".editorconfig", ".gitconfig", ".npmrc", ".yarnrc", ".gitattributes",
})
_NAMES = frozenset({
    ".env", ".bashrc", ".zshrc", ".profile", ".bash_profile", ".zprofile", ".zshenv",
    ".npmrc", ".yarnrc", ".pypirc", ".gitconfig", ".editorconfig", ".curlrc", ".wgetrc",
    "config", "crontab", "makefile.conf", "pyproject.toml", "setup.cfg", "gemfile", "procfile",
})
# A line that sets a key: ``key = value``, ``key: value``, ``"key": value``, ``export KEY=v``,
# ``set key value`` is not one (ambiguous with prose).
_PAIR = lazy(r"""\A\s*(?:-\s+)?(?:export\s+)?["']?(?P<key>[A-Za-z_@$][\w.@$\[\]/-]{0,80})["']?
              \s*(?P<sep>=|:)(?!//)\s*(?P<value>\S.*?)\s*,?\s*\Z""", re.VERBOSE)

# A comment after a value (``retries: 3  # why``); a ``#`` inside a value (``host#5335``) stays.
_COMMENT = lazy(r"\s+(?:#|//|;)\s.*\Z")


def config_like(path: str) -> bool:
    """Whether ``path`` names a file read as configuration (a Windows path too)."""
    path = path.replace("\\", "/")
    name = posixpath.basename(path).casefold()
    suffix = posixpath.splitext(name)[1]
    if name.startswith(".env") or name in _NAMES or suffix in _SUFFIXES:
        return True
    # Files with no suffix where configuration lives (``/etc/ssh/sshd_config``, a systemd
    # drop-in folder, ``~/.config/app/settings``).
    folded = path.casefold()
    return not suffix and any(part in folded for part in ("/etc/", "/.config/", "/.ssh/", ".d/"))


def pairs_of(tool: str, tool_input: dict[str, Any], scrub: Callable[[str], str]
             ) -> tuple[str, ...]:
    """The pairs a file tool's input sets, redacted by ``scrub`` (see the module doc)."""
    if tool == "Write":
        content = tool_input.get("content")
        return _capped(_pairs(scrub(content[:SCAN_CHARS]))) if isinstance(content, str) else ()
    edits = tool_input.get("edits") if tool == "MultiEdit" else [tool_input]
    found: list[str] = []
    for edit in edits if isinstance(edits, list) else ():
        if not isinstance(edit, dict):
            continue
        old, new = edit.get("old_string"), edit.get("new_string")
        if isinstance(old, str) and isinstance(new, str):
            found.extend(_changed(scrub(old[:SCAN_CHARS]), scrub(new[:SCAN_CHARS])))
    return _capped(found)


def key_of(pair: str) -> str:
    """The key of a pair as :func:`pairs_of` writes it (``key = v``, ``key: v``, ``key: a → b``)."""
    return pair.split(" ", 1)[0].removesuffix(":")


def _capped(found: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(found))[:PAIRS_MAX]


def _changed(old: str, new: str) -> list[str]:
    """The pairs ``new`` adds to ``old``; a key both set, as ``key: old → new``."""
    before = {line.strip() for line in old.splitlines()}
    olds, news = _split(old), _split(new)
    # A key said once on each side changed its value; one said again and again (a YAML list's
    # ``name:``) cannot be paired, its new lines are shown as set.
    was = {key: value for key, _, value in olds
           if [k for k, _, _ in olds].count(key) == 1 == [k for k, _, _ in news].count(key)}
    found: list[str] = []
    for line in new.splitlines():
        if line.strip() in before:
            continue
        for key, sep, value in _split(line):
            if key in was and was[key] != value:
                found.append(f"{key}: {_clip(was[key])} {ARROW} {value}")
            elif key not in was:
                found.append(_shown(key, sep, value))
    return found


def _pairs(text: str) -> list[str]:
    return [_shown(key, sep, value) for key, sep, value in _split(text)]


def _shown(key: str, sep: str, value: str) -> str:
    return f"{key} = {value}" if sep == "=" else f"{key}: {value}"


def _split(text: str) -> list[tuple[str, str, str]]:
    """(key, separator, value) of each line of ``text`` that sets a key, values clipped."""
    found: list[tuple[str, str, str]] = []
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith(("#", ";", "//", "[", "<!--", "*")):
            continue
        match = _PAIR.match(line)
        if match is None:
            continue
        key, value = match.group("key"), _COMMENT.sub("", match.group("value")).strip()
        if len(key) > KEY_MAX_CHARS or value in ("{", "[", "(", "|", ">", "{}", "[]") \
                or "://" in key:
            continue
        kind = name_kind(key)
        if kind is not None and MARK_OPEN not in value and value.strip("\"'") not in ("", "null"):
            value = mark(kind)  # a secret's name: no value of it is kept unredacted
        found.append((key, match.group("sep"), _clip(value)))
    return found


def _clip(value: str) -> str:
    return value if len(value) <= VALUE_MAX_CHARS else value[:VALUE_MAX_CHARS - 1].rstrip() + "…"
