"""Benchmarks for vaultmem: a vault generator, the runner, floors and peers (see README.md)."""
