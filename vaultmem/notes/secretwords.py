"""Which words after a secret's name are its value, when no sign or verb links them (pure).

A password word right before its value, with no ``:``, ``=`` or "is" between, is no proof: "the
password Reset! button", "password manager". The value is taken when it could be no word:

- a quoted passphrase of three to ten plain words ("passphrase 'ab cd ef gh'"), none a word of
  a sentence about the password ("Enter your passphrase"), or one quoted word read as below
  (``password "sunshine"``, not ``the password "field"``);
- a bare value mixing cases around a symbol inside it ("password Smtp!Plain"; "Reset!" ends on
  its symbol, as a sentence does);
- after a bare ``key``, a long hex or base64 run (``key 7c1e9a44…``), unless the word before
  the key makes it a key of code or data (a sort key, a cache key, a key's fingerprint).

A passphrase of plain words is also what a label on the line above gives (secretprep).

**A password of one dictionary word** ("the password is sunshine", "my password was letmein.",
"password: correcthorse"): a password's word (not a token's, a key's or a secret's: those are
never one English word), linked to the value by a copula or a sign only ("is", "was", "now",
``:``, ``=``, an arrow; "to" after a verb setting it: "set the password to sunshine",
"set the password to expire" stays by the predicate rule below), and the value

- is one word of 4 to 32 letters, not all capitals (``SSO``, ``NULL`` are names);
- ends its clause: the line ends after it, or ``.``, ``,``, ``;``, ``!``, ``)``, a closing
  quote, a comment, a parenthesis, a dash or a new clause ("and …", "for now", "in staging")
  follows it ("the password is stored in Vault" goes on; "is the password sunshine?" asks);
- is no word a sentence about a password ends with: a predicate (``required``, ``wrong``,
  ``optional``, ``static``, ``different``... _PREDICATES) or a word ending as a participle, an
  adverb or an adjective does (``-ed``, ``-ing``, ``-able``, ``-ive``, ``-ous``, ``-ly``...: "is
  hashed", "is sensitive"); a noun of an adjective's ending is a value ("is magic", "is
  crystal", "is golden").

A secret's word ("my secret is opensesame") takes such a word too; a token's or a key's never.

A password that is such a word ("the password is forgotten") is missed: prose about a password
is far more common than a password that reads like that prose.
"""

from __future__ import annotations

from vaultmem.notes.lazyre import lazy
from vaultmem.notes.secretspan import is_path

SYMBOLS = frozenset("!@#$%^&*+=~?")
# Words of a sentence, which a passphrase of plain words does not hold ("is not set yet").
_SENTENCE_WORDS = frozenset({
    "the", "a", "an", "to", "of", "in", "on", "for", "is", "are", "was", "be", "not", "and", "or",
    "it", "this", "that", "with", "by", "from", "at", "as", "you", "your", "we", "our", "use",
    "stored", "set", "yet", "see", "never", "no", "required", "missing", "invalid", "wrong",
    "here", "there", "below", "above", "same", "must", "should", "will", "can", "enter",
    "password", "passphrase", "passwords",
})
# The word before a bare ``key`` that makes it a key of code or data, not a secret.
DATA_KEYS = frozenset({
    "primary", "sort", "partition", "foreign", "cache", "object", "s3", "dict", "map", "hash",
    "lookup", "row", "idempotency", "unique", "composite", "index", "public", "host", "gpg",
    "pgp", "redis", "range", "shard", "routing", "dedup", "dedupe", "join", "group", "table",
    "storage", "blob", "file", "registry", "translation", "i18n", "react",
    # a key pair's public half is named by its fingerprint ("gpg: using RSA key 5009EAD2…")
    "rsa", "dsa", "ecdsa", "ed25519", "cv25519", "elgamal", "subkey", "ssh",
    "ring", "bucket", "content", "entry", "memo", "lru", "node", "slot",
})
# A line saying the run is a hash: a content hash, a ring's or a cache's key (not a secret).
HASH_SAID = lazy(r"(?i)(?<![\w-])(?:hash(?:es|ed|ing)?|md5|sha-?\d*|digest|checksum|fingerprint"
                 r"|etag|crc\d*|content[- ]addressed)(?![\w-])")
# Not a secret, in a value's place: a hashing or signing algorithm, a radio band or standard
# ("use argon2id for the password", "use bcrypt as the password hash").
ALGORITHM = lazy(
    r"(?i)(?:argon2(?:id|i|d)?|b?crypt|scrypt|pbkdf2[\w-]*|sha-?\d+|md5|[hre]s\d{3}|aes-?\d+"
    r"|\d+(?:\.\d+)?\s*g(?:hz)?|802\.11\w*|wpa\d?|wep)")
