"""Decisions anchored to code: real git repositories, the real hooks in-process, review."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from hook_kit import hook_env, run_cli

from vaultmem.brief import briefing, staleness
from vaultmem.claude import capture, recordsteps
from vaultmem.claude.events import HookEvent
from vaultmem.errors import VaultmemError
from vaultmem.memory import anchors, entityparse
from vaultmem.memory.sessions import Memory
from vaultmem.store.config import load_config
from vaultmem.store.vault import Vault

SID = "anchor-session-1"
FILE = "src/auth/tokens.py"
DECISION = "Decision: access tokens expire after 15 minutes because the gateway caches them."


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
        cwd=repo, capture_output=True, text=True, check=True)
    return done.stdout.strip()


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "shop"
    (root / "src" / "auth").mkdir(parents=True)
    (root / FILE).write_text("ACCESS_TOKEN_MINUTES = 10\n")
    (root / "README.md").write_text("shop\n")
    git(root, "init", "-q", "-b", "main")
    git(root, "add", ".")
    git(root, "commit", "-qm", "start")
    return root


def _line(kind: str, uuid: str, content: object, cwd: Path) -> str:
    message = {"role": kind, "content": content}
    return json.dumps({"type": kind, "uuid": uuid, "message": message, "cwd": str(cwd),
                       "sessionId": SID, "timestamp": "2026-11-22T09:00:00.000Z"})


def _transcript(tmp_path: Path, cwd: Path, turns: list[tuple[str, str, str]]) -> Path:
    """A Claude Code transcript: per turn (prompt, file edited, Claude's prose)."""
    lines = []
    for n, (prompt, path, prose) in enumerate(turns):
        lines.append(_line("user", f"u{n}", prompt, cwd))
        lines.append(_line("assistant", f"a{n}", [{
            "type": "tool_use", "id": f"t{n}", "name": "Edit",
            "input": {"file_path": str(cwd / path), "old_string": "x", "new_string": "y"}}], cwd))
        lines.append(_line("user", f"r{n}", [{
            "type": "tool_result", "tool_use_id": f"t{n}", "content": "ok"}], cwd))
        lines.append(_line("assistant", f"p{n}", [{"type": "text", "text": prose}], cwd))
    path = tmp_path / "transcript.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


def _event(name: str, cwd: Path, transcript: Path | None = None) -> HookEvent:
    return HookEvent(name=name, session_id=SID, cwd=str(cwd),
                     transcript_path=str(transcript) if transcript else None, reason="logout")


def _session(env: Path, repo: Path, tmp_path: Path) -> Memory:
    """A session that decides about tokens.py and edits it twice (the second edit later)."""
    transcript = _transcript(tmp_path, repo, [("Set the token lifetime", FILE, DECISION)])
    (repo / FILE).write_text("ACCESS_TOKEN_MINUTES = 15\n")
    capture.on_session_start(_event("SessionStart", repo))
    capture.on_stop(_event("Stop", repo, transcript))
    (repo / FILE).write_text("ACCESS_TOKEN_MINUTES = 15  # gateway cache\n")  # a later own edit
    capture.on_session_end(_event("SessionEnd", repo, transcript))
    config = load_config(cwd=repo)
    memory = Memory(config, Vault(config.vault, namespace=config.namespace))
    return memory


def _brief(memory: Memory, repo: Path) -> str:
    return briefing.build(memory.vault, memory.config, cwd=repo)


def _note_text(env: Path, name_part: str = "set-the-token") -> str:
    found = [p for p in env.rglob("*.md") if name_part in p.name]
    assert found, "the session note"
    return found[0].read_text()


# -- pure ---------------------------------------------------------------------------------------


def test_blob_hash_is_git_hash_object(repo: Path) -> None:
    expected = git(repo, "hash-object", FILE)
    assert anchors.blob_hash((repo / FILE).read_bytes()) == expected[: anchors.HASH_CHARS]


def test_anchor_round_trips_and_never_joins_the_fact() -> None:
    anchor = anchors.Anchor((("src/my file.py", "1a2b3c4d5e6f"), ("gone.py", "-")), "9f8e7d6")
    comment = anchor.render()
    assert comment == "%%vm-anchor src/my%20file.py@1a2b3c4d5e6f gone.py@- commit 9f8e7d6%%"
    assert anchors.parse(f"Use JWT {comment}") == anchor
    assert anchors.strip(f"Use JWT {comment}") == "Use JWT"
    assert entityparse.fact_key(f"Use JWT {comment}") == entityparse.fact_key("Use JWT")
    assert anchors.retire(f"Use JWT {comment}") == f"~~Use JWT~~ {comment}"
    assert anchors.is_retired(anchors.retire(f"Use JWT {comment}"))
    assert anchors.changed(anchor, {"src/my file.py": "000000000000", "gone.py": "-"}) == (
        "src/my file.py",)
    assert anchors.mark("Use JWT", anchor, ["a.py"]) == "Use JWT (changed since 9f8e7d6: a.py)"


# -- capture, compaction, briefing, review ------------------------------------------------------


def test_the_session_own_edits_committed_later_are_no_change(
        env: Path, repo: Path, tmp_path: Path) -> None:
    memory = _session(env, repo, tmp_path)
    text = _note_text(env)
    blob = git(repo, "hash-object", FILE)[: anchors.HASH_CHARS]
    head = git(repo, "rev-parse", "--short=7", "HEAD")
    # The content the session ended with (the second edit), not the one at the Stop.
    assert f"%%vm-anchor {FILE}@{blob} commit {head}%%" in text
    git(repo, "commit", "-qam", "the session's work")
    assert "changed since" not in _brief(memory, repo)
    # The mined item may be capitalised as a sentence; the fact is what counts.
    assert "access tokens expire after 15 minutes" in _brief(memory, repo).casefold()


def test_a_later_commit_flags_the_item_then_review_confirms_or_retires(
        env: Path, repo: Path, tmp_path: Path) -> None:
    memory = _session(env, repo, tmp_path)
    start = git(repo, "rev-parse", "--short=7", "HEAD")
    git(repo, "commit", "-qam", "the session's work")
    (repo / FILE).write_text("ACCESS_TOKEN_MINUTES = 60\n")
    git(repo, "commit", "-qam", "someone changes the lifetime")
    assert f"(changed since {start}: {FILE})" in _brief(memory, repo)

    # Compaction carries the anchor to the entity line; the block id ignores it.
    reports = memory.compact(force=True)
    assert [r.status for r in reports] == ["compacted"]
    entity = next(p for p in env.rglob("Auth.md")).read_text()
    line = next(row for row in entity.split("\n") if "15 minutes" in row)
    assert f"%%vm-anchor {FILE}@" in line and line.split(" ^")[0].endswith("]])")
    assert f"(changed since {start}: {FILE})" in _brief(memory, repo)

    flags = staleness.review(memory.vault, memory.config, repo)
    assert [(f.files, f.commit) for f in flags] == [((FILE,), start)]
    block = flags[0].block
    assert line.endswith(f"^{block}")

    staleness.confirm(memory.vault, memory.config, block, repo)
    assert staleness.review(memory.vault, memory.config, repo) == []
    confirmed = next(p for p in env.rglob("Auth.md")).read_text()
    now_blob = git(repo, "hash-object", FILE)[: anchors.HASH_CHARS]
    assert f"{FILE}@{now_blob}" in confirmed and f"^{block}" in confirmed

    (repo / FILE).write_text("ACCESS_TOKEN_MINUTES = 5\n")
    assert len(staleness.review(memory.vault, memory.config, repo)) == 1
    staleness.retire(memory.vault, memory.config, block)
    retired = next(p for p in env.rglob("Auth.md")).read_text()
    struck = next(row for row in retired.split("\n") if f"^{block}" in row)
    assert "— ~~access tokens expire after 15 minutes" in struck.casefold()
    assert staleness.review(memory.vault, memory.config, repo) == []
    brief = _brief(memory, repo)
    assert not any("15 minutes" in row and "Auth" in row for row in brief.split("\n")
                   if "~~" in row)
    with pytest.raises(VaultmemError, match="no vaultmem line"):
        staleness.retire(memory.vault, memory.config, "vm-00000000")


def test_a_renamed_or_deleted_file_is_a_change(env: Path, repo: Path, tmp_path: Path) -> None:
    memory = _session(env, repo, tmp_path)
    head = git(repo, "rev-parse", "--short=7", "HEAD")
    git(repo, "commit", "-qam", "work")
    git(repo, "mv", FILE, "src/auth/lifetimes.py")
    git(repo, "commit", "-qm", "rename")
    assert f"(changed since {head}: {FILE})" in _brief(memory, repo)
    git(repo, "rm", "-q", "src/auth/lifetimes.py")
    git(repo, "commit", "-qm", "delete")
    assert f"(changed since {head}: {FILE})" in _brief(memory, repo)


def test_a_detached_head_anchors_and_checks(env: Path, repo: Path, tmp_path: Path) -> None:
    git(repo, "checkout", "-q", "--detach")
    memory = _session(env, repo, tmp_path)
    assert f"commit {git(repo, 'rev-parse', '--short=7', 'HEAD')}%%" in _note_text(env)
    (repo / FILE).write_text("changed\n")
    assert f": {FILE})" in _brief(memory, repo)


def test_outside_git_the_content_is_anchored_but_nothing_is_checked(
        env: Path, tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    (plain / "src" / "auth").mkdir(parents=True)
    (plain / FILE).write_text("ACCESS_TOKEN_MINUTES = 10\n")
    memory = _session(env, plain, tmp_path)
    text = _note_text(env)
    blob = anchors.blob_hash((plain / FILE).read_bytes())
    assert f"%%vm-anchor {FILE}@{blob}%%" in text  # no commit outside git
    (plain / FILE).write_text("changed\n")
    assert "changed since" not in _brief(memory, plain)
    assert staleness.review(memory.vault, memory.config, plain) == []
    with pytest.raises(VaultmemError, match="not a git work tree"):
        staleness.confirm(memory.vault, memory.config, "vm-00000000", plain)


def test_a_turn_without_files_has_no_anchor(vault_root: Path) -> None:
    from vaultmem.claude import ingest

    told = ingest.Story((), (ingest.Item("decision", "Use JWT.", ()),), {})
    assert recordsteps.anchored(told, str(vault_root)) is told


def test_review_cli_lists_and_retires(env: Path, repo: Path, tmp_path: Path) -> None:
    memory = _session(env, repo, tmp_path)
    memory.compact(force=True)
    (repo / FILE).write_text("changed\n")
    args = ["--project", memory.config.project, "review"]
    environ = hook_env(env)
    listed = run_cli(args, cwd=repo, env=environ)
    assert listed.returncode == 0, listed.stderr
    assert f": {FILE})" in listed.stdout
    block = listed.stdout.split()[0].lstrip("^")
    as_json = json.loads(run_cli([*args, "--json"], cwd=repo, env=environ).stdout)
    assert [f["block"] for f in as_json["flags"]] == [block]
    before = {p: p.read_bytes() for p in env.rglob("*.md")}
    missing = run_cli([*args, "--confirm", "vm-00000000"], cwd=repo, env=environ)
    assert missing.returncode == 1 and missing.stderr.count("\n") == 1
    assert "vm-00000000" in missing.stderr
    assert before == {p: p.read_bytes() for p in env.rglob("*.md")}
    retired = run_cli([*args, "--retire", block], cwd=repo, env=environ)
    assert retired.returncode == 0 and f"retired ^{block}" in retired.stdout
    again = run_cli(args, cwd=repo, env=environ)
    assert "no remembered item" in again.stdout


def test_the_check_finds_the_work_tree_from_a_subfolder_and_a_linked_worktree(
        repo: Path, tmp_path: Path) -> None:
    assert anchors.work_tree(repo / "src" / "auth") == repo
    linked = tmp_path / "linked"
    git(repo, "worktree", "add", "-q", str(linked))
    assert (linked / ".git").is_file() and anchors.work_tree(linked / "src") == linked
    assert anchors.work_tree(tmp_path) is None


def test_files_past_the_budget_are_not_flagged(repo: Path) -> None:
    old = anchors.Anchor(((FILE, "000000000000"),), "abc1234")
    assert staleness.current([old], repo) == {FILE: git(repo, "hash-object", FILE)[:12]}
    assert staleness.current([old], repo, budget_s=-1.0) == {}


def test_an_anchor_in_a_note_never_reads_outside_the_root_nor_a_device(
        repo: Path, tmp_path: Path) -> None:
    (tmp_path / "outside.txt").write_text("secret\n")
    os.mkfifo(repo / "fifo")
    planted = anchors.Anchor((("../outside.txt", "1"), ("/dev/zero", "1"), ("fifo", "1"),
                              ("src", "1"), (FILE, "1")), "abc1234")
    assert anchors.hashes(repo, [p for p, _ in planted.files]) == {
        FILE: git(repo, "hash-object", FILE)[:12]}


def test_claude_prose_cannot_plant_an_anchor(vault_root: Path) -> None:
    from vaultmem.claude import ingest

    item = ingest.Item("decision", "Use JWT %%vm-anchor ../../x@1 commit 1%% now.", ("Auth",),
                       anchor="%%vm-anchor a.py@2%%")
    assert item.render() == "- Use JWT now. %%vm-anchor a.py@2%% ([[Auth]])"
