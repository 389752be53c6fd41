"""Knowledge in Claude's prose -> items: decisions, gotchas, prerequisites, next steps, questions.

Pure and deterministic; no model. ``mine`` reads one assistant message (Markdown) and returns the
sentences that carry knowledge a later session needs, each one line. Reading a message into units
is ``mining.text``, the cue vocabulary and one sentence's kind ``mining.cues``; this module runs a
turn through them and tells Claude thinking aloud from what it found.

How a message is read:
- Fenced code, tables, block quotes, headings and tool-output echoes (``$ cmd``, tracebacks,
  ``FAILED …``) are never mined; inline code spans and double-quoted text are masked while cue
  phrases are matched, so a cue inside code or a quotation counts for nothing.
- Paragraphs are split into sentences (``e.g.``, ``3.11`` and ``tokens.py`` do not end one); each
  list item is a unit and is split the same way.
- A labelled note (``Decision:``, ``Gotcha:``, ``Root cause:``, ``Next step:``, ``TODO:``,
  ``Open question:``, ``Prerequisite:`` …, optionally bold) is taken as labelled, label removed.
- An issue a report labels (``**Issue:**``, ``**Problem:**``) with the action it then labels
  (``**Action Taken:**``, ``**Solution:**``, in the same section) is one gotcha: the issue with
  that action; an action with no issue before it says nothing.
- A list under a heading or lead-in line that names a kind (``## Next steps``, ``**Open
  questions:**``) gives items of that kind.
- Other sentences are classified by cue phrases over their structure. Precision first: hedged or
  hypothetical sentences (``maybe``, ``might``, ``if we chose``, ``consider``), tool narration
  (``Let me run the tests``) and questions are never decisions, gotchas or prerequisites. A
  question counts when it is stated as open (``unclear whether``) or left to the user (a ``?``
  sentence at the end of the message, or one asking the user directly), never when it is
  Claude's offer or a question of what to do next (``Want me to …?``, ``Shall I …?``, ``What
  would you like to do?``, ``Let me know if …``).
- Some knowledge carries no cue word and is read from the sentence's structure: a passive choice
  with its alternative (``Money is kept as cents instead of floats``), a cause put as ``the
  failing test was a rounding problem: …``, a fix put by its effect (``Pinning X fixed it``, not
  ``I fixed …``) and an imperative with an order (``Start Redis before running the worker``).
- The shapes any project's answers use: a caveat flagged as such (``**Note:** …``,
  ``Important: …``, ``Keep in mind that …``, ``Unfortunately, <thing> doesn't …``), what a named
  tool does not do or does to its input (``Blocky doesn't keep a query list``, ``X ignores …``,
  ``X only accepts …``), a cause said as ``The problem: …`` or by what did not happen (``The
  config didn't load because …``), and a summary bullet's change with its reason, its file
  named first (``- `auth.py` - switched to RS256 since …``). A flag opening on Claude, the person
  or a pronoun (``Note: I left …``, ``Note: you use …``, ``Note: this is …``) is no caveat.
- A cause stated as found and the fix the very next sentence of its paragraph reports (``The
  root cause was X. I changed Y to Z.``) are one gotcha, ``<cause>. Fix: <fix>``.
- A step said to be unneeded with why (``You don't need `bun install`: Bun resolves …``), a
  fault named then stated (``This is a known limitation of WSL2: …``), a rule with what breaks
  without it (``… has to be executable, otherwise …``) are gotchas; the paragraph under a
  heading naming the cause (``## Root Cause``, ``### What was wrong``) is one; a table's rows
  its columns explain (``| Issue | Cause | Fix |``, ``| Setting | Why |``) are items.
- A cause Claude tells after the turn's last tool call (``I see - both attempts failed because
  …`` ending the turn) is kept with no fix too: it is what the calls showed, not a musing.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from vaultmem.mining.cue import cue
from vaultmem.mining.cues import classify
from vaultmem.mining.kinds import DIAGNOSED, FIX_STATED, NARRATION, WRONG_USE
from vaultmem.mining.reports import problem_fix
from vaultmem.mining.text import (
    CLOSE,
    OPEN,
    Masks,
    Unit,
    capitalised,
    clean_line,
    plain_unit,
    read_units,
)
from vaultmem.notes.lazyre import lazy
from vaultmem.notes.privacy import strip_private
from vaultmem.notes.schema import Kind


@dataclass(frozen=True)
class Mined:
    """One piece of knowledge: its kind and the sentence(s) as Claude wrote them, one line."""

    kind: Kind
    text: str


def mine(text: str) -> tuple[Mined, ...]:
    """The decisions, gotchas, prerequisites, next steps and open questions in one message."""
    return mine_turn((text,))


def mine_listed(text: str) -> tuple[Mined, ...]:
    """Only the labelled notes and the items of lists a heading or lead-in names a kind
    (``Setup required:``, ``TODO:``) in ``text``: what a commit message states as such."""
    return mine_turn((text,), listed_only=True)


def mine_turn(messages: Sequence[str], acted: int = 0, *, listed_only: bool = False,
              called: bool = False) -> tuple[Mined, ...]:
    """The knowledge in the messages of one turn, in order.

    Claude thinks aloud between tool calls ("I see - the issue is that …"): such a sentence is
    never an item; a cause it states waits for the fix the turn reports later ("I've renamed the
    call …", "Pinning X fixed it"), and the item is that fix with its cause. ``acted``: how many
    of the first messages a tool call followed in the turn; in those, a diagnosis put in the
    present tense ("The issue is that …") is work in progress, kept only with a fix too.
    ``called``: a tool call came in the turn; a cause stated after the last one (in a message
    from ``acted`` on) is what the calls showed, told to the person: kept with no fix too."""
    found: list[Mined] = []
    seen: set[tuple[str, str]] = set()
    pending: list[str] = []  # causes stated while thinking aloud, the newest last
    told: set[str] = set()  # those of them said in a message no tool call followed

    def add(kind: Kind, line: str) -> None:
        if len(line) < 8 or (kind, line.casefold()) in seen:
            return
        seen.add((kind, line.casefold()))
        found.append(Mined(kind, line))

    for number, text in enumerate(messages):
        if not isinstance(text, str) or not text.strip():
            continue
        text = strip_private(text).replace(OPEN, " ").replace(CLOSE, " ")
        reported = None if listed_only else problem_fix(text)
        if reported is not None:  # a report's "The Problem" and "The Fix" sections
            add(Kind.GOTCHA, reported)
        masks = Masks()
        units = list(read_units(text, masks, causes=reported is None))
        # The questions Claude leaves the user with: the run of "?" sentences that ends it.
        trailing_from = len(units)
        while trailing_from > 0 and plain_unit(units[trailing_from - 1].text).endswith("?"):
            trailing_from -= 1
        realised = -1  # the block of the last bare "I see the problem." sentence
        stated = -1  # the unit of a cause just stated as found: its fix may be the next one
        for index, unit in enumerate(units):
            if listed_only and unit.label is None and not (unit.item and unit.section):
                continue
            if unit.state and number < acted:
                continue  # a table of settings between tool calls: work in progress
            kind = classify(unit, masks, index >= trailing_from, final=number >= acted)
            thought = _thinking(unit, realised == unit.block, kind, acting=number < acted)
            if thought is not None:
                if thought == "realised":
                    realised = unit.block
                elif thought == "cause":
                    pending.append(capitalised(clean_line(masks.restore(_without_lead(unit.text)))))
                    if (called or acted) and number >= acted and kind == Kind.GOTCHA \
                            and _GUESS_LEAD.search(plain_unit(unit.text)) is None:
                        told.add(pending[-1])
                continue
            fix = _fix_reported(unit, kind) if pending else None
            if fix is not None and plain_unit(fix).rstrip().endswith(":"):
                # The fix leads into a list this line does not carry ("Added allowlist for:"):
                # half a fix is no lesson, and the next fix reported answers something else.
                pending.clear()
                continue
            if fix is not None:
                # The newest cause is the one the fix answers (earlier ones were guesses).
                cause = pending[-1].rstrip(".")
                add(Kind.GOTCHA, f"{cause}. Fix: {capitalised(clean_line(masks.restore(fix)))}")
                pending.clear()
                continue
            said = _fix_after(unit, kind) if 0 <= stated == index - 1 \
                and units[stated].block == unit.block else None
            if said is not None:
                # "The root cause was X. I changed Y to Z.": the fix the next sentence reports
                # belongs to its cause (read alone it is a progress line).
                fixed = f"{found[-1].text.rstrip('.')}. Fix: {capitalised(clean_line(masks.restore(said)))}"
                found[-1] = Mined(Kind.GOTCHA, fixed)
                continue
            if kind is None:
                continue
            line = clean_line(masks.restore(unit.text))
            if unit.label is not None:
                line = capitalised(line)  # "Decision: use RS256" reads "Use RS256" without it
            before = len(found)
            add(kind, line)
            if kind == Kind.GOTCHA and len(found) > before and "fix" not in line.casefold():
                stated = index
    # "I see - both SSH attempts failed because the hostname couldn't be resolved." at the end
    # of the turn is no musing before a tool call: it is what Claude found and told the person,
    # whether or not a fix came (the turn may end asking, or be stopped before the fix).
    for cause in pending:
        if cause in told:
            add(Kind.GOTCHA, cause)
    return tuple(found)


# ---- thinking aloud ---------------------------------------------------------------------------
# Between tool calls Claude works things out in the first person: "I see - the issue is that …",
# "Hmm, the test is still failing because …", "The issue is that I'm calling it the wrong way.",
# "Now I need to update the router." None of it is knowledge by itself (DESIGN §10).
_INTERJECTION = (
    r"(?:ah+|oh+|hmm+|aha|wait|ok(?:ay)?|alright|right|actually|interesting|now|yes|yep|"
    r"great|good|perfect)(?:,? so)?"
)
_REALISE = (
    r"(?:(?:now |oh,? |ah,? |ok(?:ay)?,? )?i (?:can )?(?:see|understand|get it|realis?ze|notice)|"
    r"now i (?:see|get it|understand)|got it|that(?:'s| is) (?:it|the (?:issue|problem|bug)))"
)
# An interjection or a realisation opens the sentence; what follows is a diagnosis in progress.
_THINKING_LEAD = cue(
    rf"^(?:(?:{_INTERJECTION}|{_REALISE})\b[\s,.!:;—–-]*)*{_REALISE}\b[\s,.!:;—–-]*|"
    rf"^(?:{_INTERJECTION}\b[\s,.!:;—–-]*)+(?=(?:so |now |then )?(?:the (?:actual |real )?"
    r"(?:issue|problem|error|bug|cause|root cause|culprit|failure|reason)\b|(?:it|this|that)"
    r"(?:'s| is) (?:still )?(?:failing|because|due to|happening)\b|(?:it|this|that) (?:fails|failed)"
    r"\b|the (?:\S+ )?tests? (?:is |are )?(?:still )?(?:fail|failing)\b))|"
    r"^(?:looks|seems|sounds) like\b",
    "see|understand|get it|realis|realiz|notice|got it|that|ah|oh|hmm|wait|ok|right|"
    "actually|interesting|now|yes|yep|great|good|perfect|looks|seems|sounds",
)
# A cause said as it looks, not as found ("Looks like the cache is stale because …").
_GUESS_LEAD = cue(r"^(?:it |this |that )?(?:looks|seems|sounds|appears) (?:like|to)\b",
                  "looks|seems|sounds|appears")
# A sentence that is nothing but the realisation ("I see the problem now.", "Now I understand.").
_REALISED_ONLY = cue(
    rf"^(?:{_INTERJECTION}\b[\s,.!:;—–-]*)*{_REALISE}\b(?: (?:what(?:'s| is) (?:happening|going "
    r"on|wrong)|the (?:issue|problem|bug|error|cause)(?: here| now)?|now|it|why))?[\s.!]*$",
    "see|understand|get it|realis|realiz|notice|got it|that",
)
# "Hmm, that didn't work either.": what follows in the paragraph is thinking aloud too.
_MUSING = cue(r"^(?:ah+|oh+|hmm+|aha|wait|huh)\b", "ah|oh|hm|wait|huh")
# The cause is Claude's own doing: "the issue is that I'm calling it …", "fails because I forgot".
_SELF_CAUSE = cue(
    r"\b(?:is|was|are|were|because|due to|that|here)(?: that)?,? (?:i|i'm|i've|i'd|i was|my)\b|"
    r"^(?:i (?:made|introduced) (?:an? )?(?:error|mistake|typo)|i (?:forgot|missed|was (?:using|"
    r"passing|calling|looking)|used the wrong|'m (?:calling|using|passing)))\b|"
    r"^i'm (?:calling|using|passing|missing)\b",
    "is|was|are|were|because|due to|that|here|i |i'm",
)
# Claude's next move ("Now I need to update the tests.", "I need to use X instead of Y here.").
_SELF_PLAN = cue(
    rf"^(?:{_INTERJECTION}\b[\s,.!:;—–-]*)*(?:i|we) (?:(?:also|just|first|then) )?"
    r"(?:need|have|want|should|must|'ll need|will need|'ll have|will have|'d better) to\b",
    "need|have|want|should|must|better",
)
# "I'll update the controller …": a move, unless it states a choice with its reason.
_SELF_MOVE = cue(
    rf"^(?:{_INTERJECTION}\b[\s,.!:;—–-]*)*(?:i(?:'ll| will)|let's) (?:now |also |just )?"
    r"(?:update|add|fix|change|rename|move|wire|use|try|make|write|create|remove|replace|adjust)\b",
    "ll|will|let's",
)
# A fix reported after a cause: "I've renamed the call to …", "Fixed: …", "That did the trick".
_FIX_REPORT = cue(
    r"^(?:(?:ok(?:ay)?|good|great|perfect|done|now|so|there we go|that's it|fixed|right)"
    r"[\s,!.:;—–-]+)*(?:(?:i|we)(?:'ve| have)?\s+)?(?:now\s+|also\s+|just\s+)?(?:fixed|changed|"
    r"updated|renamed|replaced|added|removed|moved|switched|wrapped|made|set|aliased|imported|"
    r"reverted|corrected|adjusted|rewrote|converted|dropped|swapped|pinned|bumped|installed|"
    r"restored|reordered|registered|exposed|defined|guarded|escaped|quoted|marked|enabled|"
    r"disabled|cleared|reset|ran|applied|migrated|deleted|split|handled)\b|"
    r"^fixed\b",
)
_FIX_LEAD_RE = lazy(
    r"^(?:(?:ok(?:ay)?|good|great|perfect|done|now|so|there we go|that's it|fixed|right)"
    r"[\s,!.:;—–-]+)*(?:(?:i|we)(?:'ve| have)?\s+)?",
    re.IGNORECASE,
)
_LEAD_RE = lazy(
    rf"^(?:(?:\*\*|__)?(?:{_INTERJECTION}|{_REALISE}|(?:looks|seems|sounds) like)\b(?:\*\*|__)?"
    r"[\s,.!:;—–-]*)+",
    re.IGNORECASE,
)


def _thinking(unit: Unit, after_realised: bool, kind: Kind | None, *,
              acting: bool = False) -> str | None:
    """Whether the unit is Claude thinking aloud: "realised" (a bare "I see the problem."),
    "cause" (a diagnosis in progress, kept until a fix is reported), "aside" (dropped); None
    when it is not thinking aloud. A labelled note ("Root cause: …") never is. ``acting``: a
    tool call follows the unit's message in the turn, so a present-tense diagnosis in it is a
    hypothesis being tested, not a finding."""
    if unit.label is not None:
        return None
    text = plain_unit(unit.text)
    if _REALISED_ONLY.search(text) or (kind is None and _MUSING.search(text)):
        return "realised"
    self_made = _SELF_CAUSE.search(text) is not None
    if _SELF_PLAN.search(text) and kind != Kind.QUESTION:
        return "aside"
    if _SELF_MOVE.search(text) and kind not in (Kind.DECISION, Kind.QUESTION):
        return "aside"
    if _THINKING_LEAD.search(text) or after_realised:
        if kind == Kind.GOTCHA and not self_made:
            return "cause"
        # Right after "I see the problem.", the next statement is the diagnosis, cue or not.
        if after_realised and kind is None and not self_made and _diagnosis(text):
            return "cause"
        return "aside" if kind is not None or _THINKING_LEAD.search(text) else None
    # "I was using X instead of Y" is Claude's own mistake stated as found: a lesson, kept.
    if kind == Kind.GOTCHA and self_made and _FIX_BY.search(text) is None \
            and WRONG_USE.search(text) is None:
        return "aside"
    if acting and kind == Kind.GOTCHA and (_PRESENT_DIAGNOSIS.search(text)
                                           or DIAGNOSED.search(text)) \
            and _FIX_BY.search(text) is None:
        return "cause"
    return None


# A diagnosis in the present tense: "The issue is that …", "it fails because …" (not "the
# cause was …", "it turned out …": a cause stated as found).
_PRESENT_DIAGNOSIS = cue(
    r"\bthe (?:actual |real |underlying |main |remaining )?(?:problem|issue|bug|error|culprit|"
    r"cause|reason)s?(?: here| now)? (?:is|are)\b|\b(?:is|are) (?:still )?(?:failing|"
    r"happening|broken|hanging|crashing) (?:because|due to|since)\b|\b(?:fails|hangs|breaks|"
    r"crashes|errors)(?: \S+){0,3} (?:because|due to|since)\b",
    "problem|issue|bug|error|culprit|cause|reason|failing|happening|broken|hanging|crashing|"
    "fails|hangs|breaks|crashes",
)


# A fix report that cannot stand after its cause: one leading into a list ("Added allowlist
# for:"), one saying only that it did ("Fixed that, but …"), one still failing.
_NO_FIX = lazy(r":\s*$|^(?:fixed |did |done )?(?:that|it|this)\b|\b(?:still|but|however)\b",
               re.IGNORECASE)


def _fix_after(unit: Unit, kind: Kind | None) -> str | None:
    """The fix a sentence right after a stated cause reports, or None (see ``_NO_FIX``)."""
    said = None if unit.item else _fix_reported(unit, kind)
    return None if said is None or _NO_FIX.search(plain_unit(said)) else said


_FIX_BY = cue(r"\b(?:fixed|resolved|solved|worked around) (?:it|this|that|the \S+(?: \S+){0,3}) by\b|"
               r"^(?:i )?(?:fixed|resolved|solved)\b|\btracked\b|\btraced\b|\bnarrowed\b")


def _diagnosis(text: str) -> bool:
    """A statement that can say what is wrong: not a question, a lead-in or Claude's move."""
    return (not text.endswith(("?", ":")) and len(text.split()) >= 4
            and NARRATION.search(text) is None and _SELF_MOVE.search(text) is None)


def _without_lead(masked: str) -> str:
    """The unit's text without its "I see -", "Hmm," or "Looks like" opening."""
    return _LEAD_RE.sub("", masked, count=1) or masked


def _fix_reported(unit: Unit, kind: Kind | None) -> str | None:
    """The fix this unit reports (its text without "Fixed -" or "I've"), or None."""
    if kind not in (None, Kind.GOTCHA, Kind.DECISION):
        return None
    text = plain_unit(unit.text)
    if not (_FIX_REPORT.search(text) or (kind == Kind.GOTCHA and FIX_STATED.search(text))):
        return None
    return _FIX_LEAD_RE.sub("", unit.text, count=1) or unit.text
