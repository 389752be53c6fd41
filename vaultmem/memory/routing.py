"""Which entity notes an item goes to (pure): names compared the way Obsidian and people do
(case-insensitively, after Unicode NFC), known entities found by a mention of their name or an
alias, and each name mapped to one note file, reusing the existing note's file name."""

from __future__ import annotations

import posixpath
import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from vaultmem.notes import nearnames
from vaultmem.notes.names import name_key
from vaultmem.store.layout import Layout

Known = tuple[str, Sequence[str]]  # an entity's name and its aliases
MIN_MENTION_CHARS = 2
_SEPARATORS = re.compile(r"[\s_-]+")
_SEPARATOR_OPTIONAL = r"[\s_-]?"
_WORDS = re.compile(r"[\s_.-]+|(?<=[a-z0-9])(?=[A-Z])")
_NEAR = "\0"  # marks a near key apart from an exact one in the same table
# A program's settings file in a home or a project folder: ``.gitleaksignore``, ``.npmrc``.
_DOTFILE = re.compile(r"(?<![\w.])\.([A-Za-z][\w-]*?)(?:rc|ignore|config|\.(?:toml|ya?ml|json|conf))\b")
# A failure an item quotes, as capture writes it: "`cmd` failed: `error`", "`cmd` failed (`error`)".
_FAILURE = re.compile(r"(`+)(?:(?!\1).)+?\1 failed(?:(?:: | \()(`+)(?:(?!\2).)*?\2)?")
_PART = "\1"  # marks the key of a run of words that starts or ends a name (nearnames.runs)


def _squashed(key: str) -> str:
    """A name key without its word separators (``invoice_renderer`` -> ``invoicerenderer``)."""
    return _SEPARATORS.sub("", key)


@dataclass(frozen=True)
class Mentions:
    """Known entity names and aliases, found in a text as whole words."""

    pattern: re.Pattern[str] | None = None
    by_key: Mapping[str, str] = field(default_factory=dict)  # name or alias key -> entity name

    @classmethod
    def of(cls, known: Iterable[Known], *, exclude: str = "", in_names: bool = False) -> Mentions:
        """The mentions of ``known`` entities (``exclude``: the fallback entity, never found by
        mention). A name of three words or more is also met by a run of two or more of its words
        that starts or ends it ("the power monitor" names Cosmic Applet Power Monitor: such a run
        is one entity with it, :func:`entity_targets`), unless that run is a name of its own.
        ``in_names``: also met as a word of a snake_case name (a program's script,
        ``redact_gitleaks_secrets.py``, is about the program)."""
        by_key: dict[str, str] = {}
        skip = name_key(exclude) if exclude else ""
        said_keys: list[str] = []
        named = [(name, aliases) for name, aliases in known if name_key(name) != skip]
        forms = [(name, said) for name, aliases in named for said in (name, *aliases)]
        forms += [(name, run) for name, _ in named for run in _runs(name)]
        for name, said in forms:  # names and aliases first: a run never takes a name's key
            key = name_key(said.strip())
            if len(key) >= MIN_MENTION_CHARS:
                by_key.setdefault(key, name)
                by_key.setdefault(_squashed(key), name)
                said_keys.append(key)
        if not by_key:
            return cls()
        words = sorted(set(said_keys), key=len, reverse=True)  # the longest name wins an overlap
        # A name of several words is also met as code spells it: "Invoice Renderer" as
        # InvoiceRenderer, invoice_renderer or invoice-renderer.
        alternatives = "|".join(_SEPARATOR_OPTIONAL.join(re.escape(part)
                                                         for part in _SEPARATORS.split(w))
                                for w in words)
        edge = r"[^\W_]" if in_names else r"\w"
        pattern = re.compile(rf"(?<!{edge})(?:" + alternatives + rf")(?!{edge})", re.IGNORECASE)
        return cls(pattern, by_key)

    def find(self, text: str) -> list[str]:
        """The entity names ``text`` mentions, in order of first mention."""
        if self.pattern is None:
            return []
        found: list[str] = []
        for match in self.pattern.finditer(unicodedata.normalize("NFC", text).casefold()):
            key = name_key(match.group(0))
            name = self.by_key.get(key) or self.by_key.get(_squashed(key))
            if name is not None and name not in found:
                found.append(name)
        return found


def _runs(name: str) -> list[str]:
    """The runs of two or more words that start or end ``name``, shorter than it, as said
    (``Cosmic Applet Power Monitor`` -> ``Cosmic Applet Power``, ``Applet Power Monitor``…)."""
    parts = [p for p in _WORDS.split(unicodedata.normalize("NFC", name.strip())) if p]
    return [" ".join(run) for n in range(len(parts) - 1, 1, -1)
            for run in (parts[:n], parts[-n:])]


