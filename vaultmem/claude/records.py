"""The record kinds Claude Code writes into a transcript, and what vaultmem takes from each (pure).

One home for the vocabulary: the top-level ``type`` of a JSONL line, the ``subtype`` of a
``system`` line, and the wrappers Claude Code and the IDE extensions put around what the person
typed. :mod:`transcript` reads the lines with it; a kind that is in none of these tables is
skipped and counted (:func:`unknown_kind`), never pasted into a note.

Claude Code writes each session to `~/.claude/projects/<folder>/<session id>.jsonl`, one JSON
object per line, from the CLI, the IDE extensions (VS Code, JetBrains) and the web alike. The hooks
give vaultmem its path; vaultmem reads the lines it has not recorded yet. This is the catalogue of
the record kinds found in real transcripts (the six public-domain sessions the bench replays, the
Claude Code 2.1 transcript in `tests/fixtures/claude-code/`, and public transcripts and readers of
the format), and what vaultmem takes from each: the lists below read this module's tables out
for a person; `tests/test_records.py` replays one real-shaped line of every kind
(`tests/fixtures/claude-code/record-kinds.jsonl`) and checks every kind is named here.

**An unknown kind is skipped and counted, never pasted into a note**: a line whose `type` (or,
for a `system` line, `subtype`) is in none of the lists below gives nothing to the note, and the
session's entry in the state (`.vaultmem/hosts/<host>/state.json`, `"unknown": {"kind": lines}`)
counts it once, at most 20 kinds per session. A line that is not a JSON object is skipped too.
Lines of a sub-agent (`isSidechain: true`) are not the session's: skipped.

## Record types (`type`)

- `user`: what the person typed, a tool's result, or text Claude Code adds on their behalf. Takes:
  the prompt (wrappers removed, see below); each `tool_result` as the outcome of its call (failed
  or not, the first error line); the compact summary (below).
- `assistant`: Claude's reply: `text`, `thinking`, `tool_use` blocks. Takes: the prose of the
  `text` blocks (the turn's **final answer is kept whole**, see below); each `tool_use` (the
  command of `Bash`, the file of `Write`/`Edit`/`MultiEdit`/`NotebookEdit`/`Read`, the message of a
  `git commit`); `thinking` blocks are never read. A line flagged `isApiErrorMessage` (or reading
  like a usage-limit / API error notice) is Claude Code's notice, written as `- Stopped by Claude
  Code: …`, not an answer.
- `system`: Claude Code's own events, by `subtype` (below). Takes: `compact_boundary` only.
- `ai-title`: the title Claude Code generates for the session (`aiTitle`); may be rewritten later.
  Takes: the session's **title**: frontmatter `title` (the briefing's topic) and an entry of
  `aliases` (Obsidian and recall find the note by it).
- `custom-title`: the title the person gave the session (`customTitle`, `/rename`). Takes: the
  title, as `ai-title`; it beats an `ai-title` of the same read.
- `agent-name`: the agent's display name (`agentName`). Takes: nothing.
- `last-prompt`: the last prompt as typed (`lastPrompt`) and the leaf line's uuid. Takes: nothing:
  the user line holds the same prompt (and its private text, unstripped).
- `summary`: an older title record (`summary`, `leafUuid`). Takes: nothing: its leaf may be another
  session's line, and some hold an API error instead of a title.
- `attachment`: context Claude Code adds to a turn (`attachment.type`: `skill_listing`,
  `nested_memory`, `file`, `task_reminder`, `queued_command`, `agent_listing_delta`…). Takes:
  nothing: files, memory and listings, not what was said.
- `queue-operation`: a prompt typed while Claude works, queued (`enqueue` with `content`), sent
  (`dequeue`) or dropped (`remove`). Takes: nothing: a queued prompt that is sent arrives as its
  own `user` line.
- `file-history-snapshot`: file backups for `/rewind`. Takes: nothing.
- `progress`: a hook's or sub-agent's progress while a tool runs. Takes: nothing.
- `mode`, `permission-mode`: the session's mode and permission mode. Takes: nothing.

## `system` subtypes (`subtype`)

- `compact_boundary`: the context was compacted (`compactMetadata.trigger`: `auto` or `manual`).
  Takes: marks the next user line as the compact summary; the note gets a `Context compacted`
  entry.
- `turn_duration`: how long a turn took. Takes: nothing.
- `stop_hook_summary`: which Stop hooks ran. Takes: nothing.
- `api_error`: one retry of a failed API call. Takes: nothing: a turn that ends on the error has an
  `assistant` line flagged `isApiErrorMessage`.
- `local_command`: a slash command's echo or output (`<command-name>`, `<local-command-stdout>`).
  Takes: the command and what it printed, as for the user lines below.
- `informational`: a notice Claude Code showed. Takes: nothing.
- `away_summary`: a recap Claude Code shows after a pause. Takes: nothing: it restates turns the
  note records.

## Flags on `user` lines

- `isMeta`: text Claude Code adds for the model (a skill's body, the local-command caveat). Takes:
  nothing: no prompt.
- `isCompactSummary` (or the first user line after a `compact_boundary`): Claude Code's structured
  summary of the session so far. Takes: its sections as items (decisions, gotchas, next steps,
  outcome), and **the summary kept whole** in `## Compact Summaries` as a folded callout; never a
  prompt.
- `isSidechain`: a sub-agent's line. Takes: nothing.

## Wrappers inside a prompt's text

IDE extensions, slash commands and hooks put tagged text around (or instead of) what the person
typed. **Only what the person typed is the prompt**; a line that is only wrappers is no prompt
(no work-log entry, no session name). No wrapper reaches a note.

- `<ide_opened_file>`, `<ide_selection>`, `<ide_diagnostics>`, any `<ide_*>`: the file open in the
  IDE, the lines selected, the editor's diagnostics. Takes: nothing: removed with its content.
- `<command-name>`, `<command-message>`, `<command-args>`: a slash command. Takes: the command as
  typed when it has arguments (`/review the auth module`); without arguments (`/clear`, `/model`,
  `/compact`) nothing.
- `<command-name>` with no arguments then `<local-command-stdout>`, `<local-command-stderr>`: a
  local command (`/cost`, `/context`) and its output. Takes: a `- You ran` line in the work log,
  with the first line printed and the output whole folded below, when the output has at least 4
  words and the command is not bookkeeping (`/clear`, `/compact`, `/exit`…: `console.py`); a
  command without arguments Claude then works on (`/init`, a custom command) is the prompt.
  `<local-command-caveat>`: the caveat before the output. Takes: nothing.
- `<system-reminder>`: Claude Code's reminders to the model. Takes: nothing.
- `<user-prompt-submit-hook>`: a UserPromptSubmit hook's output added to the prompt (vaultmem's
  own, too). Takes: nothing.
- `<bash-input>`, `<bash-stdout>`, `<bash-stderr>`: a command the person ran in the `!` shell
  mode, and its output. Takes: a `- You ran `! command`` line, with the first line printed, the
  output whole folded below; never a prompt.
- `<task-notification>` (`<task-id>`, `<tool-use-id>`, `<status>`, `<summary>`…): a background
  command ended. Takes: the outcome of the command it names (passed, or failed with its summary);
  no entry, never the session's name.
- `[Request interrupted by user]`, `[Request interrupted by user for tool use]`: the person stopped
  the turn (as a `tool_result`: the call never ran). Takes: nothing as a prompt; a call it stopped
  is a call not run, not a failure; a last turn stopped so, Claude saying nothing after, leaves
  its prompt (and what Claude had found) as the open next step, until the next prompt.
- `<private>`: the person's own marker. Takes: removed everywhere, with everything inside
  (`notes/privacy.py`).

## What the session note keeps of what was said

- **Every turn's final answer** (the last text Claude wrote before the next prompt) is kept
  whole: the `**Answer:**` line says it in one line (all of it when it is plain prose that fits
  in about 400 characters, else its first paragraph), then the knowledge the turn's other
  messages stated; an answer longer than that line follows it, whole, as a folded
  `> [!note]- Claude's answer (N lines)` callout (up to 60,000 characters; the rest is counted).
- **Every compact summary** is kept whole as a folded `> [!summary]-` callout (only the
  person's own messages, which the work log holds, are left out).
- **Every plan the person approved** (`ExitPlanMode`) is kept whole below its turn's entry as a
  folded `> [!info]- Plan approved (N lines)` aside (recall ranks its lines after an answer's): its decisions are mined into the
  note's Decisions, its steps and context stay findable. A rejected plan keeps nothing; one still unanswered when
  the session ends is kept as `Plan proposed, not answered`, with no decision of its own.
- **A prompt longer than its `**Prompt:**` line** (1,500 characters: a pasted log, a spec) is
  kept whole below that line as a folded `> [!info]- The prompt whole (N characters)` aside.
- Inside these callouts nothing can break the note: every line is quoted (a heading of the
  answer is the callout's own, never a section of the note), a fence left open is closed, `%%`
  (an Obsidian comment) outside code, a trailing `^block-id`, `<!--` and `[[` are escaped,
  vaultmem's anchor comments are taken out; code in fences stays as written.
- **What Claude reported between its tool calls** ("Found the bug: an applet must start with
  `applet::run`. Let me fix main.rs:") is kept at the end of the turn's entry, as one folded
  `> [!info]- Claude's notes along the way (N)` aside: each message without the moves it ends
  announcing ("Let me …", a lead-in to a call), if at least 8 words are left. Recall ranks its
  lines after an answer's that match as much; the briefing never reads it as the answer.
- Secrets are redacted (`notes/redact.py`) before any of it is written; the knowledge the turn's
  messages state is mined as before.
- `vaultmem recall` indexes the note as it is, callouts included, and shows the line of the
  answer that holds what was asked.
"""

