"""``python -m vaultmem``."""

from .cli import main

main()
