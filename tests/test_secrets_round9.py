"""Issue 28's secrets, round nine: a value in a flow map, an answer on the line after its question,
a password set "to" a word, a question's bare answer; and the settings, references and
placeholders a secret's name is given that are no secret (each kept byte for byte)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hook_kit import PROJECT, SID, hook_env, payload, run_cli, run_hook, snapshot

from vaultmem.claude import condensed, transcript
from vaultmem.notes.redact import DEFAULT, Redaction, redact

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
    # The same shapes in a sentence that goes on, a bold label, a spaced flow map.
    ("please set the sudo password to marmalade and retry", "marmalade"),
    ("I've set the admin password to sunshine for now", "sunshine"),
    ("**Password:**\nsunshine", "sunshine"),
    ("{ password: sunshine }", "sunshine"),
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
    "set the password to expire and rotate it",
    "set the password to something and retry",
    "Password\nReset",
    "Secret\nManager",
    "{ password: required }",
])
def test_a_name_a_setting_or_a_placeholder_is_kept(text: str) -> None:
    assert redact(text) == text


# -- the answer in the next record ---------------------------------------------------------------

@pytest.mark.parametrize(("asked", "prompt", "kept"), [
    ("I need the staging database password to connect. What is it?", "sunshine", ""),
    ("What's the sudo password?", "hunter2!", ""),
    ("Could you paste your API token?", "`rq7Xk2pLm9`", "``"),
    ("Please provide the password for the admin account.", "it's sunshine", "it's "),
    ("I need the GitHub token to continue.", "here you go: ghx7a9k2m", "here you go: "),
    ("What passphrase should I set for the key?", "purple monkey dishwasher lamp", ""),
])
def test_a_bare_value_answering_claudes_request_for_a_secret_is_redacted(
        asked: str, prompt: str, kept: str) -> None:
    out = DEFAULT.answer(prompt, lambda: asked)
    assert _MARK in out and out.replace(out[out.index(_MARK):out.index("›") + 1], "") == kept, out


@pytest.mark.parametrize(("asked", "prompt"), [
    ("What's the sudo password?", "yes"),
    ("What's the sudo password?", "skip"),
    ("What's the sudo password?", "use the one in .env"),
    ("What's the sudo password?", "~/.ssh/id_rsa"),
    ("What's the sudo password?", "/compact"),
    ("Which password, staging or prod? What is it?", "staging"),
    ("Done. Should I reset the password?", "definitely"),
    ("Do you need me to reset your password?", "definitely"),
    ("What does the token do?", "authentication"),
    ("The build passed. Want me to push?", "sunshine"),
    ("What's the sudo password?", "use the old one"),
    ("What's the sudo password?", "ask ops first"),
    ("Could you paste your API token?", "purple monkey dishwasher lamp"),
])
def test_a_reply_or_a_prompt_after_no_request_for_a_secret_is_kept(asked: str, prompt: str) -> None:
    assert DEFAULT.answer(prompt, lambda: asked) == prompt
    assert Redaction(enabled=False).answer("sunshine", lambda: "What's the password?") == "sunshine"


def _line(kind: str, uuid: str, content: Any, minute: int = 0) -> str:
    return json.dumps({
        "type": kind, "uuid": uuid, "sessionId": SID, "cwd": "/home/dev/work/shop",
        "timestamp": f"2026-11-22T10:{minute:02d}:00.000Z",
        "message": {"role": kind, "content": content}})


def _said(text: str) -> list[dict[str, str]]:
    return [{"type": "text", "text": text}]


def test_a_read_resumed_after_claudes_question_redacts_the_answer(tmp_path: Path) -> None:
    """The question in one read, the answer in the next: the read looks back at Claude's last
    prose; the transcript read whole and the condensed reader do the same."""
    path = tmp_path / "t.jsonl"
    path.write_text("\n".join([
        _line("user", "u1", "connect to the staging db"),
        _line("assistant", "a1", _said("I need the database password. What is it?")),
        _line("system", "s1", "turn ended"),
    ]) + "\n")
    first = transcript.read(path)
    with path.open("a") as handle:
        handle.write(_line("user", "u2", "marmoset") + "\n")
        handle.write(_line("assistant", "a2", _said("Connected. Should I run the report?")) + "\n")
        handle.write(_line("user", "u3", "absolutely") + "\n")
    second = transcript.read(path, start=first.end, mark=first.mark)
    assert [t.prompt for t in second.turns if t.prompt] == ["‹redacted:password›", "absolutely"]
    whole = transcript.read(path)
    assert [t.prompt for t in whole.turns if t.prompt][1:] == ["‹redacted:password›", "absolutely"]
    told = condensed.read([path], 10_000)
    assert told is not None and "marmoset" not in told and "absolutely" in told


# -- through the hooks ----------------------------------------------------------------------------

# Fake values of each round-nine shape; each must reach no file of the vault and no output.
ANSWER = "bumble" + "sprocket"  # the person's next prompt, after Claude asked for the password
TOKEN = "rq7" + "Xk2pLm9w"  # the next prompt in backticks, after Claude asked for the token
SET_TO = "marma" + "lade"
ASKED = "tange" + "rine"
FLOW = "quok" + "kapass"
NEXT_LINE = "wombat" + "quince"
ROUND_NINE = [ANSWER, TOKEN, SET_TO, ASKED, FLOW, NEXT_LINE]
KEPT = ["secret: secretRef", "PASSWORD_AUTH=disabled", '{"password": "<your password>"}']


def test_round_nine_shapes_reach_no_note_index_briefing_or_injection(tmp_path: Path) -> None:
    """A session through the real hooks, one Stop per turn as Claude Code runs them: the answer
    in the next record and the prose shapes reach no file of the vault (the index included),
    no recall, briefing or prompt injection; the near misses stay as written."""
    vault, path = tmp_path / "vault", tmp_path / "transcript.jsonl"
    vault.mkdir()
    env = hook_env(vault, VAULTMEM_PROJECT=PROJECT)
    turns = [
        ("Connect the billing report to the staging database",
         "I need the staging database password to connect. What is it?"),
        (ANSWER, "Connected to staging. Could you paste your API token for the report service?"),
        (f"`{TOKEN}`", (
            f"Done: I set the report password to {SET_TO}. The admin password? {ASKED}\n"
            f"The report config is {{DB_PASSWORD: {FLOW}}} and the vault password is:\n"
            f"{NEXT_LINE}\n"
            f"The chart keeps `secret: secretRef`, PASSWORD_AUTH=disabled and the form's"
            f' {KEPT[2]}.\nNext step: rotate the billing report token.')),
    ]
    outputs = [run_hook("session-start", payload("session-start", path), vault,
                        cwd=tmp_path).stdout.decode()]
    for n, (prompt, answer) in enumerate(turns):
        prompted = run_hook("user-prompt-submit", {
            "session_id": SID, "transcript_path": str(path), "cwd": str(tmp_path),
            "hook_event_name": "UserPromptSubmit", "prompt": prompt}, vault, cwd=tmp_path, env=env)
        assert prompted.returncode == 0
        outputs.append(prompted.stdout.decode())
        with path.open("a") as handle:
            handle.write(_line("user", f"u{n}", prompt, 2 * n) + "\n")
            handle.write(_line("assistant", f"a{n}", _said(answer), 2 * n + 1) + "\n")
        stop = run_hook("stop", payload("stop", path, last_assistant_message=answer), vault,
                        cwd=tmp_path)
        assert stop.returncode == 0 and stop.stderr == b"", stop.stderr
        outputs.append(stop.stdout.decode())
    assert run_hook("session-end", payload("session-end", path), vault, cwd=tmp_path).returncode == 0
    assert run_cli(["compact", "--force"], cwd=tmp_path, env=env).returncode == 0
    outputs += [run_cli(["recall", query, "--json"], cwd=tmp_path, env=env).stdout
                for query in ("billing report", "staging database password", "report token")]
    outputs.append(run_cli(["context"], cwd=tmp_path, env=env).stdout)
    outputs.append(run_hook("user-prompt-submit", {
        "session_id": "s2", "transcript_path": str(tmp_path / "none.jsonl"), "cwd": str(tmp_path),
        "hook_event_name": "UserPromptSubmit",
        "prompt": "rotate the billing report token on staging"}, vault, cwd=tmp_path,
        env=env).stdout.decode())

    files = snapshot(vault)
    assert (vault / ".vaultmem" / "index.sqlite").exists()
    leaks = {rel: [s for s in ROUND_NINE if s.encode() in data] for rel, data in files.items()}
    assert {rel: found for rel, found in leaks.items() if found} == {}
    assert [s for s in ROUND_NINE for out in outputs if s in out] == []
    notes = "\n".join(data.decode("utf-8", "replace") for rel, data in files.items()
                      if rel.endswith(".md"))
    assert "‹redacted:password›" in notes and "‹redacted:token›" in notes
    assert [kept for kept in KEPT if kept not in notes] == []
