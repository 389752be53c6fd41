"""The vault on disk, read (``Vault``'s base): safe paths, notes with fingerprints, listing."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from vaultmem.errors import AmbiguousNote, NoteNotFound, UnsafePath, VaultmemError
from vaultmem.notes.redact import DEFAULT as DEFAULT_REDACTION
from vaultmem.notes.redact import Redaction
from vaultmem.notes.textio import TextFormat, decode
from vaultmem.store.layout import STATE_DIR, Layout
from vaultmem.store.locks import TurnLock

# What a hook reads of one note it does not write (the briefing's sessions and entities, the
# notes SessionStart checks for compaction): a session note past it is compacted detached anyway,
# and a pushed note of any size costs a hook this much at most. The head keeps the frontmatter
# and title; the rest comes from the end, where the newest lines and the lists are.
HOOK_READ_BYTES = 256 * 1024
HOOK_READ_HEAD = 16 * 1024


@dataclass(frozen=True)
class Fingerprint:
    """What a note looked like when it was read: enough to notice any later change."""

    mtime_ns: int
    size: int
    sha256: str
    # Extension of the contract: vaultmem replaces files, so every write of ours makes a new
    # inode; checking it closes the gap of two same-size writes within one mtime tick.
    # Not part of equality (0 = unknown).
    ino: int = field(default=0, compare=False)


@dataclass(frozen=True)
class Note:
    """A note as read: LF text without BOM, the file's format, and its fingerprint."""

    rel: str  # vault-relative POSIX path with .md
    text: str
    fmt: TextFormat
    fingerprint: Fingerprint
    # The bytes read, when kept: the last look before a replace compares them (a long note's
    # second sha256 is a pass of its own). Not part of equality.
    raw: bytes = field(default=b"", repr=False, compare=False)

    def frontmatter(self) -> dict[str, Any]:
        """The frontmatter as Obsidian reads it; InvalidYaml names this note and the line."""
        from vaultmem.notes.frontmatter import (
            parse,  # YAML is imported by what reads properties, not by all
        )

        return parse(self.text, path=self.rel)

    @property
    def lines(self) -> int:
        """The number of lines of the note."""
        return len(self.text.splitlines())


@dataclass(frozen=True)
class Glimpse:
    """What a hook reads of a note: all of it, or when it is bigger than the hook's bound its
    first and last lines with the middle left out. Read only, never written back."""

    rel: str
    text: str
    size: int  # the file's size in bytes
    partial: bool  # the middle was left out


def sha256_hex(data: bytes) -> str:
    """The sha256 of ``data`` in hex (a fingerprint's)."""
    return hashlib.sha256(data).hexdigest()


