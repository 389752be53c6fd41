"""What a session note already lists (pure): its items and the components they link, the
commands its work log leaves failing. Capture reads them before it adds to the note
(``ingest.edits_for``), and the moment hooks read the failures still open."""

from __future__ import annotations

import re

from vaultmem.memory import anchors
from vaultmem.mining import fixes, notices

from .turncomponents import name_key as _name_key

OPEN_FAILURE_LINES = 400  # of a note's end, read for commands still failing
_CODE_SPAN = re.compile(r"(`+)(.+?)\1(?!`)")


def open_failures(note_text: str) -> dict[str, str | None]:
    """Commands whose last line in the note's work log is a ``- Failed:`` line (no ``- Ran``
    after it): command -> its error line. Read from the last entries only."""
    failing: dict[str, str | None] = {}
    for line in note_text.split("\n")[-OPEN_FAILURE_LINES:]:
        failed = line.startswith("- Failed: `")
        if not (failed or line.startswith("- Ran `")):
            continue  # a tool's failure ("- Failed: Edit `x.py`") is no command
        spans = _CODE_SPAN.findall(line)
        if not spans:
            continue
        command = _unpad(spans[0][1])
        # Runs of one command: ``REDIS_URL=… pytest -q``, ``uv run pytest -q`` and
        # ``docker compose up -d db && pytest -q`` passing pass ``pytest -q``.
        keys = {fixes.state_key(command)} if failed else fixes.passes(command)
        for known in [c for c in failing if fixes.state_key(c) in keys]:
            failing.pop(known)
        error = _unpad(spans[1][1]) if len(spans) > 1 else None
        # An older note wrote a call the permissions stopped as a failure: it never ran.
        if failed and (error is None or notices.denial(error) is None):
            failing[command] = error
    return failing


def _unpad(span: str) -> str:
    return span[1:-1] if len(span) > 1 and span[0] == span[-1] == " " else span


def known_items(note_text: str) -> tuple[set[str], set[str]]:
    """(item texts, component names casefolded) the note already lists: every ``- `` line, its
    trailing ``([[…]])`` group taken off; and every ``[[Name]]`` of those lines."""
    texts: set[str] = set()
    names: set[str] = set()
    for body, linked in _list_lines(note_text):
        names.update(_name_key(n) for n in linked)
        texts.add(anchors.strip(body))
    return texts, names


def linked_components(note_text: str) -> list[str]:
    """The components the note's list lines link (an item's trailing group, a Related Entities
    row), as first spelled."""
    found: dict[str, str] = {}
    for _, linked in _list_lines(note_text):
        for name in linked:
            found.setdefault(_name_key(name), name)
    return list(found.values())


def _list_lines(note_text: str) -> list[tuple[str, list[str]]]:
    """Each ``- `` line's text without its trailing ``([[…]])`` group, and the names it links
    there (or as a Related Entities row, ``- [[Auth]] — src/auth/``)."""
    out: list[tuple[str, list[str]]] = []
    for line in note_text.split("\n"):
        if not line.startswith("- "):
            continue
        body = line[2:].rstrip()
        group = body.rfind(" ([[")
        if group != -1 and body.endswith("]])"):
            out.append((body[:group], _linked(body[group:])))
        elif body.startswith("[[") and "]]" in body:
            # The row's first link, whole: a name may hold spaces (``[[API Gateway]]``).
            out.append((body, _linked(body[: body.index("]]") + 2])))
        else:
            out.append((body, []))
    return out


def _linked(text: str) -> list[str]:
    found: list[str] = []
    for chunk in text.split("[[")[1:]:
        target = chunk.split("]]", 1)[0].split("|", 1)[0].split("#", 1)[0].strip()
        if target:
            # A path link (``[[claude/projects/p/entities/Auth|Auth]]``) names its note last.
            found.append(target.rsplit("/", 1)[-1])
    return found
