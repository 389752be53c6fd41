"""Where the last session left its work in git (pure; issue 29): the branch it pushed, the commit
it made, the pull request it opened, as its answers say it ("Committed `3f2a1b9` and pushed to
`feature/login`", "Opened PR #42", "The changes are on the branch, not on main yet").

After "what happened", the next morning asks "where is it": a branch to check out, a pull
request to review, a commit to build on. An answer names them in a sentence or a recap point,
often one the briefing has no room for (a "commit" turn in the middle of the session): the
briefing says them in the last session's block.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from vaultmem.mining.telling import information
from vaultmem.notes.facts import copy_key
from vaultmem.notes.lazyre import lazy

from . import briefrank
from .digest import SessionDigest
from .worklog import Turn

PIECE_MAX_CHARS = 160  # a longer piece is a paragraph about git, not a statement of where
# What says where the work stands in git: a push, a commit (a hash, commits on or ahead of a
# branch), a branch it is on, a pull request opened, a merge into the main line.
_PLACED = lazy(
    r"\b(?:force[- ])?pushed\b|\bcommitted\b|\bcommit:?\s*`?(?=[a-f]*\d)[0-9a-f]{7,40}\b|"
    r"\bcommits? (?:on|ahead|to)\b|\b(?:on|to|in) (?:the |your |a |its )?(?:[\w-]+ )?branch\b|"
    r"\bbranch:|\b(?:opened|created|raised|submitted)\s+(?:a\s+|the\s+)?(?:draft\s+)?"
    r"(?:PR|pull request|merge request|MR)\b|\b(?:PR|MR|pull request|merge request)\s*#?\d+|"
    r"/pull/\d+|/merge_requests/\d+|\bmerged\b.*\b(?:main|master|trunk|develop|branch)\b",
    re.IGNORECASE)
# A word each of those holds (case-folded): an answer without any says nothing of git.
_GIT_WORDS = ("push", "commit", "branch", "pull", "merge", "pr ", "pr#", "pr #", "pr.", "pr,", "pr:",
              "mr ", "mr #", "mr.")
# What finds it: a name in code, a commit hash, a pull request number, a URL, a branch path.
_NAME = lazy(r"`[^`\n]*[^`/\n]`|(?<![\w/])(?=[a-f]*\d)[0-9a-f]{7,40}(?![\w/])|#\d+\b|https?://\S+|"
             r"\b\w[\w.-]*/[\w./-]*\w")
_MARKS = lazy(r"\*\*|__")


def _pieces(t: Turn) -> list[str]:
    """The turn's answer as statements: its line's sentences and recap points, then the points
    of its recap beyond the line."""
    lead, _, points = t.answer.partition(" — ")
    out = [*briefrank.sentences(lead), *(points.split("; ") if points else ()), *t.details]
    pieces = (_MARKS.sub("", p).strip().rstrip(".") for p in out)
    return [p for p in pieces if p and not p.endswith("?")]  # a question asks, says nowhere


def _once(pieces: Iterable[str]) -> list[str]:
    """The pieces but one whose telling words an earlier one all tells ("Committed & Pushed!"
    after "Everything is committed and pushed to your branch")."""
    out: list[str] = []
    told: set[str] = set()
    for piece in pieces:
        said = set(information(piece))
        if said and said <= told:
            continue
        out.append(piece)
        told |= said
    return out


def where_left(s: SessionDigest, shown: Iterable[str] = ()) -> list[str]:
    """The newest answer of ``s`` that says where its work is in git, naming it (a branch, a
    commit, a pull request): its time and its statements of where, on one line; after it, a
    newer answer's statement of where that names nothing ("your changes are on the branch,
    NOT on main yet"). Empty when no answer names where, or ``shown`` (lines the briefing
    says anyway) holds every statement already."""
    newer: list[str] = []
    for t in reversed(s.turns):
        # Most answers say nothing of git: told by a word, without splitting them or compiling
        # the patterns (SessionStart pays for every one).
        said = f"{t.answer} {' '.join(t.details)}".casefold()
        if not any(word in said for word in _GIT_WORDS):
            continue
        placed = [p for p in _pieces(t) if len(p) <= PIECE_MAX_CHARS and _PLACED.search(p)]
        if not any(_NAME.search(p) for p in placed):
            if placed and not newer:
                newer = [f"{t.time} {placed[0]}".strip()]
            continue
        said = " | ".join(copy_key(line) for line in shown)
        kept = [p for p in _once(placed) if copy_key(p) not in said]
        if not kept:
            return []
        line = f"{t.time} {'; '.join(kept)}".strip()
        return [line, *(n for n in newer if copy_key(n) not in said)]
    return []
