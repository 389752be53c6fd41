"""What in ``.vaultmem/`` belongs to one machine, and which machine this is.

Everything in ``.vaultmem/`` is machine-local: the state (which Claude session writes which note,
how far its transcript was read), lock files, the search index, temp files and archived
sync-conflict copies. Whenever vaultmem creates the folder it writes ``.vaultmem/.gitignore``
(``*``), so git never commits any of it, not even the ``.gitignore`` itself. Sync tools that do not
read ``.gitignore`` (Syncthing, Dropbox) may still copy the folder; the state is therefore kept
per host (``.vaultmem/hosts/<host>/state.json``), so two machines never rewrite the same file.
Locks are kernel locks (flock) and the index is rebuilt from the notes, so a copy of either from
another machine is harmless.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from vaultmem.store import safefs

HOST_ENV = "VAULTMEM_HOST"
HOSTS_DIR = "hosts"
GITIGNORE = (
    "# Written by vaultmem: everything in .vaultmem/ belongs to this machine (state, locks,\n"
    "# search index, temp files). Never commit or sync it.\n"
    "*\n"
)

_UNSAFE = re.compile(r"[^a-z0-9_.-]+")


def host_name() -> str:
    """This machine's name for per-host state: ``$VAULTMEM_HOST``, else the short host name."""
    name = os.environ.get(HOST_ENV, "")
    if not name.strip():
        # os.uname's node name is what socket.gethostname returns on POSIX, without importing
        # socket on every hook.
        if hasattr(os, "uname"):
            name = os.uname().nodename.split(".")[0]
        else:
            import socket

            name = socket.gethostname().split(".")[0]
    slug = _UNSAFE.sub("-", name.strip().lower()).strip(".-")
    return slug[:64] or "localhost"


def ensure_state_dir(state_dir: Path) -> Path:
    """Create ``.vaultmem/`` (parents too) with its ``.gitignore``; OSError when it cannot,
    UnsafePath when it is a symlink or not a folder (a shared vault may ship one)."""
    ignore = state_dir / ".gitignore"
    if not state_dir.parent.is_dir():
        state_dir.parent.mkdir(parents=True, exist_ok=True)
    safefs.real_dir(state_dir)
    if os.path.lexists(ignore):
        return state_dir
    try:
        fd = os.open(ignore, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    except FileExistsError:
        return state_dir  # another process wrote it first
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(GITIGNORE)
    return state_dir


def own_dir(state_dir: Path, *parts: str) -> Path:
    """``.vaultmem/parts…`` created as real folders (UnsafePath on a symlink on the way)."""
    return safefs.real_dirs(ensure_state_dir(state_dir), *parts)


def host_dir(state_dir: Path) -> Path:
    """This machine's own folder inside ``.vaultmem/`` (not created)."""
    return state_dir / HOSTS_DIR / host_name()


# Folders a sync tool keeps in (or above) a folder it syncs, and path parts of the synced homes.
_SYNC_MARKERS = (".git", ".stfolder", ".dropbox", ".dropbox.cache")
_SYNC_PARTS = ("Dropbox", "Mobile Documents", "iCloud Drive", "OneDrive", "Google Drive")


def is_shared(vault_root: Path, state_dir: Path) -> bool:
    """Whether other machines may write into this vault (no subprocess): it is in a git work
    tree or a Syncthing/Dropbox/iCloud/OneDrive folder, or ``.vaultmem/hosts/`` holds another
    machine's folder (a sync tool copied it). Their new session notes then carry a suffix."""
    folder = Path(os.path.abspath(vault_root))
    if any(part in _SYNC_PARTS or part.startswith("Dropbox (") for part in folder.parts):
        return True
    if any(os.path.lexists(p / marker) for p in (folder, *folder.parents)
           for marker in _SYNC_MARKERS):
        return True
    try:
        hosts = [e.name for e in os.scandir(state_dir / HOSTS_DIR) if e.is_dir()]
    except OSError:
        return False
    return any(name != host_name() for name in hosts)
