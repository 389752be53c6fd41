"""The memory's rules and use-cases: sessions, compaction, entity notes, sharing and upkeep.

Owns the session lifecycle (`sessions`, on the notes' upkeep in `upkeep`), compaction (the pure
plan in `compaction`, the deterministic extractor in `sessionextract`, the run in `compactor`,
entity notes read in `entityparse` and merged in `entitynote`, routing, thresholds, the
extractors `llm` and `claudecli`), promotion, note editing use-cases, the git merge driver
(`notemerge`, `gitshare`) and `doctor` with its fixes. May import `vaultmem.search`,
`vaultmem.store` and `vaultmem.notes`; never `vaultmem.claude` or `vaultmem.cli`.
"""
