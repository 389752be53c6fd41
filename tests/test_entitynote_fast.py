"""entitynote's line scan for headings gives exactly what sections.headings gives: on generated
vaultmem-shaped notes (where it answers) and on notes with anything unusual (where it must
decline or agree)."""

from __future__ import annotations

import re
from datetime import date

from hypothesis import given, settings
from hypothesis import strategies as st
from property_kit import examples

from vaultmem.memory import entitynote, entityparse
from vaultmem.memory.entitynote import Line, Overview
from vaultmem.notes import names, sections

TODAY = date(2026, 11, 22)


def _line(text: str, day: str, stem: str, heading: str = "Key Decisions") -> Line:
    key = entityparse.fact_key(text)
    return Line(heading, day, text, names.block_id("decision", key),
                names.block_id(f"{stem}.md", "decision", key), f"[[a/{stem}|{stem}]]")

_LINES = [
    "", "   ", "# Auth", "## Key Decisions", "### Sub", "####### seven", "#hashtag", "##",
    "## Closing ##", "- 2026-01-01 — Use argon2 ([[a/2026-01-01-x|2026-01-01-x]]) ^vm-aaaa1111",
    "- Use argon2 ([[a/x|x]]) ^vm-bbbb2222", "- 2026-01-01: dated colon ^id-1", "Plain words.",
    "2026-01-01 — a paragraph", "1. ordered", "* star", "+ plus", "**Bold:** label", "> quote",
    "```", "```python", "~~~", "    indented", "\tTab", "<div>", "---", "===", "| a | b |",
    "[ref]: http://x", "$$", "%% comment %%", "- - nested", "-", "- ", "  - item", "x\ry",
    "Setext", "-----", "[[Link]] first", "1) paren", "2026 alone",
    # 41: vaultmem's current entity line, anchored; retired; list forms a person writes
    ("- 2026-03-02 — Tokens expire %%vm-anchor src/a.py@1a2b3c4d5e6f commit 9f8e7d6%% "
     "([[a/2026-03-02-x|2026-03-02-x]]) ^vm-cccc3333"),
    "- 2026-03-02 — ~~Retired fact~~ %%vm-anchor a.py@- %% ([[a/x|x]]) ^vm-dddd4444",
    "* 2026-01-01 — starred ^vm-eeee5555", "1. Ordered [[Auth]] ^vm-ffff6666", "+ plus %% x %%",
    "- [ ] task", "- [x] done", "- [X] Done", "- [[Db]]", "1) [[Db]] paren",
    # 51: may open a reference definition (a title may run over the next lines), or are odd
    "[x]: /url", "- [a]: /u 'title", "[a", "b]: /u", "1. [a]: /u", "[[x]]: y", "- [x]: /u",
    "%% whole line comment", "- %%vm-anchor a@b%% text", "* * *", "1.", "10) x", "- **Bold** x",
    "- [ ]", "[ ] box",
]
_FRONT = ["---\ntype: entity\ntags:\n  - claude/entity\n# not a heading\n---\n", "",
          "---\nunclosed: yes\n", "--- x\na: 1\n---\n", "- list first\n"]


def _offsets_are_line_starts(text: str, offsets: dict[int, int]) -> None:
    starts = [0, *(i + 1 for i, c in enumerate(text) if c == "\n")]
    assert all(starts[line] == at for line, at in offsets.items())


def _note(front: str, picks: list[int], final_newline: bool) -> str:
    body = "\n".join(_LINES[i] for i in picks)
    return front + body + ("\n" if final_newline else "")


@settings(max_examples=examples(400), deadline=None)
@given(st.sampled_from(_FRONT), st.lists(st.integers(0, len(_LINES) - 1), max_size=30),
       st.booleans())
def test_fast_headings_agree_with_sections(front: str, picks: list[int], nl: bool) -> None:
    text = _note(front, picks, nl)
    fast = entityparse._fast_headings(text, sections.line_count(text))
    if fast is not None:
        assert fast[0] == sections.headings(text)
        _offsets_are_line_starts(text, fast[1])


_SAFE = [0, 1, 2, 3, 4, 7, 8, 9, 10, 11, 12, 13, 17, 38, 40, 41, 42, 46, 47, 48, 49, 63]
# Other list forms: past the first heading (the first run, read by plainruns, leaves a list of
# another marker after a list or paragraph to markdown-it).
_SAFE_PAST_A_HEADING = [*_SAFE, 14, 15, 16, 39, 43, 44, 45, 50, 62]


@settings(max_examples=examples(200), deadline=None)
@given(st.sampled_from([_FRONT[0], "# Title\n", "Words\n"]), st.lists(st.sampled_from(_SAFE), max_size=40),
       st.booleans())
def test_vaultmem_shaped_notes_take_the_fast_path(front: str, picks: list[int], nl: bool) -> None:
    text = _note(front, picks, nl)
    fast = entityparse._fast_headings(text, sections.line_count(text))
    assert fast is not None
    assert fast[0] == sections.headings(text)
    _offsets_are_line_starts(text, fast[1])


