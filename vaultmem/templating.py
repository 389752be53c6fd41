"""Note templates (package data in ``templates/``), rendered with ``{placeholder}`` values (pure).

This module is not called ``templates``: ``vaultmem.templates`` is the data package that
pyproject.toml maps ``templates/`` to, and an installed package folder would shadow a module of
the same name.

The templates are the only place section names are spelled out (DESIGN §2). A placeholder in
the body is pasted as text. A frontmatter line that is nothing but ``key: {name}`` is emitted
with :func:`frontmatter.set_key`, never pasted, so a value such as ``a: b # c`` or ``yes`` reads
back as the same value in Obsidian; lists become block lists and ISO dates stay dates.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from datetime import date
from functools import cache
from importlib import resources
from importlib.abc import Traversable
from pathlib import Path
from typing import Literal

from . import frontmatter

Kind = Literal["session", "entity", "topic", "project-index"]
KINDS: tuple[Kind, ...] = ("session", "entity", "topic", "project-index")

# What a placeholder may be given. str is the contract; dates and lists are for frontmatter.
Value = str | date | Sequence[str]

_YAML_PLACEHOLDER = re.compile(r"^([A-Za-z_][\w-]*):[ \t]*\{(\w+)\}[ \t]*$")
_ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


class _Strict(dict[str, str]):
    """A format map that names the template and the missing placeholder."""

    def __init__(self, kind: str, values: Mapping[str, str]) -> None:
        super().__init__(values)
        self.kind = kind

    def __missing__(self, key: str) -> str:
        raise KeyError(f"template {self.kind!r} needs a value for {{{key}}}")


@cache
def source(kind: Kind) -> str:
    """The raw text of a template."""
    if kind not in KINDS:
        raise KeyError(f"no template {kind!r}; known: {', '.join(KINDS)}")
    return _folder().joinpath(f"{kind}.md").read_text("utf-8")


def _folder() -> Traversable:
    try:
        # Installed: templates/ is the package data folder vaultmem.templates.
        return resources.files("vaultmem.templates")
    except (ModuleNotFoundError, TypeError):
        # A source checkout: templates/ sits next to the vaultmem package.
        return Path(__file__).resolve().parent.parent / "templates"


def _yaml_value(value: Value) -> object:
    if isinstance(value, str):
        if _ISO_DATE.match(value):
            try:
                return date.fromisoformat(value)
            except ValueError:
                return value
        return value
    if isinstance(value, date):
        return value
    return [str(item) for item in value]


def render(kind: Kind, **values: Value) -> str:
    """The text of a new note of ``kind``; KeyError names a placeholder without a value."""
    text = source(kind)
    fields: list[tuple[str, str]] = []
    head, body = "", text
    if text.startswith("---\n"):
        end = text.index("\n---\n", 3) + len("\n---\n")
        head, body = text[:end], text[end:]
        lines = head.split("\n")
        for i, line in enumerate(lines):
            m = _YAML_PLACEHOLDER.match(line)
            if m:
                fields.append((m.group(1), m.group(2)))
                # A neutral value set_key will replace in place (keeping the key order).
                lines[i] = f"{m.group(1)}: null"
        head = "\n".join(lines)
    body_values = _Strict(kind, {k: v for k, v in values.items() if isinstance(v, str)})
    out = head + body.format_map(body_values)
    for key, name in fields:
        if name not in values:
            raise KeyError(f"template {kind!r} needs a value for {{{name}}}")
        out = frontmatter.set_key(out, key, _yaml_value(values[name]))
    return out
