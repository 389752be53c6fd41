"""Secrets out of every text vaultmem keeps: a value becomes ``‹redacted:kind›``, its name stays.

Pure. ``AWS_SECRET_ACCESS_KEY=…`` becomes ``AWS_SECRET_ACCESS_KEY=‹redacted:aws›`` and
``postgres://admin:…@host/db`` becomes ``postgres://admin:‹redacted:password›@host/db``: the memory
keeps the fact (which variable, which database) without the value. What counts as a secret:

- the regex detectors of Yelp's ``detect-secrets`` (AWS, GitHub, GitLab, Slack, Stripe, JWT, basic
  auth in URLs, Twilio, SendGrid, npm, PyPI, Discord, Azure, Telegram, Square, IBM...), the whole
  match or the value group of the match;
- the keys of the model vendors and a few tokens detect-secrets does not know (``sk-ant-…``,
  OpenAI ``sk-…``/``sk-proj-…``, Google ``AIza…``, Hugging Face ``hf_…``, Groq ``gsk_…``...);
- a private key: the whole ``BEGIN … END`` block (fenced or not; to the end of its base64 when the
  END line is missing);
- the value of an assignment to a secret-like name (detect-secrets' keyword rules, plus ``token``,
  ``auth``, ``credentials``; ``Bearer …``), unless it reads like code (a reference, a call, a
  type, a placeholder, a setting's ``disabled``, a secret's name such as ``secretRef``; a
  shell's ``PGPASSWORD=word`` is none: secretnames.env_secret);
- a high-entropy string (detect-secrets' Shannon entropy: secretentropy) after a secret-like
  name on its line;
- a value known by its context whatever its shape (secretcontext): a secret word and its value in
  prose (a password of one dictionary word too: secretwords), a question naming it and its
  answer, password flags of commands (which commands: secretcommands), URL userinfo with or
  without a user, Authorization headers; a connection string's password or key (libpq's too),
  HTTP Digest's response, a token as a URL's user (secretconn);
- a key wrapped over two lines, a value on the line after its label, or base64-encoded
  (secretprep);
- an AWS secret key on the line of its access key id, unnamed (a credentials file's pair);
- a table's cell under a column named a secret, or beside a cell naming one (secrettable);
- a passphrase of plain words, a bare ``key``'s long hex run, a list of logins and passwords, a
  value before its secret word, a wifi password (secretphrase; which words are values:
  secretwords).

Every finding covers the whole token it is in, leaving Markdown's emphasis balanced, and values
that look random but are not secrets (commit shas, digests, SRI strings, UUIDs not named a secret,
ARNs, data URIs, paths) are kept,
as are placeholders and masks (``XXXX…``, ``…EXAMPLEKEY``, ``***REDACTED***``) and marks already
there: redacting twice changes nothing (secretspan). Services' token shapes: secretshapes; secret-like names: secretnames.

Cost: a pre-filter (secretfilter) finds the lines that could hold a secret (a vendor prefix, a
URL with a password, a secret-like name with a value...); text without one is returned as it
is. The detectors run on those lines only, each compiled and run only where a literal of its
matches is (secretgate); detect-secrets' rules come from secretrules (a cache file:
importing detect-secrets costs a hook about 0.25 s). Deterministic: the same text and allowlist
give the same output.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache

from vaultmem.notes import (
    secretconfig,
    secretcontext,
    secretfilter,
    secretphrase,
    secretprep,
    secretspan,
    secrettable,
)
from vaultmem.notes.lazyre import LazyPattern, lazy
from vaultmem.notes.secretcontext import QUERY_NEXT
from vaultmem.notes.secretgate import Gated, lowered
from vaultmem.notes.secretnames import about_a_secret, env_secret, name_kind, passphrase
from vaultmem.notes.secretshapes import VENDOR_PATTERNS
from vaultmem.notes.secretspan import MARK_OPEN, Finding, mark, may_answer

# A line that names a secret and gives its value, and says nothing else ("the prod db password
# is ‹redacted:password›", "STAGING_KEY=‹redacted:api-key›"): once redacted it tells nothing.
_ONLY_SECRET = lazy(r"\W*[^‹\n]{0,80}?(?:\bis|\bare|\bwas|=|:)\s*[\"'`]?‹redacted:[^›\n]*›[\"'`]?"
                    r"[\s.!;,]*")


def says_only_secret(redacted: str) -> bool:
    """Whether a redacted line says nothing but that a secret's value was there."""
    return _ONLY_SECRET.fullmatch(redacted.strip()) is not None


