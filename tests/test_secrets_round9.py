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
])
def test_a_name_a_setting_or_a_placeholder_is_kept(text: str) -> None:
    assert redact(text) == text
