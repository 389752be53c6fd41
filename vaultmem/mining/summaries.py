"""Claude Code's compact summary -> its sections, the knowledge they state, and the text kept in
the session note (pure; DESIGN §10).

When Claude Code compacts its context it writes a structured account of the session so far as
one user line (``isCompactSummary``): numbered sections such as ``1. Primary Request and
Intent:``, ``2. Key Technical Concepts:``, ``3. Files and Code Sections:``, ``4. Errors and
fixes:``, ``5. Problem Solving:``, ``6. All user messages:``, ``7. Pending Tasks:``, ``8. Current
Work:``, ``9. Optional Next Step:``. A section heading is found by its title, whatever decorates
it (a number, ``##``, ``**bold**``, a trailing colon, words after the colon), in any order; a
numbered line that ends with a colon and names no known section ends the one before it (its
content is kept, not mined). A summary in another language or without sections gives no items and
is still kept whole.

What becomes an item (precision first: a wrong decision costs more than a missed one):
- Errors and fixes: each top-level entry (a bullet with its sub-bullets, or a sub-heading with its
  body) that says how it was fixed, or labels why it happened (``Issue:``, ``Cause:``,
  ``Explanation:``), is one gotcha, cause and fix together; an entry still open
  ("not yet confirmed", "still failing"), one that went away by itself ("transient", "resolved
  naturally") or that relays the user's feedback is none, nor is a compiler's diagnostic on code
  being written that a change of that code cleared (``error[E0277]: …`` fixed by deriving a
  trait; :mod:`diagnostics`): the summary kept in the note still holds it.
- Key Technical Concepts, Problem Solving, Files and Code: a sentence that states a choice ("uses
  X instead of Y", "chose / decided / switched to / went with / opted for", "X over Y", "rather
  than", "took the X approach") is a decision, with the sentence after it when that one gives the
  reason; hedged, hypothetical or questioning sentences are not.
- Any section but the person's messages: the person's pick it reports ("User explicitly chose:"
  over a list, "- User chose: X, Y") is a decision, the list joined on its line.
- Pending Tasks: each bullet is a next step; Optional Next Step: its first paragraph, without the
  quote of the user that usually follows; "None" / "No pending tasks" give nothing.
- Current Work: its first sentences are the session's outcome.

"All user messages" restates the person's prompts, private text included: it is never mined and
its content is not kept (the work log holds the prompts). ``<private>`` spans are removed before
anything is read; an unclosed one hides the rest of the summary.

The summary is kept whole in the note as a folded callout (:mod:`callout`), as every turn's
final answer is.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from vaultmem.mining import diagnostics, mentions
from vaultmem.mining.text import join_detail, unemphasised
from vaultmem.notes import mdlines
from vaultmem.notes.mdlines import lines_outside_fences
from vaultmem.notes.privacy import strip_private
from vaultmem.notes.schema import Kind

SummaryKind = Literal[Kind.DECISION, Kind.GOTCHA, Kind.NEXT_STEP, "outcome"]
ITEM_MAX_CHARS = 400
OUTCOME_MAX_CHARS = 400
CODE_LINE_MAX_CHARS = 160  # an error message quoted from a fenced block
USER_MESSAGES_LEFT_OUT = "(The person's messages are left out here: the work log holds the prompts.)"
QUOTE_LEFT_OUT = "(The quote of the person's last message is left out.)"
HEADING_MAX_CHARS = 120
SUMMARY_MAX_CHARS = 120_000  # of a summary read (the rest is left out of the note too)
PRIVATE_MIN_CHARS = 3  # a private text shorter than this is not looked for (it would match words)
PRIVATE_WORD_CHARS = 4  # a word of a private text with a digit or symbol, from this length
PRIVATE_LONG_WORD_CHARS = 12  # any word of a private text this long

# Canonical section keys and the titles (lower case, spaces collapsed) that name them.
SECTION_TITLES: dict[str, tuple[str, ...]] = {
    "request": ("primary request and intent", "primary request", "request and intent",
                "primary requests and intent", "user intent", "goal", "goals"),
    "concepts": ("key technical concepts", "technical concepts", "key concepts",
                 "key technical concepts and decisions"),
    "files": ("files and code sections", "files and code", "files modified", "files changed",
              "files and code changes", "code sections"),
    "errors": ("errors and fixes", "errors & fixes", "errors and fixes encountered",
               "errors", "errors and resolutions", "issues and fixes", "problems and fixes"),
    "problem_solving": ("problem solving", "problem-solving", "problems solved"),
    "decisions": ("decisions", "key decisions", "design decisions", "decisions made"),
    "user_messages": ("all user messages", "user messages", "all the user's messages",
                      "user feedback", "user instructions"),
    "pending": ("pending tasks", "pending task", "remaining tasks", "open tasks", "open threads"),
    "current": ("current work", "current state", "current status", "current task"),
    Kind.NEXT_STEP: ("optional next step", "optional next steps", "next step", "next steps"),
}
_TITLE_KEY = {title: key for key, titles in SECTION_TITLES.items() for title in titles}
DECISION_SECTIONS = ("concepts", "problem_solving", "files", "decisions")


@dataclass(frozen=True)
class Section:
    """One section of a summary: its key (None when not one vaultmem knows), title and body."""

    key: str | None
    title: str
    body: str
    start: int  # 0-based line of its heading in the (private-stripped) summary
    end: int  # end-exclusive


@dataclass(frozen=True)
class SummaryItem:
    """A piece of knowledge the summary states, with the file paths it names."""

    kind: SummaryKind
    text: str  # one line, at most ITEM_MAX_CHARS
    paths: tuple[str, ...] = ()


@dataclass(frozen=True)
class Summary:
    """A compact summary read: its sections, its items, and the text the note keeps."""

    sections: tuple[Section, ...]
    items: tuple[SummaryItem, ...]
    kept: str  # the summary as the note keeps it (private text and user messages out)

    @property
    def outcome(self) -> str | None:
        """What the session was doing when it was compacted (Current Work), or None."""
        return next((i.text for i in self.items if i.kind == "outcome"), None)


class _Patterns:
    """The regexes, compiled on first use (a hook that meets no summary never pays for them)."""

    def __init__(self) -> None:
        self.number = re.compile(r"(\d{1,2})[.)](?=\s|\*|_|$)")
        self.bullet = re.compile(r"^( *)(?:[-*+]|\d{1,3}[.)])[ \t]+(.*)$")
        self.spaces = re.compile(r"\s+")
        self.sentence_end = re.compile(r"(?<=[.!?])[\"')\]]*\s+(?=[A-Z`\"'(*_\[])")
        self.fixed = re.compile(
            r"\b(?:fix(?:ed|es)?\b|fix:|resolved|resolve by|solved|worked around|workaround|"
            r"root cause|the solution|solution:|corrected by|addressed by|switched to|"
            r"(?:by|after) (?:adding|removing|changing|using|switching|replacing|setting|running|"
            r"moving|renaming|passing|wrapping|reverting|installing|upgrading|downgrading|"
            r"pinning|restarting|deleting|updating|making|calling|checking))",
            re.IGNORECASE,
        )
        self.still_open = re.compile(
            r"\b(?:not yet (?:confirmed|fixed|resolved|working|verified)|still (?:fail|failing|"
            r"broken|open|unresolved|pending)|unresolved|no fix|not fixed|didn't (?:solve|fix|"
            r"work)|did not (?:solve|fix|work)|remains? (?:open|broken)|transient|resolved "
            r"(?:naturally|itself|on its own)|went away)",
            re.IGNORECASE,
        )
        # An entry that says why it happened, labelled ("Issue: X doesn't support wildcards",
        # "Explanation: a safety feature; re-add it with …"): its cause is the lesson, fixed or not.
        self.explained = re.compile(
            r"(?:^|[\s`.)])(?:issue|cause|root cause|reason|explanation|why)\**\s*:\**\s+\S",
            re.IGNORECASE)
        # The person's pick the summary reports: "User explicitly chose:" over a list, "- User
        # chose: X, Y" (not "User asked to …": a request, not a choice).
        self.person_chose = re.compile(
            r"^(?:[-*+]|\d{1,3}[.)])?\s*(?:\*\*|__)?(?:the )?user(?:'s)? (?:explicitly |then |later |"
            r"finally |also )?(?:chose|picked|selected|decided|opted|preferred|approved|choices?|"
            r"decisions?)\b(?!\s+(?:whether|if|how|which|what)\b)", re.IGNORECASE)
        self.user_relay = re.compile(r"^(?:the )?user(?:'s)?\b|\buser feedback: *[\"“']",
                                     re.IGNORECASE)
        self.choice = re.compile(
            r"\b(?:chose|chosen|choose to|decided|decision (?:was|is) to|opted (?:for|to)|"
            r"went with|go with|settled on|switched (?:from\b[^.]{1,80}?\bto|to|over to)|"
            r"migrated (?:from\b[^.]{1,80}?\bto|to)|moved (?:from\b[^.]{1,80}?\bto)|"
            r"instead of|rather than|in favou?r of|prefer(?:red|s)? [^.]{1,80}? (?:over|to)\b|"
            r"(?:took|takes|used|uses|using|adopted|adopts) (?:the |a |an )?[^.]{0,60}?"
            r"\bapproach\b|over (?:the )?(?:alternative|other option))",
            re.IGNORECASE,
        )
        self.hedge = re.compile(
            r"\b(?:might|could|would|may|maybe|perhaps|consider(?:ing|ed)?|if we|whether|"
            r"option(?:s|ally)?|possibly|proposed|suggest(?:ed|s)?|recommend(?:ed|s)?|"
            r"tried|attempt(?:ed|s)?|not yet|should we|plan(?:s|ned)? to|want(?:s|ed)? to|"
            r"withdr[ae]w|retract(?:ed)?|revert(?:ed)? the decision)\b",
            re.IGNORECASE,
        )
        self.because = re.compile(r"\b(?:because|since|so that|as it|as the|given that)\b",
                                  re.IGNORECASE)
        self.reason = re.compile(
            r"^(?:because|since|as |so that|so |this (?:keeps|avoids|lets|means|makes|is)|"
            r"that (?:keeps|avoids|lets)|simpler|faster|safer|cheaper|it (?:keeps|avoids|lets)|"
            r"to avoid|otherwise|reason)",
            re.IGNORECASE,
        )
        self.nothing = re.compile(
            r"^(?:none\b|n/?a\b|nothing\b|no (?:explicit |further |other |remaining |pending |"
            r"specific |additional |outstanding |open )*(?:next steps?|tasks?|pending|work|"
            r"requests?|action)\b|all (?:tasks|work|requests) (?:are |were |have been )?"
            r"(?:complete|completed|done|finished))",
            re.IGNORECASE,
        )
        self.quote_intro = re.compile(
            r"(?:\b(?:direct )?quotes? from\b|\bverbatim\b|\bfrom the most recent "
            r"(?:conversation|message|exchange)|\bthe user'?s? (?:most recent|last|latest) "
            r"(?:message|request|instruction)|\bthe user (?:said|asked|wrote|requested)\b|"
            r"\bin the user'?s words\b)",
            re.IGNORECASE,
        )
        self.boilerplate_end = re.compile(
            r"^(?:please continue the conversation|continue the conversation from where|"
            r"if you need specific details from before compaction|resume directly)",
            re.IGNORECASE,
        )
        self.analysis = re.compile(r"<analysis>.*?(?:</analysis>|\Z)", re.IGNORECASE | re.DOTALL)
        self.summary_tag = re.compile(r"</?summary>", re.IGNORECASE)


@functools.cache
def _p() -> _Patterns:
    return _Patterns()


def _title_key(title: str) -> str | None:
    return _TITLE_KEY.get(_p().spaces.sub(" ", title).strip().strip(".").casefold())


def _heading(line: str) -> tuple[str | None, str, str, bool] | None:
    """(key, title, rest of the line, numbered or a heading) when ``line`` opens a section: a
    known title however decorated (see :func:`sections`), an unknown one only numbered and
    ending with a colon, nothing after it ("10. Something Else:"); else None."""
    if not line.strip() or len(line) > 200:
        return None
    # Plain string steps, no backtracking regex: a summary line can be long.
    rest_of = line.strip()
    if line.startswith("    ") or len(rest_of) > HEADING_MAX_CHARS:
        return None
    hashes = rest_of.startswith("#")
    text = rest_of.lstrip("#").strip()
    bold = text.startswith(("**", "__"))
    text = text.strip("*_ \t")
    number = _p().number.match(text)
    if number is not None:
        text = text[number.end():].strip("*_ \t")
    colon = text.find(":")
    title, rest = (text[:colon].rstrip("*_ \t"), text[colon + 1:].lstrip("*_ \t").rstrip()) \
        if colon >= 0 else (text, "")
    if not 2 <= len(title) <= 60 or "\n" in title:
        return None
    key = _title_key(title)
    if key is not None:
        # A bare known word inside prose ("Errors" alone) needs a number, a colon or a heading.
        styled = bool(number or hashes)
        return (key, title, rest, styled) if styled or colon >= 0 or bold else None
    if number and colon >= 0 and not rest and not line.startswith(" "):
        return None, title, "", True
    return None


def sections(text: str) -> tuple[Section, ...]:
    """The sections of a summary (private text already removed), in the order written."""
    lines = text.split("\n")
    starts: list[tuple[int, str | None, str, str, bool]] = []
    for n, line, fenced in lines_outside_fences(lines):
        if fenced:
            continue
        found = _heading(line)
        if found is not None:
            starts.append((n, *found))
    # Sections numbered or headed: a bold label inside one ("**Current Status**: open") is none.
    starts = [s for s in starts if s[4] or not any(t[4] for t in starts)]
    out: list[Section] = []
    for i, (n, key, title, rest, _) in enumerate(starts):
        end = starts[i + 1][0] if i + 1 < len(starts) else len(lines)
        body = "\n".join(([rest] if rest else []) + lines[n + 1 : end]).strip("\n")
        out.append(Section(key, title, body, n, end))
    return tuple(out)


def _clean(text: str) -> str:
    """One line: whitespace collapsed, emphasis markers dropped outside ``code`` spans."""
    return _p().spaces.sub(" ", unemphasised(text)).strip()


def _cut(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    head = text[:limit]
    end = max(head.rfind(". "), head.rfind("; "))
    return head[: end + 1] if end >= limit // 2 else head[: limit - 1].rstrip() + "…"


def _sentences(text: str) -> list[str]:
    return [s.strip() for s in _p().sentence_end.split(text) if s.strip()]


def _entries(body: str, *, first_code_line: bool = False) -> list[str]:
    """The top-level entries of a section body, each as one line: a bullet with everything
    indented under it, a sub-heading with its body, or a paragraph. Fenced code is left out;
    ``first_code_line``: but the first line of a fenced block inside an entry is kept as a code
    span (in Errors and fixes, the block under an error's title is the error message)."""
    entries: list[list[str]] = []
    current: list[str] | None = None
    indent = 0  # of the current bullet; -1: a sub-heading's body, which runs to the next one
    after_blank = False
    subs = 0  # the sub-bullets joined to the current bullet
    opened = False  # the previous line opened a fenced block
    inside = False
    for _, line, fenced in lines_outside_fences(body.split("\n")):
        if fenced:
            if not inside:
                opened = inside = True
            elif opened and not line.strip():
                pass  # blank lines before the block's first line
            elif opened and first_code_line and current is not None \
                    and mdlines.FENCE.match(line) is None:
                current.append(_code(_cut(line.strip(), CODE_LINE_MAX_CHARS)))
                opened = False
            else:
                opened = False
            continue
        opened = inside = False
        if not line.strip():
            after_blank = True
            continue
        sub = mdlines.HEADING.match(line)
        bullet = _p().bullet.match(line)
        margin = len(line) - len(line.lstrip(" "))
        if sub is not None:
            current, indent = [sub.group(2).rstrip(":") + ":"], -1
            entries.append(current)
        elif current is not None and indent == -1:
            current.append(bullet.group(2) if bullet else line.strip())
        elif bullet is not None and (current is None or len(bullet.group(1)) <= indent
                                     or after_blank and not margin):
            current, indent, subs = [bullet.group(2)], len(bullet.group(1)), 0
            entries.append(current)
        elif current is not None and not (after_blank and not margin):
            if bullet is not None and indent >= 0:
                join_detail(current, subs, bullet.group(2))  # "Parent: sub; sub"
                subs += 1
            else:
                current.append(bullet.group(2) if bullet else line.strip())
        else:  # a paragraph
            current, indent = [line.strip()], 0
            entries.append(current)
        after_blank = False
    return [_clean(" ".join(entry)) for entry in entries if " ".join(entry).strip()]


def _code(text: str) -> str:
    """``text`` as an inline code span (a fence longer than any backtick run inside)."""
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    tick = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{tick}{pad}{text}{pad}{tick}"


def paths_in(text: str) -> tuple[str, ...]:
    """The file paths a summary's text names, in order, once each (no URLs)."""
    return mentions.paths_in(text)


def _gotchas(body: str) -> list[str]:
    out: list[str] = []
    for entry in _entries(body, first_code_line=True):
        text = re.sub(r"^Error \d+:\s*", "", entry)
        if _p().user_relay.search(text) or _p().still_open.search(text):
            continue
        fix = _p().fixed.search(text) or _p().explained.search(text)
        if fix is None or len(text) < 20:
            continue
        if diagnostics.code_in_progress(text[: fix.start()], text[fix.start():]):
            continue  # a compile error of code being written, fixed in that code: no lesson
        out.append(_focus(text, _p().fixed if _p().fixed.search(text) else _p().explained))
    return out


def _focus(text: str, wanted: re.Pattern[str]) -> str:
    """``text`` within ITEM_MAX_CHARS: whole when it fits, else its first sentence (the cause)
    and the sentences ``wanted`` finds (the fix)."""
    if len(text) <= ITEM_MAX_CHARS:
        return text
    parts = _sentences(text)
    keep = [parts[0]] + [s for s in parts[1:] if wanted.search(s)]
    return _cut(" ".join(keep), ITEM_MAX_CHARS)


def _decisions(body: str) -> list[str]:
    out: list[str] = []
    for entry in _entries(body):
        title, _, rest = entry.partition(": ") if ": " in entry[:90] else ("", "", entry)
        parts = _sentences(rest)
        for n, sentence in enumerate(parts):
            # The choice is weighed before its reason: "would" in "because a queue would need
            # a worker" hedges nothing.
            choice = _p().because.split(sentence, 1)[0]
            if not _p().choice.search(choice) or _p().hedge.search(choice) or "?" in sentence:
                continue
            said = sentence
            if n + 1 < len(parts) and _p().reason.match(parts[n + 1]):
                said = f"{said} {parts[n + 1]}"
            if title and len(title) <= 80 and title.casefold() not in said.casefold():
                said = f"{title}: {said}"
            out.append(_cut(said, ITEM_MAX_CHARS))
            break  # one decision per entry: its first choice
    return out


def _next_steps(body: str, *, first_only: bool) -> list[str]:
    out: list[str] = []
    entries = _entries(body)
    for entry in entries[:1] if first_only else entries:
        if _p().nothing.match(entry):
            if first_only:
                break
            continue
        kept: list[str] = []
        for sentence in _sentences(entry):
            if _p().quote_intro.search(sentence) or sentence.startswith(('"', "“", ">")):
                break  # what follows quotes the person: not the step, and maybe private
            kept.append(sentence)
        text = re.sub(r"^(?:next step|optional next step)\s*:\s*", "", " ".join(kept),
                      flags=re.IGNORECASE)
        if len(text) >= 8 and not _p().nothing.match(text):
            out.append(_cut(text, ITEM_MAX_CHARS))
    return out


def _person_chose(body: str) -> list[str]:
    """The person's picks ``body`` reports, each one line: a line saying the user chose, with
    the list under it when it leads into one."""
    out: list[str] = []
    lines = [line for _, line, fenced in lines_outside_fences(body.split("\n")) if not fenced]
    for n, line in enumerate(lines):
        if _p().person_chose.match(line.strip()) is None:
            continue
        text = unemphasised(line.strip().lstrip("-*+ ")).strip()
        if text.endswith(":"):
            listed: list[str] = []
            for below in lines[n + 1:]:
                item = _p().bullet.match(below)
                if item is None:
                    if below.strip() or listed:
                        break
                    continue
                listed.append(item.group(2).strip())
            if not listed:
                continue
            text = f"{text} {'; '.join(listed)}"
        out.append(_cut(text, ITEM_MAX_CHARS))
    return out


def _outcome(body: str) -> str | None:
    entries = _entries(body)
    if not entries:
        return None
    sentences = [s for s in _sentences(entries[0]) if not s.endswith(":")]
    text = _cut(" ".join(sentences), OUTCOME_MAX_CHARS)
    return text if len(text) >= 8 else None


def _items(found: tuple[Section, ...]) -> list[SummaryItem]:
    items: list[SummaryItem] = []
    seen: set[tuple[str, str]] = set()

    def add(kind: SummaryKind, text: str) -> None:
        key = (kind, text.casefold())
        if text and key not in seen:
            seen.add(key)
            items.append(SummaryItem(kind, text, mentions.paths_in(text)))

    for section in found:
        if section.key != "user_messages":
            for text in _person_chose(section.body):
                add(Kind.DECISION, text)
        if section.key == "errors":
            for text in _gotchas(section.body):
                add(Kind.GOTCHA, text)
        elif section.key in DECISION_SECTIONS:
            for text in _decisions(section.body):
                add(Kind.DECISION, text)
        elif section.key == "pending":
            for text in _next_steps(section.body, first_only=False):
                add(Kind.NEXT_STEP, text)
        elif section.key == Kind.NEXT_STEP:
            for text in _next_steps(section.body, first_only=True):
                add(Kind.NEXT_STEP, text)
        elif section.key == "current":
            outcome = _outcome(section.body)
            if outcome and not any(i.kind == "outcome" for i in items):
                add("outcome", outcome)
    return items


def _framed(text: str) -> str:
    """The summary without the frame Claude Code puts around it: the analysis it thought aloud
    in, the ``<summary>`` tags, the instructions to go on after it."""
    text = _p().summary_tag.sub("", _p().analysis.sub("", text))
    lines = text.split("\n")
    for n, line in enumerate(lines):
        if _p().boilerplate_end.match(line.strip()):
            lines = lines[:n]
            break
    return "\n".join(lines).strip()


def _kept(text: str, found: tuple[Section, ...]) -> str:
    """The summary without what restates the person: the user-messages sections' content and
    the quote of their last request a next step usually ends with, each replaced by one line."""
    lines = text.split("\n")
    for section in reversed(found):
        if section.key == "user_messages":
            lines[section.start + 1 : section.end] = [USER_MESSAGES_LEFT_OUT, ""]
            heading = lines[section.start]
            colon = heading.find(":")
            if colon >= 0 and heading[colon + 1 :].strip(" *_"):
                # Words after the colon are messages too.
                bold = "**" if heading.lstrip().startswith("**") else ""
                lines[section.start] = heading[: colon + 1] + bold
        elif section.key == Kind.NEXT_STEP:
            for n in range(section.start, section.end):
                quote = _quote_at(lines[n], heading=n == section.start)
                if quote is not None:
                    head = lines[n][:quote].rstrip()
                    lines[n : section.end] = [*([head] if head.strip() else []),
                                              QUOTE_LEFT_OUT, ""]
                    break
    return "\n".join(lines).strip()


def _quote_at(line: str, *, heading: bool) -> int | None:
    """Where a quote of the person starts in a next step's line, or None."""
    intro = _p().quote_intro.search(line)
    if intro is not None:
        return intro.start()
    stripped = line.lstrip(" >-*")
    if not heading and stripped.startswith(('"', "“")):
        return len(line) - len(stripped)
    return None


def _unsaid(text: str, private: Iterable[str]) -> str:
    """``text`` without the person's private texts it restates (case-insensitive): each whole,
    and each of their words that looks like a secret or a name of its own (a digit or a symbol
    in it: ``hunter2``, ``sk-live-42``; or long), which a paraphrase keeps."""
    said: set[str] = set()
    for part in private:
        part = part.strip()
        if len(part) >= PRIVATE_MIN_CHARS:
            said.add(part)
        for word in part.split():
            word = word.strip(".,;:!?\"'()[]{}<>`")
            if len(word) >= PRIVATE_WORD_CHARS and (
                    not word.isalpha() or len(word) >= PRIVATE_LONG_WORD_CHARS):
                said.add(word)
    for secret in sorted(said, key=len, reverse=True):
        text = re.sub(re.escape(secret), "", text, flags=re.IGNORECASE)
    return text


def read(raw: str, private: Iterable[str] = ()) -> Summary:
    """A compact summary's sections, items and the text to keep; never raises.

    ``private``: the texts the person marked private earlier in the session; the summary may
    restate them without the tags, so they are taken out wherever they occur."""
    # Parsing is linear; the cut keeps a hostile summary inside the hooks' budget (real ones
    # hold 5,000 to 40,000 characters).
    text = strip_private(raw[:SUMMARY_MAX_CHARS].replace("\r\n", "\n").replace("\r", "\n"))
    text = _framed(_unsaid(text, private))
    found = sections(text)
    return Summary(found, tuple(_items(found)), _kept(text, found))
