"""detect-secrets' detectors as data, cached on disk: a hook redacts without importing it.

Importing detect-secrets and listing its plugins costs about 0.25 s of CPU (most of it
``requests``, which its plugins import to verify keys; vaultmem never verifies), a sixth of the
SessionEnd budget. What redaction needs from it is data: each regex detector's patterns, the
keyword rules with the group of their value, the indirect-reference filter, the entropy
charsets. The first process that needs them imports detect-secrets and writes them to
``$XDG_CACHE_HOME/vaultmem/detect-secrets-<version>-<SCHEMA>.json`` (else ``~/.cache/…``); later ones
read that file (a few ms). The installed version is read from the package's ``__version__.py``
without importing it, so an upgrade of detect-secrets rebuilds the cache. The cache also holds
each detector's literals (secretgate: reading them costs half a compile), the vendors' patterns
(secretshapes) too; a pattern it lacks (a newer vaultmem) has its literals derived and cached.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path
from typing import Any

from vaultmem.notes.secretgate import Gated, Requirement
from vaultmem.notes.secretshapes import VENDOR_PATTERNS

SCHEMA = 2  # bumped when what is cached changes (secretgate's reading of literals too)


@dataclass(frozen=True)
class Rules:
    """detect-secrets' detectors as plain data."""

    plugins: tuple[tuple[str, str, int], ...]  # (secret type, pattern, flags), regex detectors
    keywords: tuple[tuple[str, int, int], ...]  # (pattern, flags, the value's group)
    indirect: tuple[str, int]  # the indirect-reference filter's (pattern, flags)
    base64_charset: str
    hex_charset: str
    # (pattern, flags) -> the literals one of which its every match holds (secretgate)
    literals: dict[tuple[str, int], Requirement | None] = field(default_factory=dict)

    def gated(self, pattern: str, flags: int = 0) -> Gated:
        """``pattern`` gated on its literals (none known: it always runs)."""
        return Gated(pattern, flags, self.literals.get((pattern, flags)))


def installed_version() -> str | None:
    """detect-secrets' version, read from its ``__version__.py`` (not imported); None when it
    is not installed."""
    spec = importlib.util.find_spec("detect_secrets")
    if spec is None or not spec.submodule_search_locations:
        return None
    for folder in spec.submodule_search_locations:
        try:
            text = (Path(folder) / "__version__.py").read_text(encoding="utf-8")
        except OSError:
            continue
        match = re.search(r"VERSION\s*=\s*['\"]([^'\"]+)['\"]", text)
        if match:
            return match.group(1)
    return None


def cache_path(version: str, env: dict[str, str] | None = None) -> Path:
    """Where the rules of ``version`` are cached."""
    env = dict(os.environ) if env is None else env
    base = env.get("XDG_CACHE_HOME") or str(Path(env.get("HOME") or Path.home()) / ".cache")
    return Path(base) / "vaultmem" / f"detect-secrets-{version}-{SCHEMA}.json"


@lru_cache(maxsize=1)
def load() -> Rules:
    """The rules: from the cache when it matches the installed detect-secrets, else built from
    it (imported) and cached for the next process (best effort: a read-only home is fine)."""
    version = installed_version() or "unknown"
    path = cache_path(version)
    cached = _read(path, version)
    if cached is not None and not _unread(cached):
        return cached
    rules = with_literals(cached or from_detect_secrets())
    _write(path, version, rules)
    return rules


def _patterns(rules: Rules) -> list[tuple[str, int]]:
    """Every (pattern, flags) that is gated on its literals."""
    return [*((p, f) for _, p, f in rules.plugins), *((p, f) for p, f, _ in rules.keywords),
            *((p, 0) for _, p in VENDOR_PATTERNS)]


def _unread(rules: Rules) -> bool:
    return any(key not in rules.literals for key in _patterns(rules))


def with_literals(rules: Rules) -> Rules:
    """``rules`` with the literals of every pattern (those it lacks derived now)."""
    from vaultmem.notes.secretgate import literals

    known = dict(rules.literals)
    for key in _patterns(rules):
        if key not in known:
            known[key] = literals(*key)
    return replace(rules, literals=known)


def from_detect_secrets() -> Rules:
    """The rules, read from detect-secrets itself (imported here)."""
    from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class
    from detect_secrets.filters.heuristic import _get_indirect_reference_regex
    from detect_secrets.plugins import keyword
    from detect_secrets.plugins.base import RegexBasedDetector
    from detect_secrets.plugins.high_entropy_strings import (
        Base64HighEntropyString,
        HexHighEntropyString,
    )

    plugins: list[tuple[str, str, int]] = []
    classes: dict[str, type] = get_mapping_from_secret_type_to_class()
    for secret_type, cls in sorted(classes.items()):
        if issubclass(cls, RegexBasedDetector):
            patterns: Any = getattr(cls, "denylist", ())
            plugins.extend((secret_type, p.pattern, p.flags) for p in patterns)
    pairs = [*keyword.QUOTES_REQUIRED_DENYLIST_REGEX_TO_GROUP.items(),
             *keyword.CONFIG_DENYLIST_REGEX_TO_GROUP.items()]
    keywords = tuple(dict.fromkeys((p.pattern, p.flags, g) for p, g in pairs))
    indirect = _get_indirect_reference_regex()
    return Rules(tuple(plugins), keywords, (indirect.pattern, indirect.flags),
                 Base64HighEntropyString().charset, HexHighEntropyString().charset)


def _read(path: Path, version: str) -> Rules | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if data["schema"] != SCHEMA or data["version"] != version:
            return None
        return Rules(
            tuple((str(t), str(p), int(f)) for t, p, f in data["plugins"]),
            tuple((str(p), int(f), int(g)) for p, f, g in data["keywords"]),
            (str(data["indirect"][0]), int(data["indirect"][1])),
            str(data["base64_charset"]),
            str(data["hex_charset"]),
            {(str(p), int(f)): None if lits is None else (bool(lits[0]), tuple(map(str, lits[1])))
             for p, f, lits in data["literals"]},
        )
    except (OSError, ValueError, KeyError, TypeError, IndexError):
        return None  # missing, torn or from another version: rebuilt


def _write(path: Path, version: str, rules: Rules) -> None:
    data = {"schema": SCHEMA, "version": version, "plugins": rules.plugins,
            "keywords": rules.keywords, "indirect": rules.indirect,
            "base64_charset": rules.base64_charset, "hex_charset": rules.hex_charset,
            "literals": [[p, f, lits] for (p, f), lits in rules.literals.items()]}
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        temp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        temp.write_text(json.dumps(data), encoding="utf-8")
        os.replace(temp, path)  # whole or absent: a reader never sees half of it
    except OSError:
        pass  # no cache: the next process imports detect-secrets again


def warm() -> None:
    """Build the cache when it is missing. SessionStart calls it (its budget has room for a
    one-time 0.25 s), so that a SessionEnd, cancelled at 1.5 s, never pays the import."""
    if not cache_path(installed_version() or "unknown").exists():
        load()
