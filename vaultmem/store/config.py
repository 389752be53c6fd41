"""Where the vault is, which project we are in, and the tunable numbers.

Resolution order (DESIGN §1): vault ``--vault`` > ``VAULTMEM_VAULT`` > ``vault`` in the config file
(``$XDG_CONFIG_HOME/vaultmem/config.toml``, else ``~/.config/vaultmem/config.toml``) >
``~/.claude-memory``. Project: ``--project`` > the main repository of the git checkout (so every
worktree shares one project) > the working directory's name (a Claude Code desktop worktree,
``.claude-worktrees/<repo>/<name>``, names its repository); always slugged.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import Any

from vaultmem.errors import ConfigError
from vaultmem.notes.lazyre import lazy
from vaultmem.notes.names import slug
from vaultmem.notes.redact import DEFAULT as DEFAULT_REDACTION
from vaultmem.notes.redact import Redaction

DEFAULT_GOTCHA_KEYWORDS = (
    "fixed bug",
    "troubleshot",
    "resolved",
    "root cause",
    "workaround",
    "gotcha",
)


EXTRACTORS = ("deterministic", "llm", "claude")


@dataclass(frozen=True)
class Config:
    """Everything a run needs to know that is not in the vault itself."""

    vault: Path
    project: str
    namespace: str = "claude"
    line_threshold: int = 500
    age_threshold_days: int = 3
    gotcha_keywords: tuple[str, ...] = DEFAULT_GOTCHA_KEYWORDS
    default_entity: str = "Inbox"
    extractor: str = "deterministic"  # or "llm" (the API) or "claude" (the user's Claude Code)
    model: str = "claude-haiku-4-5"
    claude_bin: str = "claude"  # the Claude Code CLI the claude extractor runs
    claude_timeout: float = 180.0  # seconds, then the extraction is killed
    claude_max_budget_usd: float = 0.25  # --max-budget-usd of one extraction (0: no cap)
    claude_input_tokens: int = 20000  # the session transcript is cut to about this many tokens
    # Seconds the session-start hook may spend compacting notes left pending.
    start_compaction_budget: float = 0.6
    context_max_chars: int = 8000
    # UserPromptSubmit tells the facts the vault holds about what a prompt names (claude/onprompt.py).
    prompt_context: bool = True
    # ``[components]``: glob -> component name, in the file's order (see memory/components.py).
    components: Mapping[str, str] = field(default_factory=dict)
    # ``[redact]``: secrets replaced by ``‹redacted:kind›`` in everything written (redact.py).
    redaction: Redaction = DEFAULT_REDACTION
    # Where ``vault`` came from: "option", "env", "config" or "default" (DESIGN §1's order).
    vault_from: str = "default"

    def with_project(self, project: str) -> Config:
        """The same configuration for another project."""
        return replace(self, project=slug(project))


def config_file(env: Mapping[str, str] | None = None) -> Path:
    """The config file path (it need not exist)."""
    env = os.environ if env is None else env
    base = env.get("XDG_CONFIG_HOME") or str(Path(env.get("HOME") or Path.home()) / ".config")
    return Path(base) / "vaultmem" / "config.toml"


def read_config_file(path: Path) -> dict[str, Any]:
    """The parsed TOML config, or ``{}`` when there is none."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return {}
    except OSError as err:
        raise ConfigError(f"cannot read config: {err.strerror}", path=path) from None
    # Imported only when there is a config file: hooks start faster without it.
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - exercised on 3.10 only
        import tomli as tomllib  # type: ignore[import-not-found,unused-ignore]
    try:
        data: dict[str, Any] = tomllib.loads(raw.decode("utf-8"))
        return data
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as err:
        raise ConfigError(f"invalid TOML: {err}", path=path) from None


