"""A file path -> the project component it belongs to (pure).

The default rule finds the deepest stable folder below the source roots of the common layouts
(DESIGN §9, issue 19):

- Python ``src/<package>/<sub>/`` -> Sub, the package known by the project's name (its folder's,
  ``-``/``_`` aside: ``acme-shop`` and ``src/acme_shop/``); otherwise the first folder below
  ``src/`` (``src/auth/tokens.py`` -> Auth), and a flat layout's own package folder is skipped
  (``vaultmem/claude/x.py`` -> Claude);
- Elixir ``lib/<app>/<feature>/`` -> Feature, ``lib/<app>/invoices.ex`` -> Invoices,
  ``lib/<app>_web/live/invoice_live/…`` -> Invoice (the web folder's plumbing: none);
- JS/TS ``src/``, ``app/``, ``packages/<x>/src/`` -> the first folder that is not a grouping
  (``src/features/billing/`` -> Billing; ``packages/api/src/`` -> API);
- Go ``internal/<x>/``, ``cmd/<x>/``, ``pkg/<x>/``; Rust ``crates/<x>/src/``, ``src/<mod>/``;
  Swift packages ``Sources/<target>/<x>/`` (the target known by the project's name is skipped);
- Java/Kotlin ``src/main/java/<dotted>/<feature>/`` -> the folder the class is in.

A module file right in a container is its own component (``src/auth.py`` -> ``Auth``) unless its
name is generic (``main``, ``utils``, ...). A layer of the code (``api``, ``db``, ``models``, ``controllers``,
``migrations``…) is skipped like a grouping (``src/api/billing/x.ts`` -> Billing); a module right
inside one names a feature only by its layer's suffix (``invoices_controller.rb`` -> Invoices;
``src/db/repo_042.py`` -> None); ``utils``, ``helpers``, ``common`` and ``shared`` hold none. No component is ever named after a source root or a
generic folder (``Src``, ``Sources``, ``Lib``, ``App``, ``Web``, ``Priv``, ``Test``, ``Assets``,
``Config``…).
The continuous integration's definitions (``.github/workflows/``, ``.gitlab-ci.yml``, ``.circleci/``,
``Jenkinsfile``…) are one component, ``CI``: a failing workflow's gotchas belong together. An
item is the CI's only by its own words (:func:`speaks_of_ci`): a turn that edited a workflow
beside a script is no evidence that the script's gotcha is the pipeline's (issue 29).
A test names a component only through the module it tests (``tests/test_auth.py``,
``auth_test.go``, ``test/shop/accounts_test.exs``), flagged ``from_test``: capture keeps such a
name only where the source has that component too. Any other file at the project's
root, in documentation, configuration or tooling folders, or a hidden folder, has no component (None).

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
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fnmatch import fnmatchcase

from vaultmem.errors import UnsafePath
from vaultmem.mining import mentions, tools
from vaultmem.notes import names, nearnames
from vaultmem.notes.lazyre import lazy

# Folders that hold components rather than being one.
CONTAINERS = frozenset({
    "src", "source", "sources", "app", "apps", "lib", "libs", "packages", "pkg", "pkgs", "internal", "cmd",
    "modules", "services", "crates", "projects", "backend", "frontend", "server",
})
# A user's own folders: a session started in the home folder (Claude Code's ``cwd`` is ``~``)
# touches ``Documents/<project>/…``; the folder below one is the component, never the folder.
HOME_DIRS = frozenset({
    "documents", "downloads", "desktop", "pictures", "music", "movies", "videos", "library",
    "applications",
    "appdata", "developer", "dev", "code", "repos", "workspace", "workspaces", "dropbox",
    "onedrive", "icloud drive", "mobile documents", ".config", ".local",
})
# A Windows path's drive (``C:/``): absolute, never a folder of the project.
_DRIVE_RE = lazy(r"^[A-Za-z]:(?:/|$)")
# Applications' own files in a home folder (``~/AppData/Local/…``, ``~/Library/Caches/…``):
# settings, caches and temporary files, never the user's code.
APP_DATA = frozenset({"appdata"})
APP_DATA_UNDER_LIBRARY = frozenset({"application support", "caches", "preferences", "containers",
                                    "group containers", "logs", "saved application state"})
# Folders (at the top, or under a container) that are not a component of the code.
GENERIC_DIRS = frozenset({
    "docs", "doc", "documentation", "config", "configs", "conf", "etc", "scripts", "script",
    "bin", "build", "dist", "out", "target", "node_modules", "vendor", "third_party",
    "assets", "static", "public", "resources", "res", "examples", "example", "samples",
    "fixtures", "testdata", "tmp", "temp", "tools", "deploy", "deployment", "infra", "ci",
    "main", "java", "kotlin", "python", "go", "js", "ts", "generated", "gen", "priv", "web",
    "www", "support", "styles", "layouts", "types", "typings", "migrations_old", "deps",
    "_build", "coverage", "logs", "log", "data", "media", "locale", "locales", "i18n",
    "utils", "util", "helpers", "helper", "common", "shared",
})
# Groupings of a layout that hold components: skipped (``src/features/billing/`` -> Billing).
LAYOUT_DIRS = frozenset({"features", "feature", "modules", "domains", "domain", "contexts",
                         "components", "pages", "views", "screens", "routes", "hooks"})
# A layer of the code, not a feature of it (``src/db/``, ``app/models/``, ``src/api/``): skipped
# like a grouping (``src/api/billing/`` -> Billing); a module right inside one names a feature
# only by its layer's suffix (``invoices_controller.rb`` -> Invoices), never the layer (issue 29).
LAYER_DIRS = frozenset({
    "api", "apis", "db", "database", "databases", "models", "model", "controllers", "controller",
    "services", "service", "handlers", "handler", "middleware", "middlewares", "schemas", "schema",
    "serializers", "repositories", "repos", "stores", "store", "resolvers", "jobs", "workers",
    "mailers", "policies", "validators", "lib", "libs", "core", "dto", "dtos", "migrations", "graphql", "rest", "endpoints",
    "routers", "router", "providers", "ui", "queries", "mutations", "actions", "reducers",
    "slices", "selectors", "interfaces", "adapters", "repository",
})
# Where schema migrations live (Django's migrations/, Alembic's alembic/ or migrations/versions/,
# Rails' db/migrate/): numbered files of the schema, never a component, at any depth.
MIGRATION_DIRS = frozenset({"migrations", "migration", "alembic", "migrate"})
# A layer's name at the end of a module's ("invoices_controller", "InvoiceService").
_LAYER_SUFFIX = lazy(
    r"(?<=[a-z0-9])[_.-]?(?:controller|service|model|view|helper|serializer|handler|job|worker|"
    r"policy|repository|repo|store|schema|resolver|router|routes|middleware|mailer|validator|"
    r"queries|query|slice|reducer|adapter)s?$", re.IGNORECASE)
# A web app's plumbing folders (``lib/<app>_web/``, ``app/``): never a component themselves.
WEB_DIRS = frozenset({"controllers", "live", "components", "views", "templates", "channels",
                      "plugs", "layouts", "html", "json", "helpers", "live_components", "web"})
WEB_PLUMBING = frozenset({"endpoint", "router", "telemetry", "gettext", "layouts",
                          "core_components", "user_socket", "error_html", "error_json",
                          "page_html", "presence"})
WEB_SUFFIX_RE = lazy(
    r"_(?:live|controller|html|json|view|views|component|components|channel|socket|live_test|"
    r"controller_test|html_test|view_test|live_component)$"
)
ELIXIR_EXTS = frozenset({"ex", "exs", "heex", "eex", "leex", "sface"})
JAVA_EXTS = frozenset({"java", "kt", "kts", "scala", "groovy"})
JAVA_ROOTS = frozenset({"java", "kotlin", "scala", "groovy"})
JAVA_GENERIC = frozenset({"com", "org", "net", "io", "dev", "edu", "gov", "me", "co", "impl",
                          "internal", "model", "models", "dto", "dtos", "util", "utils",
                          "entity", "entities", "exception", "exceptions", "config"})
# Names no component may have: source roots and generic folders (issue 19).
FORBIDDEN = frozenset({"src", "source", "sources", "lib", "libs", "app", "apps", "web", "www", "priv",
                       "internal", "pkg", "pkgs", "cmd", "test", "tests", "spec", "specs",
                       "assets", "config", "configs", "static", "public", "core", "server",
                       "client", "backend", "frontend", "packages", "crates", "modules",
                       "components", "routes", "pages", "docs", "views", "scripts", "layouts",
                       "features", "hooks", "templates", "types",
                       "utils", "util", "helpers", "helper", "common", "shared", *LAYER_DIRS,
                       *(_dir.replace(" ", "") for _dir in HOME_DIRS)})
# The continuous integration's definitions: a folder of them, or a file at the project's root.
CI = "CI"
CI_DIRS = frozenset({".circleci", ".buildkite", ".woodpecker", ".gitlab", ".azure-pipelines"})
CI_FILES = frozenset({".gitlab-ci.yml", ".travis.yml", ".drone.yml", ".woodpecker.yml",
                      "azure-pipelines.yml", "bitbucket-pipelines.yml", "jenkinsfile",
                      "cloudbuild.yaml", "cloudbuild.yml", "appveyor.yml", ".appveyor.yml"})
# Words that say a text is about the CI (as ``mentions.text_keys`` reads them: ``workflows``
# -> ``workflow``, ``CI/CD`` -> ``ci``, ``cd``), besides "GitHub Actions"; an identifier may
# start with one of the long ones (``workflow_dispatch``).
CI_WORDS = frozenset({"ci", "cicd", "runner", "circleci", "jenkinsfile", "buildkite"})
CI_STEMS = ("workflow", "pipeline", "githubaction")
# A dependency's files: its CI is not the project's.
_VENDORED = frozenset({"node_modules", "vendor", "third_party", "deps", "_build", "target"})
TEST_DIRS = frozenset({"tests", "test", "spec", "specs", "__tests__", "testing"})
TEST_SUBDIRS = frozenset({"unit", "integration", "e2e", "functional", "acceptance", "system",
                          "regression", "smoke", "tests", "test", "__tests__"})
# Folders of a project's own scripts, each script its own component when a command runs it.
SCRIPT_DIRS = frozenset({"scripts", "script", "bin", "tools", "tool"})
# Script names that say nothing about what the script does.
SCRIPT_STEMS = frozenset({"run", "start", "script", "scripts", "cli", "dev", "do", "go"})
# Module names that say nothing about what the code is for.
GENERIC_STEMS = frozenset({
    "main", "index", "app", "__init__", "__main__", "init", "utils", "util", "utilities",
    "helpers", "helper",
    "common", "shared", "misc", "config", "settings", "constants", "types", "setup", "conftest",
    "manage", "wsgi", "asgi", "version", "_version", "base", "mod", "lib", "test", "tests",
    "readme", "changelog", "license", "makefile", "dockerfile", "conf", "globals", "vite.config",
    "application", "repo", "mailer", "release", "test_helper", "build", "mix",
})
ACRONYMS = {
    "api": "API", "db": "DB", "ui": "UI", "cli": "CLI", "sdk": "SDK", "http": "HTTP",
    "sql": "SQL", "jwt": "JWT", "orm": "ORM", "css": "CSS", "io": "IO", "ml": "ML", "ai": "AI",
    "ux": "UX", "ci": "CI", "grpc": "GRPC", "rpc": "RPC", "oauth": "OAuth", "sso": "SSO",
    "url": "URL", "html": "HTML", "pdf": "PDF", "csv": "CSV", "json": "JSON", "llm": "LLM",
}

_WORD_SPLIT = lazy(r"[\s_\-.]+|(?<=[a-z0-9])(?=[A-Z])")
_UNSAFE = lazy(r'[*"\\/<>:|?#^\[\]%\x00-\x1f\x7f]')
# ``test_auth.py``, ``auth_test.go``, ``auth.test.ts``, ``auth.spec.js``, ``AuthTest.java``.
_TEST_FILE = lazy(
    r"^(?:test_(?P<a>.+)|(?P<b>.+?)(?:_test|_spec|[.]test|[.]spec|Test|Tests|Spec))$"
)


def component_of(
    path: str, *, root: str | None = None, rules: Mapping[str, str] | None = None,
    project: str = "",
) -> str | None:
    """The component name of ``path`` (absolute, or relative to ``root``), or None."""
    found = origin_of(path, root=root, rules=rules, project=project)
    return found.name if found is not None else None


@dataclass(frozen=True)
class Origin:
    """A path's component and whether only a test's name gave it (``tests/test_refunds.py``):
    such a name counts only where the source has the component too."""

    name: str
    from_test: bool = False


def origin_of(
    path: str, *, root: str | None = None, rules: Mapping[str, str] | None = None,
    project: str = "",
) -> Origin | None:
    """The component of ``path`` and where it came from, or None. ``project``: the vault
    project the path's session is filed under; a folder of its name is the project itself,
    never one of its components (a session begun in the parent folder touches
    ``shop/src/auth/x.py``, as one begun inside touches ``src/auth/x.py``: both are Auth)."""
    rel = relative(path, root)
    if rel is None:
        return None
    for glob, name in (rules or {}).items():
        if fnmatchcase(rel, glob) or fnmatchcase(rel, glob.rstrip("/") + "/*"):
            cleaned = _clean(name, title=False)
            return Origin(cleaned) if cleaned else None
    parts = [p for p in rel.split("/") if p not in ("", ".")]
    if not parts or ".." in parts:
        return None
    if _is_ci(parts):
        return Origin(CI)
    if any(p.startswith(".") for p in parts):
        return None
    own = {_key(posixpath.basename(root.rstrip("/"))) if root else "", _key(project)} - {""}
    return _default(parts, own)


def of_script(path: str, *, project: str = "") -> str | None:
    """The component of a file of the project a command runs (``python src/shop/cli.py``: Shop):
    its folder's (:func:`origin_of`), else, for a script at the project's root or in a folder
    of scripts (``scripts/``, ``bin/``, ``tools/``), the script itself by its file name without
    its extension, as commands write it (``scripts/sync_logs.py`` -> ``sync_logs``); None for a
    test, a hidden file, a deeper file or a name that says nothing (``main``, ``run``)."""
    found = origin_of(path, project=project)
    if found is not None:
        return None if found.from_test or found.name == CI else found.name
    parts = [p for p in path.split("/") if p not in ("", ".")]
    if len(parts) > 1 and _key(parts[0]) == _key(project):
        parts = parts[1:]
    if not parts or len(parts) > 2 or (len(parts) == 2 and parts[0].casefold() not in SCRIPT_DIRS):
        return None
    stem = parts[-1].rsplit(".", 1)[0] if "." in parts[-1][1:] else parts[-1]
    low = stem.casefold()
    if stem.startswith(".") or low in GENERIC_STEMS or low in SCRIPT_STEMS \
            or _key(stem) in FORBIDDEN or _tested_module(stem):
        return None
    return _clean(stem, title=False)


def failing_script(text: str, project: str) -> list[str]:
    """The component of the project's own code that ``text``'s failing command runs
    (:func:`tools.script_of`, :func:`of_script`), as a list of at most one; ``project``'s own
    name is none."""
    script = tools.script_of(text)
    found = of_script(script, project=project) if script else None
    return [found] if found and not nearnames.same(found, project) else []


def speaks_of_ci(text: str) -> bool:
    """Whether ``text`` is about the continuous integration: it names the CI, a workflow, a
    pipeline, a runner, GitHub Actions or one of the CI's files (``.gitlab-ci.yml``)."""
    said = mentions.text_keys(text)
    return bool(said & CI_WORDS) or any(key.startswith(CI_STEMS) for key in said) \
        or {"github", "action"} <= said


