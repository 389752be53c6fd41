"""A message read for mining (pure): code and quotes masked, units and sentences, clean lines."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from vaultmem.mining import lang, recap
from vaultmem.mining.alerts import unquoted
from vaultmem.mining.tables import actions_taken, explained, prose_rows, settings
from vaultmem.notes import inline, mdlines
from vaultmem.notes.lazyre import lazy
from vaultmem.notes.schema import Kind

KINDS: tuple[Kind, ...] = (Kind.DECISION, Kind.GOTCHA, Kind.PREREQUISITE, Kind.NEXT_STEP,
                                Kind.QUESTION)
TEXT_MAX_CHARS = 300


@dataclass(frozen=True)
class Unit:
    """A sentence (or a labelled note) with what its position says about it."""

    text: str  # masked: code spans and quotes replaced by placeholders
    section: Kind | None  # kind named by the heading / lead-in line above it
    label: Kind | None  # kind named by the unit's own label
    block: int  # index of the paragraph or list the unit is in
    item: bool  # a list item (taken whole)
    state: bool = False  # a state a table of settings gives: a decision in a final answer only


# ---- masking ---------------------------------------------------------------------------------
# Placeholders use private-use code points (removed from the input first), so they never collide.
OPEN, CLOSE = "\ue000", "\ue001"
PLACEHOLDER_RE = lazy(f"{OPEN}(\\d+){CLOSE}")
_CODE_SPAN_RE = lazy(r"(`+)(?!`)(.+?)(?<!`)\1(?!`)")
_QUOTE_RE = lazy(r"\"[^\"\n]{1,240}\"|“[^”\n]{1,240}”")


class Masks:
    """Code spans and quotations of one message, swapped for placeholders and back."""

    def __init__(self) -> None:
        self.spans: list[tuple[str, str]] = []  # (kind "code"/"quote", original text)

    def mask(self, text: str) -> str:
        text = _CODE_SPAN_RE.sub(lambda m: self._put("code", m.group(0)), text)
        return _QUOTE_RE.sub(lambda m: self._put("quote", m.group(0)), text)

    def _put(self, kind: str, original: str) -> str:
        self.spans.append((kind, original))
        return f"{OPEN}{len(self.spans) - 1}{CLOSE}"

    def restore(self, text: str) -> str:
        return PLACEHOLDER_RE.sub(lambda m: self._get(int(m.group(1))), text)

    def _get(self, index: int) -> str:
        return self.spans[index][1] if index < len(self.spans) else ""

    def code(self, text: str) -> list[str]:
        """The code spans' contents inside a masked text."""
        found = []
        for match in PLACEHOLDER_RE.finditer(text):
            index = int(match.group(1))
            if index < len(self.spans) and self.spans[index][0] == "code":
                found.append(self.spans[index][1].strip("`").strip())
        return found


# ---- structure -------------------------------------------------------------------------------
# Echoed tool output: shell prompts, tracebacks, pytest summaries, compiler diagnostics.
_ECHO_RE = lazy(
    r"^[ \t]*(?:\$ |>>> |E {2,}|Traceback \(most recent|File \"[^\"]+\", line \d|"
    r"(?:FAILED|PASSED|ERROR|ok|not ok) \S|=+ .* =+$|-{3,} .* -{3,}$|"
    r"\S+\.\w+:\d+(?::\d+)?: |npm (?:ERR|WARN)!)"
)
_LABEL = {
    Kind.DECISION: r"decisions?|decided|final (?:choice|decision)|chosen(?: approach| option| "
    r"solution)?|approach (?:taken|chosen)|(?:i |we )?went with",
    Kind.GOTCHA: r"gotchas?|root[ -]cause|cause|the fix|fix|fixed|pitfall|caveat|watch out|"
    r"what (?:was|went) wrong|"
    r"lessons? learned|the catch|til|(?:primary|main|core|underlying|actual|real) (?:issue|problem)",
    Kind.PREREQUISITE: r"prerequisites?|requirements?|requires|setup|set-up",
    Kind.NEXT_STEP: r"next steps?|next up|todo|to-do|follow[ -]ups?|remaining(?: work)?|still to do|"
    r"outstanding|left for later|open items|tomorrow|future work|for later|next time|your task",
    Kind.QUESTION: r"open questions?|questions?|unresolved|unknowns?",
}


