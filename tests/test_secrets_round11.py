"""Issue 28's secrets, round eleven: "the secret is …" and a secret owned before a colon ("my
secret: …"), a short key after "key" starting a clause or before a full stop, both halves of a
login under their label ("creds: admin / magic", "user/pass admin:hunter2"), AskUserQuestion's
answer to a request for a secret; and prose naming where a secret is kept left as it is ("use
1Password for the password", "the password is environment")."""

from __future__ import annotations

import pytest

from vaultmem.claude import toolblocks
from vaultmem.notes.redact import DEFAULT, Redaction, redact
from vaultmem.notes.secretanswer import in_answers

_MARK = "‹redacted:"


@pytest.mark.parametrize(("text", "secret"), [
    # "the secret is …": a plain word that is no abstract noun.
    ("the secret is opensesame", "opensesame"),
    ("The secret is abracadabra.", "abracadabra"),
    # A secret owned, before a colon or a sign.
    ("my secret: doughnut", "doughnut"),
    ("My secret: tigerlily.", "tigerlily"),
    ("our secret = buttercup", "buttercup"),
    # A short key after "key" starting a clause, or before its sentence's full stop.
    ("key zx81qq7", "zx81qq7"),
    ("Gotcha: key vr61xk9", "vr61xk9"),
    ("the key is qa19zx4.", "qa19zx4"),
    ("the key zx81qq7.", "zx81qq7"),
    ("key: tq58wm3", "tq58wm3"),
    # A label naming both halves of a login, then the user and the password.
    ("creds: admin / magic", "magic"),
    ("credentials: admin / lapwing", "lapwing"),
    ("creds: admin / magic.", "magic"),
    ("user/pass admin:hunter2", "hunter2"),
    ("user/pass admin / magic", "magic"),
    ("u/p: admin / s3cret", "s3cret"),
    ("User/Password: alice / correcthorse", "correcthorse"),
    ("user:pass admin:hunter2", "hunter2"),
    # The contraction for a secret's copula; a login word before ``user:PASS``.
    ("the secret's opensesame", "opensesame"),
    ("login admin:hunter2", "hunter2"),
    # A quoted value after a secret's flag and a space.
    ('somecli --password "correct horse"', "correct horse"),
    ("somecli --password 'magic'", "magic"),
])
def test_a_secret_said_in_a_round_eleven_shape_is_redacted(text: str, secret: str) -> None:
    out = redact(text)
    assert secret not in out
    assert _MARK in out


@pytest.mark.parametrize("text", [
    # Where a password is kept, not what it is.
    "use 1Password for the password",
    "use Bitwarden for the password",
    "use KeePassXC for the password",
    "the password is environment",
    "the password is in 1Password",
    "the password is 1Password",
    "the password is keychain",
    "the password is vault",
    "the password is dotenv",
    "the password is config",
    "the password is stored in the vault",
    "the password is stored in the keychain",
    # "the secret is …" telling how, not what.
    "the secret is consistency",
    "The secret is patience.",
    "the secret is caching",
    "the secret is practice",
    "the secret is out",
    "the secret is to keep it short",
    "Secret: Manager",
    # "key" before a word, a keyboard's key, a map's key in a sentence.
    "the key is idempotency",
    "the key is missing",
    "press key F12",
    "the key points",
    "error: key user42x not found",
    "sort key abc123",
    # A login's label with no pair after it; a path.
    "user/pass is set in the env",
    "the user/profile page",
    "creds: see 1Password / ask ops",
    "creds: admin / changeme",
    "log in as root:wheel",
    "the secret's owner",
    'somecli --token "$TOKEN"',
    'git commit -m "add --token flag"',
    'somecli --password "<password>"',
    # A wikilink's target after a secret's word is a note's path.
    ("Use Bitwarden for the password ([[claude/projects/probe/sessions/"
     "2026-11-22-use-1password-for-the-password|x]])"),
])
def test_prose_about_where_a_secret_is_kept_is_left_as_it_is(text: str) -> None:
    assert redact(text) == text


_ANSWERED = 'User has answered your questions: "{q}"="{a}". You can now continue'


@pytest.mark.parametrize(("question", "answer", "kind"), [
    ("Please paste the deploy token for staging.", "Qz7!mango", "token"),
    ("Please enter the sudo password for the build box.", "millet", "password"),
    ("What is the password?", "sunshine", "password"),
])
def test_an_answer_to_a_request_for_a_secret_is_redacted(question: str, answer: str,
                                                        kind: str) -> None:
    out = in_answers(_ANSWERED.format(q=question, a=answer))
    assert answer not in out
    assert f'"{question}"="{_MARK}{kind}›"' in out


@pytest.mark.parametrize(("question", "answer"), [
    ("Which setting should the staging box use?", "the old one"),
    ("Which database should we use?", "Postgres"),
    ("Should I reset the password?", "yes please"),
    ("Which key should I use, staging or prod?", "staging"),
])
def test_an_answer_to_any_other_question_is_kept(question: str, answer: str) -> None:
    said = _ANSWERED.format(q=question, a=answer)
    assert in_answers(said) == said


def test_the_tool_result_of_an_answer_is_kept_redacted_and_only_when_redaction_is_on() -> None:
    block = [{"type": "tool_result", "tool_use_id": "q1", "is_error": False,
              "content": _ANSWERED.format(q="Please paste the deploy token.", a="Qz7!mango")}]
    token = toolblocks.SCRUB.set(DEFAULT)
    try:
        (outcome,) = toolblocks.outcomes(block)
    finally:
        toolblocks.SCRUB.reset(token)
    assert outcome.said is not None and "Qz7!mango" not in outcome.said
    token = toolblocks.SCRUB.set(Redaction(enabled=False))
    try:
        (outcome,) = toolblocks.outcomes(block)
    finally:
        toolblocks.SCRUB.reset(token)
    assert outcome.said is not None and "Qz7!mango" in outcome.said
