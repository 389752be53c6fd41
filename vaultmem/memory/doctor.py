"""``vaultmem doctor``: what is wrong in the vault, one problem per line (DESIGN §7). Read-only.

Kinds:
- ``invalid-yaml``: the frontmatter does not parse (Obsidian shows no properties; vaultmem
  refuses to edit the note).
- ``not-utf8``: the note is not UTF-8 text.
- ``unresolved-link``: a wikilink or embed Obsidian would not resolve (links.resolve over every
  note; a target with another extension, such as ``image.png``, resolves against the vault's
  other files). Links in code are not links.
- ``ambiguous-link``: a bare ``[[Name]]`` that several notes of the vault are named (one
  ``Auth`` per project): Obsidian opens whichever it picks (the shortest path), not necessarily
  the one meant. vaultmem writes every link by path (``[[…/entities/Auth|Auth]]``); ``--fix``
  writes older bare ones so (linkfix), and links to moved notes to their new path (linkmend).
- ``compaction-failed``: a note with ``status: compaction_failed``, and its ``error``.
- ``archived-without-archive``: a session with ``status: archived`` outside an archive folder
  whose ``archived_to`` is missing or points to no note.
- ``compacted-twin``: a session compacted before originals became stubs: the original still
  holds the whole session beside its archive copy, so it shows twice in search, the quick
  switcher and the graph. ``--fix`` makes it a stub linking the archive (see stubfix).
- ``stale-lock``: a lock file in ``.vaultmem/locks`` older than an hour that another process
  holds from the start to the end of the doctor run. Locks are ``flock`` locks: the kernel drops
  them when their process dies, so a lock file nobody holds is harmless, and left in place by
  design. A lock that stays held is a hung process: every write to that note times out.
- ``sync-conflict``: a conflict copy made by a sync tool. Patterns (case-insensitive):
  ``X (… conflicted copy …).md`` (Dropbox, Nextcloud/ownCloud, Obsidian Sync),
  ``X.sync-conflict-YYYYMMDD-HHMMSS[-DEVICE].md`` (Syncthing), and ``X (1).md`` next to ``X.md``
  (Google Drive, OneDrive, browsers). iCloud's ``X 2.md`` is not reported: names like
  "Auth Service 2" are legitimate.
- ``unsafe-name``: a note name Obsidian or another OS cannot hold (names.is_safe_filename).
- ``case-collision``: notes in one folder whose names differ only by case (they collapse into
  one on macOS and Windows, and Obsidian links cannot tell them apart).
- ``merge-conflict``: git's conflict markers (a ``<<<<<<<`` line, outside code fences) left in a
  note by a merge, or a ``> [!conflict]`` callout in which vaultmem's merge kept both versions of
  a text two machines changed (see gitshare and notemerge).

- ``temp-file``: a temp file of vaultmem's atomic writes left by a killed process, older than
  atomic.STALE_TEMP_SECONDS (the next write to its folder removes it).
- ``outside-link``: a folder (or note) of the vault that is a symlink to a place outside the
  vault: vaultmem neither reads nor writes through it, so what it holds is not in the memory.
- ``secret``: a secret value (an API key, a password, a private key...; see redact) in a note,
  by kind and line; the value itself is never shown. Notes written before redaction, or a
  person's own text. ``[redact] allow`` in config.toml lists false positives.

- ``near-name``: entities of one folder named alike (``Invoice`` and ``Invoices``, ``Power
  Monitor`` and ``Power Monitor Applet``): ``vaultmem entity merge`` (or ``rename``) joins them.
``vaultmem doctor --fix`` merges sync-conflict copies into their notes (see syncfix),
redacts the secrets in place (see secretfix) and makes compacted twins stubs (see stubfix).
"""

from __future__ import annotations

import contextlib
import os
import re
import time
import unicodedata
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import yaml

