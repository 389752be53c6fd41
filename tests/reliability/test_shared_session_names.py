"""Two teammates, one day, the same first words: two session notes, never one.

In a vault other machines write (a git work tree, a sync tool's folder), a new session note's
name carries the session's short mark; the merge driver never fuses two sessions' notes that
got one name anyway (older names, a name made elsewhere): it leaves git's conflict, this side's
note untouched, and says how to keep both."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from test_gitshare import Machine, _clones, git, notes

from vaultmem.memory.sessions import Memory
from vaultmem.notes import names
from vaultmem.store import machine
from vaultmem.store.config import Config
from vaultmem.store.vault import Vault

NOW = datetime(2026, 11, 26, 9, 0)
PROMPT = "Fix the login redirect loop"
SESSIONS = "claude/projects/demo/sessions"


def _start(root: Path, sid: str) -> str:
    memory = Memory(Config(vault=root, project="demo"), Vault(root))
    return memory.start_session(sid, first_prompt=PROMPT, now=NOW).note


def test_a_vault_of_one_machine_keeps_plain_names(tmp_path: Path) -> None:
    root = tmp_path / "vault"
    root.mkdir()
    assert not machine.is_shared(root, root / ".vaultmem")
    assert _start(root, "fc36e08a-6ff2-4298") == f"{SESSIONS}/2026-11-26-fix-the-login-redirect-loop.md"


def test_a_synced_or_git_vault_is_shared(tmp_path: Path) -> None:
    for marker in (".git", ".stfolder"):
        root = tmp_path / marker.strip(".") / "vault"
        root.mkdir(parents=True)
        (root.parent / marker).mkdir()
        assert machine.is_shared(root, root / ".vaultmem")
    dropbox = tmp_path / "Dropbox" / "vault"
    dropbox.mkdir(parents=True)
    assert machine.is_shared(dropbox, dropbox / ".vaultmem")
    # Syncthing copied .vaultmem/ over from another machine: its host folder is there.
    copied = tmp_path / "copied"
    (copied / ".vaultmem/hosts/other-laptop").mkdir(parents=True)
    assert machine.is_shared(copied, copied / ".vaultmem")


def test_the_mark_is_the_session_ids_start_and_stays_on_a_continuation() -> None:
    assert names.session_suffix("fc36e08a-6ff2-4298-8934-7cf92c8028d4") == "fc36e08a"
    assert names.session_suffix("s-race") == "srace"
    assert len(names.session_suffix("---")) == 8
    assert names.with_suffix("2026-11-26-x-fc36e08a", "fc36e08a") == "2026-11-26-x-fc36e08a"
    # A note without a topic: always eight hex digits, so its name still reads as untitled.
    from vaultmem.store.layout import UNTITLED_SESSION

    assert names.untitled_suffix("fc36e08a-6ff2-4298-8934-7cf92c8028d4") == "fc36e08a"
    for sid in ("s-race", "machine0-r1", "zzzzzzzz-1"):
        mark = names.untitled_suffix(sid)
        assert len(mark) == 8 and int(mark, 16) >= 0
        assert UNTITLED_SESSION.fullmatch(f"2026-11-26-session-{mark}")
        assert UNTITLED_SESSION.fullmatch(f"2026-11-26-session-{mark}-2")
    assert not UNTITLED_SESSION.fullmatch("2026-11-26-session-research")


def test_two_teammates_same_day_same_words_make_two_notes_that_merge(tmp_path: Path) -> None:
    a, b = _clones(tmp_path, 2)
    rel_a = _start(a.root, "aaaa1111-0000-4000-8000-000000000001")
    rel_b = _start(b.root, "bbbb2222-0000-4000-8000-000000000002")
    assert rel_a == f"{SESSIONS}/2026-11-26-fix-the-login-redirect-loop-aaaa1111.md"
    assert rel_b == f"{SESSIONS}/2026-11-26-fix-the-login-redirect-loop-bbbb2222.md"
    for m in (a, b):
        m.commit("a session")
    a.push()
    b.pull()
    merged = notes(b.root)
    assert rel_a in merged and rel_b in merged
    assert "aaaa1111-0000-4000-8000-000000000001" not in merged[rel_b]


def _same_name(m: Machine, sid: str, said: str) -> tuple[str, str]:
    """An older-style note (no mark) of session ``sid``: the name both machines make."""
    rel = f"{SESSIONS}/2026-11-20-fix-login.md"
    text = (f"---\ntype: session\nsession_ids:\n  - {sid}\nstatus: active\n---\n"
            f"# Fix login\n\n## Work Log\n\n### 09:00 - {said}\n")
    path = m.root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    m.commit(said)
    return rel, text


def test_the_merge_driver_never_fuses_two_sessions(tmp_path: Path) -> None:
    a, b = _clones(tmp_path, 2)
    rel, _ = _same_name(a, "session-a", "Alice looked at the cookie")
    _, ours = _same_name(b, "session-b", "Bob rewrote the redirect")
    a.push()
    done = git(b.root, "pull", "--no-rebase", "--no-edit", "origin", "main", check=False)
    assert done.returncode != 0
    said = done.stdout + done.stderr
    assert "two different sessions have this name" in said, said
    assert f"git show :3:{rel}" in said
    assert git(b.root, "diff", "--name-only", "--diff-filter=U").stdout.split() == [rel]
    assert (b.root / rel).read_text() == ours  # this side's note, neither fused nor marked
    theirs = git(b.root, "show", f":3:{rel}").stdout
    assert "Alice looked at the cookie" in theirs and "Bob" not in theirs


def test_one_session_on_both_sides_still_merges(tmp_path: Path) -> None:
    a, b = _clones(tmp_path, 2)
    rel, _ = _same_name(a, "session-a", "First entry")
    a.push()
    b.pull()
    for m, said in ((a, "Alice's entry"), (b, "Bob's entry")):
        path = m.root / rel
        path.write_text(path.read_text() + f"\n### 10:00 - {said}\n")
        m.commit(said)
    a.push()
    b.pull()
    text = (b.root / rel).read_text()
    assert "Alice's entry" in text and "Bob's entry" in text


def test_the_hooks_name_a_shared_vaults_note_with_the_mark(tmp_path: Path) -> None:
    from hook_kit import SESSIONS as HOOK_SESSIONS
    from hook_kit import copy_transcript, payload, run_hook, session_notes

    vault = tmp_path / "vault"
    vault.mkdir()
    git(vault, "init", "-q")
    transcript = copy_transcript(tmp_path)
    for event in ("session-start", "stop"):
        done = run_hook(event, payload(event, transcript), vault, cwd=tmp_path)
        assert done.returncode == 0 and done.stderr == b"", done.stderr
    [note] = session_notes(vault)
    assert note.parent == vault / HOOK_SESSIONS
    assert note.stem.startswith("2026-11-22-add-a-login-module") and note.stem.endswith(
        "-fc36e08a"), note.name


def test_decisions_remembered_outside_a_session_on_two_machines_all_survive_a_merge(
        tmp_path: Path) -> None:
    from test_gitshare import vaultmem

    a, b = _clones(tmp_path, 2)
    said = {m.name: [f"{m.name} decision {n} keeps option {n * 3}" for n in range(10)]
            for m in (a, b)}
    for m in (a, b):
        for decision in said[m.name]:
            done = vaultmem(m.root, "remember", "--kind", "decision", decision)
            assert done.returncode == 0, done.stderr
        m.commit(f"decisions on {m.name}")
    names_ = {m.name: {rel for rel in notes(m.root) if "/sessions/" in rel} for m in (a, b)}
    assert not names_[a.name] & names_[b.name]  # one note a machine, two names
    a.push()
    b.pull()
    b.push()
    a.pull()
    for m in (a, b):
        vault = "\n".join(notes(m.root).values())
        for decision in said[a.name] + said[b.name]:
            assert vault.count(f"- {decision}") == 1, (m.name, decision)
