"""Names of one thing spelled apart: ``Invoice`` and ``invoices``, ``Power-Monitor`` and
``power_monitor``, ``Billing`` and ``Billing Webhooks`` (pure; issue 29).

Two names are the *same* when their keys are equal (case, separators and a plural's ``s``
aside); one is a *near* name of the other when they are the same, or the words of one are the
first words of the other. Capture and compaction file the same names under one entity, and a
name of two words or more that starts or ends another (``Power Monitor`` and ``Cosmic Applet
Power Monitor``, ``Power Monitor Applet``) under the entity that exists (:func:`runs`);
``doctor`` suggests merging near ones (a one-word prefix, ``Auth`` of ``Auth Tokens``, may name
a part of its own, which a person decides).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable

from vaultmem.notes.lazyre import lazy

_SPLIT = lazy(r"[\s_\-.]+|(?<=[a-z0-9])(?=[A-Z])")
MIN_KEY_CHARS = 3  # a shorter name ("UI", "DB") is an acronym: no plural to fold


def words(name: str) -> list[str]:
    """The words of a name, case-folded, each in its singular."""
    parts = [p for p in _SPLIT.split(unicodedata.normalize("NFC", name.strip())) if p]
    return [_singular(p.casefold()) for p in parts]


def _singular(word: str) -> str:
    if len(word) <= MIN_KEY_CHARS or not word.endswith("s") or word.endswith(("ss", "us", "is")):
        return word
    if word.endswith("ies") and len(word) > MIN_KEY_CHARS + 1:
        return word[:-3] + "y"
    return word[:-1]


def key(name: str) -> str:
    """The key two spellings of one name share (``Invoices`` and ``invoice`` -> ``invoice``)."""
    return "".join(words(name))


def same(a: str, b: str) -> bool:
    """Whether ``a`` and ``b`` spell one name."""
    return bool(key(a)) and key(a) == key(b)


def near(a: str, b: str, *, min_words: int = 1) -> bool:
    """Whether ``a`` and ``b`` are one name, or the words of one (``min_words`` at least)
    start the other's."""
    if same(a, b):
        return True
    wa, wb = words(a), words(b)
    short, long = (wa, wb) if len(wa) <= len(wb) else (wb, wa)
    return len(short) >= min_words and len("".join(short)) >= MIN_KEY_CHARS \
        and long[:len(short)] == short


def runs(name: str, *, min_words: int = 2) -> list[str]:
    """The keys of the runs of words that start or end ``name``, ``min_words`` words or more and
    shorter than it, longest first: the names it holds (``Cosmic Applet Power Monitor`` holds
    ``Power Monitor``, ``Applet Power Monitor``, ``Cosmic Applet``…)."""
    parts = words(name)
    out: list[str] = []
    for n in range(len(parts) - 1, min_words - 1, -1):
        for run in (parts[:n], parts[-n:]):
            joined = "".join(run)
            if len(joined) >= MIN_KEY_CHARS and joined not in out:
                out.append(joined)
    return out


def joined(a: str, b: str) -> bool:
    """Whether ``a`` and ``b`` are filed as one entity: the same name, or one of two words or
    more starts or ends the other (``Power Monitor``, ``Cosmic Applet Power Monitor``)."""
    if same(a, b):
        return True
    short, long = sorted((a, b), key=lambda n: len(words(n)))
    return len(words(short)) >= 2 and key(short) in runs(long)


def near_pairs(names: Iterable[str], *, min_words: int = 2) -> list[tuple[str, str]]:
    """The pairs of ``names`` (sorted) that look like one thing: the same name spelled apart,
    or a name of ``min_words`` words or more that starts or ends another (one word, "Auth", may
    well name a part apart from "Auth Tokens"). Linear in the names (a folder of thousands of
    entities is checked by ``doctor``)."""
    listed = sorted(set(names), key=str.casefold)
    order = {name: i for i, name in enumerate(listed)}
    split = {name: tuple(words(name)) for name in listed}
    by_key: dict[str, list[str]] = {}
    by_words: dict[tuple[str, ...], list[str]] = {}
    for name in listed:
        if split[name]:
            by_key.setdefault("".join(split[name]), []).append(name)
            by_words.setdefault(split[name], []).append(name)
    found = {(a, b) for same_ in by_key.values() for i, a in enumerate(same_) for b in same_[i + 1:]}
    for name in listed:
        parts = split[name]
        for n in range(max(min_words, 1), len(parts)):
            for run in (parts[:n], parts[-n:]):
                if len("".join(run)) >= MIN_KEY_CHARS:
                    found.update((shorter, name) if order[shorter] < order[name]
                                 else (name, shorter) for shorter in by_words.get(run, ()))
    return sorted(found, key=lambda p: (order[p[0]], order[p[1]]))
