"""An item that names no component, filed by the identifiers it shares (pure; issue 29).

The router (:func:`routing.about`) sends a decision or gotcha that names no component to the
fallback entity (``Inbox``). Such an item often names what the component's own lines name: the
gotcha "Connection pool exhaustion under load" works around it with ``DB_POOL_SIZE``, and the
Database entity holds the decision on ``DB_POOL_SIZE``. When the identifiers of an item (its
words, those of the work-log entry it was cut from, and those of the passages of the work log
that say it: "**Issue:** Phone number regex matches UUID segments" beside "**File:**
scripts/sync_raw_logs.py") meet the identifiers of exactly one entity, it goes there: the
entity's note as it was, plus the items this compaction files to it.

An identifier is a name only code gives: an environment variable or constant (``DB_POOL_SIZE``),
a snake_case or lowerCamelCase name (``pool_size``, ``getUser``), a file name (``tokens.py``, and
its stem when that is such a name), or any name of two words or more written as one in a code
span (```InvoiceRenderer```). A common word is none, nor a file every project of its kind holds
(``package.json``, ``README.md``), nor a placeholder that stands for a secret
(``‹redacted:kind›``, ``[REDACTED_API_KEY]``). An item meeting two entities stays where it was:
the identifier is no one component's.
"""

from __future__ import annotations

import posixpath
from collections.abc import Mapping, Sequence
from dataclasses import replace

from vaultmem.memory.extraction import Extraction
from vaultmem.notes import fences, nearnames, schema, sections
from vaultmem.notes.lazyre import lazy
from vaultmem.notes.links import ANY_LINK
from vaultmem.notes.names import name_key

MIN_CHARS = 5  # a shorter name (``a_b``, ``x.py``) is too likely to be met by chance
_EXTENSIONS = (
    "py|pyi|ipynb|js|mjs|cjs|ts|tsx|jsx|vue|svelte|rs|go|rb|java|kt|kts|scala|swift|c|h|cc|cpp"
    "|hpp|cs|fs|php|pl|lua|ex|exs|erl|hs|ml|dart|r|jl|sh|bash|zsh|fish|ps1|bat|cmd|toml|ya?ml"
    "|json|jsonl|ini|cfg|conf|env|properties|gradle|xml|html|css|scss|sql|proto|tf|nix|service"
    "|timer|socket|desktop|plist|md|txt|csv|lock")
_FILE = lazy(rf"[\w-]+(?:\.[\w-]+)*\.(?:{_EXTENSIONS})")
# CONSTANT_CASE, snake_case, lowerCamelCase: each has a mark no prose word has.
_CODE_NAME = lazy(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+|[a-z][a-z0-9]*(?:_[a-z0-9]+)+"
                  r"|[a-z]{2,}(?:[A-Z][a-z0-9]+)+")
# A name as a span of code holds it alone: PascalCase counts there (``InvoiceRenderer``), not
# in prose ("GitHub", "JavaScript" are words people write); so do dotted and scoped names.
_SPAN_NAME = lazy(r"[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+|[A-Za-z_$][\w$]*(?:(?:\.|::)[A-Za-z_$][\w$]*)+")
# A word of code as it is written: letters, digits and the marks names hold, a code span's
# backticks kept (one pass over a note: the shapes above are then tried on each word once).
_PARTS = lazy(r"[.:]+")
_WORD = lazy(r"`?[\w$.:-]+`?")
_PLACEHOLDER = lazy(r"‹[^›\n]*›|\[REDACTED[^\]\n]*\]|\bREDACTED\w*")
# What follows a statement's words in an item: the fix, the cause, the failure it reports.
_GLOSS = lazy(r"\s+—\s+.*$|\s+\(`.*$")
_MARKUP = lazy(r"[`*_>\s]+")
_BREAK = lazy(r"^[>\s]*(?:#|---|$)")  # a blank line, a quote's blank line, a heading, a rule
MIN_STATEMENT_CHARS = 20  # a shorter statement is met by chance in passages not about it
# Files every project of an ecosystem holds: no one component's.
_EVERYWHERE = frozenset((
    "readme.md", "changelog.md", "license.md", "contributing.md", "claude.md", "agents.md",
    "todo.md", "package.json", "package-lock.json", "yarn.lock", "pnpm-lock.yaml",
    "tsconfig.json", "pyproject.toml", "setup.py", "setup.cfg", "requirements.txt",
    "poetry.lock", "uv.lock", "cargo.toml", "cargo.lock", "go.mod", "go.sum", "gemfile.lock",
    "composer.json", "composer.lock", "mix.exs", "mix.lock", "build.gradle", "pom.xml",
    "docker-compose.yml", "docker-compose.yaml", "compose.yaml", "compose.yml",
    "__init__.py", "__main__.py", "conftest.py", "main.py", "app.py", "index.js", "index.ts",
    "index.html", "main.rs", "lib.rs", "mod.rs", "main.go", "settings.json", "config.json",
    "config.yaml", "config.yml", "config.toml", "settings.local.json", "test.py",
    "node.js", "next.js", "nuxt.js", "vue.js", "react.js", "express.js",  # products, not files
))
KNOWLEDGE = frozenset((schema.Kind.DECISION, schema.Kind.GOTCHA))


