"""Entity names that differ only in case or Unicode normalisation are one note, through the
real CLI doors (issue 10 item 8): ``--entity auth`` and ``--entity Auth`` in one session, and
``--entity Café`` beside an NFD-named ``Café.md``, compact without a twin or a failure."""

from __future__ import annotations

import json
import unicodedata
from pathlib import Path

from .kit import ENTITIES, PROJECT, SID, cli

NFD = unicodedata.normalize("NFD", "Café")
NFC = unicodedata.normalize("NFC", "Café")


def test_case_and_nfc_twins_through_the_cli(tmp_path: Path) -> None:
    env = {"VAULTMEM_VAULT": str(tmp_path), "VAULTMEM_PROJECT": PROJECT}
    existing = tmp_path / ENTITIES / f"{NFD}.md"
    existing.parent.mkdir(parents=True)
    existing.write_text(f"---\ntype: entity\nproject: {PROJECT}\n---\n# {NFD}\n\n## Overview\n\n"
                        "The coffee corner.\n\n## Key Decisions\n")
    assert cli(["session", "start", "--session-id", SID], env=env).code == 0
    for text, entity in (("Use sessions", "auth"), ("Rotate keys", "Auth"),
                         ("Grind finer", NFC)):
        run = cli(["session", "decide", text, "--entity", entity, "--session-id", SID], env=env)
        assert run.code == 0, run.err
    run = cli(["session", "end", "--no-compact", "--session-id", SID, "--json"], env=env)
    assert run.code == 0, run.err
    note = json.loads(run.out)["note"]
    run = cli(["compact", note, "--force", "--json"], env=env)
    assert run.code == 0, run.err
    (report,) = json.loads(run.out)["reports"]
    assert report["status"] == "compacted", report
    files = sorted(p.name for p in (tmp_path / ENTITIES).iterdir())
    assert files == sorted(["auth.md", f"{NFD}.md"])  # the first spelling; no NFC twin
    auth = (tmp_path / ENTITIES / "auth.md").read_text()
    assert "— Use sessions (" in auth and "— Rotate keys (" in auth
    coffee = existing.read_text()
    assert "— Grind finer (" in coffee and "The coffee corner." in coffee
