"""Attacks (issue 23 §2): a shared vault that ships symlinks where vaultmem writes its own files.

A teammate's push or a synced folder may hold ``.vaultmem`` itself, a folder in it, a lock, a
``.last`` marker, the state file or the index as a symlink to a file of the person who clones it
(``~/.bashrc``), or ``.gitattributes`` as a link to ``~/.aws/credentials``. Nothing vaultmem
writes follows a link: the target stays byte-identical, and the hook still exits 0 with one line.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hook_kit import REPO, SESSIONS, hook_env, run_hook

from vaultmem.memory import anchors

CWD = "/home/dev/work/shop"
BASHRC = "export PATH=$HOME/bin:$PATH\n"


def _line(kind: str, uuid: str, content: object) -> str:
    return json.dumps({"type": kind, "uuid": uuid, "timestamp": "2026-11-22T09:00:00Z",
                       "message": {"role": kind, "content": content}})


def _turn(n: int) -> str:
    return (_line("user", f"u{n}", f"Harden the login flow step {n}") + "\n"
            + _line("assistant", f"a{n}", [{"type": "text", "text": f"Done step {n}."}]) + "\n")


def _stop(vault: Path, transcript: Path, tmp_path: Path, event: str = "stop") -> bytes:
    payload = {"session_id": "sid-link", "transcript_path": str(transcript), "cwd": CWD,
               "hook_event_name": event}
    proc = run_hook(event, payload, vault, cwd=tmp_path,
                    env=hook_env(vault, VAULTMEM_PROJECT="shop", VAULTMEM_HOST="box"))
    assert proc.returncode == 0
    assert proc.stderr.count(b"\n") <= 1, proc.stderr
    return proc.stderr


@pytest.fixture
def home(tmp_path: Path) -> Path:
    folder = tmp_path / "home"
    folder.mkdir()
    (folder / ".bashrc").write_text(BASHRC)
    return folder


def test_a_symlinked_dot_vaultmem_gets_nothing_written_through_it(
        tmp_path: Path, home: Path) -> None:
    vault = tmp_path / "vault"
    vault.mkdir(exist_ok=True)  # hooks create only the default vault
    vault.mkdir(exist_ok=True)
    outside = home / "state"
    outside.mkdir()
    (vault / ".vaultmem").symlink_to(outside)
    transcript = tmp_path / "t.jsonl"
    transcript.write_text(_turn(1))
    err = _stop(vault, transcript, tmp_path)
    assert list(outside.iterdir()) == []
    assert b"symlink" in err and b".vaultmem" in err


@pytest.mark.parametrize("kind", [".last", ".lock", "locks", "hosts", "state.json", "index"])
def test_a_committed_link_in_dot_vaultmem_never_writes_its_target(
        kind: str, tmp_path: Path, home: Path) -> None:
    vault = tmp_path / "vault"
    vault.mkdir(exist_ok=True)  # hooks create only the default vault
    transcript = tmp_path / "t.jsonl"
    transcript.write_text(_turn(1))
    _stop(vault, transcript, tmp_path)  # the note exists: its lock and marker names are known
    state = vault / ".vaultmem"
    bashrc = home / ".bashrc"
    targets: list[Path] = []
    if kind in (".last", ".lock"):
        targets = sorted((state / "locks").glob("*" + kind))
        assert targets
    elif kind == "locks":
        targets = [state / "locks"]
    elif kind == "hosts":
        targets = [state / "hosts" / "box"]
    elif kind == "state.json":
        targets = [state / "hosts" / "box" / "state.json"]
    else:
        targets = [state / "index.sqlite", state / "index.sqlite-wal"]
    for path in targets:
        if path.is_dir() and not path.is_symlink():
            subprocess.run(["rm", "-rf", str(path)], check=True)
        else:
            path.unlink(missing_ok=True)
        path.symlink_to(home if kind in ("locks", "hosts") else bashrc)
    transcript.write_text(_turn(1) + _turn(2))
    _stop(vault, transcript, tmp_path)
    if kind == "index":
        done = subprocess.run([sys.executable, "-m", "vaultmem", "recall", "login"],
                              capture_output=True, cwd=tmp_path, timeout=120, check=False,
                              env=hook_env(vault, VAULTMEM_PROJECT="shop"))
        assert done.returncode in (0, 1), done.stderr
    assert bashrc.read_text() == BASHRC
    assert sorted(p.name for p in home.iterdir()) == [".bashrc"]


def test_init_git_refuses_a_symlinked_gitattributes(tmp_path: Path, home: Path) -> None:
    secret = home / "credentials"
    secret.write_text("[default]\naws_secret_access_key = abc\n")
    vault = tmp_path / "vault"
    vault.mkdir(exist_ok=True)  # hooks create only the default vault
    vault.mkdir(exist_ok=True)
    subprocess.run(["git", "init", "-q", str(vault)], check=True)
    (vault / ".gitattributes").symlink_to(secret)
    done = subprocess.run([sys.executable, "-m", "vaultmem", "init", "--git"],
                          capture_output=True, text=True, cwd=vault, timeout=120, check=False,
                          env=hook_env(vault, VAULTMEM_PROJECT="shop",
                                       PYTHONPATH=str(REPO)))
    assert done.returncode == 1
    assert ".gitattributes" in done.stderr and "symlink" in done.stderr
    assert (vault / ".gitattributes").is_symlink()
    assert secret.read_text() == "[default]\naws_secret_access_key = abc\n"


def test_an_anchor_through_a_symlink_in_the_repository_hashes_nothing_outside(
        tmp_path: Path, home: Path) -> None:
    key = home / ".ssh" / "id_ed25519"
    key.parent.mkdir()
    key.write_text("-----BEGIN OPENSSH PRIVATE KEY-----\n")
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "sysroot").symlink_to("/")
    (repo / "a.py").write_text("x = 1\n")
    through = os.path.relpath(key, "/")
    got = anchors.hashes(repo, [f"sysroot/{through}", "a.py"])
    assert f"sysroot/{through}" not in got
    assert "a.py" in got
    assert anchors.anchor_for([f"{repo}/sysroot/{through}"], anchors.Repo(repo), str(repo)) is None


def test_a_real_dot_vaultmem_is_untouched_by_the_checks(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    vault.mkdir(exist_ok=True)  # hooks create only the default vault
    transcript = tmp_path / "t.jsonl"
    transcript.write_text(_turn(1))
    assert _stop(vault, transcript, tmp_path) == b""
    assert sorted((vault / SESSIONS).glob("*.md"))
