"""Claude Code transcripts -> turns: the real 2.1 transcript replayed, and every kind of bad input."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from property_kit import examples

from vaultmem.claude import toolblocks, transcript, transcriptfile
from vaultmem.claude.toolblocks import FileChange, Outcome, ToolCall
from vaultmem.claude.transcript import Turn
from vaultmem.mining.answers import mine

CLAUDE_FIXTURES = Path(__file__).parent / "fixtures" / "claude-code"
FIXTURE = CLAUDE_FIXTURES / "transcript.jsonl"


def user(uuid: str, content: Any, **extra: Any) -> str:
    """A user transcript line."""
    line = {
        "type": "user",
        "uuid": uuid,
        "timestamp": "2026-11-22T06:00:00.000Z",
        "message": {"role": "user", "content": content},
    }
    line.update(extra)
    return json.dumps(line)


def assistant(uuid: str, blocks: list[dict[str, Any]], **extra: Any) -> str:
    """An assistant transcript line."""
    line = {
        "type": "assistant",
        "uuid": uuid,
        "timestamp": "2026-11-22T06:00:01.000Z",
        "message": {"role": "assistant", "content": blocks},
    }
    line.update(extra)
    return json.dumps(line)


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


def tool(name: str, **tool_input: Any) -> dict[str, Any]:
    return {"type": "tool_use", "id": "toolu_1", "name": name, "input": tool_input}


def everything(parsed: transcript.Transcript) -> str:
    """Every string the parse produced, for leak checks."""
    return repr(parsed)


# --- the real Claude Code 2.1 transcript ---------------------------------------------------------


def test_real_transcript_replays_to_exact_turns() -> None:
    parsed = transcript.read(FIXTURE)

    final = (
        "Done. Decision: use RS256-signed JWTs because keys can rotate without redeploying. "
        "Gotcha: fixed bug where the token clock skew broke login; resolved by allowing 30s leeway."
    )
    assert parsed.turns == (
        Turn(
            uuid="5231c4c3-b8dd-4392-93ab-2c21547b72b3",
            timestamp="2026-11-22T06:03:38.762Z",
            prompt="Add a login module and run the tests",
        ),
        Turn("b8c109cc-1b2d-4e04-b183-80d9d1c2d502", "2026-11-22T06:03:38.827Z", None,
             text="I'll create the auth module."),
        Turn(
            uuid="9ce55353-b9fe-4d4e-b2f0-f2c363d1780f",
            timestamp="2026-11-22T06:03:38.832Z",
            prompt=None,
            calls=(ToolCall("toolu_0001", "Write", path="/home/dev/work/shop/src/auth.py"),),
        ),
        Turn("4b4ee970-2d3a-4c03-bda4-a6712a187afb", "2026-11-22T06:03:38.886Z", None,
             outcomes=(Outcome("toolu_0001", False),)),
        Turn(
            uuid="f070c3e8-3e3f-4161-8ae1-882c9055af45",
            timestamp="2026-11-22T06:03:38.925Z",
            prompt=None,
            calls=(ToolCall("toolu_0002", "Bash", command="echo tests pass"),),
        ),
        Turn("45f406fb-d888-4291-b3d4-871249c646bd", "2026-11-22T06:03:39.004Z", None,
             outcomes=(Outcome("toolu_0002", False),)),
        Turn("99fe197e-6a24-4726-9401-b85ae9605c53", "2026-11-22T06:03:39.038Z", None,
             text=final),
    )
    assert parsed.turns[2].files == (FileChange("/home/dev/work/shop/src/auth.py", "Write"),)
    assert parsed.turns[4].commands == ("echo tests pass",)
    assert parsed.first_prompt == "Add a login module and run the tests"
    assert parsed.skipped_lines == 0
    assert parsed.boundaries == 0


def test_real_transcript_private_text_appears_nowhere() -> None:
    parsed = transcript.read(FIXTURE)

    assert "hunter2" in FIXTURE.read_text(encoding="utf-8")  # the fixture does carry the secret
    assert "hunter2" not in everything(parsed)
    assert "password" not in everything(parsed)


def test_real_transcript_slash_command_and_meta_lines_give_no_turn() -> None:
    parsed = transcript.read(FIXTURE)
    uuids = {turn.uuid for turn in parsed.turns}

    assert "7077e143-d0f1-4a10-92b6-e98ddbc461aa" not in uuids  # isMeta caveat
    assert "65612c8e-38bf-43a4-b6bd-7a710145524a" not in uuids  # <command-name>/compact only
    assert "compact" not in everything(parsed).lower().replace("compact_boundary", "")


def test_stop_payload_last_assistant_message_has_one_decision_and_one_gotcha() -> None:
    payload = json.loads((CLAUDE_FIXTURES / "hook-Stop.json").read_text(encoding="utf-8"))

    # The transcript without its final line: the payload's message is the turn's answer.
    head = transcript.read(FIXTURE).turns[:-1]
    turns, _ = transcript.with_last_message(head, payload["last_assistant_message"], frozenset())
    assert turns[:-1] == head
    mined = mine(turns[-1].text or "")
    assert [(m.kind, m.text) for m in mined] == [
        ("decision", "Use RS256-signed JWTs because keys can rotate without redeploying."),
        ("gotcha",
         "Fixed bug where the token clock skew broke login; resolved by allowing 30s leeway."),
    ]


# --- tolerance -----------------------------------------------------------------------------------


def test_partial_last_line_is_skipped_and_read_once_complete(tmp_path: Path) -> None:
    complete = FIXTURE.read_bytes()
    last = assistant("u-last", [tool("Bash", command="make test")])
    path = tmp_path / "t.jsonl"
    path.write_bytes(complete + last.encode()[: len(last) // 2])

    partial = transcript.read(path)
    assert partial.skipped_lines == 1
    assert len(partial.turns) == 7

    path.write_bytes(complete + last.encode() + b"\n")
    done = transcript.read(path, skip_uuids={t.uuid for t in partial.turns})
    assert [t.commands for t in done.turns] == [("make test",)]
    assert done.skipped_lines == 0


def test_junk_lines_are_counted_and_the_rest_is_read() -> None:
    lines = [
        "not json at all",
        '{"type": "user", ',
        "[1, 2, 3]",
        "42",
        "null",
        "",
        "   ",
        json.dumps({"type": "user", "uuid": "u1", "message": "a string, not a mapping"}),
        json.dumps({"type": "assistant", "uuid": "u2", "message": {"content": 7}}),
        json.dumps({"type": "assistant", "uuid": "u3", "message": {"content": [1, None, "x"]}}),
        json.dumps(
            {
                "type": "assistant",
                "uuid": "u4",
                "message": {"content": [{"type": "tool_use", "name": "Write", "input": "x"}]},
            }
        ),
        json.dumps(
            {
                "type": "assistant",
                "uuid": "u5",
                "message": {
                    "content": [{"type": "tool_use", "name": "Edit", "input": {"file_path": 3}}]
                },
            }
        ),
        "[" * 100_000,  # deep nesting: json raises RecursionError
        user("u6", "still works"),
    ]

    parsed = transcript.parse_lines(lines)

    assert parsed.skipped_lines == 6
    assert [t.prompt for t in parsed.turns] == ["still works"]


def test_a_line_a_redaction_tool_edited_is_read_for_what_it_holds(tmp_path: Path) -> None:
    # Shared transcripts are often scrubbed by a tool first: one that cuts a record's tail off
    # at a secret (its closing quotes and braces too), or writes a lone backslash.
    fine = assistant("a1", [{"type": "text", "text": "Pinned tokio to 1.38: 1.39 broke the build."}])
    cut = fine[: fine.index("1.39")] + "[REDACTED_VERSION]"
    stray = assistant("a2", [{"type": "text", "text": "Logs are in C:/Users/me/app.log"}])
    stray = stray.replace("C:/Users/me", "C:\\[USER]")
    path = tmp_path / "t.jsonl"
    path.write_bytes((user("u1", "why does the build fail?") + "\n" + cut + "\n" + stray
                      + "\n").encode())
    with pytest.raises(ValueError):
        json.loads(cut)
    with pytest.raises(ValueError):
        json.loads(stray)

    parsed = transcript.read(path)

    assert parsed.skipped_lines == 0
    said = " ".join(t.text or "" for t in parsed.turns)
    assert "Pinned tokio to 1.38: [REDACTED_VERSION]" in said
    assert "Logs are in C:\\[USER]/app.log" in said
    # A line Claude Code is still writing (no newline yet) is not guessed at: read once whole.
    half = user("u9", "second prompt")
    path.write_bytes(path.read_bytes() + half[: len(half) // 2].encode())
    assert transcript.read(path).skipped_lines == 1


def test_binary_garbage_and_non_utf8_bytes(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    good = user("u1", "caf\u00e9 ok").encode()
    latin1 = json.dumps({"type": "user", "uuid": "u2", "message": {"content": "x"}}).encode()
    latin1 = latin1.replace(b'"x"', b'"na\xefve"')  # a latin-1 byte inside a JSON string
    path.write_bytes(b"\x00\xff\xfe\x89PNG\r\n\x1a\n" + good + b"\n" + latin1 + b"\n\xc3\x28\n")

    parsed = transcript.read(path)

    assert [t.prompt for t in parsed.turns] == ["caf\u00e9 ok", "na\ufffdve"]
    assert parsed.skipped_lines == 3  # "\x00…PNG\r\n", "\x1a\n" and "\xc3\x28"


def test_missing_file_is_an_empty_transcript(tmp_path: Path) -> None:
    parsed = transcript.read(tmp_path / "nope.jsonl")
    assert parsed == transcript.Transcript((), None, 0, 0)


def test_a_directory_is_an_empty_transcript(tmp_path: Path) -> None:
    assert transcript.read(tmp_path).turns == ()


# --- content shapes ------------------------------------------------------------------------------


def test_string_and_block_content_give_the_same_prompt() -> None:
    parsed = transcript.parse_lines(
        [
            user("u1", "fix   the\nlogin"),
            user("u2", [text("fix the"), {"type": "image", "source": {}}, text("login")],
                 timestamp="2026-11-22T06:00:02.000Z"),
            user("u3", [{"type": "tool_result", "tool_use_id": "t", "content": "fix the login"}]),
        ]
    )

    assert [(t.uuid, t.prompt) for t in parsed.turns if t.prompt] == [
        ("u1", "fix the login"),
        ("u2", "fix the login"),
    ]
    assert parsed.turns[2].outcomes == (Outcome("t", False),)  # a tool result, not a prompt


def test_is_meta_and_sidechain_lines_are_noise() -> None:
    parsed = transcript.parse_lines(
        [
            user("u1", "caveat text", isMeta=True),
            user("u2", "sub-agent prompt", isSidechain=True),
            assistant("u3", [tool("Write", file_path="/x.py")], isSidechain=True),
            user("u4", "real prompt", isMeta=False, isSidechain=False),
        ]
    )

    assert [t.uuid for t in parsed.turns] == ["u4"]
    assert parsed.first_prompt == "real prompt"


def test_system_tags_and_private_text_are_removed_from_prompts() -> None:
    prompt = (
        "<system-reminder>\nYou are in plan mode.\n</system-reminder>"
        "Refactor auth <PRIVATE>token=abc\nsecret</Private> please"
        "<command-name>/x</command-name><local-command-stdout>out</local-command-stdout>"
    )
    parsed = transcript.parse_lines(
        [user("u1", prompt), user("u2", "<private>only secret</private>")]
    )

    assert [t.prompt for t in parsed.turns] == ["Refactor auth please"]
    assert "abc" not in everything(parsed) and "plan mode" not in everything(parsed)


def test_private_span_split_across_blocks_is_removed() -> None:
    parsed = transcript.parse_lines(
        [
            user("u1", [text("keep <private>hide"), text("also hide</private> this")]),
        ]
    )
    assert parsed.turns[0].prompt == "keep this"


def test_strip_private() -> None:
    assert transcript.strip_private("a <private>b</private> c") == "a  c"
    assert transcript.strip_private("a <Private>\nb\n</PRIVATE> c") == "a  c"
    assert transcript.strip_private("a <private>b\nc\nd") == "a "
    assert transcript.strip_private("a </private> b") == "a  b"
    assert transcript.strip_private("x <private>1</private> y <private>2</private> z") == "x  y  z"
    assert transcript.strip_private("no tags") == "no tags"


def test_file_tools_and_bash_commands() -> None:
    long = "pytest " + "-k x " * 100
    parsed = transcript.parse_lines(
        [
            assistant(
                "u1",
                [
                    tool("Write", file_path="/a.py", content="x"),
                    tool("Edit", file_path="/b.py", old_string="a", new_string="b"),
                    tool("MultiEdit", file_path="/c.py", edits=[]),
                    tool("NotebookEdit", notebook_path="/d.ipynb", new_source=""),
                    tool("Read", file_path="/e.py"),
                    tool("Bash", command="cd /repo &&\n  make test", description="run"),
                    tool("Bash", command=long),
                    tool("Bash", command="export TOKEN=<private>s3cret</private>"),
                    tool("Bash", command="   "),
                ],
            ),
        ]
    )

    (turn,) = parsed.turns
    assert turn.files == (
        FileChange("/a.py", "Write"),
        FileChange("/b.py", "Edit"),
        FileChange("/c.py", "MultiEdit"),
        FileChange("/d.ipynb", "NotebookEdit"),
    )
    assert turn.commands[0] == "cd /repo && …"
    assert (
        turn.commands[1].endswith(" …")
        and len(turn.commands[1]) <= toolblocks.COMMAND_MAX_CHARS + 2
    )
    assert turn.commands[2] == "export TOKEN="
    assert len(turn.commands) == 3


def test_assistant_prose_is_kept_whole_without_private_text() -> None:
    message = (
        "Here is the plan.\n\n"
        "- **Decision:** keep SQLite because the index is local.\n"
        "Decision: <private>internal codename</private> ship it.\n"
    )
    parsed = transcript.parse_lines([assistant("u1", [text(message), text("Second block.")])])
    (turn,) = parsed.turns
    assert turn.text == (
        "Here is the plan.\n\n- **Decision:** keep SQLite because the index is local.\n"
        "Decision:  ship it.\n\n\nSecond block."
    )


def test_assistant_line_with_plain_text_only_gives_its_prose_and_blank_gives_none() -> None:
    parsed = transcript.parse_lines([
        assistant("u1", [text("All done, nothing to note.")]),
        assistant("u2", [text("   \n"), text("<private>all of it</private>")]),
    ])
    assert [(t.uuid, t.text) for t in parsed.turns] == [("u1", "All done, nothing to note.")]


# --- dedup, skip, boundaries ---------------------------------------------------------------------


def test_same_uuid_twice_yields_one_turn() -> None:
    line = user("u1", "hello")
    parsed = transcript.parse_lines([line, line, user("u1", "changed text, same uuid")])
    assert [(t.uuid, t.prompt) for t in parsed.turns] == [("u1", "hello")]


def test_lines_without_uuid_dedup_by_content() -> None:
    line = json.dumps({"type": "user", "message": {"content": "no id"}})
    parsed = transcript.parse_lines([line, line])
    assert len(parsed.turns) == 1
    assert parsed.turns[0].uuid.startswith("sha256:")
    again = transcript.parse_lines([line], skip_uuids={parsed.turns[0].uuid})
    assert again.turns == ()


def test_skip_uuids_leaves_only_new_turns_but_keeps_first_prompt() -> None:
    first = transcript.read(FIXTURE)
    skip = {t.uuid for t in first.turns[:2]}

    rest = transcript.read(FIXTURE, skip_uuids=skip)

    assert [t.uuid for t in rest.turns] == [t.uuid for t in first.turns[2:]]
    assert rest.first_prompt == "Add a login module and run the tests"


def test_compaction_boundary_is_counted_and_turns_continue() -> None:
    boundary = json.dumps(
        {
            "type": "system",
            "subtype": "compact_boundary",
            "uuid": "b1",
            "content": "Conversation compacted",
            "compactMetadata": {"trigger": "manual", "preTokens": 9},
        }
    )
    summary = user(
        "u2",
        "This session is being continued from a previous conversation.",
        isCompactSummary=True,
        isMeta=True,
    )
    parsed = transcript.parse_lines([user("u1", "before"), boundary, summary, user("u3", "after")])

    assert parsed.boundaries == 1
    # The summary (flagged, even isMeta as older versions wrote it) is no prompt.
    assert [(t.prompt, t.summary) for t in parsed.turns] == [
        ("before", None),
        (None, "This session is being continued from a previous conversation."),
        ("after", None),
    ]


def test_line_types_that_say_nothing_are_skipped_and_only_unknown_ones_counted() -> None:
    lines = [
        json.dumps({"type": "summary", "summary": "Decision: not from here", "leafUuid": "x"}),
        json.dumps({"type": "attachment", "uuid": "a1", "attachment": {"type": "x"}}),
        json.dumps({"type": "queue-operation", "content": "Decision: no"}),
        json.dumps({"type": "last-prompt", "lastPrompt": "p"}),
        json.dumps({"type": "mode", "mode": "normal"}),
        json.dumps({"no": "type"}),
    ]
    parsed = transcript.parse_lines(lines)
    # A line without a type is of no kind vaultmem knows: counted (test_records.py has them all).
    assert parsed.turns == () and [kind for kind, _ in parsed.unknown] == ["(no type)"]


def test_huge_file_streams(tmp_path: Path) -> None:
    path = tmp_path / "big.jsonl"
    big_result = "x" * 200_000
    with path.open("w", encoding="utf-8") as handle:
        for index in range(100):
            handle.write(user(f"u{index}", [{"type": "tool_result", "content": big_result}]) + "\n")
        handle.write(user("last", "the end") + "\n")

    parsed = transcript.read(path)

    assert [t.prompt for t in parsed.turns] == ["the end"]


# --- never raises --------------------------------------------------------------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=30),
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(
            st.sampled_from(
                [
                    "type",
                    "text",
                    "name",
                    "input",
                    "content",
                    "message",
                    "uuid",
                    "isMeta",
                    "isSidechain",
                    "file_path",
                    "command",
                    "subtype",
                    "notebook_path",
                    "timestamp",
                ]
            )
            | st.text(max_size=8),
            children,
            max_size=6,
        )
    ),
    max_leaves=12,
)
shaped = st.fixed_dictionaries(
    {
        "type": st.sampled_from(["user", "assistant", "system", "summary", "attachment"]),
        "message": st.fixed_dictionaries(
            {
                "content": json_values
                | st.lists(
                    st.fixed_dictionaries(
                        {
                            "type": st.sampled_from(["text", "tool_use", "tool_result"]),
                            "text": json_values,
                            "name": st.sampled_from(
                                ["Write", "Edit", "Bash", "NotebookEdit", "Other"]
                            ),
                            "input": json_values,
                        }
                    ),
                    max_size=3,
                )
            }
        ),
    },
    optional={
        "uuid": json_values,
        "isMeta": json_values,
        "timestamp": json_values,
        "subtype": st.sampled_from(["compact_boundary", "x"]),
    },
)
lines_strategy = st.lists(
    st.text(max_size=80)
    | st.binary(max_size=80)
    | json_values.map(json.dumps)
    | shaped.map(json.dumps),
    max_size=8,
)


@settings(max_examples=examples(150), deadline=None)
@given(lines_strategy)
def test_parse_lines_never_raises(lines: list[str | bytes]) -> None:
    parsed = transcript.parse_lines(lines)

    assert parsed.skipped_lines <= len(lines)
    assert len({t.uuid for t in parsed.turns}) == len(parsed.turns)
    for turn in parsed.turns:
        assert turn.prompt is None or turn.prompt == turn.prompt.strip() != ""
        assert all(isinstance(f.path, str) for f in turn.files)


@settings(max_examples=examples(200), deadline=None)
@given(st.text(max_size=200), st.integers(0, 2))
def test_with_last_message_never_raises_and_never_leaks_private(message: str, open_: int) -> None:
    secret = "zz-secret-zz"
    turns, keys = transcript.with_last_message(
        [], f"Decision: {message} <private>{secret}</private> done. {message}", frozenset(),
        private=open_)
    assert secret not in repr(turns)
    assert len(keys) == 1 and len(turns) <= 1


# -- the Stop payload's last message beside the transcript -------------------------------------

LAST = "Done. Decision: use RS256. Gotcha: clock skew."


def test_with_last_message_adds_what_the_transcript_does_not_hold_yet() -> None:
    prompt = Turn("u1", None, "Add login")
    turns, keys = transcript.with_last_message([prompt], LAST, frozenset())
    assert turns[0] == prompt
    assert turns[1].text == LAST and turns[1].prompt is None
    assert turns[1].uuid.startswith("last:") and len(turns) == 2
    assert keys == {transcript.text_key(LAST)}


def test_with_last_message_adds_nothing_the_transcript_holds() -> None:
    final = Turn("a9", None, None, text="Done.  Decision: use RS256.\nGotcha: clock skew.")
    turns, keys = transcript.with_last_message([final], LAST, frozenset())
    assert turns == (final,) and keys == {transcript.text_key(LAST)}


def test_a_line_read_after_its_payload_adds_no_prose_twice() -> None:
    _, keys = transcript.with_last_message([], LAST, frozenset())
    late = Turn("a9", None, None, text=LAST, calls=(ToolCall("t1", "Bash", command="pytest"),))
    turns, _ = transcript.with_last_message([late], None, keys)
    assert turns == (Turn("a9", None, None, calls=(ToolCall("t1", "Bash", command="pytest"),)),)
    # The same payload seen again (a second Stop) adds nothing either.
    again, _ = transcript.with_last_message([], LAST, keys)
    assert again == ()


# -- reading on from where the last read ended ------------------------------------------------

FIXTURE = Path(__file__).parent / "fixtures" / "claude-code" / "transcript.jsonl"


def test_a_read_from_the_last_end_gives_only_the_lines_appended_since(tmp_path: Path) -> None:
    lines = FIXTURE.read_bytes().splitlines(keepends=True)
    path = tmp_path / "t.jsonl"
    path.write_bytes(b"".join(lines[:7]))
    first = transcript.read(path)
    assert first.end == path.stat().st_size and first.first_prompt is not None
    path.write_bytes(b"".join(lines))
    rest = transcript.read(path, start=first.end)
    whole = transcript.read(path)
    assert rest.turns == tuple(t for t in whole.turns if t not in first.turns)
    assert rest.first_prompt is None and rest.end == path.stat().st_size


def test_a_half_written_last_line_is_left_for_the_next_read(tmp_path: Path) -> None:
    lines = FIXTURE.read_bytes().splitlines(keepends=True)
    decision = next(i for i, line in enumerate(lines) if b"Decision:" in line)
    path = tmp_path / "t.jsonl"
    path.write_bytes(b"".join(lines[:decision]) + lines[decision][:40])
    partial = transcript.read(path)
    assert partial.end == len(b"".join(lines[:decision])) and partial.skipped_lines == 1
    path.write_bytes(b"".join(lines))
    later = transcript.read(path, start=partial.end)
    assert any(t.text and "Decision:" in t.text for t in later.turns)


def test_a_file_replaced_since_the_last_read_is_read_whole(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(FIXTURE.read_bytes())
    whole = transcript.read(path)
    # Shorter than the offset, or the offset not just past a newline: from the start.
    assert transcript.read(path, start=whole.end + 10).turns == whole.turns
    assert transcript.read(path, start=5).turns == whole.turns
    assert transcript.read(tmp_path / "missing.jsonl", start=99) == transcript.Transcript(
        (), None, 0, 0, 0)


def test_a_fifo_or_a_device_is_an_empty_transcript(tmp_path: Path) -> None:
    import os

    fifo = tmp_path / "t.fifo"
    os.mkfifo(fifo)  # nobody writes: opening it for reading would wait forever
    for path in (str(fifo), "/dev/zero", "/dev/urandom", str(tmp_path)):
        assert transcript.read(path) == transcript.Transcript((), None, 0, 0)
        assert transcriptfile.is_regular_file(path) is False
    assert transcriptfile.is_regular_file(tmp_path / "missing") is None


def test_an_overlong_line_is_passed_over_and_the_read_is_capped(
    tmp_path: Path, monkeypatch: Any
) -> None:
    monkeypatch.setattr(transcriptfile, "MAX_LINE_BYTES", 400)
    monkeypatch.setattr(transcriptfile, "_SKIP_CHUNK", 16)
    monkeypatch.setattr(transcriptfile, "MAX_READ_BYTES", 10_000)
    long_line = json.dumps({"type": "user", "uuid": "big", "message": {"content": "x" * 2000}})
    lines = [user("u1", "first"), long_line, user("u2", "second")]
    path = tmp_path / "t.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    read = transcript.read(path)
    assert [t.prompt for t in read.turns] == ["first", "second"]
    assert read.skipped_lines == 1 and read.end == path.stat().st_size

    monkeypatch.setattr(transcriptfile, "MAX_READ_BYTES", len(lines[0]) + 1)
    first = transcript.read(path)
    assert [t.prompt for t in first.turns] == ["first"] and first.end == len(lines[0]) + 1
    rest = transcript.read(path, start=first.end)
    assert rest.end > first.end  # the next read goes on from there


# -- tool outcomes ---------------------------------------------------------------------------------


def result(uuid: str, tool_use_id: str, content: Any, is_error: bool | None = None) -> str:
    block: dict[str, Any] = {"type": "tool_result", "tool_use_id": tool_use_id, "content": content}
    if is_error is not None:
        block["is_error"] = is_error
    return user(uuid, [block])


PYTEST_FAIL = (
    "Exit code 1\n============ test session starts ============\ncollected 3 items\n\n"
    "tests/test_auth.py .F.\n\n=== FAILURES ===\n___ test_login ___\n"
    "    def test_login():\n>       assert login() == 'jwt'\n"
    "E       AssertionError: assert None == 'jwt'\n\n"
    "FAILED tests/test_auth.py::test_login - AssertionError: assert None == 'jwt'\n"
    "======= 1 failed, 2 passed in 0.12s =======\n"
)


def test_outcomes_say_what_failed_and_its_first_error_line() -> None:
    traceback = ("Traceback (most recent call last):\n  File \"x.py\", line 1, in <module>\n"
                 "    import redis\nModuleNotFoundError: No module named 'redis'\n")
    parsed = transcript.parse_lines([
        result("r1", "t1", PYTEST_FAIL, is_error=True),
        result("r2", "t2", [{"type": "text", "text": traceback}]),
        result("r3", "t3", "src/errors.py:3:class AuthError(Exception):\nok"),  # grep output
        result("r4", "t4", "<tool_use_error>String to replace not found in file.</tool_use_error>",
               is_error=True),
        result("r5", "t5", "Exit code 2\n\nmake: *** No rule to make target 'tset'."),
        result("r6", "t6", "3 passed in 0.1s", is_error=False),
        result("r7", "t7", "x" * 500 + "Error", is_error=True),
    ])
    outcomes = [o for t in parsed.turns for o in t.outcomes]
    assert outcomes[0] == Outcome("t1", True, "E       AssertionError: assert None == 'jwt'")
    assert outcomes[1] == Outcome("t2", False, "ModuleNotFoundError: No module named 'redis'")
    assert outcomes[2] == Outcome("t3", False, None)
    assert outcomes[3] == Outcome("t4", True, "String to replace not found in file.")
    assert outcomes[4] == Outcome("t5", True, "make: *** No rule to make target 'tset'.")
    assert outcomes[5] == Outcome("t6", False, None)
    assert outcomes[6].is_error and len(outcomes[6].error or "") <= toolblocks.ERROR_MAX_CHARS


GIT_PUSH_REJECTED = (
    "Exit code 1\nTo https://example.org/team/app.git\n"
    " ! [rejected]        main -> main (fetch first)\n"
    "error: failed to push some refs to 'https://example.org/team/app.git'\n"
    "hint: Updates were rejected because the remote contains work that you do not\n"
    "hint: have locally. Integrate the remote changes before pushing again.\n"
)


def test_an_error_line_keeps_the_lines_above_it_that_say_what_failed() -> None:
    parsed = transcript.parse_lines([
        result("r1", "t1", GIT_PUSH_REJECTED, is_error=True),
        # Lines above saying nothing failed (a header, progress) stay out.
        result("r2", "t2", "Exit code 1\nCompiling app v0.1 (failed deps)\nTo the server\n"
               "error: could not compile `app`", is_error=True),
    ])
    outcomes = [o for t in parsed.turns for o in t.outcomes]
    assert outcomes[0].error == ("error: failed to push some refs to "
                                 "'https://example.org/team/app.git'; "
                                 "! [rejected] main -> main (fetch first)")
    assert outcomes[1].error == "error: could not compile `app`"


def test_tool_calls_of_any_tool_keep_their_id_and_target() -> None:
    parsed = transcript.parse_lines([assistant("a1", [
        {"type": "tool_use", "id": "t1", "name": "Read", "input": {"file_path": "/r.py"}},
        {"type": "tool_use", "id": "t2", "name": "Grep", "input": {"pattern": "x"}},
        {"type": "tool_use", "id": "t3", "name": "Write", "input": {"file_path": "a\nb.py"}},
    ])])
    assert parsed.turns[0].calls == (
        ToolCall("t1", "Read", path="/r.py"), ToolCall("t2", "Grep"),
        ToolCall("t3", "Write", path="a b.py"),  # one line, always
    )


# -- private spans across messages and reads -----------------------------------------------------


def test_a_private_span_split_across_two_messages_stays_private() -> None:
    parsed = transcript.parse_lines([
        user("u1", "my key is <private>sk-live-1"),
        assistant("a1", [text("Noted. <private>Claude echoes sk-live-2")]),
        user("u2", "sk-live-3 still private</private> and this is public"),
        assistant("a2", [text("still hidden sk-live-4</private> Done.")]),
    ])
    assert "sk-live" not in everything(parsed)
    # Claude's reply while the person's span is open is private too (a1 is gone whole).
    assert [t.prompt or t.text for t in parsed.turns] == ["my key is", "and this is public", "Done."]
    assert parsed.private == (0, 0)


def test_claude_s_lines_while_a_person_s_span_is_open_are_private() -> None:
    parsed = transcript.parse_lines([
        user("u1", "use <private>tok-123"),
        assistant("a1", [text("Using tok-123 now."),
                         {"type": "tool_use", "id": "t1", "name": "Bash",
                          "input": {"command": "curl -H 'X: tok-123' x"}}]),
        user("r1", [{"type": "tool_result", "tool_use_id": "t1", "content": "Error: tok-123",
                     "is_error": True}]),
        user("u2", "tok-123</private> ok"),
        assistant("a2", [text("Done.")]),
    ])
    assert "tok-123" not in everything(parsed)
    assert [t.uuid for t in parsed.turns] == ["u1", "u2", "a2"]


def test_an_open_span_is_carried_to_the_next_read(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_text(user("u1", "go <private>secret-a") + "\n")
    first = transcript.read(path)
    assert first.private == (1, 0)
    with path.open("a") as handle:
        handle.write(user("u2", "secret-b</private> visible") + "\n")
    later = transcript.read(path, start=first.end, private=first.private)
    assert [t.prompt for t in later.turns] == ["visible"] and later.private == (0, 0)
    # Read whole again (the file was replaced), the span is found from the start.
    assert [t.prompt for t in transcript.read(path, private=(3, 3)).turns] == ["go", "visible"]


def test_lines_recorded_already_still_carry_their_private_spans_and_first_prompt() -> None:
    lines = [
        user("u1", "first <private>tok-1"),
        assistant("a1", [text("echo tok-2 <private>deeper")]),
        user("u2", "tok-3</private> still</private> seen"),
        assistant("a2", [text("tok-4</private> Done.")]),
        user("u3", "next"),
    ]
    whole = transcript.parse_lines(lines)
    # Recorded by an earlier hook: their lines give no turn, yet the spans they opened are open.
    rest = transcript.parse_lines(lines, skip_uuids={"u1", "a1", "u2"})
    assert rest.turns == tuple(t for t in whole.turns if t.uuid not in {"u1", "a1", "u2"})
    assert [t.uuid for t in rest.turns] == ["a2", "u3"] and "tok-" not in everything(rest)
    assert rest.first_prompt == whole.first_prompt == "first"
    assert rest.private == whole.private == (0, 0)


@settings(max_examples=examples(150), deadline=None)
@given(lines_strategy)
def test_skipping_recorded_uuids_leaves_the_other_turns_as_a_whole_read_gives_them(
        lines: list[str | bytes]) -> None:
    whole = transcript.parse_lines(lines)
    recorded = {k for t in whole.turns[::2] for k in t.keys}  # as the state records them
    rest = transcript.parse_lines(lines, skip_uuids=recorded)
    assert rest.first_prompt == whole.first_prompt and rest.private == whole.private
    assert rest.turns == tuple(t for t in whole.turns if t.uuid not in recorded)


@settings(max_examples=examples(150), deadline=None)
@given(lines_strategy)
def test_any_lines_make_a_story_that_applies_to_a_note(lines: list[str | bytes]) -> None:
    from datetime import datetime, timezone

    from vaultmem.claude import ingest
    from vaultmem.notes import patch, sections

    parsed = transcript.parse_lines(lines)
    told = ingest.story(parsed.turns, now=datetime(2026, 11, 22, tzinfo=timezone.utc), cwd="/r")
    note = "---\ntype: session\n---\n# S\n\n## Work Log\n"
    out = patch.apply_all(note, ingest.edits_for(told, note)).text
    levels = [h.level for h in sections.headings(out)]
    assert levels[:2] == [1, 2] and all(level in (2, 3) for level in levels[1:])


def test_a_commit_message_of_several_lines_is_kept_with_its_command() -> None:
    heredoc = ("git add a.yml && git commit -m \"$(cat <<'EOF'\nAdd the review workflow\n\n"
               "Setup required:\n1. Add ANTHROPIC_API_KEY to repository secrets\nEOF\n)\"")
    parsed = transcript.parse_lines([
        assistant("a1", [tool("Bash", command=heredoc)]),
        assistant("a2", [tool("Bash", command="git commit -m \"Fix a\n\nTODO: b\"")]),
        assistant("a3", [tool("Bash", command="git commit -m 'one line'")]),
        assistant("a4", [tool("Bash", command="cat <<EOF > notes.md\nx\ny\nEOF\ngit status")]),
    ])
    calls = [t.calls[0] for t in parsed.turns]
    assert calls[0].command == "git add a.yml && git commit -m \"$(cat <<'EOF' …"
    assert calls[0].message == ("Add the review workflow\n\nSetup required:\n1. Add "
                                "ANTHROPIC_API_KEY to repository secrets")
    assert calls[1].message == "Fix a\n\nTODO: b"
    assert calls[2].message is None and calls[3].message is None
    # Unterminated (a cut line, a hostile command): no message, and read in one pass.
    for command in ("git commit -m \"$(cat <<'EOF'\n" + "x\n" * 50_000,
                    "git commit -m \"" + "x\n" * 50_000, "git commit " + "<<E\n" * 20_000):
        (turn,) = transcript.parse_lines([assistant("a5", [tool("Bash", command=command)])]).turns
        assert turn.calls[0].message is None


def test_a_greeting_names_no_session_the_first_prompt_with_content_does() -> None:
    parsed = transcript.parse_lines([
        user("u1", "hi"),
        assistant("a1", [{"type": "text", "text": "Hello! What can I help you with?"}]),
        user("u2", "Hey Claude, good morning!"),
        user("u3", "hi, the wombat cache drops tenants"),
    ])
    assert parsed.first_prompt == "hi, the wombat cache drops tenants"
    assert [t.prompt for t in parsed.turns if t.prompt][:2] == ["hi", "Hey Claude, good morning!"]
    assert transcript.parse_lines([user("u1", "hello there!")]).first_prompt is None


@pytest.mark.parametrize("resume", [
    "resume last session", "continue", "Please continue where we left off.", "where were we?",
    "ok, keep going", "pick up where we left off", "resume the previous conversation",
])
def test_a_request_to_carry_on_names_no_session_the_work_it_resumes_does(resume: str) -> None:
    parsed = transcript.parse_lines([
        user("u1", resume),
        assistant("a1", [{"type": "text", "text": "I have no access to earlier sessions."}]),
        user("u2", "fix the login redirect loop in the auth middleware"),
    ])
    assert parsed.first_prompt == "fix the login redirect loop in the auth middleware"


@pytest.mark.parametrize("task", ["Continue fixing the login bug", "continue with the refactor",
                                  "resume the build on CI"])
def test_carrying_on_with_a_named_task_names_the_session(task: str) -> None:
    assert transcript.parse_lines([user("u1", task)]).first_prompt == task


def test_a_reminder_claude_code_appends_to_a_tool_s_output_is_never_its_error() -> None:
    reminder = ("<system-reminder>\nThe task tools haven't been used recently. This is not an "
                "error.\n</system-reminder>")
    parsed = transcript.parse_lines([
        result("r1", "t1", f"Exit code 1\n{reminder}", is_error=True),
        result("r2", "t2", f"Exit code 2\ncat: x.txt: No such file or directory\n{reminder}",
               is_error=True),
    ])
    outcomes = [o for t in parsed.turns for o in t.outcomes]
    assert [o.error for o in outcomes] == ["Exit code 1", "cat: x.txt: No such file or directory"]
    assert "reminder" not in everything(parsed) and "task tools" not in everything(parsed)


def test_a_read_not_asked_for_the_topic_tells_no_greeting(monkeypatch: pytest.MonkeyPatch) -> None:
    # A note named already needs no first prompt: telling a greeting or a request to carry on
    # in every language compiles ~45 M instructions of patterns (Stop and SessionEnd).
    lines = FIXTURE.read_text(encoding="utf-8").splitlines()
    asked = transcript.parse_lines(lines)

    def never(prompt: str | None) -> bool:
        raise AssertionError(f"asked whether {prompt!r} names the session")

    monkeypatch.setattr(transcript, "_names_topic", never)
    named = transcript.parse_lines(lines, topic=False)
    assert named.first_prompt is None and asked.first_prompt is not None
    assert named.turns == asked.turns
