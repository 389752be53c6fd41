"""What was said kept whole in a session note: a folded callout nothing inside can break (pure).

The record keeps every turn's final answer, what Claude reported along the way, every compact
summary, every plan put to the person and a prompt too long for its line whole (DESIGN §11): the
briefing and the entity notes condense, the session note does not. What Claude wrote is Markdown of its own, so inside the callout:
- every line is quoted (``> ``), so no heading, list or fence of it is a section or an item of
  the note (a heading stays the callout's own: recall's passages and the briefing read an
  answer by its parts), and a fence left open is closed before the callout ends;
- ``%%`` (an Obsidian comment, which would hide the rest of the note), a trailing ``^block-id``
  and ``<!--`` are escaped, ``[[`` too (Claude's text links no note), and vaultmem's own anchor
  comments are taken out;
- code inside fences is left as written.
"""

from __future__ import annotations

from collections.abc import Sequence

from vaultmem.memory import anchors
from vaultmem.notes import schema
from vaultmem.notes.inline import code_span
from vaultmem.notes.lazyre import lazy
from vaultmem.notes.mdlines import lines_outside_fences
from vaultmem.notes.noise import ANSWER_NAME, ANSWER_TITLE, ASIDE, NOTES_TITLE

KEPT_MAX_CHARS = 60_000  # of one answer or summary in the note (real ones hold up to 30,000)
_CODE_SPAN = lazy(r"(`+)(?:.+?)\1(?!`)")
_COMMENT = lazy(r"%(?=%)")
_BLOCK_ID = lazy(r"(\s)\^([A-Za-z0-9-]+)[ \t]*$")


def bounded(text: str, limit: int = KEPT_MAX_CHARS) -> str:
    """``text`` cut at a line end to about ``limit`` characters, saying how much was left out."""
    if len(text) <= limit:
        return text
    return (text[:limit].rsplit("\n", 1)[0]
            + f"\n\n({len(text) - limit:,} more characters left out)")


def quoted(text: str, title: str) -> str:
    """``text`` under a collapsed callout's ``title`` line, every line neutralised (see the
    module's docstring)."""
    lines = [f"> {title}"]
    left_open: list[str] = []
    for _, line, fenced in lines_outside_fences(text.split("\n"), left_open):
        line = line.rstrip() if fenced else _neutral(line.rstrip())
        lines.append(f"> {line}" if line else ">")
    lines.extend(f"> {fence}" for fence in left_open)
    return "\n".join(lines)


def summary_callout(kept: str, time: str) -> str:
    """The kept summary as a collapsed Obsidian callout (:func:`quoted`), bounded."""
    return quoted(bounded(kept), f"[!summary]- Claude Code's summary (compacted {time})")


def answer(text: str) -> str:
    """A turn's final answer, whole (bounded), as a folded ``[!note]`` callout."""
    whole = text.strip("\n")
    count = whole.count("\n") + 1
    return quoted(bounded(whole), f"[!note]- {ANSWER_NAME} ({count} lines)")


def plan(text: str, *, approved: bool = True) -> str:
    """A plan Claude asked the person to approve (``ExitPlanMode``), whole (bounded), as a folded
    aside: recall ranks its lines after an answer's (a plan says what was meant, an answer what
    came of it). ``approved`` False: the read ended before the person answered."""
    whole = text.strip("\n")
    count = whole.count("\n") + 1
    said = "Plan approved" if approved else "Plan proposed, not answered"
    return quoted(bounded(whole), f"[!{ASIDE}]- {said} ({count} lines)")


def prompt(text: str) -> str:
    """A prompt its ``**Prompt:**`` line cuts short, whole (bounded), as a folded aside."""
    whole = text.strip("\n")
    return quoted(bounded(whole), f"[!{ASIDE}]- The prompt whole ({len(whole):,} characters)")


def printed(command: str, text: str) -> str:
    """What a command the person ran themselves printed (``console``), whole (bounded), as a
    folded aside."""
    whole = text.strip("\n")
    count = whole.count("\n") + 1
    return quoted(bounded(whole), f"[!{ASIDE}]- What {code_span(command)} printed ({count} lines)")


def notes(texts: Sequence[str]) -> str:
    """What Claude reported between its tool calls in a turn, whole (each bounded, a fence one
    leaves open closed before the next), as one folded aside (``noise.ASIDE``: recall ranks its
    lines after an answer's), a quoted blank line between two."""
    lines = [f"> [!{ASIDE}]- {NOTES_TITLE} ({len(texts)})"]
    for n, text in enumerate(texts):
        if n:
            lines.append(">")
        lines += quoted(bounded(text.strip("\n")), "").split("\n")[1:]
    return "\n".join(lines)


def _neutral(line: str) -> str:
    """A line outside fences that can open nothing of the note's own."""
    line = anchors.strip(line.replace("[[", "[\\[")).replace("<!--", "&lt;!--")
    if "%%" in line:
        line = _outside_code(line)
    return _BLOCK_ID.sub(lambda m: f"{m.group(1)}\\^{m.group(2)}", line)


def _outside_code(line: str) -> str:
    """``%%`` escaped outside the line's code spans (inside one it is code, shown as written)."""
    out: list[str] = []
    at = 0
    for span in _CODE_SPAN.finditer(line):
        out.append(_COMMENT.sub("%\\\\", line[at:span.start()]))
        out.append(span.group(0))
        at = span.end()
    out.append(_COMMENT.sub("%\\\\", line[at:]))
    return "".join(out)


def last_answer(note_text: str, log: str = schema.WORK_LOG) -> str | None:
    """The final answer the last entry of a session note's ``log`` section keeps whole
    (:func:`answer`, unquoted), or None when that entry keeps none."""
    lines = note_text.split("\n")
    start = next((n for n, line in enumerate(lines) if line.strip() == f"## {log}"), None)
    if start is None:
        return None
    end = next((n for n in range(start + 1, len(lines)) if lines[n].startswith("## ")),
               len(lines))
    entry = max((n for n in range(start, end) if lines[n].startswith("### ")), default=None)
    if entry is None:
        return None
    title = next((n for n in range(entry, end) if lines[n].startswith(ANSWER_TITLE)), None)
    if title is None:
        return None
    kept: list[str] = []
    for line in lines[title + 1 : end]:
        if not line.startswith(">"):
            break
        kept.append(line[2:] if line.startswith("> ") else line[1:])
    return "\n".join(kept) or None
