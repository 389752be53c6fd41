"""Knowledge in Claude's prose -> items: decisions, gotchas, prerequisites, next steps, questions.

Pure and deterministic; no model. ``mine`` reads one assistant message (Markdown) and returns the
sentences that carry knowledge a later session needs, each one line.

How a message is read:
- Fenced code, tables, block quotes, headings and tool-output echoes (``$ cmd``, tracebacks,
  ``FAILED …``) are never mined; inline code spans and double-quoted text are masked while cue
  phrases are matched, so a cue inside code or a quotation counts for nothing.
- Paragraphs are split into sentences (``e.g.``, ``3.11`` and ``tokens.py`` do not end one); each
  list item is a unit and is split the same way.
- A labelled note (``Decision:``, ``Gotcha:``, ``Root cause:``, ``Next step:``, ``TODO:``,
  ``Open question:``, ``Prerequisite:`` …, optionally bold) is taken as labelled, label removed.
- A list under a heading or lead-in line that names a kind (``## Next steps``, ``**Open
  questions:**``) gives items of that kind.
- Other sentences are classified by cue phrases over their structure. Precision first: hedged or
  hypothetical sentences (``maybe``, ``might``, ``if we chose``, ``consider``), tool narration
  (``Let me run the tests``) and questions are never decisions, gotchas or prerequisites. A
  question counts when it is stated as open (``unclear whether``) or left to the user (a ``?``
  sentence at the end of the message, or one asking the user directly).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Literal

from ..privacy import strip_private

MinedKind = Literal["decision", "gotcha", "prerequisite", "next_step", "question"]
KINDS: tuple[MinedKind, ...] = ("decision", "gotcha", "prerequisite", "next_step", "question")
TEXT_MAX_CHARS = 300


@dataclass(frozen=True)
class Mined:
    """One piece of knowledge: its kind and the sentence(s) as Claude wrote them, one line."""

    kind: MinedKind
    text: str


@dataclass(frozen=True)
class _Unit:
    """A sentence (or a labelled note) with what its position says about it."""

    text: str  # masked: code spans and quotes replaced by placeholders
    section: MinedKind | None  # kind named by the heading / lead-in line above it
    label: MinedKind | None  # kind named by the unit's own label
    block: int  # index of the paragraph or list the unit is in
    item: bool  # a list item (taken whole)


# ---- masking ---------------------------------------------------------------------------------
# Placeholders use private-use code points (removed from the input first), so they never collide.
_OPEN, _CLOSE = "\ue000", "\ue001"
_PLACEHOLDER_RE = re.compile(f"{_OPEN}(\\d+){_CLOSE}")
_CODE_SPAN_RE = re.compile(r"(`+)(?!`)(.+?)(?<!`)\1(?!`)")
_QUOTE_RE = re.compile(r"\"[^\"\n]{1,240}\"|“[^”\n]{1,240}”")


class _Masks:
    """Code spans and quotations of one message, swapped for placeholders and back."""

    def __init__(self) -> None:
        self.spans: list[tuple[str, str]] = []  # (kind "code"/"quote", original text)

    def mask(self, text: str) -> str:
        text = _CODE_SPAN_RE.sub(lambda m: self._put("code", m.group(0)), text)
        return _QUOTE_RE.sub(lambda m: self._put("quote", m.group(0)), text)

    def _put(self, kind: str, original: str) -> str:
        self.spans.append((kind, original))
        return f"{_OPEN}{len(self.spans) - 1}{_CLOSE}"

    def restore(self, text: str) -> str:
        return _PLACEHOLDER_RE.sub(lambda m: self._get(int(m.group(1))), text)

    def _get(self, index: int) -> str:
        return self.spans[index][1] if index < len(self.spans) else ""

    def code(self, text: str) -> list[str]:
        """The code spans' contents inside a masked text."""
        found = []
        for match in _PLACEHOLDER_RE.finditer(text):
            index = int(match.group(1))
            if index < len(self.spans) and self.spans[index][0] == "code":
                found.append(self.spans[index][1].strip("`").strip())
        return found


