"""Secrets known by what surrounds them, whatever their shape (pure).

A password has no shape: ``hunter2-xyz`` is a secret only because of the words around it. The
rules here read that context:

- **prose**: a secret word (``pw`` too; a wifi, WPA or network key and a ``psk``, which are a
  network's password; the password word of a dozen other languages) followed by
  its value, with or without a colon, ``=`` or a verb ("the prod db password is hunter2-xyz",
  "set the api key to 9f8e…", "password for the admin account: 'Summer2024!'", "use S3cr3t!
  as the password", "das Passwort ist …", "密码是 …"; which one between: "the password to use
  is …", "the password to the db is …", "the key I gave you is …"; a secret's own word with a
  verb and a network's key take one plain word, as a password's does: "my secret is
  opensesame", "my secret: …", "the wifi key is …", "the password's …" (the contraction); "the
  secret is …" when the word is no abstract noun: "the secret is consistency" says how);
- **command-line flags**: ``--password=…``, ``--password …``, ``--token …``, ``--api-key …``;
  ``-pPASS`` and ``-p PASS`` for the MySQL family, ``-a PASS`` for redis-cli, ``-p PASS`` for
  sshpass (and the table below); ``user:PASS`` after ``-u``/``--user``/``--auth`` (not a Windows
  path: ``-u c:\\users``); positional passwords (``htpasswd -b FILE USER PASS``, ``rabbitmqctl
  add_user USER PASS``, ``net user USER PASS``) (markup and secret stores: secretconfig);
- **URL userinfo**, with or without a user (``redis://:PASS@host``, ``postgres://u:PASS@host``;
  a password holding ``@`` is taken up to the last ``@`` before the host), and without a scheme
  (``root:PASS@10.0.0.5``: a host with a dot, an IP or ``localhost`` after the ``@``);
- **a login and its password** in prose: "login with admin / PASS", "creds: admin / PASS" (a
  plain word too), "user admin, pass PASS", under a label of both halves ("user/pass
  admin:PASS", "u/p: admin / PASS"); a bare ``user/PASS`` pair wherever a login word is near it in its
  line ("use admin/Admin123! to log in", "sign in to Grafana with admin/Admin123!"): the part
  after the slash must read like a password (a digit or a symbol besides a sentence's ``?``/``!``,
  eight characters or a symbol when short), no space around the slash ("Login screen / unlock?"
  is a choice), and the pair no piece of a path (``src/app``, ``a/b/c``);
- **Authorization headers** (``Bearer``, ``Basic``, ``Token``..., a vendor's own scheme such as
  ``SSWS``) and ``Bearer <token>``; a Cookie header's random values; a URL query's
  ``Signature=`` or ``key=``; Windows' ``/p:`` and ``/pass:`` switches;
- **a question naming a secret and its answer**: AskUserQuestion's, and in prose after the
  question mark, an arrow, ``A:`` or "it's", ending its line or clause ("the admin password?
  it's Zebra!42"; not "the password? It's in 1Password.");
- **a PIN or a keypad's code** after its name ("use pin 4821 for the sim", "the door code is
  58213"), **recovery codes** after theirs, and a wallet's **seed phrase** (12 to 24 words).

A value is only taken when it reads like one: not a placeholder (``$TOKEN``, ``<password>``,
``****``), not a plain word ("the password is stored in vault"; four or more words joined by
hyphens are a passphrase; one word after a password's copula or sign is read by secretwords'
rule: "the password is sunshine", "set the db password to sunshine"), not a type or a reference (``password: str``,
``os.environ[...]``), not where a secret is kept ("use 1Password for the password", "the password
is environment": secretwords.STORES); a word before a sentence's ``!`` is no symbol ("the token is invalid!").
The allowlist (secretspan) is applied afterwards.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from vaultmem.notes.lazyre import lazy
from vaultmem.notes.secretcommands import POSITIONAL, tools
from vaultmem.notes.secretnames import name_kind
from vaultmem.notes.secretspan import Finding, is_path
from vaultmem.notes.secretwords import (
    ALGORITHM,
    STORES,
    asks_what,
    clause_on,
    plain_password,
    plain_secret,
    set_to,
    unlinked_password,
)

WORD = (
    r"(?:(?:api|access|private|secret|signing|client|webhook|auth|app|master|deploy|bot|"
    r"refresh|session|encryption|admin|root|db|database|wi-?fi|wlan|wpa2?|wep|network|hmac|jwt"
    r"|(?:pre-?)?shared)"
    r"[ _-]?(?:key|token|secret)s?"
    r"|pass(?:word|wd|phrase|code)s?|pwd?|token|secret|apikey|credentials?|creds|psk"
    r"|pass(?=\s+(?:is|was)\s|\s*[:=]))"  # "my pass is …", not "pass the flag"
)
# Signs, or words followed by a space (``to+0000`` is a value, not "to").
_LINK = (
    r"(?:\s*(?:[:=]|\||->|→|⇒|=>|—|–|\*\*|__"
    r"|(?:is|was|are|were|now|set|to|equals|becomes|changed|reset|updated|ist|est|è|ha[sd]\s+been"
    r"|should\s+be|will\s+be|reads|just|simply|literally|actually|still)(?=[\s:]))){1,3}"
)
# Which of them, between the word and its link: "the password to use is", "the key you need is".
_WHICH = (r"\s+(?:to\s+(?:the\s+|my\s+|our\s+)?[\w.-]+(?:\s+(?:in|on|into|with))?|(?:you|we|i|they)"
          r"(?:['’]ll)?(?:\s+[\w-]+){1,3}?|that\s+works)(?=\s+(?:is|was)\s)")
VALUE = r"(?:(?P<q>['\"`])([^'\"`\n]{3,120})(?P=q)|([^\s'\"`]{3,200}))"
_RULES = {
    "prose": lazy(
        r"(?i)(?<![\w$%-])(?:[a-z0-9]+[_.-])*" + WORD + r"(?![\w-])(?:['’]s)?"  # HEROKU_API_KEY
        r"(?:\s+(?:for|of|on|in)\s+[\w.@:/-]*[\w.@/-](?:\s+[\w.@:/-]*[\w.@/-]){0,3}"
        r"|\s*\([^)\n]{1,30}\)|" + _WHICH + r")?"
        r"(?:\s+(?:env(?:ironment)?\s+var(?:iable)?|variable|value|setting|field|word|phrase|code))?"
        r"(" + _LINK + r"|\s)\s*" + VALUE),
    "reverse": lazy(
        r"(?i)(?<![\w-])(?:use|used|using|with|typed|entered|pasted|put)\s+" + VALUE +
        r"\s+(?:as|in|into)\s+(?:the\s+|my\s+|our\s+|a\s+|an\s+)?[\w ]{0,20}?" + WORD + r"\b"),
    "flag": lazy(
        r"(?i)(?<![\w-])--?(?!no-)[\w-]*?(?:password|passwd|pass|passphrase|pwd|token|secret|"
        r"api-?key|access-key|secret-key|private-key)(?:-(?:string|value|text|data))?"
        r"(=|[ \t]+)" + VALUE),  # aws … --secret-string
    "switch": lazy(r"(?i)(?<=\s)/(?:p|pass|password|passwd|pwd)[:=](['\"]?)([^\s'\"]{3,200})\1"),
    "smb": lazy(r"(?<![\w-])(?:-U|--user)(?:=|[ \t]+)(['\"]?)([^\s%'\"]{1,64})%([^\s'\"]{3,200})\1"),
    "userpass": lazy(
        r"(?<![\w-])(?:-u|-U|--user|--auth|-a|--basic-auth|--proxy-user)(?:=|[ \t]+)"
        r"(['\"]?)([^\s:'\"@/]{0,64}):([^\s'\"]{3,200})\1"),
    "url": lazy(r"(?i)\b[a-z][\w+.-]*://([^\s/@:'\"]*):([^\s/'\"<>]+(?:/[^\s/'\"<>@]+(?=@))?)@(?=[\w.\[-])"),
    "userinfo": lazy(
        r"(?<![\w/:.@%+-])([A-Za-z_][\w.+-]{0,63}):([^\s/@:'\"<>]{3,200})@"
        r"(?=(?:\d{1,3}\.){3}\d{1,3}\b|localhost\b|\[[0-9a-fA-F:]+\]"
        r"|[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+)"),
    # A login word, a link, the user, then ``/`` (after a link), ``:`` or ", pass" before the
    # password.
    "login": lazy(
        r"(?i)(?<![\w-])(?:log(?:ged)?[ -]?(?:in|on)|sign(?:ed)?[ -]?in|user(?:name)?|creds"
        r"|credentials|login\s+creds)"
        r"(?:(\s+(?:with|as|using|is|are)\s+|\s*[:=]\s*)|\s+)(['\"`]?)([\w.@+-]{1,64})\2"
        r"(\s*/\s*|:(?=\S)|\s*,?\s+(?:and\s+)?(?:pass(?:word)?|pw|pwd)(?:\s+is)?\s*[:=]?\s*)"
        + VALUE),
    # A login's label naming both halves, then the user and the password ("user/pass
    # admin:hunter2", "u/p: admin / s3cret", "username/password is admin, magic").
    "userpass_label": lazy(
        r"(?i)(?<![\w/-])(?:user(?:name)?|login|u)[ \t]*[/:][ \t]*(?:pass(?:word)?|pwd?|p)"
        r"(?![\w-])(?:[ \t]*[:=]|[ \t]+(?:is|are))?[ \t]*(['\"`]?)([\w.@+-]{1,64})\1"
        r"(?:[ \t]*[:/,][ \t]*|[ \t]+)" + VALUE),
    # A ``user/PASS`` pair standing alone (no path before or after it); its login word is
    # looked for around it (_LOGIN_NEAR).
    "pair": lazy(r"(?<![\w./~@:$%\\-])([A-Za-z][\w.@+-]{0,63})/"
                 r"([^\s/'\"`<>()\[\]{}|]{4,64})(?![\w/])"),
    "authorization": lazy(
        r"(?i)\b(?:proxy-)?authorization['\"]?\s*[:=]\s*['\"]?"
        r"(?:(?:bearer|basic|token|bot|apikey|sso-key|key|jwt)\s+"
        # a vendor's own scheme (``SSWS``, ``Splunk``, ``GenieKey``): a word, then the token
        r"|([a-z][\w.-]{1,30})\s+(?=[\w.~+/=-]{8,}(?:['\"\s,;]|$)))?([^\s'\",;]{4,})"),
    "bearer": lazy(r"(?i)\bbearer\s+([^\s'\",;]{8,})"),
    # A URL's query: a signed URL's signature (CloudFront, GCS v2) and an API key (Maps).
    "query": lazy(r"(?:[?&]|,[ \t]*)(?:Signature|signature|key)=([A-Za-z0-9%+/=_~.-]{16,})"),
    # A question naming a secret, then its answer: AskUserQuestion's ``"Which password …?"="…"``
    # and the choice record made of it (``Which password …? — chose: …``); in prose, the answer
    # after the question mark, an arrow, ``A:`` or "it's" ("the admin password? it's Zebra!42",
    # "Q: what is the db password? A: …"), on its line and ending it (_answered).
    # The secret word is what is asked for, a verb or the question mark next ("Which password
    # should admin get?", not "Which password hashing?").
    "asked": lazy(
        r"(?i)(?<![\w-])(?:" + WORD + r"|key(?=\s+for\s|\?))(?![\w-])(?:\s+(?:for|of|on|in)\s+[\w.@:/-]+"
        r"(?:\s+[\w.@:/-]+){0,3})?"
        r"(?:\s+(?:should|shall|will|would|do|does|did|to|is|are|was|can|could|must|may|goes)\b"
        r"[^?\n]{0,80})?\?['\"]?(?:\s*(?:—\s*chose:|=)\s*(?:\"?(?:(?:oh|ah|um|well|so|i\s+think)[\s,]+)?"
        r"(?:it|that)(?:['’]s|\s+is)\s+)?"
        r"|[ \t]*(?:(?:->|→|=>|[—–:]|a(?:nswer)?:)"
        r"[ \t]*)?(?:(?:it|that)(?:['’]s|[ \t]+(?:is|was))[ \t]+)?)" + VALUE),
    # A Cookie header's values (a session id, a CSRF token): the random ones.
    "cookie": lazy(r"(?i)(?:\bcookie\s*:|;)\s*([\w.-]{1,64})=([\w%+/=.~-]{16,})(?=[;\s'\"]|$)"),
    # The password word of other languages, then a colon, a copula or a short verb (a new
    # word ASCII can spell goes into secretneeds.NEEDS_FOLDED too).
    "foreign": lazy(
        r"(?i)(?<![a-z-])(?:mot\s+de\s+passe|passwort|kennwort|contrase[ñn]a|clave|senha|wachtwoord"
        r"|lösenord|salasana|has[łl]o|heslo|şifre|parol[aă]|passord|adgangskode|lozinka|geslo"
        r"|jelsz[óo]|kata\s+sandi|mật\s+khẩu|κωδικ[όο]ς?|ה?סיסמ[הא]|كلمة\s+(?:المرور|السر)"
        r"|पासवर्ड|пароль|密码|密碼|パスワード|비밀번호"
        # an API key ("API-Schlüssel", "clé API", "chave de API", "APIキー")
        r"|api[ -]?(?:schlüssel|sleutel|nyckel|nøkkel|avain|klucz|ключ|キー|密钥|密鑰|키)"
        r"|(?:clé|clef|chave|clave|chiave|klucz|ключ)\s+(?:de\s+|d['’]|dell['’]|da\s+)?(?:l['’])?api"
        r")[^\W\d_]{0,3}"  # lösenord-et, passord-et
        # a sign, a particle, or up to six short words ("ist", "от базы —", "de la base de
        # datos es")
        r"(\s*[:=：—–]\s*|\s*(?:是|は|为|為|는|은)\s*|(?:\s+[^\s\d'\"`:=—–]{1,7}){1,6}\s*[:—–]?\s+)"
        + VALUE),
    "diceware": lazy(r"[a-z]{3,}(?:-[a-z]{3,}){3,}"),  # correct-horse-battery-staple
    # A PIN or a keypad's code: only digits, so only its name tells ("use pin 4821 for the sim",
    # "the door code is 58213#", "il codice PIN è 55821"); a pin of hardware is one or two digits.
    "pin": lazy(
        r"(?i)(?<![\w-])(?:pin(?:[ -]?(?:code|number|nummer|numero|número))?|puk|geheimzahl"
        r"|pass[ -]?codes?|(?:access|security)\s+code"
        r"|(?:door|gate|alarm|entry|lock|safe|keypad|unlock)\s+code|c[oó]di(?:go|ce)\s+pin"
        r"|code\s+pin)(?![\w-])"
        r"(?:\s+(?:for|of|on)\s+(?:the\s+|my\s+|our\s+)?[\w-]+)?"
        r"(?:\s*[:=：—–]|\s+(?:is|was|are|now|to|ist|lautet|est|es|è|é|er|är|je|jest))*\s+"
        r"(\d{3,4}(?:[- ]\d{3,4}){1,2}|\d{4,8})(?![\w.,/:-]*\d|[^\W\d])"),  # 7731-9925 too
    # One-time codes kept for a lost second factor: each code of the list after the label.
    "codes": lazy(
        r"(?i)(?<![\w-])(?:2fa|mfa|otp|totp|backup|recovery|emergency|scratch)\s+codes?"
        r"(?:\s*\([^)\n]{0,30}\))?(?:\s*[:=]|\s+(?:are|were|is))\s*"),
    "code": lazy(r"\s*[,;]?\s*(?:[-*•]\s+)?(`?)([A-Za-z0-9]{4,12}(?:[ -][A-Za-z0-9]{4,12})?)\1"
                 r"(?![\w-])"),
    # A wallet's seed: twelve to twenty-four plain words after its name.
    "seed": lazy(
        r"(?i)(?<![\w-])(?:(?:seed|recovery|mnemonic|backup|wallet)\s+(?:phrase|words)|mnemonic)"
        r"(?:\s*[:=]|\s+(?:is|was))\s*[\"'`]?([a-z]{3,8}(?:\s+[a-z]{3,8}){11,23})(?![\w-])"),
    # JSON inside a string (a tool printing JSON it escaped): ``{\"password\": \"…\"}``.
    "escaped": lazy(
        r"(?i)\\[\"']([\w.-]*(?:pass(?:word|wd|phrase)?|pwd|secret|token|api_?key|apikey|"
        r"access_?key|private_?key|credentials?)(?:_?[a-z0-9]+)?)\\[\"']\s*:\s*\\[\"']"
        r"((?:[^\\\"'\n]|\\(?![\"'])){4,200})\\[\"']"),
    "placeholder": lazy(
        r"^(?:x+|\*+|\.+|-+|#+|0+|<.*>|\{.*\}|\[.*\]|\$.*|%[a-z_]+(?:\(x86\))?%|your[_-].*"
        r"|\(.*\)|…)$",
        re.IGNORECASE),
    "reference": lazy(r"[()\[\]{}‹›]|^[a-z]+(?:_[a-z]+)+$|^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+$"),
    "date": lazy(r"^\d{4}-\d{2}-\d{2}|^\d{1,2}/\d{1,2}/\d{2,4}$|^v?\d+(?:\.\d+)+$"
                 r"|^\d+(?:ms|s|m|h|d|kb|mb|gb)$",
                 re.IGNORECASE),
}
# Lowercase words that follow "password is"/"token:" in prose without being the value.
_STOP = frozenset({
    "the", "a", "an", "in", "on", "of", "for", "to", "not", "now", "set", "stored", "read",
    "required", "missing", "invalid", "valid", "expired", "wrong", "correct", "empty", "none",
    "null", "true", "false", "undefined", "changed", "rotated", "reset", "hidden", "masked",
    "redacted", "secret", "password", "token", "key", "same", "different", "there", "here",
    "this", "that", "it", "its", "your", "my", "our", "their", "being", "used", "needed",
    "str", "string", "bytes", "int", "bool", "optional", "any", "env", "environ", "example",
    "placeholder", "changeme", "todo", "tbd", "xxx", "yes", "no", "ok", "done", "generated",
})
_SYMBOLS = frozenset("!@#$%^&*+=~?")
# An Authorization header's parameter (``username=``), not its token; a mark after a scheme.
_PARAM = lazy(r"([A-Za-z_][\w-]*)=(?!=|$)")
_PARAM_NAME = lazy(r"[a-z_]{2,24}=")  # before its quoted value (``username="alice"``)
_MARK_NEXT = lazy(r"[ \t]+‹redacted:")
QUERY_NEXT = lazy(r"&(?=[\w.-]{1,40}=)")  # a URL query's next parameter: ``…&user=alice``
# A password word right before its value (no "for the admin" between).
_RIGHT_AFTER = lazy(r"(?i)pass(?:word|wd|phrase)?s?[ \t]+['\"`]?$")
# Words before ``:`` and an address that make it a mail address, not ``user:PASS@host``.
_MAIL_WORDS = frozenset({"mailto", "mail", "email", "e-mail", "from", "to", "cc", "bcc",
                         "reply-to", "sender", "author", "contact", "sip", "sips", "tel", "xmpp",
                         "git", "ssh", "http", "https"})


_PW = lazy(r"(?i)(?<![a-z])pwd?(?![a-z])")  # a password's short name ("db pw:")
# A secret's own word ("my secret is …", "the shared secret was …"), not a key's or a token's,
# and a verb linking it to its value (a label's colon is a page's: "Secret: Manager").
# Whose: a possessive before it, a word naming which secret, or "word"/"phrase" after it ("my
# secret is …", "the shared secret was …", "the secret word is …"; not "the secret is magic").
_VERB_LINK = lazy(r"(?i)\b(?:is|was|equals|becomes|to)\b")
_SECRET_ITSELF = lazy(r"(?i)(?:([\w-]+)[ _-])?secrets?(?![\w-]|[ _-]?(?:key|token))"
                      r"(\s+(?:word|phrase|code))?")
# The reverse rule's "as the password" ending its phrase: a plain word before it is its value.
_AS_PASSWORD = lazy(r"(?i)\sas\s+(?:the\s+|my\s+|our\s+|a\s+|an\s+)?[\w ]{0,20}?"
                    r"(?:pass(?:word|phrase|code)?|pwd?)s?$")
_PHRASE_END = lazy(r"[ \t]*(?:$|\n|[.,;:!?)\]\"'`]|(?:for|on|of|in|at|to|and|but|so|now|here|too)\b)")
# A network's key is its password ("the wifi key is sunshine").
_NETWORK_KEY = lazy(r"(?i)(?:wi-?fi|wlan|wpa2?|wep|network)[ _-]?key")
_OWNED = lazy(r"(?i)(?<![\w-])(?:my|our|your|his|her|their)\s+$")


def _own_secret(text: str, at: int, named: str, link: str) -> Callable[[str, str], str | None] | None:
    """How the prose rule's ``named`` secret at ``at`` takes a value of one plain word, or None:
    whose it is named ("my secret is …", "my secret: …", "the shared secret was …"), as a
    password's (plain_password); "the secret is …" by a verb, when the word is no abstract noun
    (plain_secret: "the secret is consistency" says how)."""
    m = _SECRET_ITSELF.match(named)
    if m is None:
        return None
    owned = bool(m.group(1) or m.group(2)) or _OWNED.search(text, max(0, at - 8), at) is not None
    if _VERB_LINK.search(link):
        return plain_password if owned else plain_secret
    return plain_password if owned and link.strip() in (":", "=") else None
# The links of the prose rule a password of one plain word may follow: a copula or a sign, no
# verb ("set the password to expire").
_PLAIN_LINKS = frozenset({"is", "was", "are", "were", "now", "equals", "becomes", "should", "will",
                          "be", "just", "simply", "literally", "actually", "still", ":", "=", "->",
                          "→", "⇒", "=>", "—", "–", "**", "__"})
_LINK_PARTS = lazy(r"->|=>|\*\*|__|[:=→⇒—–]|\w+")


# The prose rule's phrase naming whose password it is may take its copula as a word of the
# phrase ("password for bob is" + a blank link): it ends with one.
_PHRASE_IS = lazy(r"(?i)[ \t](?:is|was)[ \t]+$")


def _plain_link(link: str) -> bool:
    """Whether the prose rule's ``link`` is made of _PLAIN_LINKS only."""
    parts = _LINK_PARTS.findall(link.lower())
    return bool(parts) and all(p in _PLAIN_LINKS for p in parts)


