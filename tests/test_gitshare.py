"""A vault shared through git: real repositories (a bare remote, two and three clones), the merge
driver installed by ``vaultmem init --git``, sessions, compactions, promotions and a person's edit
interleaved over 20 rounds with pulls in a seeded random order."""

from __future__ import annotations

import os
import random
import re
import subprocess
import sys
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from vaultmem.claude.install import runner
from vaultmem.memory import doctor as doctor_mod
from vaultmem.memory.promote import promote
from vaultmem.memory.sessions import Memory
from vaultmem.store.config import Config
from vaultmem.store.vault import Vault

PROJECT = "demo"
ENTITIES = ("Auth", "Billing", "Search")
START = datetime(2026, 11, 1, 9, 0)
GIT_ENV = {
    "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
    "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com",
    "GIT_CONFIG_NOSYSTEM": "1", "GIT_TERMINAL_PROMPT": "0",
}


def git(cwd: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    """Run git in ``cwd`` (bounded)."""
    done = subprocess.run(["git", "-c", "init.defaultBranch=main", *args], cwd=cwd, text=True,
                          capture_output=True, timeout=120, env={**os.environ, **GIT_ENV},
                          check=False)
    if check and done.returncode != 0:
        raise AssertionError(f"git {' '.join(args)} failed:\n{done.stdout}\n{done.stderr}")
    return done


def vaultmem(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The installed CLI, as a person (and git) runs it; each machine has its own config
    folder (init writes the vault it was given there)."""
    env = {**os.environ, "XDG_CONFIG_HOME": str(root.parent / f".config-{root.name}")}
    return subprocess.run([*runner(sys.executable), "--vault", str(root), "--project", PROJECT,
                           *args], text=True, capture_output=True, timeout=120, check=False,
                          env=env)


def notes(root: Path) -> dict[str, str]:
    """Every note of the vault (outside .vaultmem and .git)."""
    out: dict[str, str] = {}
    for path in root.rglob("*.md"):
        rel = path.relative_to(root).as_posix()
        if not rel.startswith((".git/", ".vaultmem/")):
            out[rel] = path.read_text(encoding="utf-8")
    return out


class Machine:
    """One clone of the vault, with its own machine-local state."""

    def __init__(self, name: str, root: Path) -> None:
        self.name = name
        self.root = root
        self.items: set[str] = set()  # decisions this machine wrote
        self.edits: set[str] = set()  # lines a person wrote into entities on this machine

    def memory(self) -> Memory:
        return Memory(Config(vault=self.root, project=PROJECT), Vault(self.root))

    def session(self, rnd: int, entity: str) -> None:
        """A session deciding something about ``entity``, ended and compacted at once."""
        m = self.memory()
        now = START + timedelta(days=rnd, minutes=int(self.name[-1]))
        sid = f"{self.name}-r{rnd}"
        rel = m.start_session(sid, topic=f"{self.name} round {rnd}", now=now).note
        decision = f"{self.name} round {rnd} picks option {rnd * 7 % 11}"
        m.log(f"Fixed bug in [[{entity}]] for {sid}: root cause was a stale cache",
              session_id=sid, now=now)
        m.decide(decision, why="it is simpler", entities=[entity], session_id=sid, now=now)
        m.end_session(session_id=sid, compact=False, now=now)
        report = m.compact_note(rel, force=True, now=now)
        assert report.status == "compacted", report
        self.items.add(decision)

    def commit(self, message: str) -> None:
        git(self.root, "add", "-A")
        if git(self.root, "status", "--porcelain").stdout.strip():
            git(self.root, "commit", "-q", "-m", message)

    def pull(self) -> None:
        done = git(self.root, "pull", "--no-rebase", "--no-edit", "-q", "origin", "main",
                   check=False)
        unmerged = git(self.root, "diff", "--name-only", "--diff-filter=U").stdout.split()
        assert done.returncode == 0 and not unmerged, (done.stdout, done.stderr, unmerged)

    def push(self) -> None:
        git(self.root, "push", "-q", "origin", "HEAD:main")


def _check(machine: Machine, expected: set[str], person_lines: set[str]) -> None:
    """The union of what every machine wrote is in the vault, each item once; no markers;
    nothing of .vaultmem committed; doctor clean."""
    vault = notes(machine.root)
    entity_lines = [line for rel, text in vault.items() if "/entities/" in rel
                    for line in text.splitlines()]
    for item in expected:
        found = [line for line in entity_lines if item in line]
        assert len(found) == 1, (machine.name, item, found)
        assert re.search(r" \^vm-[0-9a-f]{8}$", found[0]), found[0]
    ids = [m for line in entity_lines for m in re.findall(r"\^(vm-[0-9a-f]+)$", line)]
    assert len(ids) == len(set(ids)), "a block id twice"
    for line in person_lines:
        assert sum(text.count(line) for text in vault.values()) == 1, line
    assert not any(re.search(r"^(<<<<<<<|>>>>>>>)", t, re.MULTILINE) for t in vault.values())
    assert not any("[!conflict]" in t for t in vault.values())
    assert git(machine.root, "ls-files", ".vaultmem").stdout == ""
    report = doctor_mod.doctor(Vault(machine.root))
    assert report.ok, [str(p) for p in report.problems]


def _clones(tmp_path: Path, n: int) -> list[Machine]:
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(remote))
    machines: list[Machine] = []
    for i in range(n):
        root = tmp_path / f"machine{i}"
        git(tmp_path, "clone", "-q", str(remote), str(root))
        machine = Machine(f"machine{i}", root)
        if i:
            machine.pull()
        done = vaultmem(root, "init", "--git")
        assert done.returncode == 0, done.stderr
        machine.commit(f"vaultmem init on {machine.name}")
        if i:
            machine.pull()
        machine.push()
        machines.append(machine)
    return machines


# Every event in every run: a person's hand edits in two rounds, a pull and a promote in a later
# one, and rounds after it that carry them to every clone. The default run packs them into seven
# rounds on two clones; twenty rounds on two and three clones are minutes: CI and --slow.
@pytest.mark.parametrize("clones, rounds, edit_rounds, promote_round", [
    pytest.param(2, 7, (2, 4), 5, id="2-clones-7-rounds"),
    pytest.param(2, 20, (5, 9), 12, marks=pytest.mark.slow, id="2-clones-20-rounds"),
    pytest.param(3, 20, (5, 9), 12, marks=pytest.mark.slow, id="3-clones-20-rounds"),
])
def test_rounds_of_sessions_and_compactions_merge_without_a_conflict(
    tmp_path: Path, clones: int, rounds: int, edit_rounds: tuple[int, int], promote_round: int
) -> None:
    rng = random.Random(1500 + clones)
    machines = _clones(tmp_path, clones)
    pushed: set[str] = set()
    pushed_edits: set[str] = set()
    for rnd in range(1, rounds + 1):
        order = list(machines)
        rng.shuffle(order)
        for machine in order:
            entity = rng.choice(ENTITIES)
            machine.session(rnd, entity)
            if rnd in edit_rounds and machine is order[0]:
                # A person edits an entity on this machine while the others compact into it.
                path = next(machine.root.glob(f"claude/*/*/entities/{entity}.md"))
                line = f"{entity} is owned by the platform team ({machine.name}, round {rnd})."
                path.write_text(path.read_text().replace("## Overview\n\n",
                                                         f"## Overview\n\n{line}\n\n", 1))
                machine.edits.add(line)
            if rnd == promote_round and machine is order[-1]:
                # Every compaction rewrites _index.md (Key Entities), so commit before pulling.
                machine.commit(f"{machine.name} round {rnd}, before a pull")
                machine.pull()
                _check(machine, pushed | machine.items, pushed_edits | machine.edits)
                assert promote(Vault(machine.root), Config(vault=machine.root, project=PROJECT),
                               "Billing").status == "promoted"
            machine.commit(f"{machine.name} round {rnd}")
        rng.shuffle(order)
        for machine in order:
            machine.pull()
            _check(machine, pushed | machine.items, pushed_edits | machine.edits)
            machine.push()
            pushed |= machine.items
            pushed_edits |= machine.edits
    for machine in machines + machines:
        machine.pull()
    everything = set().union(*(m.items for m in machines))
    edits = set().union(*(m.edits for m in machines))
    assert len(edits) == 2
    for machine in machines:
        _check(machine, everything, edits)
    first = notes(machines[0].root)
    assert all(notes(m.root) == first for m in machines[1:])
    assert len(everything) == rounds * clones


def test_init_git_is_idempotent_and_untracks_committed_state(tmp_path: Path) -> None:
    root = tmp_path / "vault"
    git(tmp_path, "init", "-q", str(root))
    (root / ".vaultmem").mkdir()
    (root / ".vaultmem" / "state.json").write_text("{}")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "state committed by an older vaultmem")
    plain = vaultmem(root, "init")
    assert "vaultmem init --git" in plain.stdout
    first = vaultmem(root, "init", "--git")
    assert first.returncode == 0, first.stderr
    assert "no longer tracked" in first.stdout
    assert (root / ".gitattributes").read_text().splitlines()[-1] == "claude/**/*.md merge=vaultmem"
    driver = git(root, "config", "--get", "merge.vaultmem.driver").stdout.strip()
    assert driver.endswith(" merge-driver %O %A %B %P") and os.path.isabs(driver.split()[0])
    assert git(root, "ls-files", ".vaultmem").stdout == ""
    assert (root / ".vaultmem" / "state.json").exists() or (root / ".vaultmem" / "hosts").is_dir()
    before = (root / ".gitattributes").read_bytes()
    again = vaultmem(root, "init", "--git")
    assert again.returncode == 0 and "already" in again.stdout
    assert (root / ".gitattributes").read_bytes() == before
    assert "vaultmem init --git" not in vaultmem(root, "init").stdout


def test_init_git_in_a_second_clone_registers_the_driver_though_the_config_names_another(
    tmp_path: Path,
) -> None:
    first = tmp_path / "vault"
    git(tmp_path, "init", "-q", str(first))
    assert vaultmem(first, "init", "--git").returncode == 0
    git(first, "add", "-A")
    git(first, "commit", "-q", "-m", "vault")
    second = tmp_path / "vault-2"
    git(tmp_path, "clone", "-q", str(first), str(second))
    # The second clone's machine: its config already names the first clone.
    config_home = tmp_path / f".config-{second.name}" / "vaultmem"
    config_home.mkdir(parents=True)
    (config_home / "config.toml").write_text(f'vault = "{first}"\n')
    done = vaultmem(second, "init", "--git")
    assert done.returncode == 0, done.stderr
    assert f"still names the vault {first}" in done.stdout
    assert "merge driver registered" in done.stdout
    driver = git(second, "config", "--get", "merge.vaultmem.driver").stdout.strip()
    assert driver.endswith(" merge-driver %O %A %B %P")
    assert (config_home / "config.toml").read_text() == f'vault = "{first}"\n'


def test_an_unparseable_note_falls_back_to_gits_merge_and_reports_the_conflict(
    tmp_path: Path,
) -> None:
    a, b = _clones(tmp_path, 2)
    rel = "claude/projects/demo/entities/Broken.md"
    for machine in (a,):
        path = machine.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("---\ntitle: [unclosed\n---\n# Broken\n\nline\n")
        machine.commit("broken note")
        machine.push()
    b.pull()
    for machine, text in ((a, "ours\n"), (b, "theirs\n")):
        path = machine.root / rel
        path.write_text(path.read_text().replace("line\n", text))
        machine.commit("edit")
    a.push()
    done = git(b.root, "pull", "--no-rebase", "--no-edit", "-q", "origin", "main", check=False)
    assert done.returncode != 0
    assert git(b.root, "diff", "--name-only", "--diff-filter=U").stdout.split() == [rel]
    text = (b.root / rel).read_text()
    assert "<<<<<<< ours" in text and "theirs\n" in text and "ours\n" in text
    problems = doctor_mod.doctor(Vault(b.root)).problems
    assert any(p.kind == "merge-conflict" and p.rel == rel for p in problems)