def _kinds_with_others(english: dict[Kind, str], families: tuple[str, ...]) -> str:
    """The alternation of named groups, one per kind: its English words, then those of the other
    languages' ``families`` (``mining.lang``), and for next steps a recap's NEXT part."""
    parts = []
    for kind, pattern in english.items():
        others = [entry for family in families for entry in lang.every_kind(family, kind)]
        extra = [recap.NEXT] if kind == Kind.NEXT_STEP else []
        parts.append(f"(?P<{kind.name}>" + "|".join([pattern, *others, *extra]) + ")")
    return "|".join(parts)


# Built at first use: the other languages' tables are imported only then.
_LABEL_RE = lazy(
    lambda: r"(?:^|(?<=[.!?])[ \t]+)(?:" + recap.MARK + r"{1,4}[ \t]*)?(?:\*\*|__)?(?P<label>"
    + _kinds_with_others(_LABEL, ("labels", "sections"))
    + r")(?:\*\*|__)?[ \t]*:(?:\*\*|__)?[ \t]*(?=\S)",
    re.IGNORECASE,
)
# A label that states only a fix ("**Fix:** set a strong password"): the item needs what it fixes.
_FIX_LABEL_RE = lazy(r"(?:the )?fix(?:ed)?", re.IGNORECASE)
# A list item or paragraph that states the problem the next fix answers ("**Issue:** …").
_ISSUE_RE = lazy(
    r"^(?:\*\*|__)?(?:issue|problem|bug|symptom|error|cause|what (?:was|went) wrong)(?:\*\*|__)?"
    r"[ \t]*:(?:\*\*|__)?"
    r"[ \t]*(?=\S)", re.IGNORECASE,
)
# What a report says was done about the issue just stated ("**Issue:** … **Action Taken:** …",
# "**Problem:** … **Solution:** …"): with that issue, a gotcha; without one it says nothing.
_ACTION_RE = lazy(
    r"^(?:\*\*|__)?(?P<label>actions? taken|solution|resolution|remediation|"
    r"what (?:i|we) (?:did|changed|fixed)|what(?:'s| is| was| got) fixed|changes? made)(?:\*\*|__)?[ \t]*:(?:\*\*|__)?[ \t]*(?=\S)",
    re.IGNORECASE,
)
def _label_words(label: str) -> str:
    """A label as it reads inside a line ("Action Taken" -> "action taken"; "I" stays)."""
    return " ".join("I" if w == "i" else w for w in label.lower().split())


# Where the issue's own words end: the next bold topic ("**File:** …") or its first sentence.
_ISSUE_END_RE = lazy(r"\s(?:\*\*|__)[^*_:\n]{1,40}:|(?<=[.!?])\s")
# What opens a heading before its words: numbering, emoji, bold ("### 🔴 2. **No password**").
_HEADING_LEAD_RE = lazy(r"^(?:[^\w`]|\d{1,3}[.)]|_)+")
# A heading or lead-in naming what is still to do ("Next steps", "⚠️ Still need:", "Action
# required", "What's left"): its items are next steps, and the part of an answer's recap the
# briefing names as the step the session left open (brief.recapnext, via names_what_is_left).
LEFT_TO_DO = (
    r"(?:suggested |possible |recommended )?next steps?|next up|to[ -]?dos?|what'?s next|"
    r"follow[ -]ups?|remaining(?: work| items| tasks| steps)?|still to do|what'?s left|"
    r"not (?:yet )?(?:done|finished|implemented)(?: yet)?|pending|still open|"
    r"outstanding(?: work| items)?|left for later|open items|left to do|to finish|"
    r"still needs?(?: to be done)?|still required|action (?:items?|required|needed)|"
    r"what you(?:'ll)? need to do|for you to do|"
    r"(?:the )?(?:remaining|outstanding) (?:work|items|tasks)(?: (?:is|are))?|"
    r"(?:here'?s |here is )?what(?:'s| is)? (?:still )?(?:left|remains)(?: to do| open)?")
_LEFT_TO_DO_RE = lazy(
    lambda: rf"(?<![\w'-])(?:{LEFT_TO_DO}|" + "|".join(lang.every_kind("sections", Kind.NEXT_STEP))
    + r")(?![\w'-])", re.IGNORECASE)