# Where a secret is kept, not what it is: a password manager, a secret store, a place ("use
# 1Password for the password", "the password is environment", "is keychain"). Lowercase. A short
# list, not a dictionary: "environment" and "magic" are both English words, and only the first is
# where a password lives (a dictionary would tell them apart by nothing; the package would be a
# hook's cost and a dependency a fresh install has no Debian word list for).
STORES = frozenset({
    "1password", "bitwarden", "vaultwarden", "lastpass", "keepass", "keepassx", "keepassxc",
    "dashlane", "keeper", "nordpass", "roboform", "enpass", "pass", "gopass", "vault",
    "doppler", "infisical", "sops", "keychain", "keyring", "keystore", "kwallet", "credstash",
    "chamber", "akeyless", "conjur", "environment", "env", "dotenv", "config", "configuration",
    "settings", "clipboard", "database", "secrets", "notion", "confluence", "wiki", "readme",
    "onepassword", "passbolt", "psono", "teampass", "protonpass",
})
_HEX = lazy(r"[0-9a-fA-F]{32,}")
_FINGERPRINT = lazy(r"[0-9A-F]{40}")  # as gpg prints a key's


# Words that end a sentence about a password, not its value (what no suffix of _PREDICATE_ENDS
# tells; none shorter than _PLAIN's 4 letters). Lowercase.
_PREDICATES = frozenset({
    "this", "that", "what", "which", "here", "there", "below", "above", "inside", "elsewhere",
    "yours", "mine", "ours", "theirs", "hers", "same", "unset", "reset", "gone", "lost", "wrong",
    "right", "correct", "incorrect", "valid", "invalid", "fine", "good", "great", "weak", "strong",
    "long", "short", "longer", "shorter", "stronger", "weaker", "better", "worse", "safe",
    "unsafe", "plain", "plaintext", "cleartext", "clear", "blank", "empty", "null", "none", "true",
    "false", "okay", "done", "ready", "secret", "unique", "random", "simple", "complex", "easy",
    "hard", "default", "case", "also", "still", "just", "never", "always", "enough", "user",
    "file", "field", "parameter", "input", "output", "text", "value", "word", "phrase", "hash",
    "password", "passphrase", "code", "prompt", "weird", "stale", "fresh", "back", "over",
    "through", "huge", "tiny", "small", "large", "similar", "other", "another", "someone",
    "nobody", "cool", "nice", "ascii", "unicode", "lowercase", "uppercase", "whitespace", "expire",
    "expires", "change",
    # a reply that gives no value ("the password? Nope."), a verb a password is set to do
    "nope", "yeah", "sure", "both", "either", "neither", "maybe", "dunno", "thanks", "please",
    "skip", "later", "something", "anything", "nothing", "whatever", "match", "rotate", "work",
    "comply", "update", "refresh", "renew", "unclear", "uncertain", "private", "public",
    # adjectives of endings that nouns a password may be share (crystal, magic, golden, climate)
    "optional", "global", "local", "internal", "external", "manual", "normal", "personal",
    "minimal", "critical", "essential", "special", "trivial", "literal", "original", "final",
    "initial", "actual", "usual", "real", "total", "universal", "identical", "additional",
    "temporal", "ephemeral", "sequential", "mandatory", "temporary", "necessary", "arbitrary",
    "binary", "primary", "secondary", "static", "dynamic", "generic", "automatic", "basic",
    "specific", "numeric", "alphanumeric", "symmetric", "asymmetric", "deterministic", "different",
    "present", "absent", "sufficient", "insufficient", "current", "consistent", "persistent",
    "transparent", "independent", "dependent", "important", "constant", "redundant", "relevant",
    "irrelevant", "significant", "latest", "oldest", "newest", "hidden", "given", "broken",
    "written", "forgotten", "chosen", "stolen", "taken", "known", "unknown", "shown", "open",
    "secure", "insecure", "obscure", "separate", "accurate", "appropriate", "adequate",
    "legitimate", "immediate", "ultimate", "intermediate", "foolish", "rubbish", "english",
    "legacy", "visible", "invisible", "compliant",
    # a form's or a page's labels ("Password: Forgot", "Secret: Manager")
    "forgot", "show", "hide", "toggle", "login", "logout", "submit", "cancel", "confirm",
    "retype", "repeat", "edit", "save", "copy", "generate", "manager", "policy", "strength",
    "expiry", "hint", "recovery", "rules", "settings", "unlock", "lock", "reveal", "verify",
    "validate", "enter",
    # a password's attributes ("the password's owner", "the password's format")
    "owner", "format", "salt", "history", "scope", "type", "name", "length", "size", "status",
    "state", "entropy", "complexity", "requirements", "characters", "lifetime", "expiration",
    # a question's word or a login's other half before "is the password" ("where is the password?")
    "where", "when", "whose", "email", "username", "them", "these", "those", "they",
    # participles of no -ed ("the password is sent in cleartext")
    "sent", "kept", "left", "read", "held", "made", "built", "bound", "found", "spent", "told",
    "paid", "meant", "stuck", "split", "shut", "then", "very", "only", "even",
    # a default that is no secret (redact's placeholders)
    "changeme",
})
# How a word ending a sentence about a password ends: a participle, an adverb, an adjective of a
# suffix no noun a password is made of ends with ("ic", "al", "en" are crystal, magic, golden:
# their adjectives are listed above).
_PREDICATE_ENDS = ("ed", "ing", "able", "ible", "ive", "ous", "ful", "less", "ly")
# Nouns of the adverbs' ending ("tigerlily", "butterfly", "jelly").
_LY_NOUNS = ("lily", "fly", "jelly", "belly", "family", "anomaly", "assembly", "monopoly")
_PLAIN = lazy(r"[A-Za-z]{4,32}")
# The rest of a line after a word that ends its clause: nothing, a close, a closing quote
# (``git commit -m "… the password is sunshine"``), a comment, a parenthesis, a dash, a filler.
_ENDED = lazy(r"[ \t}\])]*(?:$|[\"'`]|[ \t]*(?:#|//|\(|[-—–][ \t])|[ \t]+(?:btw|fyi|iirc|though|lol)\b)")


