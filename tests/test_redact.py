"""Secrets -> ``‹redacted:kind›``: every kind detected with its name kept, ordinary text left alone,
the allowlist, and the places that apply it (transcript reads, vault writes, config)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from vaultmem.claude import condensed, transcript
from vaultmem.errors import ConfigError, UnsafePath
from vaultmem.notes import redact, secretentropy
from vaultmem.notes.redact import Redaction, find
from vaultmem.store.config import load_config
from vaultmem.store.vault import Vault

# Fake values, built so that no line of this file is itself a key.
AWS_ID = "AKIA" + "IOSFODNN7EXAMPL3"
AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/" + "bPxRfiCYzQ81vLK2ab9Q"
GITHUB = "ghp_" + "1234567890abcdefghijklmnopqrstuvwxyZ"
GITHUB_PAT = "github_pat_" + "11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz"
GITLAB = "glpat-" + "abcdefghij1234567890"
SLACK = "xoxb-" + "123456789012-1234567890123-abcdefghijklmnopqrstuvwx"
STRIPE = "sk_live_" + "51H8abcdefghijklmnopqrstuvwx"
JWT = ("eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9." + "eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ."
       + "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c")
TWILIO = "AC" + "1234567890abcdef1234567890abcdef"
ANTHROPIC = "sk-ant-" + "api03-abcdefghijklmnopqrstuvwxyzABCDEFGHIJ0123456789-abcdefgh-AAAA"
OPENAI_PROJ = "sk-proj-" + "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJ"
OPENAI_OLD = "sk-" + "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJ"
GOOGLE = "AIza" + "SyA1234567890abcdefghijklmnopqrstuv"
HF = "hf_" + "abcdefghijklmnopqrstuvwxyz1234"
GROQ = "gsk_" + "abcdefghijklmnopqrstuvwxyz1234567890"
SENDGRID = "SG." + "abcdefghijklmnopqrstuv" + "." + "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG"
PRIVATE_KEY = (
    "-----BEGIN RSA PRIVATE KEY-----\n"
    "MIIEpAIBAAKCAQEA1234567890abcdefghijklmnopqrstuvwxyzABCDEFGHIJ\n"
    "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ\n"
    "-----END RSA PRIVATE KEY-----"
)


@pytest.mark.parametrize(("text", "expected"), [
    (f"export AWS_SECRET_ACCESS_KEY={AWS_SECRET} && aws s3 ls",
     "export AWS_SECRET_ACCESS_KEY=‹redacted:aws› && aws s3 ls"),
    (f"export AWS_ACCESS_KEY_ID={AWS_ID}", "export AWS_ACCESS_KEY_ID=‹redacted:aws›"),
    ('psql "postgres://admin:S3cr3tPassw0rd@db.example.com:5432/app"',
     'psql "postgres://admin:‹redacted:password›@db.example.com:5432/app"'),
    (f"anthropic.AuthenticationError: invalid x-api-key {ANTHROPIC}",
     "anthropic.AuthenticationError: invalid x-api-key ‹redacted:anthropic›"),
    (f"make sure `STRIPE_SECRET_KEY={STRIPE}` is exported",
     "make sure `STRIPE_SECRET_KEY=‹redacted:stripe›` is exported"),
    (f"use this token {GITHUB} for the repo", "use this token ‹redacted:github› for the repo"),
    (f"GH_TOKEN={GITHUB_PAT}", "GH_TOKEN=‹redacted:github›"),
    (f"git remote set-url origin https://oauth2:{GITLAB}@gitlab.com/x/y.git",
     "git remote set-url origin https://oauth2:‹redacted:gitlab›@gitlab.com/x/y.git"),
    (f"token {GITLAB}", "token ‹redacted:gitlab›"),
    (f"SLACK_BOT={SLACK}", "SLACK_BOT=‹redacted:slack›"),
    (f"Authorization: Bearer {JWT}", "Authorization: Bearer ‹redacted:jwt›"),
    (f"sid {TWILIO} for the account", "sid ‹redacted:twilio› for the account"),
    (f"OPENAI_API_KEY={OPENAI_PROJ}", "OPENAI_API_KEY=‹redacted:openai›"),
    (f"key {OPENAI_OLD}", "key ‹redacted:openai›"),
    (f"GOOGLE_API_KEY={GOOGLE}", "GOOGLE_API_KEY=‹redacted:google›"),
    (f"HF_TOKEN={HF} GROQ_API_KEY={GROQ}", "HF_TOKEN=‹redacted:huggingface› GROQ_API_KEY=‹redacted:groq›"),
    (f"SENDGRID_API_KEY='{SENDGRID}'", "SENDGRID_API_KEY='‹redacted:sendgrid›'"),
    ('password = "hunter2hunter2"', 'password = "‹redacted:password›"'),
    ("DB_PASSWORD=hunter2hunter2", "DB_PASSWORD=‹redacted:password›"),
    ('export DATABASE_PASSWORD="correct horse battery staple"',
     'export DATABASE_PASSWORD="‹redacted:password›"'),
    ("passphrase: 'tulip orbit lantern seven'", "passphrase: '‹redacted:password›'"),
    ("mysql -u root --password=Tr0ub4dor&3", "mysql -u root --password=‹redacted:password›"),
    ('{"client_secret": "q8Zr2xPl0vNc7Ytb"}', '{"client_secret": "‹redacted:secret›"}'),
    ("api_key: 8f14e45fceea167a5a36dedd4ea2543f", "api_key: ‹redacted:secret›"),
    ('token = "Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MGFiY2RlZmdoaWprbA=="', 'token = "‹redacted:token›"'),
    ('curl -H "Authorization: Bearer abcDEF123456ghiJKL789mno" https://api.x.com',
     'curl -H "Authorization: Bearer ‹redacted:token›" https://api.x.com'),
    ("the deploy secret is 9f8e7d6c5b4a39281706f5e4d3c2b1a0, rotate it",
     "the deploy secret is ‹redacted:secret›, rotate it"),
])
def test_each_kind_is_redacted_and_its_name_kept(text: str, expected: str) -> None:
    assert redact.redact(text) == expected


def test_a_private_key_block_is_redacted_whole_fenced_or_not() -> None:
    for wrapped in (f"Here is the key:\n{PRIVATE_KEY}\ndone",
                    f"Here is the key:\n```\n{PRIVATE_KEY}\n```\ndone"):
        out = redact.redact(wrapped)
        assert "MIIE" not in out and "abcdefghijklmnopqrstuvwxyz0123456789" not in out
        assert "‹redacted:private-key›" in out and out.endswith("done")
    # Cut before its END line (a capped prompt): the base64 lines go with it.
    cut = redact.redact(PRIVATE_KEY.rsplit("\n", 1)[0] + "\nthen more words")
    assert cut == "‹redacted:private-key›\nthen more words"
    # Collapsed onto one line, as a session note holds a prompt.
    assert redact.redact(" ".join(PRIVATE_KEY.split("\n"))) == "‹redacted:private-key›"


@pytest.mark.parametrize("text", [
    "commit 8f14e45fceea167a5a36dedd4ea2543f1234abcd fixed it",
    "sha256: 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    "id 123e4567-e89b-12d3-a456-426614174000 and session_id: 5a1c0f3e-0001-4d2b-9a61-000000000001",
    "Decision: use JWT tokens for auth: the secret key stays in env",
    "def get_password(self): return self.password",
    "password = os.environ['DB_PASSWORD']",
    "token = request.headers.get('X-Token')",
    "max_tokens: 4096, token_count = count_tokens(text)",
    "Edited `src/auth/tokens.py` and tests/test_auth.py; password: str = Field(...)",
    'the auth middleware\'s secret: rotate it weekly; author = "Jane"',
    "export API_KEY=$OPENAI_API_KEY; SECRET_KEY=${SECRET_KEY}",
    'password: "<your password here>" and api_key = "xxxxxxxx"',
    "ran pytest -q tests/test_auth.py::test_token_refresh_expired -x",
    "vaultmem/claude/transcript.py:42: error: Need type annotation for \"tokens\"",
    "see https://github.com/Yelp/detect-secrets/blob/master/README.md#usage",
    "the monkey = banana; keyboard: qwerty layout",
    "Ran `git log --oneline -5` -> e73d511 flux: the replaced file is watched",
    "- Failed: `pytest -q` ×2 — `FAILED tests/test_redact.py::test_x - AssertionError`",
    "task-abcdefghijklmnopqrstuvwxyz0123456789 and disk-usage",
    'PASSWORD_ERROR = "Password is too short"; PASSWORD_LABEL = "Show password"',
    'db_password = "not set"',
])
def test_ordinary_text_is_left_alone(text: str) -> None:
    assert redact.redact(text) == text


def test_redaction_is_idempotent_and_deterministic() -> None:
    text = f"AWS_SECRET_ACCESS_KEY={AWS_SECRET}\n{PRIVATE_KEY}\nGH={GITHUB}"
    once = redact.redact(text)
    assert redact.redact(once) == once
    assert redact.redact(text) == once


def test_allow_lists_values_and_patterns() -> None:
    text = f"DB_PASSWORD=hunter2hunter2 token {GITHUB}"
    assert redact.redact(text, allow=["hunter2hunter2"]) == "DB_PASSWORD=hunter2hunter2 token ‹redacted:github›"
    assert redact.redact(text, allow=[r"ghp_\w+"]) == f"DB_PASSWORD=‹redacted:password› token {GITHUB}"
    assert Redaction(enabled=False)(text) == text
    assert Redaction(allow=("hunter2hunter2",))(text).startswith("DB_PASSWORD=hunter2hunter2")


def test_find_gives_offsets_and_kinds() -> None:
    text = f"x\nexport AWS_ACCESS_KEY_ID={AWS_ID}\n"
    (found,) = find(text)
    assert text[found.start:found.end] == AWS_ID and found.kind == "aws"


def test_every_detect_secrets_plugin_is_read() -> None:
    """A new detector in a later detect-secrets fails here until its patterns are in the
    pre-filter and it has a kind."""
    from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class

    types = set(get_mapping_from_secret_type_to_class())
    assert types <= set(redact.PLUGIN_KINDS) | redact.PLUGINS_READ_OTHERWISE


@pytest.mark.parametrize(("kind", "sample"), [
    ("artifactory", "x=AKCp5ZkZ3rW9aBcDeFgH1234 y"),
    ("azure", "AccountKey=" + "a" * 40 + "B1" * 24),
    ("discord", "bot MTA0NzE2NjAzNzU3NzAxMTIy.GxYz12.abcdefghijklmnopqrstuvwxyzA"),
    ("mailchimp", "key 0123456789abcdef0123456789abcdef-us12"),
    ("npm", "//registry.npmjs.org/:_authToken=npm_abcdefghijklmnopqrstuvwxyz0123456789"),
    ("pypi", "pypi-AgEIcHlwaS5vcmc" + "A1b2" * 20),
    ("square", "sq0csp-" + "abcdefghijABCDEFGHIJ0123456789abcdefghij012"),
    ("telegram", "bot 123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw1"),
    ("softlayer", "see https://api.softlayer.com/soap/v3/" + "ab12" * 16),
])
def test_detect_secrets_detectors_pass_the_prefilter(kind: str, sample: str) -> None:
    assert [f.kind for f in find(sample)] == [kind]


# --- where it is applied -------------------------------------------------------------------


def _line(kind: str, content: object, uuid: str) -> str:
    return json.dumps({"type": kind, "uuid": uuid, "message": {"role": kind, "content": content}})


def test_a_transcript_read_redacts_every_kept_field(tmp_path: Path) -> None:
    long_command = "echo " + "x" * 190 + f" && export GITHUB_TOKEN={GITHUB} && gh pr list"
    lines = [
        _line("user", f"deploy with token {GITHUB} please", "u1"),
        _line("assistant", [
            {"type": "text", "text": f"Make sure `STRIPE_SECRET_KEY={STRIPE}` is exported.\n{PRIVATE_KEY}"},
            {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": long_command}},
            {"type": "tool_use", "id": "t2", "name": "Write",
             "input": {"file_path": f"/tmp/{GITHUB}.txt", "content": "x"}},
        ], "a1"),
        _line("user", [{"type": "tool_result", "tool_use_id": "t1", "is_error": True,
                        "content": f"Error: invalid x-api-key {ANTHROPIC}"}], "u2"),
    ]
    path = tmp_path / "t.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    read = transcript.read(path)
    everything = repr(read)
    for secret in (GITHUB, STRIPE, ANTHROPIC, "MIIE", GITHUB[:20], ANTHROPIC[:20]):
        assert secret not in everything
    assert read.first_prompt == "deploy with token ‹redacted:github› please"
    assert "STRIPE_SECRET_KEY=‹redacted:stripe›" in everything
    # The allowlist and the switch reach the read.
    assert GITHUB in repr(transcript.read(path, scrub=Redaction(enabled=False)))
    assert GITHUB in repr(transcript.read(path, scrub=Redaction(allow=(GITHUB,))))
    text = condensed.read([path], 10_000) or ""
    assert text and GITHUB not in text and STRIPE not in text and "MIIE" not in text


def test_the_vault_redacts_what_a_write_adds_and_keeps_a_persons_lines(vault_root: Path) -> None:
    from vaultmem.notes import patch

    vault = Vault(vault_root)
    person = "---\ntype: note\n---\n# Mine\n\nmy own DB_PASSWORD=hunter2hunter2\n\n## Log\n"
    (vault_root / "mine.md").write_text(person, encoding="utf-8")
    vault.update("mine.md", [patch.SectionPatch(("Log",), "append", f"- ran with {GITHUB}")])
    text = (vault_root / "mine.md").read_text(encoding="utf-8")
    assert "my own DB_PASSWORD=hunter2hunter2" in text  # a person's line, byte for byte
    assert GITHUB not in text and "- ran with ‹redacted:github›" in text
    vault.create("new.md", f"# New\n\n{PRIVATE_KEY}\n")
    assert "MIIE" not in (vault_root / "new.md").read_text(encoding="utf-8")
    with pytest.raises(UnsafePath):
        vault.create(f"{GITHUB}.md", "# x\n")
    assert not (vault_root / f"{GITHUB}.md").exists()
    Vault(vault_root, redaction=Redaction(enabled=False)).create("off.md", f"{GITHUB}\n")
    assert GITHUB in (vault_root / "off.md").read_text(encoding="utf-8")


def test_config_reads_the_redact_table(tmp_path: Path) -> None:
    config_dir = tmp_path / "xdg" / "vaultmem"
    config_dir.mkdir(parents=True)
    env = {"XDG_CONFIG_HOME": str(tmp_path / "xdg"), "HOME": str(tmp_path)}
    assert load_config(project="p", env=env).redaction == Redaction()
    (config_dir / "config.toml").write_text(
        '[redact]\nenabled = true\nallow = ["hunter2hunter2", "ghp_test\\\\w+"]\n', encoding="utf-8")
    assert load_config(project="p", env=env).redaction.allow == ("hunter2hunter2", r"ghp_test\w+")
    (config_dir / "config.toml").write_text('[redact]\nenabled = "yes"\n', encoding="utf-8")
    with pytest.raises(ConfigError, match="redact.enabled"):
        load_config(project="p", env=env)


def test_entropy_is_detect_secrets_own() -> None:
    from detect_secrets.plugins.high_entropy_strings import (
        Base64HighEntropyString,
        HexHighEntropyString,
    )

    from vaultmem.notes.secretrules import from_detect_secrets

    rules = from_detect_secrets()
    for sample in ("Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MA==", "abc", "8f14e45fceea167a5a36dedd4ea2543f"):
        assert secretentropy.shannon_entropy(sample, rules.base64_charset) == pytest.approx(
            Base64HighEntropyString().calculate_shannon_entropy(sample))
        assert secretentropy.shannon_entropy(sample, rules.hex_charset) == pytest.approx(
            HexHighEntropyString().calculate_shannon_entropy(sample) if not sample.isdigit()
            else secretentropy.shannon_entropy(sample, rules.hex_charset))


def test_a_second_process_reads_the_rules_from_the_cache_without_importing_detect_secrets(
    tmp_path: Path,
) -> None:
    import subprocess
    import sys

    from vaultmem.notes.secretrules import cache_path, installed_version

    script = (
        "import sys\n"
        "from vaultmem.notes.redact import redact\n"
        "out = redact('password = \"hunter2hunter2\" and AKIA' + 'IOSFODNN7EXAMPL3')\n"
        "print(out)\n"
        "print('detect_secrets' in sys.modules)\n"
    )
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")}
    runs = [subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                           text=True, check=True).stdout.splitlines() for _ in range(2)]
    expected = 'password = "‹redacted:password›" and ‹redacted:aws›'
    assert runs[0] == [expected, "True"]  # built from detect-secrets, and cached
    assert runs[1] == [expected, "False"]  # read from the cache
    version = installed_version()
    assert version and cache_path(version, {"XDG_CACHE_HOME": str(tmp_path / "cache")}).exists()


@pytest.mark.parametrize("text, kept", [
    ("<private>secret token 0</private> and a second line.", "</private> and a second line."),
    ("password: Zx9!kq2Lm</private> after", "</private> after"),
    ("token=ghp_1234567890abcdefghijklmnopqrstuvwxyZ<br>next", "<br>next"),
])
def test_a_tag_after_a_secret_is_markup_and_stays(text: str, kept: str) -> None:
    # Eaten with the value, a closing </private> would leave the span open: the rest of the
    # note read as private (compaction found none of its decisions).
    assert redact.redact(text).endswith(kept)