# ---- structure -------------------------------------------------------------------------------
_FENCE_RE = re.compile(r"^[ \t]{0,3}(`{3,}|~{3,})")
_HEADING_RE = re.compile(r"^[ \t]{0,3}#{1,6}[ \t]+(.*?)[ \t#]*$")
_TABLE_RE = re.compile(r"^[ \t]*\|")
_QUOTE_LINE_RE = re.compile(r"^[ \t]*>")
_LIST_RE = re.compile(r"^([ \t]*)(?:[-*+]|\d{1,3}[.)])[ \t]+(?:\[[ xX]\][ \t]+)?")
_RULE_RE = re.compile(r"^[ \t]*(?:[-*_][ \t]*){3,}$")
# Echoed tool output: shell prompts, tracebacks, pytest summaries, compiler diagnostics.
_ECHO_RE = re.compile(
    r"^[ \t]*(?:\$ |>>> |E {2,}|Traceback \(most recent|File \"[^\"]+\", line \d|"
    r"(?:FAILED|PASSED|ERROR|ok|not ok) \S|=+ .* =+$|-{3,} .* -{3,}$|"
    r"\S+\.\w+:\d+(?::\d+)?: |npm (?:ERR|WARN)!)"
)
_LABEL = {
    "decision": r"decisions?|decided",
    "gotcha": r"gotchas?|root[ -]cause|cause|the fix|fix|fixed|pitfall|caveat|watch out",
    "prerequisite": r"prerequisites?|requirements?|requires|setup|set-up",
    "next_step": r"next steps?|next up|todo|to-do|follow[ -]ups?|remaining(?: work)?|still to do",
    "question": r"open questions?|questions?|unresolved|unknowns?",
}
_LABEL_RE = re.compile(
    r"(?:^|(?<=[.!?])[ \t]+)(?:\*\*|__)?(?P<label>"
    + "|".join(f"(?P<{kind}>{pattern})" for kind, pattern in _LABEL.items())
    + r")(?:\*\*|__)?[ \t]*:(?:\*\*|__)?[ \t]*(?=\S)",
    re.IGNORECASE,
)
# A heading or a lead-in line ("**Next steps:**", "Still to do:") that names the kind of the list
# below it.
_SECTION = {
    "decision": r"(?:key |design )?decisions?(?: made)?",
    "gotcha": r"gotchas?|root causes?|what went wrong|pitfalls|caveats|known issues|fixes",
    "prerequisite": r"prerequisites|requirements|before you (?:start|run)|setup|set-up",
    "next_step": r"(?:suggested |possible |recommended )?next steps?|next up|todos?|to-dos?|"
    r"follow[ -]ups?|remaining(?: work| items| tasks)?|still to do|what'?s left|not (?:yet )?done",
    "question": r"open questions?|questions(?: for you)?|unresolved|unknowns|to decide",
}
_SECTION_RE = re.compile(
    r"^(?:\*\*|__)?(?:"
    + "|".join(f"(?P<{kind}>{pattern})" for kind, pattern in _SECTION.items())
    + r")(?:\*\*|__)?[ \t]*:?[ \t]*(?:\*\*|__)?$",
    re.IGNORECASE,
)
# Suggestions offered as "next steps" are hedged by nature; these sections take them anyway.
_SENTENCE_END_RE = re.compile(
    r"(?<=[.!?])[\"')\]*_]*[ \t]+(?=[\"'(\[*_`" + _OPEN + r"]?[A-Z0-9" + _OPEN + r"])"
)
_ABBREV_RE = re.compile(
    r"(?:\b(?:e\.g|i\.e|etc|vs|cf|approx|incl|esp|resp|viz|w\.r\.t|Mr|Mrs|Ms|Dr|St|No|Fig|"
    r"ca|al)|\b[A-Z])\.[\"')\]]*$"
)
_WS_RE = re.compile(r"\s+")


