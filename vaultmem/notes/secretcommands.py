"""The commands whose flags or arguments hold a password, and the words that make a line worth
the context rules: redact's pre-filter (pure).

- ``TOOL_FLAGS``: programs whose short flag takes a password (``mysql -pPASS``, ``sshpass -p``,
  ``sqlcmd -P``, ``snowsql -p``...); ``POSITIONAL``: those whose argument is one (``htpasswd -b
  FILE USER PASS``). secretcontext reads them.
- ``candidates``: where in a text a command, header or phrase rule may find a value, by
  ``str.find`` of ``COMMAND_WORDS``. A program's name, a login word or a code's label is found as
  a word (``rar`` is not found in "library", ``login`` not in "handleLogin"): each rule reading
  it starts where no letter, digit or ``_`` is before it (``BOUNDED``; tests check the pre-filter
  finds the same secrets with and without the bounds).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from vaultmem.notes.lazyre import LazyPattern, lazy

# A command's arguments: up to a pipe, ``;`` or ``&`` that stands alone (one inside a word, as in
# a password, is part of it).
_ARGS = r"(?:[^\n|;&]|[|;&](?=[^\s|;&]))*"

# Tools whose short flag takes a password: (program names, the flag, glued value too, what a
# spaced value must be): "strict", read like a password (``mysql -p shop`` names a database, mysql
# then prompts; ``docker run -p 8080:80`` publishes a port); "any", anything but a placeholder or
# a flag (the flag means the password only); "word", nor a number (``snowsql -p`` was its port).
TOOL_FLAGS = (
    (r"mysql\w*|mariadb\w*|mycli|mysqlsh", "-p", True, "strict"),
    (r"sshpass", "-p", True, "any"),
    (r"psexec\w*|paexec", "-p", False, "any"),
    (r"security\s+add-(?:generic|internet)-password", "-w", False, "any"),  # macOS keychain
    (r"redis-cli", "-a", False, "any"),
    (r"docker|podman|nerdctl|buildah|skopeo", "-p", False, "strict"),
    (r"ldap\w+", "-w", False, "any"),
    (r"7z|7za|7zz|7zr|rar|unrar", "-p", True, "strict"),
    (r"zip|unzip|zipcloak", "-P", False, "any"),
    (r"sqlcmd|bcp|osql|isql|tsql", "-P", True, "any"),
    (r"mongo|mongosh|mongodump|mongorestore|mongoexport|mongoimport", "-p", False, "strict"),
    (r"az\s+login", "-p", False, "any"),  # az login -u NAME -p PASS (elsewhere -p is --parameters)
    (r"openssl", "-k", False, "any"),  # openssl enc -k PASS
    (r"mosquitto_(?:pub|sub|rr)", "-P", False, "any"),  # MQTT clients: -u USER -P PASS
    (r"snowsql", "-p", False, "word"),
    (r"cqlsh|hdbsql|rabbitmqadmin|rdesktop|evil-winrm|smbmap", "-p", False, "any"),
    (r"vsql", "-w", False, "any"),  # Vertica
    (r"ipmitool", "-P", False, "any"),
    (r"nzsql", "-pw", False, "any"),  # Netezza
)
# Commands whose password is a positional argument (group 2; group 1 its quote).
POSITIONAL = lazy(
    r"(?<![\w/.-])(?:htpasswd(?:\s+-\w+)*\s+-[a-z]*b[a-z]*(?:\s+-\w+)*\s+\S+\s+\S+"  # -b FILE USER
    r"|rabbitmqctl\s+(?:add_user|change_password)\s+\S+"
    r"|net\s+user\s+\S+"
    r"|net\s+use\b[^\n|;&]*?\s/u(?:ser)?:\S+"
    r"|wpa_passphrase\s+\S+|bw\s+(?:login\s+\S+|unlock))"
    r"\s+(['\"]?)(?!/)([^\s'\"]{3,200})\1")


@lru_cache(maxsize=1)
def tools() -> tuple[tuple[tuple[str, ...], LazyPattern, LazyPattern, str], ...]:
    """(the literals one of which names the program, the program and its arguments, its password
    flag, what a spaced value must be) of each tool in TOOL_FLAGS: each pattern is compiled only
    for a text naming its program (14 pairs compiled for any ``-p`` cost a hook more than the
    rest of a redaction)."""
    return tuple(
        (_leading(names),
         lazy(r"(?<![\w/.-])(?:" + names + r")\b" + _ARGS),
         lazy(r"(?<=\s)" + flag + (r"(?:['\"]?([^\s'\"]+)|" if glued else r"(?:(?!)()|")
              + r"[ \t]+(['\"]?)([^\s'\"`<>|]+)\2)"), spaced)
        for names, flag, glued, spaced in TOOL_FLAGS)


def _leading(names: str) -> tuple[str, ...]:
    """The literal start of each of ``names``' alternatives (every match holds one)."""
    depth, start, found = 0, 0, []
    for at, ch in enumerate(names + "|"):
        depth += (ch == "(") - (ch == ")")
        if ch == "|" and depth == 0:
            found.append(re.match(r"[\w-]*", names[start:at]).group(0))  # type: ignore[union-attr]
            start = at + 1
    return tuple(dict.fromkeys(found))


