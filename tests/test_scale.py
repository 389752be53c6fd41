"""Scale (issue 14): the fast paths give what the slow ones gave.

- A recall scoped to one project refreshes only that project's folder and the global one, finds
  the same hits as a refresh of the whole vault would, and ``--all-projects`` still sees an edit
  made anywhere while scoped recalls ran.
- A cold index built aside in one batch holds the same rows as one built note by note.
- doctor's fast frontmatter read, cached link targets and listed reads find the same problems as
  a reference doctor that parses every frontmatter with the YAML parser and decides every link
  afresh.
- CLI calls import only what they use.
"""

from __future__ import annotations

import datetime as dt
import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from property_kit import examples

from bench.generate import GeneratedVault, generate
from vaultmem.errors import InvalidYaml, NotUtf8
from vaultmem.memory import doctor as doctor_mod
from vaultmem.memory import plainmeta
from vaultmem.memory.doctor import Problem
from vaultmem.notes import frontmatter, links
from vaultmem.search import index, indexquery, indexrows, recall
from vaultmem.store.config import Config
from vaultmem.store.vault import Vault

TODAY = dt.date(2026, 11, 22)
COMMON_WORDS = ("retry", "token", "timeout", "cache", "deploy", "lock")


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> GeneratedVault:
    return generate(tmp_path_factory.mktemp("scale") / "v", notes=900, seed=5, projects=6)


def _old_recall(vault: Vault, project: str, query: str) -> list[tuple[str, float]]:
    """What recall did before scoping its refresh: every note refreshed, then the search."""
    index.refresh(vault)
    rows: list[indexquery.IndexHit] = []
    for any_term in (False, True):
        rows = indexquery.search(
            vault, recall.fts_query(query, any_term=any_term), current_project=project,
            today=TODAY, projects=(project, "global"), limit=20, under=vault.layout.namespace,
        )
        if rows:
            break
    return [(r.rel, round(r.score, 9)) for r in recall.without_archived_twins(rows)[:10]]


def _new_recall(vault: Vault, project: str, query: str) -> list[tuple[str, float]]:
    """The notes recall reads its facts from, as it finds them now: its scope's folders
    refreshed alone, then searched."""
    projects = recall.scope(Config(vault=vault.root, project=project), None, False)
    folders = recall.scope_folders(vault, projects, False)
    index.refresh(vault, folders=folders)
    rows: list[indexquery.IndexHit] = []
    for any_term in (False, True):
        rows = indexquery.search(
            vault, recall.fts_query(query, any_term=any_term), current_project=project,
            today=TODAY, projects=projects, limit=20, folders=folders,
        )
        if rows:
            break
    return [(r.rel, round(r.score, 9)) for r in recall.without_archived_twins(rows)[:10]]


def test_scoped_recall_finds_what_a_whole_vault_refresh_finds(
    generated: GeneratedVault, tmp_path: Path
) -> None:
    vault = Vault(generated.root)
    queries = [a.query for a in generated.answers] + list(COMMON_WORDS)
    index.refresh(vault)
    for project in generated.projects[:3]:
        for query in queries:
            assert _new_recall(vault, project, query) == _old_recall(vault, project, query)
    # From no index at all: the scoped index holds only the scope, so bm25's statistics differ,
    # but every known answer is still found first.
    for answer in generated.answers:
        project = answer.rel.split("/")[2] if "/projects/" in answer.rel else "elsewhere"
        index.index_path(vault).unlink()
        assert _new_recall(vault, project, answer.query)[0][0] == answer.rel


def test_scoped_recall_refreshes_only_its_folders(tmp_path: Path) -> None:
    g = generate(tmp_path / "v", notes=400, seed=2, projects=4)
    vault = Vault(g.root)
    project, other = g.projects[0], g.projects[1]
    in_scope = [r for r in g.notes if r.startswith(
        (f"claude/projects/{project}/", "claude/global/"))]
    config = Config(vault=g.root, project=project)

    first = recall.recall(vault, config, "retry", today=TODAY)
    assert first.stats.scanned == len(in_scope) < len(g.notes)
    # Another project's note changes: the scoped recall neither reads nor reindexes it...
    target = g.root / g.project_notes(other)[-1]
    target.write_text(target.read_text() + "\nzorblatt quenched the cache\n")
    scoped = recall.recall(vault, config, "zorblatt", today=TODAY)
    assert (scoped.stats.scanned, scoped.stats.reread, scoped.hits) == (len(in_scope), 0, ())
    # ...and --all-projects, which refreshes vaultmem's whole folder, finds it.
    every = recall.recall(vault, config, "zorblatt", all_projects=True, today=TODAY)
    assert [h.rel for h in every.hits] == [g.project_notes(other)[-1]]
    # Every note outside the scope was indexed now, for the first time.
    assert every.stats.scanned == len(g.notes)
    assert every.stats.reindexed == len(g.notes) - len(in_scope)


