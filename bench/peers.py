"""Peers measured in the same run: basic-memory 0.23.1 and obsidiantools.

Both live in one Python 3.12 virtual environment under the cache folder
(``$XDG_CACHE_HOME/vaultmem-bench/bm-venv``, else ``~/.cache/…``), created and filled lazily with
pip the first time ``python -m bench`` runs (``--no-peers`` skips all of this). basic-memory
0.24 needs a newer certifi than some registries carry, so the version is pinned to 0.23.1.

Each peer works on its own copy of a generated vault (basic-memory rewrites the frontmatter of
every note it indexes) of the "peer" size: both take minutes on 1,000 notes, so their rows and the
vaultmem rows they are compared with use a smaller vault, and the row names say how big.
basic-memory gets a temporary ``HOME`` (its config and SQLite database live there), semantic
search off (it would download an embedding model) and no update check.
"""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from .cases import VaultmemEnv, notes_label, patch_case, recall_cases
from .generate import generate
from .runner import Case, Row, Sample, Workspace, run_command, skipped

BASIC_MEMORY_VERSION = "0.23.1"
OBSIDIANTOOLS_SCRIPT = (
    "import pathlib, sys\n"
    "from obsidiantools.api import Vault\n"
    "v = Vault(pathlib.Path(sys.argv[1])).connect().gather()\n"
    "print(len(v.md_file_index))\n"
)
INSTALL_TIMEOUT_S = 1800.0


class PeerUnavailable(RuntimeError):
    """A peer could not be installed or set up; the message is the row's reason."""


def cache_dir() -> Path:
    """Where the peers' virtual environment lives."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "vaultmem-bench"


def find_python312() -> Path:
    """A Python 3.12 interpreter: pyenv's 3.12.x first, else ``python3.12`` on PATH."""
    roots = []
    out = _quiet(["pyenv", "root"])
    if out:
        roots.append(out.strip())
    roots.append(str(Path.home() / ".pyenv"))
    for root in roots:
        found = sorted(glob.glob(os.path.join(root, "versions", "3.12.*", "bin", "python")))
        if found:
            return Path(found[-1])
    which = shutil.which("python3.12")
    if which:
        return Path(which)
    raise PeerUnavailable("no Python 3.12 (pyenv versions/3.12.* or python3.12 on PATH)")


def installed_version(python: Path, dist: str) -> str | None:
    """The version of ``dist`` in that interpreter's environment, None when missing."""
    out = _quiet([str(python), "-c", f"import importlib.metadata as m; print(m.version({dist!r}))"])
    return out.strip() if out else None