def _run(rule: str, skip: set[str], text: str, begin: int, end: int) -> Iterator[re.Match[str]]:
    return iter(()) if rule in skip else _RULES[rule].finditer(text, begin, end)


def findings(text: str, begin: int, end: int) -> Iterator[Finding]:
    """The context rules' findings in ``text[begin:end]``."""
    from vaultmem.notes.secretneeds import ruled_out  # imported by the first span read

    skip = ruled_out(text, begin, end)
    for m in _run("prose", skip, text, begin, end):
        linked = bool(m.group(1).strip())
        named = text[m.start():m.start(1)]
        kind = "password" if "pass" in named.lower()[:12] or _PW.search(named) or (
            _NETWORK_KEY.match(named)) else "secret"
        # "the password's magic": the contraction is the copula, for one plain word
        contracted = not linked and named.endswith(("'s", "’s"))
        at = m.start(3) if m.group(3) is not None else m.start(4)
        if not linked and kind == "password" and _RIGHT_AFTER.search(text, m.start(), at):
            said = unlinked_password(m.group(3), m.group(4))  # "password Smtp!Plain"
            if said:
                yield Finding(at, at + len(said), kind)
                continue
        found = [*_value(m, 2, kind, linked=linked, strict=not linked)]
        yield from found
        setting = linked and set_to(m.group(1), text, m.start())
        word = plain_password if kind == "password" else _own_secret(
            text, m.start(), named, "is" if contracted else m.group(1))
        if not found and word is not None and (
                m.group(4) is not None) and (
                (_plain_link(m.group(1)) or setting) if linked
                else contracted or _PHRASE_IS.search(text, m.start(), m.start(4)) is not None):
            line_end = text.find("\n", m.end(4))
            rest = text[m.end(4):len(text) if line_end < 0 else line_end]
            said = word(m.group(4), "" if clause_on(rest) else rest)
            if said:  # "the password is sunshine" (secretwords)
                yield Finding(m.start(4), m.start(4) + len(said), kind)
    for m in _run("foreign", skip, text, begin, end):
        link = "".join(m.group(1).split())
        linked = not link.isalpha() or not link.isascii()
        yield from _value(m, 2, "password", linked=linked, strict=not linked)
    for m in _run("asked", skip, text, begin, end):
        kind = "password" if "pass" in m.group(0).lower()[:12] else "secret"
        at = m.start(2) if m.group(2) is not None else m.start(3)
        link = text[text.rfind("?", m.start(), at) + 1:at].strip(" \t'\"")
        if "chose:" in link or link.startswith("="):  # AskUserQuestion's answer, its record
            found = [*_value(m, 1, kind, linked=True, strict=False)]
            yield from found
            if not found and kind == "password" and m.group(3) is not None:
                after = re.split(r"[\";\n]", text[m.end(3):m.end(3) + 200], maxsplit=1)[0]
                said = plain_password(m.group(3), after)
                if said:  # "— chose: it's sunshine, go ahead"
                    yield Finding(m.start(3), m.start(3) + len(said), kind)
            yield from _not_chosen(text, m.start(), end, kind)
        else:
            yield from _answered(text, m, kind, link)
    for m in _run("reverse", skip, text, begin, end):
        if not ALGORITHM.fullmatch((m.group(2) or m.group(3)).strip("*_")):
            found = [*_value(m, 1, "password", linked=True, strict=False)]
            yield from found
            if not found and m.group(3) is not None and _AS_PASSWORD.search(m.group(0)) and (
                    _PHRASE_END.match(text, m.end())) and plain_password(m.group(3), ""):
                yield Finding(m.start(3), m.end(3), "password")  # "use magic as the password"
    for m in _run("flag", skip, text, begin, end):
        kind = "password" if "pass" in m.group(0).lower() or "pwd" in m.group(0).lower() else (
            "token" if "token" in m.group(0).lower() else "secret")
        # a quoted value is the flag's own, spaced or not (``--password "correct horse"``)
        yield from _value(m, 2, kind, linked=m.group(1) == "=" or m.group(3) is not None,
                          strict=False, flag=True)
    for names, tool, short, spaced in () if "tools" in skip else tools():
        if not any(text.find(name, begin, end) >= 0 for name in names):
            continue  # no program of this tool named here: its patterns stay uncompiled
        for m in tool.finditer(text, begin, end):
            for p in short.finditer(text, m.start(), end):
                if p.start() > m.end():
                    break  # past the command: its value may hold a ``&``, its flag may not
                if p.group(1) is not None and not placeholder(p.group(1)):
                    yield Finding(p.start(1), p.end(1), "password")
                elif p.group(3) is not None and _spaced(p.group(3), spaced):
                    yield Finding(p.start(3), p.end(3), "password")
    for m in _run("switch", skip, text, begin, end):
        if not placeholder(m.group(2)) and not is_path(m.group(2)):
            yield Finding(m.start(2), m.end(2), "password")
    for m in _run("smb", skip, text, begin, end):
        if not placeholder(m.group(3)):
            yield Finding(m.start(3), m.end(3), "password")
    for m in _run("userpass", skip, text, begin, end):
        secret = m.group(3)
        if is_path(f"{m.group(2)}:{secret}"):
            continue  # ``cygpath -u 'c:\\users\\me'``: a drive letter, not a user
        if secret != m.group(2) and not placeholder(secret) and _userpass_secret(secret):
            yield Finding(m.start(3), m.end(3), "password")
    for m in _run("url", skip, text, begin, end):
        if "/" in m.group(2) and (m.group(2).split("/", 1)[0].isdigit() or "." in m.group(1)):
            continue  # ``host:8080/path@x``: a port and a path, not a password
        if not placeholder(m.group(2)) and not m.group(2).isdigit():
            yield Finding(m.start(2), m.end(2), "password")
    for m in _run("userinfo", skip, text, begin, end):
        secret = m.group(2)
        if (m.group(1).lower() not in _MAIL_WORDS and not placeholder(secret)
                and secretish(secret, password=True, strict=False)):
            yield Finding(m.start(2), m.end(2), "password")
    for m in _run("login", skip, text, begin, end):
        slash = "/" in m.group(4)
        if slash and not m.group(1):
            continue  # "user settings / Profile": a path of words, not a login
        value = m.group(6) or m.group(7) or ""
        found = [*_value(m, 5, "password", linked=True, strict=False)]
        if not found and m.group(1) and _CREDS.match(m.group(0)) and m.group(7) is not None:
            # "creds: admin / magic": a label of both halves, whatever the password's shape
            said = plain_password(m.group(7), _line_rest(text, m.end(7)), labelled=True)
            found = [Finding(m.start(7), m.start(7) + len(said), "password")] if said else []
        elif slash and len(value) < 8 and not any(c in _SYMBOLS for c in value):
            continue  # "sign in with GitHub / Google2": a choice of words, not a password
        yield from found
    for m in _run("userpass_label", skip, text, begin, end):
        found = [*_value(m, 3, "password", linked=True, strict=False)]
        if not found and m.group(5) is not None and m.group(5) != m.group(2):
            said = plain_password(m.group(5), _line_rest(text, m.end(5)), labelled=True)
            found = [Finding(m.start(5), m.start(5) + len(said), "password")] if said else []
        yield from found
    for m in _run("pair", skip, text, begin, end):
        yield from _pair(text, m)
    for m in _run("authorization", skip, text, begin, end):
        value = m.group(2)
        param = _PARAM.match(value)
        if placeholder(value) or value.lower() in _STOP or (
                param and name_kind(param.group(1)) is None) or _MARK_NEXT.match(text, m.end(2)) or (
                _PARAM_NAME.fullmatch(value) and text[m.end(2):m.end(2) + 1] in "\"'"):
            continue  # ``Digest username="…"``: a parameter (secretconn reads Digest's); a mark
        if (m.group(1) is None or secretish(value, password=False, strict=False)) and not (
                is_path(value)):
            # its own kind: a UUID after a scheme of any name is the token (secretspan keeps one
            # after a name that is no secret's)
            yield Finding(m.start(2), m.end(2), "authorization")
    for m in _run("escaped", skip, text, begin, end):
        low = m.group(1).lower()
        if not placeholder(m.group(2)) and m.group(2).lower() not in _STOP and not any(
                low.endswith(w) for w in ("_id", "_file", "_path", "_url", "_type", "_name")):
            kind = "password" if "pass" in low or "pwd" in low else (
                "token" if "token" in low else "secret")
            yield Finding(m.start(2), m.end(2), kind)
    for m in _run("query", skip, text, begin, end):
        if secretish(m.group(1), password=False, strict=True):
            yield Finding(m.start(1), m.end(1), "signature" if "ig" in m.group(0)[:5] else "api-key")
    for m in _run("cookie", skip, text, begin, end):
        if "ookie" not in text[text.rfind("\n", 0, m.start()) + 1:m.start(1)].lower():
            continue  # ``;DeviceId=…;SharedAccessKey=…``: no Cookie header before the ``;``
        if secretish(m.group(2), password=False, strict=True):
            yield Finding(m.start(2), m.end(2), "token")
    for m in _run("bearer", skip, text, begin, end):
        if secretish(m.group(1), password=False, strict=True):
            yield Finding(m.start(1), m.end(1), "token")
    for m in _run("pin", skip, text, begin, end):
        yield Finding(m.start(1), m.end(1), "pin")
    for m in _run("seed", skip, text, begin, end):
        yield Finding(m.start(1), m.end(1), "seed-phrase")
    for m in _run("codes", skip, text, begin, end):
        yield from _codes(text, m.end(), end)
    for m in () if "positional" in skip else POSITIONAL.finditer(text, begin, end):
        if not placeholder(m.group(2)) and m.group(2) != "*":
            yield Finding(m.start(2), m.end(2), "password")