def detect_project(cwd: Path) -> str:
    """The project slug of ``cwd``: its git repository's main checkout, else its own name.

    Read from ``.git`` (gitdirs), not from ``git rev-parse --git-common-dir``: every hook of a
    session whose project is not set in the environment asked git, a process start each. A path
    of another system (``C:\\Users\\me\\shop`` replayed on Linux) or one whose checkout is gone
    is named from its text alone (``folder_project``)."""
    from vaultmem.store.gitdirs import git_dirs

    text = str(cwd)
    if not _WINDOWS_PATH.match(text) or os.sep == "\\":
        real = Path(os.path.realpath(cwd))  # git names the real folder too
        found = git_dirs(real)
        if found is not None:
            gitdir, common = found[1], found[2]
            if common == gitdir and gitdir.parent.name == "worktrees":
                common = gitdir.parent.parent  # a worktree whose commondir cannot be read
            # <repo>/.git for normal and worktree checkouts, <repo>.git for bare repositories.
            repo = common.parent if common.name == ".git" else common
            name = repo.name.removesuffix(".git")
            if name:
                return slug(name)
        text = str(real)
    return slug(folder_project(text) or "default")


# A path written on Windows: a drive (``C:\\``, ``c:/``) or a UNC share (``\\\\server\\share``).
_WINDOWS_PATH = lazy(r"^(?:[A-Za-z]:[\\/]|\\\\[^\\/])")
# Claude Code's desktop app checks a session's worktree out under ``~/.claude-worktrees``, as
# ``<repo>/<name>`` (or ``<repo>-<adjective>-<name>`` in one folder).
CLAUDE_WORKTREES = ".claude-worktrees"


def folder_project(path: str) -> str:
    """The project a folder's path names when no checkout can be read: the repository of a Claude
    Code worktree, else the last folder (a Windows path read as one on any system)."""
    pure = PureWindowsPath(path) if _WINDOWS_PATH.match(path) else PurePosixPath(path)
    names = [p for p in pure.parts if p != pure.anchor]
    for at, part in enumerate(names[:-1]):
        if part.lower() == CLAUDE_WORKTREES:
            if at + 2 < len(names):
                return names[at + 1]  # <repo>/<name>[/sub/folder]
            words = names[at + 1].split("-")
            return "-".join(words[:-2]) if len(words) > 2 else names[at + 1]
    return names[-1] if names else ""


def _typed(data: Mapping[str, Any], key: str, kind: type, default: Any, path: Path) -> Any:
    value = data.get(key, default)
    if kind is tuple and isinstance(value, list):
        value = tuple(str(v) for v in value)
    if kind is float and isinstance(value, int):
        value = float(value)
    if not isinstance(value, kind) or isinstance(value, bool) and kind is not bool:
        raise ConfigError(f"'{key}' must be {kind.__name__}, got {value!r}", path=path)
    return value


def _choice(value: str, key: str, accepted: tuple[str, ...], where: Path | str) -> str:
    if value not in accepted:
        raise ConfigError(f"'{key}' must be one of {', '.join(accepted)}, got {value!r}",
                          path=where)
    return value