def mine(text: str) -> tuple[Mined, ...]:
    """The decisions, gotchas, prerequisites, next steps and open questions in one message."""
    if not isinstance(text, str) or not text.strip():
        return ()
    text = strip_private(text).replace(_OPEN, " ").replace(_CLOSE, " ")
    masks = _Masks()
    units = list(_units(text, masks))
    last_block = max((u.block for u in units), default=-1)
    found: list[Mined] = []
    seen: set[tuple[str, str]] = set()
    for unit in units:
        kind = _classify(unit, masks, last_block)
        if kind is None:
            continue
        line = _clean(masks.restore(unit.text))
        if len(line) < 8 or (kind, line.casefold()) in seen:
            continue
        seen.add((kind, line.casefold()))
        found.append(Mined(kind, line))
    return tuple(found)


def _units(text: str, masks: _Masks) -> Iterator[_Unit]:
    """The message's sentences and list items, outside code, tables, quotes and echoed output."""
    fence: str | None = None
    section: MinedKind | None = None
    block = 0
    paragraph: list[str] = []
    item: list[str] | None = None
    item_indent = 0

    def flush() -> Iterator[_Unit]:
        nonlocal paragraph, item, block
        if item is not None:
            yield from _split(masks.mask(" ".join(item)), section, block, True)
            item = None
        if paragraph:
            yield from _split(masks.mask(" ".join(paragraph)), section, block, False)
            paragraph = []
            block += 1

    for raw in text.splitlines():
        fence_match = _FENCE_RE.match(raw)
        if fence is not None:
            if (
                fence_match
                and fence_match.group(1)[0] == fence[0]
                and len(fence_match.group(1)) >= len(fence)
            ):
                fence = None
            continue
        if fence_match:
            yield from flush()
            fence = fence_match.group(1)
            continue
        line = raw.rstrip()
        if not line.strip():
            yield from flush()
            continue
        heading = _HEADING_RE.match(line)
        if heading:
            yield from flush()
            block += 1
            section = _section_kind(heading.group(1))
            continue
        if _TABLE_RE.match(line) or _RULE_RE.match(line) or _ECHO_RE.match(line):
            yield from flush()
            continue
        if _QUOTE_LINE_RE.match(line):
            # Quoted text is someone else's words; only an explicit label inside is kept.
            yield from flush()
            quoted = re.sub(r"^[ \t]*(?:>[ \t]?)+", "", line)
            if _LABEL_RE.match(_strip_bullet(quoted)):
                yield from _split(masks.mask(_strip_bullet(quoted)), section, block, True)
            continue
        bullet = _LIST_RE.match(line)
        if bullet:
            if paragraph:
                # A lead-in line ("Next steps:") names the list that follows.
                lead = _section_kind(" ".join(paragraph))
                if lead is not None:
                    paragraph = []
                    section = lead
            if item is not None:
                yield from _split(masks.mask(" ".join(item)), section, block, True)
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
        if not paragraph and _section_kind(line) is not None:
            section = _section_kind(line)
            continue
        paragraph.append(line.strip())
    yield from flush()


def _section_kind(text: str) -> MinedKind | None:
    match = _SECTION_RE.match(_WS_RE.sub(" ", text).strip().rstrip(":").strip())
    if match is None:
        return None
    for kind in KINDS:
        if match.group(kind):
            return kind
    return None


def _strip_bullet(line: str) -> str:
    bullet = _LIST_RE.match(line)
    return line[bullet.end() :] if bullet else line.strip()


def _split(text: str, section: MinedKind | None, block: int, item: bool) -> Iterator[_Unit]:
    """A paragraph or list item -> units: labelled notes whole, other text by sentence."""
    text = _WS_RE.sub(" ", text).strip()
    if not text:
        return
    labels = list(_LABEL_RE.finditer(text))
    if labels and labels[0].start() > 0:
        yield from _sentences(text[: labels[0].start()], section, block, item)
    for index, match in enumerate(labels):
        end = labels[index + 1].start() if index + 1 < len(labels) else len(text)
        kind = next(k for k in KINDS if match.group(k))
        yield _Unit(text[match.end() : end].strip(), section, kind, block, item)
    if not labels:
        yield from _sentences(text, section, block, item)


