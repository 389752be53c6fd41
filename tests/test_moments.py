"""The moment hooks (DESIGN §12): a failed tool call told its recorded fix, a prompt told what the
vault holds about what it names, each once per session and logged; silence otherwise."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from hook_kit import hook_env, run_cli, run_hook

from vaultmem.claude import injections, onfailure
from vaultmem.search import index
from vaultmem.store.vault import Vault

FIXTURE = Path(__file__).parent / "fixtures" / "briefing"
PROJECT = "shop"
NOTE = f"claude/projects/{PROJECT}/sessions/2026-11-21-refunds-and-ci.md"
DB_ERROR = ('E   psycopg.OperationalError: connection to server at "localhost" (127.0.0.1), '
            'port 5432 failed: Connection refused')
FIX = (f"`pytest tests/test_db.py` failed (`{DB_ERROR}`); it passed after editing "
       "`docker-compose.yml`")


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    """The briefing fixture's vault with a recorded fix, indexed as SessionStart leaves it."""
    root = tmp_path / "vault"
    shutil.copytree(FIXTURE, root)
    note = root / NOTE
    note.write_text(note.read_text().replace("## Gotchas & Fixes\n\n",
                                             f"## Gotchas & Fixes\n\n- {FIX}\n"))
    index.refresh(Vault(root))
    return root


def _hook(event: str, vault: Path, tmp_path: Path, **payload: Any) -> tuple[str, str]:
    names = {"post-tool-use-failure": "PostToolUseFailure", "user-prompt-submit": "UserPromptSubmit"}
    data = {"session_id": "s-1", "transcript_path": str(tmp_path / "t.jsonl"), "cwd": str(tmp_path),
            "hook_event_name": names[event], **payload}
    done = run_hook(event, data, vault, cwd=tmp_path,
                    env=hook_env(vault, VAULTMEM_PROJECT=PROJECT))
    assert done.returncode == 0
    return done.stdout.decode(), done.stderr.decode()


def _context(out: str, event: str) -> str:
    doc = json.loads(out)
    assert doc["hookSpecificOutput"]["hookEventName"] == event
    text = doc["hookSpecificOutput"]["additionalContext"]
    assert isinstance(text, str)
    return text


def _failure(command: str, error: str, **more: Any) -> dict[str, Any]:
    return {"tool_name": "Bash", "tool_input": {"command": command}, "error": error,
            "is_interrupt": False, **more}


def test_a_recurring_failure_is_told_its_fix_once_per_session(vault: Path, tmp_path: Path) -> None:
    failing = _failure("cd /w/shop && pytest tests/test_db.py -q", f"Exit code 1\n{DB_ERROR}")

    out, err = _hook("post-tool-use-failure", vault, tmp_path, **failing)

    text = _context(out, "PostToolUseFailure")
    assert err == ""
    assert "docker-compose.yml" in text and "[[2026-11-21-refunds-and-ci]]" in text
    assert text.count("~~~text") == 1 and len(text) <= onfailure.MAX_CHARS
    # The same failure again in the same session: told already.
    assert _hook("post-tool-use-failure", vault, tmp_path, **failing) == ("", "")
    # Another session is told again.
    out, _ = _hook("post-tool-use-failure", vault, tmp_path, session_id="s-2", **failing)
    assert "docker-compose.yml" in _context(out, "PostToolUseFailure")
    logged = injections.read(vault / ".vaultmem")
    assert [(i.session, i.event) for i in logged] == [("s-1", "PostToolUseFailure"),
                                                     ("s-2", "PostToolUseFailure")]
    assert logged[0].chars == len(text) and "matched by error signature" in logged[0].reason


@pytest.mark.parametrize("failing", [
    # Same command, another error: the fix of the connection says nothing about it.
    _failure("pytest tests/test_db.py", "Exit code 1\nE   KeyError: 'currency'"),
    # No signature at all.
    _failure("pytest tests/test_db.py", "Exit code 1"),
    # The person stopped it.
    _failure("pytest tests/test_db.py", f"Exit code 1\n{DB_ERROR}", is_interrupt=True),
    # An unrelated tool and error.
    {"tool_name": "Edit", "tool_input": {"file_path": "/w/shop/src/x.py"},
     "error": "String to replace not found in file."},
])
def test_an_unrelated_failure_gets_nothing(vault: Path, tmp_path: Path,
                                           failing: dict[str, Any]) -> None:
    assert _hook("post-tool-use-failure", vault, tmp_path, **failing) == ("", "")
    assert injections.read(vault / ".vaultmem") == []


