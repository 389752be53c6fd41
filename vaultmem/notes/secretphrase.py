"""Secrets said in words, known by a word before them or by a list they form (pure).

- **A passphrase of plain words** after its name and a link, to the line's end ("the
  passphrase is: tundra maple quiver basalt"): the prose rule (secretcontext) takes one token.
- **A bare key**: ``key``, maybe ``:``, ``=`` or "is", then a long hex or base64 run (``key
  7c1e9a44…``); a sort key, a cache key or a key's fingerprint is not one (secretwords); after
  "the key" (my, your, use...), a short run mixing letters and digits ("the key zx81qq7"; not an
  algorithm, a key size or a version: ``ed25519``, ``rsa4096``); after "key" starting a clause
  too, when the run ends it ("Note: key zx81qq7"; not "error: key user42x not found").
- **A list of logins and their passwords** with no secret word ("alice / Hunter2!x, bob /
  Tr0ub4dor&3"): two pairs or more, separated by commas or semicolons, every part after a
  slash reading like a password (a digit or a symbol; no file name, no fraction); the list
  itself is the context a lone ``user/PASS`` pair gets from a login word (secretcontext).
- **A value before its secret word**: "`Tr0ub4dor` is the password for staging", "use Blu3Sky!
  for the root password": the word ends the sentence or a preposition follows it ("the password
  hash", "the token limit" name something else), the value reads like one and is no algorithm
  ("use argon2id for the password"); before a password's word, one plain word too ("magic is
  the admin password", "use magic for the password"; not a tool's name: "use Vault for …").
- **A wifi network and its password**: "wifi: HomeNet / Pass!77" (not a band: "2.4GHz / 5GHz").
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from vaultmem.notes.lazyre import lazy
from vaultmem.notes.secretcontext import VALUE, WORD, secretish
from vaultmem.notes.secretspan import Finding
from vaultmem.notes.secretwords import (
    ALGORITHM,
    DATA_KEYS,
    HASH_SAID,
    SYMBOLS,
    bare_key,
    passphrase_words,
    plain_password,
)

# "… the admin password", then where its phrase ends ("the password hash" is no password).
_THE_WORD = (r"[ \t]+(?:the|my|our|your|a|an)[ \t]+(?:[\w-]+[ \t]+){0,3}?(?:" + WORD
             + r"|pin(?:[ -]?code)?)(?=[ \t]*(?:$|\n|[.,;:!?)\]\"'`]|(?:for|on|of|in|at|to|and|but|so"
             r"|now|here|too)\b))")
_RULES = {
    "phrase": lazy(
        r"(?i)(?<![\w-])pass[ -]?phrase(?:['’]s)?(?:\s+(?:for|of|on)\s+[\w.@:/-]+)?"
        r"(?:[ \t]*[:=]|[ \t]+(?:is|was)(?:[ \t]*:)?)[ \t]*[\"'`]?"
        r"([a-z]{2,12}(?:[ \t]+[a-z]{2,12}){2,9})[\"'`]?(?=[ \t]*(?:$|\n|[.,;)]))"),
    # Each rule below starts at a literal (``key``, ``/``): the engine skips to it; the word
    # before it is read afterwards (_BEFORE).
    "bare_key": lazy(
        r"(?i)(?<![\w.-])key(?:[ \t]*[:=]|[ \t]+(?:is|was)[ \t]*:?|(?=[ \t]))"
        r"[ \t]*[\"'`]?([A-Za-z0-9+/_-]{32,}={0,2})(?![\w+/=-])"),
    # A short key after "the key" ("the key zx81qq7", "my key is kq52mm8"), or after "key" that
    # starts a clause ("key zx81qq7", "Note: key zx81qq7."): letters and digits; a full stop
    # after it is its sentence's.
    "short_key": lazy(
        r"(?i)(?:(?<![\w-])(the|my|your|our|this|that|use|using|with|enter|paste|try)[ \t]+"
        r"(?:([a-z][\w-]*)[ \t]+)?|(?<![^\n:;.!?(>*\"'`-])[ \t]*)"
        r"key(?:[ \t]+(?:for|to|of|on)[ \t]+(?:the[ \t]+)?[\w.-]+)?"
        r"(?:[ \t]*[:=]|[ \t]+(?:is|was)[ \t]*:?)?[ \t]+[\"'`*]*([A-Za-z0-9-]{6,31})"
        r"(?![\w+/=-]|\.\w)"),
    # The part after a pair's slash, then a comma, a semicolon or the line's end.
    "pair": lazy(r"/[ \t]*([^\s/'\"`<>()\[\]{}|,;]{4,64})(?=[ \t]*(?:[,;]|\r?$|\n))"),
    "file": lazy(r"\.[A-Za-z][A-Za-z0-9]{0,5}$"),
    # The value (groups 2, 3: quoted, bare), a link, the secret word, where its phrase ends.
    "before": lazy(r"(?i)(?<![\w$%-])" + VALUE + r"[ \t]+(?:is|was)" + _THE_WORD),
    "use_for": lazy(r"(?i)\b(?:use|using|try|pick|chose|choose|with)[ \t]+" + VALUE
                    + r"[ \t]+for" + _THE_WORD),
    "wifi": lazy(
        r"(?i)(?<![\w-])(?:wi-?fi|wlan|ssid|hotspot)(?:[ \t]+(?:network|login|creds|details))?"
        r"[ \t]*[:=—–-]?[ \t]*[^\s/'\"`]{1,32}[ \t]*/[ \t]*" + VALUE),
}
# The word before a key, the name before a pair's slash: at the end of the stretch before it.
_WORD_BEFORE = lazy(r"([A-Za-z][\w-]{0,20})[ \t]+\Z")
_NAME_BEFORE = lazy(r"(?<![\w./~@:$%\\-])[A-Za-z][\w.@+-]{0,63}[ \t]*\Z")
_LOOK_BACK = 70
# Where a rule may match, in the span's lowercase copy (the literal first, as above).
_KEY_SHAPE = lazy(r"key(?:\s*[:=]|\s+(?:is|was)\s*:?)?\s*['\"`]?[a-z0-9+/_-]{32}")
# What the before and use_for rules need (lowercase): a link, then a secret word's start.
_SAID_BEFORE = lazy(r"\b(is|was|for)\s+(?:the|my|our|your|an?)\s+(?:[\w-]+\s+){0,3}?[\w-]*?"
                    r"(?:pass|pw|key|token|secret|cred|psk|pin)")


def linked(low: str) -> bool:
    """Whether the lowercase ``low`` may hold _SAID_BEFORE's link ("is the", "for my") or the
    reverse rule's (secretcontext: "as the", "into my"), told without a regex (most lines then
    compile none)."""
    spaced = f" {' '.join(low.split())} "
    return any(f" {link} " in spaced for link in ("is", "was", "for", "as", "into")) and any(
        f" {article} " in spaced for article in ("the", "my", "our", "your", "a", "an"))


# A list of two pairs or more, for the pre-filter too (lowercase).
PAIRS_SHAPE = lazy(r"/[ \t]*[^\s/,;'\"]{4,64}[ \t]*[,;][ \t]*[a-z][\w.@+-]{0,63}[ \t]*/[ \t]*[^\s/]")


def findings(text: str, begin: int, end: int) -> Iterator[Finding]:
    """The passphrases, bare keys and login lists in ``text[begin:end]``."""
    low = text[begin:end].lower()
    if "phrase" in low:
        for m in _RULES["phrase"].finditer(text, begin, end):
            if passphrase_words(m.group(1)):
                yield Finding(m.start(1), m.end(1), "password")
    if "key" in low and _KEY_SHAPE.search(low):
        for m in _RULES["bare_key"].finditer(text, begin, end):
            word = _WORD_BEFORE.search(text, max(begin, m.start() - _LOOK_BACK), m.start())
            line_start = text.rfind("\n", 0, m.start()) + 1
            line_end = text.find("\n", m.end())
            said = HASH_SAID.search(text, line_start, len(text) if line_end < 0 else line_end)
            if said is None and bare_key(word.group(1) if word else None, m.group(1)):
                yield Finding(m.start(1), m.end(1), "api-key")
    if "key" in low:
        for m in _RULES["short_key"].finditer(text, begin, end):
            if m.group(1) is None and not _CLAUSE_END.match(text, m.end()):
                continue  # "error: key user42x not found": a map's key in a sentence
            if (m.group(2) is None or m.group(2).lower() not in DATA_KEYS) and _short_key(
                    m.group(3)):
                yield Finding(m.start(3), m.end(3), "api-key")
    if "/" in low and PAIRS_SHAPE.search(low):
        yield from _pairs(text, begin, end)
    rules = {"before" if m.group(1) != "for" else "use_for"
             for m in (_SAID_BEFORE.finditer(low) if linked(low) else ())}
    if "/" in low and any(w in low for w in ("wifi", "wi-fi", "wlan", "ssid", "hotspot")):
        rules.add("wifi")
    for rule in sorted(rules):
        for m in _RULES[rule].finditer(text, begin, end):
            quoted = m.group(2) is not None
            value = m.group(2) if quoted else m.group(3).rstrip(".,;:)")
            if not ALGORITHM.fullmatch(value) and (secretish(
                    value, password=True, strict=False, quoted=quoted) or _plain_before(m)):
                at = m.start(2) if quoted else m.start(3)
                yield Finding(at, at + len(value), "password")


def _pairs(text: str, begin: int, end: int) -> Iterator[Finding]:
    """The passwords of each run of two or more ``name / password`` pairs."""
    run: list[Finding] = []
    last_end = -1
    for m in _RULES["pair"].finditer(text, begin, end):
        name = _NAME_BEFORE.search(text, max(begin, m.start() - _LOOK_BACK), m.start())
        if name is None:
            yield from _run_found(run)
            run, last_end = [], -1
            continue
        between = text[last_end:name.start()].strip() if last_end >= 0 else ","
        if between not in (",", ";"):
            yield from _run_found(run)
            run = []
        value = m.group(1).rstrip(".!?")
        run.append(Finding(m.start(1), m.start(1) + len(value), "password")
                   if _password(value) else Finding(m.start(1), m.start(1), "none"))
        last_end = m.end()
    yield from _run_found(run)


def _run_found(run: list[Finding]) -> Iterator[Finding]:
    if len(run) >= 2 and all(f.kind == "password" for f in run):
        yield from run


def _password(value: str) -> bool:
    """Whether a pair's part after its slash reads like a password: a digit or a symbol, no
    file name, no number alone."""
    if len(value) < 4 or value.isdigit() or _RULES["file"].search(value):
        return False
    if not any(c.isdigit() or c in SYMBOLS for c in value):
        return False
    return secretish(value, password=True, strict=False)


def _short_key(value: str) -> bool:
    """Whether a short run after "the key" is one: letters and digits mixed, not an algorithm,
    a key size or a version (``ed25519``, ``rsa4096``, ``v2-beta1``)."""
    core = value.strip("-")
    if not (any(c.isdigit() for c in core) and sum(c.isalpha() for c in core) >= 2):
        return False
    if len(_RUNS.findall(core)) < 3:
        return False  # a word and its number (``user123``, ``bindings2``): a map's key
    low = core.lower()
    return not (ALGORITHM.fullmatch(low) or low in DATA_KEYS or _SIZED.fullmatch(low)
                or _TECH.search(low))


_RUNS = lazy(r"[A-Za-z]+|\d+")
_CLAUSE_END = lazy(r"[\"'`*]*[ \t]*(?:$|\n|[.,;!)])")
_SIZED = lazy(r"(?:rsa|dsa|ecdsa|ed|cv|x|p|secp|prime|aes|sha|v)-?\d+(?:[a-z]\d*)?|v?\d+(?:[.-]\w+)*")
# Names of tech that hold digits (``utf8mb4``, ``k8s1234``, ``aes256gcm``, ``v2beta1``).
_TECH = lazy(r"^v\d|k8s|utf-?\d|md\d|sha\d|aes\d|x86|x64|arm\d|i18n|l10n|a11y|ipv\d|http\d|oauth\d"
             r"|win\d|h26\d|mp[34]|base\d|ec2|s3|gpt\d|py3|es\d|rs\d|ps\d|\d+(?:gb|mb|kb|px|ms)$")


def _plain_before(m: re.Match[str]) -> bool:
    """Whether a bare value before a password's word is one plain word ("sunshine is the admin
    password", "use sunshine for the password"; secretwords.plain_password)."""
    word = m.group(3)
    if word is None or not _PASSWORD_END.search(m.group(0)):
        return False
    if not word.islower() and _USE.match(m.group(0)):
        return False  # "use Vault for the password": a tool's name
    return plain_password(word, "") is not None


_PASSWORD_END = lazy(r"(?i)(?:pass(?:word|phrase|code)?|pwd?)$")  # one password, not "passwords"
_USE = lazy(r"(?i)(?:use|using|try|pick|chose|choose|with)\s")
