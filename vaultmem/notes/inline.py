"""Captured text made into one line of Markdown that cannot change a note's structure. Pure.

Text vaultmem did not write itself (a prompt, a command, a file path, a tool's error output)
goes into a note as one line: whitespace runs (newlines included) become one space, and either
it sits in an inline code span (:func:`code_span`) or its start is escaped so that it cannot open
a heading, fence, list, block quote or table (:func:`block_safe`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Literal

from vaultmem.notes.lazyre import lazy

Cut = Literal["count", "words", "chars"]
Controls = Literal["drop", "escape"]

_SPACES = re.compile(r"\s+")
_CONTROL = re.compile(r"[\x00-\x08\x0e-\x1b\x7f]")
# Shown as escapes by ``one_line(controls="escape")``: C0 and C1 controls, line separators.
_UNSAFE = lazy(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")
# A terminal's escape sequences (colours, cursor moves, titles) in pasted or captured output:
# formatting, not text; dropped whole so no "[1;33m" is left behind.
_ANSI = lazy(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[@-Z\\-_])")
_BACKTICKS = re.compile(r"`+")
# What may open a block at the start of a line: ATX heading, fence, block quote, table row,
# list bullet or ordered list marker, thematic break/setext underline, HTML block.
_BLOCK_START = lazy(r"^(?:#|`{3}|~{3}|>|\||[-+*](?:\s|$)|[=_-]{3}|-[-\s]*$|<)")
_ORDERED = lazy(r"^(\d{1,9})([.)])(?=\s|$)")


def one_line(text: str, max_chars: int | None = None, *, cut: Cut = "count",
             controls: Controls = "drop") -> str:
    """``text`` as one line, at most ``max_chars`` long (None: any length).

    ``controls``: ``"drop"`` makes every whitespace run (newlines included) one space and drops
    the other control characters; ``"escape"`` collapses nothing and shows control and
    line-separator characters as escapes (``\\n``), for text shown as data.
    ``cut``, when the line is longer: ``"count"`` ends it with "… N characters more", so the
    reader knows how much is missing; ``"words"`` and ``"chars"`` end it with "…", cut by
    :func:`clip` between words or at the character.
    """
    if controls == "escape":
        line = _UNSAFE.sub(lambda m: m.group(0).encode("unicode_escape").decode("ascii"), text)
    else:
        line = _SPACES.sub(" ", _CONTROL.sub("", text)).strip()
    if max_chars is None or len(line) <= max_chars:
        return line
    if cut == "count":
        return f"{line[:max_chars].rstrip()} … {len(line) - max_chars} characters more"
    return clip(line, max_chars, words=cut == "words")


def clip(text: str, max_chars: int, *, words: bool = True) -> str:
    """``text`` (one line) at most ``max_chars`` long, with "…" when cut. ``words``: cut
    between words (a word longer than half the room is cut inside), never inside a code span
    (an unclosed one would swallow what follows it in a heading or a list line) nor inside a
    ``[[link]]``; else cut at the character."""
    if len(text) <= max_chars:
        return text
    room = max(max_chars - 1, 1)
    cut = text[:room]
    if not words:
        return cut.rstrip() + "…"
    if not text[room].isspace():
        space = cut.rfind(" ")
        if space > room // 2:
            cut = cut[:space]
    opened = _open_span(cut)
    if opened is not None:
        cut = cut[:opened] if cut[:opened].strip() else cut.replace("`", "")
    if cut.rfind("[[") > cut.rfind("]]"):
        cut = cut[: cut.rfind("[[")]
    return cut.rstrip() + "…"


# A failure's error as capture quotes it: "`cmd` failed: `error`" (claude/failfix.py) and
# "`cmd` failed (`error`)" (mining/fixes.py); the span's fence is a run of backticks.
_ERROR_QUOTE = lazy(r"(?P<command>(`+)(?!`)[^`]+?(?<!`)\2(?!`) )?failed(?::| \()\s?"
                    r"(?P<span>(`+)(?!`).+?(?<!`)\4(?!`))")


def _kept_after(before: str, kept: str, max_chars: int,
                cut: Callable[[str, int], str] = clip) -> str:
    """``before`` cut by ``cut`` to leave room for ``kept``, then ``kept`` whole: how each
    ``clip_keeping_*`` cut ends once it chose the part to keep."""
    return f"{cut(before.rstrip(), max_chars - len(kept) - 1)} {kept}"


def clip_keeping_error(text: str, max_chars: int) -> str:
    """``text`` (one line) cut as :func:`clip` cuts it (between words), but when the cut would
    lose the first error a failure's quote holds, the words before that quote are cut instead
    and the quote kept: the failure hook finds a gotcha by the error it quotes (DESIGN §12), and
    a fix explained at length ("… For the person to run `sudo chown …`: … (`sudo cat x` failed:
    `sudo: a terminal is required …`)") lost it. The text's first code span (the fix) is kept
    too, its prose cut first; the failed command only when it fits with them; a quote longer than
    half the room is not kept (the plain cut)."""
    cut = clip(text, max_chars)
    found = _ERROR_QUOTE.search(text)
    if found is None or len(cut) == len(text) or found.group("span") in cut:
        return cut
    whole = found.group(0) + (")" if "failed (" in found.group(0) else "")
    command = found.group("command") or ""
    first = _CODE_SPAN.search(text[:found.start()])
    kept = cut
    # Without its command, the error is set apart ("… failed: `…`"): it is not the fix's.
    for start, quote in ((found.start(), whole), (found.start() + len(command),
                                                  "… " + whole[len(command):])):
        if len(quote) > max_chars // 2:
            continue
        kept = _kept_after(text[:start], quote, max_chars, clip_keeping_span)
        if first is None or first.group(0) in kept:
            break
    return kept


def clip_keeping_span(text: str, max_chars: int) -> str:
    """``text`` cut by :func:`clip`, its first code span kept whole when the cut would lose it
    (the words before it cut instead), unless it takes more than half the room."""
    cut = clip(text, max_chars)
    span = _CODE_SPAN.search(text)
    if span is None or span.group(0) in cut or len(span.group(0)) > max_chars // 2:
        return cut
    return _kept_after(text[:span.start()], span.group(0), max_chars)


FIX_MARK = " Fix: "  # a gotcha as mining writes a cause and its fix ("<cause>. Fix: <fix>")
# The other marks mining puts before a fix: a table row's ("<problem>: <cause> — fix: <fix>")
# and a summary's ("<problem> — solution: <fix>").
FIX_MARKS = (FIX_MARK, " — fix: ", " — fixed: ", " — solution: ")


def fix_at(text: str) -> int:
    """Where the last fix mark of ``text`` (:data:`FIX_MARKS`) starts, -1 when none."""
    return max(text.rfind(mark) for mark in FIX_MARKS)


def clip_keeping_fix(text: str, max_chars: int) -> str:
    """``text`` cut by :func:`clip_keeping_span`, but a gotcha written "<cause>. Fix: <fix>"
    (or with another of :data:`FIX_MARKS`) that the cut would take its fix from keeps the fix
    whole and cuts the cause instead, when the fix takes at most half the room: the fix is the
    lesson ("… BUILD FAILED… Fix: Updated 2 wo…" told the reader nothing of what was done)."""
    cut = clip_keeping_span(text, max_chars)
    at = fix_at(text)
    if at <= 0 or len(cut) == len(text):
        return cut
    fix = text[at + 1:]
    if fix in cut or len(fix) > max_chars // 2:
        return cut
    return _kept_after(text[:at], fix, max_chars)


def cut_keeping_fix(text: str, max_chars: int) -> str:
    """``text`` (one line) at most ``max_chars`` long: a fix after its cause (a mark of
    :data:`FIX_MARKS`) kept whole and the cause cut (:func:`clip_keeping_fix`), else cut between
    words (in the second half) without the comma or colon before the "…"."""
    if len(text) <= max_chars:
        return text
    if fix_at(text) > 0:
        return clip_keeping_fix(text, max_chars)
    cut = text[: max_chars - 1]
    space = cut.rfind(" ")
    return (cut[:space] if space > max_chars // 2 else cut).rstrip(" ,;:") + "…"


def _open_span(text: str) -> int | None:
    """Where a code span that ``text`` leaves open starts (CommonMark: a run of backticks is
    closed by the next run of the same length), None when every span is closed."""
    runs = [(m.start(), len(m.group())) for m in _BACKTICKS.finditer(text)]
    i = 0
    while i < len(runs):
        start, length = runs[i]
        close = next((j for j in range(i + 1, len(runs)) if runs[j][1] == length), None)
        if close is None:
            return start
        i = close + 1
    return None


def without_escapes(text: str) -> str:
    """``text`` without a terminal's escape sequences (``\x1b[1;33m``), whole."""
    return _ANSI.sub("", text)