from __future__ import annotations

import re

from vaultmem.mining import lang
from vaultmem.notes.inline import one_line
from vaultmem.notes.lazyre import lazy
from vaultmem.notes.privacy import clean_text, strip_private
from vaultmem.notes.redact import Scrub

# type -> what vaultmem takes from a line of that type (the catalogue above says why).
KINDS: dict[str, str] = {
    "user": "prompts, tool results, the compact summary",
    "assistant": "Claude's prose (the final answer kept whole) and its tool calls",
    "system": "compact_boundary only (see SYSTEM_SUBTYPES)",
    "ai-title": "the session's title (frontmatter title and aliases)",
    "custom-title": "the title the person gave the session (beats ai-title)",
    "agent-name": "nothing: the agent's display name",
    "last-prompt": "nothing: it repeats the last user line's prompt",
    "summary": "nothing: an older title record that may name another session's leaf",
    "attachment": "nothing: context Claude Code adds (skills, memory files, reminders)",
    "queue-operation": "nothing: a queued prompt arrives as its own user line when sent",
    "file-history-snapshot": "nothing: file backups for rewind",
    "progress": "nothing: hook and sub-agent progress while a tool runs",
    "mode": "nothing: the session's mode",
    "permission-mode": "nothing: the session's permission mode",
}
# system subtype -> what vaultmem takes from it
SYSTEM_SUBTYPES: dict[str, str] = {
    "compact_boundary": "marks the next user line as the compact summary",
    "turn_duration": "nothing: timing",
    "stop_hook_summary": "nothing: which Stop hooks ran",
    "api_error": "nothing: a retry; the turn's final API error notice is an assistant line",
    "local_command": "the slash command the person ran and what it printed (console.py)",
    "informational": "nothing: a notice Claude Code showed",
    "away_summary": "nothing: a recap of turns the note records already",
}
TITLE_KINDS = {"ai-title": "aiTitle", "custom-title": "customTitle"}
TITLE_MAX_CHARS = 120
KIND_MAX_CHARS = 40  # of an unknown kind's name, as counted