_CREDS = lazy(r"(?i)cred|login\s+cred")  # the login rule's words naming both halves


def _line_rest(text: str, at: int) -> str:
    """The rest of the line after ``at``."""
    line_end = text.find("\n", at)
    return text[at:len(text) if line_end < 0 else line_end]


def _codes(text: str, at: int, end: int) -> Iterator[Finding]:
    """The recovery codes of a list starting at ``at``: each code with a digit, up to the
    first that is none (a word of the next sentence)."""
    for _ in range(32):
        m = _RULES["code"].match(text, at, end)
        if m is None or not any(c.isdigit() for c in m.group(2)):
            return
        yield Finding(m.start(2), m.end(2), "recovery-code")
        at = m.end()


def _value(match: re.Match[str], group: int, kind: str, *, linked: bool, strict: bool,
           flag: bool = False) -> Iterator[Finding]:
    """The value of ``match`` (its quoted form at ``group + 1``, else bare at ``group + 2``)."""
    quoted = match.group(group + 1)
    if quoted is not None:
        start, value = match.start(group + 1), quoted
    else:
        start, value = match.start(group + 2), match.group(group + 2)
        # A bare value ends before a URL query's next parameter (``password=…&next=home``).
        value = QUERY_NEXT.split(value, maxsplit=1)[0].rstrip(".,;:)]}>?")
        if not flag and value.endswith("!") and value[:-1].isalpha():
            value = value[:-1]  # "the token is invalid!": a word and the sentence's end
        if "@" in value and match.string.endswith("://", 0, match.start()):
            value = value.rsplit("@", 1)[0]  # ``://x-access-token:…@host``: not the host
    if value.startswith("-") and flag:
        return
    if flag and re.match(r"^[a-z]+=", value):
        return  # ``--secret id=x,src=path``: the flag's own option list
    password = kind == "password"
    if flag and linked and not placeholder(value) and len(value) >= 3 or secretish(value, password=password, strict=strict,
                   quoted=quoted is not None and linked):
        yield Finding(start, start + len(value), kind)


