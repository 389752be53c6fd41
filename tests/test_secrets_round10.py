"""Issue 28's secrets, round ten: a low-entropy value named by a secret word in prose (a noun of an
adjective's ending, a secret's own word, a phrase between the word and its link, a short key
after "the key"), an answer to Claude's request with words of thanks after it, in a prompt or
AskUserQuestion's answer; a label whose value is a word of a page kept; and the transcript
probe (bench.secretprobe) on its small set, through the real hooks."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench import secretprobe
from vaultmem.notes.redact import redact
from vaultmem.notes.secretanswer import answered

_MARK = "‹redacted:"


@pytest.mark.parametrize(("text", "secret"), [
    # A noun a password may be, of an adjective's ending (-ic, -al, -en, -ate).
    ("the password is magic", "magic"),
    ("The password is Crystal.", "Crystal"),
    ("the wifi password is golden", "golden"),
    ("the root password was chocolate, use it", "chocolate"),
    # A secret's own word, linked by a verb.
    ("my secret is opensesame", "opensesame"),
    ("our shared secret was lollipop.", "lollipop"),
    ("the secret word is noodle", "noodle"),
    # Which password, between the word and its link.
    ("the password to use is sunshine", "sunshine"),
    ("the admin password to use is biscuit.", "biscuit"),
    ("the password you need is buttercup", "buttercup"),
    ("the password I set is waffle", "waffle"),
    ("the db password should be pretzel", "pretzel"),
    # A short key after "the key" (my, your, use...).
    ("the key zx81qq7", "zx81qq7"),
    ("your key is q7w8e9rt", "q7w8e9rt"),
    ("the key zx81qq7 opens the bucket", "zx81qq7"),
    ("use key kx93ml2 for the bucket", "kx93ml2"),
    ("my secret is tigerlily", "tigerlily"),
    # The contraction for the copula, an adverb before the word, a network's key.
    ("the password's magic", "magic"),
    ("the password is just magic", "magic"),
    ("the wifi key is magic", "magic"),
    ("the secret code is magic", "magic"),
    # Which one, by a phrase: "to the db", "I gave you", "we agreed on".
    ("the password to the db is magic", "magic"),
    ("the password I gave you is magic", "magic"),
    ("the password we agreed on is magic", "magic"),
    # The word before its password's word.
    ("use magic as the password", "magic"),
    ("magic is the admin password", "magic"),
    ("use magic for the password", "magic"),
    ('git commit -m "use cucumber as the admin password"', "cucumber"),
    # A word ending its clause before a comment, a parenthesis, a dash, a new clause, a filler.
    ("password: magic  # dev only", "magic"),
    ("the password is magic (lowercase)", "magic"),
    ("the password is magic - don't share it", "magic"),
    ("the password is magic and the user is admin", "magic"),
    ("the password is magic for now", "magic"),
    ("password is magic btw", "magic"),
    # A key named by a word or a phrase.
    ("the license key is zx81qq7", "zx81qq7"),
    ("the key for staging is zx81qq7", "zx81qq7"),
    # A label's word that is a value.
    ("Password: Tangerine", "Tangerine"),
    # A word ending its clause before a closing quote (a commit's message, a quoted line).
    ('git commit -am "Set up staging: the password is velvet"', "velvet"),
    ("say 'the password is magic' now", "magic"),
    # AskUserQuestion's answer with a lead and words of thanks, raw and as its choice record.
    (('User has answered your questions: "Could you paste the admin password?"="it\'s llama8a,'
      ' go ahead". You can now continue'), "llama8a"),
    ("What is the admin password? — chose: it's sunshine, go ahead; not chosen: the old one",
     "sunshine"),
])
def test_a_secret_in_the_shape_of_round_ten_is_redacted(text: str, secret: str) -> None:
    out = redact(text)
    assert _MARK in out and secret not in out, out


@pytest.mark.parametrize("text", [
    # A label whose value is a word of a page or a form, not a secret.
    "Password: Reset",
    "Password: Reset.",
    "Password: Unlock",
    "Password: Forgot",
    "Token: Refresh",
    "Secret: Manager",
    "API Key: Required",
    "Passphrase: Optional",
    "**Password:** Reset",
    "| Password: Reset |",
    # Prose about a password: an adjective, not a value.
    "the password is static",
    "the password is generic",
    "the password is optional",
    "the password is different",
    "the password should be unique",
    "the password will be rotated",
    "the secret is simple",
    "the secret to success is patience",
    "the secret key is magic",
    "the password to use is in the vault",
    "the token you need is expired",
    # After "the key": an algorithm, a size, a version, a date, a word.
    "the key ed25519",
    "the key rsa4096",
    "the key v2-beta1",
    "the key sha256",
    "the key 2024-01-02",
    "the key is important",
    "the key zone is europe",
    # A possessive and its attribute; a pronoun, a question's word or a tool before the word.
    "the password's owner",
    "the password's format.",
    "the password's too short",
    "the password is still missing",
    "use bcrypt as the password hash",
    "use them for the password",
    "use Vault for the password",
    "use sunshine for the passwords",
    "Where is the password?",
    "this is the password",
    "Sunshine is the password manager we use",
    "the password to the db is required",
    "the password we use is hashed",
    "the bucket key is zx81qq7",
    "the key for this map is user42",
    # A participle or a predicate before a new clause, a comment, a parenthesis.
    "the password is sent in cleartext",
    "the password is kept in vault",
    "the password is then hashed",
    "the password is optional (see docs)",
    "the password is never logged - see redact.py",
    "password: str  # the user's password",
    # An adverb; a sentence going on inside its quotes.
    "the password is finally",
    "the password is generally",
    'git commit -m "the password is sunshine yellow"',
])
def test_a_word_a_label_or_an_algorithm_in_a_secrets_place_is_kept(text: str) -> None:
    assert redact(text) == text


_ASKED = "Done with the schema. What's the staging db password?"


@pytest.mark.parametrize(("prompt", "secret"), [
    ("hunter2 thanks", "hunter2"),
    ("it's hunter2, go ahead", "hunter2"),
    ("hunter2, thanks!", "hunter2"),
    ("I think it's hunter2", "hunter2"),
    ("sunshine please", "sunshine"),
    ("it should be hunter2 thx", "hunter2"),
    ("thanks, hunter2", "hunter2"),
    ("oh it's hunter2 :)", "hunter2"),
    ("its hunter2", "hunter2"),
    ("hunter2 (lowercase)", "hunter2"),
])
def test_an_answer_with_words_of_thanks_after_it_is_redacted(prompt: str, secret: str) -> None:
    out = answered(prompt, _ASKED)
    assert _MARK in out and secret not in out, out


@pytest.mark.parametrize(("asked", "prompt"), [
    (_ASKED, "yes please"),
    (_ASKED, "ok go ahead"),
    (_ASKED, "go ahead thanks"),
    (_ASKED, "ask ops first thanks"),
    (_ASKED, "purple monkey dishwasher lamp thanks"),
    ("What's the key difference between them?", "performance"),
    ("What's the key for the bucket?", "later thanks"),
])
def test_a_reply_with_words_of_thanks_is_kept(asked: str, prompt: str) -> None:
    assert answered(prompt, asked) == prompt


def test_an_answer_to_a_request_for_a_key_is_redacted() -> None:
    out = answered("zx81qq7 go ahead", "What's the key for the bucket?")
    assert out == "‹redacted:api-key› go ahead"


def test_a_question_asking_which_secret_to_use_with_no_options_asks_for_its_value() -> None:
    assert answered("sunshine thanks", "Which password should I use for the db?") == (
        "‹redacted:password› thanks")
    assert answered("staging", "Which key should I use, staging or prod?") == "staging"
    assert answered("whatever", "Which password should I use for the db?") == "whatever"


def test_the_transcript_probe_finds_no_leak_of_its_small_set(tmp_path: Path) -> None:
    """Each small-set shape in every record kind, through the real hooks and compaction: no
    value in any file of the vault, its names or the index; a colour no rule reads as a secret,
    planted beside them the same way, is found (the probe can fail)."""
    shapes = [s for s in secretprobe.SHAPES if s.name in secretprobe.SMALL]
    plain = secretprobe.Shape("plain", "the colour is {v}", tuple(
        f"zebra{n}q" for n in range(len(secretprobe.KINDS))))
    found, planted = secretprobe.probe([*shapes, plain], tmp_path)
    assert planted == sum(1 for s in [*shapes, plain] for _ in secretprobe.planted(s)) > 20
    assert [leak for leak in found if leak.shape != "plain"] == []
    assert {leak.kind for leak in found} >= {"prompt", "answer", "ai-title"}