from vaultmem.errors import InvalidYaml, NotUtf8
from vaultmem.memory import plainmeta, syncnames
from vaultmem.memory.entitymerge import near_names
from vaultmem.memory.stubfix import is_full_original
from vaultmem.notes import frontmatter, links, mdlines, names, redact, textio
from vaultmem.search import indexrows
from vaultmem.store.atomic import stale_temp_files
from vaultmem.store.config import Config
from vaultmem.store.layout import STATE_DIR
from vaultmem.store.vault import Vault

Kind = Literal[
    "invalid-yaml",
    "not-utf8",
    "unresolved-link",
    "ambiguous-link",
    "compaction-failed",
    "archived-without-archive",
    "compacted-twin",
    "stale-lock",
    "sync-conflict",
    "unsafe-name",
    "case-collision",
    "merge-conflict",
    "temp-file",
    "outside-link",
    "secret",
    "near-name",
]

STALE_LOCK_AGE_S = 3600.0

_MARKER = re.compile(r"^(<{7}(?: |$)|\|{7}(?: |$)|={7}$|>{7}(?: |$))")
_CONFLICT_CALLOUT = re.compile(r"^>\s*\[!conflict\]", re.IGNORECASE)


@dataclass(frozen=True)
class Problem:
    """One thing wrong, where it is."""

    kind: Kind
    rel: str  # vault-relative path (a lock file's path for stale-lock)
    line: int | None  # 1-based, when the problem has a line
    message: str

    def __str__(self) -> str:
        return f"{self.rel}:{self.line or 0}: {self.kind}: {self.message}"

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return {"kind": self.kind, "path": self.rel, "line": self.line, "message": self.message}


@dataclass(frozen=True)
class DoctorReport:
    """Every problem found, sorted by path and line."""

    problems: tuple[Problem, ...]
    notes: int = 0  # notes checked
    namespace: str = "claude"  # vaultmem's folder: problems elsewhere are a person's own notes'

    @property
    def ok(self) -> bool:
        """True when nothing is wrong."""
        return not self.problems

    def ours(self) -> tuple[Problem, ...]:
        """Problems in vaultmem's folder and its state (``.vaultmem/``): vaultmem's to fix."""
        return tuple(p for p in self.problems if _is_ours(p.rel, self.namespace))

    def outside(self) -> tuple[Problem, ...]:
        """Problems in the person's own notes, outside vaultmem's folder (their links to notes
        not written yet are often intentional): reported apart."""
        return tuple(p for p in self.problems if not _is_ours(p.rel, self.namespace))

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict: ``problems`` in vaultmem's folder, ``outside`` the rest."""
        return {
            "ok": not self.ours(),
            "notes": self.notes,
            "problems": [p.to_json() for p in self.ours()],
            "outside": [p.to_json() for p in self.outside()],
        }


def _is_ours(rel: str, namespace: str) -> bool:
    return rel.startswith((namespace.rstrip("/") + "/", ".vaultmem/"))


def doctor(vault: Vault, config: Config | None = None) -> DoctorReport:
    """Check the whole vault; never writes anything."""
    held_at_start = _held_locks(vault)
    notes = list(vault.iter_notes())
    note_index = links.NoteIndex(notes)
    others = links.NoteIndex(_other_files(vault))
    problems: list[Problem] = []
    problems += _name_problems(notes, others.notes)
    problems += _leftover_problems(vault)
    problems += [Problem("near-name", rel, None, said) for rel, said in near_names(notes)]
    cache: dict[tuple[str, str], tuple[bool, str]] = {}
    for rel in notes:
        problems += _note_problems(vault, rel, note_index, others, cache)
    # Held from before the notes were read until after: not a write that happened to run now.
    held = {k: v for k, v in _held_locks(vault).items() if k in held_at_start}
    now = time.time()
    for path, mtime in sorted(held.items()):
        problems.append(
            Problem(
                "stale-lock",
                path,
                None,
                f"held by another process, lock file {int((now - mtime) // 60)} min old; "
                "if no vaultmem process is running, that process is hung: end it",
            )
        )
    problems.sort(key=lambda p: (p.rel, p.line or 0, p.kind))
    return DoctorReport(tuple(problems), len(notes), vault.layout.namespace)


