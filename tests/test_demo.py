"""`vaultmem demo` runs the whole story on a fresh folder, as a new user runs it."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

PROJECT = "claude/projects/demo-shop"


def _demo(folder: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "vaultmem", "demo", str(folder)],
        capture_output=True, text=True, timeout=120, check=False,
    )


def test_demo_runs_the_story(tmp_path: Path) -> None:
    root = tmp_path / "sample"
    result = _demo(root)
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    assert f"Sample vault: {root}" in result.stdout
    assert "Open it in Obsidian" in result.stdout
    session = root / PROJECT / "sessions"
    archive = root / PROJECT / "archive" / "sessions"
    archived = sorted(p.name for p in archive.glob("*.md"))
    assert len(archived) == 1 and archived[0].endswith("login-with-jwt.md")
    stem = archived[0][:-3]
    original = (session / archived[0]).read_text("utf-8")
    assert "status: archived" in original
    assert f'archived_to: "[[{PROJECT}/archive/sessions/{stem}]]"' in original
    # The person's own words in the Auth entity survive; Claude's decisions land once each.
    auth = (root / PROJECT / "entities" / "Auth.md").read_text("utf-8")
    assert "Owner: Dana (written by hand in Obsidian)." in auth
    assert "team/security   # added by a person in Obsidian" in auth
    assert "Passwords are hashed with argon2id" in auth
    assert auth.count("Use RS256-signed JWTs") == 1
    assert f"[[{PROJECT}/archive/sessions/{stem}|{stem}]] - Archived session (compacted)" in auth
    for name in ("Database", "API Gateway"):
        assert (root / PROJECT / "entities" / f"{name}.md").exists()
    # The pool gotcha names no component; its workaround's DB_POOL_SIZE is the Database's.
    database = (root / PROJECT / "entities" / "Database.md").read_text("utf-8")
    assert "Connection pool exhaustion under load" in database
    assert not (root / PROJECT / "entities" / "Inbox.md").exists()
    # Block ids are unique within each note (the same decision may land in two entities).
    for entity in (root / PROJECT / "entities").glob("*.md"):
        ids = re.findall(r"\^vm-[0-9a-f]{8}", entity.read_text("utf-8"))
        assert len(ids) == len(set(ids)), entity
    # The next session's context carries the first session's decisions, fenced as data.
    assert "Use RS256-signed JWTs for access tokens" in result.stdout
    assert "~~~text" in result.stdout
    # The decision anchored to tokens.py, the code changed after the session: review lists it
    # and the briefing marks it, with the commit the session ended on.
    start = subprocess.run(["git", "rev-list", "--max-parents=0", "HEAD"], cwd=root / "shop-code",
                           capture_output=True, text=True, check=True).stdout.strip()[:7]
    assert "%%vm-anchor src/auth/tokens.py@" in auth
    flag = f"Access tokens live 15 minutes (ACCESS_TOKEN_MINUTES in tokens.py) (changed since {start}: src/auth/tokens.py)"
    assert result.stdout.count(flag) >= 2
    # The project index as a map, shown and written; the Bases views in the namespace folder.
    index = (root / PROJECT / "_index.md").read_text()
    for name in ("API Gateway", "Auth", "Database"):
        linked = f"{PROJECT}/entities/{name}"  # by path, the name as alias (issue 33)
        assert f"- [[{linked}|{name}]] ([[{linked}#^vm-" in index
        assert f"     - [[{linked}|{name}]] ([[{linked}#^vm-" in result.stdout
    assert f"- [[{PROJECT}/archive/sessions/{stem}|{stem}]] ^vm-" in index
    assert "     ## Recent Sessions" in result.stdout
    for view in ("sessions.base", "entities.base", "attention.base"):
        assert (root / "claude" / view).is_file() and f"claude/{view}" in result.stdout


def test_demo_refuses_a_folder_with_files(tmp_path: Path) -> None:
    (tmp_path / "mine.md").write_text("my note\n", "utf-8")
    result = _demo(tmp_path)
    assert result.returncode == 1
    assert result.stdout == ""
    assert result.stderr.startswith("error: demo folder is not empty")
    assert result.stderr.count("\n") == 1
    assert (tmp_path / "mine.md").read_text("utf-8") == "my note\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mine.md"]
