"""What the person ran themselves, outside Claude's turns (pure).

Claude Code records two things the person runs at its prompt without asking Claude:
- a shell command in its shell mode (``! git status``): a user line ``<bash-input>git
  status</bash-input>``, then one with ``<bash-stdout>…</bash-stdout><bash-stderr>…</bash-stderr>``
  (the output goes into Claude's context for the next prompt; older versions write both in one
  line);
- a slash command that runs locally (``/cost``, ``/context``, ``/model``): a line (``user``, or
  ``system`` with subtype ``local_command``) holding ``<command-name>/cost</command-name>`` with
  no arguments, then one with ``<local-command-stdout>…</local-command-stdout>`` (or
  ``-stderr``).

What the person saw there is part of the session's story (a test run's failure they pasted no
word of, what ``/cost`` said), so the session note keeps it (``workentry``): each command as one
``- You ran …`` line with the first line of what it printed, and the output whole in a folded
aside when one line cannot hold it. A slash command without arguments that Claude then works on
(a custom command, a skill: ``/init``) ran no output; ``ingest`` makes it the turn's prompt.

Kept only when it says something: the session's bookkeeping (``/clear``, ``/compact``,
``/exit``, ``/resume``…, whose effect the note records otherwise) never (``transcript`` passes
over such a command and the output after it), a local command's
output of fewer than ``SAID_WORDS`` words ("Login successful", "See ya!") neither; a shell
command always (the person chose to run it). Terminal escape codes are taken out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from vaultmem.claude import records
from vaultmem.notes.inline import without_escapes
from vaultmem.notes.lazyre import lazy

SAID_WORDS = 4  # words a local command's output holds at least to say something
# Slash commands that only steer the session: the note says what they did (a new session, a
# compaction, its end) or they change nothing the next session needs.
BOOKKEEPING = frozenset({
    "/clear", "/compact", "/exit", "/quit", "/resume", "/rewind", "/login", "/logout",
    "/rate-limit-options", "/vim", "/theme", "/terminal-setup", "/help", "/config",
})
_TAG = r"<({tags})\b[^>]*>(.*?)</\1\s*>"
_SHELL = lazy(_TAG.format(tags="bash-input|bash-stdout|bash-stderr"), re.DOTALL | re.IGNORECASE)
_LOCAL_OUT = lazy(_TAG.format(tags="local-command-stdout|local-command-stderr"),
                  re.DOTALL | re.IGNORECASE)
_WORD = lazy(r"[^\W_]{2,}")


@dataclass(frozen=True)
class Console:
    """A command the person ran (``! git status``, ``/cost``), or only what one printed
    (``command`` None: its output came in a line of its own), or only the command (``output``
    None: its output, if any, comes in a later line; ``""``: it printed nothing)."""

    command: str | None
    output: str | None = None

    @property
    def shell(self) -> bool:
        """Whether it ran in the shell mode (``!``), rather than as a slash command."""
        return (self.command or "").startswith("!")


def parse(text: str) -> Console | None:
    """The command and the output a user (or ``local_command`` system) line's text holds, private
    text already out; None when it holds neither (a prompt, a slash command with arguments: a
    prompt too)."""
    low = text.lower()
    if "<bash-" in low:
        return _shell(text)
    command = None
    if "<command-name" in low:
        named = records.slash_command(text)
        if named is None or named[1]:
            return None  # "/review the auth module": what the person asked, a prompt
        command = named[0]
    output = _printed(_LOCAL_OUT.findall(text)) if "<local-command-std" in low else None
    if command is None and output is None:
        return None
    return Console(command, output)


def bookkeeping(console: Console) -> bool:
    """Whether ``console`` names a slash command that only steers the session (``/compact``)."""
    return (console.command or "").casefold() in BOOKKEEPING


def kept(console: Console) -> bool:
    """Whether ``console`` says something the session note keeps (see the module docstring)."""
    if console.shell:
        return True
    return not bookkeeping(console) and len(_WORD.findall(console.output or "")) >= SAID_WORDS


def _shell(text: str) -> Console:
    parts = _SHELL.findall(text)
    typed = " ".join(" ".join(body.split()) for tag, body in parts if tag.lower() == "bash-input")
    outputs = [(tag, body) for tag, body in parts if tag.lower() != "bash-input"]
    return Console(f"! {typed}" if typed else None, _printed(outputs) if outputs else None)


def _printed(parts: list[tuple[str, str]]) -> str:
    """What the command printed: its output, then its errors, escape codes out ("" when
    nothing)."""
    bodies = [without_escapes(body).strip("\n").rstrip() for _, body in parts]
    return "\n".join(body for body in bodies if body.strip())