def names_what_is_left(title: str) -> bool:
    """Whether a heading's words name what is still to do (``LEFT_TO_DO`` or its words in
    another language, anywhere in it: "Next steps for the release", "⚠️ Still need"), or it is
    a recap's NEXT part."""
    return _LEFT_TO_DO_RE.search(title) is not None or recap.part(title) == recap.NEXT


# A heading or a lead-in line ("**Next steps:**", "Still to do:") that names the kind of the list
# below it.
_SECTION = {
    Kind.DECISION: r"(?:(?:key|design|technical|architecture|architectural|important|main|major|"
    r"implementation) )?(?:decisions?|choices)(?: made)?|decisions? (?:taken|made)|"
    r"what (?:i|we) (?:chose|decided)|(?:design|key) (?:choices|trade-?offs)",
    Kind.GOTCHA: r"gotchas?|root causes?|what went wrong|pitfalls|caveats|known issues|fixes",
    Kind.PREREQUISITE: r"prerequisites|requirements|before you (?:start|run)(?: \w+){0,3}|"
    r"(?:set-?up|configuration) (?:required|needed)|required (?:set-?up|configuration)|"
    r"(?:local |dev |development )?set-?up|getting started|installation|how to run(?: \w+){0,3}|"
    r"to run (?:the |this )?(?:\w+ ){0,2}(?:locally|on your machine)",
    Kind.NEXT_STEP: LEFT_TO_DO,
    Kind.QUESTION: r"open questions?|questions(?: for you)?|unresolved|unknowns|to decide",
}
_SECTION_RE = lazy(
    lambda: r"^(?:" + recap.MARK + r"{1,4}[ \t]*)?(?:\*\*|__)?(?:"
    + _kinds_with_others(_SECTION, ("sections",))
    + r")(?:\*\*|__)?[ \t]*:?[ \t]*(?:\*\*|__)?$",
    re.IGNORECASE,
)
# Suggestions offered as "next steps" are hedged by nature; these sections take them anyway.
_SENTENCE_END_RE = lazy(
    r"(?<=[.!?])[\"')\]*_]*[ \t]+(?=[\"'(\[*_`" + OPEN + r"]?[A-Z0-9" + OPEN + r"])"
)
_ABBREV_RE = lazy(
    r"(?:\b(?:e\.g|i\.e|etc|vs|cf|approx|incl|esp|resp|viz|w\.r\.t|Mr|Mrs|Ms|Dr|St|No|Fig|"
    r"ca|al)|\b[A-Z])\.[\"')\]]*$"
)
WS_RE = lazy(r"\s+")
PAREN_RE = lazy(r"\([^()]*\)")
# A short bold or plain topic before a colon or a dash ("**Hashing:** went with …", "Auth: …",
# "`auth.py` - switched to RS256 …": a summary's bullet names its file or part first).
_TOPIC_WORD = r"[\w`'/.\ue000\ue001-]+"
_FILE_LIKE = r"(?=\S*(?:[\ue000/]|\w\.[a-z]{1,5}\b))"  # code, a path or a file name
TOPIC_RE = lazy(
    r"^(?:\*\*|__)?(?!(?:i|we|i'[a-z]+|we'[a-z]+|my|our)\b)(?:"
    + _TOPIC_WORD + r"(?: " + _TOPIC_WORD + r"){0,3}(?:\*\*|__)?:|"
    + _FILE_LIKE + _TOPIC_WORD + r"(?:\*\*|__)? [-—–])(?:\*\*|__)?\s+(?=\S)",
    re.IGNORECASE,
)


# A heading naming what a report says was done ("## ✅ Completed Tasks", "### Changes made").
_DONE_HEADING_RE = lazy(
    lambda: r"^(?:completed?|done|finished|changes? made|summary of changes|what (?:was|i|we) "
    r"(?:did|done|changed)|what changed|implemented)(?: (?:tasks?|work|changes|items))?:?$|"
    r"^" + lang.either(lang.every("done")) + r":?$",
    re.IGNORECASE,
)
# A numbered part of that report that states what it made ("### 3. **Pre-commit hook** -
# 3-layer strict scanning:"): the bold name, then after a dash or colon what it is.
_DONE_PART_RE = lazy(
    r"^\d{1,2}[.)][ \t]+(?:\*\*|__)(?P<name>[^*_]{3,80})(?:\*\*|__)[ \t]*(?:[-–—:][ \t]*)+"
    r"(?P<what>[^*_]{3,160}?)[ \t:]*$"
)


