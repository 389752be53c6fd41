"""Path links follow their note (issue 33 item 3): a link vaultmem wrote by path to a note that
moved since (promoted, merged, renamed, relocated; often on another machine) is written to where
the note is now, by ``mend-links`` (git's post-merge hook) and ``doctor --fix``."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from vaultmem.claude.install import runner
from vaultmem.memory import doctor as doctor_mod
from vaultmem.memory.linkmend import Whereabouts, mend, mended
from vaultmem.memory.promote import promote
from vaultmem.notes import links
from vaultmem.store.config import Config
from vaultmem.store.layout import Layout
from vaultmem.store.vault import Vault

P = "claude/projects"


def _where(notes: list[str], aliases: dict[str, list[str]] | None = None) -> Whereabouts:
    return Whereabouts(Layout(), links.NoteIndex(notes), lambda rel: (aliases or {}).get(rel, []))


def test_a_promoted_entity_is_followed_to_global() -> None:
    where = _where([f"{P}/shop/_index.md", "claude/global/entities/Billing.md"])
    text = (f"- Use Stripe ([[{P}/shop/entities/Billing|Billing]], "
            f"[[{P}/shop/entities/Billing#^vm-1234abcd|Billing]])\n")
    out, count = mended(text, f"{P}/shop/_index.md", where)
    assert count == 2
    assert out == ("- Use Stripe ([[claude/global/entities/Billing|Billing]], "
                   "[[claude/global/entities/Billing#^vm-1234abcd|Billing]])\n")


def test_a_merged_entity_is_followed_to_the_one_that_took_its_name() -> None:
    invoices = f"{P}/shop/entities/Invoices.md"
    where = _where([invoices, "claude/global/entities/Invoice.md"], {invoices: ["Invoice"]})
    out, count = mended(f"see ![[{P}/shop/entities/Invoice|Invoice]]", f"{P}/shop/_index.md",
                        where)
    # The project's own entity that took the name wins over a global one of that name.
    assert (out, count) == (f"see ![[{P}/shop/entities/Invoices|Invoices]]", 1)


def test_a_relocated_session_is_followed_and_the_rest_is_left() -> None:
    moved = f"{P}/shop/sessions/2026-11-20-checkout.md"
    where = _where([moved, f"{P}/dev/entities/Auth.md", "Notes/x.md"])
    text = (f"- [[{P}/dev/sessions/2026-11-20-checkout|checkout]] "
            f"[[{P}/dev/entities/Auth|Auth]] [[{P}/dev/entities/Gone|Gone]] "
            "[[Notes/y]] [[Auth]]\n")
    out, count = mended(text, f"{P}/dev/entities/Auth.md", where)
    assert count == 1
    assert out == (f"- [[{P}/shop/sessions/2026-11-20-checkout|checkout]] "
                   f"[[{P}/dev/entities/Auth|Auth]] [[{P}/dev/entities/Gone|Gone]] "
                   "[[Notes/y]] [[Auth]]\n")


def test_a_relocated_compacted_session_is_followed_to_the_copy_of_its_kind() -> None:
    stub, archive = (f"{P}/shop/sessions/2026-11-20-x.md",
                     f"{P}/shop/archive/sessions/2026-11-20-x.md")
    where = _where([stub, archive])
    text = f"[[{P}/dev/sessions/2026-11-20-x|x]] [[{P}/dev/archive/sessions/2026-11-20-x|x]]"
    out, count = mended(text, f"{P}/dev/_index.md", where)
    assert (out, count) == (f"[[{stub[:-3]}|x]] [[{archive[:-3]}|x]]", 2)


def _git(cwd: Path, *args: str) -> str:
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com",
           "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(cwd.parent), "PATH": "/usr/bin:/bin"}
    done = subprocess.run(["git", "-c", "init.defaultBranch=main", *args], cwd=cwd, text=True,
                          capture_output=True, timeout=120, check=False, env=env)
    assert done.returncode == 0, done.stderr
    return done.stdout


def _note(root: Path, rel: str, text: str) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


@pytest.mark.parametrize("pull", ["--no-rebase", "--rebase"])
def test_a_link_written_on_another_machine_follows_a_promotion_after_the_pull(
    tmp_path: Path, pull: str,
) -> None:
    remote = tmp_path / "remote.git"
    _git(tmp_path, "init", "-q", "--bare", str(remote))
    a, b = tmp_path / "a", tmp_path / "b"
    billing = f"{P}/shop/entities/Billing.md"
    _git(tmp_path, "clone", "-q", str(remote), str(a))
    _note(a, billing, "---\ntype: entity\nproject: shop\n---\n# Billing\n\n## Overview\n\nStripe.\n")
    _note(a, f"{P}/shop/_index.md", "# shop\n\n- [[claude/projects/shop/entities/Billing|Billing]]\n")
    _git(a, "add", "-A")
    _git(a, "commit", "-q", "-m", "one")
    _git(a, "push", "-q", "origin", "HEAD:main")
    _git(tmp_path, "clone", "-q", str(remote), str(b))
    for root in (a, b):
        done = subprocess.run([*runner(sys.executable), "--vault", str(root), "init", "--git"],
                              text=True, capture_output=True, timeout=120, check=False,
                              env={"XDG_CONFIG_HOME": str(tmp_path / f".config-{root.name}"),
                                   "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)})
        assert done.returncode == 0, done.stderr
        assert "post-merge hook makes links follow the notes a merge moved" in done.stdout
        assert "post-rewrite hook makes links follow the notes a rebase moved" in done.stdout
    # Machine a promotes Billing; machine b meanwhile links the project's Billing by path.
    assert promote(Vault(a), Config(vault=a, project="shop"), "Billing").status == "promoted"
    _git(a, "add", "-A")
    _git(a, "commit", "-q", "-m", "promote")
    _git(a, "push", "-q", "origin", "HEAD:main")
    _note(b, f"{P}/shop/sessions/2026-11-21-tax.md",
          "---\ntype: session\n---\n# tax\n\n- VAT in [[claude/projects/shop/entities/Billing|Billing]]\n")
    _git(b, "add", "-A")
    _git(b, "commit", "-q", "-m", "session")
    _git(b, "pull", "-q", pull, "--no-edit", "origin", "main")
    session = (b / f"{P}/shop/sessions/2026-11-21-tax.md").read_text()
    assert "- VAT in [[claude/global/entities/Billing|Billing]]\n" in session
    assert doctor_mod.doctor(Vault(b)).ok, [str(p) for p in doctor_mod.doctor(Vault(b)).problems]


def test_mend_rewrites_only_vaultmems_notes(tmp_path: Path) -> None:
    vault = Vault(tmp_path)
    _note(tmp_path, "claude/global/entities/Auth.md", "# Auth\n")
    mine = f"{P}/dev/sessions/2026-11-20-x.md"
    link = "[[claude/projects/dev/entities/Auth|Auth]]"
    _note(tmp_path, mine, f"# x\n\n- {link}\n")
    _note(tmp_path, "Notes/own.md", f"# own\n\n{link}\n")
    done = mend(vault)
    assert [(d.rel, d.count) for d in done] == [(mine, 1)]
    assert "[[claude/global/entities/Auth|Auth]]" in (tmp_path / mine).read_text()
    assert link in (tmp_path / "Notes/own.md").read_text()
    assert mend(vault) == []