def relative(path: str, root: str | None) -> str | None:
    r"""``path`` relative to ``root`` with ``/`` separators (NFC), or None when it is absolute
    elsewhere: a POSIX path, a Windows one (``C:\Users\…``, whose drive and folders are
    matched case-insensitively, as Windows does), ``~/…``."""
    path = unicodedata.normalize("NFC", path.strip().replace("\\", "/"))
    if not path:
        return None
    if root:
        base = unicodedata.normalize("NFC", root.strip().replace("\\", "/")).rstrip("/")
        fold = _DRIVE_RE.match(base) is not None
        if base and (path.casefold() if fold else path).startswith(
                (base.casefold() if fold else base) + "/"):
            return path[len(base) + 1 :]
    if path.startswith(("/", "~/")) or _DRIVE_RE.match(path):
        return None
    return path.removeprefix("./")


def _key(name: str) -> str:
    return re.sub(r"[\s_\-.]+", "", name).casefold()


def _default(parts: list[str], project: set[str]) -> Origin | None:
    if len(parts) > 1 and _key(parts[0]) in project:
        # <project>/…: a session begun in the project's parent folder; its root is below.
        return _default(parts[1:], project)
    folders, file = parts[:-1], parts[-1]
    ext = file.rsplit(".", 1)[-1].casefold() if "." in file else ""
    top = folders[0].casefold() if folders else ""
    if top in ("priv", "deps", "_build"):
        return None  # Elixir: static files and migration scripts, dependencies, builds
    if ext in JAVA_EXTS:
        return _java(folders)
    if ext in ELIXIR_EXTS and top in ("lib", "test"):
        return _elixir(folders[1:], file, from_test=top == "test")
    if folders and folders[0].casefold() in HOME_DIRS:
        if folders[0].casefold() in APP_DATA or (
                folders[0].casefold() == "library" and len(folders) > 1
                and folders[1].casefold() in APP_DATA_UNDER_LIBRARY):
            return None
        while folders and folders[0].casefold() in HOME_DIRS:
            folders = folders[1:]  # ~/Documents/, ~/Developer/: where projects are kept
        if not folders:
            return None  # a file kept in ~/Downloads is no part of any code
        if _key(folders[0]) in project:
            return _default([*folders, file], project)  # ~/Documents/<project>/…
    # Containers and the project's own folder (``src/<project>/``, ``<project>/src/``) are
    # skipped.
    while folders and (folders[0].casefold() in CONTAINERS or _key(folders[0]) in project):
        folders = folders[1:]
    if folders and folders[0].casefold() in TEST_DIRS:
        return _tested(folders[1:], file, project)
    if any(f.casefold() in MIGRATION_DIRS for f in folders):
        return None  # a schema migration (migrations/versions/0002_x.py) is the schema's, no part
    layered = False  # a layer folder (src/db/) was skipped: its modules name features
    while folders and folders[0].casefold() in LAYOUT_DIRS | LAYER_DIRS:
        layered = layered or folders[0].casefold() in LAYER_DIRS
        folders = folders[1:]  # a grouping (src/features/, src/components/), not a part
    tested = _tested_module(file)
    if folders:
        first = folders[0]
        if first.casefold() in GENERIC_DIRS:
            return None
        return _origin(first)
    if layered and tested is None:
        # A module named for its feature and layer names the feature (invoices_controller.rb ->
        # Invoices); any other module right in a layer is one piece of it (src/db/repo_042.py,
        # app/models/invoice.rb: hundreds of them would each be an entity).
        stem = _stem(file)
        feature = _LAYER_SUFFIX.sub("", stem)
        return _origin(feature) if feature != stem else None
    if len(parts) == 1 and tested is None:
        return None  # a file at the project's root: README, pyproject.toml, main.py
    if tested is not None:
        return _origin(tested, from_test=True)
    if any(p.casefold() in LAYOUT_DIRS for p in parts[:-1]):
        return None  # src/components/Button.tsx: one UI piece, not a part of the project
    return _origin(_LAYER_SUFFIX.sub("", _stem(file)))


