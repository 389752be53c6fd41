"""Claude Code's side of vaultmem: hook events, transcripts, capture, the briefing, install.

Arrows point down only: this package uses the memory use-cases, the store and the notes core;
nothing below it imports from here.
"""
