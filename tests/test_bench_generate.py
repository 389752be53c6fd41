"""The benchmark vault generator: deterministic, valid notes, exact session notes, true answers."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

# bench/ is a folder of the repository, not part of the installed package; plain `pytest` puts
# only tests/ on sys.path.
ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.generate import TODAY, entity_names, generate, session_note

LINK = re.compile(r"\[\[([^\]|#]+)")
SESSION_HEADINGS = [
    "## Context",
    "## Work Log",
    "## Decisions Made",
    "## Open Questions",
    "## Next Steps",
    "## Related Entities",
]
ENTITY_HEADINGS = [
    "## Overview",
    "## Key Decisions",
    "## Gotchas & Troubleshooting",
    "## Recent Changes",
    "## Related Entities",
    "## References",
]


def _tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*.md"))}


def _frontmatter(text: str) -> dict[str, object]:
    assert text.startswith("---\n")
    end = text.index("\n---\n", 4)
    data = yaml.safe_load(text[4:end])
    assert isinstance(data, dict)
    return data


def _section(text: str, heading: str) -> str:
    start = text.index(f"\n{heading}\n") + len(heading) + 2
    nxt = text.find("\n## ", start)
    return text[start:] if nxt < 0 else text[start:nxt]


def test_same_seed_same_bytes_and_other_seed_differs(tmp_path: Path) -> None:
    a = generate(tmp_path / "a", notes=240, seed=7)
    b = generate(tmp_path / "b", notes=240, seed=7)
    c = generate(tmp_path / "c", notes=240, seed=8)
    tree_a, tree_b, tree_c = _tree(a.root), _tree(b.root), _tree(c.root)
    assert tree_a == tree_b
    assert a.answers == b.answers
    assert tree_a != tree_c
    assert a.bytes == sum(len(data) for data in tree_a.values())


def test_writes_exactly_the_notes_it_reports(tmp_path: Path) -> None:
    vault = generate(tmp_path / "v", notes=1000, seed=1)
    on_disk = set(_tree(vault.root))
    assert len(on_disk) == 1000
    assert on_disk == set(vault.notes)
    assert len(vault.projects) == 6
    assert vault.archives and vault.sessions and vault.entities and vault.topics
    assert len(vault.indexes) == len(vault.projects)


def test_every_note_has_valid_frontmatter_and_the_design_headings(tmp_path: Path) -> None:
    vault = generate(tmp_path / "v", notes=300, seed=2)
    types: dict[str, int] = {}
    for rel in vault.notes:
        text = (vault.root / rel).read_text(encoding="utf-8")
        meta = _frontmatter(text)
        kind = str(meta["type"])
        types[kind] = types.get(kind, 0) + 1
        assert isinstance(meta["tags"], list) and all("#" not in str(t) for t in meta["tags"])
        assert str(meta["created"]) <= TODAY.isoformat()
        if kind == "session":
            assert meta["project"] in vault.projects
            assert meta["status"] in {"active", "archived"}
            assert isinstance(meta["session_ids"], list) and len(meta["session_ids"]) == 1
            positions = [text.index(f"\n{h}\n") for h in SESSION_HEADINGS]
            assert positions == sorted(positions)
            assert re.search(r"^### \d\d:\d\d - \S", text, re.MULTILINE)
            stem = rel.rsplit("/", 1)[1]
            assert re.fullmatch(r"\d{4}-\d\d-\d\d-[a-z0-9-]+\.md", stem)
            assert stem.startswith(str(meta["created"]))
        if kind == "entity":
            positions = [text.index(f"\n{h}\n") for h in ENTITY_HEADINGS]
            assert positions == sorted(positions)
    assert set(types) == {"session", "entity", "topic", "project-index"}


def test_recent_sessions_are_active_and_below_threshold_older_ones_archived(tmp_path: Path) -> None:
    vault = generate(tmp_path / "v", notes=300, seed=3)
    for rel in vault.sessions:
        text = (vault.root / rel).read_text(encoding="utf-8")
        meta = _frontmatter(text)
        if meta["status"] == "active":
            assert len(text.splitlines()) < 500
            assert (TODAY - meta["created"]).days < 3  # type: ignore[operator]
        else:
            # Archived in place: the link points at an archive copy that exists.
            target = str(meta["archived_to"])
            archive = target.removeprefix("[[").split("|")[0] + ".md"
            assert archive in vault.archives
    for rel in vault.archives:
        meta = _frontmatter((vault.root / rel).read_text(encoding="utf-8"))
        assert meta["status"] == "archived" and meta["archived_reason"]


def test_entity_backlinks_point_at_archives_that_exist(tmp_path: Path) -> None:
    vault = generate(tmp_path / "v", notes=400, seed=4)
    targets = {rel[:-3] for rel in vault.archives}
    seen = 0
    for rel in vault.entities:
        refs = _section((vault.root / rel).read_text(encoding="utf-8"), "## References")
        for target in LINK.findall(refs):
            assert target in targets
            seen += 1
    assert seen > 0


def test_known_answers_point_at_the_only_note_holding_their_needle(tmp_path: Path) -> None:
    vault = generate(tmp_path / "v", notes=800, seed=5)
    texts = {rel: (vault.root / rel).read_text(encoding="utf-8").lower() for rel in vault.notes}
    assert len(vault.answers) >= 5
    kinds = set()
    for answer in vault.answers:
        terms = answer.query.lower().split()
        assert all(term in texts[answer.rel] for term in terms), answer
        needle = terms[0]
        assert [rel for rel, text in texts.items() if needle in text] == [answer.rel]
        kinds.add(_frontmatter(texts[answer.rel])["type"])
    assert kinds == {"session", "entity"}


@pytest.mark.parametrize("lines", [600, 6000])
def test_session_note_has_exact_lines_and_entity_links(lines: int) -> None:
    existing = entity_names(20)
    text = session_note(lines, 12, 6, project="shop", existing=existing, created=TODAY)
    assert len(text.splitlines()) == lines
    assert text.endswith("\n") and not text.endswith("\n\n")
    links = set(LINK.findall(text))
    assert len(links) == 12
    assert len(links & set(existing)) == 6
    assert links & set(existing) == set(existing[:6])
    # Every entity is the target of a decision, and gotcha entries exist for compaction.
    decisions = _section(text, "## Decisions Made")
    assert set(LINK.findall(decisions)) == links
    gotcha = r"^(Root cause:|Fixed bug:|Workaround:|Resolved:|Gotcha:|Troubleshot)"
    assert re.search(gotcha, text, re.MULTILINE)
    meta = _frontmatter(text)
    assert meta["type"] == "session" and meta["project"] == "shop" and meta["status"] == "active"


def test_session_note_is_deterministic_and_validates_its_arguments() -> None:
    assert session_note(600, 12, 6, seed=1) == session_note(600, 12, 6, seed=1)
    assert session_note(600, 12, 6, seed=1) != session_note(600, 12, 6, seed=2)
    assert len(session_note(600, 12, 12).splitlines()) == 600
    with pytest.raises(ValueError):
        session_note(20, 12, 6)
    with pytest.raises(ValueError):
        session_note(600, 3, 4)


def test_cli_writes_the_vault(tmp_path: Path) -> None:
    out = subprocess.run(
        [sys.executable, "-m", "bench.generate", str(tmp_path / "cli"), "--notes", "120"],
        check=False,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("120 notes")
    assert len(list((tmp_path / "cli").rglob("*.md"))) == 120


def test_an_entity_answer_is_a_fix_quoting_the_error_the_failure_row_sends(tmp_path: Path) -> None:
    # As capture writes a fix: the failure hook's quoting tier is what the bench row times.
    from vaultmem.claude import errorline, onfailure

    vault = generate(tmp_path / "v", notes=800, seed=5)
    entity = [a for a in vault.answers if "/entities/" in a.rel]
    assert entity
    for answer in entity:
        word, anchor = answer.query.split(" ", 1)
        [line] = [ln for ln in (vault.root / answer.rel).read_text(encoding="utf-8").splitlines()
                  if word in ln]
        failure = onfailure.Failure("Bash", f"pytest tests/test_{anchor}.py", None,
                                    f"Exit code 1\nE   RetryError: {word} header breaks {anchor} "
                                    "retries")
        assert word in onfailure.quoted(line)
        assert onfailure.tier(failure, errorline.signature(failure.error), line) == 0
