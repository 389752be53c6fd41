"""Claude Code's auto memory, as Claude Code itself finds and loads it, and the vault note that
mirrors one of its files (DESIGN §10). Pure: strings and mappings in, strings out.

Confirmed against Claude Code 2.1.197 (its bundled source) and its memory documentation:
- the folder is ``<config dir>/projects/<sanitized root>/memory/`` where the config dir is
  ``$CLAUDE_CONFIG_DIR`` or ``~/.claude`` and the root is the git checkout's root, a worktree
  resolved to its main repository's root (so worktrees share one folder), else the working
  directory itself; ``autoMemoryDirectory`` in the managed, local, project or user settings
  (first found, in that order; ``~/`` expanded, relative paths ignored) replaces it;
- every character of the root outside ``[A-Za-z0-9]`` becomes ``-`` (``/home/a/my.app`` is
  ``-home-a-my-app``); a result longer than 200 characters is cut to 200 and followed by ``-``
  and a base-36 hash of the path;
- auto memory is off with ``CLAUDE_CODE_DISABLE_AUTO_MEMORY`` truthy (a falsy value forces it on),
  ``CLAUDE_CODE_SIMPLE`` (``--bare``), ``CLAUDE_CODE_SAFE_MODE``, or ``autoMemoryEnabled: false``
  in the merged settings;
- ``MEMORY.md`` is loaded into every session: trimmed, its first 200 lines, then cut at the last
  line break before 25,000 characters.
"""

from __future__ import annotations

import hashlib
import os
import posixpath
import re
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from typing import TYPE_CHECKING, Any

from vaultmem.notes import fences, frontmatter, names, propedit

if TYPE_CHECKING:
    from vaultmem.notes import patch

INDEX_NAME = "MEMORY.md"
INDEX_MAX_LINES = 200
INDEX_MAX_CHARS = 25_000
SANITIZED_MAX = 200
DISABLE_ENV = "CLAUDE_CODE_DISABLE_AUTO_MEMORY"
CONFIG_DIR_ENV = "CLAUDE_CONFIG_DIR"
REMOTE_DIR_ENV = "CLAUDE_CODE_REMOTE_MEMORY_DIR"
OVERRIDE_ENV = "CLAUDE_COWORK_MEMORY_PATH_OVERRIDE"
SETTING_DIR = "autoMemoryDirectory"
SETTING_ENABLED = "autoMemoryEnabled"
# The settings sources Claude Code reads ``autoMemoryDirectory`` from, first found wins (flag
# settings, given on Claude Code's command line, are not visible to a hook).
DIR_SOURCES = ("policy", "local", "project", "user")
# The merge order of every other setting: a later source overrides an earlier one.
MERGE_ORDER = ("user", "project", "local", "policy")
NOTE_TYPE = "auto-memory"
TAG = "claude/auto-memory"
CONFLICT_LABEL = "Claude Code auto memory"

_TRUE = ("1", "true", "yes", "on")
_FALSE = ("0", "false", "no", "off")
_UNSAFE_CHAR = re.compile(r"[^a-zA-Z0-9]")


def _truthy(value: str | None) -> bool:
    return value is not None and value.strip().lower() in _TRUE


def _falsy(value: str | None) -> bool:
    return value is not None and value.strip().lower() in _FALSE


def _java_hash(text: str) -> int:
    """JavaScript's ``h = (h << 5) - h + charCode | 0`` over UTF-16 code units."""
    data = text.encode("utf-16-le", errors="surrogatepass")
    h = 0
    for i in range(0, len(data), 2):
        h = (h * 31 + (data[i] | data[i + 1] << 8)) & 0xFFFFFFFF
    return h - (1 << 32) if h >= 1 << 31 else h


def _base36(n: int) -> str:
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    out = ""
    while True:
        n, r = divmod(n, 36)
        out = digits[r] + out
        if n == 0:
            return out


def sanitize(path: str) -> str:
    """The folder name Claude Code gives a path under ``~/.claude/projects/``."""
    # JavaScript replaces per UTF-16 code unit: a character outside the BMP becomes "--".
    out = "".join(("--" if ord(ch) > 0xFFFF else "-") if _UNSAFE_CHAR.match(ch) else ch
                  for ch in path)
    if len(out) <= SANITIZED_MAX:
        return out
    return f"{out[:SANITIZED_MAX]}-{_base36(abs(_java_hash(path)))}"