def _answered(text: str, match: re.Match[str], kind: str, link: str) -> Iterator[Finding]:
    """The answer in prose to a question naming a secret (the asked rule): a value reading like
    one that ends its line or its clause; after a word or a sign ("it's", ``A:``, an arrow), or
    a question asking what it is ("what's the password? sunshine"), a password of one plain word
    too (secretwords)."""
    if match.group(2) is not None:
        yield from _value(match, 1, kind, linked=True, strict=False)
        return
    bare = match.group(3)
    line_end = text.find("\n", match.end(3))
    after = text[match.end(3):len(text) if line_end < 0 else line_end]
    if bare[-1] not in ".,;!)" and after.strip():
        return  # "What's the password? 1Password has it": the sentence goes on
    found = [*_value(match, 1, kind, linked=True, strict=False)]
    yield from found
    said = plain_password(bare, after) if not found and kind == "password" and (
        link or asks_what(text, text.rfind("?", match.start(), match.start(3)))) else None
    if said:
        yield Finding(match.start(3), match.start(3) + len(said), kind)


_NOT_CHOSEN = "; not chosen: "


def _not_chosen(text: str, at: int, end: int, kind: str) -> Iterator[Finding]:
    """The options not chosen after a secret question's answer (``… — chose: ‹…›; not chosen:
    Adm!n77, generate one``): each one's first word, where it reads like the secret."""
    stop = text.find("\n", at, end)
    stop = end if stop < 0 else stop
    start = text.find(_NOT_CHOSEN, at, stop)
    if start < 0:
        return
    start += len(_NOT_CHOSEN)
    for option in re.finditer(r"[^\s,;]+", text[start:stop]):
        value = option.group(0).rstrip(".)")
        if option.start() and text[start + option.start() - 2:start + option.start()] != ", ":
            continue  # a later word of an option ("generate one")
        if secretish(value, password=kind == "password", strict=False):
            yield Finding(start + option.start(), start + option.start() + len(value), kind)


