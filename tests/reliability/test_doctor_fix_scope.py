"""``vaultmem doctor --fix`` merges only what is a sync tool's conflict copy by its name AND its
content, and without ``--all`` only inside vaultmem's folder: a person's own ``Meeting (1).md``,
``Meeting (2).md`` series stays where it is, byte for byte (real CLI processes)."""

from __future__ import annotations

from pathlib import Path

from .kit import cli, snapshot

SESSIONS = "claude/projects/demo/sessions"


def _meeting(n: int) -> str:
    return (f"---\ntype: meeting\ndate: 2026-11-{10 + n}\ntags:\n  - meetings\n---\n# Meeting\n\n"
            f"Weekly sync number {n}: what we decided.\n")


def _session(sid: str, said: str) -> str:
    return (f"---\ntype: session\nsession_ids:\n  - {sid}\nstatus: active\nupdated: 2026-11-20\n"
            f"---\n# Fix login\n\n## Work Log\n\n### 09:00 - {said}\n")


def _write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def test_a_persons_numbered_series_is_left_alone(vault_root: Path) -> None:
    _write(vault_root, {"Meetings/Meeting.md": _meeting(0), "Meetings/Meeting (1).md": _meeting(1),
                        "Meetings/Meeting (2).md": _meeting(2)})
    before = snapshot(vault_root)
    done = cli(["--vault", str(vault_root), "doctor", "--fix"])
    assert done.code == 0, done.err
    assert snapshot(vault_root) == before
    # With --all they are looked at, and their content says they are notes of their own.
    done = cli(["--vault", str(vault_root), "doctor", "--fix", "--all"])
    assert "Meetings/Meeting (1).md: left as it is (not a conflict copy of it: their " \
           "properties differ)" in done.out + done.err
    assert {k: v for k, v in snapshot(vault_root).items() if k.startswith("Meetings/")} == {
        k: v for k, v in before.items() if k.startswith("Meetings/")}


def test_a_numbered_note_of_another_session_is_not_merged(vault_root: Path) -> None:
    ours, other = _session("s-one", "First session"), _session("s-two", "Second session")
    _write(vault_root, {f"{SESSIONS}/2026-11-20-fix-login.md": ours,
                        f"{SESSIONS}/2026-11-20-fix-login (1).md": other})
    done = cli(["--vault", str(vault_root), "doctor", "--fix"])
    assert "left as it is (not a conflict copy of it: they record different sessions)" in (
        done.out + done.err)
    assert (vault_root / SESSIONS / "2026-11-20-fix-login.md").read_text() == ours
    assert (vault_root / SESSIONS / "2026-11-20-fix-login (1).md").read_text() == other


def test_a_syncthing_copy_of_the_same_session_is_merged(vault_root: Path) -> None:
    note = f"{SESSIONS}/2026-11-20-fix-login.md"
    copy = f"{SESSIONS}/2026-11-20-fix-login.sync-conflict-20261121-101500-ABCDEFG.md"
    _write(vault_root, {note: _session("s-one", "On the laptop"),
                        copy: _session("s-one", "On the desktop").replace(
                            "updated: 2026-11-20", "updated: 2026-11-21")})
    done = cli(["--vault", str(vault_root), "doctor", "--fix"])
    assert f"{copy}: merged into {note}" in done.out + done.err
    text = (vault_root / note).read_text()
    assert "On the laptop" in text and "On the desktop" in text
    assert not (vault_root / copy).exists()
