"""Issue 28's secrets, round nine: a value in a flow map, an answer on the line after its question,
a password set "to" a word, a question's bare answer; and the settings, references and
placeholders a secret's name is given that are no secret (each kept byte for byte)."""

from __future__ import annotations

import pytest

from vaultmem.notes.redact import redact

_MARK = "‹redacted:"


@pytest.mark.parametrize(("text", "secret"), [
    # A YAML or JSON flow map: the value ends at the map's close.
    ("{DB_PASSWORD: sunshine}", "sunshine"),
    ("{user: admin, password: sunshine}", "sunshine"),
    ("{password: letmein, host: db}", "letmein"),
    ("env: {API_TOKEN: k3vq8zt1x}", "k3vq8zt1x"),
    ('{"api_key": "Zq81xLmP0wQe"}', "Zq81xLmP0wQe"),
    # The value on the line after its label, its question or its bare name.
    ("password:\n sunshine", "sunshine"),
    ("What's the db password?\nsunshine", "sunshine"),
    ("the root password?\n\ntoor", "toor"),
    ("admin password\n  hunter2!", "hunter2!"),
    ("> what's the wifi password?\nIt's sunshine42", "sunshine42"),
    # A password set to a word.
    ("set the password to sunshine", "sunshine"),
    ("change the db password to sunshine", "sunshine"),
    ("the password is now sunshine", "sunshine"),
    ("the password has been changed to marmalade.", "marmalade"),
    ("Reset the root password to toor", "toor"),
    # A question asking what the password is, then its bare answer.
    ("what's the password? sunshine", "sunshine"),
    ("What is the db password? letmein", "letmein"),
    ("the admin password? sunshine", "sunshine"),
    # The word after token or secret.
    ("my token abc123xyz", "abc123xyz"),
    ("use secret s3cr3tV4lue", "s3cr3tV4lue"),
    ("password: correcthorsebatterystaple", "correcthorsebatterystaple"),
    ("pw=letmein", "letmein"),
])
def test_a_secret_in_the_shape_of_round_nine_is_redacted(text: str, secret: str) -> None:
    out = redact(text)
    assert _MARK in out and secret not in out, out


@pytest.mark.parametrize("text", [
    # A reference to a secret by its name (Kubernetes' secretRef), a placeholder in quotes, a
    # setting's value: none is a secret.
    "secret: secretRef",
    "  secret: secretName",
    '{"password": "<your password>"}',
    "PASSWORD_AUTH=disabled",
    "SECRET_ROTATION=enabled",
    "{password: ${DB_PASSWORD}}",
    '{"api_key": "YOUR_API_KEY"}',
    "{password: null, user: bob}",
    # A password set to do something, a reply that gives nothing, a question of another kind.
    "set the password to expire",
    "set the password to expire in 90 days",
    "change the password to something stronger",
    "reset the password to its default",
    "I set the password to match",
    "a password to remember",
    "the password? Nope.",
    "Which password? Both.",
    "Did you reset the password? Twice.",
    "What's the password? 1Password has it",
    "what is the password? Forgotten.",
    "What is the password?\nIt is unclear.",
    "Forgot password\nClick the link below",
    "password:\n  required: true",
    "token:\n  $TOKEN",
])
def test_a_name_a_setting_or_a_placeholder_is_kept(text: str) -> None:
    assert redact(text) == text