# What makes a line worth the command and header rules: literals found by ``str.find`` in the
# lowercase text (the prose rule runs where redact's secret-like names are).
# A program's name (TOOL_FLAGS, POSITIONAL), a login word, a code's label: found as a word only.
BOUNDED = frozenset({
    "mysql", "mariadb", "mycli", "redis-cli", "sshpass", "docker", "podman", "nerdctl", "buildah",
    "skopeo", "ldap", "7z", "rar", "unrar", "zip", "unzip", "sqlcmd", "bcp", "osql", "isql",
    "tsql", "mongo", "az ", "openssl", "htpasswd", "rabbitmqctl", "net user", "net use",
    "psexec", "paexec", "wpa_passphrase", "bw login", "bw unlock", "mosquitto_", "snowsql",
    "cqlsh", "hdbsql", "rabbitmqadmin", "rdesktop", "evil-winrm", "smbmap", "vsql", "ipmitool",
    "nzsql", "login", "log in", "sign in", "signin", "puk", "geheimzahl", "code:", "codes:",
    "codes are", "codes were", "codes (", "mnemonic", "wifi", "wi-fi", "wlan", "ssid",
    # a login's label naming both halves (the userpass_label rule)
    "user/p", "user / p", "user:p", "u/p", "u / p", "name/p", "login/p", "login / p",
})
COMMAND_WORDS = (*sorted(BOUNDED), "cookie", "-u ", "-u=", "--user", "contrase", "passwort", "kennwort", "senha",
                 "wachtwoord", "salasana", "haslo", "heslo", "parol", "passord", "adgangskode",
                 "lozinka", "geslo", "jelszo", "sandi",  # kata\s+sandi: any spaces
                 "--auth", "-a ", "--basic-auth", "--proxy-user", "authorization", "bearer",
                 "--pass", "--token", "--secret", "--api", "--access", "--private", "--client",
                 "--pwd", "-token", "-password", "-secret", "-key", "://",
                 "/p:", "/pass:", "/password:", "/pwd:", "/passwd:", "/pass=", "/password=",
                 "signature=", "?key=", "&key=",
                 "clave", "sleutel", "nyckel", "avain", "klucz", "chave",
                 "chiave", "clef", "door code", "gate code", "alarm code",
                 "entry code", "lock code", "safe code", "keypad code", "unlock code", "code pin",
                 "codice pin", "codigo pin", "código pin", "access code",
                 "security code",
                 "seed phrase", "seed words", "recovery phrase", "backup phrase", "wallet phrase",
                 "recovery words", "backup words", "wallet words",
                 "as the pass", "as my pass", "as our pass", "as password", "as the api",
                 "as the token", "as the secret", "as the key", "as my token", "into the pass",
                 "in the pass", "into the token", "into the api", "into the secret",
                 "— chose:", "?\"=")  # a question's answer (the "asked" rule)
# The foreign rule's words ASCII cannot spell: looked for only in a text that is not ASCII.
NON_ASCII_WORDS = ("lösenord", "hasło", "şifre", "parolă", "jelszó", "mật khẩu", "κωδικ", "סיסמ",
                   "كلمة", "पासवर्ड", "пароль", "密码", "密碼", "パスワード", "비밀번호", "schlüssel",
                   "clé", "nøkkel", "ключ", "キー", "密钥", "密鑰", "키")


# A Digest header's ``response=`` (secretconn), found by its shape in the lowercase text.
DIGEST_SHAPE = lazy(r"response[ \t]*=[ \t]*[\"']?[0-9a-f]{32}")
# A PIN's name (the pin rule; "ping" and "pinned" are none).
_PIN_SHAPE = lazy(r"pin(?:[ -]?(?:code|number|nummer|numero|número))?(?![\w-])")
# A schemeless ``user:PASS@host`` (the userinfo rule), looked for where the text has an ``@``.
_USERINFO_SHAPE = lazy(r":[^\s/@:'\"<>]{3,200}@(?=[\w\[])")


def candidates(low: str, more: Sequence[str] = (), shapes: Sequence[LazyPattern] = (),
               bounds: frozenset[str] = BOUNDED) -> list[int]:
    """Where in the lowercase text a command or header rule (or one of the ``more`` literals,
    or a match of one of the ``shapes``) may find a value; each of ``bounds`` only as a word."""
    found: list[int] = []
    for shape in (_USERINFO_SHAPE, *shapes) if "@" in low else shapes:
        found.extend(m.start() for m in shape.finditer(low))
    if "pin" in low:
        found.extend(m.start() for m in _PIN_SHAPE.finditer(low))
    for word in (*COMMAND_WORDS, *more, *(() if low.isascii() else NON_ASCII_WORDS)):
        at = low.find(word)
        bounded = word in bounds
        while at >= 0:
            if bounded and at and (low[at - 1].isalnum() or low[at - 1] == "_"):
                pass  # inside a word: "library", "handlelogin"
            elif word != "://" or _userinfo_near(low, at):
                found.append(at)
            at = low.find(word, at + len(word))
    return found


def _userinfo_near(low: str, at: int) -> bool:
    """Whether the URL at ``at`` (its ``://``) has a ``:…@`` userinfo, or a token's (secretconn)."""
    stop = at + 3
    limit = min(len(low), stop + 300)
    while stop < limit and not low[stop].isspace() and low[stop] != "@":
        stop += 1
    if stop >= limit or low[stop] != "@":
        return False
    userinfo = low[at + 3:stop]  # a password may hold one ``/`` (the url rule)
    colon = userinfo.find(":")
    if colon < 0:
        return len(userinfo) >= 16 and "/" not in userinfo
    return "/" not in userinfo[:colon] and userinfo.count("/") <= 1