def code_span(text: str) -> str:
    """``text`` (one line) as an inline code span whatever backticks it holds: the fence is
    longer than its longest backtick run (CommonMark closes a span only on an equal run)."""
    longest = max((len(run) for run in _BACKTICKS.findall(text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") or not text.strip() else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def block_safe(text: str) -> str:
    """One line that, put at the start of a line or after ``- ``, opens no block of its own."""
    line = one_line(text)
    if _ORDERED.match(line):  # "1. x": a backslash before a digit would show, not escape
        return _ORDERED.sub(lambda m: f"{m.group(1)}\\{m.group(2)}", line, count=1)
    return "\\" + line if _BLOCK_START.match(line) else line


# Text someone asked vaultmem to remember (CLI, MCP) is one line of a note Obsidian renders: what
# Obsidian would act on rather than show is made inert, the words kept.
_CODE_SPAN = lazy(r"(`+)(?:.+?)\1")
_WIKILINK = lazy(r"(!?)\[\[([^\[\]\n]*)\]\]")
_MD_LINK = lazy(r"(!?)\[([^\[\]\n]*)\]\(([^()\n]*(?:\([^()\n]*\)[^()\n]*)*)\)")
_HTML_TAG = lazy(r"<(?=[A-Za-z/!?])")
# A target outside the vault: a parent folder, a path from a filesystem root or home, a drive,
# a share, or a scheme other than the web's and mail's.
_OUTSIDE = lazy(r"(?:^|[/\\])\.\.(?:[/\\]|$)|^\s*(?:[/\\~]|[A-Za-z]:|(?!https?:|mailto:)"
                      r"[A-Za-z][A-Za-z0-9+.-]*:)")


def inert(text: str) -> str:
    """``text`` (one line) with what Obsidian would act on made inert, its words kept: a
    ``%%`` (a comment hiding the rest of the note) escaped as ``\\%\\%``, an embed (``![[…]]``,
    ``![…](…)``) or a link leaving the vault (``../``, an absolute path, ``file:``) put in a code
    span, an HTML tag's ``<`` escaped. Code spans already there are kept as they are."""
    out: list[str] = []
    at = 0
    for span in _CODE_SPAN.finditer(text):
        out.append(_inert_plain(text[at:span.start()]))
        out.append(span.group(0))
        at = span.end()
    out.append(_inert_plain(text[at:]))
    return "".join(out)


def _inert_plain(text: str) -> str:
    if "[" in text:
        text = _WIKILINK.sub(_inert_wikilink, text)
        text = _MD_LINK.sub(_inert_md_link, text)
    if "<" in text:
        text = _HTML_TAG.sub(r"\\<", text)
    if "%%" in text:
        text = text.replace("%", "\\%")  # "\%\%": no "%%" left for Obsidian to find
    return text


def _inert_wikilink(found: re.Match[str]) -> str:
    target = found.group(2).split("|", 1)[0].split("#", 1)[0]
    if found.group(1) or _OUTSIDE.search(target):
        return code_span(found.group(0))
    return found.group(0)


def _inert_md_link(found: re.Match[str]) -> str:
    target = found.group(3).strip().strip("<>")
    if found.group(1) or _OUTSIDE.search(target):
        return code_span(found.group(0))
    return found.group(0)


_HEADING_LINE = lazy(r"^(\s{0,3})(#{1,6})(\s|$)")
_FENCE_LINE = lazy(r"^\s{0,3}(`{3,}|~{3,})")


def escape_headings(text: str) -> str:
    """Body text (many lines) that cannot open a section of its own: headings outside code
    escaped, everything else as it was."""
    out: list[str] = []
    fence: str | None = None
    for line in text.split("\n"):
        m = _FENCE_LINE.match(line)
        if m:
            mark = m.group(1)[0]
            fence = None if fence == mark else fence or mark
        elif fence is None and _HEADING_LINE.match(line):
            line = _HEADING_LINE.sub(lambda h: f"{h.group(1)}\\{h.group(2)}{h.group(3)}", line)
        out.append(line)
    return "\n".join(out)
