"""A file path -> the project component it belongs to (pure).

The default rule works for the common layouts: the first folder under the project (after a
container such as ``src/``, ``app/``, ``lib/``, ``packages/`` or the project's own package
folder) names the component: ``src/auth/tokens.py`` -> ``Auth``, ``app/billing/x.py`` ->
``Billing``, ``packages/api/routes.ts`` -> ``API``. A module file right in a container is its own
component (``src/auth.py`` -> ``Auth``) unless its name is generic (``main``, ``utils``, ...). A
test named after a module belongs to that module: ``tests/test_auth.py``, ``tests/auth/test_x.py``,
``auth.test.ts``, ``auth_test.go``. Files at the project's root, in documentation, configuration
or tooling folders have no component (None).

``rules`` (the ``[components]`` table of ``config.toml``) map globs to names and win over the
default: ``"services/pay*/**" = "Billing"``. A glob matches the path relative to ``root`` (POSIX,
``*`` also crosses folders, as in :func:`fnmatch.fnmatchcase`); the first matching rule, in the
table's order, decides. A rule whose name is empty after cleaning means "no component".

Names are NFC, title-cased word by word (``billing_webhooks`` -> ``Billing Webhooks``, a few
acronyms upper-cased: ``API``, ``DB``, ``UI``...) and safe as an entity file name.
"""

from __future__ import annotations

import posixpath
import re
import unicodedata
from collections.abc import Mapping
from fnmatch import fnmatchcase

from .. import names
from ..errors import UnsafePath

# Folders that hold components rather than being one.
CONTAINERS = frozenset({
    "src", "source", "app", "apps", "lib", "libs", "packages", "pkg", "pkgs", "internal", "cmd",
    "modules", "services", "crates", "projects", "backend", "frontend", "server",
})
# Folders (at the top, or under a container) that are not a component of the code.
GENERIC_DIRS = frozenset({
    "docs", "doc", "documentation", "config", "configs", "conf", "etc", "scripts", "script",
    "bin", "build", "dist", "out", "target", "node_modules", "vendor", "third_party",
    "assets", "static", "public", "resources", "res", "examples", "example", "samples",
    "fixtures", "testdata", "tmp", "temp", "tools", "deploy", "deployment", "infra", "ci",
    "main", "java", "kotlin", "python", "go", "js", "ts", "generated", "gen",
})
TEST_DIRS = frozenset({"tests", "test", "spec", "specs", "__tests__", "testing"})
TEST_SUBDIRS = frozenset({"unit", "integration", "e2e", "functional", "acceptance", "system",
                          "regression", "smoke", "tests", "test", "__tests__"})
# Module names that say nothing about what the code is for.
GENERIC_STEMS = frozenset({
    "main", "index", "app", "__init__", "__main__", "init", "utils", "util", "helpers", "helper",
    "common", "shared", "misc", "config", "settings", "constants", "types", "setup", "conftest",
    "manage", "wsgi", "asgi", "version", "_version", "base", "mod", "lib", "test", "tests",
    "readme", "changelog", "license", "makefile", "dockerfile", "conf", "globals", "vite.config",
})
ACRONYMS = {
    "api": "API", "db": "DB", "ui": "UI", "cli": "CLI", "sdk": "SDK", "http": "HTTP",
    "sql": "SQL", "jwt": "JWT", "orm": "ORM", "css": "CSS", "io": "IO", "ml": "ML", "ai": "AI",
    "ux": "UX", "ci": "CI", "grpc": "GRPC", "rpc": "RPC", "oauth": "OAuth", "sso": "SSO",
    "url": "URL", "html": "HTML", "pdf": "PDF", "csv": "CSV", "json": "JSON", "llm": "LLM",
}

_WORD_SPLIT = re.compile(r"[\s_\-.]+|(?<=[a-z0-9])(?=[A-Z])")
_UNSAFE = re.compile(r'[*"\\/<>:|?#^\[\]%\x00-\x1f\x7f]')
# ``test_auth.py``, ``auth_test.go``, ``auth.test.ts``, ``auth.spec.js``, ``AuthTest.java``.
_TEST_FILE = re.compile(
    r"^(?:test_(?P<a>.+)|(?P<b>.+?)(?:_test|_spec|[.]test|[.]spec|Test|Tests|Spec))$"
)


def component_of(
    path: str, *, root: str | None = None, rules: Mapping[str, str] | None = None
) -> str | None:
    """The component name of ``path`` (absolute, or relative to ``root``), or None."""
    rel = _relative(path, root)
    if rel is None:
        return None
    for glob, name in (rules or {}).items():
        if fnmatchcase(rel, glob) or fnmatchcase(rel, glob.rstrip("/") + "/*"):
            return _clean(name, title=False)
    parts = [p for p in rel.split("/") if p not in ("", ".")]
    if not parts or any(p.startswith(".") for p in parts) or ".." in parts:
        return None
    project = _key(posixpath.basename(root.rstrip("/"))) if root else ""
    return _default(parts, project)


def _relative(path: str, root: str | None) -> str | None:
    path = unicodedata.normalize("NFC", path.strip().replace("\\", "/"))
    if not path:
        return None
    if root:
        base = unicodedata.normalize("NFC", root.strip().replace("\\", "/")).rstrip("/")
        if base and path.startswith(base + "/"):
            return path[len(base) + 1 :]
    return None if path.startswith("/") else path.removeprefix("./")


def _key(name: str) -> str:
    return re.sub(r"[\s_\-.]+", "", name).casefold()


def _default(parts: list[str], project: str) -> str | None:
    folders, file = parts[:-1], parts[-1]
    # Containers and the project's own package folder (``src/<project>/``) are skipped.
    while folders and (folders[0].casefold() in CONTAINERS or
                       (project and _key(folders[0]) == project)):
        folders = folders[1:]
    if folders and folders[0].casefold() in TEST_DIRS:
        inner = [f for f in folders[1:] if f.casefold() not in TEST_SUBDIRS]
        if inner:
            return _named(inner[0])
        return _named(_tested_module(file) or "")
    tested = _tested_module(file)
    if folders:
        first = folders[0]
        if first.casefold() in GENERIC_DIRS:
            return None
        return _named(first)
    if len(parts) == 1 and tested is None:
        return None  # a file at the project's root: README, pyproject.toml, main.py
    return _named(tested or _stem(file))


def _stem(file: str) -> str:
    stem, dot, _ = file.partition(".")
    return stem if dot else file


def _tested_module(file: str) -> str | None:
    stem = file.rsplit(".", 1)[0] if "." in file else file
    match = _TEST_FILE.match(stem)
    if match is None:
        return None
    module = match.group("a") or match.group("b") or ""
    return module or None


def _named(raw: str) -> str | None:
    if not raw or raw.casefold() in GENERIC_STEMS or raw.casefold() in GENERIC_DIRS:
        return None
    if raw.casefold() in TEST_DIRS:
        return None
    return _clean(raw, title=True)


def _clean(raw: str, *, title: bool) -> str | None:
    text = _UNSAFE.sub(" ", unicodedata.normalize("NFC", raw))
    if title:
        words = [w for w in _WORD_SPLIT.split(text) if w]
        text = " ".join(ACRONYMS.get(w.casefold(), w[:1].upper() + w[1:]) for w in words)
    text = " ".join(text.split())[:80]
    try:
        return names.sanitize_filename(text)
    except UnsafePath:
        return None
