"""A report Claude wrote with a problem section and a fix section -> one gotcha (pure).

Claude's final answers often report a fix under headings: ``## ❌ The Problem`` (or ``Root
Cause``, ``What Happened``, ``What Went Wrong``, ``Problem Identified``, ``The Issue``), then
``## ✅ The Fix`` (or ``Solution``, ``What I Changed``, ``What Was Fixed``, ``Quick Fix``).
Headings are never mined as prose (:mod:`mining.text`), and the sentences under them rarely
carry a cue word ("The UCI configuration had `server` set as a single option instead of a
list"), so the pair itself is the cue: the cause (the root cause's section when there is one,
else the problem's) with the first line of the fix (its first line of prose, else its one-line
commands), as one gotcha.

Precision first: both headings must be there, the problem's before the fix's, and the fix's
heading must not offer a choice (``Option 1: Quick Fix``, ``Recommended Fixes``, ``Remaining
Issues``); a section whose text is empty or only a code block gives nothing. A fix section that
opens with an option offered ("**Option 1: Pull the latest changes**") tells what the person may
do; when the problem's section says what Claude did ("I've pushed a fix to allowlist these
files."), that is the fix.
"""

from __future__ import annotations

import re

from vaultmem.notes.lazyre import lazy
from vaultmem.notes.mdlines import lines_outside_fences

CAUSE_CHARS = 220  # of the cause kept in the gotcha, and the room a shorter fix leaves
FIX_CHARS = 150  # of the fix kept (the gotcha stays under an entity line's 400)
CODE_LINES = 3  # one-line commands a fix made only of code gives

_HEADING_RE = lazy(r"^\s{0,3}#{1,6}\s+(.+?)\s*#*\s*$")
# What decorates a heading: emoji and symbols, bold, numbering, a trailing colon.
_DECOR_RE = lazy(r"[^\w\s'’()/-]+|^\s*\d+[.)]\s*")
_PROBLEM_RE = lazy(
    r"^(?:the |root )?(?:problem|issue|cause|root cause|bug)(?: identified| found)?$|"
    r"^what (?:happened|went wrong|was wrong|was broken|caused it)$|^root cause analysis$|"
    r"^diagnosis$",
    re.IGNORECASE,
)
_ROOT_RE = lazy(r"\bcause\b|\bwhat caused\b", re.IGNORECASE)
_FIX_RE = lazy(
    r"^(?:the |quick |full |applied )?(?:fix(?:es)?|solution|resolution|workaround)"
    r"(?: applied| implemented)?(?: \(.*\))?$|"
    r"^what (?:i|we) (?:changed|fixed|did)$|^what (?:was|i|we) (?:fixed|changed)$|"
    r"^(?:changes|fix) (?:made|applied)$",
    re.IGNORECASE,
)
_CHOICE_RE = lazy(r"\b(?:option|options|recommended|remaining|suggested|possible|ongoing)\b",
                  re.IGNORECASE)
_LIST_RE = lazy(r"^\s*(?:[-*+]|\d+[.)])\s+")
_OFFERED_RE = lazy(r"^option\s+\w{1,3}\s*[:.)—–-]", re.IGNORECASE)
# What Claude did, said in the problem's section: "I've pushed a fix to allowlist these files."
_DONE_RE = lazy(r"^(?:i|we)(?:'ve| have)? (?=(?:pushed|added|fixed|changed|updated|removed|moved|"
                r"renamed|excluded|allowlisted|whitelisted|disabled|enabled|reverted|pinned|"
                r"set|created|replaced)\b)", re.IGNORECASE)
_SENTENCE_RE = lazy(r"(?<=[.!])\s+")
_BOLD_RE = lazy(r"\*\*|__")
_SPACES_RE = lazy(r"\s+")


def problem_fix(text: str) -> str | None:
    """The gotcha a report's problem and fix sections state, or None (see the module)."""
    lines = text.split("\n")
    sections: list[tuple[str, list[str], list[str]]] = []  # (title, prose lines, code lines)
    for _, line, inside in lines_outside_fences(lines):
        heading = None if inside else _HEADING_RE.match(line)
        if heading is not None:
            title = _SPACES_RE.sub(" ", _DECOR_RE.sub(" ", heading.group(1))).strip(" -")
            sections.append((title, [], []))
        elif sections:
            if inside:
                if not line.lstrip().startswith(("```", "~~~")):
                    sections[-1][2].append(line.strip())
            else:
                sections[-1][1].append(line.strip())  # "" marks a paragraph's end
    cause: str | None = None
    done = ""
    for title, prose, code in sections:
        if _PROBLEM_RE.search(title):
            said = _said(prose)
            if said and (cause is None or _ROOT_RE.search(title)):
                cause, done = said, _done(prose) or done
        elif cause is not None and _FIX_RE.search(title) and not _CHOICE_RE.search(title):
            first = _first_line(prose)
            if done and _OFFERED_RE.match(first):
                first = done
            fix = _clip(first, FIX_CHARS) or _commands(code)
            if fix:
                # The room a short fix leaves goes to the cause (the line stays as long).
                return f"{_clip(cause, CAUSE_CHARS + FIX_CHARS - len(fix))} Fix: {fix}"
    return None


def _said(prose: list[str]) -> str:
    """A section's first paragraph with the list right after it, as one line."""
    paragraph: list[str] = []
    items: list[str] = []
    for n, line in enumerate(prose):
        item = _LIST_RE.match(line) if line else None
        if items and item is None:
            break  # the list ended
        if item is not None:
            items.append(line[item.end():].rstrip(";"))
        elif line and paragraph and prose[n - 1] == "":
            break  # a second paragraph
        elif line:
            paragraph.append(line)
    said = " ".join(paragraph)
    if items:
        said = f"{said} {'; '.join(items)}" if said else "; ".join(items)
    return _BOLD_RE.sub("", said).strip()


def _done(prose: list[str]) -> str:
    """The first sentence of a later paragraph of a section that says what Claude did, as a
    commit subject says it ("I've pushed a fix to …" -> "Pushed a fix to …"), or ""."""
    for n, line in enumerate(prose):
        found = _DONE_RE.match(line) if n and line and prose[n - 1] == "" else None
        if found is not None:
            said = _SENTENCE_RE.split(_BOLD_RE.sub("", line[found.end():]).strip())[0]
            return said[:1].upper() + said[1:]
    return ""


def _first_line(prose: list[str]) -> str:
    for line in prose:
        item = _LIST_RE.match(line)
        text = _BOLD_RE.sub("", line[item.end():] if item else line).strip()
        if len(text.split()) >= 2:
            return text
    return ""


def _commands(code: list[str]) -> str:
    kept = [c for c in code if c and not c.startswith("#")][:CODE_LINES]
    return "`" + "; ".join(kept) + "`" if kept and "`" not in "".join(kept) else ""


def _clip(text: str, limit: int) -> str:
    text = text.strip()
    if len(text) <= limit:
        return text if text.endswith((".", ":", "!", "`", ")")) or not text else text + "."
    cut = text[:limit].rsplit(" ", 1)[0]
    return cut + "…"
