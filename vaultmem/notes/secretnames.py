"""Which names make an assigned value a secret, and of what kind (pure): ``AWS_SECRET_ACCESS_KEY``,
``dbPassword``, ``x-api-key`` are secret-like, ``PASSWORD_ERROR`` is not a passphrase's name.

A name is split on ``_ - .``, spaces and case changes, and its words are matched whole. A name's
last word may say its value is about the secret (``password_min_length``); a shell's
environment variable named a secret (``PGPASSWORD=…``) is given a string, whatever its shape."""

from __future__ import annotations

from vaultmem.notes.lazyre import lazy

_CAMEL = lazy(r"(?<=[a-z0-9])(?=[A-Z])")
_SPLIT = lazy(r"[_.\-\s]+")

# Identifier segments that make a name secret-like (matched whole, after splitting a name on
# ``_ - .`` and case changes): ``AWS_SECRET_ACCESS_KEY``, ``dbPassword``, ``x-api-key``.
_SECRET_WORDS = frozenset({
    "password", "passwd", "pass", "passphrase", "pwd", "pw", "secret", "secrets", "token",
    "tokens", "apikey", "credential", "credentials", "creds", "auth", "contraseña",
    "contrasena", "privatekey", "accesskey", "secretkey", "authkey", "bearer", "dsn", "psk",
})
# ``key`` names a secret after one of these (``api_key``, ``ACCESS_KEY``, ``private-key``).
_KEY_QUALIFIERS = frozenset({
    "api", "access", "secret", "private", "priv", "client", "auth", "account", "service", "db",
    "database", "master", "signing", "encryption", "license", "subscription", "app", "admin",
    "hmac", "jwt", "preshared", "shared", "webhook",
})
_VENDOR_WORDS = {
    "aws": "aws", "amazon": "aws", "stripe": "stripe", "github": "github", "gh": "github",
    "gitlab": "gitlab", "slack": "slack", "openai": "openai", "anthropic": "anthropic",
    "claude": "anthropic", "google": "google", "gcp": "google", "gemini": "google",
    "hf": "huggingface", "huggingface": "huggingface", "groq": "groq", "twilio": "twilio",
    "sendgrid": "sendgrid", "npm": "npm", "pypi": "pypi", "azure": "azure", "discord": "discord",
    "telegram": "telegram", "mailchimp": "mailchimp", "datadog": "datadog", "sentry": "sentry",
    "mistral": "mistral", "cohere": "cohere", "replicate": "replicate", "xai": "xai",
    "deepseek": "deepseek", "openrouter": "openrouter", "perplexity": "perplexity",
}
_PASSWORD_WORDS = frozenset({"password", "passwd", "pass", "passphrase", "pwd", "pw",
                             "contraseña", "contrasena"})
_TOKEN_WORDS = frozenset({"token", "tokens", "bearer"})
# Words of a message about a secret, never of a passphrase assigned to one.
_MESSAGE_WORDS = frozenset({"your", "enter", "must", "invalid", "incorrect", "wrong", "required",
                            "please", "here", "example", "changeme"})
# The last word of a secret's name that makes its value something about the secret: a date, a
# rule, a count, where it is (``PasswordLastSet : 11/15/2025``, ``password_min_length: 12``).
_ABOUT_A_SECRET = frozenset({
    "set", "expires", "expiry", "expired", "required", "changed", "updated", "age", "policy",
    "length", "len", "hint", "count", "enabled", "rotated", "date", "ttl", "last", "id", "name",
    "type", "version", "prompt", "label", "field", "strength", "min", "max", "file", "path", "url",
})
# The last word of an environment variable's name that makes its value the secret itself.
_ENV_SECRET_LAST = frozenset({"password", "passwd", "pass", "pwd", "pw", "passphrase", "secret",
                              "token", "key", "apikey", "credentials", "creds"})
_ENV_NAME = lazy(r"[A-Z][A-Z0-9_]*")


def name_words(name: str) -> list[str]:
    """``dbPassword`` -> ``["db", "password"]``."""
    return [w.lower() for w in _SPLIT.split(_CAMEL.sub("_", name)) if w]


def name_kind(name: str) -> str | None:
    """The kind a secret assigned to ``name`` gets, or None when the name is not secret-like."""
    words = name_words(name)
    if not words:
        return None
    joined = "".join(words)
    secretish = any(w in _SECRET_WORDS for w in words) or joined in _SECRET_WORDS or any(
        w == "key" and i > 0 and (words[i - 1] in _KEY_QUALIFIERS or words[i - 1] in _VENDOR_WORDS)
        for i, w in enumerate(words)
    ) or any(w.endswith(("password", "passwd", "secret", "token", "apikey")) for w in words)
    if not secretish:
        return None
    for word in words:
        if word in _VENDOR_WORDS:
            return _VENDOR_WORDS[word]
    if any(w in _PASSWORD_WORDS or w.endswith("password") for w in words):
        return "password"
    if any(w in _TOKEN_WORDS or w.endswith("token") for w in words):
        return "token"
    return "secret"


def passphrase(name: str, value: str) -> bool:
    """Whether a quoted value with spaces is a passphrase (``DB_PASSWORD="correct horse battery
    staple"``): the name ends in a password word and the value is 2 to 10 plain words that do not
    talk about passwords (``PASSWORD_HINT = "Enter your password"`` is a message)."""
    words = name_words(name)
    if not words or not (words[-1] in _PASSWORD_WORDS or words[-1].endswith(("password", "passwd"))):
        return False  # ``PGPASSWORD`` too
    said = value.split()
    if not 2 <= len(said) <= 10 or value.rstrip()[-1:] in ".!?:" or "‹" in value:
        return False
    lowered = [w.strip(",;").lower() for w in said]
    return not any(w in _PASSWORD_WORDS or w.endswith("password") or w in _MESSAGE_WORDS
                   for w in lowered)


def about_a_secret(name: str) -> bool:
    """Whether ``name``'s last word says its value is about the secret, not the secret
    (``PasswordLastSet``, ``password_min_length``: _ABOUT_A_SECRET)."""
    words = name_words(name)
    return bool(words) and words[-1] in _ABOUT_A_SECRET


def env_secret(name: str) -> bool:
    """Whether ``name`` is an environment variable's naming a secret (``PGPASSWORD``,
    ``POSTGRES_PASSWORD``, ``API_TOKEN``): capitals, ending in a secret's word (not
    ``AUTH_PROVIDER``). Assigned with ``=`` and no space, as a shell does, its bare value is a
    string whatever its shape (``rootpass``), not a reference to code."""
    if not _ENV_NAME.fullmatch(name):
        return False
    last = name_words(name)[-1]
    return last in _ENV_SECRET_LAST or last.endswith(("password", "secret", "token"))
