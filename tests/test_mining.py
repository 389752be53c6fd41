"""mining.answers: the tricky cases one by one; the corpus-wide targets are in test_mining_corpus."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st
from property_kit import examples

from bench.eval_mining import load
from vaultmem.mining import answers as mining
from vaultmem.mining import cues as miningcues
from vaultmem.mining import kinds as miningkinds
from vaultmem.mining.answers import Mined, mine
from vaultmem.mining.text import TEXT_MAX_CHARS


def kinds(text: str) -> list[str]:
    return [item.kind for item in mine(text)]


def test_a_decision_with_its_reason_is_one_item_as_written() -> None:
    text = "I went with argon2id over bcrypt because bcrypt truncates passwords at 72 bytes."
    assert mine(text) == (Mined("decision", text),)


def test_each_kind_from_plain_prose() -> None:
    message = (
        "The root cause was that the webhook handler parsed the JSON body before verifying the "
        "signature. The tests need `REDIS_URL` set. Next, we should add the refund endpoint.\n\n"
        "Should CI run against a real Postgres?"
    )
    assert kinds(message) == ["gotcha", "prerequisite", "next-step", "question"]


def test_hedges_hypotheticals_and_questions_are_not_decisions() -> None:
    for text in (
        "Maybe we could switch the session store to Redis.",
        "If we chose bcrypt, we would have to pre-hash long passwords.",
        "We might go with Postgres later because of the JSON support.",
        "Consider using argon2id instead of bcrypt.",
        "Should we go with argon2id over bcrypt here, since it is memory-hard? Also, the tests pass.",
    ):
        assert "decision" not in kinds(text), text


def test_tool_narration_is_not_knowledge() -> None:
    for text in (
        "Let me run the tests to find the root cause.",
        "I'll read the file first.",
        "Now let me check whether `REDIS_URL` needs to be set.",
    ):
        assert mine(text) == (), text


def test_code_blocks_inline_code_tables_and_echoes_are_skipped() -> None:
    message = (
        "```python\n# I chose this because the root cause was X\nx = 1\n```\n"
        "| choice | reason |\n|---|---|\n| I went with X over Y because | z |\n"
        "$ pytest -q\nFAILED tests/test_a.py::test_b - the root cause was a typo\n"
        "The comment reads `TODO: we decided to use X because Y`."
    )
    assert mine(message) == ()


def test_quoted_text_is_not_a_decision() -> None:
    assert kinds('The old README says "we decided to use bcrypt because it is standard".') == []


def test_abbreviations_versions_and_file_names_do_not_split_sentences() -> None:
    text = (
        "I chose Python 3.11 over 3.9, e.g. for `tomllib`, because tokens.py needs it. "
        "The tests pass."
    )
    assert mine(text) == (
        Mined(
            "decision",
            "I chose Python 3.11 over 3.9, e.g. for `tomllib`, because tokens.py needs it.",
        ),
    )


def test_emphasis_is_removed_and_code_spans_are_kept() -> None:
    (item,) = mine("**Decision:** keep `__init__.py` exports __explicit and small__ for speed.")
    assert item == Mined("decision", "Keep `__init__.py` exports explicit and small for speed.")


def test_labelled_notes_keep_working_label_removed() -> None:
    assert mine("Decision: use X because Y. Gotcha: Z happens when the cache is cold.") == (
        Mined("decision", "Use X because Y."),
        Mined("gotcha", "Z happens when the cache is cold."),
    )
    assert mine("- **Gotcha**: the fixture leaks a socket") == (
        Mined("gotcha", "The fixture leaks a socket"),
    )


def test_a_list_under_a_kind_heading_takes_that_kind() -> None:
    message = (
        "Done. Here is what changed:\n\n- Added `refund()` in billing.py\n- Fixed the webhook\n\n"
        "**Next steps:**\n- Add the refund endpoint\n- Write integration tests\n\n"
        "## Open questions\n1. Postgres or SQLite in CI\n"
    )
    assert mine(message) == (
        Mined("next-step", "Add the refund endpoint"),
        Mined("next-step", "Write integration tests"),
        Mined("question", "Postgres or SQLite in CI"),
    )


def test_only_the_question_left_to_the_user_counts() -> None:
    message = (
        "Why did the test fail at all? Because the fixture reused a closed connection.\n\n"
        "Should the old bcrypt hashes be migrated too?"
    )
    assert kinds(message) == ["question"]
    assert mine(message)[0].text == "Should the old bcrypt hashes be migrated too?"


OFFERS = (
    "What would you like to do?", "What would you like me to do next?",
    "Want me to add a regression test for the parser?", "Shall I update the README with the flags?",
    "Should I go ahead and open a PR for the refund endpoint?",
    "Let me know if you want me to add the Windows path handling too?",
    "Would you like me to also migrate the old bcrypt hashes?",
    "Do you want me to also migrate the old bcrypt hashes?", "How would you like to proceed?",
    "Which would you like me to tackle first: the parser or the cache?",
    "Should I also fix the flaky test in test_cache.py?", "Shall we move on to the billing module?",
    "Should we proceed with the migration?", "Is there anything you'd like me to change in the wording?",
    "Would you like to review the diff before I push?", "Can I go ahead and delete the old cache?",
    "Does that sound good?", "What's next on your list?", "What would you like to work on today?",
    "What specifically are you looking to update?",
    "Let me know which improvements you'd like to tackle first, and I'll implement them!",
)
OPEN = (
    "Why does the cache miss on cold start?", "Is the API rate limit per key or per account?",
    "Should refunds go through the same queue as charges?",
    "Should I key the cache by user or by tenant?", "Do you want refunds to be partial or full only?",
)


def test_offers_and_what_to_do_next_are_not_open_questions() -> None:
    """Claude's closing offers ask for a yes, a no or the next prompt: no knowledge of the work,
    also under an open-questions heading; a real question about the work stays."""
    for offer in OFFERS:
        assert mine(f"Tests pass.\n\n{offer}") == (), offer
        assert mine(f"Tests pass.\n\n## Open questions\n- {offer}") == (), offer
    assert mine("Done.\n\nLet me know whether you want me to push it.") == ()
    for question in OPEN[1:]:
        assert kinds(f"Tests pass.\n\n{question}") == ["question"], question
    listed = "Tests pass.\n\n## Open questions\n" + "".join(f"- {q}\n" for q in OPEN)
    assert [m.text for m in mine(listed)] == list(OPEN)
    assert kinds("Tests pass.\n\nOpen question: why does the cache miss on cold start?") == [
        "question"]


def test_a_bare_choice_question_is_no_open_question() -> None:
    """A question asking only to pick among the options above it names none of them: no open
    question, also under an open-questions heading; one that names what to choose stays."""
    options = ("Two ways to do it:\n\n1. Cache the token in Redis.\n2. Keep it in the session "
               "cookie.\n\n")
    for bare in ("Which option do you prefer?", "Which approach sounds better for you?",
                 "Which would you prefer?", "Let me know which path you want to take!"):
        assert "question" not in kinds(options + bare), bare
        assert "question" not in kinds(f"Tests pass.\n\n## Open questions\n- {bare}"), bare
    named = "Which store should hold the refresh token, Redis or the cookie?"
    assert kinds(options + named) == ["question"]
    assert miningcues.bare_choice("Which option do you prefer?")
    assert not miningcues.bare_choice("Which port does the server use?")


def test_a_lead_in_keeps_the_one_line_command_its_code_block_brings() -> None:
    text = ("Done. To finish:\n\n**Step 2: Install the new pre-commit hook**\n```bash\n"
            "python3 scripts/hooks/install.py\n```\n\n"
            "Before running the tests you need Redis:\n```bash\ndocker run -d redis\n```\n\n"
            "The tests need this config:\n```toml\n[redis]\nurl = 'redis://x'\n```\n")
    texts = [m.text for m in mine(text)]
    assert "Step 2: Install the new pre-commit hook `python3 scripts/hooks/install.py`" in texts
    assert "Before running the tests you need Redis: `docker run -d redis`" in texts
    # A block of several lines says more than a line: the lead-in alone, as before.
    assert not any("redis://" in t for t in texts)


def test_long_text_is_trimmed_to_one_line() -> None:
    text = "I went with argon2id because " + "it is memory-hard and " * 40 + "safe."
    (item,) = mine(text)
    assert len(item.text) <= TEXT_MAX_CHARS and item.text.endswith("…")


@settings(max_examples=examples(300), deadline=None)
@given(st.text(alphabet=st.characters(codec="utf-8"), max_size=600))
def test_never_raises_and_gives_one_line_texts(text: str) -> None:
    for item in mine(text):
        assert "\n" not in item.text and "\r" not in item.text
        assert item.text.strip() and len(item.text) <= TEXT_MAX_CHARS


@settings(max_examples=examples(200), deadline=None)
@given(
    st.lists(
        st.sampled_from(
            [
                "I chose ",
                "the root cause was ",
                "`code` ",
                "```\n",
                "- ",
                "## Next steps\n",
                "\n",
                "Decision: ",
                "REDIS_URL ",
                "must be set. ",
                "? ",
                '"quoted" ',
                "e.g. ",
                "**",
                "> ",
                "| ",
                "\ue000",
            ]
        ),
        max_size=30,
    )
)
def test_never_raises_on_markdown_shaped_junk(parts: list[str]) -> None:
    for item in mine("".join(parts)):
        assert "\n" not in item.text and len(item.text) <= TEXT_MAX_CHARS


def test_a_hedge_in_the_reason_does_not_hide_the_decision() -> None:
    text = "I chose an additive migration because rewriting the table would lock it for minutes."
    assert kinds(text) == ["decision"]
    assert kinds("The root cause might be a race between the two workers.") == []
    assert kinds("It crashed, which means it might be due to a stale build.") == []


def test_contrast_with_a_first_person_act_is_a_decision_but_not_a_description() -> None:
    assert kinds("I made `Money` a value type rather than passing floats around.") == ["decision"]
    assert kinds("Every request now hits Redis once instead of Postgres twice.") == []
    assert kinds("Instead of guessing, I'll check the logs first.") == []


def test_status_lines_without_substance_are_not_gotchas() -> None:
    for text in (
        "The problem is clear now.",
        "The fix is already in place.",
        "Root cause found and fixed.",
    ):
        assert mine(text) == (), text
    assert kinds("The issue is that BSD sed doesn't understand `\\s` in patterns.") == ["gotcha"]


def test_a_question_claude_asks_itself_is_not_left_to_the_user() -> None:
    assert mine("I checked the worker logs.\n\nIs the worker even picking up the job?") == ()
    assert kinds("Tests pass.\n\nShould refunds go through the same queue as charges?") == [
        "question"
    ]
    assert mine("Want me to commit this?") == ()


def test_environment_variables_by_name_or_context_but_not_constants() -> None:
    assert kinds("For the seed script you must set `PGPASSWORD` first.") == ["prerequisite"]
    assert kinds("`ENABLE_FAST_PATH` is a compile-time constant and must be a power of two.") == []
    assert kinds("I set `REDIS_URL` in the fixture, so you no longer need to export it.") == []


def test_a_rule_for_how_config_is_written_is_a_gotcha_not_a_prerequisite() -> None:
    # Found in an error: the form the setting must take, nothing to set up before working.
    text = ("The proxy's start script loops over `upstream` entries, so `upstream` needs to be "
            "configured as a list in the router config, not a single option.")
    assert kinds(text) == ["gotcha"]
    assert kinds("The `hosts` key must be written as an array of tables, not a string.") == [
        "gotcha"
    ]
    # Still prerequisites: what must be installed, running or set before working.
    assert kinds("The worker needs the Redis server running.") == ["prerequisite"]
    assert kinds("The tests need `REDIS_URL` set.") == ["prerequisite"]


def test_next_steps_and_narration_of_the_next_action() -> None:
    assert kinds("Next, we should add the refund endpoint.") == ["next-step"]
    assert kinds("Password reset emails aren't wired up yet.") == ["next-step"]
    for text in (
        "Next, let me run the migrations.",
        "Next time the scheduler runs, it picks up the new interval.",
        "While the migrations run, let me work on the remaining endpoints.",
        "There's no remaining work on the auth side.",
    ):
        assert mine(text) == (), text


def _gated_cues() -> list[tuple[str, miningkinds.Cue]]:
    return [
        (name, value)
        for module in (mining, miningkinds)
        for name, value in vars(module).items()
        if isinstance(value, miningkinds.Cue) and value.gate
    ]


def _vocabulary() -> list[str]:
    words: set[str] = set()
    for _, cue in _gated_cues():
        words.update(w for w in re.split(r"[^a-z'-]+", cue.pattern.pattern.lower()) if len(w) > 1)
    return sorted(words)


def test_cue_gates_are_sound_on_the_corpus() -> None:
    texts = [case.text for case in load()]
    sentences = [s for text in texts for s in re.split(r"(?<=[.!?:])\s+|\n", text)]
    for name, cue in _gated_cues():
        for sentence in sentences:
            if cue.pattern.search(sentence):
                assert cue.search(sentence), (name, sentence)


@settings(max_examples=examples(400), deadline=None)
@given(st.lists(st.sampled_from(_vocabulary()), min_size=1, max_size=12), st.booleans())
def test_cue_gates_are_sound_on_cue_words(words: list[str], capital: bool) -> None:
    sentence = " ".join(words)
    sentence = sentence.capitalize() if capital else sentence
    for name, cue in _gated_cues():
        if cue.pattern.search(sentence):
            assert cue.search(sentence), (name, sentence)


def test_a_label_removed_leaves_a_capital_unless_the_text_starts_with_code() -> None:
    assert mine("Decision: use RS256 because keys rotate.") == (
        Mined("decision", "Use RS256 because keys rotate."),
    )
    assert mine("Gotcha: npm_config_cache must be writable.") == (
        Mined("gotcha", "npm_config_cache must be writable."),
    )
    assert mine("Decision: `uv` over pip for installs.") == (
        Mined("decision", "`uv` over pip for installs."),
    )


def test_a_count_of_what_was_lost_is_a_measurement_not_a_gotcha() -> None:
    # A report's figures ("Total dropped: 12 …") say how much, not why; a loss with its cause
    # after the colon stays a gotcha.
    report = ("**Analysis:**\n- Total dropped: 12 frames out of ~90,000 = **0.01% loss** ✅\n"
              "- Requests lost: <3 per hour over the whole week, all of them retried\n")
    assert kinds(report) == []
    cause = "The importer skipped rows: the CSV reader stopped at the first quoted newline."
    assert mine(cause) == (Mined("gotcha", cause),)


def test_a_tools_limitation_stated_as_fact_is_a_gotcha() -> None:
    for text in (
        "`.envrc` doesn't support glob patterns like `.gitignore` does.",
        "The YAML loader does not expand environment variables in values.",
        "Rsync cannot resolve `~` inside a quoted remote path.",
    ):
        assert kinds(text) == ["gotcha"], text
    for text in (
        "It doesn't support glob patterns.",  # read alone it names nothing
        "I don't handle that case.",
        "You can't use globs there.",
        "Maybe the loader doesn't expand variables.",
        "Does the loader support includes?",
        "The importer doesn't handle symlinks yet.",  # a step left, not a limitation
        "Let me check why the parser doesn't accept tabs.",
    ):
        assert "gotcha" not in kinds(text), text


def test_a_wrong_use_found_is_a_gotcha_even_in_the_first_person() -> None:
    assert kinds("Found it. I was calling `http.get` instead of `session.get` in the retry loop.") \
        == ["gotcha"]
    assert kinds("The date parser was wrongly treating `01/02` as February 1st.") == ["gotcha"]
    assert kinds("Turning on `strict_slashes` made every webhook request fail.") == ["gotcha"]
    for text in (
        "We were using MySQL instead of SQLite for the fixtures.",  # a past choice, or not
        "This makes the build fail.",
        "Hmm, maybe I was using the wrong client instead of the pooled one.",
        "I'll use `session.get` instead of `http.get`.",
    ):
        assert "gotcha" not in kinds(text), text


def test_an_issue_where_something_breaks_is_a_gotcha() -> None:
    for text in (
        ("Unfortunately, I'm hitting an issue where enabling `metrics` in the proxy makes "
        "requests hang."),
        "We ran into a known bug where the watcher misses renames on network drives.",
    ):
        assert kinds(text) == ["gotcha"], text
    for text in (
        "There might be an issue where the cache keeps stale tokens.",
        "Let me look for an issue where the cache keeps stale tokens.",
        "Is there an issue where the cache keeps stale tokens?",
        "An issue where.",
    ):
        assert "gotcha" not in kinds(text), text


def test_a_learning_style_request_is_the_persons_next_step_as_its_task_says() -> None:
    # The Learning output style ends a turn on a "Learn by Doing" box and waits for the person:
    # its task (a file, a function, the TODO(human) marker) is what comes next, not its context.
    text = (
        "● **Learn by Doing**\n"
        "**Context:** The signup form needs a validation rule.\n"
        "**Your Task:** In `src/validate.ts`, implement `validateEmail()` at the TODO(human)"
        " marker.\n"
        "**Guidance:** Consider plus-addressing."
    )
    steps = [m.text for m in mine(text) if m.kind == "next-step"]
    assert steps and steps[0].startswith("In `src/validate.ts`, implement `validateEmail()`")