def entity_targets(
    names_: Iterable[str], project: str, layout: Layout, known: Iterable[str]
) -> dict[str, str]:
    """Entity name -> note rel: the project's entity, else the global one, else a new note in
    the project named by the first spelling met. Names compare as :func:`names.name_key` does,
    so ``auth`` and ``Auth`` (or an NFC and an NFD ``Café``) are one note; a name no note has
    goes to the note of its near spelling (``Invoices`` to ``Invoice``, ``power-monitor`` to
    ``Power Monitor``: :func:`nearnames.same`), else to the note of a name of two words or more
    that starts or ends it, or that it starts or ends (``Power Monitor`` and ``Cosmic Applet
    Power Monitor``: :func:`nearnames.runs`), in the project, then the global ones, then the
    names met before it."""
    project_dir = layout.entities_dir(project) + "/"
    global_dir = layout.global_entities_dir() + "/"
    in_project: dict[str, str] = {}
    in_global: dict[str, str] = {}
    for rel in sorted(known):
        stem = posixpath.basename(rel)[:-3]
        if rel.startswith(project_dir) and "/" not in rel[len(project_dir):]:
            _index(in_project, stem, rel)
        elif rel.startswith(global_dir) and "/" not in rel[len(global_dir):]:
            _index(in_global, stem, rel)
    out: dict[str, str] = {}
    new: dict[str, str] = {}
    for name in names_:
        key, near = name_key(name), _NEAR + nearnames.key(name)
        found = in_project.get(key) or in_global.get(key) or in_project.get(near) \
            or in_global.get(near) or new.get(near) or _part_of(name, in_project) \
            or _part_of(name, in_global) or _part_of(name, new)
        if found is None:
            found = layout.entity(project, name)
            _index(new, name, found)
        out[name] = found
    return out


def _index(table: dict[str, str], name: str, rel: str) -> None:
    """``table`` finds ``rel`` by ``name``: its key, its near key and the runs of words it
    holds (the first note to claim one keeps it)."""
    table.setdefault(name_key(name), rel)
    table.setdefault(_NEAR + nearnames.key(name), rel)
    for run in nearnames.runs(name):
        table.setdefault(_PART + run, rel)


def _part_of(name: str, table: Mapping[str, str]) -> str | None:
    """The note of ``table`` whose name holds ``name`` as a run of its words, or whose name is
    such a run of ``name``'s (two words at least)."""
    if len(nearnames.words(name)) >= 2:
        found = table.get(_PART + nearnames.key(name))
        if found is not None:
            return found
    return next((table[_NEAR + run] for run in nearnames.runs(name) if _NEAR + run in table),
                None)


def stems(rels: Sequence[str]) -> list[str]:
    """The file names (without ``.md``) of note rels."""
    return [posixpath.basename(rel)[:-3] for rel in rels]


@dataclass(frozen=True)
class Subjects:
    """What a session's items may be filed under besides what they link: its components and
    known entities, and the programs, services and machines its commands name
    (:mod:`mining.subjects`), found by name in an item's words or its turn's."""

    known: Mentions  # the known entities and the session's components
    programs: Mentions  # every program, service and machine its commands name
    worked: Mentions  # the services and machines its commands act on
    own: str = ""  # the project: never a component of itself
    ci: str = ""  # the CI's entity: an item's only by its own words

    def named(self, text: str) -> list[str]:
        """What ``text`` (an item) names outside the failures it quotes: known entities,
        programs, services and machines, a program's settings file too (``.gitleaksignore``,
        ``.npmrc``); the project's own aside. A command that failed names where it failed, not
        what the item is about (its program is :func:`tools.tool_of`'s), and its error is the
        tool talking: ``ssh host "uci commit"`` failing to fork is no lesson about uci, even
        once uci is a known entity."""
        said = _FAILURE.sub(" ", text)
        dotfiles = " ".join(m.group(1) for m in _DOTFILE.finditer(said))
        found = [*self.known.find(said), *self.programs.find(f"{said} {dotfiles}")]
        return [name for name in dict.fromkeys(found) if not nearnames.same(name, self.own)]

    def in_turn(self, prose: str) -> list[str]:
        """What a turn's prose names: known entities, the services and machines of the
        session (a program it says it ran is a tool of the turn, not its subject)."""
        return [*self.known.find(prose), *self.worked.find(prose)]

    def asked(self, prompt: str) -> list[str]:
        """What a turn's prompt names: known entities, and the programs, services and machines
        of the session (the person names what the turn is about: "make sure gitleaks is set to
        max strict")."""
        return [*self.known.find(prompt), *self.programs.find(prompt)]

    def turn_one(self, names_: Sequence[str], *, ci: bool = False) -> tuple[str, ...]:
        """The one thing a turn names (its prose and its commands): a turn about two things
        lends neither to an item that names none (issue 29); the CI counts only when ``ci``
        (the item speaks of it)."""
        kept: list[str] = []
        for name in names_:
            if nearnames.same(name, self.own) or (
                    not ci and self.ci and name_key(name) == name_key(self.ci)):
                continue
            if not any(nearnames.same(name, other) for other in kept):
                kept.append(name)
        return (kept[0],) if len(kept) == 1 else ()


def about(linked: Sequence[str], own: Sequence[str], turn: Sequence[str],
          session: Sequence[str], max_copies: int) -> tuple[str, ...]:
    """An item's components (issue 29), first found: what it links, then what its own words
    name (the tool its failure ran, the components, programs, services and machines it
    mentions), then the one thing its turn names, then the session's one component; at most
    ``max_copies``. () when nothing is named: the item goes to the fallback entity."""
    for found in ([*linked, *own], turn, session):
        unique = list(dict.fromkeys(found))
        if unique:
            return tuple(unique[:max_copies])
    return ()