# A slash command as the user line records it: ``<command-name>/review</command-name>
# <command-message>review</command-message> <command-args>the auth module</command-args>``.
_COMMAND_RE = lazy(
    r"<command-(?:name|message|args)\b[^>]*>.*?</command-(?:name|message|args)\s*>"
    r"(?:\s*<command-(?:name|message|args)\b[^>]*>.*?</command-(?:name|message|args)\s*>)*",
    re.DOTALL | re.IGNORECASE)
_COMMAND_NAME_RE = lazy(r"<command-name\b[^>]*>\s*(/?[\w:.-]+)\s*</command-name", re.IGNORECASE)
_COMMAND_ARGS_RE = lazy(r"<command-args\b[^>]*>(.*?)</command-args", re.DOTALL | re.IGNORECASE)
# What Claude Code writes as the person's line when they stopped a turn: no prompt.
_INTERRUPTED_RE = lazy(r"\[Request interrupted by user(?: for tool use)?\]", re.IGNORECASE)
_NOTIFICATION_RE = lazy(r"\A\s*<task-notification>", re.IGNORECASE)


def unknown_kind(entry: dict[str, object]) -> str | None:
    """The kind of a line no table above names (``system/<subtype>`` for a system line), as
    counted; None for a known kind."""
    kind = entry.get("type")
    if not isinstance(kind, str):
        return "(no type)"
    if kind == "system":
        subtype = entry.get("subtype")
        if subtype is None or (isinstance(subtype, str) and subtype in SYSTEM_SUBTYPES):
            return None
        return ("system/" + str(subtype))[:KIND_MAX_CHARS]
    return None if kind in KINDS else kind[:KIND_MAX_CHARS]


