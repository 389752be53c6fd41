"""The store: the only code that touches the vault on disk, and this machine's settings.

Owns safe paths and reads with fingerprints (`vaultread`), atomic replaces (`vault`, `atomic`),
file locks that go round in turns, notes being written by another program, `.vaultmem/` (state,
machine folders), the vault layout, the config file, which vault a run uses, and git (`git`;
`gitinfo` and `branch` read a working directory's branch without waiting on it). May import
`vaultmem.notes`, `vaultmem.mining`, `vaultmem.errors`, `vaultmem.clock` and `vaultmem.faults`;
never the layers above (search, memory, brief, claude, serve, cli).
"""
