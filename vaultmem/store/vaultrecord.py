"""The vault chosen at ``init``/``install-hooks`` written to the config file, so every later
command on this machine uses the same one (issue 21); which vault a run uses is ``vaultchoice``'s.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from vaultmem.errors import ConfigError
from vaultmem.store.config import Config, read_config_file

# A top-level ``vault = …`` line of the config file (before any [table]).
_VAULT_LINE = re.compile(r"^[ \t]*vault[ \t]*=.*$", re.MULTILINE)
_TABLE = re.compile(r"^[ \t]*\[", re.MULTILINE)


@dataclass(frozen=True)
class ConfigWrite:
    """What writing the chosen vault into the config file did."""

    path: Path
    # "written", "replaced", "unchanged", "kept" (the config names another vault and stays so)
    # or "not-chosen" (nothing to record)
    status: str
    previous: str | None = None

    def message(self, vault: Path) -> str | None:
        """One line for the person, or None when there is nothing to say."""
        if self.status == "written":
            return f"{self.path}: vault = {vault} (every vaultmem command on this machine uses it)"
        if self.status == "replaced":
            return (f"{self.path}: vault = {vault}, was {self.previous} "
                    "(every vaultmem command on this machine uses it)")
        if self.status == "kept":
            return (f"{self.path} still names the vault {self.previous}: commands without "
                    f"--vault use that one; add --force to make {vault} the vault of every "
                    "command")
        return None


def record_vault(config: Config, config_path: Path, *, force: bool,
                 keep_other: bool = False) -> ConfigWrite:
    """Write the vault chosen by --vault or VAULTMEM_VAULT into the config file.

    A config naming another vault is left alone unless ``force``: with ``keep_other`` that is
    reported as "kept" (``init`` of a second vault), else ConfigError says which wins."""
    if config.vault_from not in ("option", "env"):
        return ConfigWrite(config_path, "not-chosen")
    data = read_config_file(config_path)
    named = data.get("vault")
    if isinstance(named, str) and _same(named, config.vault):
        return ConfigWrite(config_path, "unchanged")
    line = _vault_line(config.vault)
    try:
        text = config_path.read_text("utf-8")
    except FileNotFoundError:
        text = ""
    except OSError as err:
        raise ConfigError(f"cannot read config: {err.strerror}", path=config_path) from None
    if named is None:
        # A top-level key must come before the first [table].
        table = _TABLE.search(text)
        at = table.start() if table else len(text)
        head = text[:at]
        if head and not head.endswith("\n"):
            head += "\n"
        new, status = head + line + "\n" + text[at:], "written"
    elif not force and keep_other:
        return ConfigWrite(config_path, "kept", named if isinstance(named, str) else None)
    elif not force:
        raise ConfigError(
            f"names the vault {named}, not {config.vault}: the config wins for commands run "
            f"without --vault; add --force to make {config.vault} the vault of every command",
            path=config_path)
    else:
        table = _TABLE.search(text)
        head_end = table.start() if table else len(text)
        found = _VAULT_LINE.search(text, 0, head_end)
        if found is None:
            raise ConfigError("its 'vault' key is not on one line of its own: edit it by hand",
                              path=config_path)
        new, status = text[: found.start()] + line + text[found.end():], "replaced"
    _write(config_path, new)
    return ConfigWrite(config_path, status, named if isinstance(named, str) else None)


def _same(named: str, vault: Path) -> bool:
    return Path(os.path.expanduser(named)).absolute() == vault


def _vault_line(vault: Path) -> str:
    """``vault = "…"`` as a TOML writer spells it, on one line whatever the path holds (newlines,
    quotes, backslashes, control characters escaped); ConfigError for what no config can hold."""
    value = str(vault)
    if "\x00" in value:
        raise ConfigError("the vault path holds a NUL character, which no path can: not written",
                          path=vault)
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        # A lone surrogate: a name whose bytes are not UTF-8 (os.fsdecode's surrogateescape).
        raise ConfigError("the vault path is not valid UTF-8 (a byte no text can hold), so "
                          "config.toml cannot name it: rename the folder or pass --vault "
                          "every time", path=vault) from None
    import tomli_w  # only init and install-hooks write the config

    return tomli_w.dumps({"vault": value}).rstrip("\n")


def _write(path: Path, text: str) -> None:
    from vaultmem.store.atomic import replace_file

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        replace_file(path, text.encode("utf-8"))
    except OSError as err:
        raise ConfigError(f"cannot write config: {err.strerror or err}", path=path) from None