def done_part(title: str) -> str | None:
    """The decision a numbered heading under a report of what was done states ("Pre-commit
    hook: 3-layer strict scanning"), or None when the heading only names its part ("### 1.
    **Documentation**", "### 2. **Logs synced** (63 updated)": a name is no decision)."""
    match = _DONE_PART_RE.match(title.strip())
    if match is None or len(match.group("what").split()) < 2:
        return None
    return f"{match.group('name').strip().rstrip(':')}: {match.group('what').strip()}"


# A heading naming what caused the trouble ("## Root Cause", "### What was wrong", "## Why it
# failed"): the paragraph right below states it, cue words or not (a list there is a section's).
_CAUSE_HEADING_RE = lazy(
    r"^(?:the )?(?:(?:actual|real|underlying|main) )?(?:root cause|cause|problem|issue|bug|"
    r"culprit)(?: (?:identified|found))?$|^what (?:was|went) wrong$|"
    r"^why (?:it|this|the \S+(?: \S+)?) (?:failed|broke|hung|happened|crashed|was failing)$",
    re.IGNORECASE,
)
CAUSE_SENTENCES = 2  # of the paragraph under such a heading, taken as its cause
# A lead-in naming what was kept on purpose ("✓ Preserved:", "**Kept:**", "Left in place:"):
# each item below that says why (in brackets, after a dash, "because") is a decision.
_KEPT_LEAD_RE = lazy(
    r"^(?:[^\w\s]+ ?)?(?:\*\*|__)?(?P<word>kept|preserved|retained|left (?:in place|as is|"
    r"unchanged|untouched|alone|enabled|installed)|not (?:removed|changed|touched|uninstalled))"
    r"(?: \(\w+(?: \w+)?\))?(?:\*\*|__)?[ \t]*:(?:\*\*|__)?$",
    re.IGNORECASE,
)
_KEPT_WHY_RE = lazy(
    r"^(?!.*\b(?:may|might|could|probably|possibly|maybe)\b).*\b(?:required|needed|depends?|"
    r"dependency|relies|used by|in use|because|since|so that|needs?|requires?)\b", re.IGNORECASE)


def _kept_lead(line: str) -> str | None:
    """The word of a lead-in line naming what was kept ("Preserved"), or None."""
    match = _KEPT_LEAD_RE.match(line.strip())
    return match.group("word").capitalize() if match else None

# Claude's own move or musing opening that paragraph: no cause stated.
_OWN_MOVE_RE = lazy(r"^(?:i|we|let|let's|i'll|i've|we'll|we've|now|first)\b", re.IGNORECASE)


def _cause_stated(units: list[Unit]) -> list[Unit]:
    """The units of the paragraph under a cause's heading, its first sentences one gotcha (what
    it states is the cause), unless a label or Claude's own move opens it."""
    first = units[0] if units else None
    if first is None or first.label is not None or first.item \
            or _OWN_MOVE_RE.match(plain_unit(first.text)) or plain_unit(first.text).endswith(("?", ":")):
        return units
    taken = [u for u in units[:CAUSE_SENTENCES] if u.label is None
             and not plain_unit(u.text).endswith(("?", ":"))
             and not _OWN_MOVE_RE.match(plain_unit(u.text))]
    joined = " ".join(u.text for u in taken[: len(taken)])
    cause = Unit(joined, first.section, Kind.GOTCHA, first.block, False)
    return [cause, *units[len(taken):]]