def _sentences(text: str, section: MinedKind | None, block: int, item: bool) -> Iterator[_Unit]:
    if item and section is not None:
        yield _Unit(text.strip(), section, None, block, True)
        return
    start = 0
    for match in _SENTENCE_END_RE.finditer(text):
        if _ABBREV_RE.search(text[start : match.start()]):
            continue
        sentence = text[start : match.start()].strip()
        if sentence:
            yield _Unit(sentence, section, None, block, item)
        start = match.end()
    rest = text[start:].strip()
    if rest:
        yield _Unit(rest, section, None, block, item)


# ---- classification --------------------------------------------------------------------------
def _cue(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


# Tool narration: what Claude is about to do in this very turn, not knowledge.
_NARRATION = _cue(
    r"^(?:(?:ok(?:ay)?|now|first|great|good|perfect|alright|next|then|so)[,!.]?\s+)*"
    r"(?:let me|let's (?:run|check|look|see|read|open|try|verify|start|find|search|take)|"
    r"i(?:'ll| will| am going to|'m going to)\s+(?:now\s+)?(?:run|check|look|read|open|search|"
    r"grep|inspect|examine|explore|view|verify|start by|begin by|investigate|find|see|try|"
    r"take a look|dig|scan|trace|test|re-?run)\b|i(?:'m| am) (?:now )?(?:going to )?"
    r"(?:running|checking|looking|reading|searching|investigating|examining|exploring)|"
    r"(?:running|checking|reading|looking at|searching|opening|inspecting)\b)"
)
# Hedges and hypotheticals: a sentence that holds any is not a decision, gotcha or prerequisite.
_HEDGE = _cue(
    r"\b(?:maybe|perhaps|possibly|might|may be|could|would|should we|if we|if you|if i|"
    r"whether|consider(?:ing)?|option(?:s|ally)?|alternatively|suppose|hypothetical(?:ly)?|"
    r"probably|likely|i suspect|i think|i guess|i believe|seems?|appears? to|not sure|"
    r"unclear|unless|in theory|one approach|another approach|worth (?:trying|considering|exploring)|"
    r"we can|you can|can be|try(?:ing)? to|was going to|were going to|wondering)\b|^\s*if\b"
)
_QUESTION_OPEN = _cue(
    r"\b(?:it'?s (?:still )?(?:unclear|not clear)|(?:still )?unclear (?:whether|if|why|how|what|"
    r"which|who|when)|(?:i'?m|i am|we'?re|we are) (?:still )?not (?:yet )?sure (?:whether|if|why|"
    r"how|what|which)|not (?:yet )?sure (?:whether|if)|i (?:don'?t|do not) (?:yet )?know "
    r"(?:whether|if|why|how)|(?:i|we) couldn'?t (?:determine|tell|figure out|confirm|verify) "
    r"(?:whether|if|why|how|what)|remains? (?:to be seen|unclear|open)|(?:is|are|remains?) "
    r"(?:still )?an open question|open question|needs? (?:a )?decision|undecided|tbd\b|"
    r"(?:you|we) (?:still )?need to decide|up to you (?:whether|which|if))"
)
_RESOLVED = _cue(r"\b(?:so i (?:checked|looked|verified|tested)|turns? out|turned out|confirmed)\b")
# Asked of the user directly: worth keeping wherever it stands.
_ASK_USER = _cue(
    r"^(?:(?:also|and|so|one more thing|lastly|finally)[,:]?\s+)?(?:should|shall) (?:i|we)\b|"
    r"^(?:(?:also|and|so)[,:]?\s+)?(?:do|would) you (?:want|prefer|like)|^want me to\b|"
    r"^(?:can|could) you (?:confirm|clarify|tell|check|let me know)|^which (?:one|option|approach|"
    r"of these|would you|do you)|^(?:is|are) (?:it|that|this|these) (?:ok|okay|fine|acceptable)|"
    r"^how would you like|^what would you like|^do you have a preference"
)
_LET_ME_KNOW = _cue(r"^(?:please )?let me know (?:whether|which|how you'?d like)")
_NEXT = _cue(
    r"^(?:as (?:a|the) )?next(?: step)?s?\s*[,:—-]\s*(?!let me\b|i'?ll (?:run|check|look|read|open|"
    r"search|verify|inspect|examine|view)\b)|"
    r"\bnext steps? (?:is|are|would be|will be|:)|\bthe next (?:thing|task|piece|step)\b|"
    r"\bnext up\b|\bstill (?:need|needs|have|has) to\b|\bstill (?:missing|to do|todo|pending|"
    r"unimplemented|open)\b|\bremaining (?:work|tasks?|items?|steps?)\b|\bwhat(?:'s| is) left\b|"
    r"\bis left to\b|\bleft to do\b|\bnot (?:yet )?(?:implemented|wired(?: up)?|done|handled|"
    r"covered|hooked up|built)(?: yet)?\b|\bhaven'?t (?:yet )?(?:added|implemented|written|wired|"
    r"built|done|handled|migrated|touched|covered)\b|\b(?:is|are) (?:still )?(?:a )?(?:stubs?|"
    r"placeholders?)\b|\bin a follow[- ]up\b|\bfollow[- ]up (?:pr|task|work|change)\b|"
    r"\b(?:next|in the next) session\b|\b(?:should|need to|needs to|will|we'?ll|i'?ll|want to) "
    r"(?:\w+ ){1,8}next\b|\bTODO\b|\byet to be\b|\bafter that,? (?:we|i) (?:can|should|need)\b"
)
_NEXT_HEDGE = _cue(r"\b(?:maybe|perhaps|might|could|would be nice|if you want|optionally)\b")
# Root causes and fixes stated as found. Strong cues win over a decision in the same sentence;
# weak ones ("silently truncates", "that's why") only count when nothing else does.
_GOTCHA = _cue(
    r"\broot[ -]cause\b|\bturn(?:s|ed) out\b|\b(?:was|were|is|are) (?:actually )?caused by\b|"
    r"\bthe (?:actual |real |underlying )?(?:fix|solution|workaround) (?:was|is|turned out)\b|"
    r"\bthe (?:actual |real |underlying )?(?:problem|issue|bug|culprit|cause) (?:was|is)\b|"
    r"\b(?:fails?|failed|failing|breaks?|broke|crashe[sd]|errors?(?:ed)? out|hangs?|hung|"
    r"timed out|times out) (?:\w+ ){0,4}because\b|\bthe culprit\b|"
    r"\bfixed (?:it|this|that|the \w+(?: \w+)?) by\b|\bfix(?:ed)? was to\b|"
    r"\bthe reason (?:it|this|that|the \w+) (?:failed|fails|broke|breaks|was failing)\b|"
    r"\bwas the cause\b|\bbecause of (?:a|an|the) (?:bug|race|typo|missing|stale|wrong)\b"
)
_GOTCHA_WEAK = _cue(
    r"\bthat'?s why\b|\bwhich (?:is|was) why\b|\bwas (?:silently )?(?:swallowing|truncating|"
    r"dropping|ignoring)\b|\bsilently (?:truncates|drops|ignores|swallows|fails|returns)\b|"
    r"\bgotcha\b|\bwatch out\b|\bbeware\b|\bthe trick (?:was|is)\b"
)
_DECISION = _cue(
    r"\b(?:i|we)(?:'ve| have)?\s+(?:finally |ultimately |eventually )?(?:chose|chosen|picked|"
    r"opted (?:for|to)|went with|gone with|decided (?:to|on|against)|settled on|standardi[sz]ed on|"
    r"ended up (?:using|going with|with)|switched (?:\w+ ){0,5}(?:to|from)|replaced (?:\w+ ){0,5}"
    r"with|moved (?:\w+ ){0,5}(?:to|from|off)|kept (?:\w+ ){0,5}(?:instead|rather|over|because))\b|"
    r"\b(?:i|we)(?:'ll| will| are going to|'re going to|'m going to| am going to)\s+(?:use|go with|"
    r"stick with|keep|adopt)\b(?=.*\b(?:because|since|instead of|rather than|over|so that|as it|"
    r"as they|given)\b)|"
    r"^(?:let'?s|we'?ll) (?:use|go with|stick with|keep)\b|"
    r"^(?:chose|picked|went with|opted for|switched (?:\w+ ){0,5}to|settled on|decided to)\b|"
    r"\bthe decision (?:was|is) to\b|\bi(?:'m| am) going with\b|\bwe'?re going with\b|"
    r"\b(?:using|uses|use) \S+(?: \S+){0,4} (?:instead of|rather than|over) \S+(?: \S+){0,6} "
    r"(?:because|since|as|so)\b|\bin favou?r of\b"
)
_PREREQ = _cue(
    r"\b(?:need|needs|require|requires|required|must have|must be|has to be|have to be)\b.{0,80}"
    r"\b(?:set|exported|installed|running|started|up|available|configured|defined|present|"
    r"logged in|on (?:the )?path|reachable)\b|"
    r"\bmake sure (?:that )?.{1,80}\b(?:is|are)\s+(?:\w+ )?(?:running|installed|set|started|up|"
    r"exported|configured|available|reachable)\b|"
    r"\b(?:you'?ll|you will|you) (?:need|have) to (?:install|set|export|start|run|have|create|"
    r"configure|log in|add)\b|\brequires? (?:python|node|postgres|postgresql|redis|docker|java|"
    r"ruby|go|rust|a running|an? \S+ (?:server|service|daemon|instance|database))\b|"
    r"\b(?:before|to) (?:running|run) (?:the )?(?:tests?|suite|app|server|migrations?)\b.{0,60}"
    r"\b(?:start|run|install|set|export|create)\b|"
    r"\b(?:must|needs? to|has to|have to) be (?:installed|running|set|started|exported|configured)\b|"
    r"\bprerequisites?\b|\b(?:apt(?:-get)?|brew|dnf|yum|apk) install\b|"
    r"\bonly (?:works|runs|passes) (?:with|when|if)\b|\bdepends? on .{1,60}\b(?:running|installed|"
    r"being set)\b"
)
_ENV_VAR_RE = re.compile(r"\$?\b[A-Z][A-Z0-9]*_[A-Z0-9_]*[A-Z0-9]\b")
_ENV_VERB = _cue(
    r"\b(?:set|export|needs?|requires?|required|must|define|provide|point(?:s|ing)? at|"
    r"configured?|missing|unset|\.env)\b"
)
_PREREQ_THING = _cue(
    r"\b(?:redis|postgres(?:ql)?|mysql|docker|database|db|server|service|daemon|env(?:ironment)? "
    r"var(?:iable)?s?|python|node|npm|pnpm|yarn|ffmpeg|lib\w+-dev|openssl|cli|toolchain|sdk|"
    r"migrations?|\.env|api key|token|credentials|stripe|localstack|minio|rabbitmq|kafka|"
    r"elasticsearch|chrome|playwright|browser|java|jdk|ruby|gcc|make|cmake|package|binary|"
    r"extension|container|compose)\b"
)
_NEEDED = _cue(
    r"\b(?:must|need|needs|needed|require|requires|required|make sure|has to|have to|before|"
    r"without)\b"
)
_PREREQ_NARRATION = _cue(
    r"\b(?:i|we)(?:'ve| have)? (?:set|installed|started|exported|added|configured)\b"
)


def _classify(unit: _Unit, masks: _Masks, last_block: int) -> MinedKind | None:
    if unit.label is not None:
        return unit.label
    text = _plain(unit.text)
    if not text:
        return None
    if text.endswith("?"):
        return _question(unit, text, last_block)
    if unit.section is not None and unit.item:
        return unit.section
    if _NARRATION.search(text):
        return None
    if _LET_ME_KNOW.search(text):
        return "question"
    if _QUESTION_OPEN.search(text) and not _RESOLVED.search(text):
        return "question"
    if _NEXT.search(text) and not _NEXT_HEDGE.search(text):
        return "next_step"
    hedged = _HEDGE.search(text) is not None
    if hedged:
        return None
    if _GOTCHA.search(text):
        return "gotcha"
    if _DECISION.search(text):
        return "decision"
    if _GOTCHA_WEAK.search(text):
        return "gotcha"
    if _is_prerequisite(text, masks, unit.text):
        return "prerequisite"
    return None


def _question(unit: _Unit, text: str, last_block: int) -> MinedKind | None:
    words = text.split()
    if len(words) < 3 or _NARRATION.search(text):
        return None
    if unit.section == "question" or unit.block == last_block or _ASK_USER.search(text):
        return "question"
    if _QUESTION_OPEN.search(text):
        return "question"
    return None


def _is_prerequisite(text: str, masks: _Masks, masked: str) -> bool:
    needed = _NEEDED.search(text) is not None
    if _PREREQ_NARRATION.search(text) and not needed:
        return False  # "I've set REDIS_URL in .env": what was done, not what is needed
    env_var = _env_var(masked, masks)
    if _PREREQ.search(text) and (env_var or _PREREQ_THING.search(text)):
        return True
    return env_var and needed and _ENV_VERB.search(text) is not None


def _env_var(masked: str, masks: _Masks) -> bool:
    plain = _PLACEHOLDER_RE.sub(" ", masked)
    if _ENV_VAR_RE.search(plain):
        return True
    return any(_ENV_VAR_RE.fullmatch(code.lstrip("$").split("=")[0]) for code in masks.code(masked))


# ---- text ------------------------------------------------------------------------------------
# ``__`` is emphasis only around words with a space between (``__init__.py`` stays as it is).
_EMPHASIS_RE = re.compile(
    r"(\*\*)(?=\S)(.+?)(?<=\S)\*\*|(?<!\w)(__)(?=\S)(?=[^_\n]* )(.+?)(?<=\S)__(?!\w)"
)
_ITALIC_RE = re.compile(r"(?<![\w*])\*(?=[^\s*])([^*]+?)(?<=[^\s*])\*(?![\w*])")
_LINK_RE = re.compile(r"!?\[([^\]\n]*)\]\([^)\s]*\)")
_LEADING_RE = re.compile(r"^(?:[-*+>#]|\d{1,3}[.)])\s+")


def _unbold(text: str) -> str:
    return _EMPHASIS_RE.sub(lambda m: m.group(2) if m.group(1) else m.group(4), text)


def _plain(masked: str) -> str:
    """The masked unit as cue phrases see it: emphasis, links and list markers gone."""
    text = _LINK_RE.sub(r"\1", masked)
    text = _ITALIC_RE.sub(r"\1", _unbold(text))
    return _WS_RE.sub(" ", text).strip()


def _clean(text: str) -> str:
    """One readable line: ``code`` spans kept, ** and __ emphasis removed, at most 300 chars."""
    text = _WS_RE.sub(" ", text).strip()
    text = _LINK_RE.sub(r"\1", text)
    parts = re.split(r"(`+[^`]*`+)", text)
    for index in range(0, len(parts), 2):
        parts[index] = _ITALIC_RE.sub(r"\1", _unbold(parts[index])).replace("**", "")
    text = "".join(parts)
    while _LEADING_RE.match(text):
        text = _LEADING_RE.sub("", text, count=1)
    text = text.strip(" \t-—:")
    if len(text) > TEXT_MAX_CHARS:
        cut = text[: TEXT_MAX_CHARS - 1]
        space = cut.rfind(" ")
        text = (cut[:space] if space > TEXT_MAX_CHARS // 2 else cut).rstrip(" ,;:") + "…"
    return text