def _is_ci(parts: list[str]) -> bool:
    """Whether ``parts`` (a relative path) is one of the CI's definitions, in the project or
    in a folder of it (a session begun in the parent folder), not in a dependency's."""
    for index, part in enumerate(parts):
        low = part.casefold()
        if low in _VENDORED or (low.startswith(".") and index < len(parts) - 1
                                and low not in CI_DIRS and low != ".github"):
            return False
        if low == ".github":
            return index + 2 < len(parts) and parts[index + 1].casefold() in ("workflows",
                                                                              "actions")
        if low in CI_DIRS:
            return index + 1 < len(parts)
    return parts[-1].casefold() in CI_FILES


def _tested(folders: list[str], file: str, project: set[str]) -> Origin | None:
    """A test's component: its folder below the test root, else the module its name tests."""
    inner = [f for f in folders if f.casefold() not in TEST_SUBDIRS and _key(f) not in project]
    while inner and inner[0].casefold() in LAYOUT_DIRS:
        inner = inner[1:]
    if inner:
        # A test target named for what it tests (SwiftPM ``Tests/LedgerTests/``) -> Ledger.
        return _origin(_tested_module(inner[0]) or inner[0], from_test=True)
    return _origin(_tested_module(file) or "", from_test=True)


def _elixir(folders: list[str], file: str, *, from_test: bool) -> Origin | None:
    """Below ``lib/`` (or ``test/``): ``<app>/<feature>/…`` -> Feature, ``<app>/invoices.ex`` ->
    Invoices, ``<app>_web/live/invoice_live/…`` -> Invoice; ``lib/<app>.ex`` is the app."""
    if not folders:
        return None  # lib/shop.ex, test/test_helper.exs
    app, inner = folders[0], folders[1:]
    stem = _stem(file)
    if from_test:
        stem = _tested_module(file) or stem
        inner = [f for f in inner if f.casefold() not in TEST_SUBDIRS]
    if app.casefold() == "support":
        return None  # test/support/: fixtures and cases
    if _key(app).endswith("web"):
        inner = [f for f in inner if f.casefold() not in WEB_DIRS]
        raw = WEB_SUFFIX_RE.sub("", inner[0] if inner else stem)
        if raw.casefold() in WEB_PLUMBING:
            return None
        return _origin(raw, from_test=from_test)
    while inner and inner[0].casefold() in LAYER_DIRS:
        inner = inner[1:]  # lib/shop/schemas/, lib/shop/workers/: a layer of the app
    if inner:
        if inner[0].casefold() in GENERIC_DIRS:
            return None
        return _origin(inner[0], from_test=from_test)
    return _origin(_LAYER_SUFFIX.sub("", stem), from_test=from_test)


