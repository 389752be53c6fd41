"""A compiler's diagnostic on code being written, and whether its fix changed more than that
code (pure).

An "Errors and fixes" entry or a failure-then-pass is worth an entity line when the next session
can use it: a cause with a fix about the project's setup, a tool, the machine. A compiler's or
type checker's diagnostic on code still being written (``error[E0277]: the trait bound … is not
satisfied``, ``error TS2345: …``, ``View.swift:12:5: error: …``), fixed by changing that code,
is work in progress: the session note keeps it, no entity files it (DESIGN §10, issue 19). The
same diagnostic fixed in the build's setup (a manifest, a dependency, a feature, the toolchain,
an environment variable) is a lesson and stays one. A line a tool printed (an exception, a stack
frame, a compiler's or test runner's verdict) with no cause or fix said beside it is no gotcha at
all: it is what went wrong, not what was learnt.
"""

from __future__ import annotations

import re

from vaultmem.notes.lazyre import lazy

# Diagnostics with a code or a source position: rustc, tsc, C#/F#, javac, Go, mypy, and the
# ``file:line[:col]: error:`` form of gcc, clang, swiftc, kotlinc, go build.
_DIAGNOSTIC_RE = lazy(
    r"\berror\[E\d{3,4}\]|\berror (?:TS|CS|FS)\d{3,5}\b|\b(?:TS|CS)\d{4}:|"
    r"\S+\.(?:rs|ts|tsx|mts|cts|js|jsx|swift|go|c|cc|cpp|cxx|h|hh|hpp|m|mm|java|kt|kts|cs|fs|"
    r"scala|hs|ml|zig|dart|py|pyi|ex|exs)(?::\d+){1,2}:? *(?:fatal )?error\b|"
    r"\berror: cannot find symbol\b|\bundefined: [\w.]+|"
    r"\berror: .{1,200}\[(?:arg-type|attr-defined|name-defined|assignment|return-value|"
    r"call-arg|union-attr|index|override|misc|var-annotated|import|no-redef|operator)\]|"
    r"\b(?:SyntaxError|IndentationError|TabError): |\*\* \(CompileError\)"
)
# A fix in the build's setup rather than in the code: a manifest or lock file, a dependency, a
# feature flag, the toolchain, the environment.
_SETUP_FILE = (
    r"\b(?:Cargo\.(?:toml|lock)|package(?:-lock)?\.json|pnpm-lock\.yaml|yarn\.lock|"
    r"pyproject\.toml|setup\.(?:py|cfg)|requirements[\w.-]*\.txt|Pipfile|uv\.lock|poetry\.lock|"
    r"go\.(?:mod|sum)|Gemfile|mix\.(?:exs|lock)|build\.gradle(?:\.kts)?|pom\.xml|"
    r"Package\.(?:swift|resolved)|tsconfig[\w.-]*\.json|CMakeLists\.txt|Makefile|meson\.build|"
    r"Dockerfile|\.env\b|\.csproj|\.cabal|rust-toolchain(?:\.toml)?|\.nvmrc|\.tool-versions)"
)
_SETUP_FILE_RE = lazy(_SETUP_FILE, re.IGNORECASE)
_SETUP_FIX_RE = lazy(
    _SETUP_FILE + r"|\b(?:dependenc(?:y|ies)|features?\b|install(?:s|ed|ing)?\b|"
    r"upgrad(?:e|ed|ing)|downgrad(?:e|ed|ing)|pinn(?:ed|ing)|version|toolchain|edition|"
    r"environment|env var|compiler flags?|linker|sdk\b|nightly\b)",
    re.IGNORECASE,
)


def compile_error(text: str) -> bool:
    """Whether ``text`` holds a compiler's or type checker's diagnostic."""
    return _DIAGNOSTIC_RE.search(text) is not None


def setup_fix(text: str) -> bool:
    """Whether a fix's text changes the build's setup (manifest, dependency, toolchain, env)."""
    return _SETUP_FIX_RE.search(text) is not None


def setup_file(path: str) -> bool:
    """Whether ``path`` is a file of the build's setup (a manifest, a lock file, the toolchain's)
    by its name: ``Cargo.toml``, not ``src/version.py``."""
    return _SETUP_FILE_RE.search(path.replace("\\", "/").rsplit("/", 1)[-1]) is not None


def code_in_progress(error: str, fix: str) -> bool:
    """Whether ``error`` is a compile diagnostic that ``fix`` cleared by changing the code only:
    work in progress, not a lesson for an entity."""
    return compile_error(error) and not setup_fix(fix)


# A line a tool printed: an exception, a stack frame, a compiler diagnostic, a runner's verdict.
_LOG_LINE_RE = lazy(
    r"\A[`'\"]*\s*(?:Traceback \(most recent call last\)|[\w.]*(?:Error|Exception):|"
    r"[\w.]*Warning:|(?:error|warning)(?:\[\w+\])?:|fatal:|panic:|FAILED\b|ERROR\b|E {2,}|"
    r"at [\w$.<>/-]+ ?\(|npm (?:ERR|WARN)!|\*\* \([\w.]+\)|WRN\b|thread '[^']*' panicked|"
    r"[\w./-]+\.\w+(?::\d+){1,2}:? *(?:fatal )?(?:error|warning)\b)"
)
# Words that say why it happened or what made it work: then the line is a lesson.
_SAID_WHY_RE = lazy(
    r"\b(?:fix(?:ed|es)?|resolved?|solved|solution|workaround|instead|because|caused by|"
    r"due to|root cause|needs?|must|requires?|by (?:adding|removing|using|setting|pinning|"
    r"passing|calling|running|renaming|upgrading|installing|restarting))\b|→|->",
    re.IGNORECASE,
)


def bare_error(text: str) -> bool:
    """Whether ``text`` is only a line a tool printed (an error, a stack frame, a diagnostic)
    with no cause or fix said beside it."""
    return _LOG_LINE_RE.match(text) is not None and _SAID_WHY_RE.search(text) is None
