"""A recap some output styles impose on every answer, read by its parts (pure).

An output style may make Claude end (or write) each answer as headed parts: ``SUMMARY``,
``ANALYSIS``, ``ACTIONS``, ``RESULTS``, ``STATUS``, ``NEXT``, ``COMPLETED``, in any case, with
or without an emoji or bold, each part a line of its own ("📋 SUMMARY: Fixed the export") or a
heading or lead-in with lines below it ("➡️ **NEXT:**" then a list). Its ``NEXT`` part gives the
next steps (``mining.text`` reads it as a section naming them), its ``RESULTS`` and
``COMPLETED`` parts what was done: :func:`outcome` is the answer's one line, what it says it did.
"""

from __future__ import annotations

import re

from vaultmem.notes.lazyre import lazy

PARTS = ("summary", "analysis", "actions", "results", "status", "next", "completed")
NEXT = "next"
DONE = ("completed", "results")  # the first found says what was done
MIN_PARTS = 2  # an answer with fewer of them is no recap ("Summary: …" alone is a label)
OUTCOME_CHARS = 400
# An emoji (with its variation selector) or a mark before a part's name or a label.
MARK = r"[^\w\s*_`'\"(\[<{\-]"
_PART = (r"(?:" + MARK + r"|\s)*(?:#{1,6}[ \t]+)?(?:" + MARK + r"|\s)*(?:\*\*|__)?(?P<part>"
         + "|".join(PARTS) + r")(?:\*\*|__)?[ \t]*:?[ \t]*(?:\*\*|__)?[ \t]*:?")
_PART_RE = lazy(_PART, re.IGNORECASE)
# A part's line: its name alone (a heading, a lead-in), or with what it says after a colon.
_LINE_RE = lazy(
    r"(?:" + MARK + r"|\s)*(?:#{1,6}[ \t]+)?(?:" + MARK + r"|\s)*(?:\*\*|__)?(?P<part>"
    + "|".join(PARTS) + r")(?:\*\*|__)?[ \t]*(?::(?:\*\*|__)?[ \t]*(?P<said>.*)|(?:\*\*|__)?)",
    re.IGNORECASE)
_WS_RE = lazy(r"\s+")
_GATE = lazy(r"(?:" + "|".join(PARTS) + r")\W*:|^\W*#*\W*(?:" + "|".join(PARTS) + r")\W*$",
             re.IGNORECASE | re.MULTILINE)
_MARKS_RE = lazy(r"^(?:[-*+]|\d{1,3}[.)])[ \t]+|\*\*|__")


def part(title: str) -> str | None:
    """The recap part a heading or a lead-in line is, whole ("➡️ **NEXT:**" -> ``next``), or
    None."""
    match = _PART_RE.fullmatch(title.strip())
    return match.group("part").lower() if match else None


def parts(answer: str) -> dict[str, str]:
    """The recap's parts in ``answer`` (name -> what it says, one line), when it has
    ``MIN_PARTS`` of them at least; else none. Code blocks are skipped."""
    if _GATE.search(answer) is None:
        return {}
    found: dict[str, list[str]] = {}
    current: list[str] | None = None
    fence = False
    for raw in answer.splitlines():
        line = raw.strip()
        if line.startswith(("```", "~~~")):
            fence = not fence
            continue
        if fence:
            continue
        match = _LINE_RE.fullmatch(line)
        if match is not None:
            current = found.setdefault(match.group("part").lower(), [])
            if (match.group("said") or "").strip():
                current.append(match.group("said"))
            continue
        if line.startswith("#"):
            current = None  # a heading of another name ends the part
        if current is not None and line:
            current.append(_MARKS_RE.sub("", line))
    if len(found) < MIN_PARTS:
        return {}
    return {name: _WS_RE.sub(" ", " ".join(said).replace("**", "")).strip()
            for name, said in found.items() if said}


def outcome(answer: str) -> str | None:
    """What a recap says was done, as one line: its summary, then its ``COMPLETED`` (or
    ``RESULTS``) part; None for an answer that is no recap."""
    said = parts(answer)
    done = next((said[name] for name in DONE if said.get(name)), None)
    summary = said.get("summary")
    if not done and not summary:
        return None
    line = " — ".join(text.rstrip(". ") for text in (summary, done) if text)
    return line if len(line) <= OUTCOME_CHARS else line[: OUTCOME_CHARS - 1].rstrip() + "…"