@settings(max_examples=examples(200), deadline=None)
@given(st.sampled_from([_FRONT[0], ""]), st.lists(st.sampled_from(_SAFE_PAST_A_HEADING),
       max_size=40), st.booleans())
def test_every_common_list_form_takes_the_fast_path(front: str, picks: list[int], nl: bool) -> None:
    text = _note(front + "# Auth\n\n## Key Decisions\n", picks, nl)
    fast = entityparse._fast_headings(text, sections.line_count(text))
    assert fast is not None
    assert fast[0] == sections.headings(text)
    _offsets_are_line_starts(text, fast[1])


def test_unusual_notes_take_the_full_parse() -> None:
    base = "---\na: 1\n---\n# T\n\n## Key Decisions\n\n- one\n"
    assert entityparse._fast_headings(base, sections.line_count(base)) is not None
    for extra in ("```\n## not\n```\n", "<div>\n## x\n</div>\n", "Title\n===\n", "    code\n",
                  "> q\n", "| a |\n|---|\n", "x\r\n", "\tx\n", "[a]: b\n", "- [a]: b\n",
                  "1. [a\nb]: c\n", "$$\nx\n$$\n", "%% x\n"):
        assert entityparse._fast_headings(base + extra, sections.line_count(base + extra)) is None, extra


# -- compose: the quick paths against the full reads, on generated entities ------------------

_FACTS = ["Use argon2", "use  ARGON2.", "Retry the call after the token refresh", "Cache tokens",
          "Straße wird gesperrt", "STRASSE wird gesperrt", "Ünïcode fact", "Prefer [[Db]] pools",
          "Retry the call", "token refresh"]
_DAYS = ["2025-01-01", "2026-03-04", "2026-11-20", "2026-11-22", "2024-12-31"]


def _old_vm_ids(text: str) -> set[str]:
    out: set[str] = set()
    for part in text.split(" ^vm-")[1:]:
        end = part.find("\n")
        ident = (part if end < 0 else part[:end]).rstrip(" \t")
        if re.fullmatch(r"[A-Za-z0-9-]+", ident):
            out.add("vm-" + ident)
    return out


def _old_newest(text: str, start: int, end: int, latest: str | None = None) -> tuple[str, str]:
    best: tuple[str, int] | None = None
    chunk = text[start:end]
    for found in re.finditer(r"^- (\d{4}-\d{2}-\d{2})(?: — |: | - )", chunk, re.MULTILINE):
        if best is None or found.group(1) >= best[0]:
            best = (found.group(1), found.start())
    if best is None:
        return "", ""
    end = chunk.find("\n", best[1])
    got = entityparse.read_row(chunk[best[1] : end if end >= 0 else len(chunk)])
    return (got.block or "", got.text) if got else ("", "")


def _entity_row(kind: int, fact: str, day: str, n: int) -> str:
    stem = f"{day}-s{n % 3}"
    link = f"[[a/{stem}|{stem}]]"
    block = names.block_id("decision", entityparse.fact_key(fact))
    return [
        f"- {day} — {fact} ({link}) ^{block}",  # ours, dated
        f"- {fact} ({link}) ^{names.block_id(f'{stem}.md', 'decision', entityparse.fact_key(fact))}",
        f"- {fact}",  # a person's
        f"- {day}: {fact} ^vm-{n:08x}",
        f"Prose about {fact}.",
        "",
        f"- {day} — {fact} ({link}) ^{block} ^vm-dead{n:04x}",
        "```", f"- {day} — {fact} ^{block}",
        f"- {day}{fact} ({link})",  # a date without its separator: not a dated line
        f"- {fact[:5]} %%vm-anchor src/a.py@abc1 def2%%{fact[5:]}",  # an anchor parting words
        # ours, dated and anchored (the form compaction writes now), and retired
        f"- {day} — {fact} %%vm-anchor src/a.py@1a2b3c4d5e6f commit 9f8e7d6%% ({link}) ^{block}",
        f"- {day} — ~~{fact}~~ %%vm-anchor a.py@- %% ({link}) ^{block}",
        # the format before dates, anchored; a person's lines in other list forms
        (f"- {fact} %%vm-anchor b.py@abc%% ({link}) "
         f"^{names.block_id(f'{stem}.md', 'decision', entityparse.fact_key(fact))}"),
        f"* {fact}", f"1. {fact} ({link})",
    ][kind]


_ROW = st.tuples(st.integers(0, 15), st.sampled_from(_FACTS), st.sampled_from(_DAYS),
                 st.integers(0, 9))
_NEW = st.tuples(st.sampled_from(_FACTS), st.sampled_from(_DAYS), st.integers(0, 3),
                 st.sampled_from(["Key Decisions", "Gotchas & Troubleshooting"]))