def test_a_prompt_is_told_the_facts_it_names_once(vault: Path, tmp_path: Path) -> None:
    prompt = "Add partial refunds to the billing refund endpoint"

    out, err = _hook("user-prompt-submit", vault, tmp_path, prompt=prompt)

    text = _context(out, "UserPromptSubmit")
    assert err == "" and len(text) <= 1200
    assert "Support partial refunds" in text
    # The fenced lines are vault text; outside them only fixed words.
    head, fenced = text.split("\n", 1)
    assert head.startswith("vaultmem: ") and fenced.startswith("~~~text\n")
    assert _hook("user-prompt-submit", vault, tmp_path, prompt=prompt) == ("", "")


@pytest.mark.parametrize("prompt", ["thanks", "continue", "yes", "ok, go ahead", "Thanks!"])
def test_a_prompt_that_names_no_task_gets_nothing(vault: Path, tmp_path: Path, prompt: str) -> None:
    assert _hook("user-prompt-submit", vault, tmp_path, prompt=prompt) == ("", "")


def test_prompt_context_turned_off_in_the_config(vault: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / ".config" / "vaultmem").mkdir(parents=True)
    (home / ".config" / "vaultmem" / "config.toml").write_text("prompt_context = false\n")
    data = {"session_id": "s-1", "cwd": str(tmp_path), "hook_event_name": "UserPromptSubmit",
            "prompt": "Add partial refunds to the billing refund endpoint"}

    done = run_hook("user-prompt-submit", data, vault, cwd=tmp_path, env=hook_env(
        vault, VAULTMEM_PROJECT=PROJECT, HOME=str(home), XDG_CONFIG_HOME=str(home / ".config")))

    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")


