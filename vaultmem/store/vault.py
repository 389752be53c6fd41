"""The vault on disk: locks and atomic writes on ``vaultread``'s safe paths and reads (DESIGN §4).

With ``vaultread``, this is the only module that touches note files. Every write goes through
one atomic routine; every update of an existing note runs under that note's lock and detects a
concurrent writer (a person in Obsidian, another Claude session) from the fingerprint taken when
it was loaded.

It is also the last guard against a secret reaching the vault: the lines a write adds (every
line of a new note; the lines an update brings that the note did not hold) are redacted
(:mod:`vaultmem.notes.redact`), and a note whose name holds a secret is refused. A person's own lines
stay byte for byte: ``doctor`` reports a secret already in the vault, ``doctor --fix`` redacts it.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import stat
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

import filelock

from vaultmem import faults
from vaultmem.errors import (
    LockTimeout,
    NoteExists,
    ReadOnlyNote,
    UnsafePath,
    VaultmemError,
    WriteFailed,
)
from vaultmem.notes.textio import DEFAULT_FORMAT, TextFormat, decode, encode
from vaultmem.store import flux, machine
from vaultmem.store.atomic import fsync_dir, replace_file
from vaultmem.store.locks import TurnLock

if TYPE_CHECKING:
    from vaultmem.notes.patch import Edit
from vaultmem.store.vaultread import Fingerprint, Note, VaultReader, sha256_hex

WriteStatus = Literal["written", "created", "unchanged", "rebased", "conflicted", "dry-run"]


@dataclass(frozen=True)
class WriteResult:
    """What a write did, for the CLI to print and ``--json`` to report."""

    rel: str
    status: WriteStatus
    changed: bool
    created_headings: tuple[str, ...] = ()
    diff: str = ""  # unified diff: always for dry-run, else only when asked


def _diff(rel: str, old: str, new: str) -> str:
    import difflib  # only dry runs and --diff need it: kept off the hooks' start-up

    return "".join(
        difflib.unified_diff(
            old.splitlines(keepends=True),
            new.splitlines(keepends=True),
            fromfile=f"a/{rel}",
            tofile=f"b/{rel}",
        )
    )


# A note that changes while vaultmem writes it (an editor saving every 200 ms, other writers) is
# written again on its new text: at least RACE_RETRIES times, and for as long as RACE_SECONDS
# allow past them. A count alone gave up on a loaded machine (load 12 on 2 cores), where each
# attempt takes longer and more saves land inside it; the time bounds what a hook waits.
RACE_RETRIES = 5
RACE_SECONDS = 2.0
_WRITE_BITS = stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH
CUT_READS = 4  # reads of a note caught empty mid-save before giving up (each settles)


def _text_of(raw: bytes) -> str:
    """A note's text for comparing lines ("" when it is not UTF-8: every line counts as new)."""
    try:
        return decode(raw)[0]
    except VaultmemError:
        return ""


class _MovedMeanwhile(Exception):
    """The note changed between our fingerprint check and our replace (see _atomic_write):
    ``note`` is the one edited, ``seen`` the note the last look read, when it was a whole save."""

    def __init__(self, note: Note | None = None, seen: Note | None = None) -> None:
        super().__init__("note changed during the write")
        self.note = note
        self.seen = seen


class _Orphaned(Exception):
    """Someone wrote into the file our replace took out of the vault (an editor's two-step save
    that began in that instant): ``note`` holds what they wrote, to redo the edit on."""

    def __init__(self, note: Note) -> None:
        super().__init__("note written during the replace")
        self.note = note


def _stat_moved(st: os.stat_result, fp: Fingerprint) -> bool:
    """Whether ``st`` is no longer the file fingerprinted (stat only)."""
    return (st.st_mtime_ns, st.st_size) != (fp.mtime_ns, fp.size) or fp.ino not in (0, st.st_ino)




def _whole_save(rel: str, raw: bytes, st: os.stat_result, edited: Fingerprint) -> Note | None:
    """The note another program saved over the one edited, as the last look before the replace
    read it (``st``: its stat just before), when it is plainly a whole save: the next attempt
    starts from it at once, instead of settling and reading again while the editor's next save
    draws near. None when it may be a save in progress (empty, shorter than the note edited,
    ending mid-line, changed between the stat and the read): the next attempt settles first."""
    if not raw.endswith(b"\n") or len(raw) < edited.size or len(raw) != st.st_size:
        return None
    try:
        text, fmt = decode(raw, path=rel)
    except VaultmemError:
        return None
    fp = Fingerprint(st.st_mtime_ns, st.st_size, sha256_hex(raw), st.st_ino)
    return Note(rel=rel, text=text, fmt=fmt, fingerprint=fp, raw=raw)