def title(entry: dict[str, object], scrub: Scrub | None = None) -> tuple[str, str] | None:
    """(type, title) of an ``ai-title`` or ``custom-title`` line: one line, private text out,
    at most TITLE_MAX_CHARS; None for any other line or an empty title."""
    key = TITLE_KINDS.get(str(entry.get("type")))
    value = entry.get(key) if key is not None else None
    if not isinstance(value, str):
        return None
    text = one_line(strip_private(value)).strip()
    if scrub is not None:
        text = scrub(text)
    if len(text) > TITLE_MAX_CHARS:
        text = text[: TITLE_MAX_CHARS - 1].rstrip() + "…"
    return (str(entry["type"]), text) if text else None


def prompt_text(text: str) -> str | None:
    """What the person typed, from a user line's text (private text already out): the IDE's
    and Claude Code's wrappers removed (``<ide_*>``, ``<system-reminder>``, ``<local-command-*>``,
    ``<user-prompt-submit-hook>``, ``<bash-*>``), a slash command written as typed (``/review
    the auth module``; one without arguments is no prompt), whitespace collapsed. None when
    nothing typed is left (a wrapper alone, ``[Request interrupted by user]``)."""
    if "<command-" in text.lower():
        text = _COMMAND_RE.sub(_typed_command, text)
    cleaned = clean_text(text)
    if cleaned is None or _INTERRUPTED_RE.fullmatch(cleaned):
        return None
    return cleaned


def interrupted(text: str | None) -> bool:
    """Whether a user line's text (or a tool's result) is Claude Code's mark that the person
    stopped the turn (``[Request interrupted by user]``)."""
    return bool(text) and _INTERRUPTED_RE.match((text or "").strip()) is not None


def notification(prompt: str | None) -> bool:
    """Whether a user line's text is Claude Code's ``<task-notification>`` (a background
    command ended), not the person's prompt."""
    return bool(prompt) and _NOTIFICATION_RE.match(prompt or "") is not None


