"""Whether a string is random enough to be a key: detect-secrets' Shannon entropy (pure)."""

from __future__ import annotations

import math
import re
from functools import lru_cache


@lru_cache(maxsize=1)
def charsets() -> tuple[str, str]:
    """detect-secrets' base64 and hex alphabets (secretrules' cache)."""
    from vaultmem.notes.secretrules import load

    rules = load()
    return rules.base64_charset, rules.hex_charset


def shannon_entropy(data: str, charset: str) -> float:
    """detect-secrets' Shannon entropy of ``data`` over ``charset`` (bits per character)."""
    if not data:
        return 0.0
    entropy = 0.0
    for ch in charset:
        p = data.count(ch) / len(data)
        if p > 0:
            entropy -= p * math.log2(p)
    return entropy


def entropy_high(token: str) -> bool:
    """Whether ``token`` is random enough to be a key (detect-secrets' entropy, a threshold
    that grows with the length a random string of that length reaches)."""
    if not (re.search(r"\d", token) and re.search(r"[A-Za-z]", token)):
        return False
    if not any(random_part(part) for part in re.split(r"[-_./+~]", token)):
        return False  # words and numbers joined (``M-Claude-backup-20260112``), not a key
    base64, hexa = charsets()
    # Hex with letters and digits: detect-secrets' hex entropy is the plain one (its all-digits
    # discount does not apply).
    if re.fullmatch(r"[0-9a-fA-F]+", token):
        return shannon_entropy(token, hexa) >= 3.0
    return shannon_entropy(token, base64) >= min(4.0, math.log2(len(token)) - 0.6)


def random_part(part: str) -> bool:
    """Whether a piece of a token mixes letters with digits, or cases inside a word, as random
    keys do and words, numbers and names do not."""
    if len(part) < 8:
        return False
    letters = any(ch.isalpha() for ch in part)
    if letters and any(ch.isdigit() for ch in part):
        return True
    return sum(ch.isupper() for ch in part[1:]) >= 2 and any(ch.islower() for ch in part)
