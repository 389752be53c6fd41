"""The entity links of a session note (pure): which link names an entity, which is refused (a
path out of the entities folder, a name Obsidian cannot hold), and a text with its refused
links made plain. Split from :mod:`sessionextract`, which reads items by them.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

from vaultmem.errors import UnsafePath
from vaultmem.notes import links

_SESSION_NAME_RE = re.compile(r"^\d{4}-\d{2}-\d{2}(?:-|$)")
_ATTACHMENT_RE = re.compile(
    r"\.(?:png|jpe?g|gif|svg|webp|bmp|pdf|mp3|mp4|m4a|wav|ogg|webm|mov|canvas|base|zip)$",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class EntityLink:
    """A link of a note that names an entity (``name``), or one refused (``name`` None, with
    its ``error``); ``line`` 0-based, ``start``/``end`` offsets in the text."""

    name: str | None  # None: refused (unsafe)
    line: int
    start: int
    end: int
    target: str
    error: str = ""


def classify(link: links.Link) -> str | None:
    """The entity name a link points to; None when it is not an entity link; UnsafePath when
    it is refused (a path out of the entities folder, a name Obsidian cannot hold)."""
    target = link.target
    if link.embed or not target or _ATTACHMENT_RE.search(target):
        return None
    if "/" in target or "\\" in target:
        parts = target.replace("\\", "/").split("/")
        if target.startswith(("/", "\\")) or ".." in parts or "\\" in target:
            raise UnsafePath(f"link [[{target}]] points outside the entities folder")
        if len(parts) >= 2 and parts[-2] == "entities":
            return links.safe_entity_name(parts[-1])
        return None
    bare = target[:-3] if target.lower().endswith(".md") else target
    if _SESSION_NAME_RE.match(bare) or bare == "_index":
        return None
    return links.safe_entity_name(target)


def entity_links(text: str, first_line: int) -> list[EntityLink]:
    """The entity links of ``text`` from line ``first_line`` on (refused ones too)."""
    starts = [0]
    at = text.find("\n")
    while at >= 0:
        starts.append(at + 1)
        at = text.find("\n", at + 1)
    found: list[EntityLink] = []
    for link in links.parse(text):
        line = bisect.bisect_right(starts, link.start) - 1
        if line < first_line:
            continue  # the frontmatter (continues:, archived_to:) is not the session's content
        try:
            name = classify(link)
        except UnsafePath as err:
            found.append(EntityLink(None, line, link.start, link.end, link.target, err.message))
            continue
        if name is not None:
            found.append(EntityLink(name, line, link.start, link.end, link.target))
    return found


def neutralise(text: str) -> tuple[str, list[str]]:
    """Refused entity links turned into plain text (their target), with one message each."""
    problems: list[tuple[int, int, str, str]] = []
    for link in links.parse(text):
        try:
            classify(link)
        except UnsafePath as err:
            problems.append((link.start, link.end, link.target, err.message))
    out = text
    for start, end, target, _ in reversed(problems):
        out = out[:start] + target + out[end:]
    return out, [f"{msg}; kept as plain text" for _, _, _, msg in problems]