def test_all_projects_sees_edits_deletions_and_new_notes_made_while_scoped_recalls_ran(
    tmp_path: Path,
) -> None:
    g = generate(tmp_path / "v", notes=300, seed=4, projects=3)
    vault = Vault(g.root)
    project, other = g.projects[0], g.projects[1]
    config = Config(vault=g.root, project=project)
    recall.recall(vault, config, "retry", all_projects=True, today=TODAY)  # everything indexed
    gone = g.project_notes(other)[0]
    (g.root / gone).unlink()
    new = f"claude/projects/{other}/entities/Quillfeather.md"
    (g.root / new).write_text("---\ntype: entity\nproject: x\n---\n\nquillfeather fixes it\n")
    mine = f"claude/projects/{project}/entities/Mine.md"
    (g.root / mine).write_text("---\ntype: entity\n---\n\nquillfeather here too\n")
    for _ in range(2):
        hits = recall.recall(vault, config, "quillfeather", today=TODAY).hits
        assert [h.rel for h in hits] == [mine]
    every = recall.recall(vault, config, "quillfeather", all_projects=True, today=TODAY)
    assert sorted(h.rel for h in every.hits) == sorted([mine, new])
    assert every.stats.deleted == 1
    conn = sqlite3.connect(index.index_path(vault))
    assert conn.execute("SELECT count(*) FROM notes WHERE rel = ?", (gone,)).fetchone() == (0,)
    assert conn.execute("SELECT count(*) FROM notes").fetchone() == (len(g.notes) + 1,)
    conn.close()


def _dump(vault: Vault) -> list[tuple[object, ...]]:
    conn = sqlite3.connect(index.index_path(vault))
    try:
        return list(conn.execute(
            "SELECT n.rel, n.mtime_ns, n.size, n.sha256, n.type, n.project, n.title, n.updated, "
            "n.status, f.title, f.tags, f.body FROM notes AS n JOIN notes_fts AS f "
            "ON f.rowid = n.id ORDER BY n.rel"
        ))
    finally:
        conn.close()


def test_a_cold_build_holds_what_a_build_folder_by_folder_holds(
    generated: GeneratedVault,
) -> None:
    vault = Vault(generated.root)
    index.index_path(vault).unlink(missing_ok=True)
    cold = index.refresh(vault)
    assert cold.rebuilt and cold.reindexed == len(generated.notes)
    at_once = _dump(vault)
    hits_at_once = [_old_recall(vault, p, w) for p in generated.projects for w in COMMON_WORDS]

    index.index_path(vault).unlink()
    for folder in ["claude/global", *(f"claude/projects/{p}" for p in generated.projects)]:
        index.refresh(vault, folders=[folder])
    assert index.refresh(vault).reindexed == 0
    assert _dump(vault) == at_once
    assert [_old_recall(vault, p, w) for p in generated.projects for w in COMMON_WORDS] == (
        hits_at_once
    )
    assert not list(vault.state_dir.glob("*.build*"))


# -- doctor -----------------------------------------------------------------------------------


