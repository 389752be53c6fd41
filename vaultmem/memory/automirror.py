"""Mirror Claude Code's auto memory into the vault (the shell around ``automemory``).

At SessionStart and SessionEnd the project's auto-memory folder is found as Claude Code finds it
(from the hook's cwd, the environment and the settings files), listed with ``lstat`` only and
compared with what this machine saw last time (``.vaultmem/hosts/<host>/auto-memory/``): when
nothing moved, that is all. A file that moved is read bounded and hostile-safe (no symlink out of
the folder, ``O_NOFOLLOW``, regular files only, no binary or non-UTF-8 text, a file changing
while read is read once more, then skipped) and mirrored into
``<ns>/projects/<p>/auto-memory/<name>.md`` through the vault's conflict-safe writes. Nothing is
ever written into Claude Code's folder.
"""

from __future__ import annotations

import json
import os
import posixpath
import stat
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

from vaultmem.errors import LockTimeout, NoteExists, NoteNotFound, VaultmemError
from vaultmem.notes import fences, patch
from vaultmem.store import machine
from vaultmem.store.atomic import replace_file
from vaultmem.store.layout import link_target
from vaultmem.store.vault import Vault

from . import automemory
from .autowhere import FOLDER, read_json, seen_path, where

MAX_FILES = 200  # files mirrored per folder; the rest is skipped and said once
MAX_FILE_BYTES = 256 * 1024
# A mirror note in the vault: its source's bytes and a few properties. One far bigger was not
# made by vaultmem (a pushed one): a hook does not read it.
MAX_NOTE_BYTES = 2 * MAX_FILE_BYTES
MAX_TOTAL_BYTES = 2 * 1024 * 1024  # read per run: a huge folder costs a hook this much at most
MAX_DEPTH = 3  # the folder and two levels of subfolders
LOCK_SECONDS = 0.5  # another hook mirroring the same folder: let it, do not wait longer
INDEX_HEADING = "Auto Memory"


# -- reading the folder ------------------------------------------------------------------------


@dataclass(frozen=True)
class Source:
    """A file of the auto-memory folder as ``lstat`` (or, for a symlink inside, ``stat``) saw it."""

    rel: str  # POSIX path below the folder
    path: str  # the real path to open
    mtime_ns: int
    size: int
    ino: int

    def key(self) -> list[int]:
        return [self.mtime_ns, self.size, self.ino]


@dataclass
class Listing:
    sources: list[Source] = field(default_factory=list)
    refused: dict[str, str] = field(default_factory=dict)  # rel -> why, not worth a stat key


def _inside(real: str, folder: str) -> bool:
    return real == folder or real.startswith(folder.rstrip(os.sep) + os.sep)


def scan(folder: str) -> Listing:
    """The memory files of ``folder`` (its real path), stat only, ``MEMORY.md`` first."""
    out = Listing()
    stack = [(folder, "", 0)]
    while stack:
        path, prefix, depth = stack.pop()
        try:
            with os.scandir(path) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError:
            continue
        for entry in entries:
            if entry.name.startswith("."):
                continue
            rel = prefix + entry.name
            try:
                if entry.is_symlink():
                    real = os.path.realpath(entry.path)
                    if not _inside(real, folder):
                        out.refused[rel] = "a symlink leading out of the folder"
                        continue
                    st = os.stat(real)
                    if not stat.S_ISREG(st.st_mode):
                        continue  # a link to a folder inside: reached as that folder
                    target = real
                else:
                    st = entry.stat(follow_symlinks=False)
                    target = entry.path
                    if stat.S_ISDIR(st.st_mode):
                        if depth + 1 < MAX_DEPTH:
                            stack.append((entry.path, rel + "/", depth + 1))
                        continue
                    if not stat.S_ISREG(st.st_mode):
                        out.refused[rel] = "not a regular file"
                        continue
            except OSError:
                continue
            if not automemory.is_markdown(entry.name):
                out.refused[rel] = "not a markdown file"
                continue
            out.sources.append(Source(rel, target, st.st_mtime_ns, st.st_size, st.st_ino))
    out.sources.sort(key=lambda s: (s.rel != automemory.INDEX_NAME, s.rel))
    return out


class Unreadable(Exception):
    """A source file that is not mirrored, and why."""


