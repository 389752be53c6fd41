"""Attacks (issue 23 §2, hostile sizes): a pushed ``_index.md`` of 61 KB with an unclosed ``<!--``
and 8,000 headings took 34 s to parse (each heading re-parsed the growing open run). Parsing is
linear: the text markdown-it reads is bounded by a small multiple of the note, whatever it holds,
and the result is the parse of the whole text."""

from __future__ import annotations

import pytest

from vaultmem import sections

OPENERS = {
    "comment": "<!-- never closed",
    "fence": "```",
    "front": "---\ntype: x",
}


def _note(opener: str, headings: int) -> str:
    return ("# Index\n\n" if not opener.startswith("---") else "") + opener + "\n\n" + "".join(
        f"## Heading {n}\n\nline {n}\n\n" for n in range(headings))


def _whole(text: str) -> tuple[object, ...]:
    blocks, found = sections._scan_tokens(sections._parser().parse(text), 0)
    parsed = sections._assemble(blocks, found, sections.line_count(text))
    return parsed.headings, parsed.blocks


@pytest.mark.parametrize("kind", sorted(OPENERS))
def test_an_unclosed_block_before_thousands_of_headings_parses_in_linear_work(
        kind: str, monkeypatch: pytest.MonkeyPatch) -> None:
    text = _note(OPENERS[kind], 8_000)
    parsed_chars = []
    real = sections._run_markdown_it

    def counting(run: str, total: int) -> sections._Run:
        parsed_chars.append(len(run))
        return real(run, total)

    monkeypatch.setattr(sections, "_run_markdown_it", counting)
    got = sections._parse(text)
    assert sum(parsed_chars) <= 4 * len(text)
    assert (got.headings, got.blocks) == _whole(text)