def read_units(text: str, masks: Masks, *, causes: bool = True) -> Iterator[Unit]:
    """The message's sentences and list items, outside code, tables, quotes and echoed output.

    A numbered heading inside a section whose heading names what was done ("## ✅ Completed")
    that states what the part made (:func:`done_part`) is a decision: a completion report puts
    its choices in its headings ("### 3. **Pre-commit hook** - 3-layer strict scanning"). A
    table's rows are no sentences; those of a table with an "Action taken" column are decisions,
    those a problem's cause or fix column or a reason column explains are gotchas or decisions
    (:mod:`mining.tables`). The first sentences of a paragraph right under a heading naming the
    cause ("## Root Cause", "### What was wrong") are a gotcha (``causes``: unless the message's
    problem and fix sections said it already, :mod:`mining.reports`)."""
    fence: str | None = None
    section: Kind | None = None
    done_level = 0  # the level of the heading naming what was done, 0 outside such a section
    block = 0
    paragraph: list[str] = []
    item: list[str] | None = None
    item_indent = 0
    subs = 0  # the sub-bullets joined to the open item
    about: str | None = None  # what a fix below names no cause for is about: the issue, heading
    stated: str | None = None  # the issue a "**Issue:**" line stated in this section

    kept: str | None = None  # the word of a lead-in naming what was kept ("Preserved:")

    def split(text: str, is_item: bool) -> Iterator[Unit]:
        nonlocal about, stated
        if is_item and kept is not None and _KEPT_WHY_RE.search(text):
            # "Preserved:" then "- `kmod-wwan` (required by `gl-sdk4-system`)": kept, and why.
            yield Unit(masks.mask(f"{kept}: {WS_RE.sub(' ', text).strip()}"), None,
                       Kind.DECISION, block, True)
            return
        issue = _ISSUE_RE.match(text)
        rest = text  # where an action on the issue may open: the text, or after the issue
        if issue is not None:
            said = text[issue.end():]
            end = _ISSUE_END_RE.search(said)
            about = _unbold(said[: end.start()] if end else said).strip().rstrip(".;:") or about
            stated = about
            rest = said[end.start():].lstrip() if end else ""
        action = _ACTION_RE.match(rest) if stated else None
        if action is not None and stated and rest[action.end():].strip("*_` "):
            done = f"{stated} — {_label_words(action.group('label'))}: {rest[action.end():]}"
            stated = None  # one action answers the issue
            yield Unit(masks.mask(WS_RE.sub(" ", done).strip()), section, Kind.GOTCHA, block,
                       is_item)
            return
        yield from _split(masks.mask(text), section, block, is_item,
                          masks.mask(about) if about else None)

    cause_next = False  # a heading naming the cause ("## Root Cause") is right above

    def flush() -> Iterator[Unit]:
        nonlocal paragraph, item, block, cause_next
        if item is not None:
            cause_next = False
            yield from split(" ".join(item), True)
            item = None
        if paragraph:
            units = list(split(" ".join(paragraph), False))
            if cause_next:
                units = _cause_stated(units)
            cause_next = False
            yield from units
            paragraph = []
            block += 1

    table: list[str] = []  # the rows of the table being read

    def done_rows() -> Iterator[Unit]:
        # A table's rows that report the action taken on each (mining.tables) are decisions.
        nonlocal block
        if not table:
            return
        found = [(Kind.DECISION, done) for done in actions_taken(table)] or explained(table)
        for kind, said in found:
            yield Unit(masks.mask(said), None, kind, block, True)
        # Else a table of settings gives states, any other (but one weighing alternatives)
        # rows read as the lines of prose they say.
        stated = [] if found else settings(table)
        for said in stated:
            yield Unit(masks.mask(said), None, Kind.DECISION, block, True, state=True)
        for said in [] if found or stated else prose_rows(table):
            yield Unit(masks.mask(said), None, None, block, True)
        table.clear()
        block += 1

    # The code block a one-line lead-in brings ("Install the hook:" then ```python3 install.py```):
    # its lines while it is read, the lead-in waiting; a one-line command joins the lead-in.
    fenced: list[str] | None = None

    for raw in unquoted(text).splitlines():  # an alert callout is prose (mining.alerts)
        fence_match = mdlines.FENCE.match(raw)
        if fence is not None:
            if (
                fence_match
                and fence_match.group(1)[0] == fence[0]
                and len(fence_match.group(1)) >= len(fence)
            ):
                fence = None
                if fenced is not None:
                    _with_command(item if item is not None else paragraph, fenced)
                    fenced = None
                    yield from flush()
            elif fenced is not None:
                fenced.append(raw.strip())
            continue
        if fence_match:
            if (len(paragraph) == 1 and item is None) or (item is not None and len(item) == 1
                                                          and not paragraph):
                fenced = []
            else:
                yield from flush()
            fence = fence_match.group(1)
            continue
        line = raw.rstrip()
        if table and not mdlines.TABLE_ROW.match(line):
            yield from done_rows()
        if not line.strip():
            yield from flush()
            continue
        heading = mdlines.HEADING.match(line)
        if heading:
            yield from flush()
            block += 1
            level = len(heading.group(1))
            words = _HEADING_LEAD_RE.sub("", _unbold(heading.group(2))).strip()
            if done_level and level <= done_level:
                done_level = 0
            if _DONE_HEADING_RE.match(words):
                done_level = level
            elif done_level:
                part = done_part(heading.group(2))
                if part is not None:
                    yield Unit(masks.mask(part), None, Kind.DECISION, block, False)
            section = _section_kind(heading.group(2))
            kept = None
            title = _HEADING_LEAD_RE.sub("", _unbold(heading.group(2))).strip()
            cause_next = causes and _CAUSE_HEADING_RE.match(title.rstrip(":").strip()) is not None
            about = title if section is None and len(title.split()) >= 2 else None
            stated = None
            continue
        if mdlines.TABLE_ROW.match(line):
            yield from flush()
            table.append(line)
            continue
        if mdlines.RULE.match(line) or _ECHO_RE.match(line):
            yield from flush()
            continue
        if mdlines.QUOTE.match(line):
            # Quoted text is someone else's words; only an explicit label inside is kept.
            yield from flush()
            quoted = re.sub(r"^[ \t]*(?:>[ \t]?)+", "", line)
            if _LABEL_RE.match(_strip_bullet(quoted)):
                yield from split(_strip_bullet(quoted), True)
            continue
        bullet = mdlines.LIST_ITEM.match(line)
        if bullet:
            if paragraph:
                # A lead-in line ("Next steps:") names the list that follows.
                lead = _section_kind(" ".join(paragraph))
                if lead is not None:
                    paragraph = []
                    section = lead
                elif len(paragraph) == 1 and (said := _kept_lead(paragraph[0])):
                    paragraph, kept = [], said
            if item is not None and section is not None and len(bullet.group(1)) > item_indent:
                # A sub-bullet of a step (or decision…) under a heading that names its kind
                # is a detail of that step, not a step of its own: it joins its parent.
                join_detail(item, subs, line[bullet.end() :])
                subs += 1
                continue
            subs = 0
            if item is not None:
                yield from split(" ".join(item), True)
            else:
                yield from flush()
            item = [line[bullet.end() :]]
            item_indent = len(bullet.group(1))
            continue
        indent = len(line) - len(line.lstrip())
        if item is not None and indent > item_indent:
            item.append(line.strip())
            continue
        if item is not None:
            yield from flush()
            block += 1
            section = None if _section_kind(line) is None else section
            kept = None
        if not paragraph and _section_kind(line) is not None:
            section = _section_kind(line)
            continue
        if not paragraph and (said := _kept_lead(line)):
            kept = said
            continue
        kept = None  # prose again: the kept list has ended
        paragraph.append(line.strip())
    yield from flush()
    yield from done_rows()


