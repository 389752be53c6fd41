"""vaultmem: an Obsidian vault as the working memory of a coding agent."""

from __future__ import annotations

__version__ = "0.2.0"