def ensure_package(spec: str, dist: str, *, log: Callable[[str], None]) -> Path:
    """The peers' venv python with ``spec`` installed (creating the venv on first use)."""
    venv = cache_dir() / "bm-venv"
    python = venv / "bin" / "python"
    wanted = spec.split("==")[1] if "==" in spec else None
    have = installed_version(python, dist) if python.exists() else None
    if have and (wanted is None or have == wanted):
        return python
    if not python.exists():
        base = find_python312()
        log(f"creating {venv} with {base}")
        _check([str(base), "-m", "venv", str(venv)], "venv")
    log(f"pip install {spec} (first run only; takes minutes)")
    _check(
        [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", spec],
        "pip install " + spec,
    )
    have = installed_version(python, dist)
    if not have:
        raise PeerUnavailable(f"{dist} missing after pip install")
    return python


def _check(argv: list[str], what: str) -> None:
    try:
        out = subprocess.run(
            argv, capture_output=True, text=True, timeout=INSTALL_TIMEOUT_S, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as err:
        raise PeerUnavailable(f"{what}: {err}") from None
    if out.returncode != 0:
        # pip prints pages of index warnings; the reason is in the last lines.
        lines = [ln for ln in out.stderr.splitlines() if ln.strip() and "WARNING" not in ln]
        raise PeerUnavailable(f"{what} failed: {' | '.join(lines[-2:])[:300]}")


def _quiet(argv: list[str]) -> str | None:
    try:
        out = subprocess.run(argv, capture_output=True, text=True, timeout=120, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return out.stdout if out.returncode == 0 else None


@dataclass
class BasicMemory:
    """basic-memory with its own HOME and project over a copy of the vault."""

    bin: Path
    vault: Path
    home: Path
    cwd: Path

    @classmethod
    def setup(cls, python: Path, ws: Workspace, source: Path) -> BasicMemory:
        """Copy the vault, configure basic-memory and add the project (not indexed yet)."""
        base = ws.path("basic-memory")
        vault = base / "vault"
        shutil.copytree(source, vault, ignore=shutil.ignore_patterns(".vaultmem"))
        peer = cls(python.parent / "basic-memory", vault, base / "home", base)
        peer.home.mkdir(exist_ok=True)
        for key, value in (("semantic_search_enabled", "false"), ("auto_update", "false")):
            peer.call("config", "set", key, value)
        peer.call("project", "add", "bench", str(vault), "--default")
        return peer

    @property
    def env(self) -> dict[str, str]:
        """basic-memory's environment: a private HOME, nothing of the caller's config."""
        env = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith(("BASIC_MEMORY", "PYTHON", "XDG_", "VIRTUAL_ENV"))
        }
        env["HOME"] = str(self.home)
        return env

    def call(self, *args: str) -> str:
        """Run basic-memory untimed; its stdout."""
        out = subprocess.run(
            [str(self.bin), *args],
            env=self.env,
            cwd=self.cwd,
            capture_output=True,
            text=True,
            timeout=3600,
            check=False,
        )
        if out.returncode != 0:
            raise PeerUnavailable(f"basic-memory {args[0]} failed: {out.stderr.strip()[-300:]}")
        return out.stdout

    def timed(self, *args: str) -> Sample:
        """Run basic-memory as a measured child."""
        return run_command([str(self.bin), *args], env=self.env, cwd=self.cwd, timeout=3600)


def peer_rows_and_cases(
    ws: Workspace,
    notes: int,
    *,
    log: Callable[[str], None],
) -> tuple[list[Case], list[Row]]:
    """The peers' cases and the vaultmem rows they are compared with, on ``notes`` notes.

    Returns (cases to measure, rows already decided, e.g. "not installed: …").
    """
    n = notes_label(notes)
    ours = VaultmemEnv(ws, "peer-size", notes)
    patch, recall, index = (patch_case(ours), *recall_cases(ours)[:2])
    cases: list[Case] = [patch, recall, index]
    rows: list[Row] = []

    bm_names = (
        f"basic-memory tool edit-note --operation append ({n})",
        f"basic-memory tool search-notes ({n})",
        f"basic-memory reindex --full --search ({n})",
    )
    try:
        python = ensure_package(f"basic-memory=={BASIC_MEMORY_VERSION}", "basic-memory", log=log)
        log(f"basic-memory {BASIC_MEMORY_VERSION}: project over a copy of {n}")
        bm = BasicMemory.setup(python, ws, ours.root)
        cases += _basic_memory_cases(bm, ours, bm_names, (patch.name, recall.name, index.name))
    except PeerUnavailable as err:
        for name, ref in zip(bm_names, (patch.name, recall.name, index.name)):
            rows.append(skipped(name, "peer", f"not installed: {err}", compare_to=ref))

    ot_name = f"obsidiantools Vault.connect().gather() ({n})"
    try:
        python = ensure_package("obsidiantools", "obsidiantools", log=log)
        pristine = ws.path("obsidiantools") / "vault"
        generate(pristine, notes=notes, seed=0)
        cases.append(
            Case(
                ot_name,
                "peer",
                lambda: run_command(
                    [str(python), "-c", OBSIDIANTOOLS_SCRIPT, str(pristine)], timeout=3600
                ),
                note="parse every note and its links (process start included)",
                runs=2,
                warmup=False,
                compare_to=index.name,
            )
        )
    except PeerUnavailable as err:
        rows.append(skipped(ot_name, "peer", f"not installed: {err}", compare_to=index.name))
    return cases, rows


def _basic_memory_cases(
    bm: BasicMemory,
    ours: VaultmemEnv,
    names: tuple[str, str, str],
    refs: tuple[str, str, str],
) -> list[Case]:
    edit_name, search_name, index_name = names
    patch_ref, recall_ref, index_ref = refs
    answers = ours.answers()
    note = ours.vault.sessions[0]
    # basic-memory's identifier of a note: its permalink, the path without .md, lowercased and
    # dashed; the title (file stem) works too and is unambiguous in generated vaults.
    ident = note[:-3]
    counter = iter(range(1_000_000))
    found: list[bool] = []

    def edit() -> Sample:
        line = f"- [[Bench Entity {next(counter)}]]"
        return bm.timed("tool", "edit-note", ident, "--operation", "append", "--content", line)

    def search() -> Sample:
        answer = answers[next(counter) % len(answers)]
        sample = bm.timed("tool", "search-notes", answer.query, "--json")
        stem = Path(answer.rel).stem.lower()
        out = sample.stdout.lower()
        found.append(stem in out or stem.replace(" ", "-") in out)
        return sample

    def reindex() -> Sample:
        return bm.timed("reindex", "--full", "--search")

    def check_search() -> str:
        return f"known answer in results {sum(found)}/{len(found)}"

    # Order matters: the first (warm-up) reindex builds basic-memory's database, which search
    # and edit need; it also rewrites frontmatter, so it is not timed.
    return [
        Case(
            index_name,
            "peer",
            reindex,
            runs=1,
            compare_to=index_ref,
            note="full re-index of an indexed project (the first index is the warm-up)",
        ),
        Case(
            search_name,
            "peer",
            search,
            compare_to=recall_ref,
            check=check_search,
            note="CLI call: process start and imports included (its MCP server would stay warm)",
        ),
        Case(
            edit_name,
            "peer",
            edit,
            compare_to=patch_ref,
            note="CLI call; appends at the end of the note (its last section)",
        ),
    ]