# A login word, and how far before and after a ``user/PASS`` pair it may be in the line.
_LOGIN_NEAR = lazy(r"(?i)(?<![\w-])(?:log(?:ged|ging)?[ -]?(?:in|on)(?:to)?|sign(?:ed|ing)?[ -]?in(?:to)?"
                   r"|credentials?|creds|username|user\s*(?:name\s*)?/\s*pass(?:word)?)(?![\w-])")
_NEAR_BEFORE, _NEAR_AFTER = 80, 40


def _pair(text: str, m: re.Match[str]) -> Iterator[Finding]:
    """The password of a ``user/PASS`` pair (the "pair" rule) when it reads like one and a
    login word is near it, in its line."""
    value = m.group(2).rstrip(".,;:")
    core = value.rstrip("?!")  # what is left of it without a sentence's end
    if len(core) < 4 or not any(c.isdigit() or c in _SYMBOLS for c in core):
        return  # "Login screen/unlock?": words, not a password
    if len(value) < 8 and not any(c in _SYMBOLS for c in value):
        return  # "sign in with GitHub/Google2": a choice of words, a short path
    if value.isdigit() or not secretish(value, password=True, strict=False):
        return  # a fraction, a date, a ratio
    line_start = text.rfind("\n", 0, m.start()) + 1
    line_end = text.find("\n", m.end())
    line_end = len(text) if line_end < 0 else line_end
    near = _LOGIN_NEAR.search(text, max(line_start, m.start() - _NEAR_BEFORE),
                              min(line_end, m.end() + _NEAR_AFTER))
    if near is not None:
        yield Finding(m.start(2), m.start(2) + len(value), "password")


