"""recall's contract (issue 28): `--json` keeps `{"hits": [{"path", "text", "also", …}]}`, one hit
per fact whatever its copies, at most 300 characters from the sentence that answers; a terminal
groups hits under their note; noise never outranks a line that answers; MCP answers the same."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from vaultmem.cli import app, reading  # noqa: F401  (registers the commands)
from vaultmem.notes import facts
from vaultmem.search import hitfold
from vaultmem.serve import tools as mcptools
from vaultmem.store.config import load_config

P = "claude/projects/shop"
FIX = "Fixed the Wombat cache by pinning `libwomb` to 2.1"


def write(root: Path, rel: str, text: str) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def session(day: str, body: str) -> str:
    return (f"---\ntype: session\nproject: shop\ncreated: {day}\nupdated: {day}\nstatus: active\n"
            f"---\n# {day}\n\n## Work Log\n\n{body}")


def recall(root: Path, *args: str) -> Result:
    result = CliRunner().invoke(app, ["--vault", str(root), "--project", "shop", "recall", *args])
    assert result.exit_code == 0, result.stderr
    assert result.stderr == ""
    return result


def hits(root: Path, *args: str) -> list[dict[str, object]]:
    found = json.loads(recall(root, *args, "--json").stdout)["hits"]
    assert isinstance(found, list)
    return found


def copies_vault(root: Path) -> None:
    """One fix in four places, each written its own way: the session's gotcha, the entity's
    dated line (a date, a link, a block id, other case and punctuation), a later session's
    answer saying it again, and that session's archive copy."""
    write(root, f"{P}/sessions/2026-11-09-cache.md", session("2026-11-09", (
        "### 09:00 - cache\n\n**Answer:** Looked at the cache.\n\n"
        f"## Gotchas & Fixes\n\n- {FIX}. ([[Cache]])\n"
    )))
    write(root, f"{P}/entities/Cache.md", (
        "---\ntype: entity\nproject: shop\nupdated: 2026-11-10\n---\n# Cache\n\n"
        "## Gotchas & Troubleshooting\n\n"
        f"- 2026-11-09 — {FIX.lower()}! ([[{P}/sessions/2026-11-09-cache|2026-11-09-cache]]) "
        "^vm-1234abcd\n"
    ))
    later = session("2026-11-12", "### 10:00 - again\n\n"
                    f"**Answer:** {FIX.replace('`', '')}.\n")
    write(root, f"{P}/sessions/2026-11-12-again.md", later)


def test_one_hit_per_fact_its_copies_in_also(vault_root: Path, now_env: str) -> None:
    copies_vault(vault_root)
    found = hits(vault_root, "wombat cache libwomb")
    assert [h["text"] for h in found if "wombat" in str(h["text"]).lower()] == [FIX.lower() + "!"]
    hit = found[0]
    assert hit["path"] == f"{P}/entities/Cache.md" and hit["kind"] == "gotcha"
    assert sorted(hit["also"]) == [  # type: ignore[call-overload]
        f"{P}/sessions/2026-11-09-cache.md", f"{P}/sessions/2026-11-12-again.md"]


def test_copy_keys_ignore_case_dates_links_block_ids_and_punctuation() -> None:
    key = facts.copy_key
    assert key("2026-11-09 — Pin [[Libwomb]] to 2.1! ^vm-1234abcd") == key("pin libwomb to 2.1")
    assert key("10:42 - set the fan speed") == key("Set the fan speed.")
    assert hitfold.copies(key("Answer: pin libwomb to 2.1 on ci"), key("Pin libwomb to 2.1 on ci"))
    # A phrase two facts share is no copy of either.
    assert not hitfold.copies(key("libwomb to 2.1"), key("Pin libwomb to 2.1 on ci, not 2.0"))
    assert not hitfold.copies(key("Pin libwomb to 2.1"), key("Pin libwomb to 2.2"))
    # What the briefing compares too: a Markdown link's text, a line's trailing link group.
    assert key("See [the guide](https://x.y/guide) (Auth, Billing)") == "see the guide"


LONG = (
    "I looked at the whole pipeline first. The build runs in four stages and each of them "
    "caches its own artefacts, so a stale cache shows up late. " + "Nothing else changed. " * 8
    + "The real cause was the quokka lockfile: the marsupial mirror served an old quokka "
    "lockfile, so pinning the mirror fixed it. " + "More words follow here. " * 10
)