def _race_attempts() -> Iterator[int]:
    """Numbers 1, 2, … of the attempts at a write that races another writer: at least
    RACE_RETRIES, then more while RACE_SECONDS since the first have not passed."""
    ends = time.monotonic() + RACE_SECONDS
    attempt = 0
    while attempt < RACE_RETRIES or time.monotonic() < ends:
        attempt += 1
        yield attempt


def _failed(rel: str, err: OSError, doing: str) -> WriteFailed:
    reason = err.strerror or str(err)
    if isinstance(err, PermissionError):
        reason += " (is the vault folder read-only?)"
    return WriteFailed(f"could not {doing}: {reason}; the note is unchanged", path=rel)


class Vault(VaultReader):
    """One vault folder: notes addressed by vault-relative POSIX paths."""

    # -- locks ---------------------------------------------------------------------------

    def _lock_path(self, rel: str) -> Path:
        key = hashlib.sha1(self._normalise(rel).lower().encode("utf-8")).hexdigest()
        return self.state_dir / "locks" / f"{key}.lock"

    @contextlib.contextmanager
    def _locked(self, rel: str, timeout: float) -> Iterator[None]:
        path = self._lock_path(rel)
        lock = self._locks.get(path)
        if lock is None:
            try:
                machine.own_dir(self.state_dir, "locks")
            except OSError as err:
                raise _failed(rel, err, "create the lock folder " + str(path.parent)) from None
            lock = self._locks.setdefault(path, TurnLock(path))
        try:
            lock.acquire(timeout)
        except filelock.Timeout:
            raise LockTimeout(
                f"another process holds this note's lock ({path}) for more than {timeout:g}s",
                path=rel,
            ) from None
        except OSError as err:
            raise _failed(rel, err, "take the lock " + str(path)) from None
        try:
            yield
        finally:
            lock.release()

    def lock(self, rel: str, timeout: float = 10.0) -> AbstractContextManager[None]:
        """Hold the note's lock (``.vaultmem/locks/``); LockTimeout names the note."""
        return self._locked(rel, timeout)

    # -- writing -------------------------------------------------------------------------

    def _atomic_write(
        self,
        rel: str,
        path: Path,
        data: bytes,
        mode: int | None,
        real: Path | None = None,
        expected: Fingerprint | None = None,
        expected_raw: bytes = b"",
    ) -> None:
        """Unique temp file in the same folder, fsync, chmod, replace, fsync the folder.

        ``real``: ``path`` resolved already (under the same lock), spared a second resolution.
        ``expected``: the note the data was made from; when the file moved since (a person's
        editor does not take our lock), :class:`_MovedMeanwhile` is raised instead of replacing
        it, so the caller can redo its edit on the fresh text. ``expected_raw``: that note's
        bytes, when kept: compared instead of hashed."""
        if mode is not None and not mode & _WRITE_BITS:
            # `chmod 444` says "leave this note alone"; replacing it would not need the
            # permission (only the folder's), so it is asked here.
            raise ReadOnlyNote("is read-only (chmod): left as it is", path=rel)
        # Write through a symlinked note to its target, so the link survives.
        dest = real if real is not None else Path(os.path.realpath(path))
        looked: list[tuple[int, os.stat_result]] = []  # the replaced file, open, and its stat
        watch: list[float] = []  # how long to watch the replaced file (flux.grace)

        def last_look() -> None:
            faults.checkpoint("write")
            if expected is None:
                return
            # The last look before the replace: the window left is the replace itself. Stat,
            # then the bytes' hash (a same-size edit within one mtime tick), through a
            # descriptor kept open to see whether anyone writes into the file being replaced.
            try:
                fd = os.open(dest, os.O_RDONLY)
            except FileNotFoundError:
                raise _MovedMeanwhile from None
            st = os.fstat(fd)
            looked.append((fd, st))
            watch.append(flux.grace(st, flux.recorded(self._marker(rel)), time.time_ns()))
            now = flux.read_all(fd)
            if (now != expected_raw) if expected_raw else (sha256_hex(now) != expected.sha256):
                raise _MovedMeanwhile(seen=_whole_save(rel, now, st, expected))
            if _stat_moved(st, expected):
                raise _MovedMeanwhile  # touched, no byte changed: the next read says so

        try:
            replace_file(dest, data, mode, before_replace=last_look)
            # Recorded before the replaced file is watched (up to a second): an editor's next
            # save may truncate the new file meanwhile, and that is not vaultmem's write.
            flux.record(self._marker(rel), dest, len(data))
            written = looked[0][0] if looked else None
            lost = flux.orphaned(written, looked[0][1], watch[0]) if written is not None else None
        except OSError as err:
            raise _failed(rel, err, "write the note") from None
        finally:
            for fd, _ in looked:
                os.close(fd)
        if lost is not None:
            self._redo_on(rel, dest, lost)

    def _marker(self, rel: str) -> Path:
        """Where the stamp of vaultmem's last write of ``rel`` is kept (beside its lock)."""
        lock = self._lock_path(rel)
        return lock.with_name(lock.stem + ".last")

    def _redo_on(self, rel: str, dest: Path, lost: bytes) -> None:
        """Raise _Orphaned with what an editor wrote into the replaced file (when readable)."""
        try:
            text, fmt = decode(lost, path=rel)
            st = os.stat(dest)
            now = dest.read_bytes()
        except (VaultmemError, OSError):
            return  # half-written or gone: nothing that can be redone on
        fp = Fingerprint(st.st_mtime_ns, st.st_size, sha256_hex(now), st.st_ino)
        raise _Orphaned(Note(rel=rel, text=text, fmt=fmt, fingerprint=fp))

    @staticmethod
    def _mode(path: Path) -> int | None:
        try:
            return stat.S_IMODE(os.stat(path).st_mode)
        except FileNotFoundError:
            return None

    def read_only(self, rel: str) -> bool:
        """Whether the note's owner made it read-only (no write permission bit at all)."""
        mode = self._mode(Path(self.abspath(rel)))
        return mode is not None and not mode & _WRITE_BITS

    def _twin(self, path: Path) -> Path | None:
        """An existing entry of ``path``'s folder whose name differs from it only in case."""
        lower = path.name.lower()
        try:
            with os.scandir(path.parent) as entries:
                for entry in entries:
                    if entry.name != path.name and entry.name.lower() == lower:
                        return path.parent / entry.name
        except (FileNotFoundError, NotADirectoryError):
            return None
        return None

    def _make_parents(self, rel: str, path: Path) -> None:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as err:
            raise _failed(rel, err, "create the folder " + str(path.parent)) from None

    def update(
        self,
        rel: str,
        edits: Sequence[Edit],
        *,
        base: Note | None = None,
        dry_run: bool = False,
        want_diff: bool = False,
        label: str = "",
    ) -> WriteResult:
        """Apply edits to a note with conflict detection against ``base`` (DESIGN §4).

        base None: read under the lock and apply (never conflicts). base given: if the note
        moved since, rebaseable edits are re-applied to the fresh text ("rebased") and a
        replace goes under the conflict heading ("conflicted"). No change: "unchanged".
        """
        rel = self._normalise(rel)
        if dry_run:
            # Read-only: no lock, so a dry run works in a read-only vault too.
            return self._update_locked(rel, edits, base, True, want_diff, label)
        with self.lock(rel):
            override: Note | None = None
            attempts = 0
            for attempts in _race_attempts():
                try:
                    return self._update_locked(rel, edits, base, False, want_diff, label, override)
                except _MovedMeanwhile as race:
                    # Someone wrote while we did: redo against the note we edited, so their
                    # change is seen as a change (rebase, or the conflict heading); on the save
                    # the last look read, when whole, at once: an editor saving every 0.2 s
                    # saves again about when a settle and a fresh read are done (on a loaded
                    # machine nearly every attempt lost so).
                    base, override = race.note, race.seen
                except _Orphaned as lost:
                    # An editor saved into the file our replace took away: their text is the
                    # note now, and our edit is redone on it.
                    override = lost.note
            raise LockTimeout(
                f"the note kept changing during {attempts} attempts to write it", path=rel
            )

    def _settled(self, rel: str, base: Note | None, path: Path, real: Path,
                 dry_run: bool) -> tuple[Note, bool]:
        """The note as ``_current`` reads it, once an editor's save in progress is done: an
        editor truncates, then writes (a moment, or 0.3 s, later), and an edit made on the
        empty note would drop every line it had. A note read empty or short alike each time,
        a settle apart, is what the other program saved (a person emptied it, a shorter note was
        pushed); one that changed between every two reads: LockTimeout."""
        if dry_run:
            return self._current(rel, base, path)
        last = flux.recorded(self._marker(rel))
        previous: Fingerprint | None = None
        for _ in range(CUT_READS):
            flux.settle(real, last)
            current, moved = self._current(rel, base, path)
            if not flux.cut(real, last, len(current.raw)):
                return current, moved
            if current.fingerprint == previous:
                # The same cut note a whole settle apart: what the other program saved. Two
                # reads, not four: a hook waits two settles for a note a person just shortened.
                # Taken as the note's known state, so the replace does not then watch the old
                # file a further second for an editor's write that would have come long ago.
                flux.record(self._marker(rel), real, current.fingerprint.size)
                return current, moved
            previous = current.fingerprint
        raise LockTimeout("another program kept saving the note: it was empty or cut short "
                          f"each of {CUT_READS} times it was read", path=rel)

    def _current(self, rel: str, base: Note | None, path: Path) -> tuple[Note, bool]:
        """The note as it is now, and whether it moved since ``base``."""
        if base is None:
            return self._read(rel, path), False
        try:
            st = os.stat(path)
        except FileNotFoundError:
            raise self._not_found(rel) from None
        fp = base.fingerprint
        # Fast path: same mtime and size (and inode, when known) -> not touched since.
        if (st.st_mtime_ns, st.st_size) == (fp.mtime_ns, fp.size) and fp.ino in (0, st.st_ino):
            return base, False
        fresh = self._read(rel, path)
        # Touched without a byte changing (a sync tool, `touch`): not a conflict.
        return fresh, fresh.fingerprint.sha256 != fp.sha256

    def _update_locked(
        self,
        rel: str,
        edits: Sequence[Edit],
        base: Note | None,
        dry_run: bool,
        want_diff: bool,
        label: str,
        override: Note | None = None,
    ) -> WriteResult:
        from vaultmem.notes.frontmatter import parse as parse_frontmatter
        from vaultmem.notes.patch import SectionPatch, apply_run, conflicted, rebaseable  # writers

        # Resolved once for the whole locked read-modify-write.
        path, real = self._resolve(rel)
        if override is not None:
            current, moved = override, True
        else:
            current, moved = self._settled(rel, base, path, real, dry_run)
        # Invalid YAML is never rewritten (DESIGN §2): refuse before any edit.
        parse_frontmatter(current.text, path=rel)
        text = current.text
        created: list[str] = []
        any_conflict = False
        done = 0
        while done < len(edits):
            edit = edits[done]
            done += 1
            if moved and not rebaseable(edit):
                assert isinstance(edit, SectionPatch)
                text = conflicted(text, edit, label=label or "vaultmem")
                any_conflict = True
                continue
            try:
                # A run of properties is set in one read of the frontmatter.
                applied, count = apply_run(text, edits[done - 1:], file=rel)
                done += count - 1
            except VaultmemError:
                if not (moved and isinstance(edit, SectionPatch)):
                    raise
                # The person removed or renamed the section meanwhile: their edit wins, and
                # Claude's text is kept where they will see it rather than lost.
                text = conflicted(text, edit, label=label or "vaultmem")
                any_conflict = True
                continue
            text = applied.text
            created.extend(applied.created)
            self.warnings.extend(w for w in applied.warnings if w not in self.warnings)
        text = self._guarded(current.text, text)
        changed = text != current.text
        diff = _diff(rel, current.text, text) if (dry_run or want_diff) and changed else ""
        status: WriteStatus
        if dry_run:
            status = "dry-run"
        elif not changed:
            status = "unchanged"
        else:
            try:
                self._atomic_write(rel, path, encode(text, current.fmt), self._mode(path), real,
                                   expected=current.fingerprint, expected_raw=current.raw)
            except _MovedMeanwhile as race:
                raise _MovedMeanwhile(current, race.seen) from None
            status = "conflicted" if any_conflict else "rebased" if moved else "written"
        return WriteResult(rel, status, changed, tuple(created), diff)

    def create(self, rel: str, text: str, *, exist_ok: bool = False) -> WriteResult:
        """Create a new note (parent folders too); NoteExists when it or a case-insensitive
        twin exists, unless ``exist_ok`` and the bytes are identical."""
        rel = self._normalise(rel)
        self._refuse_secret_name(rel)
        path = self.abspath(rel)
        data = encode(self._guarded("", text))
        self._make_parents(rel, path)
        with self.lock(rel):
            twin = self._twin(path)
            if twin is not None:
                raise NoteExists(
                    f"a note differing only in case exists: {self.rel(twin)}", path=rel
                )
            got = self._read_raw(rel, path)
            if got is not None:
                if exist_ok and got[0] == data:
                    return WriteResult(rel, "unchanged", False)
                raise NoteExists("the note exists already", path=rel)
            self._atomic_write(rel, path, data, None)
        return WriteResult(rel, "created", True)

    def write_text(
        self,
        rel: str,
        text: str,
        *,
        fmt: TextFormat = DEFAULT_FORMAT,
        expected: Fingerprint | None = None,
    ) -> WriteResult:
        """Write a whole note atomically under its lock; "conflicted" and nothing written when
        ``expected`` is given and the note no longer matches it."""
        rel = self._normalise(rel)
        self._refuse_secret_name(rel)
        path = self.abspath(rel)
        self._make_parents(rel, path)
        with self.lock(rel):
            flux.settle(Path(os.path.realpath(path)), flux.recorded(self._marker(rel)))
            got = self._read_raw(rel, path)
            data = encode(self._guarded(_text_of(got[0]) if got else "", text), fmt)
            if expected is not None and (got is None or got[1].sha256 != expected.sha256):
                return WriteResult(rel, "conflicted", False)
            if got is None:
                twin = self._twin(path)
                if twin is not None:
                    raise NoteExists(
                        f"a note differing only in case exists: {self.rel(twin)}", path=rel
                    )
                self._atomic_write(rel, path, data, None)
                return WriteResult(rel, "created", True)
            if got[0] == data:
                return WriteResult(rel, "unchanged", False)
            self._atomic_write(rel, path, data, self._mode(path))
        return WriteResult(rel, "written", True)

    def _guarded(self, old: str, new: str) -> str:
        """``new`` with secrets redacted in the lines ``old`` does not hold (each run of such
        lines redacted as one text, so a private key's block is seen whole)."""
        if not self.redaction.enabled or new == old:
            return new
        if not old:
            return self.redaction(new)
        held = set(old.splitlines())
        lines = new.splitlines(keepends=True)
        out: list[str] = []
        run: list[str] = []
        for line in lines:
            if line.rstrip("\r\n") in held:
                if run:
                    out.append(self.redaction("".join(run)))
                    run = []
                out.append(line)
            else:
                run.append(line)
        if run:
            out.append(self.redaction("".join(run)))
        return "".join(out)

    def _refuse_secret_name(self, rel: str) -> None:
        if self.redaction.enabled and self.redaction(rel) != rel:
            raise UnsafePath("a secret in the note's name: not written (the name is withheld)")

    def remove(self, rel: str, *, expected: Fingerprint | None = None) -> bool:
        """Delete a note under its lock; NoteNotFound when it is not there.

        With ``expected``, the note is removed only if its bytes are still those read
        (sha256); otherwise nothing happens and False is returned: a person's edit is never
        deleted with a note vaultmem moved elsewhere."""
        rel = self._normalise(rel)
        path = self.abspath(rel)
        with self.lock(rel):
            if expected is not None:
                now = self.fingerprint(rel)
                if now is None:
                    raise self._not_found(rel)
                if now.sha256 != expected.sha256:
                    return False
            try:
                os.unlink(path)
            except FileNotFoundError:
                raise self._not_found(rel) from None
            except OSError as err:
                raise _failed(rel, err, "remove the note") from None
        fsync_dir(path.parent)
        return True

    def retire(
        self, rel: str, *, read: Note, copy_to: str, derive: Callable[[str], str]
    ) -> None:
        """Remove ``rel``, whose content lives on at ``copy_to`` as ``derive(text)``.

        ``read`` is the version that was copied. When a person changed ``rel`` since, their
        version is carried over to ``copy_to`` first, then ``rel`` is removed: a move never
        deletes an edit."""
        seen = read
        for _ in _race_attempts():
            if self.remove(rel, expected=seen.fingerprint):
                return
            seen = self.read(rel)
            self.write_text(copy_to, derive(seen.text), fmt=seen.fmt)
        raise LockTimeout(
            f"the note kept changing while it was moved to {copy_to}; it is left in place",
            path=rel,
        )