def _reference_doctor(vault: Vault) -> list[Problem]:
    """doctor as it was before its shortcuts: every frontmatter through the YAML parser, every
    link resolved and checked for ambiguity afresh, every note read through Vault.read."""
    notes = list(vault.iter_notes())
    note_index = links.NoteIndex(notes)
    others = links.NoteIndex(doctor_mod._other_files(vault))
    problems = doctor_mod._name_problems(notes, others.notes)
    for rel in notes:
        try:
            text = vault.read(rel).text
        except NotUtf8 as err:
            problems.append(Problem("not-utf8", rel, err.line, err.message))
            continue
        if "<<<<<<<" in text or "[!conflict]" in text.lower():
            problems += doctor_mod._merge_problems(rel, text)
        meta: dict[str, object] | None = {}
        parts = frontmatter.split(text)
        if parts.has_frontmatter:
            try:  # libyaml first, as doctor did before its line scanner
                data = indexrows.load_yaml(parts.yaml_text)
            except (yaml.YAMLError, ValueError, TypeError, RecursionError):
                data = []
            if data is None or isinstance(data, dict):
                meta = dict(data or {})
            else:
                try:
                    meta = frontmatter.parse(text, path=rel)
                except InvalidYaml as err:
                    problems.append(Problem("invalid-yaml", rel, err.line, err.message))
                    meta = None
        skip: set[str] = set()
        if meta is not None:
            problems += doctor_mod._status_problems(rel, meta, note_index, skip, text)
        for link in links.parse(text):
            if not link.target or link.target in skip:
                continue
            shown = text[link.start : link.end]
            line = text.count("\n", 0, link.start) + 1
            opens = note_index.resolve(link.target, rel)
            if opens is None and others.resolve(link.target, rel) is None:
                problems.append(Problem("unresolved-link", rel, line,
                                        f"{shown} does not resolve to any note or file"))
                continue
            same = links.ambiguous(link.target, rel, note_index)
            if same and opens is not None:
                problems.append(Problem(
                    "ambiguous-link", rel, line,
                    f"{shown} could mean {len(same)} notes ({doctor_mod._some(same)}); Obsidian opens "
                    f"{opens}: link by path, [[path|{link.target}]]",
                ))
    problems.sort(key=lambda p: (p.rel, p.line or 0, p.kind))
    return problems


ODD_NOTES = {
    "claude/projects/p/sessions/bad-yaml.md": "---\ntype: session\nstatus: [oops\n---\nx\n",
    "claude/projects/p/sessions/dup.md": "---\nstatus: active\nstatus: active\n---\nx\n",
    "claude/projects/p/sessions/tab.md": "---\nstatus:\tarchived\n---\nx\n",
    "claude/projects/p/sessions/quoted.md": (
        '---\ntype: session\nstatus: "archived"\narchived_to: "[[Nowhere]]"\n---\n[[Gone]]\n'),
    "claude/projects/p/sessions/null-type.md": "---\ntype: null\nstatus: archived\n---\n",
    "claude/projects/p/sessions/number.md": "---\nstatus: compaction_failed\nerror: 1e3\n---\n",
    "claude/projects/p/sessions/failed.md": (
        "---\nstatus: compaction_failed\nerror: 'boom: it broke'\n---\n"),
    "claude/projects/p/sessions/list-to.md": (
        "---\nstatus: archived\narchived_to:\n  - x\n---\n"),
    "claude/projects/p/sessions/bomb.md": (
        "---\na: &a [x, x]\nb: &b [*a, *a]\nc: [*b, *b]\nstatus: active\n---\n"),
    "claude/projects/p/sessions/comment.md": "---\nstatus: active # fine\n---\n[[Auth]]\n",
    "claude/projects/p/sessions/date.md": "---\ncreated: 2026-02-30\nstatus: active\n---\n",
    "claude/projects/p/sessions/indent.md": (
        "---\ntags:\n  - a\n    - b\nstatus: active\n---\n`[[In Code]]` [[Auth]]\n"),
    "claude/projects/p/sessions/ctrl.md": "---\nstatus: act\x07ive\n---\n",
    "claude/projects/p/entities/Auth.md": "---\ntype: entity\n---\n```\n[[Fenced]]\n```\n",
    "claude/projects/q/entities/Auth.md": "---\ntype: entity\n---\n[[Auth]] <<<<<<< x\n",
}


def test_doctor_finds_what_the_reference_doctor_finds(tmp_path: Path) -> None:
    g = generate(tmp_path / "v", notes=700, seed=7, projects=5)
    for rel, text in ODD_NOTES.items():
        (g.root / rel).parent.mkdir(parents=True, exist_ok=True)
        (g.root / rel).write_text(text, encoding="utf-8")
    (g.root / "claude/projects/p/sessions/latin1.md").write_bytes(b"caf\xe9 [[x]]\n")
    vault = Vault(g.root)
    report = doctor_mod.doctor(vault)
    expected = _reference_doctor(vault)
    assert list(report.problems) == expected
    kinds = {p.kind for p in expected}
    assert {"invalid-yaml", "unresolved-link", "ambiguous-link", "compaction-failed",
            "archived-without-archive", "not-utf8"} <= kinds


