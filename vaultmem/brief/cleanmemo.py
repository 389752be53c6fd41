"""The briefing's redaction, skipped for a text it already left as it was (by its hash).

A note written before redaction, or a line a person pasted into a note, may hold a secret, so
the briefing is redacted whole before it goes into a session's context: about 45 M instructions
of a SessionStart (the detectors' patterns compiled in every new process). A briefing often
repeats (a resumed or cleared session, another window, a start with no session ended since):
the redaction of the very same text, under the same rules and settings, finds the same nothing.
So the hashes of the last briefings it found clean are kept (never a text, never one it changed)
in this machine's state folder, keyed by the rules' code and detect-secrets' version, the
``[redact]`` settings and the text; a text it changed is redacted every time.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from vaultmem.errors import VaultmemError
from vaultmem.notes import redact
from vaultmem.notes.redact import Redaction
from vaultmem.store import machine

MEMO_NAME = "briefing-clean.txt"
KEEP = 16  # hashes kept, newest first


def redacted(text: str, redaction: Redaction, state_dir: Path) -> str:
    """``text`` under ``redaction``: as it is when its hash is among the clean ones."""
    if not redaction.enabled or not text:
        return text
    key = _key(text, redaction)
    known = _read(machine.host_dir(state_dir) / MEMO_NAME)
    if key in known:
        return text
    out = redaction(text)
    if out == text:
        _write(state_dir, [key, *(k for k in known if k != key)][:KEEP])
    return out


def _key(text: str, redaction: Redaction) -> str:
    digest = hashlib.sha256(_fingerprint().encode())
    digest.update("\0".join(redaction.allow).encode("utf-8", "surrogatepass"))
    digest.update(b"\0\0")
    digest.update(text.encode("utf-8", "surrogatepass"))
    return digest.hexdigest()


def _fingerprint() -> str:
    """The redaction's rules as they are now: its modules' sizes and times, detect-secrets'
    version (a changed rule or an upgrade makes every kept hash another text's)."""
    from vaultmem.notes.secretrules import installed_version

    folder = os.path.dirname(redact.__file__)
    found = [str(installed_version())]
    with os.scandir(folder) as entries:
        for entry in entries:
            if entry.name.endswith(".py") and entry.name.startswith(("secret", "redact")):
                st = entry.stat()
                found.append(f"{entry.name}:{st.st_size}:{st.st_mtime_ns}")
    return "\n".join(sorted(found))


def _read(path: Path) -> list[str]:
    try:
        return path.read_text(encoding="ascii").split()
    except (OSError, UnicodeDecodeError):
        return []


def _write(state_dir: Path, keys: list[str]) -> None:
    """Best effort (a read-only vault keeps redacting); a writer's own temporary file."""
    try:
        folder = machine.own_dir(state_dir, machine.HOSTS_DIR, machine.host_name())
    except (VaultmemError, OSError):
        return
    path = folder / MEMO_NAME
    temporary = folder / f"{MEMO_NAME}.{os.getpid()}.tmp"
    try:
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0),
                     0o600)
        with os.fdopen(fd, "w", encoding="ascii") as f:
            f.write("\n".join(keys) + "\n")
        os.replace(temporary, path)
    except OSError:
        try:
            temporary.unlink()
        except OSError:
            pass