# A prompt that only greets ("hi", "hello there", "hey Claude!", "good morning"): it names no
# topic, so it titles no session note; the first prompt with content does.
_GREETING = lazy(r"\W*(?:(?:hi|hello|hey|hiya|howdy|yo|greetings|good (?:morning|afternoon|evening|"
                 r"day)|morning|hallo|hola|bonjour|test(?:ing)?)(?:\W+(?:there|again|claude|all|"
                 r"everyone|buddy|friend))*\W*)+", re.IGNORECASE)


# The same in the other languages (``mining.lang``: "Hallo", "bonjour", "buenos días").
_GREETING_OTHER = lazy(lambda: r"\W*(?:" + lang.words(lang.every("greetings")) + r"(?:\W+(?:claude|"
                       + lang.either(lang.every("fillers")) + r"))*\W*)+", re.IGNORECASE)


def greeting(prompt: str | None) -> bool:
    """Whether a prompt only greets (see ``_GREETING``), in English or a language of
    ``mining.lang``."""
    return bool(prompt) and (_GREETING.fullmatch(prompt or "") is not None
                             or _GREETING_OTHER.fullmatch(prompt or "") is not None)


# A prompt that only asks to carry on ("resume last session", "continue where we left off",
# "where were we?"): it names no topic either; the work it resumes is in the prompts after it.
_CARRY_ON = lazy(
    r"\W*(?:(?:ok(?:ay)?|so|please|pls|now|let'?s|yes|yeah|can you|could you)\W+)*"
    r"(?:resume|continue|carry on|go on|keep going|proceed|pick (?:it |things )?(?:back )?up"
    r"|where were we|what were we (?:doing|working on))"
    r"(?:\W+(?:from\W+|with\W+|on\W+)?(?:the\W+|our\W+|my\W+)?(?:last|previous|prior|earlier)?"
    r"\W*(?:session|conversation|chat|work|task|time|one)?)?"
    r"(?:\W+(?:from )?where (?:we|you|i) (?:left off|stopped|were))?(?:\W+please)?\W*",
    re.IGNORECASE)


# The same in the other languages: "mach weiter, wo wir aufgehört haben", "on reprend la
# dernière session", "¿dónde nos quedamos?" (``mining.lang``: carry_on, its tail, the fillers).
_CARRY_ON_OTHER = lazy(
    lambda: r"\W*(?:" + lang.words(lang.every("fillers")) + r"\W+)*"
    + lang.words(lang.every("carry_on"))
    + r"(?:\W+" + lang.words(lang.every("carry_on") + lang.every("carry_on_tail")
                            + lang.every("fillers")) + r")*\W*",
    re.IGNORECASE)


def carry_on(prompt: str | None) -> bool:
    """Whether a prompt only asks to carry on earlier work (see ``_CARRY_ON``), in English or
    a language of ``mining.lang``."""
    return bool(prompt) and (_CARRY_ON.fullmatch(prompt or "") is not None
                             or _CARRY_ON_OTHER.fullmatch(prompt or "") is not None)


def slash_command(text: str) -> tuple[str, str] | None:
    """The slash command ``text`` names (``<command-name>``, with its leading ``/``) and its
    arguments as typed, whitespace collapsed (``""`` without any); None when it names none."""
    name = _COMMAND_NAME_RE.search(text)
    if name is None:
        return None
    args = _COMMAND_ARGS_RE.search(text)
    command = name.group(1)
    return (command if command.startswith("/") else "/" + command,
            " ".join(args.group(1).split()) if args else "")


def _typed_command(match: re.Match[str]) -> str:
    named = slash_command(match.group(0))
    if named is None or not named[1]:
        return " "  # /clear, /model, /compact: bookkeeping, nothing typed to keep
    return f" {named[0]} {named[1]} "
