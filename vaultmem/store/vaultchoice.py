"""Which vault a run uses, said plainly: where the choice came from, and a wrong vault refused
before anything is read or written (issue 21). Writing the choice into the config file is
``vaultrecord``'s (every hook reads this module; only ``init`` and ``install-hooks`` write).
"""

from __future__ import annotations

from pathlib import Path

from vaultmem.errors import ConfigError
from vaultmem.store.config import Config

_FROM = {
    "option": "from --vault",
    "env": "from VAULTMEM_VAULT",
    "config": "from config.toml",
    "default": "the default",
}


def origin(config: Config) -> str:
    """Where the run's vault came from, in words ("from --vault", "the default"...)."""
    return _FROM.get(config.vault_from, config.vault_from)


def require_vault(config: Config) -> None:
    """ConfigError naming the path unless the vault is an existing folder: a typo must not
    give "nothing found" with exit code 0, nor create a folder (only ``init`` creates one)."""
    root = config.vault
    if root.is_dir():
        return
    what = "is not a folder" if root.exists() or root.is_symlink() else "does not exist"
    raise ConfigError(
        f"no vault here ({origin(config)}): {what}; `vaultmem --vault {_quote(root)} init` "
        "creates one", path=root)


def may_create(config: Config) -> bool:
    """Whether a hook may create the vault: only the default one, on its first run."""
    return config.vault_from == "default" and not config.vault.exists()


def notice(config: Config, config_path: Path) -> str | None:
    """The line a person at a terminal is told when the vault is not the config file's."""
    if config.vault_from == "config":
        return None
    return f"vaultmem: vault {config.vault} ({origin(config)}, not {config_path}'s)"


def _quote(path: Path) -> str:
    import shlex

    return shlex.quote(str(path))
