"""Text a person marked private, and Claude Code's own tags, removed before anything leaves a note.

Pure. ``<private>…</private>`` spans never reach entity notes, the briefing, the search index or
file names. The rules, shared by every reader (one tokenizer, three shapes of output):

- tags are matched in any case, with attributes (``<PRIVATE class="x">``, ``</private >``);
- nesting is balanced: ``<private>a <private>b</private> SECRET </private>`` removes all of it;
- a span left open stays private to the end of the text (or, streaming, of the next messages);
- a closing tag with no span open is dropped (it is markup, not text).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from vaultmem.notes.lazyre import lazy

_TAG_RE = lazy(r"<(/?)private\b[^>]*>", re.IGNORECASE)
# Claude Code's own tags and the wrappers an IDE extension or a hook adds around what the person
# typed (``<ide_opened_file>``, ``<ide_selection>``…, a UserPromptSubmit hook's output, the ``!``
# shell's input and output): never the prompt (claude/records.py, its catalogue).
_NOISE_TAG = (r"system-reminder|command-[\w-]+|local-command-[\w-]+|ide_[\w-]+|"
              r"user-prompt-submit-hook|bash-(?:input|stdout|stderr)")
_NOISE_RE = lazy(rf"<({_NOISE_TAG})\b[^>]*>.*?(?:</\1\s*>|\Z)", re.IGNORECASE | re.DOTALL)
_STRAY_NOISE_RE = lazy(rf"</?(?:{_NOISE_TAG})\b[^>]*>", re.IGNORECASE)
_SPACES_RE = re.compile(r"\s+")


def _pieces(text: str, depth: int) -> Iterator[tuple[str, bool]]:
    """``(piece, public)`` in order, starting inside ``depth`` open spans; tags are never public."""
    pos = 0
    for match in _TAG_RE.finditer(text):
        if match.start() > pos:
            yield text[pos : match.start()], depth == 0
        closing = match.group(1) == "/"
        if not closing:
            depth += 1
        elif depth:
            depth -= 1
        yield match.group(0), False
        pos = match.end()
    if pos < len(text):
        yield text[pos:], depth == 0


def _depth_after(text: str, depth: int) -> int:
    for match in _TAG_RE.finditer(text):
        if match.group(1) != "/":
            depth += 1
        elif depth:
            depth -= 1
    return depth


def strip_private(text: str) -> str:
    """``text`` with every private span and private tag removed (balanced, unclosed to the end)."""
    if "<" not in text:
        return text
    return "".join(piece for piece, public in _pieces(text, 0) if public)


def blank_private(text: str) -> str:
    """Like strip_private, but each removed piece leaves its line breaks, so line numbers stay
    file-absolute (compaction reads headings and links from the result)."""
    if "<" not in text:
        return text
    return "".join(piece if public else "\n" * piece.count("\n") for piece, public in _pieces(text, 0))


def private_parts(text: str) -> list[str]:
    """The texts inside private spans (tags left out), in order."""
    if "<" not in text:
        return []
    return [piece for piece, public in _pieces(text, 0)
            if not public and not _TAG_RE.fullmatch(piece)]


def has_private(text: str) -> bool:
    """Whether ``text`` holds a private tag (open or closing)."""
    return _TAG_RE.search(text) is not None


class PrivateStream:
    """strip_private over a sequence of messages: a span opened in one message and closed in a
    later one stays private in between. ``depth`` (open spans) can be stored and passed back in."""

    def __init__(self, depth: int = 0) -> None:
        self.depth = max(0, depth)

    @property
    def inside(self) -> bool:
        """Whether the text fed so far left a private span open."""
        return self.depth > 0

    def feed(self, text: str) -> str:
        """The public part of the next message."""
        if "<" not in text:
            return "" if self.depth else text
        public = "".join(piece for piece, is_public in _pieces(text, self.depth) if is_public)
        self.depth = _depth_after(text, self.depth)
        return public


def clean_prompt(text: str) -> str | None:
    """Prompt text without private text and Claude Code's tags, whitespace collapsed; None if empty."""
    return clean_text(strip_private(text))


def strip_wrappers(text: str) -> str:
    """``text`` without Claude Code's tags and wrappers and what they wrap (a tool's output ends
    in a ``<system-reminder>`` to the model: never the output's words), lines kept."""
    if "<" not in text:
        return text
    return _STRAY_NOISE_RE.sub("", _NOISE_RE.sub("", text))


def clean_text(text: str) -> str | None:
    """Text already stripped of private spans, without Claude Code's tags, whitespace collapsed."""
    text = _STRAY_NOISE_RE.sub("", _NOISE_RE.sub("", text))
    text = _SPACES_RE.sub(" ", text).strip()
    return text or None