def checked_dir(value: object, home: str, *, tilde: bool = True) -> str | None:
    """An ``autoMemoryDirectory`` value as Claude Code accepts it (absolute, ``~/`` expanded when
    ``tilde``), without its trailing separator; None when Claude Code would ignore it."""
    if not isinstance(value, str) or not value:
        return None
    path = value
    if tilde and path.startswith(("~/", "~\\")):
        rest = path[2:]
        inner = posixpath.normpath(rest or ".")
        if inner in (".", "..") or inner.startswith("../"):
            return None
        path = posixpath.join(home, rest)
    path = posixpath.normpath(path).rstrip("/\\")
    if not posixpath.isabs(path) or len(path) < 3 or path.startswith("//") or "\x00" in path:
        return None
    return unicodedata.normalize("NFC", path)


@dataclass(frozen=True)
class Where:
    """Where Claude Code keeps a project's auto memory, and whether it is on."""

    folder: str  # absolute, no trailing separator
    enabled: bool
    why_off: str = ""  # what turned it off, for people


def enabled(env: Mapping[str, str], settings: Mapping[str, Mapping[str, Any]]) -> tuple[bool, str]:
    """Whether Claude Code's auto memory is on, and what turned it off ("" when on)."""
    if _truthy(env.get("CLAUDE_CODE_SAFE_MODE")):
        return False, "CLAUDE_CODE_SAFE_MODE is set"
    flag = env.get(DISABLE_ENV)
    if _truthy(flag):
        return False, f"{DISABLE_ENV} is set"
    if _falsy(flag):
        return True, ""
    if _truthy(env.get("CLAUDE_CODE_SIMPLE")):
        return False, "CLAUDE_CODE_SIMPLE (--bare) is set"
    if (_truthy(env.get("CLAUDE_CODE_REMOTE")) and not env.get(REMOTE_DIR_ENV)
            and not env.get(OVERRIDE_ENV)):
        return False, "CLAUDE_CODE_REMOTE is set"
    value: object = None
    for source in MERGE_ORDER:
        if SETTING_ENABLED in settings.get(source, {}):
            value = settings[source][SETTING_ENABLED]
    if value is False:
        return False, f"{SETTING_ENABLED} is false in the settings"
    return True, ""


def locate(root: str, env: Mapping[str, str], settings: Mapping[str, Mapping[str, Any]],
           home: str) -> Where:
    """The auto-memory folder of the project whose (canonical) root is ``root``."""
    on, why = enabled(env, settings)
    folder = checked_dir(env.get(OVERRIDE_ENV), home, tilde=False)
    if folder is None:
        chosen = next((settings[s][SETTING_DIR] for s in DIR_SOURCES
                       if settings.get(s, {}).get(SETTING_DIR) is not None), None)
        folder = checked_dir(chosen, home)
    if folder is None:
        base = env.get(REMOTE_DIR_ENV) or env.get(CONFIG_DIR_ENV) or posixpath.join(home, ".claude")
        folder = unicodedata.normalize(
            "NFC", posixpath.join(base, "projects", sanitize(root), "memory"))
    return Where(folder, on, why)


def loaded_index(text: str) -> str:
    """The part of ``MEMORY.md`` Claude Code puts into every session's context."""
    text = text.strip()
    lines = text.split("\n")
    if len(lines) <= INDEX_MAX_LINES and len(text) <= INDEX_MAX_CHARS:
        return text
    kept = "\n".join(lines[:INDEX_MAX_LINES]) if len(lines) > INDEX_MAX_LINES else text
    if len(kept) > INDEX_MAX_CHARS:
        cut = kept.rfind("\n", 0, INDEX_MAX_CHARS)
        kept = kept[: cut if cut > 0 else INDEX_MAX_CHARS]
    return kept


# -- the mirror note ----------------------------------------------------------------------------


