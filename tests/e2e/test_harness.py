"""Self-test of the e2e harness: the stand-in speaks the Messages API, and the real Claude Code
fires hooks (from settings.json and from a plugin) with a recording hook in place of vaultmem's."""

from __future__ import annotations

import json
import shlex
import sys
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from .conftest import Claude
from .record_hook import MARKER
from .standin import COMPACT_SUMMARY, DEFAULT_TEXT, SIDE_TEXT, StandIn, Text, ToolUse

pytestmark = pytest.mark.e2e

RECORD_HOOK = Path(__file__).with_name("record_hook.py")
EVENTS = ("SessionStart", "Stop", "PreCompact", "SessionEnd")


# -- the stand-in alone (no Claude Code needed) ---------------------------------------------


def _post(url: str, body: Any) -> tuple[int, str, str]:
    request = urllib.request.Request(
        url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, response.headers["Content-Type"], response.read().decode()
    except urllib.error.HTTPError as err:
        return err.code, err.headers["Content-Type"], err.read().decode()


def _sse(text: str) -> list[tuple[str, dict[str, Any]]]:
    events = []
    for chunk in text.strip().split("\n\n"):
        lines = dict(line.split(": ", 1) for line in chunk.splitlines())
        events.append((lines["event"], json.loads(lines["data"])))
    return events


def test_standin_streams_scripted_tool_use_then_text(standin: StandIn) -> None:
    standin.enqueue(
        [Text("Writing."), ToolUse("Write", {"file_path": "/p/a.py", "content": "x = 1\n"})],
        [Text("Done.")],
    )
    turn = {
        "model": "m",
        "stream": True,
        "tools": [{"name": "Write"}],
        "messages": [{"role": "user", "content": "go"}],
    }

    status, ctype, body = _post(standin.url + "/v1/messages", turn)

    assert (status, ctype) == (200, "text/event-stream")
    events = _sse(body)
    names = [name for name, _ in events]
    assert names[0] == "message_start" and names[-2:] == ["message_delta", "message_stop"]
    assert events[-2][1]["delta"]["stop_reason"] == "tool_use"
    starts = [data["content_block"] for name, data in events if name == "content_block_start"]
    assert [block["type"] for block in starts] == ["text", "tool_use"]
    partial = "".join(
        data["delta"]["partial_json"]
        for name, data in events
        if name == "content_block_delta" and data["delta"]["type"] == "input_json_delta"
    )
    assert json.loads(partial) == {"file_path": "/p/a.py", "content": "x = 1\n"}
    assert standin.pending == 1

    status, _, body = _post(standin.url + "/v1/messages", dict(turn, stream=False))
    message = json.loads(body)
    assert message["content"] == [{"type": "text", "text": "Done."}]
    assert message["stop_reason"] == "end_turn"
    # An empty script answers turns with the default text.
    _, _, body = _post(standin.url + "/v1/messages", dict(turn, stream=False))
    assert json.loads(body)["content"][0]["text"] == DEFAULT_TEXT
    assert [r.kind for r in standin.requests] == ["turn", "turn", "turn"]
    assert standin.turns[0].body["messages"][0]["content"] == "go"


def test_standin_answers_side_compact_and_unknown_requests_without_using_the_script(
    standin: StandIn,
) -> None:
    standin.enqueue([Text("scripted")])
    compact_turn = {
        "model": "m",
        "tools": [{"name": "Bash"}],
        "messages": [
            {
                "role": "user",
                "content": [
                    {
                        "type": "text",
                        "text": "Summarise. Do NOT call any tools. Use a <summary> block.",
                    }
                ],
            }
        ],
    }

    _, _, side = _post(standin.url + "/v1/messages", {"model": "haiku", "messages": []})
    _, _, compact = _post(standin.url + "/v1/messages", compact_turn)
    tokens = _post(standin.url + "/v1/messages/count_tokens", {"messages": ["abcd" * 40]})
    unknown = _post(standin.url + "/v1/whatever", {"x": 1})

    assert json.loads(side)["content"][0]["text"] == SIDE_TEXT
    assert json.loads(compact)["content"][0]["text"] == COMPACT_SUMMARY
    assert tokens[0] == 200 and json.loads(tokens[2])["input_tokens"] > 1
    assert unknown[0] == 404
    assert [r.kind for r in standin.requests] == ["side", "compact", "count_tokens", "unknown"]
    assert standin.unknown[0].path == "/v1/whatever"
    assert standin.pending == 1


# -- the real Claude Code with a recording hook ---------------------------------------------


def _hook(log: Path, *extra: str) -> str:
    return shlex.join([sys.executable, str(RECORD_HOOK), str(log), *extra])


def _record_settings(log: Path, *, session_end: tuple[str, ...] = ()) -> dict[str, Any]:
    hooks = {
        event: [
            {
                "hooks": [
                    {
                        "type": "command",
                        "command": _hook(log, *(session_end if event == "SessionEnd" else ())),
                    }
                ]
            }
        ]
        for event in EVENTS
    }
    return {"hooks": hooks}


def _calls(log: Path) -> list[dict[str, Any]]:
    if not log.exists():
        return []
    return [json.loads(line) for line in log.read_text().splitlines()]


def _login_script(project: Path) -> list[list[Text | ToolUse]]:
    return [
        [
            Text("I'll add it."),
            ToolUse(
                "Write", {"file_path": str(project / "login.py"), "content": "print('login ok')\n"}
            ),
        ],
        [
            ToolUse(
                "Bash",
                {
                    "command": "python3 login.py > bash-ran.txt",
                    "description": "Run the login module",
                },
            )
        ],
        [Text("Done. Decision: use RS256 because keys rotate.")],
    ]


def test_settings_hooks_fire_tools_run_and_start_context_reaches_the_api(
    claude: Claude, tmp_path: Path
) -> None:
    log = tmp_path / "hooks.jsonl"
    claude.write_settings(_record_settings(log))
    claude.standin.enqueue(*_login_script(claude.project))

    run = claude.prompt("Add a login module and run the tests")

    calls = _calls(log)
    assert [c["event"] for c in calls] == ["SessionStart", "Stop", "SessionEnd"]
    assert {c["payload"]["session_id"] for c in calls} == {run.session_id}
    start, stop, end = (c["payload"] for c in calls)
    assert start["source"] == "startup"
    assert stop["last_assistant_message"] == "Done. Decision: use RS256 because keys rotate."
    assert end["reason"] == "other"
    # Paths are absolute and point at the real transcript; the project is the cwd.
    assert Path(start["transcript_path"]) == claude.transcript(run.session_id)
    assert Path(start["cwd"]).resolve() == claude.project.resolve()
    # At SessionStart (startup) the transcript does not exist yet. At Stop it holds the prompt
    # and the tool calls, but not always the final assistant line: a CI run caught Stop reading
    # a transcript that ended with the Bash tool result. vaultmem therefore takes the final
    # message's notes from the payload (transcript.with_last_message).
    assert calls[0]["transcript_types"] is None
    at_stop = calls[1]["transcript_types"]
    assert at_stop[at_stop.index("user"):].count("assistant") >= 2  # Write and Bash at least
    transcript = claude.transcript(run.session_id).read_text()
    assert "Add a login module and run the tests" in transcript
    assert (claude.project / "login.py").read_text() == "print('login ok')\n"
    assert (claude.project / "bash-ran.txt").read_text() == "login ok\n"
    assert claude.standin.pending == 0
    assert len(run.turns) == 3
    assert MARKER in run.turns[0].text()


def test_pre_compact_fires_on_resume_compact(claude: Claude, tmp_path: Path) -> None:
    log = tmp_path / "hooks.jsonl"
    claude.write_settings(_record_settings(log))
    claude.standin.enqueue(*_login_script(claude.project))
    first = claude.prompt("Add a login module and run the tests")
    log.unlink()

    compacted = claude.compact(first.session_id)

    calls = _calls(log)
    # Compaction starts the session again: a second SessionStart with source "compact".
    assert [c["event"] for c in calls] == [
        "SessionStart",
        "PreCompact",
        "SessionStart",
        "SessionEnd",
    ]
    assert [calls[0]["payload"]["source"], calls[2]["payload"]["source"]] == ["resume", "compact"]
    assert {c["payload"]["session_id"] for c in calls} == {first.session_id}
    pre = calls[1]["payload"]
    assert pre["session_id"] == first.session_id
    assert (pre["trigger"], pre["custom_instructions"]) == ("manual", None)
    assert [r.kind for r in compacted.requests if r.kind != "unknown"] == ["compact"]


def _record_plugin(root: Path, log: Path) -> Path:
    market = root / "market"
    (market / ".claude-plugin").mkdir(parents=True)
    (market / "hooks").mkdir()
    (market / "hooks" / "record_hook.py").write_text(RECORD_HOOK.read_text())
    (market / ".claude-plugin" / "marketplace.json").write_text(
        json.dumps(
            {
                "name": "e2e-market",
                "owner": {"name": "e2e"},
                "plugins": [
                    {"name": "recorder", "source": "./", "description": "records hook calls"}
                ],
            }
        )
    )
    (market / ".claude-plugin" / "plugin.json").write_text(
        json.dumps({"name": "recorder", "version": "0.1.0", "description": "records hook calls"})
    )
    # Claude Code copies the plugin into ~/.claude/plugins/cache and sets CLAUDE_PLUGIN_ROOT.
    command = f'{shlex.quote(sys.executable)} "${{CLAUDE_PLUGIN_ROOT}}/hooks/record_hook.py" {log}'
    hooks = {event: [{"hooks": [{"type": "command", "command": command}]}] for event in EVENTS}
    (market / "hooks" / "hooks.json").write_text(json.dumps({"hooks": hooks}))
    return market


def test_plugin_hooks_fire_after_marketplace_add_and_install(
    claude: Claude, tmp_path: Path
) -> None:
    log = tmp_path / "hooks.jsonl"
    spec = claude.install_plugin(_record_plugin(tmp_path, log))
    assert claude.settings()["enabledPlugins"] == {spec: True}
    claude.standin.enqueue([Text("Plugin run. Decision: keep it.")])

    run = claude.prompt("hello plugin")

    calls = _calls(log)
    assert [c["event"] for c in calls] == ["SessionStart", "Stop", "SessionEnd"]
    assert {c["payload"]["session_id"] for c in calls} == {run.session_id}
    assert MARKER in run.turns[0].text()


def test_session_end_hook_is_cancelled_after_its_budget(claude: Claude, tmp_path: Path) -> None:
    # Claude Code gives SessionEnd hooks about 1.5 s, then kills them: a hook sleeping far
    # longer is cut off and Claude Code says "Hook cancelled" on stderr.
    log = tmp_path / "hooks.jsonl"
    claude.write_settings(_record_settings(log, session_end=("--sleep", "8")))
    claude.standin.enqueue([Text("bye")])

    run = claude.prompt("hello")

    assert "Hook cancelled" in run.proc.stderr
    events = [c["event"] for c in _calls(log)]
    assert events == ["SessionStart", "Stop", "SessionEnd"]  # never "done": the hook was killed



POST_COMPACT_JSON, POST_COMPACT_TEXT = "E2E-POSTCOMPACT-JSON-5d1e", "E2E-POSTCOMPACT-TEXT-5d1e"


def _post_compact_settings(log: Path) -> dict[str, Any]:
    """The recording hooks, and two PostCompact hooks: one printing JSON
    ``additionalContext``, one plain text."""
    as_json = json.dumps({"hookSpecificOutput": {"hookEventName": "PostCompact",
                                                 "additionalContext": POST_COMPACT_JSON}})
    settings = _record_settings(log)
    settings["hooks"]["PostCompact"] = [
        {"hooks": [{"type": "command", "command": command}]}
        for command in (_hook(log), f"echo {shlex.quote(as_json)}", f"echo {POST_COMPACT_TEXT}")
    ]
    return settings


def test_post_compact_gets_the_summary_and_its_text_reaches_the_model_after_a_manual_compact(
    claude: Claude, tmp_path: Path
) -> None:
    """PostCompact (2.1.197) gets the summary. Its output is no context: JSON
    ``additionalContext`` fails the hook output's validation, and plain stdout is a line for the
    person ("PostCompact [cmd] completed successfully: …"), which after a ``/compact`` typed by
    the person lands in the command's ``<local-command-stdout>`` and so in the next request."""
    log = tmp_path / "hooks.jsonl"
    claude.write_settings(_post_compact_settings(log))
    claude.standin.enqueue(*_login_script(claude.project))
    first = claude.prompt("Add a login module and run the tests")

    compacted = claude.compact(first.session_id)
    claude.standin.enqueue([Text("Carrying on.")])
    after = claude.prompt("What next?", resume=first.session_id)

    events = [c["event"] for c in _calls(log)]
    assert events.index("PostCompact") > events.index("PreCompact")
    post = [c["payload"] for c in _calls(log) if c["event"] == "PostCompact"]
    assert len(post) == 1 and post[0]["trigger"] == "manual"
    assert "E2E-COMPACT-SUMMARY" in post[0]["compact_summary"]
    assert not [r for r in compacted.requests if r.kind == "turn"]
    sent = after.turns[0].text()
    assert "E2E-COMPACT-SUMMARY" in sent
    assert "<local-command-stdout>" in sent
    assert f"PostCompact [echo {POST_COMPACT_TEXT}] completed successfully: {POST_COMPACT_TEXT}" \
        in sent
    assert "Hook JSON output validation failed" in sent  # additionalContext: not for PostCompact


def test_post_compact_text_reaches_no_request_after_an_auto_compaction(
    claude: Claude, tmp_path: Path
) -> None:
    """An automatic compaction (the conversation past a small window) runs SessionStart(compact) before
    PostCompact, and what PostCompact prints goes to no request: vaultmem cannot inject there."""
    log = tmp_path / "hooks.jsonl"
    claude.write_settings(_post_compact_settings(log))
    claude.env.update({"CLAUDE_AUTOCOMPACT_PCT_OVERRIDE": "5",
                       "CLAUDE_CODE_AUTO_COMPACT_WINDOW": "100000"})
    claude.standin.enqueue(*_login_script(claude.project))
    first = claude.prompt("Add a login module and run the tests")
    claude.standin.enqueue([Text("Carrying on.")], [Text("More.")])
    long = claude.prompt("What next? " + "lorem ipsum dolor " * 6000, resume=first.session_id)
    after = claude.prompt("And then?", resume=first.session_id)

    calls = [(c["event"], c["payload"].get("trigger") or c["payload"].get("source"))
             for c in _calls(log)]
    assert ("PostCompact", "auto") in calls
    assert calls.index(("SessionStart", "compact")) < calls.index(("PostCompact", "auto"))
    requests = (*first.requests, *long.requests, *after.requests)
    assert any(r.kind == "compact" for r in requests)
    sent = "\n".join(r.text() for r in requests)
    assert "E2E-COMPACT-SUMMARY" in sent
    assert POST_COMPACT_TEXT not in sent and POST_COMPACT_JSON not in sent