@dataclass(frozen=True)
class Redaction:
    """The ``[redact]`` settings: on unless turned off; ``allow`` lists values, or regular
    expressions matching whole values, that are not secrets (false positives)."""

    enabled: bool = True
    allow: tuple[str, ...] = ()

    def __call__(self, text: str) -> str:
        """``text`` redacted under these settings (as it is when redaction is off)."""
        return redact(text, allow=self.allow) if self.enabled else text

    def answer(self, prompt: str, asked: Callable[[], str | None]) -> str:
        """``prompt`` (redacted already) with the value it gives redacted when the prose Claude
        ended on before it (``asked()``, called only for a prompt short enough to be a value)
        asked for a secret (secretanswer, imported then)."""
        if not self.enabled or not may_answer(prompt):
            return prompt
        said = asked()
        if not said:
            return prompt
        from vaultmem.notes import secretanswer

        return secretanswer.answered(prompt, said, allowed=_allowed(self.allow))


    def answers(self, said: str) -> str:
        """AskUserQuestion's result ``said`` (redacted already) with each answer redacted that
        is the bare value of a secret its question asks for (secretanswer, imported then)."""
        if not self.enabled or '"="' not in said:
            return said
        from vaultmem.notes import secretanswer

        return secretanswer.in_answers(said, _allowed(self.allow))


DEFAULT = Redaction()
Scrub = Callable[[str], str]

# A secret-like word in prose: a high-entropy string shortly after it is its value ("the
# deploy secret is 9f8e…").
_PROSE_NAME = (
    r"(?i)\b(?:(secret|token|password|passwd|pwd|credential)s?"
    r"|(?:api|access|private|secret|signing)[ _-]?key)\b"
)

# detect-secrets plugin -> kind. A plugin not listed here is not used (a new one, in a newer
# detect-secrets, is added here once its patterns are in the pre-filter; tests check the match).
PLUGIN_KINDS = {
    "AWS Access Key": "aws",
    "Artifactory Credentials": "artifactory",
    "Azure Storage Account access key": "azure",
    "Basic Auth Credentials": "password",
    "Cloudant Credentials": "cloudant",
    "Discord Bot Token": "discord",
    "GitHub Token": "github",
    "GitLab Token": "gitlab",
    "IBM Cloud IAM Key": "ibm",
    "IBM COS HMAC Credentials": "ibm",
    "JSON Web Token": "jwt",
    "Mailchimp Access Key": "mailchimp",
    "NPM tokens": "npm",
    "OpenAI Token": "openai",
    "PyPI Token": "pypi",
    "SendGrid API Key": "sendgrid",
    "Slack Token": "slack",
    "SoftLayer Credentials": "softlayer",
    "Square OAuth Secret": "square",
    "Stripe Access Key": "stripe",
    "Telegram Bot Token": "telegram",
    "Twilio API Key": "twilio",
}
# Detectors that are assignments to vendor names (``cloudant_password = …``): run where a
# secret-like name is too (their URL forms are found by their host, like the others).
_NAMED_PLUGIN_KINDS = frozenset({"cloudant", "ibm", "softlayer"})
# Read by their own rules below (the private key as a whole block, keywords and entropy by the
# name before them); a public IP address is not a secret.
PLUGINS_READ_OTHERWISE = frozenset({
    "Private Key", "Secret Keyword", "Base64 High Entropy String", "Hex High Entropy String",
    "Public IP (ipv4)",
})