def read_source(source: Source) -> str:
    """The text of a memory file (UTF-8, LF); Unreadable says why it is skipped."""
    for attempt in range(2):
        flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
        try:
            fd = os.open(source.path, flags | getattr(os, "O_CLOEXEC", 0))
        except OSError as err:
            raise Unreadable(f"cannot be opened ({err.strerror or err})") from None
        try:
            before = os.fstat(fd)
            if not stat.S_ISREG(before.st_mode):
                raise Unreadable("not a regular file")
            if before.st_ino != source.ino:
                raise Unreadable("was replaced while it was listed")
            if before.st_size > MAX_FILE_BYTES:
                raise Unreadable(f"larger than {MAX_FILE_BYTES // 1024} KiB")
            # One byte more than the size seen: a file growing meanwhile shows it.
            chunks, left = [], before.st_size + 1
            while left > 0:
                chunk = os.read(fd, left)
                if not chunk:
                    break
                chunks.append(chunk)
                left -= len(chunk)
            raw = b"".join(chunks)
            after = os.fstat(fd)
        finally:
            os.close(fd)
        if (after.st_mtime_ns, after.st_size, len(raw)) == (
                before.st_mtime_ns, before.st_size, before.st_size):
            return _text(raw)
        if attempt:
            raise Unreadable("kept changing while it was read")
    raise AssertionError("unreachable")


def _text(raw: bytes) -> str:
    if b"\x00" in raw:
        raise Unreadable("binary (holds NUL bytes)")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise Unreadable("not UTF-8 text") from None
    return text.removeprefix("\ufeff").replace("\r\n", "\n")


# -- what this machine saw last time -----------------------------------------------------------


def _load_seen(path: Path) -> dict[str, Any]:
    """``files``: source rel -> ``stat`` [mtime_ns, size, ino], ``sha256`` or ``skipped``;
    ``over``: files past the cap, last said."""
    data = read_json(str(path))
    files = data.get("files")
    over = data.get("over")
    return {
        "files": ({k: v for k, v in files.items() if isinstance(v, dict)}
                  if isinstance(files, dict) else {}),
        "over": over if isinstance(over, int) else 0,
    }


def _save_seen(vault: Vault, path: Path, folder: str, files: dict[str, dict[str, Any]],
               over: int) -> None:
    machine.ensure_state_dir(vault.state_dir)
    path.parent.mkdir(parents=True, exist_ok=True)
    payload = json.dumps({"folder": folder, "files": files, "over": over}, sort_keys=True,
                         indent=1)
    replace_file(path, payload.encode("utf-8"))


def _unchanged(listing: Listing, seen: Mapping[str, Mapping[str, Any]]) -> bool:
    now = {s.rel: s.key() for s in listing.sources[:MAX_FILES]}
    if set(now) | set(listing.refused) != set(seen):
        return False
    return all(seen[rel].get("stat") == key for rel, key in now.items())


# -- mirroring ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class MirrorResult:
    """What one mirror run did."""

    folder: str | None  # None when auto memory is off
    written: tuple[str, ...] = ()  # notes created or brought up to their source
    kept: tuple[str, ...] = ()  # notes a person edited: the new source text went under conflict
    archived: tuple[str, ...] = ()  # notes whose source file is gone
    skipped: tuple[str, ...] = ()  # "<file>: why"
    unchanged: bool = False  # nothing moved since the last run (stat only)


def mirror_dir(vault: Vault, project: str) -> str:
    """The vault folder of a project's mirrored auto memory."""
    return f"{vault.layout.project_dir(project)}/{FOLDER}"


def session_link(note: str) -> str:
    """The ``sessions:`` value linking a session note: ``[[<path>|<stem>]]``."""
    # links (and its patterns) only once something moved: a hook whose project has no auto
    # memory, or an unchanged one, does not import it.
    from vaultmem.notes import links

    target = link_target(note)
    return links.format(target, alias=posixpath.basename(target))