def test_a_long_answer_shows_the_sentence_holding_most_words_in_300_chars(
    vault_root: Path, now_env: str
) -> None:
    write(vault_root, f"{P}/sessions/2026-11-12-build.md", session("2026-11-12", (
        "### 10:00 - why is the build stale\n\n**Prompt:** why is the build stale\n\n"
        "> [!note]- Claude's answer (long)\n"
        f"> {LONG}\n"
    )))
    found = hits(vault_root, "stale quokka lockfile")
    assert [h["text"] for h in found[1:]] == ["Prompt: why is the build stale"]
    text = str(found[0]["text"])
    assert len(text) <= 300
    assert text.startswith("…The real cause was the quokka lockfile") and text.endswith("…")
    for word in text.strip("…").split(" "):
        assert word in LONG.split(" ")  # cut at spaces, never inside a word
    # Any long fact too: at most 300 characters, whatever the query.
    for query in ("pipeline", "quokka", "words follow"):
        assert all(len(str(h["text"])) <= 300 for h in hits(vault_root, query))


def test_noise_lines_never_outrank_a_line_that_answers(vault_root: Path, now_env: str) -> None:
    # The note's name and its end-reason line share two words with the query: the index ranks
    # the note first; its only line is noise.
    write(vault_root, f"{P}/sessions/2026-11-20-prompt-input.md", session("2026-11-20", (
        "### 20:39 - Session End\n\nReason: prompt_input_exit\n"
    )))
    write(vault_root, f"{P}/sessions/2026-11-18-form.md", session("2026-11-18", (
        "### 09:00 - form\n\n**Answer:** Input validation now rejects an empty prompt.\n"
    )))
    # No note holds every word: any word may match.
    found = hits(vault_root, "prompt input validation errors")
    assert [h["text"] for h in found] == [
        "Answer: Input validation now rejects an empty prompt.",
        "Reason: prompt_input_exit",
    ]
    # A work log's heading is noise too, after a line holding fewer words.
    write(vault_root, f"{P}/sessions/2026-11-21-x.md", session("2026-11-21", (
        "### 11:00 - the zebra gateway times out under load\n\n"
        "**Answer:** Raised the zebra timeout.\n"
    )))
    assert hits(vault_root, "zebra gateway timeout")[0]["text"] == (
        "Answer: Raised the zebra timeout."
    )


def test_a_terminal_groups_hits_under_their_note(vault_root: Path, now_env: str) -> None:
    copies_vault(vault_root)
    write(vault_root, f"{P}/entities/Cache.md", (
        "---\ntype: entity\nproject: shop\nupdated: 2026-11-10\n---\n# Cache\n\n"
        "## Key Decisions\n\n- 2026-11-10 — The wombat cache is per tenant ^vm-5678abcd\n\n"
        "## Gotchas & Troubleshooting\n\n"
        f"- 2026-11-09 — {FIX.lower()}! ^vm-1234abcd\n"
    ))
    lines = recall(vault_root, "wombat").stdout.splitlines()
    assert lines == [
        f"{P}/entities/Cache.md  (entity · shop · 2026-11-10)",
        "   The wombat cache is per tenant",
        "      decision · 2026-11-10 · [[Cache#^vm-5678abcd]]",
        f"   {FIX.lower()}!",
        "      gotcha · 2026-11-09 · [[Cache#^vm-1234abcd]] · also in 2 other notes",
    ]
    write(vault_root, f"{P}/sessions/2026-11-13-tenants.md", session("2026-11-13", (
        "### 10:00 - tenants\n\n**Answer:** Each tenant gets its own wombat namespace.\n"
    )))
    grouped = recall(vault_root, "wombat tenant").stdout.split("\n\n")
    assert [block.splitlines()[0] for block in grouped] == [
        f"{P}/entities/Cache.md  (entity · shop · 2026-11-10)",
        f"{P}/sessions/2026-11-13-tenants.md  (session · shop · 2026-11-13)",
    ]
    # The session's answer, then its entry's heading (noise: last of all).
    assert grouped[1].splitlines()[1:] == [
        "   Answer: Each tenant gets its own wombat namespace.", "   10:00 - tenants"]


def test_mcp_recall_returns_the_hits_the_cli_does(vault_root: Path, now_env: str) -> None:
    copies_vault(vault_root)
    cli = hits(vault_root, "wombat cache")
    door = mcptools._Door(load_config(vault=str(vault_root), project="shop"))
    answer = mcptools.call(door, "recall", {"query": "wombat cache"})
    assert not answer.is_error
    mcp = json.loads(answer.content[0].text)["hits"]  # type: ignore[union-attr]
    assert [(h["path"], h["text"], h["also"]) for h in mcp] == [
        (h["path"], h["text"], h["also"]) for h in cli]


@pytest.mark.parametrize(("query", "terms", "held"), [
    ("retry token", ["Retries", "tokens"], 2),
    ("retry token", ["retries", "Retry"], 1),
])
def test_coverage_counts_terms_not_words(query: str, terms: list[str], held: int) -> None:
    text = " ".join(terms)
    spans, at = [], 0
    for word in terms:
        spans.append((at, at + len(word)))
        at += len(word) + 1
    assert hitfold.coverage(text, spans, query.split()) == held
