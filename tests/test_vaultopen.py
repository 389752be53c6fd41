"""One way to open a vault: ``store.vaultopen.open_vault`` from the config (its redaction too)."""

from __future__ import annotations

import re
from pathlib import Path

import vaultmem
from vaultmem.notes.redact import Redaction
from vaultmem.store.config import Config
from vaultmem.store.vaultopen import open_vault

PACKAGE = Path(vaultmem.__file__).parent


def test_no_vault_is_built_by_hand_outside_store() -> None:
    built = re.compile(r"(?<![\w.])Vault\(")
    offenders = [f"{path.relative_to(PACKAGE)}:{number}"
                 for path in sorted(PACKAGE.rglob("*.py")) if path.parent.name != "store"
                 for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
                 if built.search(line) and not line.lstrip().startswith(("class ", "#"))]
    assert offenders == []


def test_open_vault_carries_the_configs_redaction(tmp_path: Path) -> None:
    allow = Redaction(allow=("hunter2hunter2",))
    vault = open_vault(Config(vault=tmp_path, project="p", redaction=allow, namespace="mem"))
    assert vault.redaction is allow and vault.layout.namespace == "mem"
    vault.create("a.md", "DB_PASSWORD=hunter2hunter2\nAPI_TOKEN=Zq81xLmP0wQe7Rt5\n")
    assert (tmp_path / "a.md").read_text() == (
        "DB_PASSWORD=hunter2hunter2\nAPI_TOKEN=‹redacted:token›\n")
