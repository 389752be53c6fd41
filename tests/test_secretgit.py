"""Secrets in a vault shared through git, with real repositories: the pre-commit hook that
``init --git`` installs refuses a staged secret with one line naming file:line; doctor says when a
secret is already pushed (rotate it); ``doctor --fix`` redacts vaultmem's notes and only reports
a person's own."""

from __future__ import annotations

from pathlib import Path

from test_gitshare import PROJECT, git, vaultmem

from vaultmem.memory import secretgit

TOKEN = "ghp_" + "1234567890abcdefghijklmnopqrstuvwxyZABCD"
PASSWORD = "Zq81-xLmP0wQe7"
OURS = f"claude/projects/{PROJECT}/entities/Deploy.md"
PERSONS = "Ops/Runbook.md"


def _repo(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    git(tmp_path, "init", "-q", str(root))
    done = vaultmem(root, "init", "--git")
    assert done.returncode == 0, done.stderr
    assert "pre-commit hook refuses a staged secret" in done.stdout
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "vault")
    return root


def _write(root: Path, rel: str, text: str) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def test_the_pre_commit_hook_refuses_a_staged_secret_with_one_line(tmp_path: Path) -> None:
    root = _repo(tmp_path)
    _write(root, PERSONS, "# Runbook\n\nRestart the worker.\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "clean")  # nothing secret: the hook lets it through
    _write(root, PERSONS, f"# Runbook\n\nRestart the worker.\nexport GH_TOKEN={TOKEN}\n")
    git(root, "add", "-A")
    refused = git(root, "commit", "-q", "-m", "oops", check=False)
    assert refused.returncode != 0
    lines = [ln for ln in refused.stderr.splitlines() if ln.strip()]
    assert lines == [(f"{PERSONS}:4: a github secret is staged (value withheld): remove it and "
                      "stage again (not a secret? list it in [redact] allow); commit refused")]
    assert TOKEN not in refused.stderr + refused.stdout
    assert git(root, "log", "--format=%s", "-1").stdout.strip() == "clean"
    again = vaultmem(root, "init", "--git")
    assert "(already there)" in again.stdout


def test_a_foreign_pre_commit_hook_is_left_alone(tmp_path: Path) -> None:
    root = tmp_path / "vault"
    git(tmp_path, "init", "-q", str(root))
    hook = root / ".git" / "hooks" / "pre-commit"
    hook.parent.mkdir(parents=True, exist_ok=True)
    hook.write_text("#!/bin/sh\nexit 0\n")
    done = vaultmem(root, "init", "--git")
    assert done.returncode == 0 and "is not vaultmem's: add" in done.stdout
    assert hook.read_text() == "#!/bin/sh\nexit 0\n"


def test_doctor_says_a_pushed_secret_must_be_rotated_and_fix_spares_a_persons_note(
        tmp_path: Path) -> None:
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(remote))
    root = _repo(tmp_path)
    person_text = f"# Runbook\n\nThe staging db password is {PASSWORD}\n"
    _write(root, OURS, f"# Deploy\n\n- 2026-11-01 — deploy with token {TOKEN}\n")
    _write(root, PERSONS, person_text)
    git(root, "add", "-A")
    git(root, "commit", "-q", "--no-verify", "-m", "secrets (hook skipped)")
    git(root, "remote", "add", "origin", str(remote))
    git(root, "push", "-q", "origin", "main")
    git(root, "fetch", "-q", "origin")

    report = vaultmem(root, "doctor", "--all")
    said = report.stdout + report.stderr
    assert TOKEN not in said and PASSWORD not in said
    assert f"{OURS}:3: secret: a github secret (value withheld); `vaultmem doctor --fix`" in said
    assert f"{PERSONS}:3: secret: a password secret (value withheld); your own note" in said
    assert f"{OURS}: a secret in this note is already pushed (origin/main): rotate it" in said

    fixed = vaultmem(root, "doctor", "--fix", "--all")
    assert TOKEN not in (root / OURS).read_text(encoding="utf-8")
    assert "‹redacted:github›" in (root / OURS).read_text(encoding="utf-8")
    assert (root / PERSONS).read_text(encoding="utf-8") == person_text
    said = fixed.stdout + fixed.stderr
    assert f"{OURS}: 1 secret(s) redacted" in said and f"{PERSONS}:3: secret:" in said
    assert f"{OURS}: a secret in this note is already pushed (origin/main): rotate it" in said
    assert PASSWORD not in vaultmem(root, "recall", "staging password").stdout


def test_pushed_is_empty_without_remotes(tmp_path: Path) -> None:
    root = _repo(tmp_path)
    assert secretgit.pushed(root, [(OURS, TOKEN)]) == {}
