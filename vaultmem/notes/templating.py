"""Note templates (package data in ``templates/``), rendered with ``{placeholder}`` values (pure).

This module is not called ``templates``: ``vaultmem.templates`` is the data package that
pyproject.toml maps ``templates/`` to, and an installed package folder would shadow a module of
the same name.

The templates are the only place section names are spelled out (DESIGN §2). A placeholder in
the body is pasted as text. A frontmatter line that is nothing but ``key: {name}`` is emitted
with :func:`propedit.set_key`, never pasted, so a value such as ``a: b # c`` or ``yes`` reads
back as the same value in Obsidian; lists become block lists and ISO dates stay dates.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Mapping, Sequence
from datetime import date
from functools import cache, lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from vaultmem.notes import propedit

if TYPE_CHECKING:
    from importlib.abc import Traversable

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
        package = importlib.import_module("vaultmem.templates")
    except ModuleNotFoundError:
        # A source checkout: templates/ sits next to the vaultmem package.
        return Path(__file__).resolve().parents[2] / "templates"
    folder = Path(package.__file__).parent if package.__file__ else None
    if folder is not None and folder.is_dir():
        return folder  # read as it is: importlib.resources would cost every hook ~15 ms
    from importlib import resources  # a package inside a zip archive, say

    return resources.files(package)


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
    _, body, fields = _parts(kind)
    for _, name in fields:
        if name not in values:
            raise KeyError(f"template {kind!r} needs a value for {{{name}}}")
    yaml_values = tuple((key, _frozen(values[name])) for key, name in fields)
    body_values = _Strict(kind, {k: v for k, v in values.items() if isinstance(v, str)})
    return _head(kind, yaml_values) + body.format_map(body_values)


def project_index(project: str, today: date) -> str:
    """A project's ``_index.md`` as vaultmem creates it (``init``, a session start, compaction)."""
    return render(
        "project-index",
        project=project,
        created=today.isoformat(),
        updated=today.isoformat(),
        claude_last_accessed=today.isoformat(),
        title=project,
        overview=f"Working memory of the project {project}: session notes in `sessions/`, "
        "what they taught in `entities/`.",
    )


def _frozen(value: Value) -> str | date | tuple[str, ...]:
    return value if isinstance(value, (str, date)) else tuple(str(v) for v in value)


@cache
def _parts(kind: Kind) -> tuple[str, str, tuple[tuple[str, str], ...]]:
    """(frontmatter with neutral values, body, (key, placeholder) of each YAML field)."""
    text = source(kind)
    if not text.startswith("---\n"):
        return "", text, ()
    end = text.index("\n---\n", 3) + len("\n---\n")
    lines = text[:end].split("\n")
    fields: list[tuple[str, str]] = []
    for i, line in enumerate(lines):
        m = _YAML_PLACEHOLDER.match(line)
        if m:
            fields.append((m.group(1), m.group(2)))
            # A neutral value set_key will replace in place (keeping the key order).
            lines[i] = f"{m.group(1)}: null"
    return "\n".join(lines), text[end:], tuple(fields)


@lru_cache(maxsize=256)
def _head(kind: Kind, yaml_values: tuple[tuple[str, str | date | tuple[str, ...]], ...]) -> str:
    # set_key parses YAML (milliseconds): a compaction creating many entities reuses the head.
    head = _parts(kind)[0]
    for key, value in yaml_values:
        head = propedit.set_key(
            head, key, _yaml_value(list(value) if isinstance(value, tuple) else value)
        )
    return head