COMMAND_MAX_CHARS = 160  # a code block longer than this says more than a command


def join_detail(item: list[str], joined: int, detail: str) -> None:
    """Add a sub-bullet's text to its parent item: after a colon, then semicolons
    ("Deploy the hook: run install.py; restart the app"); a parent's own colon inside its
    emphasis (``**Review the docs:**``) is the colon."""
    last = item[-1].rstrip()
    if not last.rstrip("*_").rstrip().endswith((":", ";")):
        last += ";" if joined else ":"
    item[-1] = last
    item.append(detail.strip())


def _with_command(lead: list[str], fenced: list[str]) -> None:
    """Add to a one-line lead-in the command of the code block it brings, when that block is
    one line (a script, a config, several commands say more than a line may)."""
    lines = [line for line in fenced if line]
    if len(lines) == 1 and len(lines[0]) <= COMMAND_MAX_CHARS and "`" not in lines[0]:
        lead[-1] = f"{lead[-1]} `{lines[0]}`"


def _section_kind(text: str) -> Kind | None:
    match = _SECTION_RE.match(WS_RE.sub(" ", text).strip().rstrip(":").strip())
    if match is None:
        return None
    for kind in KINDS:
        if match.group(kind.name):
            return kind
    return None


def _strip_bullet(line: str) -> str:
    bullet = mdlines.LIST_ITEM.match(line)
    return line[bullet.end() :] if bullet else line.strip()


