"""Every git command vaultmem runs goes through :func:`run` (the thin shell around git).

A hook never waits on git to learn the branch: :mod:`vaultmem.store.gitdirs` reads ``.git``'s
files. What must ask git (the merge driver's set-up, the secrets hook, anchors, the branch's
changed files, the demo's repository) calls :func:`run`: one timeout, an empty stdin unless
input is given, and one error, :class:`~vaultmem.errors.GitError`, whether git is missing, too slow or
fails. A caller that must not fail (a hook) catches it and goes on without git's answer.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from vaultmem.errors import GitError

TIMEOUT_S = 30.0
# Options taking a value that may stand before git's command (``git -C dir -c k=v diff``).
_WITH_VALUE = frozenset({"-C", "-c"})


@dataclass(frozen=True)
class Done:
    """A git command that ran: its exit code and its output (bytes as git wrote them)."""

    code: int
    raw: bytes
    err: bytes

    @property
    def out(self) -> str:
        """The output as text (UTF-8; a byte that is none shows as U+FFFD)."""
        return self.raw.decode("utf-8", errors="replace")

    @property
    def ok(self) -> bool:
        """Whether git exited 0."""
        return self.code == 0


def run(args: Sequence[str], cwd: str | Path, *, stdin: bytes | None = None,
        timeout: float = TIMEOUT_S, check: bool = True) -> Done:
    """``git <args>`` in ``cwd``; GitError when git is missing, times out or (``check``) exits
    non-zero, its message git's first line of stderr."""
    import subprocess  # only when git runs: kept off the hooks' start-up

    what = f"git {command(args)}"
    try:
        # Input, or an empty stdin: git never waits on the terminal a hook runs from.
        done = subprocess.run(["git", *args], cwd=cwd, input=stdin or b"", capture_output=True,
                              timeout=timeout, check=False)
    except FileNotFoundError:
        raise GitError("git is not installed (or not on PATH)") from None
    except subprocess.TimeoutExpired:
        raise GitError(f"{what} took longer than {timeout:g}s", path=str(cwd)) from None
    except OSError as err:
        raise GitError(f"{what}: {err.strerror or err}", path=str(cwd)) from None
    result = Done(done.returncode, done.stdout, done.stderr)
    if check and not result.ok:
        said = result.err.decode("utf-8", errors="replace").strip().splitlines()
        raise GitError(f"{what}: {said[0] if said else f'exit code {result.code}'}",
                       path=str(cwd))
    return result


def command(args: Sequence[str]) -> str:
    """git's command among ``args`` (``diff`` of ``-C dir --no-optional-locks diff``)."""
    skip = False
    for arg in args:
        if skip:
            skip = False
        elif arg in _WITH_VALUE:
            skip = True
        elif not arg.startswith("-"):
            return arg
    return args[0] if args else ""