def plain_password(bare: str, after: str, *, labelled: bool = False) -> str | None:
    """The password of one dictionary word (module docstring) that ``bare`` holds, ``after``
    the rest of its line, or None; Markdown's emphasis around it is kept for secretspan.
    ``labelled``: a label of both halves of a login put it there ("creds: admin / lapwing"), so
    a word of a participle's or an adverb's ending is a value too."""
    value = bare.rstrip(".,;!)]}")  # a flow map's close too: ``{DB_PASSWORD: sunshine}``
    if value == bare and not _ENDED.match(after):
        return None  # the sentence goes on: the word is no value standing alone
    word = value.strip("*_")
    if not _PLAIN.fullmatch(word) or word.isupper():
        return None
    low = word.lower()
    adjective = low.endswith(_PREDICATE_ENDS) and not low.endswith(_LY_NOUNS) and not labelled
    if low in _PREDICATES or adjective or low in STORES or ALGORITHM.fullmatch(low):
        return None  # "password => bcrypt": how it is hashed; "is environment": where it is
    return value


# How an abstract noun ends: what "the secret is …" names when it tells how a thing is done
# ("the secret is consistency", "… simplicity", "… patience"), not a value.
_ABSTRACT_ENDS = ("ness", "ity", "ence", "ance", "ment", "tion", "sion", "ism", "ship", "hood",
                  "cy", "ure", "dom")
# Abstract nouns of other endings that end such a sentence. Lowercase.
_ABSTRACT = frozenset({
    "practice", "discipline", "focus", "context", "design", "scope", "order", "size", "speed",
    "time", "timing", "trust", "luck", "work", "effort", "habit", "habits", "sleep", "money",
    "math", "data", "taste", "care", "love", "balance", "rhythm", "repetition", "restraint",
    "scale", "small", "less", "more", "simple", "iteration", "feedback", "tests", "types",
    "defaults", "caching", "indexes", "batches", "logs", "naming", "layering", "lazy",
})


def plain_secret(bare: str, after: str) -> str | None:
    """The secret of one plain word "the secret is …" names (no owner before it), or None: a
    password's word (plain_password) that is no abstract noun ("the secret is consistency"
    tells how, not what)."""
    value = plain_password(bare, after)
    if value is None:
        return None
    low = value.strip("*_").lower()
    return None if low in _ABSTRACT or low.endswith(_ABSTRACT_ENDS) else value


# A verb that gives a password its value, and the words of a link after it ("has been changed
# to").
_SET_VERB = lazy(r"(?i)(?<![\w-])(?:set(?:s|ting)?|chang(?:e[sd]?|ing)|reset(?:s|ting)?"
                 r"|updat(?:e[sd]?|ing)|rotat(?:e[sd]?|ing))(?![\w-])")