class _Run:
    def __init__(self, vault: Vault, project: str, folder: str, today: date,
                 link: str | None, scrub: Callable[[str], str]) -> None:
        self.vault, self.project, self.folder = vault, project, folder
        self.today, self.link, self.scrub = today, link, scrub
        self.base = mirror_dir(vault, project)
        self.written: list[str] = []
        self.kept: list[str] = []
        self.archived: list[str] = []
        self.skipped: list[str] = []
        self.created: list[tuple[str, str]] = []  # (note, source rel): linked from _index.md

    def note(self, rel: str) -> str:
        return f"{self.base}/{automemory.note_name(rel)}"

    def mirror(self, source: Source, text: str) -> None:
        rel = self.note(source.rel)
        path = automemory.join(self.folder, source.rel)
        try:
            self.vault.create(rel, automemory.new_note(
                self.project, path, text, self.today, [self.link] if self.link else []))
        except NoteExists:
            pass  # exists (or another hook created it a moment ago): brought up to date below
        else:
            self.written.append(rel)
            self.created.append((rel, source.rel))
            return
        self._bounded(rel)
        note = self.vault.read(rel)
        meta = note.frontmatter()
        edited = not automemory.untouched(fences.split(note.text).body, meta.get("source_sha256"))
        edits = automemory.update_edits(text, source.rel, self.today, meta.get("status"),
                                        self.link)
        done = self.vault.update(rel, edits, base=note, label=automemory.CONFLICT_LABEL)
        if done.changed:
            (self.kept if edited and meta.get("source_sha256") != automemory.sha256(text)
             else self.written).append(rel)

    def _bounded(self, rel: str) -> None:
        """VaultmemError when the mirror note in the vault is far bigger than any mirror (a
        pushed one): a hook never reads it whole."""
        size = self.vault.size(rel)
        if size > MAX_NOTE_BYTES:
            raise VaultmemError(f"{size} bytes, more than a mirror holds ({MAX_NOTE_BYTES})",
                                path=rel)

    def archive(self, source_rel: str) -> None:
        rel = self.note(source_rel)
        self._bounded(rel)
        try:
            note = self.vault.read(rel)
            if note.frontmatter().get("status") == "archived":
                return
        except NoteNotFound:
            return
        self.vault.update(rel, automemory.archive_edits(self.today), base=note)
        self.archived.append(rel)

    def link_new(self) -> None:
        """Link the new mirrors from the project's ``_index.md`` (when there is one), in one
        write."""
        if not self.created:
            return
        from vaultmem.notes import links

        lines = [(link_target(note), "- " + links.format(
            link_target(note), alias=f"{source_rel} (auto memory)")) for note, source_rel in
            self.created]

        def add(text: str) -> str:
            new = [line for target, line in lines
                   if f"[[{target}|" not in text and f"[[{target}]]" not in text]
            if not new:
                return text
            return patch.apply(text, patch.SectionPatch(
                (INDEX_HEADING,), "append", "\n".join(new), create=True, prefer="first")).text

        index = self.vault.layout.project_index(self.project)
        try:
            self.vault.update(index, [patch.Rewrite(add)], label="vaultmem auto memory")
        except NoteNotFound:
            pass


def mirror(vault: Vault, project: str, where_: automemory.Where, *, today: date,
           session_note: str | None = None, budget_s: float = 1.0,
           scrub: Callable[[str], str] = str) -> MirrorResult:
    """Bring the project's mirror of Claude Code's auto memory up to date (stat only when
    nothing moved). ``session_note``: the session credited with the changes found. Files left
    when ``budget_s`` runs out are mirrored by the next run. ``scrub``: what a source text goes
    through before it is written (the configured secret redaction)."""
    if not where_.enabled:
        return MirrorResult(None)
    folder = os.path.realpath(where_.folder)
    listing = scan(folder) if os.path.isdir(folder) else Listing()
    seen_file = seen_path(vault.state_dir, project, folder)
    seen = _load_seen(seen_file)
    if _unchanged(listing, seen["files"]):
        return MirrorResult(where_.folder, unchanged=True)
    run = _Run(vault, project, where_.folder, today,
               session_link(session_note) if session_note else None, scrub)
    deadline = time.monotonic() + budget_s
    try:
        with vault.lock(f"{run.base}/.mirror", timeout=LOCK_SECONDS):
            files = _sync(run, listing, seen["files"], deadline)
            try:
                run.link_new()
            except (VaultmemError, OSError) as err:
                run.skipped.append(f"_index.md: new mirrors not linked: {err}")
            over = max(0, len(listing.sources) - MAX_FILES)
            if over and over != seen["over"]:
                run.skipped.append(f"{over} files past the first {MAX_FILES} not mirrored")
            _save_seen(vault, seen_file, folder, files, over)
    except LockTimeout:
        return MirrorResult(where_.folder, skipped=("another hook is mirroring this folder",))
    return MirrorResult(where_.folder, tuple(run.written), tuple(run.kept), tuple(run.archived),
                        tuple(run.skipped))


