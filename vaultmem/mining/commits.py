"""A commit message -> the decisions its body states with their reasons (pure; issue 28).

A commit's subject is kept as a ``Committed:`` line of the work log (``claude/stated.py``) and
what its body lists as such ("Setup required:", "TODO:") as those kinds (``answers.mine_listed``).
The body also says what changed and why, in the commit's own words, often nowhere else in the
transcript:

    Update gitleaks config and sync 6 new conversations

    Exclude Archives/*.jsonl from gitleaks scanning to reduce false positives from Claude API
    signatures. All sensitive data is redacted by sync scripts before archiving.

A line of the body (a top-level bullet, or a sentence of a paragraph) is a decision when it
opens on a change made (``Exclude``, ``Added``, ``Switch … to``, ``Renamed``, …) and gives its
reason or the way not taken: ``to`` and a verb of purpose (``to reduce …``, ``to avoid …``;
not ``Add X to the allowlist``), ``so that``, ``because``, ``since``,
``instead of``, ``rather than``. A change without its reason ("Add pytest configuration in
pyproject.toml") or to the docs only ("Update README.md to reflect …") is the diff's business,
not a decision; a trailer
(``Co-Authored-By:``), a heading line ("Changes:") and a line of a sub-list are never one. At
most :data:`PER_COMMIT` decisions a commit, in the body's order.
"""

from __future__ import annotations

from vaultmem.notes.inline import clip, one_line
from vaultmem.notes.lazyre import lazy

PER_COMMIT = 3  # decisions one commit gives at most
TEXT_MAX_CHARS = 300  # of one decision (an entity line's room)
MIN_WORDS = 5  # of a line that states a change and its reason

# A change made, opening the line: imperative or past ("Exclude", "Added", "Switched").
_CHANGE = (
    r"(?:add|use|switch|exclude|include|replace|move|rename|make|set|change|update|drop|remove|"
    r"keep|enable|disable|fix|configure|create|split|merge|pin|bump|raise|lower|limit|restrict|"
    r"allow|ignore|skip|mark|wrap|store|cache|run|default|require|introduce|adopt|migrate|"
    r"convert|rewrite|refactor|extract|separate|revert|stop|start|lock|redact|filter|exclude)"
    r"(?:s|es|d|ed|ped|ted)?"
)
_OPENS_ON_CHANGE = lazy(rf"(?i)^(?:also |now |then )?{_CHANGE}\b")
# Its reason or the way not taken. "to" leads a reason only with a verb of purpose ("to reduce
# false positives"): "Add X to the allowlist", "Bump Y to 1.2" name where, not why.
_PURPOSE = (
    r"(?:reduce|avoid|prevent|keep|allow|make|ensure|support|reflect|match|handle|improve|speed|"
    r"simplify|cut|stop|fix|catch|protect|preserve|save|let|help|cover|detect|block|limit|free|"
    r"force|guarantee|eliminate|minimi[sz]e|clarify|distinguish|separate|isolate|unblock|silence|"
    r"suppress|work around|mirror|follow|comply|satisfy|meet|fit|honou?r|respect|survive|"
    r"tolerate|decouple|share|reuse|standardi[sz]e|unify|align|resolve|address|account for|"
    r"drop|remove|skip|ignore|filter|exclude|hide|shorten|stay|remain|auto-\w+)"
)
_REASON = lazy(
    r"(?i)\b(?:so that|because|since|instead of|rather than|in favou?r of|in order to)\b|"
    rf"\bto (?:(?:better|fully|properly|correctly|consistently|only|always|never|not) )?"
    rf"{_PURPOSE}\b")
# A change to the docs only ("Update README.md to reflect the new structure"): the diff's news.
_DOCS = lazy(r"(?i)\.md\b|\breadme\b|\bdocs?\b|\bdocumentation\b|\bchangelog\b|\bcomments?\b")
_TRAILER = lazy(r"(?i)^(?:co-authored-by|signed-off-by|reviewed-by|change-id|refs?|fixes|closes)"
                r"\s*:|^🤖|^generated with\b")
_BULLET = lazy(r"^(?P<indent>[ \t]*)(?:[-*+•]|\d{1,3}[.)])\s+")
_DECOR = lazy(r"\*\*|__|^[^\w`\"'(]+")
_SENTENCE_END = lazy(r"(?<=[.!])\s+(?=[A-Z])")


def decisions(message: str | None) -> tuple[str, ...]:
    """The decisions the body of a commit ``message`` states with their reasons (see the
    module), at most :data:`PER_COMMIT`."""
    if not message:
        return ()
    found: list[str] = []
    for line in _lines(message):
        for said in _SENTENCE_END.split(line):
            text = _DECOR.sub("", said).strip()
            if _decides(text) and text not in found:
                found.append(clip(text, TEXT_MAX_CHARS, words=False))
        if len(found) >= PER_COMMIT:
            break
    return tuple(found[:PER_COMMIT])


def _lines(message: str) -> list[str]:
    """The body's top-level bullets and paragraphs, each one line (sub-bullets and the subject
    left out; the body ends at its first trailer)."""
    body = message.strip().split("\n")[1:]
    out: list[list[str]] = []
    open_item = False
    for raw in body:
        if _TRAILER.match(raw.strip()):
            break
        if not raw.strip():
            open_item = False
            out.append([])
            continue
        bullet = _BULLET.match(raw)
        if bullet is not None:
            top = not bullet.group("indent")
            open_item = top
            if top:
                out.append([raw[bullet.end():]])
            continue
        if raw[:1].isspace() and not open_item:
            continue  # a sub-bullet's continuation
        if out and out[-1] is not None and (open_item or out[-1]):
            out[-1].append(raw.strip())
        else:
            out.append([raw.strip()])
    return [one_line(" ".join(parts)) for parts in out if parts]


def _decides(text: str) -> bool:
    if len(text.split()) < MIN_WORDS or text.endswith(":") or not _OPENS_ON_CHANGE.search(text):
        return False
    reason = _REASON.search(text)
    return reason is not None and _DOCS.search(text[: reason.start()]) is None
