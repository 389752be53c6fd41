"""Secrets given by configuration markup and by commands that store a secret (pure).

Their name is no assignment's left side, so the keyword rules miss them:

- an XML element named a secret: ``<password>…</password>``, ``<apiKey>…</apiKey>``;
- a .NET ``appSettings`` entry: ``<add key="ApiKey" value="…" />``;
- a Terraform variable's default: ``variable "db_password" { default = "…" }``;
- the value a secret store's command is given: ``gh secret set NAME --body …`` (or ``-b``),
  ``netlify env:set NAME …``, a here-string (``vercel env add NAME <<< '…'``, ``sudo -S <<<
  '…'``), or an ``echo``
  piped into one of them, into ``chpasswd``, into a ``--password-stdin`` flag or into
  ``sudo -S`` (how an agent without a terminal gets past sudo's prompt);
- the value a cloud secret store's command is given by flag: ``az keyvault secret set …
  --value …``; ``aws ssm put-parameter … --value …`` when the parameter is a ``SecureString``
  or its ``--name`` ends in a secret's name (``/prod/db/password``; ``--value 3`` of
  ``/app/replicas`` is a setting) and the value reads like one (``--secret-string`` is
  secretcontext's flag rule);
- HashiCorp Vault's tokens: the argument of ``vault login`` (``vault token lookup|revoke|renew``),
  and the older service token shape (``s.`` and 24 letters and digits, before ``hvs.``) on a
  line that names a vault, or a token when the value holds a digit (a 24-letter attribute,
  ``s.someAttributeNameHere``, is code);
- a value GitHub Actions is told to mask (``::add-mask::…``);
- the passphrase ``ssh-keygen`` is given with ``-N`` or ``-P``, the string PowerShell's
  ``ConvertTo-SecureString`` is given, SQL's ``IDENTIFIED BY '…'``, Oracle's ``sqlplus
  user/PASS@db``, Redis's ``requirepass``/``masterauth``;
- a setting a command stores by name, without ``=``: ``npm config set //host/:_authToken …``,
  ``set -x DB_PASSWORD …`` (fish), ``setx API_KEY …``; a secret-like name quoted beside its
  quoted value: ``define('DB_PASSWORD', '…')``, ``user-secrets set "Db:Password" "…"``,
  ``SetEnvironmentVariable('DB_PASS', '…', 'User')`` (a short last argument after it); the
  password of an ``auth=('user', '…')`` pair;
- a record's name and value fields: ``- name: DB_PASSWORD`` over ``value: …`` (Kubernetes),
  ``{"name": "API_KEY", "value": "…"}``; an ``echo`` piped into ``passwd --stdin`` or
  ``--passphrase-fd 0``;
- an expect script's answer to a password prompt (``expect "Password:"`` then ``send
  "…\r"``; pexpect's ``sendline('…')``);
- the password of a ``.pgpass`` line, ``host:port:database:user:password`` (five fields, the port
  a number or ``*``, the user with a letter: a timestamp or a MAC address is not one).

A named value must still read like one (secretcontext.secretish); a value in a secret's place
only must not be a placeholder (``echo $TOKEN | … --password-stdin`` gives nothing).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from vaultmem.notes.lazyre import lazy
from vaultmem.notes.secretcontext import placeholder, secretish
from vaultmem.notes.secretnames import name_kind, name_words
from vaultmem.notes.secretspan import Finding

TF_BLOCK = 300  # how far past the ``variable "…"`` line its ``default`` is looked for
_VALUE = r"(['\"]?)([^\s'\"<>|]{3,200})"
# A flag's value: quoted (spaces and all; group 2) or bare (group 3).
_FLAG_VALUE = r"(?:(['\"`])([^'\"`\n]{3,200})\1|([^\s'\"`<>|()]{3,200}))"
_RULES = {
    "element": lazy(r"<([A-Za-z_][\w.-]{0,60})>([^<\n]{3,200})</\1>"),
    "app_setting": lazy(r"(?i)\bkey\s*=\s*(['\"])([\w.:-]{1,80})\1\s+value\s*=\s*(['\"])"
                        r"([^'\"\n]{3,200})\3"),
    "tf_default": lazy(r"\bvariable\s+\"([\w-]{1,80})\"\s*\{[^}]{0,300}?\bdefault\s*=\s*\""
                       r"([^\"\n]{3,200})\""),
    "store": lazy(r"(?<![\w-])(?:gh\s+secret\s+set\s+\S+[^\n|;&]*?\s(?:--body[ =]|-b\s+)"
                  r"|netlify\s+env:set\s+\S+\s+"
                  r"|(?:secrets?\s+(?:set|put)|env\s+add|sudo\s+(?:-\w+\s+)*?(?:-S|--stdin)"
                  r"|passwd\s+--stdin|--passphrase-fd\s+0|--password-fd\s+0)\b"
                  r"[^\n|;&]*?<<<\s*)" + _VALUE),
    "keyvault": lazy(r"(?<![\w-])az\s+keyvault\s+secret\s+set\b[^\n|;&]*?\s--value(?:=|[ \t]+)"
                     + _FLAG_VALUE),
    "ssm": lazy(r"(?<![\w-])aws\s+ssm\s+put-parameter\b[^\n|;&]*?\s--value(?:=|[ \t]+)"
                + _FLAG_VALUE),
    "vault_login": lazy(r"(?<![\w-])vault\s+(?:login|token\s+(?:lookup|revoke|renew))"
                        r"(?:[ \t]+-\S+)*[ \t]+(['\"]?)(?!-)([^\s'\"=<>|]{3,200})\1(?![^\s;&|)])"),
    "vault_token": lazy(r"(?<![\w.$-])s\.[A-Za-z0-9]{24}(?![\w.(-])"),
    "keygen": lazy(r"(?<![\w-])ssh-keygen\b[^\n|;&]*?\s-[NP]\s+" + _VALUE),
    "mask": lazy(r"::add-mask::" + _VALUE),  # a value GitHub Actions is told to mask
    "securestring": lazy(r"(?i)(?<![\w-])ConvertTo-SecureString\s+(?:-String\s+)?" + _VALUE),
    "sql": lazy(r"(?i)\bidentified\s+(?:with\s+\w+\s+)?by\s+(?:password\s+)?" + _VALUE),
    "oracle": lazy(r"(?<![\w/.-])(?:sqlplus|sqlldr|expdp|impdp|rman\s+target|dgmgrl)(?:\s+-\S+)*"
                   r"\s+['\"]?[\w$#]+/()([^\s'\"@/]{3,200})"),
    "redis": lazy(r"(?i)(?<![\w-])(?:requirepass|masterauth)\s+" + _VALUE),
    "setting": lazy(r"(?i)(?<![\w-])(?:(?:npm|yarn|pnpm|git)\s+config\s+(?:set\s+)?(?:--?[\w-]+\s+)*"
                    r"|set\s+-[a-z]+\s+|setx\s+)(['\"]?)([\w./:@-]{1,120})\1[ \t]+" + _VALUE),
    # The value last: a call's last argument or a command's (not a list of names, a default).
    "quoted_pair": lazy(r"(['\"])([\w.:-]{1,80})\1\s*,?\s*(['\"])([^'\"\n]{3,200})\3"
                        r"(?=(?:\s*,\s*(['\"])[\w .:-]{0,40}\5)?\s*\)|[ \t]*(?:$|\n|;|&&|\|))"),
    "auth_pair": lazy(r"\bauth\s*=\s*\(\s*(['\"])[^'\"\n]{1,64}\1\s*,\s*(['\"])([^'\"\n]{3,200})\2"),
    "pgpass": lazy(r"(?m)(?:^|(?<=[\s'\"`>]))(?:\[[0-9A-Fa-f:]+\]|[\w.*-]+):(?:\d{1,5}|\*)"
                   r":[^:\s'\"`]+:[^:\s'\"`]*[A-Za-z*][^:\s'\"`]*"
                   r":((?:[^\s'\"`:\\]|\\.){3,200})(?=[\s'\"`]|$)"),
    # A secret's name and its value as two fields of one record: Kubernetes' ``- name: DB_PASSWORD``
    # over ``value: …``, ``{"name": "API_KEY", "value": "…"}`` of a task definition or an API.
    "name_value": lazy(r"(?i)[\"']?\b(?:name|key|parameter_?name|variable)[\"']?\s*[:=]\s*"
                       r"[\"']?([A-Za-z_][\w.:/-]{0,80})[\"']?\s*,?\s*(?:\r?\n[ \t]*(?:-[ \t]+)?)?"
                       r"[\"']?(?:value|secret_?value|plaintext_?value)[\"']?\s*[:=][ \t]*"
                       r"(?:(['\"])([^'\"\n]{3,200})\2|([^\s'\",}]{3,200}))"),
    # An expect script's (or pexpect's) answer: ``send "…\r"``, ``sendline('…')``; taken
    # after a password prompt (_PROMPT, up to _PROMPT_BEFORE characters before it).
    "send": lazy(r"(?<![\w$-])send(?:line)?(?:[ \t]+--)?[ \t]*\(?[ \t]*(['\"])"
                 r"((?:[^'\"\n\\]|\\(?![rn]))+?)(?:\\[rn])*\1"),
    # An inline table or object named a secret (group 1), its entries (group 2).
    "inline": lazy(r"[\"']?([\w.-]{1,60})[\"']?[ \t]*[=:][ \t]*\{([^{}\n]{1,400})\}"),
    "piped": lazy(r"(?<![\w-])(?:echo|printf)\s+(?:-[ne]+\s+)?(['\"]?)([^\s'\"|]{3,200})\1"
                  r"\s*\|[^|\n]*$"),
}
# What a piped value goes into: the flag or the command that reads a secret from stdin.
_PIPED_INTO = ("-password-stdin", "chpasswd", "secret set", "secret put", "secrets set",
               "env add", "secret create", "secrets create", "secrets versions add",
               "sudo -S", "sudo --stdin", "passwd --stdin", "--passphrase-fd 0",
               "--password-fd 0")  # sudo, passwd, gpg read the password from stdin
# An ``aws ssm put-parameter`` command's ``--name`` (the parameter's path).
_SSM_NAME = lazy(r"\s--name(?:=|[ \t]+)(['\"]?)([^\s'\"]+)\1")
# A name beside a name (no digit, or a lowercase identifier): not a value.
_LISTED_NAME = lazy(r"-*[A-Za-z][A-Za-z_.-]*|[a-z][a-z0-9_]*")
# What makes a line worth the pgpass rule (redact's pre-filter runs it over the lowercase text).
SHAPES = (lazy(r":(?:\d{1,5}|\*):[^:\s]+:[^:\s]+:[^:\s]{3}"),  # not a MAC: ``…:ae:e2``
          lazy(r"(?<![\w.$-])s\.[a-z0-9]{24}(?![\w.(-])"),  # a Vault token (lowercase copy)
          lazy(r"value['\"]?\s*[:=]"))  # a record's value beside its name (name_value)
# A group's head: an INI or TOML section (group 1), or a YAML key with nothing after it (group 3,
# its indent group 2).
_GROUP = lazy(r"(?m)^[ \t]*\[([\w. \"'-]{1,60})\][ \t]*\r?$|^([ \t]*)([\w.-]{1,60}):[ \t]*\r?$")
_GROUP_LINES = 40  # how many lines of a group are read
# One ``name = value`` or ``name: value`` line of a group (group 3 the quoted value, 4 bare).
_ENTRY = lazy(r"[ \t]*[\"']?([\w.@-]{1,60})[\"']?[ \t]*[=:][ \t]*"
              r"(?:(['\"])([^'\"\n]{3,200})\2|([^\s'\"]{3,200}))(?:[ \t]+[#;][^\n]*)?[ \t]*\r?")
_INLINE_ENTRY = lazy(r"[\"']?([\w.@-]{1,60})[\"']?\s*[=:]\s*(['\"])([^'\"\n]{3,200})\2")
# The last word of an entry's name that says it holds no secret.
_NOT_SECRET_NAMES = frozenset({
    "user", "username", "login", "email", "name", "id", "url", "uri", "host", "hostname",
    "port", "region", "type", "method", "provider", "helper", "path", "file", "dir", "enabled",
    "backend", "store", "mode", "account", "endpoint", "server", "domain", "scope", "scopes",
    "issuer", "audience", "algorithm", "version", "expiry", "expires", "ttl", "timeout",
})
_PROMPT = lazy(r"(?i)\bexpect\b[^\n]{0,80}?(?:pass(?:word|phrase|code)?|assword|pin\b|token"
              r"|secret|otp)")
_PROMPT_BEFORE = 200
# Literals (lowercase) that make a line worth these rules: redact's pre-filter finds them.
WORDS = ("<add key", "variable \"", "secret set", "secret put", "secrets set", "env add",
         "env:set", "chpasswd", "ssh-keygen", "securestring", "identified by", "identified with",
         "sqlplus", "sqlldr", "expdp", "impdp", "rman target", "dgmgrl", "requirepass",
         "masterauth", "config set", "set -", "setx", "secret create", "::add-mask::",
         "secrets create", "secrets versions add", "keyvault", "put-parameter", "vault login",
         "vault token", "sudo -s", "sudo --stdin", "passwd --stdin", "--passphrase-fd",
         "--password-fd", "send")


# A literal each match of a rule holds (case-sensitive, or no letter): where none is in the span
# the rule is not run nor compiled (as secretneeds.NEEDS_EXACT; tests/test_secret_gates.py).
NEEDS: dict[str, tuple[str, ...]] = {
    "element": ("</",), "app_setting": ("=",), "tf_default": ("variable",),
    "store": ("secret", "env", "sudo", "passwd", "-fd"), "keygen": ("ssh-keygen",), "pgpass": (":",),
    "mask": ("::add-mask::",), "keyvault": ("keyvault",), "ssm": ("put-parameter",),
    "vault_login": ("vault",), "vault_token": ("s.",),
    "securestring": ("SecureString", "securestring", "SECURESTRING"),
    "sql": ("identified", "IDENTIFIED", "Identified"), "oracle": ("/",),
    "redis": ("requirepass", "masterauth", "REQUIREPASS", "MASTERAUTH"),
    "setting": ("set", "SET", "Set"), "quoted_pair": ("'", '"'), "auth_pair": ("auth",),
    "name_value": ("alue", "ALUE"), "send": ("send",), "inline": ("{",),
}


def _may(rule: str, text: str, begin: int, end: int) -> bool:
    return rule not in NEEDS or any(text.find(word, begin, end) >= 0 for word in NEEDS[rule])


def findings(text: str, begin: int, end: int) -> Iterator[Finding]:
    """The markup and secret-store findings in ``text[begin:end]``."""
    r = _RULES
    for rule, name, value in (("element", 1, 2), ("app_setting", 2, 4), ("tf_default", 1, 2)):
        # A variable's block goes on over the next lines.
        stop = min(len(text), end + TF_BLOCK) if rule == "tf_default" else end
        if not _may(rule, text, begin, stop):
            continue
        for m in r[rule].finditer(text, begin, stop):
            kind = name_kind(m.group(name))
            if kind is not None and secretish(m.group(value), password=kind == "password",
                                              strict=False):
                yield Finding(m.start(value), m.end(value), kind)
    for m in r["pgpass"].finditer(text, begin, end) if _may("pgpass", text, begin, end) else ():
        if _given(m.group(1)) and m.group(1).lower() not in ("password", "passwd", "secret"):
            yield Finding(m.start(1), m.end(1), "password")
    for rule in ("store", "keygen", "mask", "securestring", "oracle", "sql", "redis"):
        for m in r[rule].finditer(text, begin, end) if _may(rule, text, begin, end) else ():
            # Where a word may stand in the value's place ("IDENTIFIED BY password is …"), the
            # value must read like a secret.
            if _given(m.group(2)) and (rule not in ("sql", "redis") or secretish(
                    m.group(2), password=True, strict=False, quoted=bool(m.group(1)))):
                yield Finding(m.start(2), m.end(2), "password")
    yield from _stores(text, begin, end)
    for rule, name, value in (("setting", 2, 4), ("quoted_pair", 2, 4)):
        for m in r[rule].finditer(text, begin, end) if _may(rule, text, begin, end) else ():
            kind = name_kind(m.group(name).rsplit(":", 1)[-1].rsplit("/", 1)[-1])
            if rule == "quoted_pair" and (_LISTED_NAME.fullmatch(m.group(value))
                                          or not _ends_secret(m.group(name))):
                continue  # a name in a list (``"X-Auth-Key", "X-Auth-Email"``, ``"tokens",
                # "symbol2label"``), a name not ending in a secret's (``"pw-algorithm"``)
            if kind is not None and secretish(m.group(value), password=kind == "password",
                                              strict=False, quoted=rule == "quoted_pair"):
                yield Finding(m.start(value), m.end(value), kind)
    if _may("name_value", text, begin, end):
        yield from _name_values(text, begin, end)
    if _may("inline", text, begin, end):
        yield from _inline(text, begin, end)
    for m in r["send"].finditer(text, begin, end) if _may("send", text, begin, end) else ():
        if _PROMPT.search(text, max(0, m.start() - _PROMPT_BEFORE), m.start()) and _given(
                m.group(2)):
            yield Finding(m.start(2), m.end(2), "password")
    for m in r["auth_pair"].finditer(text, begin, end) if _may("auth_pair", text, begin, end) else ():
        if _given(m.group(3)):
            yield Finding(m.start(3), m.end(3), "password")
    for into in _PIPED_INTO:
        at = text.find(into, begin, end)
        while at >= 0:
            echo = r["piped"].search(text, text.rfind("\n", 0, at) + 1, at)
            if echo is not None and _given(echo.group(2)):
                yield Finding(echo.start(2), echo.end(2), "password")
            at = text.find(into, at + 1, end)


def groups(text: str) -> Iterator[Finding]:
    """The values of a group named a secret, whose own names are no secret's: an INI or TOML
    section (``[credentials]`` over ``admin = …``), a YAML mapping (``secrets:`` over indented
    ``stripe: …``); each value that reads like a secret, up to the next section or the end of
    the indented block (a user's name, a URL, an id are kept by their name)."""
    if "]" not in text and ":" not in text:
        return
    for m in _GROUP.finditer(text):
        name = m.group(1) or m.group(3)
        if name_kind(name.strip("'\" ").replace(" ", "_")) is None:
            continue
        indent = len(m.group(2) or "") if m.group(3) else -1
        yield from _group_entries(text, m.end(), indent)


def _group_entries(text: str, at: int, indent: int) -> Iterator[Finding]:
    """The secret entries of a group starting at ``at`` (``indent``: the YAML key's, or -1 for
    a section, which ends at the next one)."""
    inner = None
    for _ in range(_GROUP_LINES):
        if at >= len(text):
            return
        stop = text.find("\n", at)
        stop = len(text) if stop < 0 else stop
        line = text[at:stop]
        body = line.strip()
        if not body or body.startswith(("#", ";")):
            at = stop + 1
            continue
        own = len(line) - len(line.lstrip())
        if body.startswith("[") or (indent >= 0 and own <= indent):
            return
        inner = own if inner is None else inner
        entry = _ENTRY.fullmatch(line)
        if own == inner and entry is not None:
            yield from _entry(entry, at)
        at = stop + 1


def _entry(m: re.Match[str], at: int) -> Iterator[Finding]:
    words = name_words(m.group(1))
    quoted = m.group(3) is not None
    value = m.group(3) if quoted else m.group(4)
    if not words or words[-1] in _NOT_SECRET_NAMES or not _given(value):
        return
    if secretish(value, password=True, strict=False) and (quoted or " " not in value):
        start = at + (m.start(3) if quoted else m.start(4))
        yield Finding(start, start + len(value), name_kind(m.group(1)) or "password")


def _inline(text: str, begin: int, end: int) -> Iterator[Finding]:
    """The values of an inline table named a secret: ``creds = { alice = "…" }`` (TOML),
    ``"secrets": {"stripe": "…"}`` (JSON)."""
    for m in _RULES["inline"].finditer(text, begin, end):
        if name_kind(m.group(1)) is None:
            continue
        for e in _INLINE_ENTRY.finditer(text, m.start(2), m.end(2)):
            words = name_words(e.group(1))
            if words and words[-1] not in _NOT_SECRET_NAMES and _given(e.group(3)) and secretish(
                    e.group(3), password=True, strict=False):
                yield Finding(e.start(3), e.end(3), name_kind(e.group(1)) or "password")


def _stores(text: str, begin: int, end: int) -> Iterator[Finding]:
    """The values given to cloud secret stores by flag, and Vault's tokens."""
    r = _RULES
    for m in r["keyvault"].finditer(text, begin, end) if _may("keyvault", text, begin, end) else ():
        at, value = _flag_value(m)
        if _given(value):
            yield Finding(at, at + len(value), "secret")
    for m in r["ssm"].finditer(text, begin, end) if _may("ssm", text, begin, end) else ():
        at, value = _flag_value(m)
        command = text[m.start():_command_end(text, m.end(), end)]
        named = _SSM_NAME.search(command)
        secure = "securestring" in command.lower()
        if _given(value) and (secure or (
                named is not None and _ends_secret(named.group(2).rsplit("/", 1)[-1])
                and secretish(value, password=True, strict=False, quoted=m.group(2) is not None))):
            yield Finding(at, at + len(value), "secret")
    for m in (r["vault_login"].finditer(text, begin, end)
              if _may("vault_login", text, begin, end) else ()):
        if _given(m.group(2)):
            yield Finding(m.start(2), m.end(2), "vault")
    for m in (r["vault_token"].finditer(text, begin, end)
              if _may("vault_token", text, begin, end) else ()):
        line = text[text.rfind("\n", 0, m.start()) + 1:_command_end(text, m.end(), len(text))]
        low = line.lower()
        if "vault" in low or ("token" in low and any(c.isdigit() for c in m.group(0))):
            yield Finding(m.start(), m.end(), "vault")


def _name_values(text: str, begin: int, end: int) -> Iterator[Finding]:
    """The values of records whose name field names a secret; the name may be on the line
    before the value's (``- name: DB_PASSWORD`` over ``value: …``)."""
    above = max(0, text.rfind("\n", 0, max(0, begin - 1)) + 1)
    for m in _RULES["name_value"].finditer(text, above, end):
        name = m.group(1).rsplit("/", 1)[-1]
        kind = name_kind(name)
        at, given = (m.start(3), m.group(3)) if m.group(3) is not None else (m.start(4), m.group(4))
        if kind is not None and _ends_secret(name) and secretish(
                given, password=kind == "password", strict=False, quoted=m.group(3) is not None):
            yield Finding(at, at + len(given), kind)


def _flag_value(m: re.Match[str]) -> tuple[int, str]:
    """Where a _FLAG_VALUE starts and what it is (a bare one less a sentence's punctuation)."""
    if m.group(2) is not None:
        return m.start(2), m.group(2)
    return m.start(3), m.group(3).rstrip(".,;:")


def _command_end(text: str, at: int, end: int) -> int:
    """Where the line (a command) holding ``at`` ends, within ``end``."""
    stop = text.find("\n", at, end)
    return end if stop < 0 else stop


def _ends_secret(name: str) -> bool:
    """Whether the last word of ``name`` names a secret (``DB_PASSWORD``, not ``pw-algorithm``)."""
    words = name_words(name)
    return bool(words) and name_kind(name) is not None and (
        name_kind(words[-1]) is not None or words[-1] in ("key", "keys"))


def _given(value: str) -> bool:
    """A value a command is handed where only a secret goes: anything but a placeholder."""
    return not placeholder(value) and "‹" not in value