_VALUE = st.one_of(
    st.sampled_from(["archived", "compaction_failed", "session", "null", "true", "~", "1e3",
                     "007", "2026-01-01", "2026-13-45", "0b_", "[a, b]", "{a: 1}", "&x y", "*x",
                     "'quoted'", '"dq"', '"esc\\"aped"', "a: b", "a #c", "x\ty", "", "- x",
                     "(3 days)", "[[Link|Alias]]", '"[[Link|Alias]]"', "ce40-1a", "|", ">"]),
    st.text(alphabet="ab:#'\"-[]{}&*!|> \t\x85\u2028é0123456789", max_size=8),
)
_LINE = st.one_of(
    st.tuples(st.sampled_from(["status", "type", "error", "archived_to", "tags", "x-y"]),
              _VALUE).map(lambda kv: f"{kv[0]}: {kv[1]}"),
    st.tuples(st.sampled_from(["", " ", "  ", "\t"]), _VALUE).map(lambda iv: f"{iv[0]}- {iv[1]}"),
    st.sampled_from(["tags:", "status:", "", "  ", "# comment", "key:value", "  more"]),
)


@settings(max_examples=examples(400), deadline=None)
@given(st.lists(_LINE, max_size=6))
def test_plain_frontmatter_reads_as_the_yaml_parser_reads_it(lines: list[str]) -> None:
    yaml_text = "".join(line + "\n" for line in lines)
    plain = plainmeta.read(yaml_text, frozenset({"status", "type", "error", "archived_to"}))
    if plain is None:
        return  # the parser decides
    data = indexrows.load_yaml(yaml_text)  # never raises on what the fast path accepts
    data = data or {}
    assert isinstance(data, dict)
    for key in ("status", "type", "error", "archived_to"):
        assert plain.get(key) == data.get(key), key
    assert frontmatter.parse(f"---\n{yaml_text}---\n") == data


# -- imports ----------------------------------------------------------------------------------

PROBE = """
import json, sys
from vaultmem import launcher
try:
    launcher.main(sys.argv[1:])
except SystemExit:
    pass
print(json.dumps(sorted(sys.modules)), file=sys.stderr)
"""


def _imported(vault: Path, *args: str) -> set[str]:
    proc = subprocess.run(
        [sys.executable, "-c", PROBE, "--vault", str(vault), "--project", "demo", *args],
        capture_output=True, text=True, timeout=120, check=False,
    )
    assert proc.returncode == 0, proc.stderr
    return set(json.loads(proc.stderr.strip().splitlines()[-1]))


def test_cli_calls_import_only_what_they_use(vault_root: Path) -> None:
    rel = "claude/projects/demo/entities/Auth.md"
    (vault_root / rel).parent.mkdir(parents=True, exist_ok=True)
    (vault_root / rel).write_text("---\ntype: entity\nproject: demo\n---\n\nguava tokens\n")
    editing = {"vaultmem.memory.editing", "vaultmem.notes.patch", "vaultmem.notes.sections", "markdown_it"}
    version = _imported(vault_root, "--version")
    assert not version & {"yaml", "filelock", "vaultmem.store.vault", "vaultmem.store.config", *editing}
    found = _imported(vault_root, "recall", "guava")
    assert "vaultmem.search.index" in found
    assert not found & {"yaml", "frontmatter", "vaultmem.notes.frontmatter", "vaultmem.memory.sessions",
                        *editing}
    status = _imported(vault_root, "status")
    assert "vaultmem.memory.sessions" in status
    assert not status & {"vaultmem.memory.editing", "markdown_it", "vaultmem.search.index",
                         "vaultmem.memory.compaction", "anthropic"}


def test_yaml_is_still_read_when_frontmatter_needs_it(tmp_path: Path) -> None:
    # The lazy YAML import of the index: a note the line scanner refuses still gets its keys.
    root = tmp_path / "v"
    rel = "claude/projects/demo/entities/Flow.md"
    (root / rel).parent.mkdir(parents=True)
    (root / rel).write_text("---\ntype: entity\ntags: [x, 'y z']\n---\n\nmangosteen\n")
    result = recall.recall(Vault(root), Config(vault=root, project="demo"), "mangosteen",
                           today=TODAY)
    assert [h.type for h in result.hits] == ["entity"]
    assert yaml.safe_load("a: 1") == {"a": 1}
