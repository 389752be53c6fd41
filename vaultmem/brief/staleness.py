"""Which remembered decisions and gotchas the code has changed under: the briefing's marks and
``vaultmem review`` (list, confirm, retire).

The check runs only inside a git work tree (found by its ``.git``, no git process), hashing the
anchored files within a time budget; outside git nothing is flagged. The session's
own edits committed later are no change: the anchor holds the content, not the commit.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from vaultmem.memory import anchors
from vaultmem.notes.lazyre import lazy
from vaultmem.store.config import Config
from vaultmem.store.vault import Vault

from ..errors import VaultmemError
from . import context, digest

_LINE = lazy(
    r"^(?P<lead>- (?:\d{4}-\d{2}-\d{2} — )?)(?P<text>.*?)"
    r"(?P<tail>(?: %%vm-anchor [^\n]*?%%)?(?: \(\[\[.*\]\]\))? \^(?P<block>vm-[A-Za-z0-9-]+))$"
)


def current(anchors_: Sequence[anchors.Anchor], cwd: Path | str | None,
            budget_s: float = anchors.CHECK_BUDGET_S) -> dict[str, str]:
    """Path -> hash now of every anchored file ({} outside a git work tree)."""
    root = anchors.work_tree(cwd) if anchors_ else None
    if root is None:
        return {}
    return anchors.hashes(root, [path for a in anchors_ for path, _ in a.files], budget_s=budget_s)


def _vetted(items: Sequence[digest.Item], now: dict[str, str]) -> tuple[digest.Item, ...]:
    out: list[digest.Item] = []
    for item in items:
        if anchors.is_retired(item.text):
            continue
        anchor = anchors.parse(item.anchor) if item.anchor else None
        files = anchors.changed(anchor, now) if anchor else ()
        out.append(replace(item, text=anchors.mark(item.text, anchor, files))
                   if anchor and files else item)
    return tuple(out)


def vet(sessions_: Sequence[digest.SessionDigest], components: Sequence[context.Component],
        cwd: Path | None) -> tuple[list[digest.SessionDigest], list[context.Component]]:
    """The briefing's digests with retired items left out and items whose files changed since
    they were anchored marked ``(changed since <commit>: <file>)``."""
    found = [anchors.parse(i.anchor) for s in sessions_ for i in (*s.decisions, *s.gotchas)]
    found += [anchors.parse(i.anchor) for c in components
              for i in (*c.digest.decisions, *c.digest.gotchas)]
    now = current([a for a in found if a is not None], cwd)
    sessions_out = [replace(s, decisions=_vetted(s.decisions, now), gotchas=_vetted(s.gotchas, now))
                    for s in sessions_]
    components_out = [replace(c, digest=replace(c.digest, decisions=_vetted(c.digest.decisions, now),
                                                gotchas=_vetted(c.digest.gotchas, now)))
                      for c in components]
    return sessions_out, components_out


@dataclass(frozen=True)
class Flag:
    """An anchored line whose files changed since."""

    rel: str
    block: str
    text: str
    commit: str
    files: tuple[str, ...]


def _notes(vault: Vault, project: str) -> list[str]:
    layout = vault.layout
    rels = [layout.project_index(project)]
    try:
        folder = vault.abspath(layout.entities_dir(project))
        rels += sorted(f"{layout.entities_dir(project)}/{p.name}" for p in folder.glob("*.md"))
    except (OSError, VaultmemError):
        pass
    return rels


def _anchored_lines(vault: Vault, project: str) -> list[tuple[str, re.Match[str], anchors.Anchor]]:
    out = []
    for rel in _notes(vault, project):
        try:
            text = vault.read(rel).text
        except (OSError, VaultmemError):
            continue
        for line in text.split("\n"):
            found = _LINE.match(line) if "%%vm-anchor" in line else None
            anchor = anchors.parse(line) if found else None
            if found and anchor and not anchors.is_retired(found.group("text")):
                out.append((rel, found, anchor))
    return out


def review(vault: Vault, config: Config, cwd: Path | str | None) -> list[Flag]:
    """The project's anchored entity and index lines whose files changed since (not retired)."""
    lines = _anchored_lines(vault, config.project)
    now = current([a for _, _, a in lines], cwd, budget_s=60.0)
    flags = []
    for rel, found, anchor in lines:
        files = anchors.changed(anchor, now)
        if files:
            flags.append(Flag(rel, found.group("block"), found.group("text"), anchor.commit, files))
    return flags


def _edit_line(vault: Vault, config: Config, block: str, fn: Callable[[str], str]) -> str:
    """Apply ``fn`` to the line whose block id is ``block``; the note's rel path."""
    block = block.lstrip("^")
    for rel in _notes(vault, config.project):
        try:
            text = vault.read(rel).text
        except (OSError, VaultmemError):
            continue
        if f" ^{block}" not in text:
            continue

        def rewrite(note: str) -> str:
            rows = note.split("\n")
            for n, row in enumerate(rows):
                found = _LINE.match(row)
                if found and found.group("block") == block:
                    rows[n] = fn(row)
            return "\n".join(rows)

        if rewrite(text) != text:
            from vaultmem.notes import patch  # the edit types: a briefing writes no note

            vault.update(rel, [patch.Rewrite(rewrite)], label="vaultmem review")
            return rel
    raise VaultmemError(f"no vaultmem line with block id ^{block} in {config.project}'s notes")


def confirm(vault: Vault, config: Config, block: str, cwd: Path | str | None) -> str:
    """Re-anchor the line ``^block`` to its files' content now; the note's rel path."""
    repo = anchors.repo(cwd)
    if repo is None or not repo.git:
        raise VaultmemError(f"{cwd}: not a git work tree; nothing to re-anchor against")
    return _edit_line(vault, config, block, lambda row: anchors.reanchor(row, repo))


def retire(vault: Vault, config: Config, block: str) -> str:
    """Strike the line ``^block`` through (kept, out of the briefing); the note's rel path."""
    def strike(row: str) -> str:
        found = _LINE.match(row)
        if found is None or anchors.is_retired(found.group("text")):
            return row
        return f"{found.group('lead')}~~{found.group('text')}~~{found.group('tail')}"

    return _edit_line(vault, config, block, strike)
