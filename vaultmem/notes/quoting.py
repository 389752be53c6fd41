"""Text from the vault or a tool quoted into Claude's context as data, never as orders. Pure.

Every hook that injects context (the briefing, and the hooks that speak later in a session) quotes
through here, so one rule holds everywhere:

- :func:`data_block` fences lines as data; no line inside can close the fence (a line that would
  open or close a fence, of backticks or tildes of any length, is escaped, and the fence is longer
  than any tilde run inside);
- :func:`error_signature` is all a tool's output (text a third party controls) may add: its first
  error line, short, on one line, and nothing at all when it reads like orders for the model;
- :func:`command_shape` is how a command that failed is named: cut short, and only its program
  when the rest reads like orders;
- :func:`instruction_shaped` says whether text addresses the model ("ignore previous
  instructions", "you must", "IMPORTANT:", ``<system>``...), after folding the tricks that hide it
  (compatibility forms, zero-width characters).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

from vaultmem.notes.inline import clip, without_escapes
from vaultmem.notes.lazyre import lazy

SIGNATURE_CHARS = 120
COMMAND_CHARS = 100
WITHHELD = "(left out: it reads like instructions)"

# Up to three spaces then three backticks or tildes: CommonMark's fence. Any indentation is
# escaped too, since a model reading raw text does not count spaces.
_FENCE_LINE = lazy(r"^(\s*)(`{3,}|~{3,})")
_TILDES = lazy(r"~+")
_HIDDEN = lazy(r"[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f"
               r"\u202a-\u202e\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0]")
_SPACE_RUN = lazy(r"\s+")
_BREAKS = lazy(r"[\x00-\x1f\x7f\x85\u2028\u2029]")
# Words that address the model rather than describe a failure. Kept narrow enough that an
# ordinary error line ("you must be root", "error: must specify") does not trip it: most need a
# second word that only an order carries.
_ORDERS = lazy(
    r"(?:\b(?:ignore|disregard|forget|override|bypass|skip)\s+(?:all\s+|any\s+|the\s+|your\s+|"
    r"every\s+|of\s+)*(?:previous|prior|above|earlier|preceding|former|existing|system|"
    r"original|safety)\b"
    r"|\b(?:new|updated|real|actual|hidden|secret)\s+(?:instructions?|orders|directives?|rules|"
    r"task|system\s+prompt)\b"
    r"|\bsystem\s*prompt\b"
    r"|\byou\s+(?:must|should|shall|need\s+to|have\s+to|are\s+(?:now|required|instructed)|"
    r"will\s+now|may\s+now|are\s+an?\b)"
    r"|\b(?:important|attention|urgent|note\s+to\s+(?:the\s+)?(?:ai|assistant|model|claude|llm)|"
    r"instructions?|system|admin(?:istrator)?|developer)\s*[:!]"
    r"|\b(?:as\s+an?\s+(?:ai|assistant|language\s+model))\b"
    # "Claude, run …" addresses the model; "claude: command not found" is a shell's error.
    r"|\b(?:claude|assistant|ai\s+agent|the\s+model|llm|chatgpt|gpt)\s*,\s*(?:please\s+)?\w+"
    r"|\b(?:do\s+not|don'?t|never)\s+(?:tell|inform|mention|reveal|show|ask|warn)\b"
    r"|\bfrom\s+now\s+on\b"
    r"|\b(?:run|execute|paste|type)\s+(?:the\s+)?(?:following|this)\s+(?:command|code|script)\b"
    r"|\b(?:pretend|act)\s+(?:to\s+be|as\s+(?:if|an?|the))\b"
    r"|\bjailbreak\b|\bprompt\s+injection\b"
    r"|</?\s*(?:system|assistant|user|human|instructions?|important|prompt|admin|tool_result|"
    r"function_calls?|antml)[^<>]{0,40}>"
    r"|<\|[a-z_]*\|>|\[/?(?:INST|SYS)\]|<<\s*/?SYS\s*>>"
    r"|(?:^|\n)\s*(?:human|assistant|system|user)\s*:)",
    re.IGNORECASE,
)


def fence_safe(line: str) -> str:
    """``line``, escaped when it would open or close a fenced block (``` or ~~~ of any
    length, however indented): a backslash before its first fence character."""
    found = _FENCE_LINE.match(line)
    return f"{found.group(1)}\\{line[found.end(1):]}" if found else line


def data_block(lines: str | Iterable[str], info: str = "text") -> str:
    """``lines`` as a fenced block labelled ``info`` that nothing inside can close: fence lines
    escaped, the fence (tildes) longer than any tilde run inside."""
    body = lines if isinstance(lines, str) else "\n".join(lines)
    body = "\n".join(fence_safe(line) for line in body.split("\n"))
    longest = max((len(run) for run in _TILDES.findall(body)), default=0) if "~" in body else 0
    fence = "~" * max(3, longest + 1)
    return f"{fence}{info}\n{body}\n{fence}"


def folded(text: str) -> str:
    """``text`` as a reader sees it: compatibility forms folded (fullwidth, ligatures), zero-width
    and direction marks dropped, whitespace runs one space."""
    text = unicodedata.normalize("NFKC", text)
    return _SPACE_RUN.sub(" ", _HIDDEN.sub("", text))


def instruction_shaped(text: str) -> bool:
    """Whether ``text`` addresses the model with orders (prompt-injection shapes)."""
    return _ORDERS.search(folded(without_escapes(text))) is not None


def error_signature(output: str, max_chars: int = SIGNATURE_CHARS) -> str:
    """The most a tool's output may say in injected context: its first error line (else its first
    line with words), on one line, at most ``max_chars``; :data:`WITHHELD` when that line, or the
    output around it, reads like orders for the model."""
    text = without_escapes(output)
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if not lines:
        return ""
    head = "\n".join(lines[:40])
    if instruction_shaped(head) or instruction_shaped(text[:4000]):
        return WITHHELD
    first = next((line for line in lines[:40] if _is_error_line(line)), lines[0])
    return clip(_flat(first), max_chars, words=False)


def command_shape(command: str, max_chars: int = COMMAND_CHARS) -> str:
    """A command named in injected context: one line, at most ``max_chars``; only its program
    and an ellipsis when the rest reads like orders."""
    line = _flat(without_escapes(command)).strip()
    if instruction_shaped(command):
        program = line.split(" ", 1)[0]
        return clip(program, min(max_chars, 40), words=False) + " …"
    return clip(line, max_chars, words=False)


_ERROR_WORDS = lazy(r"\b(?:error|exception|fail(?:ed|ure)?|fatal|denied|not\s+found|no\s+such|"
                    r"cannot|can't|unable|invalid|refused|timed?\s*out|traceback|panic)\b|^E\s",
                    re.IGNORECASE)


def _is_error_line(line: str) -> bool:
    return _ERROR_WORDS.search(line) is not None


def _flat(text: str) -> str:
    # One line, its spacing kept (an error's "E   " indent is part of its look).
    return _BREAKS.sub(" ", text)
