"""recall: known answers, scope, ranking, safe queries, cross-project recalls and suggestions."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bench.generate import generate
from vaultmem.memory import editing
from vaultmem.notes.frontmatter import parse
from vaultmem.search import recall
from vaultmem.search.recall import QueryError
from vaultmem.store.config import Config
from vaultmem.store.vault import Vault

TODAY = dt.date(2026, 11, 22)


def note(kind: str, project: str, body: str, *, updated: str = "2026-11-20") -> str:
    return (
        f"---\ntype: {kind}\nproject: {project}\ncreated: 2026-01-01\nupdated: {updated}\n"
        f"status: active\n---\n\n## Overview\n\n{body}\n"
    )


def write(root: Path, rel: str, text: str) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def cfg(root: Path, project: str = "demo") -> Config:
    return Config(vault=root, project=project)


def rels(result: recall.RecallResult) -> list[str]:
    return [h.rel for h in result.hits]


def test_generated_vault_known_answers_come_first(tmp_path: Path) -> None:
    generated = generate(tmp_path / "v", notes=800, seed=3)
    assert len(generated.answers) >= 3
    vault = Vault(generated.root)
    for answer in generated.answers:
        result = recall.recall(
            vault, cfg(generated.root, "elsewhere"), answer.query, all_projects=True, today=TODAY
        )
        assert result.hits, answer
        assert result.hits[0].rel == answer.rel, answer
    # Scoped to the note's own project it is found too; scoped to another one it is not.
    answer = next(a for a in generated.answers if "/projects/" in a.rel)
    owner = answer.rel.split("/")[2]
    other = next(p for p in generated.projects if p != owner)
    mine = recall.recall(vault, cfg(generated.root, owner), answer.query, today=TODAY)
    assert rels(mine)[0] == answer.rel
    theirs = recall.recall(vault, cfg(generated.root, other), answer.query, today=TODAY)
    assert answer.rel not in rels(theirs)


def test_entities_rank_above_sessions_above_others(vault_root: Path) -> None:
    # Each note says it its own way: one text in several notes is one hit (test_recall_contract).
    body = "The marmalade cache is warmed at boot, says the {}."
    write(vault_root, "claude/projects/demo/sessions/2026-11-20-x.md",
          note("session", "demo", body.format("session")))
    write(vault_root, "claude/projects/demo/entities/X.md",
          note("entity", "demo", body.format("entity")))
    write(vault_root, "claude/projects/demo/misc/X.md",
          note("scratch", "demo", body.format("scratch")))
    result = recall.recall(Vault(vault_root), cfg(vault_root), "marmalade", today=TODAY)
    assert [h.type for h in result.hits] == ["entity", "session", "scratch"]
    assert result.hits[0].score > result.hits[1].score > result.hits[2].score


def test_current_project_ranks_first_then_global(vault_root: Path) -> None:
    for project in ("alpha", "beta", "global"):
        folder = "claude/global" if project == "global" else f"claude/projects/{project}"
        body = f"The tangerine queue of {project} drains nightly."
        write(vault_root, f"{folder}/entities/Q.md", note("entity", project, body))
    vault = Vault(vault_root)
    for current in ("alpha", "beta"):
        result = recall.recall(
            vault, cfg(vault_root, current), "tangerine", all_projects=True, today=TODAY
        )
        assert [h.project for h in result.hits][:2] == [current, "global"]
    # Default scope: the current project and global only.
    scoped = recall.recall(vault, cfg(vault_root, "alpha"), "tangerine", today=TODAY)
    assert [h.project for h in scoped.hits] == ["alpha", "global"]
    other = recall.recall(vault, cfg(vault_root, "alpha"), "tangerine", project="beta", today=TODAY)
    assert [h.project for h in other.hits] == ["beta", "global"]


def test_recent_notes_rank_first_among_equals(vault_root: Path) -> None:
    body = "The persimmon migration of {} is reversible."
    write(
        vault_root,
        "claude/projects/demo/entities/Old.md",
        note("entity", "demo", body.format("old"), updated="2025-01-01"),
    )
    write(
        vault_root,
        "claude/projects/demo/entities/New.md",
        note("entity", "demo", body.format("new"), updated="2026-11-21"),
    )
    result = recall.recall(Vault(vault_root), cfg(vault_root), "persimmon", today=TODAY)
    assert [h.title for h in result.hits] == ["New", "Old"]


def test_a_much_better_match_beats_the_type_bonus(vault_root: Path) -> None:
    write(
        vault_root,
        "claude/projects/demo/sessions/2026-11-20-s.md",
        note("session", "demo", "quince quince quince quince"),
    )
    write(
        vault_root,
        "claude/projects/demo/entities/E.md",
        note("entity", "demo", "quince " + "filler words here " * 60),
    )
    result = recall.recall(Vault(vault_root), cfg(vault_root), "quince", today=TODAY)
    assert [h.type for h in result.hits] == ["session", "entity"]


def test_type_filter_limit_and_snippet(vault_root: Path) -> None:
    for i in range(5):
        write(
            vault_root,
            f"claude/projects/demo/sessions/2026-11-2{i}-s.md",
            note("session", "demo", f"about the rhubarb of day {i}\nrollout {i}"),
        )
    write(vault_root, "claude/projects/demo/entities/R.md", note("entity", "demo", "rhubarb"))
    vault = Vault(vault_root)
    sessions = recall.recall(
        vault, cfg(vault_root), "rhubarb", type="session", limit=3, today=TODAY
    )
    assert len(sessions.hits) == 3
    assert {h.type for h in sessions.hits} == {"session"}
    hit = sessions.hits[0]
    assert hit.kind == "note" and hit.text.startswith("about the rhubarb of day ")  # best line
    assert [hit.text[s:e] for s, e in hit.matches] == ["rhubarb"]
    with pytest.raises(QueryError):
        recall.recall(vault, cfg(vault_root), "rhubarb", limit=0, today=TODAY)


def test_all_words_first_then_any_word(vault_root: Path) -> None:
    write(vault_root, "claude/projects/demo/entities/A.md", note("entity", "demo", "apricot jam"))
    write(vault_root, "claude/projects/demo/entities/B.md", note("entity", "demo", "apricot pie"))
    vault = Vault(vault_root)
    both = recall.recall(vault, cfg(vault_root), "apricot jam", today=TODAY)
    assert [h.title for h in both.hits] == ["A"]
    either = recall.recall(vault, cfg(vault_root), "jam pie", today=TODAY)
    assert sorted(h.title for h in either.hits) == ["A", "B"]
    assert " OR " in either.query


def test_words_find_the_identifiers_they_make_and_identifiers_their_words(
    vault_root: Path,
) -> None:
    entities = "claude/projects/demo/entities"
    write(vault_root, f"{entities}/A.md", note("entity", "demo", "- the PowerMonitor widget"))
    write(vault_root, f"{entities}/B.md", note("entity", "demo", "- set queryLog in the config"))
    write(vault_root, f"{entities}/C.md", note("entity", "demo", "- the power_monitor crate"))
    write(vault_root, f"{entities}/D.md", note("entity", "demo", "- the HTTP server restarts"))
    write(vault_root, f"{entities}/E.md", note("entity", "demo", "- monitor the power draw"))
    vault = Vault(vault_root)

    def found(query: str) -> list[str]:
        return sorted({h.title for h in recall.recall(vault, cfg(vault_root), query,
                                                      today=TODAY).hits})

    # Two words find the one identifier they make, camelCase or snake_case, and the words.
    assert found("power monitor") == ["A", "C", "E"]
    assert found("query log") == ["B"]
    # An identifier finds its words written apart, and the other spellings of it.
    assert found("httpServer") == ["D"]
    assert found("PowerMonitor") == ["A", "C"]
    assert found("power_monitor") == ["A", "C"]
    # The identifier shown holds both words of the query: it ranks as a line holding both.
    hit = recall.recall(vault, cfg(vault_root), "query log", today=TODAY).hits[0]
    assert hit.text[slice(*hit.matches[0])] == "queryLog"


def test_identifier_parts() -> None:
    assert recall.identifier_parts("getHTTPResponse") == ["get", "HTTP", "Response"]
    assert recall.identifier_parts("power_monitor") == ["power", "monitor"]
    assert recall.identifier_parts("v0.23") == ["v0", "23"]  # digits keep a part whole
    assert recall.identifier_parts("café") == ["café"]
    assert recall.fts_query("v0.23") == '"v0.23"'
    assert recall.fts_query("retry*") == '"retry"*'


def test_prefix_search(vault_root: Path) -> None:
    write(
        vault_root,
        "claude/projects/demo/entities/A.md",
        note("entity", "demo", "authentication flow"),
    )
    result = recall.recall(Vault(vault_root), cfg(vault_root), "authent*", today=TODAY)
    assert [h.title for h in result.hits] == ["A"]


@pytest.mark.parametrize(
    "query",
    [
        '"',
        "*",
        "AND",
        "NEAR(",
        'near" OR "x',
        "title:near",
        "(near",
        "-near",
        "^near",
        "NOT near",
        "near AND",
        "{near}",
        "near NEAR(x y, 2)",
    ],
)
def test_fts_syntax_in_queries_is_literal_text(vault_root: Path, query: str) -> None:
    write(vault_root, "claude/projects/demo/entities/N.md", note("entity", "demo", "near and not"))
    write(vault_root, "claude/projects/demo/entities/M.md", note("entity", "demo", "elsewhere"))
    vault = Vault(vault_root)
    try:
        result = recall.recall(vault, cfg(vault_root), query, today=TODAY)
    except QueryError:
        assert not any(ch.isalnum() for ch in query)
        return
    # Whatever matched, matched as words: "elsewhere" contains none of the query's words.
    assert "claude/projects/demo/entities/M.md" not in rels(result)


@pytest.mark.parametrize("query", ["", "   ", '"', "*", "()"])
def test_empty_queries_are_a_clear_error(vault_root: Path, query: str) -> None:
    with pytest.raises(QueryError, match="nothing to search for"):
        recall.recall(Vault(vault_root), cfg(vault_root), query, today=TODAY)


ENTITY = "claude/projects/origin/entities/Shared Lib.md"


def shared(vault_root: Path) -> Vault:
    write(vault_root, ENTITY, note("entity", "origin", "The kiwifruit serializer lives here."))
    return Vault(vault_root)


def recalls(vault_root: Path) -> list[dict[str, object]]:
    return list(
        parse((vault_root / ENTITY).read_text(encoding="utf-8")).get("cross_project_recalls") or []
    )


def test_cross_project_recall_recorded_once_per_project_per_day(vault_root: Path) -> None:
    vault = shared(vault_root)
    first = recall.recall(vault, cfg(vault_root, "p1"), "kiwifruit", all_projects=True, today=TODAY)
    assert first.recorded == (ENTITY,)
    assert recalls(vault_root) == [{"project": "p1", "date": TODAY, "context": "kiwifruit"}]
    again = recall.recall(
        vault, cfg(vault_root, "p1"), "serializer", all_projects=True, today=TODAY
    )
    assert again.hits and again.recorded == ()
    assert len(recalls(vault_root)) == 1
    tomorrow = TODAY + dt.timedelta(days=1)
    recall.recall(vault, cfg(vault_root, "p1"), "kiwifruit", all_projects=True, today=tomorrow)
    assert [r["date"] for r in recalls(vault_root)] == [TODAY, tomorrow]
    # The owner's own recalls are not cross-project.
    own = recall.recall(vault, cfg(vault_root, "origin"), "kiwifruit", today=TODAY)
    assert own.hits and own.recorded == ()
    assert len(recalls(vault_root)) == 2


def test_recall_of_sessions_and_global_entities_writes_nothing(vault_root: Path) -> None:
    session = "claude/projects/origin/sessions/2026-11-20-s.md"
    glob = "claude/global/entities/G.md"
    write(vault_root, session, note("session", "origin", "kiwifruit in a session"))
    write(vault_root, glob, note("entity", "global", "kiwifruit in an entity"))
    before = {p: p.read_bytes() for p in vault_root.rglob("*.md")}
    result = recall.recall(
        Vault(vault_root), cfg(vault_root, "p1"), "kiwifruit", all_projects=True, today=TODAY
    )
    assert len(result.hits) == 2 and result.recorded == ()
    assert {p: p.read_bytes() for p in vault_root.rglob("*.md")} == before


def test_promote_suggestion_appears_at_three_other_projects(vault_root: Path) -> None:
    vault = shared(vault_root)
    for n, project in enumerate(("p1", "p2"), 1):
        result = recall.recall(
            vault, cfg(vault_root, project), "kiwifruit", all_projects=True, today=TODAY
        )
        assert result.suggestions == (), n
    third = recall.recall(vault, cfg(vault_root, "p3"), "kiwifruit", all_projects=True, today=TODAY)
    assert len(third.suggestions) == 1
    assert '`vaultmem promote "Shared Lib"`' in third.suggestions[0]
    assert "p1, p2, p3" in third.suggestions[0]
    # Any later recall keeps suggesting it, without recording twice.
    later = recall.recall(vault, cfg(vault_root, "p3"), "kiwifruit", all_projects=True, today=TODAY)
    assert later.suggestions == third.suggestions and later.recorded == ()


def test_suggestion_names_the_path_when_the_name_is_ambiguous(vault_root: Path) -> None:
    vault = shared(vault_root)
    write(vault_root, "claude/projects/other/entities/Shared Lib.md", note("entity", "other", "x"))
    for project in ("p1", "p2", "p3"):
        result = recall.recall(
            vault, cfg(vault_root, project), "kiwifruit", all_projects=True, today=TODAY
        )
    assert (
        '`vaultmem promote "claude/projects/origin/entities/Shared Lib"`' in result.suggestions[0]
    )


def test_show_records_a_cross_project_load(vault_root: Path, now_env: str) -> None:
    vault = shared(vault_root)
    view = editing.show(vault, ENTITY, current_project="p9")
    assert view.rel == ENTITY
    assert recalls(vault_root) == [{"project": "p9", "date": TODAY, "context": "show"}]
    editing.show(vault, ENTITY, current_project="p9")
    assert len(recalls(vault_root)) == 1
    # Without a current project (or from the owner) show is read-only.
    before = (vault_root / ENTITY).read_bytes()
    editing.show(vault, ENTITY)
    editing.show(vault, ENTITY, current_project="origin")
    assert (vault_root / ENTITY).read_bytes() == before


def test_a_compacted_session_is_one_hit_the_archive_copy(vault_root: Path) -> None:
    body = "the gateway clock runs ahead"
    original = "claude/projects/demo/sessions/2026-11-20-clock.md"
    archive = "claude/projects/demo/archive/sessions/2026-11-20-clock.md"
    write(vault_root, original, note("session", "demo", body).replace("active", "archived"))
    write(vault_root, archive, note("session", "demo", body).replace("active", "archived"))
    write(vault_root, "claude/projects/demo/sessions/2026-11-21-other.md",
          note("session", "demo", "another clock story"))
    result = recall.recall(Vault(vault_root), cfg(vault_root), "clock", limit=5,
                           today=dt.date(2026, 11, 22))
    assert archive in rels(result)
    assert original not in rels(result)
    assert "claude/projects/demo/sessions/2026-11-21-other.md" in rels(result)


def test_a_question_is_searched_by_the_words_that_name_something(vault_root: Path) -> None:
    write(vault_root, "claude/projects/demo/entities/Suite.md",
          note("entity", "demo", "Root tests merged into Projects/Tests"))
    write(vault_root, "claude/projects/demo/entities/Other.md",
          note("entity", "demo", "what it is and where it goes"))
    vault = Vault(vault_root)
    # "where", "are" and "the" are in no line that answers: the tests are found by "tests".
    assert recall.fts_query("where are the tests") == '"tests"'
    assert [h.title for h in recall.recall(vault, cfg(vault_root), "where are the tests",
                                           today=TODAY).hits] == ["Suite"]
    # A query of nothing but such words is searched as typed; negations are kept.
    assert recall.fts_query("what is it").startswith('("what" OR "whatis") AND ("is" OR')
    assert [h.title for h in recall.recall(vault, cfg(vault_root), "what is it",
                                           today=TODAY).hits] == ["Other"]
    assert recall.fts_query("not the cache") == '("not" OR "notcache") AND ("cache" OR "notcache")'
