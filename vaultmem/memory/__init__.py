"""The memory's rules and use-cases: sessions, compaction, entity notes, sharing and upkeep.

Owns the session lifecycle (`sessions`, on the notes' upkeep in `upkeep`), compaction (the pure
plan in `compaction`, the deterministic extractor in `sessionextract`, the run in `compactor`,
entity notes read in `entityparse` and merged in `entitynote`, routing, thresholds, the
extractors `llm` and `claudecli`), promotion, note editing use-cases, the git merge driver
(`notemerge`, `gitshare`), `doctor` with its fixes, session note names (`sessionnames`),
anchors, components (`components`) and Claude Code's auto memory mirrored (`automirror`).
May import `vaultmem.search`, `vaultmem.store`, `vaultmem.mining` and `vaultmem.notes`; never
`vaultmem.brief`, `vaultmem.claude` or `vaultmem.cli`.
"""
