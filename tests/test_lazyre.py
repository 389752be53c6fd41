"""lazyre.py: patterns compiled on first use; the hooks' imports compile none of the miner's."""

from __future__ import annotations

import re
import subprocess
import sys

from vaultmem.notes.lazyre import LazyPattern, lazy


def test_a_lazy_pattern_answers_as_the_compiled_one() -> None:
    pattern = lazy(r"(\w+)@(\w+)", re.IGNORECASE)
    plain = re.compile(r"(\w+)@(\w+)", re.IGNORECASE)
    text = "mail ann@example or BOB@host now"
    assert pattern._compiled is None
    assert pattern.search(text).group(0) == plain.search(text).group(0)  # type: ignore[union-attr]
    assert pattern.search(text, 10, 20) is None and plain.search(text, 10, 20) is None
    assert pattern.match(text) is None and pattern.fullmatch("a@b") is not None
    assert [m.span() for m in pattern.finditer(text)] == [m.span() for m in plain.finditer(text)]
    assert pattern.findall(text) == plain.findall(text)
    assert pattern.split(text) == plain.split(text)
    assert pattern.sub(lambda m: m.group(2), text) == plain.sub(lambda m: m.group(2), text)
    assert pattern.sub("<\\1>", text, 1) == plain.sub("<\\1>", text, 1)
    assert pattern.compiled is pattern.compiled  # compiled once


def test_importing_the_capture_path_compiles_none_of_the_miner_s_patterns() -> None:
    # A fresh interpreter: what a hook pays at import, before anything is mined.
    probe = (
        "import vaultmem.claude.capture, vaultmem.claude.ingest\n"
        "from vaultmem.mining import answers as mining, cues as miningcues, kinds\n"
        "from vaultmem.mining import text as miningtext\n"
        "from vaultmem.notes.lazyre import LazyPattern\n"
        "found = [v for m in (mining, miningcues, kinds, miningtext) for v in vars(m).values()]\n"
        "pats = [v for v in found if isinstance(v, LazyPattern)]\n"
        "pats += [v.pattern for v in found if isinstance(v, miningcues.Cue)]\n"
        "assert len(pats) > 40, len(pats)\n"
        "print(sum(p._compiled is not None for p in pats))\n"
        "mining.mine('I went with argon2id over bcrypt because it is memory-hard.')\n"
        "print(sum(p._compiled is not None for p in pats) > 0)\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["0", "True"]


def test_the_pattern_text_and_flags_are_kept() -> None:
    pattern = LazyPattern("a+", re.MULTILINE)
    assert (pattern.pattern, pattern.flags) == ("a+", re.MULTILINE)


def test_a_pattern_built_by_a_function_is_built_at_first_use() -> None:
    calls: list[int] = []

    def build() -> str:
        calls.append(1)
        return "b+"

    pattern = LazyPattern(build)
    assert calls == []  # an import that never uses it never builds it
    assert pattern.search("abbc") is not None and pattern.pattern == "b+"
    pattern.search("b")
    assert calls == [1]
