"""Session note names: ``<date>-<topic>`` from the first six words of the topic or the first
prompt (redacted, private text left out), the session's mark in a vault other machines write too,
numbered names and then the session id when a name is taken; and the rename of a note started
before its first prompt was known (``<date>-session``) once that prompt names it.

Beside the session lifecycle (``sessions``), which creates the notes these names are for.
"""

from __future__ import annotations

import posixpath
import re
import secrets
from collections.abc import Callable, Iterator
from dataclasses import replace

from vaultmem.errors import NoteExists
from vaultmem.notes import inline, names, redact
from vaultmem.notes.lazyre import lazy
from vaultmem.notes.privacy import clean_prompt
from vaultmem.store import machine
from vaultmem.store.layout import UNTITLED_SESSION
from vaultmem.store.state import StateData
from vaultmem.store.vault import Vault

TOPIC_MAX_CHARS = 60
NUMBERED_NAMES = 100  # <stem>-2 … -100; then the session id names the note
DEFAULT_TITLE = lazy(r"^# Session \d{4}-\d{2}-\d{2} \d{2}:\d{2}$", re.MULTILINE)
RENAME_TRIES = 50


def first_words(text: str, n: int) -> str:
    return " ".join(text.split()[:n])


def topic_slug(text: str) -> str:
    """The topic part of a session note's name: the first six words of ``text``, slugged."""
    return names.slug(text, max_words=6)[:TOPIC_MAX_CHARS].rstrip("-")


def new_topic(topic: str | None, first_prompt: str | None, scrub: redact.Scrub
              ) -> tuple[str, str]:
    """(slug, title) of a new session note; private text never names a file."""
    # A secret never names a file: redacted before the slug (``ghp_…`` slugged is
    # ``ghp-…``, which no detector knows).
    cleaned = clean_prompt(topic) if topic else None
    topic = scrub(cleaned) if cleaned else None
    if topic and names.slug(topic):
        slug = names.slug(topic)[:TOPIC_MAX_CHARS].rstrip("-")
        return slug, inline.one_line(topic)
    cleaned = clean_prompt(first_prompt) if first_prompt else None
    prompt = scrub(cleaned) if cleaned else None
    if prompt and names.slug(prompt, max_words=6):
        return topic_slug(prompt), first_words(prompt, 6)
    return "session", ""


def session_stem(vault: Vault, day: str, slug: str, sid: str) -> str:
    """``<day>-<slug>`` of a session note; in a vault other machines write too (git, a sync
    tool), with the session's short mark, so two teammates' same first words the same day
    never make one name. A note without a topic is marked too: ``remember`` outside a
    session writes ``<day>-session`` on every machine, and that note is never renamed."""
    stem = f"{day}-{slug}"
    if not machine.is_shared(vault.root, vault.state_dir):
        return stem
    mark = names.untitled_suffix(sid) if slug == "session" else names.session_suffix(sid)
    return names.with_suffix(stem, mark)


def note_names(stem: str, sid: str) -> Iterator[str]:
    """Names to try for a new session note, most readable first; never runs out (1,100 runs of
    one prompt in a day lost the session after 1,000 numbered names)."""
    yield stem
    for n in range(2, NUMBERED_NAMES + 1):
        yield f"{stem}-{n}"
    short = names.slug(sid)[:12].strip("-") or "session"
    yield f"{stem}-{short}"
    for n in range(2, NUMBERED_NAMES + 1):
        yield f"{stem}-{short}-{n}"
    while True:
        yield f"{stem}-{secrets.token_hex(6)}"


def awaits_topic(note: str) -> bool:
    """Whether ``note`` is still named ``<date>-session``: started before its first prompt."""
    return UNTITLED_SESSION.fullmatch(posixpath.basename(note)[:-3]) is not None


def retopic(vault: Vault, data: StateData, sid: str, first_prompt: str,
            title_of: Callable[[str], str]) -> str:
    """Give a note started before its first prompt was known (``<date>-session``) its topic name,
    and its H1 the prompt's ``title_of``.

    Runs under the state lock. Order: write the new note, point the state at it, remove the old
    one; nothing links to a note this young, and the text moves byte for byte.
    """
    entry = data.sessions[sid]
    if not awaits_topic(entry.note):
        return entry.note  # named already (the usual case: no title to work out)
    stem = posixpath.basename(entry.note)[:-3]
    prompt = clean_prompt(first_prompt)
    # Cut like a new note's topic: a first "word" of 300,000 characters must not name a file.
    topic = topic_slug(prompt) if prompt else ""
    if not topic or topic == "session":
        return entry.note
    title = title_of(prompt) if prompt else ""
    layout = vault.layout
    try:
        note = vault.read(entry.note)
        if str(note.frontmatter().get("status") or "active") != "active":
            return entry.note
    except Exception:  # noqa: BLE001 - a note we cannot read is left where it is
        return entry.note
    named = session_stem(vault, stem[:10], topic, sid)
    for n in range(1, RENAME_TRIES + 1):
        name = named + ("" if n == 1 else f"-{n}")
        rel = layout.session(entry.project, name)
        if vault.exists(layout.archive(entry.project, name)):
            continue
        try:
            vault.create(rel, retitled(note.text, title))
        except NoteExists:
            continue
        data.set_session(replace(entry, note=rel))
        vault.retire(entry.note, read=note, copy_to=rel, derive=lambda text: retitled(text, title))
        return rel
    return entry.note


def retitled(text: str, title: str) -> str:
    """The note with its default H1 (``# Session <date> <time>``) replaced by the topic."""
    return DEFAULT_TITLE.sub(lambda _: f"# {title}", text, count=1) if title else text