# -- files ------------------------------------------------------------------------------------


def _walk(vault: Vault) -> Iterator[str]:
    """Every non-hidden file of the vault (vault-relative), hidden folders skipped."""
    root = str(vault.root)
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        rel_folder = os.path.relpath(folder, root).replace(os.sep, "/")
        for name in files:
            if not name.startswith("."):
                yield name if rel_folder == "." else f"{rel_folder}/{name}"


def _leftover_problems(vault: Vault) -> list[Problem]:
    """Temp files left by killed writes, and symlinks that lead out of the vault."""
    problems: list[Problem] = []
    root = str(vault.root)
    for folder, dirs, files in os.walk(root):
        rel_folder = os.path.relpath(folder, root).replace(os.sep, "/")
        prefix = "" if rel_folder == "." else rel_folder + "/"
        dirs[:] = [d for d in dirs if not d.startswith(".") or d == STATE_DIR]
        for stale in stale_temp_files(Path(folder)):
            problems.append(Problem("temp-file", prefix + stale.name, None,
                                    "left by a vaultmem write that was killed; safe to delete"))
        for name in [*dirs, *(f for f in files if f.lower().endswith(".md"))]:
            path = os.path.join(folder, name)
            if os.path.islink(path) and not vault.contains(path):
                problems.append(Problem(
                    "outside-link", prefix + name, None,
                    f"a symlink to {os.path.realpath(path)}, outside the vault: vaultmem does "
                    "not read or write there"))
    return problems


def _other_files(vault: Vault) -> list[str]:
    return [rel for rel in _walk(vault) if not rel.lower().endswith(".md")]


def _name_problems(notes: list[str], others: list[str]) -> list[Problem]:
    problems: list[Problem] = []
    by_folder: dict[str, dict[str, list[str]]] = {}
    existing = {rel.lower() for rel in notes} | {rel.lower() for rel in others}
    for rel in [*notes, *others]:
        folder, _, name = rel.rpartition("/")
        is_note = rel.lower().endswith(".md")
        stem = name[:-3] if is_note else name
        conflict = syncnames.conflict_copy(folder, name, existing)
        if conflict:
            problems.append(Problem("sync-conflict", rel, None, conflict))
        if not is_note:
            continue
        if not names.is_safe_filename(stem):
            problems.append(
                Problem(
                    "unsafe-name",
                    rel,
                    None,
                    f"{stem!r} is not a name Obsidian and every OS can hold "
                    '(no * " \\ / < > : | ? # ^ [ ] %, control characters, trailing dot or '
                    "space; NFC; bounded length)",
                )
            )
        key = unicodedata.normalize("NFC", name).lower()
        by_folder.setdefault(folder, {}).setdefault(key, []).append(rel)
    for group in by_folder.values():
        for rels in group.values():
            if len(rels) > 1:
                for rel in rels:
                    twins = ", ".join(r for r in rels if r != rel)
                    problems.append(
                        Problem("case-collision", rel, None, f"differs only by case from {twins}")
                    )
    return problems


def _merge_problems(rel: str, text: str) -> list[Problem]:
    """Git conflict markers and unresolved [!conflict] callouts, outside fenced code."""
    problems: list[Problem] = []
    fence: str | None = None
    for number, line in enumerate(text.split("\n"), start=1):
        fenced = mdlines.FENCE.match(line)
        if fenced:
            mark = fenced.group(1)
            fence = mark if fence is None else (None if mark[0] == fence[0] else fence)
            continue
        if fence is not None:
            continue
        if line.startswith("<<<<<<<") and _MARKER.match(line):
            problems.append(Problem(
                "merge-conflict", rel, number,
                "git conflict markers (<<<<<<< ... >>>>>>>): a merge left both versions; keep "
                "the right text, delete the markers, then `git add` the note"))
        elif _CONFLICT_CALLOUT.match(line):
            problems.append(Problem(
                "merge-conflict", rel, number,
                "a [!conflict] callout: a merge kept both versions of a text changed on two "
                "machines; keep one, delete the other and the callout"))
    return problems


