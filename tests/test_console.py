"""What the person ran themselves at Claude Code's prompt (``! command``, a local slash command)
reaches the session note through the real hooks: a ``- You ran`` line with what it printed,
bookkeeping left out, a slash command Claude works on taken as the prompt, secrets redacted."""

from __future__ import annotations

import json
from pathlib import Path

from transcript_kit import CWD, STAMP, Transcript, briefing, end, note, stop

from vaultmem.claude.console import Console, kept, parse


def person(log: Transcript, content: str) -> None:
    """A user line holding Claude Code's wrappers (not a prompt)."""
    log.prompt(content)


def local(log: Transcript, content: str) -> None:
    """A ``local_command`` system line, as Claude Code 2.x writes a local slash command."""
    log.n += 1
    log.raw({"type": "system", "subtype": "local_command", "uuid": f"s{log.n}",
             "sessionId": "sid-a", "cwd": CWD, "timestamp": STAMP.format(log.n % 60),
             "isSidechain": False, "isMeta": False, "level": "info", "content": content})


def command(name: str) -> str:
    return (f"<command-name>{name}</command-name>\n<command-message>{name[1:]}</command-message>"
            "\n<command-args></command-args>")


def test_a_shell_command_and_its_output_are_kept_below_the_turn_before(env: Path,
                                                                      log: Transcript) -> None:
    log.prompt("fix the flaky login test")
    log.say("Fixed: the login test waited on a fixed sleep; it now polls the session cookie.")
    stop(log)
    person(log, "<bash-input>npm test</bash-input>")
    person(log, "<bash-stdout>FAIL src/cart.test.ts\n  cart total rounds half-cents down\n"
                "Tests: 1 failed, 41 passed</bash-stdout><bash-stderr></bash-stderr>")
    log.prompt("the cart test fails now, look")
    log.say("The cart total rounded half-cents down; it now rounds half to even.")
    stop(log)
    text = note(env)
    assert "- You ran `! npm test` — `FAIL src/cart.test.ts`" in text
    assert "> [!info]- What `! npm test` printed (3 lines)\n> FAIL src/cart.test.ts\n" \
           ">   cart total rounds half-cents down\n> Tests: 1 failed, 41 passed" in text
    # Its own entry, between the turn before and the prompt after, never a prompt
    assert text.index("### 09:03 - ! npm test") < text.index("**Prompt:** the cart test fails")
    assert "**Prompt:** npm test" not in text and "bash-" not in text


def test_a_local_command_keeps_what_it_printed_and_bookkeeping_nothing(env: Path,
                                                                       log: Transcript) -> None:
    log.prompt("add the refund endpoint")
    log.say("Added POST /refunds; partial refunds keep the original amount.")
    local(log, command("/cost"))
    local(log, "<local-command-stdout>Total cost: $1.37\nTotal duration (API): 4m 12s"
               "</local-command-stdout>")
    person(log, command("/rate-limit-options"))
    person(log, "<local-command-stdout>Login successful</local-command-stdout>")
    person(log, command("/exit"))
    person(log, "<local-command-stdout>See ya!</local-command-stdout>")
    end(log)
    text = note(env)
    assert "- You ran `/cost` — `Total cost: $1.37`" in text
    assert "> [!info]- What `/cost` printed (2 lines)" in text
    for left_out in ("/exit", "See ya", "/rate-limit-options", "Login successful"):
        assert left_out not in text
    # The last session's outcome is still Claude's last answer, not what the person ran after it.
    assert "partial refunds keep the original amount" in briefing()


def test_a_slash_command_claude_works_on_is_the_prompt(env: Path, log: Transcript) -> None:
    log.prompt("rename the refund helper")
    log.say("Renamed refund_amount to refundable_amount in src/refunds.py.")
    person(log, command("/init"))
    log.raw({"type": "user", "uuid": "meta1", "isMeta": True, "sessionId": "sid-a", "cwd": CWD,
             "timestamp": STAMP.format(40), "message": {"role": "user", "content":
                                                        "Please analyze this codebase"}})
    log.say("Created CLAUDE.md: the build is npm run build, tests live under tests/.")
    end(log)
    text = note(env)
    assert "**Prompt:** /init\n**Answer:** Created CLAUDE.md" in text
    # The turn before keeps its own answer (it was replaced by the command's before).
    assert "**Answer:** Renamed refund_amount to refundable_amount" in text
    assert "You ran `/init`" not in text


def test_what_a_command_printed_is_redacted(env: Path, log: Transcript) -> None:
    token = "ghp_" + "Zq7Lk2Vb9Xw4Rt6Yp1Nm3Hs8Jd5Fg0Ca2Eu"
    log.prompt("check the deploy config")
    log.say("The deploy config reads its token from the environment.")
    person(log, "<bash-input>cat .env</bash-input>")
    person(log, f"<bash-stdout>GITHUB_TOKEN={token}\nREGION=eu-west-1</bash-stdout>"
                "<bash-stderr></bash-stderr>")
    end(log)
    assert "You ran `! cat .env`" in note(env)
    for path in env.rglob("*"):
        if path.is_file():
            assert token.encode() not in path.read_bytes(), path


def test_parse_reads_each_shape() -> None:
    assert parse("<bash-input>ls -la</bash-input>") == Console("! ls -la")
    assert parse("<bash-input>ls</bash-input><bash-stdout>a.txt</bash-stdout>"
                 "<bash-stderr>b: denied</bash-stderr>") == Console("! ls", "a.txt\nb: denied")
    assert parse("<bash-stdout></bash-stdout><bash-stderr></bash-stderr>") == Console(None, "")
    assert parse(command("/context")) == Console("/context")
    assert parse("<local-command-stdout>Kept model as \x1b[1mDefault\x1b[22m"
                 "</local-command-stdout>") == Console(None, "Kept model as Default")
    # A slash command with arguments is what the person asked: a prompt, not a console line.
    assert parse("<command-name>/review</command-name><command-args>the auth module"
                 "</command-args>") is None
    assert parse("fix the <b>bold</b> tag") is None


def test_kept_says_something() -> None:
    assert kept(Console("! git status", ""))  # the person chose to run it
    assert not kept(Console("/compact", "Compacted. ctrl+o to see the full summary now"))
    assert not kept(Console("/add-dir", "Workspace dialog dismissed"))
    assert kept(Console("/model", "Kept model as Default (recommended)"))


def test_the_catalogue_names_what_is_taken() -> None:
    from vaultmem.claude import records

    assert records.SYSTEM_SUBTYPES["local_command"].startswith("the slash command")
    assert json.dumps(records.__doc__).count("You ran") >= 2