_PRIVATE_KEY = (
    # its header or footer may be cut by a line break ("-----BEGIN PRIVATE⏎KEY-----")
    r"-----BEGIN[ A-Z0-9\r\n]*PRIVATE\s+KEY(?:\s+BLOCK)?-----"
    r"(?:[\s\S]{0,20000}?-----END[ A-Z0-9\r\n]*PRIVATE\s+KEY(?:\s+BLOCK)?-----"
    r"|(?:\s*(?:[\w-]+: [^\n]*|[A-Za-z0-9+/=]{16,}))*"
    r"(?:\s+[A-Za-z0-9+/]{1,15}={0,2}(?=[ \t]*(?:\n|$)))?)"
    r"|PuTTY-User-Key-File-\d:[\s\S]{0,20000}?Private-MAC: [0-9a-fA-F]+"
    r"|-----BEGIN OpenVPN Static key V\d-----[\s\S]{0,20000}?-----END OpenVPN Static key V\d-----"
)
_NAME = r"_*[A-Za-zñ][\w.ñ-]*"  # ``_auth`` (.npmrc), ``__token__`` too
# ``NAME = value``, ``NAME: value``, ``"NAME": "value"``, ``--name value``, ``NAME=>value``:
# group 1 the name, group 2 the quote, group 3 the value.
_ASSIGN = (
    r"(?<![\w.-])(?:--)?(" + _NAME + r")['\"`\]]*\s*(?:=|:=|:(?!:)|=>|==)\s*(['\"`]?)"
    r"((?<=['\"`])[^'\"`\n]{1,200}(?=['\"`])|(?<!['\"`])[^\s'\"`,;:][^\s'\"`,;]*)"
)
_BEARER = r"(?i:\b(bearer|token|basic)\s+)([A-Za-z0-9._~+/=-]{16,})"
# Candidates for the entropy rule: base64/hex-ish runs of 16 or more characters.
_TOKEN = r"[A-Za-z0-9+/_.~-]{16,}={0,2}"
_UUID = r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
# Values that are code, types or placeholders, not secrets.
_NOT_SECRET = frozenset({
    "none", "null", "nil", "true", "false", "undefined", "str", "string", "bytes", "int",
    "bool", "optional", "any", "secretstr", "required", "redacted", "hidden", "masked",
    "changeme", "placeholder", "example", "xxx", "todo", "tbd", "env", "environ",
    # a setting's value (``PASSWORD_AUTH=disabled``, ``SECRET_ROTATION: enabled``)
    "enabled", "disabled", "enable", "disable", "auto", "allow", "allowed", "deny", "denied",
    "strict", "always", "never", "default",
})
_ENTROPY_SPAN = 80  # characters after a secret-like name that the entropy rule looks at
# After a word in a value's place, the next word of its sentence (not a ``# comment``).
_SENTENCE_ON = lazy(r"[ \t]+[A-Za-z][a-z]+\b")
# A URL query's or a connection string's next pair (``…&user=alice``, ``…;EndpointSuffix=…``).
_NEXT_PAIR = lazy(r"[&;](?=[A-Za-z_][\w.-]{0,40}=)")


# Compiled on first use (lazyre): most texts a hook writes have no secret-like word, and the
# pre-filter then needs none of the detectors' patterns.
_RULES: dict[str, LazyPattern] = {
    "aws_secret": lazy(r"(?<![A-Za-z0-9/+=])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])"),
    "private_key": lazy(_PRIVATE_KEY),
    "assign": lazy(_ASSIGN),
    "bearer": lazy(_BEARER),
    "prose_name": lazy(_PROSE_NAME),
    "token": lazy(_TOKEN),
    "uuid": lazy(_UUID),
    "date": lazy(r"\d{1,4}[/.-]\d{1,2}[/.-]\d{1,4}"),
    # ``%APPDATA%`` is a Windows variable; ``%0000000A%`` may be a password.
    "placeholder": lazy(r"^(?:x+|\*+|\.+|-+|#+|0+|<.*>|\{.*\}|\$.*|%[a-z_]+(?:\(x86\))?%"
                        r"|your[_-].*)$", re.IGNORECASE),
    "reference": lazy(r"^[A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)+$|[()\[\]{}<>‹›]|^[a-z_]+$"),
}