def _java(folders: list[str]) -> Origin | None:
    """``src/main/java/com/acme/shop/billing/InvoiceService.java`` -> Billing: the folder the
    class is in (a package path's depth says nothing), its parent when that one is generic."""
    lowered = [f.casefold() for f in folders]
    tests = any(f in ("test", "tests", "androidtest") for f in lowered[:3])
    for index in range(len(folders) - 1, -1, -1):
        name = lowered[index]
        if name in JAVA_ROOTS or name in CONTAINERS or name in TEST_DIRS:
            break
        if name in GENERIC_DIRS or name in JAVA_GENERIC or name in LAYER_DIRS:
            continue
        return _origin(folders[index], from_test=tests)
    return None


def _origin(raw: str, *, from_test: bool = False) -> Origin | None:
    name = _named(raw)
    return Origin(name, from_test) if name else None


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
    low = raw.casefold()
    if not raw or low in GENERIC_STEMS or low in GENERIC_DIRS or low in TEST_DIRS:
        return None
    if _key(raw) in FORBIDDEN:
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


def one_home(parts: Sequence[tuple[str, Sequence[str]]]) -> tuple[str, ...]:
    """The one component of a session's components ``(name, folders)``: the only one, or the
    one whose folders hold every other's (``src/`` holds ``src/backend/``: one component and a
    part of it); () otherwise. The CI is no home of other components (it holds only what
    speaks of it)."""
    outer = [p for p in parts if not any(q is not p and _inside(p[1], q[1]) for q in parts)]
    if len(outer) != 1 or (len(parts) > 1 and names.name_key(outer[0][0]) == names.name_key(CI)):
        return ()
    return (outer[0][0],)


def _inside(folders: Sequence[str], roots: Sequence[str]) -> bool:
    """Whether every one of ``folders`` is under one of ``roots`` (and not one of them)."""
    return bool(folders) and all(
        any(f != root and f.startswith(root.rstrip("/") + "/") for root in roots)
        for f in folders)