def test_no_vault_no_index_and_junk_input_get_nothing(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere"
    assert _hook("user-prompt-submit", missing, tmp_path, prompt="partial refunds billing") == (
        "", "")
    assert not missing.exists()  # a moment hook never creates a vault
    bare = tmp_path / "bare"
    bare.mkdir()
    assert _hook("post-tool-use-failure", bare, tmp_path,
                 **_failure("pytest", f"Exit code 1\n{DB_ERROR}")) == ("", "")
    done = run_hook("user-prompt-submit", b"\x00not json", bare, cwd=tmp_path)
    assert (done.returncode, done.stdout) == (0, b"")


def test_status_shows_what_was_injected_per_session(vault: Path, tmp_path: Path) -> None:
    _hook("post-tool-use-failure", vault, tmp_path,
          **_failure("pytest tests/test_db.py", f"Exit code 1\n{DB_ERROR}"))
    _hook("user-prompt-submit", vault, tmp_path, session_id="s-2",
          prompt="Add partial refunds to the billing refund endpoint")
    env = hook_env(vault, VAULTMEM_PROJECT=PROJECT)

    text = run_cli(["status"], cwd=tmp_path, env=env)
    doc = json.loads(run_cli(["status", "--json"], cwd=tmp_path, env=env).stdout)

    assert text.returncode == 0
    lines = [line for line in text.stdout.splitlines() if "inject" in line or "chars" in line]
    assert lines[0].startswith("injected into session s-2: ")
    assert "UserPromptSubmit" in lines[1] and "facts" in lines[1]
    assert lines[2].startswith("injected into session s-1: ")
    assert [s["session"] for s in doc["injected"]] == ["s-2", "s-1"]
    assert doc["injected"][1]["chars"] == doc["injected"][1]["injections"][0]["chars"] > 0


def test_a_fix_the_briefing_listed_is_told_again_when_its_failure_comes(
        vault: Path, tmp_path: Path) -> None:
    # The briefing gave the fix among many at the start; the failure is when it matters.
    from vaultmem.notes.facts import fact_key

    injections.record(vault / ".vaultmem", injections.Injection(
        "s-1", "SessionStart", 8000, "briefing (startup)", (fact_key(FIX),), "2026-11-22T09:00",
        PROJECT))
    failing = _failure("pytest tests/test_db.py", f"Exit code 1\n{DB_ERROR}")

    out, _ = _hook("post-tool-use-failure", vault, tmp_path, **failing)

    assert "docker-compose.yml" in _context(out, "PostToolUseFailure")
    assert _hook("post-tool-use-failure", vault, tmp_path, **failing) == ("", "")  # once


ARCHIVED = f"claude/projects/{PROJECT}/archive/sessions/2026-11-18-set-up-auth.md"
REMARK = "Note: the legacy salt table stays in the nightly dump, so I left it unchanged"


def _add_decision(vault: Path, rel: str, line: str) -> None:
    note = vault / rel
    note.write_text(note.read_text().replace("## Decisions Made\n\n",
                                             f"## Decisions Made\n\n- {line}\n"))
    index.refresh(Vault(vault))


def test_a_compacted_sessions_decision_is_not_told_its_next_step_is(
        vault: Path, tmp_path: Path) -> None:
    # Compaction filed what of the session is a fact in an entity note; what it left in the
    # archived note alone it judged no fact. Its open next steps stay there and are told.
    _add_decision(vault, ARCHIVED, REMARK)

    assert _hook("user-prompt-submit", vault, tmp_path,
                 prompt="drop the legacy salt table from the nightly dump") == ("", "")
    out, _ = _hook("user-prompt-submit", vault, tmp_path, session_id="s-2",
                   prompt="add rate limiting to the login endpoint")
    assert "Add rate limiting to the login endpoint" in _context(out, "UserPromptSubmit")


def test_a_live_sessions_decision_is_told(vault: Path, tmp_path: Path) -> None:
    _add_decision(vault, NOTE, REMARK)

    out, _ = _hook("user-prompt-submit", vault, tmp_path,
                   prompt="drop the legacy salt table from the nightly dump")

    assert "legacy salt table" in _context(out, "UserPromptSubmit")


def test_a_fact_sharing_only_the_project_s_common_words_is_not_told(vault: Path) -> None:
    # "shop" is in every note of the project, "argon2id" in few: a word weighs its rarity.
    from vaultmem.claude import moments, onprompt
    from vaultmem.notes.facts import Fact, fact_key
    from vaultmem.search import indexquery

    conn = indexquery.open_reader(Vault(vault))
    assert conn is not None
    try:
        weights = moments.rarity(conn, (PROJECT, "global"), ["shop", "argon2id", "nowhere"])
    finally:
        conn.close()
    assert weights["shop"] < weights["argon2id"] < weights["nowhere"]

    def found(text: str) -> moments.Found:
        fact = Fact("decision", text, fact_key(text), 0, "2026-11-20")
        return moments.Found(fact, f"claude/projects/{PROJECT}/entities/App.md", "App",
                             "entity", PROJECT, -1.0)

    common = {"chat": 0.2, "logs": 0.1, "purge": 2.5, "git-filter-repo": 2.0, "history": 1.5}
    prompt = "run git-filter-repo to purge the chat logs from history"
    remark = found("The chat logs are historical, so they stay as they are")
    assert onprompt.told(prompt, [remark], set()) is not None  # two words shared, unweighed
    assert onprompt.told(prompt, [remark], set(), lambda words: common) is None
    purge = found("git-filter-repo needs a fresh clone to purge the chat logs")
    told = onprompt.told(prompt, [remark, purge], set(), lambda words: common)
    assert told is not None and told.keys == (purge.fact.key,)


def test_a_fix_stated_in_words_only_is_told_to_its_failure(tmp_path: Path) -> None:
    # A gotcha that quotes nothing (a summary's or the person's, in prose) is still a recorded
    # fix: the words of the error, three of them, find it (the bench row post-tool-use-failure).
    root = tmp_path / "vault"
    shutil.copytree(FIXTURE, root)
    note = root / NOTE
    said = "Gotcha: the x-trace header breaks billing retries; strip it first"
    note.write_text(note.read_text().replace("## Gotchas & Fixes\n\n",
                                             f"## Gotchas & Fixes\n\n- {said}\n"))
    index.refresh(Vault(root))
    failing = _failure("pytest -q", "Exit code 1\nE   RetryError: x-trace header breaks billing "
                       "retries")

    out, _ = _hook("post-tool-use-failure", root, tmp_path, **failing)

    assert "strip it first" in _context(out, "PostToolUseFailure")


def test_a_failure_is_told_the_fix_of_the_project_its_command_went_into(
        vault: Path, tmp_path: Path) -> None:
    # A session started in the home folder runs its commands in a project it goes into with
    # ``cd``: that project's fixes are the ones to tell, as well as the session's own.
    home = tmp_path / "home"
    home.mkdir()
    env = {k: v for k, v in hook_env(vault, HOME=str(home)).items() if k != "VAULTMEM_PROJECT"}

    def told(command: str) -> str:
        data = {"session_id": f"s-{command}", "transcript_path": str(tmp_path / "t.jsonl"),
                "cwd": str(home), "hook_event_name": "PostToolUseFailure",
                **_failure(command, f"Exit code 1\n{DB_ERROR}")}
        done = run_hook("post-tool-use-failure", data, vault, cwd=home, env=env)
        assert done.returncode == 0 and done.stderr == b""
        return _context(done.stdout.decode(), "PostToolUseFailure") if done.stdout.strip() \
            else ""

    assert "docker-compose.yml" in told(f"cd ~/code/{PROJECT} && pytest tests/test_db.py -q")
    assert "docker-compose.yml" in told(f"cd {home}/code && cd {PROJECT}; pytest tests/test_db.py")
    assert told("pytest tests/test_db.py -q") == ""  # run in the home folder: not shop's


@pytest.mark.parametrize(
    ("command", "cwd", "folder"),
    [
        ("cd ~/code/shop && git commit -m x", "/home/me", "/home/me/code/shop"),
        ('cd "C:\\Users\\me\\code\\shop" && git push', "C:\\Users\\me", "C:\\Users\\me\\code\\shop"),
        ("cd shop; make", "C:\\Users\\me", "C:\\Users\\me\\shop"),
        ("cd /w && cd shop/.. && cd shop && make", "/", "/w/shop"),
        ("pytest -q", "/home/me", None),
        ("cd - && make", "/home/me", None),
        ("make && cd /elsewhere", "/home/me", None),  # only a leading cd says where it ran
    ],
)
def test_where_a_command_ran(command: str, cwd: str, folder: str | None) -> None:
    assert onfailure.ran_in(command, cwd, "/home/me") == folder
    assert onfailure.without_cd(command).startswith(("git", "make", "pytest", "cd - "))


def test_where_a_command_ran_is_read_from_its_whole_shell_prelude() -> None:
    # The one reading of a prelude (mining.commandline): a cd after another step still moves.
    assert onfailure.ran_in(". .venv/bin/activate && cd shop && make", "/w", "/home/me") == "/w/shop"
    assert onfailure.ran_in('cd "my shop" && make', "/w", "/home/me") == "/w/my shop"


def test_a_session_is_not_told_what_its_own_note_holds(vault: Path, tmp_path: Path) -> None:
    # Its own note (indexed at a Stop, a resume) says what the session said itself.
    note = vault / NOTE
    note.write_text(note.read_text().replace("status: active\n",
                                             "status: active\nsession_ids:\n  - s-own\n", 1))
    index.refresh(Vault(vault))
    failing = _failure("pytest tests/test_db.py -q", f"Exit code 1\n{DB_ERROR}")

    own, _ = _hook("post-tool-use-failure", vault, tmp_path, session_id="s-own", **failing)
    other, _ = _hook("post-tool-use-failure", vault, tmp_path, session_id="s-other", **failing)

    assert own.strip() == ""
    assert "docker-compose.yml" in _context(other, "PostToolUseFailure")


@pytest.mark.parametrize("prompt", ["Looks great. Ship it!", "hmm, still not working",
                                    "resume last session", "that worked, thanks!"])
def test_a_prompt_of_chatter_names_no_task(prompt: str) -> None:
    from vaultmem.claude import onprompt

    assert onprompt.terms(prompt) == []
    assert onprompt.terms("the login still fails on Safari") == ["login", "fails", "safari"]


def test_an_entity_named_by_a_common_word_needs_a_weighty_word_besides() -> None:
    from vaultmem.claude import moments, onprompt
    from vaultmem.notes.facts import Fact, fact_key

    def of(entity: str, text: str) -> moments.Found:
        fact = Fact("gotcha", text, fact_key(text), 0, "2026-11-20")
        return moments.Found(fact, f"claude/projects/{PROJECT}/entities/{entity}.md", entity,
                             "entity", PROJECT, -1.0)

    gpg = of("M Claude", "This is a Windows/MSYS2 gpg-agent socket issue")
    prompt = "is there a session usage tracker for claude on windows?"
    weights = {"claude": 0.1, "windows": 0.1, "session": 0.3, "usage": 2.0, "tracker": 2.5}
    assert onprompt.told(prompt, [gpg], set()) is not None  # unweighed: named, and "windows"
    assert onprompt.told(prompt, [gpg], set(), lambda words: weights) is None
    wan = of("Slate", "DNS leak protection on the WAN interface is disabled")
    told = onprompt.told("is slate connected to wan?", [wan], set(),
                         lambda words: {"slate": 0.5, "connected": 1.0, "wan": 2.0})
    assert told is not None and "entity named" in told.reason


def test_the_project_s_own_subject_and_a_path_s_parts_name_no_task() -> None:
    # In a power applet's project "applet" and "power" are in most notes: a fact sharing them
    # and "cpu" is not about fixing the RAPL permissions. A path is one place named:
    # "~/.local/bin" shared is one word, not "local" and "bin".
    from vaultmem.claude import moments, onprompt
    from vaultmem.notes.facts import Fact, fact_key

    def found(kind: str, text: str) -> moments.Found:
        fact = Fact(kind, text, fact_key(text), 0, "2026-11-20")
        return moments.Found(fact, f"claude/projects/{PROJECT}/_index.md", "_index",
                             "project-index", PROJECT, -1.0)

    weights = {"power": 0.36, "applet": 0.36, "shows": 1.39, "cpu": 1.2, "fix": 0.6,
               "rapl": 1.61, "permissions": 1.61, "rebuild": 2.3, "copy": 1.9, "binary": 2.3,
               ".local/bin": 1.9}
    chose = found("decision", "Chose a panel applet; display format: always show CPU + GPU; "
                  "include a display power estimate")
    setcap = found("next-step", "Set RAPL permissions - the applet can't read CPU power without "
                   "this: `sudo setcap cap_dac_read_search=ep ~/.local/bin/power-applet`")
    prompt = "The power applet still shows -- for the CPU, fix the RAPL permissions"
    assert onprompt.told(prompt, [chose], set()) is not None  # unweighed: three words shared
    told = onprompt.told(prompt, [chose, setcap], set(), lambda words: weights)
    assert told is not None and told.keys == (setcap.fact.key,)
    rebuild = "rebuild the applet and copy the binary to ~/.local/bin"
    assert onprompt.terms(rebuild) == ["rebuild", "applet", "copy", "binary", ".local/bin"]
    assert onprompt.told(rebuild, [setcap], set(), lambda words: weights) is None


def test_a_path_matches_as_a_path_and_a_cd_folder_says_where_not_what() -> None:
    # A Windows path in a prompt is one place, as a POSIX one is, and its parts said again
    # ("M-Claude") are that place; the folder a fact's command went to run in is no subject.
    from vaultmem.claude import moments, onprompt
    from vaultmem.notes.facts import Fact, fact_key

    prompt = r"M-Claude is our repo and local folder(documents\M-Claude"
    assert onprompt.terms(prompt) == ["repo", "local", "folder", "documents/m-claude"]
    assert onprompt.terms(r"cd C:\Users\Me\shop and fix gpg") == ["users/me/shop", "fix", "gpg"]
    gpg = ("Fixed by running `git config --local gpg.program gpg.exe`: `cd ~/Documents/M-Claude "
           "&& git commit` failed (`error: gpg failed to sign the data:`)")
    assert onprompt.shared(onprompt.terms(prompt), gpg) == {"local"}
    assert onprompt.shared(["documents", "m-claude"], gpg) == set()
    fact = Fact("gotcha", gpg, fact_key(gpg), 0, "2026-11-20")
    found = moments.Found(fact, f"claude/projects/{PROJECT}/entities/GPG.md", "GPG", "entity",
                          PROJECT, -1.0)
    assert onprompt.told(prompt, [found], set()) is None
    # A path a fact's work names still matches as a path, and a file by its name.
    setcap = "`sudo setcap cap_dac_read_search=ep ~/.local/bin/applet` in src/app.rs"
    assert onprompt.shared([".local/bin", "app.rs", "bin", "src"], setcap) == {".local/bin",
                                                                             "app.rs"}
    windows = r"Moved the notes to documents\M-Claude\archive (`cd C:\Users\Me\shop`)"
    assert onprompt.shared(["documents/m-claude", "users", "shop", "notes"], windows) == {
        "documents/m-claude", "notes"}
    # A URL and two words joined by a slash are words.
    assert onprompt.shared(["github.com", "gpu"], "see https://github.com/a/b for CPU/GPU") == {
        "github.com", "gpu"}
