"""Search: the SQLite FTS5 index of the vault (`.vaultmem/index.sqlite`) and recall on top of it.

Owns the index's schema and lazy refresh (`index`), a note as the index keeps it (`indexrows`),
its queries (`indexquery`), which facts of the notes found match a query, and `recall`'s ranking.
May import `vaultmem.store` and `vaultmem.notes` (and errors, clock); never `vaultmem.memory`,
`vaultmem.claude` or `vaultmem.cli`.
"""
