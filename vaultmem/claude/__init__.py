"""Claude Code's side of vaultmem: hook events, transcripts, capture, the briefing, install.

Arrows point down only: this package may import the memory use-cases, search, the store, mining and
the notes core; nothing below it imports from here (only `cli` and the launcher do).
"""