# The shape and keyword detectors, each compiled and run only where one of its literals is in
# the span it searches (secretgate; their literals are cached with detect-secrets' rules).
@lru_cache(maxsize=1)
def _vendor() -> tuple[tuple[str, Gated], ...]:
    from vaultmem.notes.secretrules import load

    rules = load()
    return tuple((kind, rules.gated(p)) for kind, p in VENDOR_PATTERNS)


@lru_cache(maxsize=1)
def _plugins() -> tuple[tuple[str, Gated], ...]:
    """(kind, pattern) of detect-secrets' regex detectors (secretrules: cached, or imported)."""
    from vaultmem.notes.secretrules import load

    rules = load()
    return tuple((PLUGIN_KINDS[secret_type], rules.gated(pattern, flags))
                 for secret_type, pattern, flags in rules.plugins
                 if secret_type in PLUGIN_KINDS)


@lru_cache(maxsize=1)
def _keyword_patterns() -> tuple[tuple[Gated, int], ...]:
    """detect-secrets' keyword rules: (pattern, the value's group), quoted and config forms."""
    from vaultmem.notes.secretrules import load

    rules = load()
    return tuple((rules.gated(pattern, flags), group) for pattern, flags, group in rules.keywords)


@lru_cache(maxsize=1)
def _indirect() -> re.Pattern[str]:
    from vaultmem.notes.secretrules import load

    pattern, flags = load().indirect
    return re.compile(pattern, flags)


@lru_cache(maxsize=16)
def _allowed(allow: tuple[str, ...]) -> Callable[[str], bool]:
    literal = frozenset(allow)
    patterns = []
    for entry in allow:
        try:
            patterns.append(re.compile(entry))
        except re.error:
            continue  # not a regex: a literal value only

    def allowed(value: str) -> bool:
        return value in literal or any(p.fullmatch(value) for p in patterns)

    return allowed


# -- names and values -----------------------------------------------------------------------

def _looks_secret(value: str, quoted: bool) -> bool:
    """Whether an assigned value reads like a secret rather than code, a type or a path."""
    c = _RULES
    bare = value.strip("'\"`").strip("*_")  # Markdown emphasis is not part of a value
    if len(bare) < 4 or MARK_OPEN in bare or bare.lower() in _NOT_SECRET:
        return False
    if c["placeholder"].match(bare):
        return False  # a UUID is a value too (a Heroku key): secretspan keeps one not named so
    if bare.startswith(("/", "./", "~/", "http://", "https://", "file:")):
        return False  # a path or a URL (a password in a URL is the basic-auth rule's)
    if bare.isdigit() and len(bare) < 12:
        return False  # a count (``max_tokens: 4096``), a port
    if bare[:1].isdigit() and c["date"].fullmatch(bare):
        return False  # ``11/15/2025``, ``2025-11-15``
    if not quoted and c["reference"].search(bare):
        return False  # ``self.password``, ``get_token()``, ``new_password``
    if quoted and re.search(r"[()\[\]{}‹›]", bare):
        return False
    return not (quoted and " " in bare)


def _has_letter(value: str) -> bool:
    """Whether ``value`` holds a letter: a count ("Secrets: ~150+") is not a key."""
    return any(ch.isalpha() for ch in value)


# -- finding ----------------------------------------------------------------------------------

_PHRASE_BEFORE = 40  # how far before it a phrase naming the secret may start