def load_config(
    *,
    vault: str | Path | None = None,
    project: str | None = None,
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
) -> Config:
    """Build the configuration from options, environment and the config file."""
    env = os.environ if env is None else env
    path = config_file(env)
    data = read_config_file(path)
    _check_keys(data, path)
    home = Path(env.get("HOME") or Path.home())
    root_value, vault_from = next(
        (value, source) for value, source in (
            (vault, "option"), (env.get("VAULTMEM_VAULT"), "env"), (data.get("vault"), "config"),
            (home / ".claude-memory", "default"),
        ) if value
    )
    if not isinstance(root_value, (str, Path)):
        raise ConfigError(f"'vault' must be str, got {root_value!r}", path=path)
    root = Path(os.path.expanduser(str(root_value))).absolute()
    if project:
        project_name = slug(project)
    elif env.get("VAULTMEM_PROJECT"):
        project_name = slug(env["VAULTMEM_PROJECT"])
    else:
        project_name = detect_project(cwd or Path.cwd())
    if not project_name:
        raise ConfigError(f"project name {project!r} has no usable characters")
    namespace = str(data.get("namespace", "claude")).strip("/") or "claude"
    return Config(
        vault=root,
        project=project_name,
        namespace=namespace,
        line_threshold=_typed(data, "line_threshold", int, 500, path),
        age_threshold_days=_typed(data, "age_threshold_days", int, 3, path),
        gotcha_keywords=_typed(data, "gotcha_keywords", tuple, DEFAULT_GOTCHA_KEYWORDS, path),
        default_entity=_typed(data, "default_entity", str, "Inbox", path),
        extractor=_choice(
            env.get("VAULTMEM_EXTRACTOR") or _typed(data, "extractor", str, "deterministic", path),
            "extractor", EXTRACTORS,
            "VAULTMEM_EXTRACTOR" if env.get("VAULTMEM_EXTRACTOR") else path),
        model=env.get("VAULTMEM_MODEL") or _typed(data, "model", str, "claude-haiku-4-5", path),
        claude_bin=_typed(data, "claude_bin", str, "claude", path),
        claude_timeout=_typed(data, "claude_timeout", float, 180.0, path),
        claude_max_budget_usd=_typed(data, "claude_max_budget_usd", float, 0.25, path),
        claude_input_tokens=_typed(data, "claude_input_tokens", int, 20000, path),
        start_compaction_budget=_typed(data, "start_compaction_budget", float, 0.6, path),
        context_max_chars=_typed(data, "context_max_chars", int, 8000, path),
        prompt_context=_typed(data, "prompt_context", bool, True, path),
        components=_components(data.get("components", {}), path),
        redaction=_redaction(data.get("redact"), path),
        vault_from=vault_from,
    )


def _check_keys(data: Mapping[str, Any], path: Path) -> None:
    """A key vaultmem does not know is a typo until proven otherwise (``valut = …`` silently
    left the default vault in use): the error names it and the nearest known key."""
    for key in data:
        if key in _KNOWN:
            continue
        import difflib  # only for a key it does not know: kept off every hook's start-up

        near = difflib.get_close_matches(key, sorted(_KNOWN), n=1, cutoff=0.5)
        hint = f" (did you mean '{near[0]}'?)" if near else ""
        raise ConfigError(f"unknown key '{key}'{hint}; known keys: {', '.join(sorted(_KNOWN))}",
                          path=path)


def _components(table: Any, path: Path) -> dict[str, str]:
    if not isinstance(table, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in table.items()
    ):
        raise ConfigError("'components' must be a table of glob = \"Name\" strings", path=path)
    return dict(table)


def _redaction(table: Any, path: Path) -> Redaction:
    """``[redact]``: ``enabled`` (default true) and ``allow`` (values or regexes)."""
    if table is None:
        return DEFAULT_REDACTION
    if not isinstance(table, dict):
        raise ConfigError("'redact' must be a table: [redact] enabled = true, allow = [...]",
                          path=path)
    enabled = table.get("enabled", True)
    allow = table.get("allow", [])
    if not isinstance(enabled, bool):
        raise ConfigError(f"'redact.enabled' must be true or false, got {enabled!r}", path=path)
    if not isinstance(allow, list) or not all(isinstance(a, str) for a in allow):
        raise ConfigError("'redact.allow' must be a list of strings", path=path)
    return Redaction(enabled, tuple(allow))


_KNOWN = {
    "components",
    "redact",
    "vault",
    "namespace",
    "line_threshold",
    "age_threshold_days",
    "gotcha_keywords",
    "default_entity",
    "extractor",
    "model",
    "claude_bin",
    "claude_timeout",
    "claude_max_budget_usd",
    "claude_input_tokens",
    "start_compaction_budget",
    "prompt_context",
    "context_max_chars",
}
