"""The briefing: what the next session is told (its last sessions, the relevant entities, ranked
within a budget), built from the vault.

Read by the SessionStart hook (``claude``), the MCP server (``serve``) and ``vaultmem context``
(``cli``). May import `vaultmem.memory`, the layers below it and the shared base; never
`vaultmem.claude`, `vaultmem.serve` or `vaultmem.cli`.
"""
