"""Where a secret begins and ends, and what looks like one but is kept (pure).

The rules every detector's finding passes through before it is redacted (and the mark it is
replaced with, :func:`mark`, which redact and secretanswer both write):

- **The whole token.** A detector whose pattern has a fixed length (detect-secrets' GitHub
  pattern takes 36 characters, a newer token has more) would leave the token's tail in the
  note: a finding is extended to the end of the token it stops inside.
- **Markdown's emphasis balanced.** ``*`` and ``__`` runs at a value's ends are markup when
  the same run closes them on the other side (``**‹redacted:password›**``), or when a run in
  the line pairs with them; a run with no partner goes with the value (``**Xy…`` unclosed), so
  no mark is left beside half a pair.
- **Placeholders and masks.** A value whose longest run of letters and digits is one character
  (``…/XXXXXXXXXXXXXXXXXXXXXXXX`` of a docs' webhook URL, ``00000000``; three quarters of a run
  of 12 or more: ``AKIAXXXXXXXXXXXXXXXX``), or says it is an
  example or masked (``…EXAMPLEKEY``, ``fake``, ``***REDACTED***``, ``sk-ant-…`` shortened with
  ``...`` to a run under 12), is no secret, whatever found it; a private key block is always one.
- **The allowlist.** Values that look random but are not secrets are kept byte for byte: a git
  commit sha (short or full) or a sha256/sha512 hex after a generic word (``auth:``,
  ``token:``, "the secret hash is…"), an SRI integrity string (``sha512-…``), a docker digest
  (``sha256:…``), a UUID not assigned to a secret name, an AWS ARN, a data URI, a YAML tag
  before its operand (``password: !vault |``, ``!Ref DbPassword``), a GPG key's id or
  fingerprint in capitals hex on a line naming one (``user.signingkey = 8E1F899571345D06``)
  and a file path
  (the path of a key file is not the key). A value assigned to a specific secret name
  (``GITHUB_TOKEN=<40 hex>``, ``API_KEY=<uuid>``, ``password=abc12345``) is a secret whatever
  its shape.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from vaultmem.notes.lazyre import lazy
from vaultmem.notes.secretnames import name_words

MARK_OPEN = "‹redacted:"
MARK_CLOSE = "›"


def mark(kind: str) -> str:
    """What a secret of ``kind`` is replaced with (redact writes it; a value holding it is no
    secret of its own)."""
    return f"{MARK_OPEN}{kind}{MARK_CLOSE}"


ANSWER_CHARS, ANSWER_WORDS = 240, 8  # a prompt that is a bare value is no longer


def may_answer(prompt: str) -> bool:
    """Whether ``prompt`` is short enough to be a bare value (told without a regex)."""
    return len(prompt) <= ANSWER_CHARS and len(prompt.split()) <= ANSWER_WORDS


@dataclass(frozen=True)
class Finding:
    """A secret value in a text: ``text[start:end]`` (0-based, end-exclusive) and its kind."""

    start: int
    end: int
    kind: str


# Kinds a name or a context gives (not a vendor's token shape): only these can be paths, shas
# or UUIDs that happen to sit after a secret-like word.
CONTEXT_KINDS = frozenset({"secret", "password", "token"})

_TOKEN_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-+/=")
_TAG_START = lazy(r"</?[A-Za-z][\w-]*(?=[\s>/])")
_HEX_SHA = lazy(r"[0-9a-f]{7,12}|[0-9a-f]{40}|[0-9a-f]{64}|[0-9a-f]{128}", re.IGNORECASE)
_UUID = lazy(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
_DIGEST_BEFORE = lazy(r"(?:sha(?:1|224|256|384|512)|md5|blake2b?)[-:]$", re.IGNORECASE)
_SRI = lazy(r"(?:sha(?:1|256|384|512))-[A-Za-z0-9+/]{20,}={0,2}")
_ARN = lazy(r"(?<![\w-])arn:aws[\w-]*:[\w-]*:")
# A GPG key's long id or fingerprint as gpg prints them: capitals hex (a key is not written so).
_KEY_ID = lazy(r"(?=[0-9A-F]*[A-F])(?=[0-9A-F]*[0-9])(?:[0-9A-F]{16}|[0-9A-F]{40})")
_GPG_SAID = lazy(r"(?i)gpg|pgp|signingkey|signing[ _-]key|key[ _-]?id|fingerprint")
_YAML_TAG = lazy(r"!!?[A-Za-z]+")
_TAG_OPERAND = lazy(r"[ \t]+\S")
_YAML_KEY = lazy(r"(?m)^[ \t]*(?:-[ \t]+)?[\w.-]+['\"]?:[ \t]*$")
_DATA_URI = lazy(r"(?<![\w-])data:[\w.+/-]+(?:;[\w.+-]+=?[\w.+-]*)*;base64,")
# The name a value is assigned to, just before it on its line: ``NAME = ``, ``"NAME": "``,
# ``--name ``, ``NAME is ``; two words in prose ("api key is"); Markdown's emphasis around either
# (``**API key:** ``, ``to **``).
_NAME_BEFORE = lazy(
    r"(?:--)?([A-Za-z][\w.-]*(?:[ ][A-Za-z][\w-]*)?)['\"`\]*_]*[ \t]*"
    r"(?:=|:=|:|=>|[ \t]is|[ \t]was|[ \t]to)?[ \t]*['\"`*_]*[ \t]*$")
_IDENTIFIER = lazy(r"[A-Za-z][\w-]*")
_PATH_START = ("~/", "/", "./", "../", "$HOME/", "%USERPROFILE%", "~\\", ".\\", "..\\")
# A Windows path: a drive (``C:\Users``, ``c:/src``) or a UNC share (``\\server\share``).
_WINDOWS_START = lazy(r"^(?:[A-Za-z]:[\\/]|\\\\[\w.$-]+\\)")
_EXTENSION = lazy(r"\.[A-Za-z][A-Za-z0-9]{0,5}$")
_WORDY_SEGMENT = lazy(r"[A-Za-z0-9][\w.-]*")
# The last word of a name that says what the value is when it is not the secret itself.
_NOT_THE_VALUE = frozenset({
    "hash", "sha", "sha1", "sha256", "sha512", "digest", "checksum", "commit", "rev", "ref",
    "id", "arn", "path", "file", "dir", "url", "uri", "name", "type", "env", "var", "length",
    "len", "count", "size", "ttl", "expiry", "expires", "version", "header", "prefix",
})
_STRONG_SINGLE = frozenset({"password", "passwd", "pwd", "passphrase", "pw", "apikey",
                            "credentials", "creds", "privatekey", "secretkey", "accesskey"})
# A word before ``key``, ``token`` or ``secret`` in prose that makes it a specific secret.
_QUALIFIERS = frozenset({
    "api", "access", "private", "secret", "client", "webhook", "deploy", "signing", "master",
    "admin", "service", "bot", "app", "db", "database", "prod", "production", "staging",
    "refresh", "bearer", "oauth", "personal", "auth", "session", "encryption", "root", "ssh",
    "aws", "github", "gitlab", "slack", "stripe", "openai", "anthropic", "npm", "pypi",
    "hmac", "jwt", "shared", "preshared",
})
_SECRET_PARTS = ("pass", "pwd", "secret", "token", "key", "auth", "cred", "bearer")
_RUN = lazy(r"[a-z0-9]+")
# Words a longest run holding them says it is no secret (a real key holds none: 4 letters of 62
# or more at random positions).
_MASK_WORDS = ("example", "fake", "dummy", "placeholder", "redacted", "removed", "notreal",
               "xxxx")
_SHORTENED = 12  # a run shorter than this, beside ``...``: a shortened display, not the key


def whole(text: str, found: Finding) -> Finding:
    """``found`` extended to the end of the token it stops inside (a ``.`` only when a token
    character follows it, so a sentence's full stop stays)."""
    end = found.end
    # A detector may stop on a token's inner ``.`` (``eyJ….Zq81xL.`` of a signed cookie).
    if end == 0 or text[end - 1] not in _TOKEN_CHARS and text[end - 1] != ".":
        return found
    while end < len(text):
        ch = text[end]
        if ch in _TOKEN_CHARS or (ch == "." and end + 1 < len(text)
                                  and text[end + 1] in _TOKEN_CHARS and text[end + 1] != "="):
            end += 1
        else:
            break
    return found if end == found.end else Finding(found.start, end, found.kind)


def before_markup(text: str, found: Finding) -> Finding:
    """``found`` cut where a tag starts inside it (``token 0</private>``, ``pw: x<br>``): the
    tag is markup around the value, and eaten it would leave a ``<private>`` span open (the rest
    of the note blanked as private) or break the note's HTML. A context finding left shorter
    than 4 characters is no secret: it comes back empty."""
    tag = _TAG_START.search(text, found.start, min(found.end + 1, len(text)))
    if tag is None or tag.start() == found.start or tag.start() >= found.end:
        return found
    if found.kind in CONTEXT_KINDS and tag.start() - found.start < 4:
        return Finding(found.start, found.start, found.kind)  # what is left is no secret
    return Finding(found.start, tag.start(), found.kind)


def balanced(text: str, found: Finding) -> Finding:
    """``found`` with Markdown's emphasis left balanced (``*``, ``**``, ``__`` runs at its
    ends): a run on each side of the same length is markup around the value (``the password
    is **hunter2x9**`` keeps its bold: ``**‹redacted:password›**``); a run with no partner in
    its line (an unclosed ``**Xy…``, a value ending in ``*``) goes with the value, so no mark
    is left beside half a pair. A run paired elsewhere in the line (``**Password: x**``)
    stays."""
    start, end = found.start, found.end
    if end - start < 2 or found.kind == "private-key" or not (
            text[start] in "*_" or text[end - 1] in "*_" or text[start - 1:start] in ("*", "_")
            or text[end:end + 1] in ("*", "_")):
        return found
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", end)
    line_end = len(text) if line_end < 0 else line_end
    while start < end and text[start] in "*_":
        start += 1
    while end > start and text[end - 1] in "*_":
        end -= 1
    if end == start:
        return found  # a value of markup characters only: not for this rule
    left = _run_back(text, start, line_start)
    right = _run_on(text, end, line_end)
    if left != right or not left:
        runs = [*_runs(text, line_start, start - len(left)), *_runs(text, end + len(right),
                                                                  line_end)]
        if left and not _partner(runs, left, before=False, at=start):
            start -= len(left)
        if right and not _partner(runs, right, before=True, at=end):
            end += len(right)
    return found if (start, end) == (found.start, found.end) else Finding(start, end, found.kind)


def _run_back(text: str, at: int, floor: int) -> str:
    """The run of one emphasis character (``*`` or ``_``) ending at ``at``."""
    begin = at
    while begin > floor and text[begin - 1] in "*_" and text[begin - 1] == text[at - 1]:
        begin -= 1
    return text[begin:at]


def _run_on(text: str, at: int, ceiling: int) -> str:
    """The run of one emphasis character starting at ``at``."""
    stop = at
    while stop < ceiling and text[stop] in "*_" and text[stop] == text[at]:
        stop += 1
    return text[at:stop]


_EMPHASIS_RUN = lazy(r"\*+|(?<![A-Za-z0-9])_+|_+(?![A-Za-z0-9])")


def _runs(text: str, begin: int, end: int) -> list[tuple[int, str]]:
    """The emphasis runs of ``text[begin:end]`` (``_`` inside a word is none: ``DB_PASSWORD``)."""
    return [(m.start(), m.group(0)) for m in _EMPHASIS_RUN.finditer(text, begin, end)]


def _partner(runs: list[tuple[int, str]], run: str, *, before: bool, at: int) -> bool:
    """Whether the line's ``runs`` leave a run like ``run`` open on the side of ``at`` that
    closes or opens it (``before``: before ``at``): an odd count of them there."""
    return sum(r == run and (pos < at) == before for pos, r in runs) % 2 == 1


def name_before(text: str, start: int) -> str | None:
    """The name the value at ``start`` is assigned to on its line (``--api-key``, ``token``,
    ``api key``), or None."""
    line_start = text.rfind("\n", 0, start) + 1
    match = _NAME_BEFORE.search(text, max(line_start, start - 80), start)
    return match.group(1) if match else None


def strong_name(name: str | None) -> bool:
    """Whether ``name`` names a secret specifically (``GITHUB_TOKEN``, ``api key``,
    ``password``), not only a generic word a hash or a commit may follow (``auth``, ``token``,
    ``secret hash``)."""
    if not name:
        return False
    lowered = name_words(name)
    if not lowered or lowered[-1] in _NOT_THE_VALUE:
        return False
    if len(lowered) == 1:
        return lowered[0] in _STRONG_SINGLE or lowered[0].endswith(("password", "passwd"))
    if " " in name:  # prose: "api key", "deploy secret"; not "log auth", "the secret"
        last, previous = lowered[-1], lowered[-2]
        return any(part in last for part in _SECRET_PARTS) and (
            last in _STRONG_SINGLE or previous in _QUALIFIERS)
    return any(part in w for w in lowered for part in _SECRET_PARTS)


def placeholder(value: str, kind: str) -> bool:
    """Whether ``value``, found as a secret of ``kind``, is a placeholder or a mask (module
    docstring); only the part before an ``@`` is read (a host is no part of a password)."""
    low = value.split("@", 1)[0].lower()
    runs = _RUN.findall(low)
    if not runs:
        return False
    longest = max(runs, key=len)
    if any(word in longest for word in _MASK_WORDS) or (
            "***" in low and any(w in low for w in ("redacted", "removed", "masked"))):
        return True
    most = max(map(longest.count, set(longest)))
    if (most == len(longest) >= 8) or (len(longest) >= 12 and most * 4 >= len(longest) * 3):
        return True
    return ("..." in low or "…" in low) and len(longest) < _SHORTENED and kind not in (
        "password", "pin")


def kept(text: str, found: Finding) -> bool:
    """Whether ``found`` is a value the allowlist keeps (module docstring)."""
    value = text[found.start:found.end]
    if found.kind == "private-key":
        return False
    if "‹" in value or "›" in value:
        return True  # a mark already there (``https://‹redacted:token›@host`` read as user:pass)
    if placeholder(text[found.start:found.end + 3], found.kind):  # ``…`` or ``...`` after it
        return True
    run_start = found.start
    while run_start > 0 and not text[run_start - 1].isspace() and text[run_start - 1] not in "\"'`(<[":
        run_start -= 1
    before = text[run_start:found.start]
    if _DATA_URI.search(before) or _ARN.search(before) or _ARN.match(value):
        return True
    if _SRI.fullmatch(value) or _DIGEST_BEFORE.search(before) or value.startswith("data:"):
        return True
    if _YAML_TAG.fullmatch(value) and _TAG_OPERAND.match(text, found.end) and _YAML_KEY.search(
            text, text.rfind("\n", 0, found.start) + 1, found.start):
        return True  # ``password: !vault |``, ``!Ref DbPassword``: a YAML tag before its operand
    if found.kind not in CONTEXT_KINDS:
        return False  # a vendor's token shape is a token wherever it is
    if is_path(value):
        return True
    if found.kind == "password":
        return False  # after a password word or flag, a hex or UUID value is the password
    if _KEY_ID.fullmatch(value) and _GPG_SAID.search(_line_of(text, found.start)):
        return True  # ``user.signingkey = 8E1F899571345D06``: a GPG key's id, as gpg prints it
    if _HEX_SHA.fullmatch(value) or _UUID.fullmatch(value):
        name = name_before(text, found.start)
        if _UUID.fullmatch(value):
            return name is None or not _secret_like(name)
        return not strong_name(name) and not _named_on_line(text, found.start)
    return False


def _line_of(text: str, at: int) -> str:
    end = text.find("\n", at)
    return text[text.rfind("\n", 0, at) + 1:len(text) if end < 0 else end]


def is_path(value: str) -> bool:
    """Whether ``value`` reads like a file path (``~/.ssh/id_ed25519``, ``secrets/token.txt``,
    ``C:\\Users\\me\\.ssh\\id_rsa``, ``\\\\server\\share``, ``keys\\prod.pem``) rather than a
    key that holds slashes (base64) or a URL with a password."""
    if "://" in value or "@" in value:
        return False
    if value.startswith(_PATH_START) or _WINDOWS_START.match(value):
        segments = [s for s in re.split(r"[/\\]", value[2:] if value[1:2] == ":" else value) if s]
        return all(len(s) < 24 or not _random(s) for s in segments)
    separator = "/" if "/" in value else "\\"
    if separator not in value or not _EXTENSION.search(value):
        return False
    return all(_WORDY_SEGMENT.fullmatch(s) and not _random(s) for s in value.split(separator) if s)


def _random(segment: str) -> bool:
    """Whether a path segment mixes letters and digits over a long stretch, as keys do."""
    return len(segment) >= 16 and any(c.isdigit() for c in segment) and any(
        c.isupper() for c in segment) and any(c.islower() for c in segment)


def _named_on_line(text: str, start: int) -> bool:
    """Whether an identifier shortly before ``start`` on its line names a secret specifically
    (``set the SECRET_KEY env var to …``)."""
    line_start = text.rfind("\n", 0, start) + 1
    words = (m.group(0) for m in _IDENTIFIER.finditer(text, max(line_start, start - 60), start))
    return any(strong_name(w) for w in words if "_" in w or w.isupper())


def _secret_like(name: str) -> bool:
    low = name.lower()
    return any(part in low for part in _SECRET_PARTS)