def _value_span(match: re.Match[str]) -> tuple[int, int]:
    """The secret in a detector's match: its value group when the match only frames it
    (``://user:VALUE@``, ``aws…'VALUE'``), else the whole match less the framing characters."""
    start, end = match.span()
    for group in range(len(match.groups()), 0, -1):
        g_start, g_end = match.span(group)
        if g_start > start and g_end >= end - 1 and g_end > g_start:
            return g_start, g_end
    text = match.string
    while start < end and text[start] in " \t=:\"'":
        start += 1
    while end > start and text[end - 1] in " \t\"'":
        end -= 1
    return start, end


def _by_shape(text: str, begin: int, end: int) -> Iterator[Finding]:
    """Vendor tokens (ours and detect-secrets' detectors) in ``text[begin:end]``; and beside
    an AWS access key id, its unnamed secret key (``AKIA…,wJal…``, as a credentials file or
    ``aws configure`` output pastes the pair)."""
    low = lowered(text[begin:end])
    for kind, pattern in (*_vendor(), *_plugins()):
        for m in pattern.finditer(text, begin, end, low):
            start, stop = _value_span(m)
            if stop > start:
                yield Finding(start, stop, kind)
                if kind == "aws":
                    yield from _aws_pair(text, start, stop)


def _aws_pair(text: str, start: int, stop: int) -> Iterator[Finding]:
    """The 40-character secret keys on the line of the access key id at ``text[start:stop]``
    (mixed case and a digit: a git hash is hex, a path has words)."""
    line_end = text.find("\n", stop)
    line = (text.rfind("\n", 0, start) + 1, len(text) if line_end < 0 else line_end)
    for m in _RULES["aws_secret"].finditer(text, *line):
        value = m.group(0)
        if value.lower() != value != value.upper() and any(ch.isdigit() for ch in value):
            yield Finding(m.start(), m.end(), "aws")


def _by_name(text: str, begin: int, end: int) -> Iterator[Finding]:
    """Values assigned to secret-like names in ``text[begin:end]``, and high-entropy strings
    after such names."""
    from vaultmem.notes.secretentropy import entropy_high  # imported by the first name found

    c = _RULES
    named: list[tuple[int, str]] = []  # (where a value may start, kind)
    for m in c["assign"].finditer(text, begin, end):
        kind = name_kind(m.group(1))
        if kind is None or about_a_secret(m.group(1)):
            continue
        named.append((m.start(3), kind))
        quoted = bool(m.group(2))
        value = m.group(3) if quoted else QUERY_NEXT.split(m.group(3), maxsplit=1)[0]
        if not quoted and ("_" in value or "." in value or _camel(value)) and _variable(
                text, m.start(3), value):
            continue  # ``X_HAS_PSK: cryptography_has_psk2``, ``secret: secretRef``: a name
        # ``PGPASSWORD=postgres psql``: a shell's environment assignment's value is a string
        literal = quoted or text[m.end(1):m.start(3)] == "=" and env_secret(m.group(1))
        if not literal and _word(text, m.start(3), value):
            continue  # "Password: Reset": the prose rule reads a word (secretwords)
        if not literal and value.isalpha() and ":" in text[m.end(1):m.start(3)] and (
                _SENTENCE_ON.match(text, m.end(3))):
            continue  # "PASS: Secrets were redacted", "…-auth: Enable Opencode to…": prose
        if (_looks_secret(value, literal) or (quoted and not c["placeholder"].match(value)
                                               and passphrase(m.group(1), value))) and (
                kind == "password" or _has_letter(value) or len(value) >= 12):
            yield Finding(m.start(3), m.start(3) + len(value), kind)
    window = text[begin:end]
    low = lowered(window)
    if not _is_indirect(window):
        for pattern, group in _keyword_patterns():
            for m in pattern.finditer(text, begin, end, low):
                value = _NEXT_PAIR.split(m.group(group) or "", maxsplit=1)[0].rstrip(";")
                if "@" in value and text.endswith("://", 0, m.start()):
                    value = value.rsplit("@", 1)[0]  # ``://x-access-token:…@host``: not the host
                if _word(text, m.start(group), value):
                    continue  # "Password: Reset": the prose rule reads a word (secretwords)
                if value and _looks_secret(value, True) and not _variable(
                        text, m.start(group), value) and not about_a_secret(
                        _keyword_name(m)):
                    yield Finding(m.start(group), m.start(group) + len(value), _keyword_kind(m))
    for m in c["bearer"].finditer(text, begin, end):
        if entropy_high(m.group(2)):
            yield Finding(m.start(2), m.end(2), "token")
        named.append((m.start(2), "token"))
    prose = [(m.end(), name_kind(m.group(0).replace(" ", "_")) or "secret")
             for m in c["prose_name"].finditer(text, begin, end)
             if not _compound(text, m.end()) and not _in_url(text, m.start())]
    for at, kind in [*named, *prose]:
        for t in c["token"].finditer(text, at, min(end, at + _ENTROPY_SPAN)):
            token = t.group(0).lstrip(".-")
            token = token if token.endswith("=") else token.rstrip(".-")
            if "/" in token and re.search(r"\.[A-Za-z]{1,5}$", token):
                continue  # a file path
            if text.endswith("[[", 0, t.start()):
                continue  # a wikilink's target: a note's path ("… the password ([[sessions/…]])")
            if c["uuid"].fullmatch(token) or not entropy_high(token):
                continue
            if (at, kind) in prose and (
                    re.fullmatch(r"[0-9a-fA-F]{40}|[0-9a-fA-F]{64}", token)
                    or any(ch in text[at:t.start()] for ch in "=:\"'`{}")):
                continue  # a commit near the word, or a value that has a name of its own
            start = t.start() + t.group(0).find(token)
            yield Finding(start, start + len(token), kind)
    # The context rules read a phrase ("the api key is …") from the line's words before it.
    yield from _in_context(
        text, max(text.rfind("\n", 0, begin) + 1, begin - _PHRASE_BEFORE), end)
    for kind, pattern in _plugins():
        if kind in _NAMED_PLUGIN_KINDS:
            for m in pattern.finditer(text, begin, end, low):
                start, stop = _value_span(m)
                yield Finding(start, stop, kind)