def identifiers(text: str) -> set[str]:
    """The distinctive identifiers ``text`` names, case-folded (see the module's docstring)."""
    if "‹" in text or "REDACTED" in text:
        text = _PLACEHOLDER.sub(" ", text)
    if "[[" in text:
        text = ANY_LINK.sub(" ", text)
    found: set[str] = set()
    for word in set(_WORD.findall(text)):
        spanned = len(word) > 2 and word[0] == word[-1] == "`"
        bare = word.strip("`").strip(".:-")
        while ":" in bare and bare.rpartition(":")[2].isdigit():
            bare = bare.rpartition(":")[0]  # a file's line and column: ``tokens.py:54:3``
        if len(bare) < MIN_CHARS:
            continue
        if _FILE.fullmatch(bare):
            if bare.casefold() not in _EVERYWHERE:
                found.add(bare.casefold())
            bare = bare.rsplit(".", 1)[0]  # its stem, when that is a name of code
        if _CODE_NAME.fullmatch(bare) or (spanned and _SPAN_NAME.fullmatch(bare)):
            found.add(bare.casefold())
        if "." in bare or ":" in bare:  # ``legion_cli::run``, ``cfg.pool_size``: its names
            found.update(part.casefold() for part in _PARTS.split(bare)
                         if _CODE_NAME.fullmatch(part))
    return {name for name in found if len(name) >= MIN_CHARS}


def refile(extraction: Extraction, note: str, notes: Mapping[str, str],
           fallback: str) -> Extraction:
    """``extraction`` with each decision and gotcha bound for ``fallback`` alone moved to the one
    entity whose identifiers it shares: those of ``notes`` (entity note rel -> text) and of the
    items filed to it here. ``note``: the session note the items were read from (an item cut
    from a work-log entry shares the entry's identifiers)."""
    skip = name_key(fallback)
    homeless = {n for n, item in enumerate(extraction.items) if item.kind in KNOWLEDGE
                and [name_key(e) for e in item.entities] == [skip]}
    if not homeless:
        return extraction
    held: dict[str, tuple[str, set[str]]] = {}  # near key -> (name, identifiers)

    def add(name: str, found: set[str]) -> None:
        key = nearnames.key(name)  # "Invoices" of an item is the note "Invoice"
        if name_key(name) != skip and found:
            held.setdefault(key, (name, set()))[1].update(found)

    for rel, text in notes.items():
        add(posixpath.basename(rel)[:-3], identifiers(fences.split(text).body))
    for n, item in enumerate(extraction.items):
        if n not in homeless:
            for name in item.entities:
                add(name, identifiers(item.text))
    entries, passages = _work_log(note)
    items = list(extraction.items)
    for n in sorted(homeless):
        item = items[n]
        said = _statement(item.text)
        near = [raw for folded, raw in passages if said and said in folded]
        own = identifiers(" ".join([item.text, entries.get(item.line, ""), *near]))
        sharing = [name for name, found in held.values() if own & found]
        if len(sharing) == 1:
            items[n] = replace(item, entities=(sharing[0],))
    return replace(extraction, items=tuple(items))


def _statement(item: str) -> str:
    """What of an item its turn says in its words (before a fix, a cause or the failure it
    quotes), folded as :func:`_work_log` folds passages; "" when too short to find it by."""
    said = _fold(_GLOSS.sub("", item))
    return said if len(said) >= MIN_STATEMENT_CHARS else ""


def _fold(text: str) -> str:
    return _MARKUP.sub(" ", text).casefold().strip()


def _work_log(note: str) -> tuple[Mapping[int, str], list[tuple[str, str]]]:
    """Each work-log entry of ``note`` by the line of its heading (the text it holds), and the
    passages of every entry (folded, as written): runs of lines between blank lines, a quote's
    blank lines and headings (the paragraph, the list of an answer that says an item)."""
    if not note:
        return {}, []
    lines: Sequence[str] = note.split("\n")
    entries: dict[int, str] = {}
    passages: list[tuple[str, str]] = []
    for head in sections.headings(note):
        if len(head.path) < 2 or head.path[-2] != schema.WORK_LOG:
            continue
        body = lines[head.body_start:head.subtree_end]
        entries[head.line] = "\n".join(body)
        run: list[str] = []
        for line in [*body, ""]:
            if _BREAK.match(line):
                if run:
                    passages.append((_fold(" ".join(run)), "\n".join(run)))
                run = []
            else:
                run.append(line)
    return entries, passages
