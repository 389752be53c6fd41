"""Shared set-up of the reliability suite: a small vault, snapshots, and CLI runs both in real
subprocesses and in-process (same door, same exit codes, a fraction of the start-up cost)."""

from __future__ import annotations

import contextlib
import io
import os
import re
import subprocess
import sys
import traceback
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from compaction_kit import entity_text, snapshot

from vaultmem import faults
from vaultmem.memory.sessions import Memory
from vaultmem.store.atomic import TEMP_SUFFIX
from vaultmem.store.config import Config
from vaultmem.store.vault import Vault

REPO = Path(__file__).resolve().parents[2]
WORKERS = Path(__file__).resolve().parent / "workers"
NOW = "2026-11-22T10:30:00"
PROJECT = "demo"
SID = "s-race"
SESSION = f"claude/projects/{PROJECT}/sessions/2026-11-22-race.md"
ENTITIES = f"claude/projects/{PROJECT}/entities"
ENTITY = f"{ENTITIES}/Auth.md"
# The variables a run may set; every other vaultmem variable is cleared by tests/conftest.py.
_ENV_KEYS = ("VAULTMEM_VAULT", "VAULTMEM_PROJECT", "VAULTMEM_NOW", "VAULTMEM_FAULT")

__all__ = ["entity_text", "snapshot"]


def now() -> datetime:
    """The suite's fixed time as an aware local datetime (what clock.now gives for NOW)."""
    return datetime.fromisoformat(NOW).astimezone()


def memory(root: Path) -> Memory:
    """A Memory over ``root`` for the demo project."""
    return Memory(Config(vault=root, project=PROJECT), Vault(root))


def small_vault(root: Path) -> None:
    """A vault with the demo project, a current session note (SESSION, one entry, session id
    SID) and a person's entity note (ENTITY)."""
    m = memory(root)
    m.init_project(now=now())
    assert m.start_session(SID, topic="race", now=now()).note == SESSION
    m.log("Started the race work.", title="First entry", session_id=SID, now=now())
    path = root / ENTITY
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(entity_text("Auth"))


def without_temps(files: Mapping[str, bytes]) -> dict[str, bytes]:
    """A snapshot without the hidden temp files a killed atomic write may leave (never notes)."""
    return {k: v for k, v in files.items()
            if not (Path(k).name.startswith(".") and k.endswith(TEMP_SUFFIX))}


def temp_files(root: Path) -> list[Path]:
    """Temp files of atomic writes left anywhere in the vault."""
    return [p for p in root.rglob("*") if p.name.endswith(TEMP_SUFFIX)]


def changed(before: Mapping[str, bytes], after: Mapping[str, bytes]) -> set[str]:
    """Paths added, removed or modified between two snapshots."""
    return {k for k in before.keys() | after.keys() if before.get(k) != after.get(k)}


def run_env(**extra: str | None) -> dict[str, str]:
    """The environment of a vaultmem subprocess: this checkout first on the path, the fixed
    clock, and ``extra`` (None removes a variable)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    env["VAULTMEM_NOW"] = NOW
    for key, value in extra.items():
        if value is None:
            env.pop(key, None)
        else:
            env[key] = value
    return env


@dataclass(frozen=True)
class Run:
    """One finished CLI run."""

    code: int
    out: str
    err: str


def cli(
    args: Sequence[str],
    *,
    stdin: bytes = b"",
    env: Mapping[str, str | None] | None = None,
    cwd: Path = REPO,
    user: int | None = None,
    timeout: float = 300,
) -> Run:
    """``python -m vaultmem ARGS`` in a real subprocess (``user``: run as that uid and gid)."""
    proc = subprocess.run(
        [sys.executable, "-m", "vaultmem", *args],
        input=stdin,
        capture_output=True,
        cwd=cwd,
        env=run_env(**(env or {})),
        timeout=timeout,
        check=False,
        user=user,
        group=user,
    )
    return Run(proc.returncode, proc.stdout.decode("utf-8", "replace"),
               proc.stderr.decode("utf-8", "replace"))


@contextlib.contextmanager
def _environ(values: Mapping[str, str | None]) -> Iterator[None]:
    saved = {k: os.environ.get(k) for k in {*values, *_ENV_KEYS}}
    try:
        os.environ["VAULTMEM_NOW"] = NOW
        for key, value in values.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
        faults.disarm()


def cli_inproc(
    args: Sequence[str], *, stdin: bytes = b"", env: Mapping[str, str | None] | None = None
) -> Run:
    """The same door as :func:`cli` (``vaultmem.launcher.main``) run in this process: exit
    code, stdout and stderr. An exception escaping the door is reported the way Python would
    print it (a traceback on stderr, exit code 1), so a test sees it as a broken contract."""
    from vaultmem.launcher import main

    out, err = io.StringIO(), io.StringIO()
    fake_in = io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8")
    saved = sys.stdin, sys.stdout, sys.stderr
    code = 0
    with _environ(env or {}):
        sys.stdin, sys.stdout, sys.stderr = fake_in, out, err
        try:
            main(list(args))
        except SystemExit as stop:
            code = stop.code if isinstance(stop.code, int) else (0 if stop.code is None else 1)
        except Exception:  # noqa: BLE001 - an escaped exception is what the test looks for
            err.write(traceback.format_exc())
            code = 1
        finally:
            sys.stdin, sys.stdout, sys.stderr = saved
    return Run(code, out.getvalue(), err.getvalue())


def one_line(text: str) -> str:
    """The single line of ``text`` (AssertionError unless it is exactly one line)."""
    assert text.endswith("\n") and text.count("\n") == 1, f"not one line: {text!r}"
    return text[:-1]


_HEADING = re.compile(r"^(#{1,6}) (.*)$", re.MULTILINE)


def outline(text: str) -> list[str]:
    """The ATX heading lines of a note outside code (the notes built here have no fences)."""
    return [m.group(0) for m in _HEADING.finditer(text)]


@dataclass(frozen=True)
class CompactionCase:
    """A vault holding one big session note, and what one uninterrupted CLI compaction makes."""

    initial: Path
    rel: str
    expected: dict[str, bytes]
    seconds: float  # wall time of that uninterrupted run, process start-up included
    first_write: float  # when its first file landed in the vault (seconds after the start)


def compact_args(root: Path, rel: str) -> list[str]:
    """The arguments of ``vaultmem compact REL --force`` on ``root``."""
    return ["--vault", str(root), "--project", PROJECT, "compact", rel, "--force"]


def compaction_env() -> dict[str, str | None]:
    """The clock of compaction_kit's vaults."""
    import compaction_kit

    return {"VAULTMEM_NOW": compaction_kit.NOW, "VAULTMEM_FAULT": None}


