"""Every relative Markdown link in the hand-written docs leads somewhere (issue 32): a file or
folder that exists and, with ``#anchor``, a heading of that file as GitHub renders its anchor.
A renamed section or a moved file must not leave a reader at a dead link. Links to web pages are
not fetched; links inside code are not links."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import unquote

import pytest
from markdown_it import MarkdownIt
from markdown_it.token import Token

REPO = Path(__file__).resolve().parent.parent
DOCS = sorted(
    [REPO / "README.md", REPO / "bench/README.md", REPO / "tests/e2e/README.md",
     *(REPO / "docs").glob("*.md")]
)
SCHEME = re.compile(r"^[a-z][a-z0-9+.-]*:", re.IGNORECASE)


def _tokens(path: Path) -> list[Token]:
    return MarkdownIt("commonmark").enable("table").parse(path.read_text(encoding="utf-8"))


def _links(path: Path) -> Iterator[str]:
    for token in _tokens(path):
        for child in token.children or []:
            if child.type == "link_open":
                yield str(child.attrs.get("href", ""))


def anchors(path: Path) -> set[str]:
    """The anchors GitHub gives the headings of ``path``: lowercased, punctuation but ``-`` and
    ``_`` dropped, spaces as ``-``, a repeated one numbered (``x``, ``x-1``)."""
    found: set[str] = set()
    tokens = _tokens(path)
    for i, token in enumerate(tokens):
        if token.type != "heading_open":
            continue
        text = "".join(c.content for c in tokens[i + 1].children or []
                       if c.type in ("text", "code_inline"))
        slug = re.sub(r"[^\w\- ]", "", text.strip().lower()).replace(" ", "-")
        candidate, n = slug, 0
        while candidate in found:
            n += 1
            candidate = f"{slug}-{n}"
        found.add(candidate)
    return found


def test_the_anchor_rule_is_githubs(tmp_path: Path) -> None:
    probe = tmp_path / "probe.md"
    probe.write_text("# A `vaultmem mcp` & more\n\n## Uninstall, everything\n\n"
                     "## Uninstall, everything\n", encoding="utf-8")
    assert anchors(probe) == {"a-vaultmem-mcp--more", "uninstall-everything",
                              "uninstall-everything-1"}


@pytest.mark.parametrize("doc", [d for d in DOCS if d.is_file()],
                         ids=lambda d: d.relative_to(REPO).as_posix())
def test_every_relative_link_resolves(doc: Path) -> None:
    dead = []
    for href in _links(doc):
        if not href or SCHEME.match(href):
            continue
        target, _, anchor = href.partition("#")
        path = (doc.parent / unquote(target)).resolve() if target else doc
        if not path.exists():
            dead.append(f"{href}: no such file")
        elif anchor and path.suffix == ".md" and unquote(anchor) not in anchors(path):
            dead.append(f"{href}: no heading with that anchor")
    assert not dead, f"{doc.relative_to(REPO)}: {dead}"
