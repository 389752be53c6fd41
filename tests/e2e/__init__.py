"""End-to-end tests: the real Claude Code CLI, offline, against a Messages API stand-in."""