def _split(text: str, section: Kind | None, block: int, item: bool,
           about: str | None = None) -> Iterator[Unit]:
    """A paragraph or list item -> units: labelled notes whole, other text by sentence; a fix
    labelled as such says what it fixes (``about``: the issue named above it, or its heading)."""
    text = WS_RE.sub(" ", text).strip()
    if not text:
        return
    labels = list(_LABEL_RE.finditer(text))
    if labels and labels[0].start() > 0:
        yield from _sentences(text[: labels[0].start()], section, block, item)
    for index, match in enumerate(labels):
        end = labels[index + 1].start() if index + 1 < len(labels) else len(text)
        kind = next(k for k in KINDS if match.group(k.name))
        body = text[match.end() : end].strip()
        label = match.group("label")
        if about and body.strip("*_ ") and _FIX_LABEL_RE.fullmatch(label) and not index \
                and not match.start():
            body = f"{about} — {label.lower()}: {body}"
        yield Unit(body, section, kind, block, item)
    if not labels:
        yield from _sentences(text, section, block, item)


def _sentences(text: str, section: Kind | None, block: int, item: bool) -> Iterator[Unit]:
    if item and section is not None:
        yield Unit(text.strip(), section, None, block, True)
        return
    start = 0
    for match in _SENTENCE_END_RE.finditer(text):
        if _ABBREV_RE.search(text[start : match.start()]):
            continue
        sentence = text[start : match.start()].strip()
        if sentence:
            yield Unit(sentence, section, None, block, item)
        start = match.end()
    rest = text[start:].strip()
    if rest:
        yield Unit(rest, section, None, block, item)


# ---- text ------------------------------------------------------------------------------------
# ``__`` is emphasis only around words with a space between (``__init__.py`` stays as it is).
_EMPHASIS_RE = lazy(
    r"(\*\*)(?=\S)(.+?)(?<=\S)\*\*|(?<!\w)(__)(?=\S)(?=[^_\n]* )(.+?)(?<=\S)__(?!\w)"
)
_ITALIC_RE = lazy(r"(?<![\w*])\*(?=[^\s*])([^*]+?)(?<=[^\s*])\*(?![\w*])")
_LINK_RE = lazy(r"!?\[([^\]\n]*)\]\([^)\s]*\)")
_LEADING_RE = lazy(r"^(?:[-*+>#]|\d{1,3}[.)])\s+")


# A first word that is a plain lowercase word (not `code`, a path, a flag or an identifier).
_PLAIN_WORD_RE = lazy(r"[^\W\d_]+(?=[\s,;:]|$)")


def capitalised(text: str) -> str:
    """``text`` with its first letter upper-case when its first word is a plain word."""
    word = _PLAIN_WORD_RE.match(text)
    return text[0].upper() + text[1:] if word and text[0].islower() else text


def _unbold(text: str) -> str:
    return _EMPHASIS_RE.sub(lambda m: m.group(2) if m.group(1) else m.group(4), text)


def plain_unit(masked: str) -> str:
    """The masked unit as cue phrases see it: emphasis, links and list markers gone."""
    text = _LINK_RE.sub(r"\1", masked).replace("\u2019", "'")
    text = _ITALIC_RE.sub(r"\1", _unbold(text))
    return WS_RE.sub(" ", text).strip()


def unemphasised(text: str) -> str:
    """``text`` without ``**``/``__``/``*`` emphasis, its ``code`` spans as they are: a glob's
    ``**`` inside a code span is no marker to pair with a bold label after it."""
    parts = re.split(r"(`+[^`]*`+)", text)
    for index in range(0, len(parts), 2):
        parts[index] = _ITALIC_RE.sub(r"\1", _unbold(parts[index])).replace("**", "")
    return "".join(parts)


def clean_line(text: str) -> str:
    """One readable line: ``code`` spans kept, ** and __ emphasis removed, at most 300 chars
    (a fix after its cause kept whole, the cause cut)."""
    text = unemphasised(_LINK_RE.sub(r"\1", WS_RE.sub(" ", text).strip()))
    while _LEADING_RE.match(text):
        text = _LEADING_RE.sub("", text, count=1)
    text = text.strip(" \t-—:")
    return inline.cut_keeping_fix(text, TEXT_MAX_CHARS) if len(text) > TEXT_MAX_CHARS else text
