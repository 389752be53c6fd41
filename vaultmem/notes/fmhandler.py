"""python-frontmatter's handler for vaultmem's notes: ``frontmatter.loads(text, handler=HANDLER)``
gives a Post split by vaultmem's fence rules and read with its Obsidian loader.

vaultmem itself reads notes through :mod:`vaultmem.notes.frontmatter` alone; the handler lives
here so that importing that module (every hook does) does not import python-frontmatter.
"""

from __future__ import annotations

from typing import Any

from frontmatter.default_handlers import YAMLHandler

from vaultmem.notes.frontmatter import load_yaml, split


class ObsidianYAMLHandler(YAMLHandler):
    """python-frontmatter handler: vaultmem's fences, ObsidianLoader for the YAML."""

    def detect(self, text: str) -> bool:
        """True when the text has frontmatter by :func:`split`'s rules."""
        return split(text).has_frontmatter

    def split(self, text: str) -> tuple[str, str]:
        """(YAML text, body) by :func:`split`'s rules."""
        parts = split(text)
        return parts.yaml_text, parts.body

    def load(self, fm: str, **kwargs: object) -> Any:
        """Read YAML text with ObsidianLoader."""
        return load_yaml(fm)


HANDLER = ObsidianYAMLHandler()