def _folders_stamp(folders: Sequence[Path]) -> tuple[int, ...]:
    # Every atomic write renames into its folder, which moves the folder's mtime.
    return tuple(p.stat().st_mtime_ns if p.exists() else 0 for p in folders)


def compaction_case(base: Path, *, lines: int, entities: int = 12) -> CompactionCase:
    """Build the session vault in ``base/initial`` and compact a copy in ``base/reference``,
    timing the whole run and its first write."""
    import shutil
    import time

    from compaction_kit import build

    initial = base / "initial"
    initial.mkdir()
    rel = build(initial, lines=lines, entities=entities)
    reference = base / "reference"
    shutil.copytree(initial, reference)
    folders = [reference / ENTITIES, reference / "claude/global/entities",
               reference / f"claude/projects/{PROJECT}/archive/sessions",
               (reference / rel).parent]
    stamp = _folders_stamp(folders)
    first_write: float | None = None
    started = time.monotonic()
    proc = subprocess.Popen([sys.executable, "-m", "vaultmem", *compact_args(reference, rel)],
                            cwd=REPO, env=run_env(**compaction_env()),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    while proc.poll() is None:
        if first_write is None and _folders_stamp(folders) != stamp:
            first_write = time.monotonic() - started
        time.sleep(0.002)
    seconds = time.monotonic() - started
    out, err = proc.communicate()
    assert proc.returncode == 0 and out.startswith(f"{rel}: compacted"), (out, err)
    return CompactionCase(initial, rel, snapshot(reference), seconds,
                          seconds if first_write is None else first_write)


def ids_once(root: Path) -> None:
    """Every ``^vm-`` block id appears once in each entity note, and the backlink once."""
    for path in root.rglob("entities/*.md"):
        text = path.read_text()
        ids = re.findall(r"\^(vm-[0-9a-f]{8})$", text, re.MULTILINE)
        assert len(ids) == len(set(ids)), path
        assert text.count("Archived session (compacted)") == 1, path


def cli_as_nobody(
    args: Sequence[str],
    *,
    warm_up: Callable[[], object],
    stdin: bytes = b"",
    env: Mapping[str, str | None] | None = None,
) -> Run:
    """:func:`cli_inproc` in a forked child running as ``nobody`` when this process is root
    (root ignores file permissions), else in this process. The unprivileged child cannot read
    the interpreter's files under /root, so ``warm_up`` first runs the same command here (on a
    scratch vault), which imports everything it imports lazily."""
    import json

    if os.geteuid() != 0:
        return cli_inproc(args, stdin=stdin, env=env)
    warm_up()
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:  # child: report through the pipe, never return into pytest
        try:
            os.close(read_fd)
            os.setgid(65534)
            os.setuid(65534)
            run = cli_inproc(args, stdin=stdin, env=env)
            data = json.dumps([run.code, run.out, run.err])
        except BaseException as failure:  # noqa: BLE001 - reported to the parent
            data = json.dumps([99, "", f"child error: {failure!r}\n"])
        os.write(write_fd, data.encode())
        os._exit(0)
    os.close(write_fd)
    with os.fdopen(read_fd, "rb") as pipe:
        raw = pipe.read()
    os.waitpid(pid, 0)
    code, out, err = json.loads(raw)
    return Run(code, out, err)