# -- notes -----------------------------------------------------------------------------------


def _secret_problems(rel: str, text: str, redaction: redact.Redaction,
                     namespace: str) -> list[Problem]:
    if not redaction.enabled:
        return []
    todo = ("`vaultmem doctor --fix` redacts it" if _is_ours(rel, namespace) else
            "your own note: vaultmem never rewrites it, remove it yourself (what vaultmem "
            "shows of it is redacted)")
    return [Problem("secret", rel, _line_of(text, found.start),
                    f"a {found.kind} secret (value withheld); {todo}")
            for found in redact.find(text, allow=redaction.allow)]


def _line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def _resolves(
    target: str,
    rel: str,
    folder: str,
    notes: links.NoteIndex,
    others: links.NoteIndex,
    cache: dict[tuple[str, str], tuple[bool, str]],
) -> tuple[bool, str]:
    """(whether the link resolves to a note or an existing attachment (image, PDF...), why a
    bare link is ambiguous or "")."""
    # Resolution depends on the source's folder only, and vaults repeat the same links a lot.
    key = (target, folder)
    hit = cache.get(key)
    if hit is None:
        found = notes.resolve(target, rel)
        same = links.ambiguous(target, rel, notes) if found else []
        why = (f"could mean {len(same)} notes ({_some(same)}); Obsidian opens {found}: link "
               f"by path, [[path|{target}]]") if same else ""
        hit = (found is not None or others.resolve(target, rel) is not None, why)
        cache[key] = hit
    return hit


AMBIGUOUS_SHOWN = 3  # notes an ambiguous-link line names (a vault may hold one per project)


def _some(notes: Sequence[str]) -> str:
    """The first AMBIGUOUS_SHOWN of ``notes`` and how many more: one line stays readable, and
    a report of many such links stays small."""
    more = len(notes) - AMBIGUOUS_SHOWN
    return ", ".join(notes[:AMBIGUOUS_SHOWN]) + (f" and {more} more" if more > 0 else "")


def _read_listed(vault: Vault, rel: str) -> str | None:
    """The text of a note ``iter_notes`` just listed (so inside the vault: no path resolution,
    no fingerprint); None when it is gone or unreadable. NotUtf8 as ``Vault.read``."""
    try:
        with open(os.path.join(vault.root, rel), "rb") as f:
            raw = f.read()
    except OSError:
        return None
    return textio.decode(raw, path=rel)[0]


def _note_problems(
    vault: Vault,
    rel: str,
    notes: links.NoteIndex,
    others: links.NoteIndex,
    cache: dict[tuple[str, str], tuple[bool, str]],
) -> list[Problem]:
    try:
        text = _read_listed(vault, rel)
    except NotUtf8 as err:
        return [Problem("not-utf8", rel, err.line, err.message)]
    if text is None:
        return []  # removed or unreadable since the listing: nothing to say about its text
    problems: list[Problem] = _secret_problems(rel, text, vault.redaction,
                                               vault.layout.namespace)
    if "<<<<<<<" in text or "[!conflict]" in text.lower():
        problems += _merge_problems(rel, text)
    meta = _frontmatter(text, rel, problems)
    skip_targets: set[str] = set()
    if meta is not None:
        problems += _status_problems(rel, meta, notes, skip_targets, text)
    folder = rel.rpartition("/")[0]
    # A mirror of Claude Code's auto memory links memories not written yet, as Claude Code's own
    # prompt allows, and is never written back: its dangling links are not the vault's to fix.
    dangling_ok = meta is not None and meta.get("type") == "auto-memory"
    for target, start, end in links.targets(text):
        if target in skip_targets:
            continue
        shown = text[start:end]
        resolves, ambiguous = _resolves(target, rel, folder, notes, others, cache)
        if ambiguous:
            problems.append(
                Problem("ambiguous-link", rel, _line_of(text, start), f"{shown} {ambiguous}")
            )
        if resolves or dangling_ok:
            continue
        problems.append(
            Problem(
                "unresolved-link",
                rel,
                _line_of(text, start),
                f"{shown} does not resolve to any note or file",
            )
        )
    return problems