def _compose_both(text: str, new: list[Line]) -> tuple[entitynote.Composed, entitynote.Composed]:
    fast = entitynote.compose(text, new, related=["[[Db]]"], backlink="- [[a/x|x]]", today=TODAY,
                              overview=Overview(("src/auth",), "2026-11-22", "[[a/x|x]]"))
    saved = (entityparse._fast_headings, entitynote._dated_new, entitynote._ids_present,
             entityparse.newest_row)
    try:
        entityparse._fast_headings = lambda *args: None  # type: ignore[assignment]
        entitynote._dated_new = lambda *args: None  # type: ignore[assignment]
        entitynote._ids_present = lambda text, ids: _old_vm_ids(text)  # type: ignore[assignment]
        entityparse.newest_row = _old_newest  # type: ignore[assignment]
        slow = entitynote.compose(text, new, related=["[[Db]]"], backlink="- [[a/x|x]]",
                                  today=TODAY,
                                  overview=Overview(("src/auth",), "2026-11-22", "[[a/x|x]]"))
    finally:
        (entityparse._fast_headings, entitynote._dated_new, entitynote._ids_present,
         entityparse.newest_row) = saved
    return fast, slow


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(_ROW, max_size=40), st.lists(_ROW, max_size=8), st.lists(_NEW, min_size=1,
       max_size=8), st.booleans())
def test_compose_quick_paths_write_the_same_bytes(
    decisions: list[tuple[int, str, str, int]], gotchas: list[tuple[int, str, str, int]],
    new: list[tuple[str, str, int, str]], many: bool,
) -> None:
    rows = [_entity_row(*r) for r in decisions]
    if many:  # past _OtherKeys' few rows: the folded-words check
        rows += [f"- Filler {i} ([[a/f|f]]) ^vm-{i:08x}" for i in range(70)]
    text = ("---\ntype: entity\nupdated: 2026-10-01\n---\n# Auth\n\n## Overview\n\n"
            "## Key Decisions\n\n" + "\n".join(rows) + "\n\n## Gotchas & Troubleshooting\n\n"
            + "\n".join(_entity_row(*r) for r in gotchas) + "\n\n## References\n")
    lines = [_line(fact, day, f"{day}-s{n}", heading) for fact, day, n, heading in new]
    fast, slow = _compose_both(text, lines)
    assert fast == slow


def test_ids_present_as_the_split_found_them() -> None:
    for text in ("- a ^vm-abc ^vm-def\n", "x ^vm- ^vm-abc\r\n- b ^vm-x1  \n", "^vm-a",
                 " ^vm-abc  x\n ^vm-ok\t", " ^vm-a ^vm-b", " ^vm-abcd\n ^vm-ab\n"):
        every = _old_vm_ids(text)
        asked = ["vm-abc", "vm-def", "vm-x1", "vm-ok", "vm-a", "vm-b", "vm-ab", "vm-abcd",
                 "vm-zz", "vm-", "x-1", "vm-a.b"]
        assert entitynote._ids_present(text, asked) == every & set(asked), text


def test_a_fact_parted_by_an_anchor_is_there_already_among_many_rows() -> None:
    rows = [f"- Filler {i} ([[a/f|f]]) ^vm-{i:08x}" for i in range(70)]
    rows.append("- Use a %%vm-anchor src/a.py@abc1 def2%%rgon2")  # a person's line: "Use argon2"
    text = "# Auth\n\n## Key Decisions\n\n" + "\n".join(rows) + "\n"
    fast, slow = _compose_both(text, [_line("Use argon2", "2026-11-22", "2026-11-22-s")])
    assert fast == slow
    assert fast.present == 1 and fast.added == 0


def test_a_fact_there_already_gains_the_sessions_link_in_place_among_many_rows() -> None:
    rows = [f"- 2026-01-0{1 + i % 9} — Filler {i} ([[a/f|f]]) ^vm-{i:08x}" for i in range(200)]
    old = _line("Use argon2", "2026-01-05", "2026-01-05-s")
    rows.insert(120, old.render())
    text = "# Auth\n\n## Key Decisions\n\n" + "\n".join(rows) + "\n\n## References\n"
    again = _line("Use argon2", "2026-02-01", "2026-02-01-t")
    fast, slow = _compose_both(text, [again])
    assert fast == slow and (fast.added, fast.merged) == (0, 1)
    assert ("- 2026-01-05 — Use argon2 ([[a/2026-01-05-s|2026-01-05-s]], "
            "[[a/2026-02-01-t|2026-02-01-t]]) ^" + old.block) in fast.text.split("\n")
    assert fast.text.count("Use argon2") == 1
    quick = entitynote._dated_new(f"\n{text}", 1 + text.index("- 2026"), 1 + len(text) - 15,
                                  [again], {again.block})
    assert quick is not None and quick[2] == (0, 1, 0)  # the quick path took it