def sha256(text: str) -> str:
    """The ``source_sha256`` of a source text (its UTF-8 bytes, LF line ends)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def note_name(source_rel: str) -> str:
    """The vault-relative name (below the mirror folder, with ``.md``) of a source file."""
    parts = source_rel.split("/")
    stem = parts[-1].removesuffix(".md")
    return "/".join([*(names.sanitize_filename(p) for p in parts[:-1]),
                     names.sanitize_filename(stem) + ".md"])


_FENCE_OPEN = "```yaml\n"
_FENCE_CLOSE = "```\n"


def render_body(source: str) -> str:
    """The mirror's body: the source text, its own frontmatter (a topic file's ``name``,
    ``description``, ``metadata``) shown as a fenced YAML block, as the second ``---`` block
    of a note would render as a heading in Obsidian."""
    parts = fences.split(source)
    yaml_text, rest = parts.yaml_text, parts.body
    if (not parts.has_frontmatter or "---\n" + yaml_text + "---\n" + rest != source
            or any(line.startswith("```") for line in yaml_text.split("\n"))):
        return source
    return _FENCE_OPEN + yaml_text + _FENCE_CLOSE + rest


def _unfenced(body: str) -> str | None:
    """The source a rendered body came from when it holds a fenced frontmatter, else None."""
    if not body.startswith(_FENCE_OPEN):
        return None
    end = body.find("\n" + _FENCE_CLOSE, len(_FENCE_OPEN) - 1)
    if end < 0:
        return None
    yaml_text = body[len(_FENCE_OPEN):end + 1]
    return "---\n" + yaml_text + "---\n" + body[end + 1 + len(_FENCE_CLOSE):]


def untouched(body: str, source_sha: object) -> bool:
    """Whether a mirror's body is still the source text of ``source_sha`` (nobody edited it)."""
    if not isinstance(source_sha, str) or not source_sha:
        return False
    if sha256(body) == source_sha:
        return True
    source = _unfenced(body)
    return source is not None and sha256(source) == source_sha


def new_note(project: str, source_path: str, source: str, today: date,
             sessions: Sequence[str] = ()) -> str:
    """The text of a new mirror note of ``source`` (read from ``source_path``)."""
    text = "---\ntype: " + NOTE_TYPE + "\n---\n" + render_body(source)
    for key, value in (("project", project), ("source", source_path),
                       ("source_sha256", sha256(source)), ("status", "active"),
                       ("created", today), ("updated", today), ("tags", [TAG]),
                       ("sessions", list(sessions))):
        if value or key != "sessions":
            text = propedit.set_key(text, key, value)
    return text


def remirrored(text: str, source: str, source_name: str) -> str:
    """``text`` (a mirror note) with its body replaced by ``source`` when nobody edited it since
    the last mirror; else the person's version stays and the new source text goes where the
    conflict rules put Claude's text (``## Claude's Updates (conflicted)``).

    A pure function of ``text``, so the edit rebases onto a note changed meanwhile."""
    parts = fences.split(text)
    meta = frontmatter.parse(text)
    body = render_body(source)
    if parts.has_frontmatter and untouched(parts.body, meta.get("source_sha256")):
        head = text[: parts.body_offset]
        return (head if head.endswith("\n") else head + "\n") + body
    if untouched(parts.body, sha256(source)):
        return text  # the note holds this very source already (another machine mirrored it)
    from vaultmem.notes import patch  # only the mirror (automirror) edits: a start only looks

    edit = patch.SectionPatch((source_name,), "replace", body)
    return patch.conflicted(text, edit, label=CONFLICT_LABEL)


def update_edits(source: str, source_name: str, today: date, status: object,
                 session_link: str | None) -> list[patch.Edit]:
    """The edits that bring an existing mirror up to ``source``."""
    from vaultmem.notes import patch  # only the mirror (automirror) edits: a start only looks

    edits: list[patch.Edit] = [
        patch.Rewrite(lambda text: remirrored(text, source, source_name)),
        patch.SetProperty("source_sha256", sha256(source)),
        patch.SetProperty("updated", today),
    ]
    if status != "active":
        edits += [patch.SetProperty("status", "active"), patch.DeleteProperty("archived_date"),
                  patch.DeleteProperty("archived_reason")]
    if session_link:
        edits.append(patch.AddToProperty("sessions", session_link))
    return edits


ARCHIVED_REASON = "removed from Claude Code's auto memory"


def archive_edits(today: date) -> list[patch.Edit]:
    """The edits marking a mirror whose source file is gone (the note is kept)."""
    from vaultmem.notes import patch  # only the mirror (automirror) edits: a start only looks

    return [patch.SetProperty("status", "archived"), patch.SetProperty("archived_date", today),
            patch.SetProperty("archived_reason", ARCHIVED_REASON)]


def is_markdown(name: str) -> bool:
    """Whether a file of the folder is a memory file (Claude Code writes ``*.md``)."""
    return name.endswith(".md") and not name.startswith(".")


def join(folder: str, rel: str) -> str:
    """An absolute source path (``rel`` is POSIX)."""
    return os.path.join(folder, *rel.split("/"))