def _in_context(text: str, begin: int, end: int) -> Iterator[Finding]:
    """The findings of the context rules (secretcontext, secretconfig) in ``text[begin:end]``."""
    yield from secretcontext.findings(text, begin, end)
    yield from secretconfig.findings(text, begin, end)
    yield from secretphrase.findings(text, begin, end)
    from vaultmem.notes import secretconn  # imported by the first text that may hold one
    yield from secretconn.findings(text, begin, end)


def _compound(text: str, at: int) -> bool:
    """Whether the secret word ending at ``at`` goes on as another (``--list-secret-keys``)."""
    nxt = text[at + 1:at + 2]
    return text.startswith("-", at) and nxt.isascii() and nxt.isalpha()


def _in_url(text: str, at: int) -> bool:
    """Whether the word at ``at`` is part of a URL (``…/secret-scanning/unblock-secret/ID``):
    a path's words, not prose naming a secret (a URL's password is the url rule's)."""
    start = at
    while start > 0 and not text[start - 1].isspace() and at - start < 300:
        start -= 1
    return "://" in text[start:at]


def _variable(text: str, start: int, value: str) -> bool:
    """Whether an unquoted value after a keyword is code: a dotted reference
    (``settings.OPENAI_API_KEY``) or an identifier that names a secret itself
    (``self._password = password``, ``token = access_token``)."""
    if start > 0 and text[start - 1] in "'\"`":
        return False
    if _RULES["reference"].match(value) and "." in value:
        return True
    return re.fullmatch(r"[A-Za-z_]\w*", value) is not None and name_kind(value) is not None


def _word(text: str, start: int, value: str) -> bool:
    """Whether an unquoted value is one word of letters, lowercase past its first (a full stop
    after it is its sentence's)."""
    value = value.rstrip(".!,;)")
    return value.isalpha() and value[1:].islower() and not (
        start > 0 and text[start - 1] in "'\"`")