class VaultReader:
    """One vault folder read: safe paths, notes with their fingerprints, listing, names resolved."""

    def __init__(self, root: Path, *, namespace: str = "claude",
                 redaction: Redaction = DEFAULT_REDACTION) -> None:
        self.root = Path(os.path.abspath(Path(root).expanduser()))
        self.layout = Layout(namespace)
        self.state_dir = self.root / STATE_DIR
        self._real_root = self.root.resolve()
        real_root = str(self._real_root)
        self._real_prefix = real_root if real_root.endswith(os.sep) else real_root + os.sep
        # One FileLock per lock file, so a nested lock() of the same note in this process
        # re-enters instead of waiting on itself.
        self._locks: dict[Path, TurnLock] = {}
        # What writes had to say without failing (a heading path that matched several sections,
        # written under the first); each once. A hook passes its own list to print them.
        self.warnings: list[str] = []
        self.redaction = redaction

    # -- paths ---------------------------------------------------------------------------

    def _normalise(self, rel: str) -> str:
        if not rel or "\x00" in rel:
            raise UnsafePath("empty path or NUL byte in a note path", path=rel or None)
        if "\\" in rel:
            raise UnsafePath("backslash in a note path (use '/')", path=rel)
        if rel.startswith("/") or (len(rel) > 1 and rel[1] == ":"):
            raise UnsafePath("absolute path; note paths are relative to the vault", path=rel)
        parts = [p for p in rel.split("/") if p not in ("", ".")]
        if ".." in parts:
            raise UnsafePath("'..' in a note path would leave the vault", path=rel)
        if not parts:
            raise UnsafePath("a note path names the vault itself", path=rel)
        return "/".join(parts)

    def abspath(self, rel: str) -> Path:
        """The absolute path of a vault-relative path; UnsafePath if it would leave the vault."""
        return self._resolve(rel)[0]

    def _resolve(self, rel: str) -> tuple[Path, Path]:
        """(absolute path, the real path it resolves to); UnsafePath outside the vault."""
        norm = self._normalise(rel)
        path = self.root / norm
        real_str = os.path.realpath(path)
        real = Path(real_str)
        if not self._contains(real_str, real):
            raise UnsafePath(f"resolves outside the vault (to {real})", path=rel)
        return path, real

    def _contains(self, real_str: str, real: Path) -> bool:
        """Whether a real path is the vault's real root or inside it."""
        # realpath() is normalised: a string prefix says "inside" as Path.parents would, without
        # building every parent; anything else gets the Path comparison.
        if real_str.startswith(self._real_prefix):
            return True
        return real == self._real_root or self._real_root in real.parents

    def rel(self, path: Path) -> str:
        """The vault-relative POSIX path of an absolute path inside the vault."""
        path = Path(os.path.abspath(path))
        for base in (self.root, self._real_root):
            try:
                return path.relative_to(base).as_posix()
            except ValueError:
                continue
        real = Path(os.path.realpath(path))
        try:
            return real.relative_to(self._real_root).as_posix()
        except ValueError:
            raise UnsafePath(f"not inside the vault {self.root}", path=str(path)) from None

    def exists(self, rel: str) -> bool:
        """True when the note file exists."""
        return self.abspath(rel).is_file()

    # -- reading -------------------------------------------------------------------------

    def _read_raw(self, rel: str, path: Path | None = None) -> tuple[bytes, Fingerprint] | None:
        if path is None:
            path = self.abspath(rel)
        try:
            with open(path, "rb") as f:
                # The fingerprint describes the very bytes read: same open file.
                st = os.fstat(f.fileno())
                raw = f.read()
        except (FileNotFoundError, NotADirectoryError):
            return None
        except IsADirectoryError:
            raise NoteNotFound("is a folder, not a note", path=rel) from None
        except OSError as err:
            raise VaultmemError(f"cannot read: {err.strerror or err}", path=rel) from None
        return raw, Fingerprint(st.st_mtime_ns, st.st_size, sha256_hex(raw), st.st_ino)

    def _not_found(self, rel: str) -> NoteNotFound:
        return NoteNotFound(f"no such note in the vault {self.root}", path=rel)

    def read(self, rel: str) -> Note:
        """Read a note with its fingerprint; NoteNotFound, NotUtf8 (YAML is not parsed)."""
        return self._read(rel, None)

    def _read(self, rel: str, path: Path | None) -> Note:
        got = self._read_raw(rel, path)
        if got is None:
            raise self._not_found(rel)
        raw, fp = got
        norm = self._normalise(rel)
        text, fmt = decode(raw, path=norm)
        return Note(rel=norm, text=text, fmt=fmt, fingerprint=fp, raw=raw)

    def glimpse(self, rel: str, limit: int, head: int = 0) -> Glimpse:
        """At most ``limit`` bytes of a note: the whole note when it fits, else its first
        ``head`` bytes and the rest from its end, both cut at a line break (a pushed 60 MB note
        must not cost a hook 23 s and 1 GB). NoteNotFound, NotUtf8 as ``read``."""
        path = self.abspath(rel)
        try:
            with open(path, "rb") as f:
                size = os.fstat(f.fileno()).st_size
                if size <= limit:
                    raw, partial = f.read(limit + 1), False
                else:
                    first = f.read(min(head, limit))
                    first = first[: first.rfind(b"\n") + 1]
                    f.seek(size - (limit - len(first)))
                    last = f.read(limit - len(first))
                    last = last[last.find(b"\n") + 1:]
                    raw, partial = first + last, True
        except (FileNotFoundError, NotADirectoryError):
            raise self._not_found(rel) from None
        except IsADirectoryError:
            raise NoteNotFound("is a folder, not a note", path=rel) from None
        except OSError as err:
            raise VaultmemError(f"cannot read: {err.strerror or err}", path=rel) from None
        text, _fmt = decode(raw, path=self._normalise(rel))
        return Glimpse(self._normalise(rel), text, size, partial)

    def head(self, rel: str, limit: int) -> str:
        """The note's first lines within ``limit`` bytes (all of it when it is shorter)."""
        path = self.abspath(rel)
        try:
            with open(path, "rb") as f:
                raw = f.read(limit + 1)
        except (FileNotFoundError, NotADirectoryError):
            raise self._not_found(rel) from None
        except OSError as err:
            raise VaultmemError(f"cannot read: {err.strerror or err}", path=rel) from None
        if len(raw) > limit:
            raw = raw[: raw.rfind(b"\n", 0, limit) + 1]
        return decode(raw, path=self._normalise(rel))[0]

    def size(self, rel: str) -> int:
        """The note's size in bytes (0 when it cannot be looked at)."""
        try:
            return os.stat(self.abspath(rel)).st_size
        except (OSError, VaultmemError):
            return 0

    def fingerprint(self, rel: str) -> Fingerprint | None:
        """The note's current fingerprint, or None when it does not exist."""
        got = self._read_raw(rel)
        return None if got is None else got[1]

    # -- listing and names ---------------------------------------------------------------

    def folders(self, under: str) -> list[str]:
        """The names of the folders right under ``under`` (hidden ones skipped), sorted; []
        when it is no folder."""
        try:
            with os.scandir(self.abspath(under)) as found:
                return sorted(e.name for e in found
                              if e.is_dir() and not e.name.startswith("."))
        except OSError:
            return []

    def iter_notes(self, under: str = "") -> Iterator[str]:
        """Every ``*.md`` note (under a folder), sorted; hidden folders and files, and
        symlinks leading out of the vault, are skipped."""
        start = str(self.abspath(under)) if under.strip("/.") else str(self.root)
        prefix = len(str(self.root)) + 1
        found: list[str] = []
        seen: set[str] = set()
        # Real folders first, symlinked ones after: a folder reached both ways is listed under
        # its real path, whatever order the disk returns entries in.
        linked: list[str] = []
        stack = [start]
        while stack or linked:
            folder = stack.pop() if stack else linked.pop(0)
            real = os.path.realpath(folder)
            if real in seen:
                continue  # reached already, or a symlink loop
            seen.add(real)
            try:
                with os.scandir(folder) as it:
                    entries = sorted(it, key=lambda e: e.name, reverse=True)
            except OSError:
                continue
            for entry in entries:
                if entry.name.startswith("."):
                    continue
                try:
                    symlink = entry.is_symlink()
                    if symlink and not self._inside(entry.path):
                        continue
                    if entry.is_dir():
                        (linked if symlink else stack).append(entry.path)
                    elif entry.name.endswith(".md") and entry.is_file():
                        found.append(entry.path[prefix:].replace(os.sep, "/"))
                except OSError:
                    continue
        yield from sorted(found)

    def contains(self, path: str) -> bool:
        """Whether ``path`` (symlinks followed) is inside the vault."""
        return self._inside(path)

    def _inside(self, path: str) -> bool:
        real_str = os.path.realpath(path)
        return self._contains(real_str, Path(real_str))

    def resolve_note(self, ref: str, *, source: str | None = None) -> str:
        """The rel path of a NOTE argument: a vault path with or without ``.md``, else a name
        resolved the Obsidian way. Several notes with the same name at the same (shortest)
        path length raise AmbiguousNote listing them; a shorter path wins otherwise."""
        ref = ref.strip()
        if not ref:
            raise NoteNotFound("empty note name")
        rel = ref if ref.endswith(".md") else ref + ".md"
        norm = self._normalise(rel)
        if self.abspath(norm).is_file():
            return norm
        from vaultmem.notes import links  # names are resolved by commands, not by the hooks

        found = links.candidates(ref, source, self.iter_notes())
        if not found:
            raise NoteNotFound(f"no note {ref!r} in the vault {self.root}")
        # Twins differing only in case are one name to Obsidian; resolve() picks among them.
        if len({n.lower() for n in found}) > 1:
            names = ", ".join(found)
            raise AmbiguousNote(f"{ref!r} matches several notes: {names}; give the path")
        resolved = links.resolve(ref, source, found)
        assert resolved is not None
        return resolved