def _sync(run: _Run, listing: Listing, seen: dict[str, dict[str, Any]], deadline: float
          ) -> dict[str, dict[str, Any]]:
    """Mirror what moved; returns what this machine has seen now."""
    files: dict[str, dict[str, Any]] = {}
    for rel, why in listing.refused.items():
        files[rel] = {"skipped": why}
        if seen.get(rel, {}).get("skipped") != why:
            run.skipped.append(f"{rel}: {why}")
    budget = MAX_TOTAL_BYTES
    for source in listing.sources[:MAX_FILES]:
        before = seen.get(source.rel, {})
        if before.get("stat") == source.key():
            files[source.rel] = before
            continue
        if source.size > budget or time.monotonic() > deadline:
            # Left for the next run (no stat recorded, so it is looked at again).
            files[source.rel] = {k: v for k, v in before.items() if k != "stat"}
            continue
        budget -= source.size
        try:
            text = read_source(source)
        except Unreadable as why:
            files[source.rel] = {"stat": source.key(), "skipped": str(why)}
            if before.get("skipped") != str(why):
                run.skipped.append(f"{source.rel}: {why}")
            continue
        sha = automemory.sha256(text)  # of the source: what tells a change
        if before.get("sha256") != sha:
            try:
                run.mirror(source, run.scrub(text))
            except (VaultmemError, OSError) as err:
                run.skipped.append(f"{source.rel}: not mirrored: {err}")
                files[source.rel] = {k: v for k, v in before.items() if k != "stat"}
                continue
        files[source.rel] = {"stat": source.key(), "sha256": sha}
    for rel, before in seen.items():
        if rel in files or "sha256" not in before:
            continue
        if any(s.rel == rel for s in listing.sources):
            files[rel] = before  # past the file cap: still there, not gone
            continue
        try:
            run.archive(rel)
        except (VaultmemError, OSError) as err:
            run.skipped.append(f"{rel}: mirror not archived: {err}")
            files[rel] = before
    return files


def report(result: MirrorResult) -> list[str]:
    """The hook's stderr lines about a mirror run (none when all went well)."""
    out: list[str] = []
    if result.kept:
        out.append("auto memory: edited in the vault, kept; the new text from Claude Code is "
                   f"under \"{patch.CONFLICT_HEADING}\" in " + ", ".join(result.kept))
    if result.skipped:
        shown = result.skipped[:5]
        more = len(result.skipped) - len(shown)
        out.append("auto memory: skipped " + "; ".join(shown)
                   + (f"; and {more} more" if more else ""))
    return out


def loaded_index(cwd: str) -> str:
    """The part of ``MEMORY.md`` Claude Code loads into a session in ``cwd``; "" when its auto
    memory is off, there is no such file, or it cannot be read safely."""
    found = where(cwd)
    if not found.enabled:
        return ""
    folder = os.path.realpath(found.folder)
    real = os.path.realpath(os.path.join(folder, automemory.INDEX_NAME))
    try:
        st = os.stat(real)
        if not _inside(real, folder) or not stat.S_ISREG(st.st_mode):
            return ""
        text = read_source(Source(automemory.INDEX_NAME, real, st.st_mtime_ns, st.st_size,
                                  st.st_ino))
    except (OSError, Unreadable):
        return ""
    return automemory.loaded_index(text)


def on_hook(vault: Vault, project: str, found: automemory.Where, *, today: date,
            session_note: str | None, budget_s: float, warnings: list[str],
            scrub: Callable[[str], str] = str) -> MirrorResult | None:
    """The hooks' call: mirror the auto memory ``found`` (:func:`autowhere.worth_a_look`);
    trouble goes to ``warnings`` (one line each), never raised."""
    try:
        result = mirror(vault, project, found, today=today, session_note=session_note,
                        budget_s=budget_s, scrub=scrub)
    except (VaultmemError, OSError) as err:
        warnings.append(f"auto memory not mirrored: {err}")
        return None
    warnings.extend(report(result))
    return result
