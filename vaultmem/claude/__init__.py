"""Claude Code's side of vaultmem: hook events, transcripts, capture, moment hooks, install.

Arrows point down only: this package may import the briefing (``brief``), the memory use-cases,
search, the store, mining and the notes core; nothing below it imports from here (only `cli` and the launcher do).
"""