def _camel(value: str) -> bool:
    """Whether ``value`` is a camelCase identifier of letters (``secretRef``, ``apiKeyName``)."""
    return value[:1].islower() and value.isalpha() and not value.islower()


def _keyword_kind(match: re.Match[str]) -> str:
    kind = name_kind(_keyword_name(match))
    return kind or "secret"


def _keyword_name(match: re.Match[str]) -> str:
    """The name a keyword rule's match assigns to."""
    name = re.match(r"[\w.-]*", match.group(0).lstrip("\"'`[ "))
    return name.group(0) if name else ""


def _is_indirect(window: str) -> bool:
    """detect-secrets' is_indirect_reference: ``secret = get_secret_key()``."""
    return len(window) <= 1000 and _indirect().search(window) is not None


def _merged(found: Iterable[Finding]) -> list[Finding]:
    """Overlapping findings as one (the first kind found at the earliest start wins)."""
    out: list[Finding] = []
    for f in sorted(found, key=lambda f: (f.start, -f.end)):
        if out and f.start < out[-1].end:
            last = out[-1]
            out[-1] = Finding(last.start, max(last.end, f.end), last.kind)
        else:
            out.append(f)
    return out


def find(text: str, *, allow: Sequence[str] = ()) -> list[Finding]:
    """The secrets in ``text`` (offsets into it), in order, without overlaps; values that
    ``allow`` lists are left."""
    merged = _detect(text, nested=False)
    if allow:
        allowed = _allowed(tuple(allow))
        merged = [f for f in merged if not allowed(text[f.start:f.end])]
    return merged


def _detect(text: str, *, nested: bool) -> list[Finding]:
    """Every detector's findings, whole tokens, the allowlist's values left out, merged.
    ``nested``: a joined or decoded text, not looked at for wrapping or encoding again."""
    shaped, named, commands = secretfilter.candidates(text)
    found: list[Finding] = []
    if shaped or named or commands:
        if ("PRIVATE KEY" in text or "PuTTY-User-Key" in text or "OpenVPN Static key" in text
                or ("-----BEGIN" in text and "PRIVATE" in text)):
            found.extend(Finding(m.start(), m.end(), "private-key")
                         for m in _RULES["private_key"].finditer(text))
        for begin, end in secretfilter.line_spans(text, shaped):
            found.extend(_by_shape(text, begin, end))
        for begin, end in secretfilter.windows(text, named):
            found.extend(_by_name(text, begin, end))
        for begin, end in secretfilter.line_spans(text, commands):
            found.extend(_in_context(text, begin, end))
        if not nested and "\n" in text:
            lines = [b for b, _ in secretfilter.line_spans(text, sorted({*shaped, *named, *commands}))]
            found.extend(secretprep.wrapped(text, lines, _nested))
            found.extend(secretprep.labelled(text, lines, _nested))
    if not nested and len(text) >= secretprep.ENCODED_MIN:
        found.extend(secretprep.encoded(text, _nested))
    if not nested and "|" in text:
        found.extend(secrettable.findings(text))
    if not nested and "\n" in text:
        found.extend(secretconfig.groups(text))
    found = [f if f.kind == "private-key" else secretspan.whole(text, f) for f in found]
    found = [secretspan.balanced(text, secretspan.before_markup(text, f)) for f in found]
    return _merged(f for f in found if f.end > f.start and not secretspan.kept(text, f))


def _nested(text: str) -> list[Finding]:
    return _detect(text, nested=True)


def redact(text: str, *, allow: Sequence[str] = ()) -> str:
    """``text`` with every secret value replaced by ``‹redacted:kind›`` (names kept)."""
    found = find(text, allow=allow)
    if not found:
        return text
    parts: list[str] = []
    pos = 0
    for f in found:
        parts.append(text[pos:f.start])
        parts.append(mark(f.kind))
        pos = f.end
    parts.append(text[pos:])
    return "".join(parts)
