"""``python -m vaultmem``."""

from .launcher import main

main()
