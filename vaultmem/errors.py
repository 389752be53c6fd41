"""One exception tree: every failure vaultmem reports is a VaultmemError.

The CLI catches VaultmemError once, prints ``str(err)`` on one line and exits 1.
"""

from __future__ import annotations

from pathlib import Path


class VaultmemError(Exception):
    """Base of every error vaultmem raises on purpose; carries where it happened."""

    def __init__(
        self,
        message: str,
        *,
        path: str | Path | None = None,
        heading: str | None = None,
        line: int | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.path = str(path) if path is not None else None
        self.heading = heading
        self.line = line  # 1-based, as a person reads it

    def __str__(self) -> str:
        where = ""
        if self.path:
            where = self.path
            if self.line is not None:
                where += f":{self.line}"
            where += ": "
        if self.heading:
            where += f"heading '{self.heading}': "
        # One line, always: a message must never break the CLI's one-line contract.
        return (where + self.message).replace("\n", " ")


class ConfigError(VaultmemError):
    """The configuration file or an option value is wrong."""


class NoteNotFound(VaultmemError):
    """No note matches the given path or name."""


class AmbiguousNote(VaultmemError):
    """Several notes match a bare name."""


class NoteExists(VaultmemError):
    """A note (or a case-insensitive twin) exists where a new one was to be created."""


class InvalidYaml(VaultmemError):
    """The frontmatter is not valid YAML; the note is never rewritten."""


class NotUtf8(VaultmemError):
    """The file is not UTF-8 text."""


class HeadingNotFound(VaultmemError):
    """The heading path matches no section."""


class AmbiguousHeading(VaultmemError):
    """A bare heading name matches several sections (the message lists their lines)."""


class UnsafePath(VaultmemError):
    """A path or link would point outside the vault, or a name Obsidian cannot hold."""


class LockTimeout(VaultmemError):
    """A note's lock could not be taken in time."""


class WriteFailed(VaultmemError):
    """The atomic write failed (disk full, read-only vault...); the note is unchanged."""


class ReadOnlyNote(WriteFailed):
    """A note its owner made read-only (no write permission bit): vaultmem leaves it as it is."""


class CompactionError(VaultmemError):
    """Compaction could not complete; the session note records why."""


class SessionError(VaultmemError):
    """No current session, or a session id that is not known."""


class NoteArchived(SessionError):
    """The session's note was archived (compacted) between its read and its write."""


class ExtractorError(VaultmemError):
    """The optional LLM extractor failed (the deterministic one is used instead)."""


class GitError(VaultmemError):
    """git is missing, too slow, or a git command failed (``store.git``)."""


class InvalidValue(VaultmemError):
    """A property name or value that YAML or Obsidian cannot hold."""
