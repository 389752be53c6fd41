"""The MCP server and secrets: its writes follow the user's ``[redact]`` settings, its answers
never echo a token, and a person's own note with a password is shown redacted (never rewritten)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mcp.client.session import ClientSession
from test_mcp import P, payload, run, write

TOKEN = "ghp_" + "1234567890abcdefghijklmnopqrstuvwxyZABCD"
PERSON_NOTE = f"{P}/entities/Ops.md"
PERSON_TEXT = "# Ops\n\nThe staging db password is Zq81-xLmP0wQe7 (rotate monthly).\n"


def test_remember_redacts_with_the_users_settings_and_never_echoes_a_token(vault_root: Path) -> None:
    config = vault_root.parent / ".config" / "vaultmem" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text('[redact]\nallow = ["hunter2hunter2"]\n', encoding="utf-8")
    write(vault_root, PERSON_NOTE, PERSON_TEXT)

    async def body(session: ClientSession) -> dict[str, Any]:
        return {
            "token": payload(await session.call_tool("remember", {
                "text": f"the deploy token is {TOKEN}; the release job rotates it weekly",
                "kind": "gotcha"})),
            # A line that only gives the secret's value would brief as "the deploy token is
            # ‹redacted›": refused, and the refusal does not echo the token either.
            "only": await session.call_tool("remember", {
                "text": f"the deploy token is {TOKEN}", "kind": "gotcha"}),
            "allowed": payload(await session.call_tool("remember", {
                "text": "DB_PASSWORD=hunter2hunter2 is the fixture's", "kind": "gotcha"})),
            "show": await session.call_tool("show", {"note": "Ops"}),
            "recall": payload(await session.call_tool("recall", {"query": "staging password"})),
        }

    got = run(vault_root, body)
    assert TOKEN not in got["token"]["entry"] and "‹redacted:github›" in got["token"]["entry"]
    assert "rotates it weekly" in got["token"]["entry"]
    refused = got["only"].content[0].text
    assert got["only"].is_error and "only gives a secret" in refused and TOKEN not in refused
    note = (vault_root / got["token"]["note"]).read_text(encoding="utf-8")
    assert TOKEN not in note and "hunter2hunter2" in note  # the user's allowlist held
    shown = got["show"].content[0].text
    assert "Zq81-xLmP0wQe7" not in shown and "‹redacted:password›" in shown
    assert "Zq81-xLmP0wQe7" not in str(got["recall"])
    assert (vault_root / PERSON_NOTE).read_text(encoding="utf-8") == PERSON_TEXT