# The keys doctor reads (see _status_problems).
_READ_KEYS = frozenset({"status", "type", "archived_to", "error"})


def _frontmatter(text: str, rel: str, problems: list[Problem]) -> dict[str, Any] | None:
    parts = frontmatter.split(text)
    if not parts.has_frontmatter:
        return {}
    plain = plainmeta.read(parts.yaml_text, _READ_KEYS)
    if plain is not None:
        return plain
    try:
        data = indexrows.load_yaml(parts.yaml_text)
        if data is None or isinstance(data, dict):
            return dict(data or {})
    except (yaml.YAMLError, ValueError, TypeError, RecursionError):
        pass
    # The fast parse refused it: the reference parser says where and why.
    try:
        return frontmatter.parse(text, path=rel)
    except InvalidYaml as err:
        problems.append(Problem("invalid-yaml", rel, err.line, err.message))
        return None


def _status_problems(
    rel: str, meta: dict[str, Any], notes: links.NoteIndex, skip_targets: set[str], text: str
) -> list[Problem]:
    status = meta.get("status")
    if status == "compaction_failed":
        error = " ".join(str(meta.get("error") or "no error recorded").split())
        return [Problem("compaction-failed", rel, None, f"compaction failed: {error}")]
    if status != "archived" or meta.get("type") not in (None, "session"):
        return []
    if "/archive/" in f"/{rel}":
        return []  # the archive copy itself
    value = meta.get("archived_to")
    if not value:
        return [
            Problem(
                "archived-without-archive",
                rel,
                None,
                "status is archived but archived_to is not set",
            )
        ]
    found = links.parse(str(value))
    target = found[0].target if found else str(value).strip()
    skip_targets.add(target)
    if target and notes.resolve(target, rel) is not None:
        if is_full_original(meta, text):
            return [Problem("compacted-twin", rel, None,
                            f"the whole session is here and in its archive {value}: "
                            "`vaultmem doctor --fix` makes this note a stub linking the archive")]
        return []
    return [
        Problem(
            "archived-without-archive",
            rel,
            None,
            f"status is archived but its archive {value} does not exist",
        )
    ]


# -- locks -----------------------------------------------------------------------------------


def _held_locks(vault: Vault) -> dict[str, float]:
    """Lock files older than STALE_LOCK_AGE_S that another process holds: rel path -> mtime."""
    folder = vault.state_dir / "locks"
    held: dict[str, float] = {}
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return held
    cutoff = time.time() - STALE_LOCK_AGE_S
    for entry in entries:
        if not entry.name.endswith(".lock") or not entry.is_file():
            continue
        with contextlib.suppress(OSError):
            mtime = entry.stat().st_mtime
            if mtime < cutoff and _is_held(Path(entry.path)):
                held[f"{vault.rel(Path(entry.path))}"] = mtime
    return held


def _is_held(path: Path) -> bool:
    """True when another process holds the flock on ``path`` (a non-blocking probe)."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows: filelock deletes a lock file on release
        return True
    # Read-only: probing must not create, truncate or touch the lock file.
    fd = os.open(path, os.O_RDONLY)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        fcntl.flock(fd, fcntl.LOCK_UN)
        return False
    finally:
        os.close(fd)
