"""The names a text mentions and the names a file is known by, as matching sees them (pure).

Capture matches prose and tool output to files by name: a failing command to the edits that
fixed it (``mining.fixes``), an item to the components it is about (:func:`about`). A name is
matched case-blind with its word breaks and test affixes gone, so ``InvoiceRenderer``,
``invoice_renderer``, ``test_invoice_renderer`` and ``invoice-renderer.test`` are one name.
"""

from __future__ import annotations

from collections.abc import Sequence

from vaultmem.notes.lazyre import lazy

ABOUT_MAX = 2  # components an item is filed under, at most

# Identifiers in a command or an error line: path parts, dotted modules, test and class names.
_WORD_RE = lazy(r"[A-Za-z_][A-Za-z0-9_]*")
_CAMEL_RE = lazy(r"(?<=[a-z0-9])(?=[A-Z])")
_TEST_AFFIX_RE = lazy(r"\A(?:test|spec)_|_(?:test|tests|spec)\Z")
# A file path said in prose: folders and a file with an extension (a folder may be bracketed:
# Next.js routes ``app/[slug]/page.tsx``, a redacted user ``/home/[USER]/shop/…``), or a bare
# source file's name (``main.rs``).
_PATH_RE = lazy(
    r"(?<![\w/.@~-])((?:/|\./|~/)?(?:(?:[\w.@+-]+|\[[\w.@+-]+\])/)+"
    r"[\w.@+-]*[\w-]\.[A-Za-z0-9]{1,8}"
    r"|[\w.-]+\.(?:py|pyi|ts|tsx|js|jsx|mjs|cjs|go|rs|java|kt|kts|rb|ex|exs|erl|dart|"
    r"swift|c|h|cc|cpp|hpp|cs|php|vue|svelte|scala|clj|lua|sql|sh|css|scss|html))"
    r"(?![\w/])"
)
# Words too common to say which file a run concerns.
_GENERIC = frozenset({
    "src", "lib", "app", "apps", "test", "tests", "spec", "specs", "pkg", "internal", "cmd",
    "main", "index", "init", "mod", "utils", "util", "helpers", "helper", "common", "shared",
    "config", "conftest", "setup", "priv", "assets", "web", "www", "home", "usr", "bin", "dev",
    "tmp", "var", "local", "py", "js", "ts", "tsx", "jsx", "ex", "exs", "go", "rs", "rb", "java",
    "kt", "json", "yaml", "yml", "toml", "md", "txt", "lock", "python", "python3", "pytest",
    "mix", "npm", "npx", "yarn", "pnpm", "cargo", "make", "run", "node", "bun", "deno", "uv",
    "poetry", "bundle", "exec", "rspec", "jest", "vitest", "dotnet", "gradle", "mvn", "error",
    "errors", "exception", "failed", "failure", "fail", "assert", "assertion", "none", "null",
    "true", "false", "the", "and", "for", "with", "from", "not", "line", "file", "files",
    "module", "function", "undefined", "expected", "got", "all", "only", "new", "old",
})


def _key(word: str) -> str:
    """One identifier as matching sees it: ``InvoiceRenderer``, ``invoice_renderer``,
    ``test_invoice_renderer`` and ``invoice-renderer.test`` all read ``invoicerenderer``."""
    word = _CAMEL_RE.sub("_", word).casefold().replace("-", "_")
    word = _TEST_AFFIX_RE.sub("", word).strip("_").replace("_", "")
    # One order, many orders: ``orders.py`` and "the order", ``migrations/`` and "a migration".
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


def text_keys(text: str) -> set[str]:
    """The names a text mentions, as matching sees them (paths, modules, classes, words)."""
    keys = {_key(w) for w in _WORD_RE.findall(text)}
    return {k for k in keys if len(k) >= 2 and k not in _GENERIC}


def paths_in(text: str) -> tuple[str, ...]:
    """The file paths ``text`` names, in order, once each: no URLs, nor a repository
    (``git@github.com:acme/shop.git``, whose ``acme/shop.git`` is an account and a
    repository, never a folder and a file)."""
    found = [m.group(1).rstrip(".") for m in _PATH_RE.finditer(text.replace("\\", "/"))]
    return tuple(dict.fromkeys(p for p in found if "://" not in p and not p.startswith("www.")
                               and not p.endswith(".git")))


def path_keys(path: str) -> set[str]:
    """The names a path is known by: its folders and its file's stem, as matching sees them."""
    parts = [p for p in path.replace("\\", "/").split("/") if p not in ("", ".", "..")]
    if parts:
        parts[-1] = parts[-1].split(".", 1)[0]  # the file's stem
    keys = {_key(p) for p in parts}
    return {k for k in keys if len(k) >= 2 and k not in _GENERIC}


def named_in(texts: Sequence[str], names: Sequence[str]) -> list[tuple[str, str]]:
    """(name, name) of each of ``names`` (components) that ``texts`` name, every word of it, in
    the order of ``names``: the components a turn that touched none of their files is about."""
    said: set[str] = set()
    for text in texts:
        said |= text_keys(text)
    out: list[tuple[str, str]] = []
    for name in dict.fromkeys(names):
        keys = [_key(w) for w in _WORD_RE.findall(name)]
        if keys and all(k in said for k in keys) and any(k not in _GENERIC for k in keys):
            out.append((name, name))
    return out


def mentioned(text: str, files: Sequence[tuple[str, str]]) -> tuple[str, ...]:
    """The components of ``files`` ((path shown, component), in the turn's order) whose name
    or file ``text`` mentions, at most two."""
    said = text_keys(text)
    # The component's own name first, then its files' names (a folder higher up says nothing:
    # the app's folder is in every path); the turn's order breaks ties.
    by_name = [name for _, name in files if _key(name) in said]
    by_file = [name for path, name in files if path_keys(path.rsplit("/", 1)[-1]) & said]
    return tuple(dict.fromkeys(by_name + by_file))[:ABOUT_MAX]


def files_named(text: str, paths: Sequence[str]) -> list[str]:
    """The ``paths`` whose file name ``text`` mentions (as :func:`mentioned` matches them)."""
    said = text_keys(text)
    return [path for path in paths if path_keys(path.rsplit("/", 1)[-1]) & said]


def about(text: str, files: Sequence[tuple[str, str]]) -> tuple[str, ...]:
    """The components (at most two) an item is about, of its turn's ``files`` ((path shown,
    component), in the turn's order): those whose file, folder or name the text mentions; else
    the one component more of those files belong to than to any other (a turn about two
    things lends neither to an item that names none: issue 29)."""
    named = mentioned(text, files)
    if named:
        return named
    counts: dict[str, int] = {}
    for _, name in files:
        counts[name] = counts.get(name, 0) + 1
    ranked = sorted(counts, key=lambda n: -counts[n])
    if len(ranked) > 1 and counts[ranked[0]] == counts[ranked[1]]:
        return ()
    return tuple(ranked[:1])