_SET_LINK = frozenset({"is", "was", "now", "has", "had", "been", "set", "changed", "reset",
                       "updated", "to"})


def set_to(link: str, text: str, at: int) -> bool:
    """Whether the prose rule's ``link`` is "to" after a verb setting the password whose word
    starts at ``at`` (its sentence's verb before it, or the link's own): "set the password to
    sunshine", "the password has been changed to sunshine"; not "set the password to expire"
    (a predicate: plain_password), not "a password to remember" (no verb)."""
    words = link.lower().split()
    if not words or words[-1] != "to" or not set(words) <= _SET_LINK:
        return False
    head = text[text.rfind("\n", 0, at) + 1:at]
    head = head[max(head.rfind(f"{mark} ") for mark in ".?!:") + 1:]
    return _SET_VERB.search(f"{head} {link}") is not None


# After the word a password is set to, the sentence's next clause: "… to sunshine and retry",
# "… to sunshine for now".
_CLAUSE_ON = lazy(r"[ \t]+(?:and|then|for\s+now|so|before|but|until|while|on|in|via)\b|[ \t]*[(—–]")


def clause_on(rest: str) -> bool:
    """Whether ``rest``, the line after the word a password is set to, starts another clause
    (the word then ends its own: "set the sudo password to marmalade and retry")."""
    return _CLAUSE_ON.match(rest) is not None


# A question asking what a secret is, from its sentence's start to its question mark: "what's
# the", "What is the db", "the admin" (a noun phrase asked alone), then the secret's word and
# whose it is; not "which", "why", "did you reset the".
_ASKS_WHAT = lazy(r"(?i)[\s>*_-]*(?:q:\s*)?(?:what(?:['’]s|\s+(?:is|was|are|were))?\s+"
                  r"(?:(?:the|my|your|our|their)\s+)?|(?:the|my|your|our|their)\s+)"
                  r"(?:[\w-]+\s+){0,2}[\w-]*(?:pass\w*|pwd?|token|secret|key|creds?|credentials"
                  r"|psk)s?(?:\s+(?:for|of|on)\s+[\w.@:/-]+(?:\s+[\w.@:/-]+){0,3})?\s*")


def asks_what(text: str, question: int) -> bool:
    """Whether the sentence ending at the question mark at ``question`` asks what a secret is:
    then a plain word answering it is the password ("what's the password? sunshine", "the
    admin password? sunshine"; not "Which password? Both.")."""
    head = text[text.rfind("\n", 0, question) + 1:question]
    cut = max(head.rfind(f"{mark} ") for mark in ".?!:")
    return _ASKS_WHAT.fullmatch(head[cut + 2:] if cut >= 0 else head) is not None


def passphrase_words(value: str) -> bool:
    """Whether ``value`` is a passphrase of plain words (3 to 10 of letters, none a sentence's
    word): ``correct horse battery staple``, not "is stored in the vault"."""
    words = value.split()
    return 3 <= len(words) <= 10 and all(
        w.isalpha() and w.lower() not in _SENTENCE_WORDS for w in words)


def unlinked_password(quoted: str | None, bare: str | None) -> str | None:
    """The password right after a password word with no link between (module docstring), or
    None: the quoted passphrase, or the bare value less a sentence's punctuation."""
    if quoted is not None:
        one_word = " " not in quoted and plain_password(quoted, "") is not None
        return quoted if one_word or passphrase_words(quoted) else None
    value = (bare or "").rstrip(".,;:)]}>")
    mixed = any(c.isupper() for c in value) and any(c.islower() for c in value)
    if len(value) >= 6 and mixed and any(c in SYMBOLS for c in value[1:-1]) and (
            value[0] not in "$%<{["):
        return value
    return None


def bare_key(word: str | None, value: str) -> bool:
    """Whether a long run after ``key`` (``word`` before it) is a key: hex with a digit, or
    base64 mixing cases and digits, after no word that makes it a key of code or data."""
    if word is not None and word.lower() in DATA_KEYS:
        return False
    if value.startswith(("/", "-", "_")) or is_path(value) or _FINGERPRINT.fullmatch(value):
        return False
    if _HEX.fullmatch(value):
        return any(c.isdigit() for c in value) and any(c.isalpha() for c in value)
    return (any(c.isdigit() for c in value) and any(c.isupper() for c in value)
            and any(c.islower() for c in value))