def secretish(value: str, *, password: bool, strict: bool, quoted: bool = False) -> bool:
    """Whether ``value``, found after a secret word, reads like the secret (mixed letters and
    digits or symbols, or random case) rather than a word, a placeholder or a reference.
    ``strict``: no linking word or sign came between (needs letters and digits)."""
    bare = value.strip("*_`")
    low = bare.lower()
    if len(bare) < 4 or "‹" in bare or low in _STOP or low in STORES or placeholder(bare):
        return False
    if bare.startswith(("http://", "https://", "file:")) or _RULES["date"].match(bare):
        return False
    if _RULES["reference"].search(bare) and not quoted:
        return False
    letters = any(c.isalpha() for c in bare)
    digits = any(c.isdigit() for c in bare)
    if strict:
        return letters and digits and len(bare) >= 7
    if password and quoted:
        return len(bare) <= 64  # a quoted passphrase may hold spaces
    if password and bare.replace("-", "").isdigit():
        return len(bare) >= 6  # 482193, a passcode's 7731-9925
    if password and _RULES["diceware"].fullmatch(low):
        return True
    if letters and digits:
        return True
    if letters and any(c in _SYMBOLS for c in bare):
        return True
    inner_upper = sum(c.isupper() for c in bare[1:])
    return inner_upper >= 2 and any(c.islower() for c in bare) and len(bare) >= 8


def placeholder(value: str) -> bool:
    return _RULES["placeholder"].match(value.strip("'\"`")) is not None


def _spaced(value: str, mode: str) -> bool:
    """Whether a tool's flag's spaced value is its password (secretcommands.TOOL_FLAGS' modes)."""
    if mode == "strict":
        return secretish(value, password=True, strict=True)
    return not (placeholder(value) or value.startswith("-") or len(value) < 3
                or (mode == "word" and value.isdigit()))


def _userpass_secret(secret: str) -> bool:
    """``-u user:PASS``: a password, unless it is a uid:gid or a group name."""
    if secret.isdigit() and len(secret) <= 6:
        return False
    return (any(c.isdigit() for c in secret) or any(c in _SYMBOLS or c == "." for c in secret)
            or any(c.isupper() for c in secret) or len(secret) >= 8)
