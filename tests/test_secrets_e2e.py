"""Issue 23 §1 end to end: a session full of secrets goes through the hooks, compaction, recall
and the briefing, and no secret value is left in any file of the vault (the index included), any
file name, or anything printed. Then doctor finds a secret a person pasted, and --fix redacts it."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hook_kit import PROJECT, SID, hook_env, payload, run_cli, run_hook, snapshot

# Fake values, built so that no line of this file is itself a key.
GITHUB = "ghp_" + "Zx81Kq0pLm2Vn7Bc4Rt6Yu9Io3Pa5Sd1Fg8H"
AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/" + "bPxRfiCYzQ81vLK2"
DB_PASSWORD = "Sup3r" + "S3cretDbPass"
ANTHROPIC = "sk-ant-" + "api03-Q1w2E3r4T5y6U7i8O9p0AsDfGhJkLzXcVbNm-1234567890qwerty-ABCD"
STRIPE = "sk_live_" + "51Hq8ZrXvLm3Pq9WtYb2Nc4D"
KEY_BODY = [
    "MIIEowIBAAKCAQEAx8Kq3ZbN0pLm2Vn7Bc4Rt6Yu9Io3Pa5Sd1Fg8HjKlZxCvBnMqWeRtYuIoP",
    "aSdFgHjKlZxCvBnMqWeRtYuIoPaSdFgHjKlZxCvBnMqWeRtYuIo1234567890AbCdEfGhIj",
]
PRIVATE_KEY = "\n".join(["-----BEGIN RSA PRIVATE KEY-----", *KEY_BODY,
                         "-----END RSA PRIVATE KEY-----"])
# Shapes with no vendor prefix, known by their context only (issue 28's attack round three).
PGPASS = "Pg" + "Pa55w0rdLine"
LOGIN = "L0gin" + "S3cretPass"
HOSTPASS = "R00t" + "PassX9q"
SUDO = "Mk8!" + "sudoPw42"  # piped into sudo -S: an agent has no terminal for sudo's prompt
TABLED = "Xk2!" + "mq88Lpz"  # a row's cell under a table's password column
CHOSEN = "Adm!n" + "Choice77"  # the person's pick of AskUserQuestion's password options
WIFI = "sunflower" + "-meadow-88"  # a wifi key: a network's password by another name
SECRETS = [GITHUB, AWS_SECRET, DB_PASSWORD, ANTHROPIC, STRIPE, *KEY_BODY, PGPASS, LOGIN, HOSTPASS,
           SUDO, TABLED, CHOSEN, WIFI]
# A piece of each value from its middle: a secret cut in two must not survive either.
PIECES = [s[len(s) // 3: len(s) // 3 + 10] for s in SECRETS]


def _line(kind: str, uuid: str, content: Any, minute: int) -> str:
    return json.dumps({
        "type": kind, "uuid": uuid, "sessionId": SID, "cwd": "/home/dev/work/shop",
        "timestamp": f"2026-11-22T10:{minute:02d}:00.000Z",
        "message": {"role": kind, "content": content},
    })


def _bash(ident: str, command: str) -> dict[str, Any]:
    return {"type": "tool_use", "id": ident, "name": "Bash", "input": {"command": command}}


def _result(ident: str, output: str, error: bool) -> dict[str, Any]:
    return {"type": "tool_result", "tool_use_id": ident, "is_error": error, "content": output}


def _transcript(path: Path) -> None:
    lines = [
        _line("user", "u1", f"Deploy the billing service, use token {GITHUB} for the registry", 1),
        _line("assistant", "a1", [
            {"type": "text", "text": "Listing the bucket first."},
            _bash("t1", f"export AWS_SECRET_ACCESS_KEY={AWS_SECRET} && aws s3 ls"),
            _bash("t2", f'psql "postgres://admin:{DB_PASSWORD}@db.internal:5432/billing" -c "select 1"'),
            _bash("t3", "python -m billing.charge --dry-run"),
            _bash("t4", f"echo 'db.internal:5432:billing:admin:{PGPASS}' >> ~/.pgpass"),
            _bash("t5", f"echo '{SUDO}' | sudo -S systemctl restart billing"),
            {"type": "tool_use", "id": "t6", "name": "AskUserQuestion", "input": {"questions": [{
                "question": "Which password should the billing admin get?", "header": "Admin",
                "multiSelect": False, "options": [
                    {"label": CHOSEN, "description": "the one you used on staging"},
                    {"label": "generate one", "description": "random, into the vault"}]}]}},
        ], 2),
        _line("user", "u2", [
            _result("t1", "2026-11-01 billing-artifacts", False),
            _result("t2", " ?column? \n----------\n        1", False),
            _result("t4", "", False),
            _result("t5", "", False),
            _result("t6", "User has answered your questions: \"Which password should the billing"
                          f" admin get?\"=\"{CHOSEN}\". You can now continue with the user's"
                          " answers in mind.", False),
            _result("t3", "Traceback (most recent call last):\n  File \"x.py\", line 3\n"
                          f"anthropic.AuthenticationError: invalid x-api-key {ANTHROPIC}", True),
        ], 3),
        _line("assistant", "a2", [{"type": "text", "text": (
            "The charge script failed on authentication.\n\n"
            f"Prerequisite: make sure `STRIPE_SECRET_KEY={STRIPE}` is exported before running it.\n"
            f"Decision: keep the deploy token `{GITHUB}` in the CI secret store, not in the repo.\n"
            f"Here is the key you asked for:\n{PRIVATE_KEY}\n"
            f"The staging box takes login with admin / {LOGIN}, or ssh root:{HOSTPASS}@10.0.0.5.\n"
            "Accounts on staging:\n\n| env | user | password |\n|---|---|---|\n"
            f"| staging | billing | {TABLED} |\n\n"
            f"The wifi key for the office is `{WIFI}`.\n"
            "Next step: rotate the AWS key.")}], 4),
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def _leaks(data: bytes | str) -> list[str]:
    raw = data.encode() if isinstance(data, str) else data
    return [s for s in [*SECRETS, *PIECES] if s.encode() in raw]


def _session(tmp_path: Path, write: Callable[[Path], None]) -> tuple[Path, Path, dict[str, str]]:
    """The transcript ``write`` makes, through the real hooks into a new vault, nothing leaked
    in what they print: (vault, transcript, the CLI's environment)."""
    vault = tmp_path / "vault"
    vault.mkdir()
    transcript = tmp_path / "transcript.jsonl"
    write(transcript)
    for event in ("session-start", "stop", "session-end"):
        proc = run_hook(event, payload(event, transcript), vault, cwd=tmp_path)
        assert proc.returncode == 0 and proc.stderr == b"", proc.stderr
        assert _leaks(proc.stdout) == []
    return vault, transcript, hook_env(vault, VAULTMEM_PROJECT=PROJECT)


def test_no_secret_reaches_the_vault_a_file_name_the_briefing_or_recall(tmp_path: Path) -> None:
    vault, transcript, env = _session(tmp_path, _transcript)
    compact = run_cli(["compact", "--force"], cwd=tmp_path, env=env)
    assert compact.returncode == 0, compact.stderr
    outputs = [compact.stdout + compact.stderr]
    for query in ("billing", "deploy token", "STRIPE_SECRET_KEY", "AWS_SECRET_ACCESS_KEY", "psql"):
        recall = run_cli(["recall", query, "--json"], cwd=tmp_path, env=env)
        assert recall.returncode == 0, recall.stderr
        outputs.append(recall.stdout)
    context = run_cli(["context"], cwd=tmp_path, env=env)
    assert context.returncode == 0, context.stderr
    outputs.append(context.stdout)
    start = run_hook("session-start", payload("session-start", transcript, session_id="s2"),
                     vault, cwd=tmp_path)
    outputs.append(start.stdout.decode())

    files = snapshot(vault)
    assert (vault / ".vaultmem" / "index.sqlite").exists()
    assert {rel: _leaks(data) for rel, data in files.items() if _leaks(data)} == {}
    names = [rel for rel in files if _leaks(rel)]
    assert names == []
    assert [_leaks(out) for out in outputs if _leaks(out)] == []
    # The facts stay, without their values.
    everything = "\n".join(data.decode("utf-8", "replace") for rel, data in files.items()
                           if rel.endswith(".md"))
    assert "AWS_SECRET_ACCESS_KEY=‹redacted:aws›" in everything
    assert "postgres://admin:‹redacted:password›@db.internal" in everything
    assert "STRIPE_SECRET_KEY=‹redacted:stripe›" in everything
    assert "‹redacted:private-key›" in everything
    assert "‹redacted:anthropic›" in everything
    # The first prompt named the note: its topic holds the mark's words, not the token.
    session_names = [rel for rel in files if "/sessions/" in rel and rel.endswith(".md")]
    assert session_names and all("ghp" not in rel.lower() for rel in session_names)


def test_doctor_reports_a_secret_by_line_and_fix_redacts_it_in_place(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    note = vault / "claude" / "projects" / PROJECT / "entities" / "Billing.md"
    note.parent.mkdir(parents=True)
    person = ("---\r\ntype: entity\r\n---\r\n# Billing\r\n\r\nSome notes.\r\n"
              f"The key: STRIPE_SECRET_KEY={STRIPE} (test account)\r\n")
    note.write_bytes(person.encode("utf-8"))
    mine = vault / "Diary.md"
    mine.write_text(f"export GITHUB_TOKEN={GITHUB}\n", encoding="utf-8")
    env = hook_env(vault, VAULTMEM_PROJECT=PROJECT)
    env.pop("VAULTMEM_NOW", None)

    report = run_cli(["doctor"], cwd=tmp_path, env=env)
    assert report.returncode == 1
    rel = note.relative_to(vault).as_posix()
    assert f"{rel}:7: secret: a stripe secret (value withheld)" in report.stdout
    assert "`vaultmem doctor --fix` repairs 1 secret\n" in report.stderr
    assert _leaks(report.stdout + report.stderr) == []
    as_json = run_cli(["doctor", "--json", "--all"], cwd=tmp_path, env=env)
    doc = json.loads(as_json.stdout)
    found = [p for p in doc["problems"] + doc["outside"] if p["kind"] == "secret"]
    assert {(p["path"], p["line"]) for p in found} == {(rel, 7), ("Diary.md", 1)}
    assert _leaks(as_json.stdout) == []

    fixed = run_cli(["doctor", "--fix"], cwd=tmp_path, env=env)
    assert f"{rel}: 1 secret(s) redacted" in fixed.stdout
    assert "doctor --fix" not in fixed.stderr
    # Byte for byte but the value: CRLF kept.
    assert note.read_bytes() == person.replace(STRIPE, "‹redacted:stripe›").encode("utf-8")
    # A person's own note outside vaultmem's folder is never rewritten (issue 30), even with
    # --all: it is reported, and what vaultmem shows of it is redacted.
    run_cli(["doctor", "--fix", "--all"], cwd=tmp_path, env=env)
    assert mine.read_text(encoding="utf-8") == f"export GITHUB_TOKEN={GITHUB}\n"
    again = run_cli(["doctor", "--all"], cwd=tmp_path, env=env)
    assert "Diary.md:1: secret:" in again.stdout and "your own note" in again.stdout
    assert "doctor --fix" not in again.stderr  # --fix never rewrites a person's own note
    assert f"{rel}:" not in again.stdout and _leaks(again.stdout + again.stderr) == []


def _tool_input_transcript(path: Path) -> None:
    """A session whose secrets are only in tool inputs: a ``.env`` written and edited, a token
    set by a settings command (issue 28: what tool inputs changed is kept, redacted)."""
    cwd = "/home/dev/work/shop"
    env_file = (f"PORT=8080\nDB_PASSWORD={DB_PASSWORD}\nSTRIPE_KEY={STRIPE}\n"
                f"AWS_SECRET_ACCESS_KEY={AWS_SECRET}\nWIFI_PSK={WIFI}\nADMIN_PASS={HOSTPASS}\n")
    lines = [
        _line("user", "u1", "Set up the local env for the billing service", 1),
        _line("assistant", "a1", [
            {"type": "tool_use", "id": "w1", "name": "Write",
             "input": {"file_path": f"{cwd}/.env", "content": env_file}},
            {"type": "tool_use", "id": "e1", "name": "Edit",
             "input": {"file_path": f"{cwd}/.env", "old_string": "PORT=8080",
                       "new_string": f"PORT=9090\nGITHUB_TOKEN={GITHUB}\nLOGIN_PW={LOGIN}"}},
            {"type": "tool_use", "id": "m1", "name": "MultiEdit",
             "input": {"file_path": f"{cwd}/config/app.yaml", "edits": [
                 {"old_string": "retries: 3", "new_string": f"retries: 5\napi_key: {ANTHROPIC}"}]}},
            _bash("b1", f"git config --global github.token {GITHUB} && npm i -D vitest"),
            _bash("b2", f"npm config set //registry.npmjs.org/:_authToken={STRIPE}"),
        ], 2),
        _line("user", "u2", [_result(i, "ok", False) for i in ("w1", "e1", "m1", "b1", "b2")], 3),
        _line("assistant", "a2", [{"type": "text", "text": "The env is set up."}], 4),
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def test_no_secret_in_a_tool_input_reaches_the_vault(tmp_path: Path) -> None:
    vault, _, env = _session(tmp_path, _tool_input_transcript)
    assert run_cli(["compact", "--force"], cwd=tmp_path, env=env).returncode == 0
    outputs = [run_cli(["recall", query, "--json"], cwd=tmp_path, env=env).stdout
               for query in ("PORT", "DB_PASSWORD", "github.token", "api_key", "authToken")]
    outputs.append(run_cli(["context"], cwd=tmp_path, env=env).stdout)
    files = snapshot(vault)
    assert {rel: _leaks(data) for rel, data in files.items() if _leaks(data)} == {}
    assert [_leaks(out) for out in outputs if _leaks(out)] == []
    # The settings stay, without the secrets' values.
    everything = "\n".join(data.decode("utf-8", "replace") for rel, data in files.items()
                           if rel.endswith(".md"))
    assert "`PORT: 8080 → 9090`" in everything  # the Write set 8080, the Edit after it 9090
    assert "`retries: 3 → 5`" in everything and "- Installed: `npm i -D vitest`" in everything
    assert "DB_PASSWORD = ‹redacted:" in everything
    assert any('"PORT' in out or "PORT = 8080" in out for out in outputs[:1])


# Round six's shapes (issue 28), one in each channel a session writes: known by the words
# around them, none by a vendor's prefix.
PHRASE = "lantern pebble " + "orchard violet"  # a passphrase on the line after its label
PAIRED = "Spr1ng" + "#Rain"  # a list of logins and passwords, no secret word
BARE_KEY = "7c1e9a44b02d" + "5f3e8a6b9c0d1e2f3a4b"  # after a bare "key"
SECTION = "Qx7!" + "vault2"  # under an INI section named a secret
SENT = "Exp!" + "Send42"  # an expect script's answer to a password prompt
MIXED = "Relay" + "#Mail"  # right after a password word
ASKED = "9e8d7c6b5a49" + "382716f5e4d3c2b1a0ff"  # a bare key, as the person's answer
SCHEMED = "7c9e2f1a-4b3d-" + "4e5f-8a6b-9c0d1e2f3a4b"  # after an Authorization scheme of any name
TITLED = "ox elm " + "ivy yak"  # a quoted passphrase in the session's title
SUMMED = "Summer" + "!Beach"  # in a compact summary
REMEMBERED = "Tide" + "!Pool"  # in a note the person remembers from the CLI
ROUND_SIX = [PHRASE, PAIRED, BARE_KEY, SECTION, SENT, MIXED, ASKED, SCHEMED, TITLED, SUMMED,
             REMEMBERED]


def _round_six_transcript(path: Path) -> None:
    cwd = "/home/dev/work/shop"
    lines = [
        json.dumps({"type": "ai-title", "sessionId": SID,
                    "aiTitle": f"Set passphrase '{TITLED}' on the backup vault"}),
        _line("user", "u1", f"Set up the backup vault. The passphrase is:\n  {PHRASE}", 1),
        _line("assistant", "a1", [
            {"type": "tool_use", "id": "w1", "name": "Write", "input": {
                "file_path": f"{cwd}/deploy.ini", "content": f"[credentials]\nops = {SECTION}\n"}},
            _bash("b1", f"expect -c 'spawn restic init; expect \"password:\"; send \"{SENT}\\r\"'"),
            {"type": "tool_use", "id": "t1", "name": "TodoWrite", "input": {"todos": [
                {"content": f"Rotate the Authorization: Acme-HMAC {SCHEMED} header",
                 "status": "pending", "activeForm": "Rotating the header"}]}},
            {"type": "tool_use", "id": "q1", "name": "AskUserQuestion", "input": {"questions": [{
                "question": "Which key signs the backups?", "header": "Key", "multiSelect": False,
                "options": [{"label": "a new one", "description": "generated"},
                            {"label": "the old one", "description": "from the vault"}]}]}},
        ], 2),
        _line("user", "u2", [
            _result("w1", "ok", False),
            _result("b1", f"relay password {MIXED} accepted", False),
            _result("t1", "ok", False),
            _result("q1", "User has answered your questions: \"Which key signs the backups?\""
                          f"=\"key {ASKED}\". You can now continue with the user's answers in"
                          " mind.", False),
        ], 3),
        json.dumps({"type": "user", "uuid": "c1", "sessionId": SID, "cwd": cwd,
                    "isCompactSummary": True, "timestamp": "2026-11-22T10:04:00.000Z",
                    "message": {"role": "user", "content": (
                        "This session is being continued from a previous conversation.\n"
                        f"Summary:\n1. The person said: my password {SUMMED}\n"
                        "2. Pending Tasks: rotate the header")}}),
        _line("assistant", "a2", [{"type": "text", "text": (
            f"The vault is set up with key {BARE_KEY}.\n"
            f"Accounts on staging: carol / Wint3r!Sun, dave / {PAIRED}\n"
            "Next step: rotate the Acme header.")}], 5),
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def test_round_six_shapes_reach_no_channel_of_the_vault(tmp_path: Path) -> None:
    """A passphrase, a bare key, a login list, an expect answer, a section of secrets... in a
    prompt, an answer, tool inputs and results, a todo, a question's answer, the title, a compact
    summary and a CLI note: none reaches the vault, the index, the briefing or recall."""
    vault, transcript, env = _session(tmp_path, _round_six_transcript)
    remember = run_cli(["remember", f"the smtp relay takes password {REMEMBERED} since May",
                        "--kind", "gotcha"], cwd=tmp_path, env=env)
    assert remember.returncode == 0, remember.stderr
    outputs = [remember.stdout + remember.stderr]
    assert run_cli(["compact", "--force"], cwd=tmp_path, env=env).returncode == 0
    for query in ("backup vault", "passphrase", "staging accounts", "relay password", "key"):
        outputs.append(run_cli(["recall", query, "--json"], cwd=tmp_path, env=env).stdout)
    outputs.append(run_cli(["context"], cwd=tmp_path, env=env).stdout)
    start = run_hook("session-start", payload("session-start", transcript, session_id="s2"),
                     vault, cwd=tmp_path)
    outputs.append(start.stdout.decode())
    files = snapshot(vault)
    assert (vault / ".vaultmem" / "index.sqlite").exists()
    leaks = {rel: [s for s in ROUND_SIX if s.encode() in data] for rel, data in files.items()}
    assert {rel: found for rel, found in leaks.items() if found} == {}
    assert [s for s in ROUND_SIX for out in outputs if s in out] == []
    everything = "\n".join(data.decode("utf-8", "replace") for rel, data in files.items()
                           if rel.endswith(".md"))
    assert "‹redacted:" in everything and "backup vault" in everything.lower()


# Round seven's shapes (issue 28): a Digest response, a token as a URL's userinfo, ODBC's braced
# password, Azure's keys, CLIs' password flags, a passcode, a value before its secret word, a
# wifi password; each in a channel a session writes.
DIGEST = "6629fae49393a053" + "97450978507c4ef1"
URL_TOKEN = "gHtok12345abc" + "deXYZ9"
URL_PASSWORD = "Mng0" + "Pass77"
BRACED = "Pa;ss=" + "w0rd!"
INSTRUMENTATION = "4f8e2c1a-9b3d-4e5f-" + "8a7b-6c9d0e1f2a3b"
SHARED_KEY = "AbCdEfGh12345678" + "90IjKlMnOpQrSt="
SNOWSQL = "loader" + "secretpw"
CQLSH = "Cass" + "Pw123x"
PASSCODE = "7731-" + "9925"
BEFORE = "Hunter2" + "Blue"
USE_FOR = "Adm1n-" + "Gr8x"
WIFI_PASS = "Pass!" + "77home"
ROUND_SEVEN = [DIGEST, URL_TOKEN, URL_PASSWORD, BRACED, INSTRUMENTATION, SHARED_KEY, SNOWSQL,
               CQLSH, PASSCODE, BEFORE, USE_FOR, WIFI_PASS]


def _round_seven_transcript(path: Path) -> None:
    cwd = "/home/dev/work/shop"
    lines = [
        _line("user", "u1", f"Fix the data sync. The door passcode is {PASSCODE}, and "
                            f"wifi: ShopNet / {WIFI_PASS}", 1),
        _line("assistant", "a1", [
            _bash("b1", f"git remote set-url origin https://{URL_TOKEN}@github.com/acme/sync.git"),
            _bash("b2", f"snowsql -a xy12345 -u loader -p {SNOWSQL} -q 'select 1'"),
            _bash("b3", f"cqlsh -u cassandra -p {CQLSH} cass.internal"),
            {"type": "tool_use", "id": "w1", "name": "Write", "input": {
                "file_path": f"{cwd}/appsettings.json", "content": (
                    '{"ConnectionStrings": {"Sql": "Driver={ODBC Driver 18};Server=db;Uid=sa;'
                    f'Pwd={{{BRACED}}};", "Insights": "InstrumentationKey={INSTRUMENTATION};'
                    'IngestionEndpoint=https://x.azure.com/", "Hub": "HostName=h.azure-devices.net;'
                    f'DeviceId=d1;SharedAccessKey={SHARED_KEY}"}}}}')}},
        ], 2),
        _line("user", "u2", [
            _result("b1", "", False),
            _result("b2", "401: the server sent WWW-Authenticate; the client sent Authorization:"
                          f' Digest username="loader", nonce="abc", response="{DIGEST}"', True),
            _result("b3", f"Connected via mongodb+srv://admin:{URL_PASSWORD}@c0.mongodb.net", False),
            _result("w1", "ok", False),
        ], 3),
        _line("assistant", "a2", [{"type": "text", "text": (
            "Snowflake refused the login: the digest above failed.\n"
            f"Gotcha: `{BEFORE}` is the admin password for the sync box, so use `{USE_FOR}` for"
            " the replica password.\n"
            "Next step: move the connection strings to the vault.")}], 4),
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def test_round_seven_shapes_reach_no_channel_of_the_vault(tmp_path: Path) -> None:
    """Each round-seven shape in a prompt, a command, a file written, a tool's output or an
    answer: none reaches a note, the index, the briefing or recall."""
    vault, _, env = _session(tmp_path, _round_seven_transcript)
    assert run_cli(["compact", "--force"], cwd=tmp_path, env=env).returncode == 0
    outputs = [run_cli(["recall", query, "--json"], cwd=tmp_path, env=env).stdout
               for query in ("snowsql", "connection strings", "admin password", "wifi", "digest")]
    outputs.append(run_cli(["context"], cwd=tmp_path, env=env).stdout)
    files = snapshot(vault)
    assert (vault / ".vaultmem" / "index.sqlite").exists()
    leaks = {rel: [s for s in ROUND_SEVEN if s.encode() in data] for rel, data in files.items()}
    assert {rel: found for rel, found in leaks.items() if found} == {}
    assert [s for s in ROUND_SEVEN for out in outputs if s in out] == []
    everything = "\n".join(data.decode("utf-8", "replace") for rel, data in files.items()
                           if rel.endswith(".md"))
    assert "snowsql -a xy12345 -u loader -p ‹redacted:password›" in everything
    assert "https://‹redacted:token›@github.com/acme/sync.git" in everything


# Round eight's shapes (issue 28): a value in bold before its secret word, an unclosed bold after
# it, a password of one dictionary word, a question's answer, a shell's environment assignment
# and a libpq connection string in prose; each beside a near miss that must stay as written.
BOLD_BEFORE = "Zq7-hunter2" + "-Lk"
BOLD_AFTER = "Hunter2" + "x9Bold"
UNCLOSED = "Xy9abc" + "123defQ"
DICTIONARY = "tange" + "rine"
ANSWERED = "Zebra!" + "42quagga"
ENV_WORD = "quokka" + "pass"
CONNINFO = "wombat" + "secret"
COLONED = "Koala!" + "19xq"  # after "is:", a copula and a colon
ADDRESSED = "Ibis" + "#42wren"  # after "Password for <login address>:"
ROUND_EIGHT = [BOLD_BEFORE, BOLD_AFTER, UNCLOSED, DICTIONARY, ANSWERED, ENV_WORD, CONNINFO,
               COLONED, ADDRESSED]
NEAR_MISSES = ["use **argon2id** as the password hash", "the password is hashed with bcrypt",
               "the admin password? it's stored in Vault", "AUTH_PROVIDER=github npm start"]


def _round_eight_transcript(path: Path) -> None:
    lines = [
        _line("user", "u1", f"Set up the admin box: use **{BOLD_BEFORE}** as the admin password."
                            f" The mail password is {DICTIONARY}", 1),
        _line("assistant", "a1", [
            {"type": "text", "text": "Starting the database."},
            _bash("b1", f"MYSQL_ROOT_PASSWORD={ENV_WORD} docker compose up -d db"),
        ], 2),
        _line("user", "u2", [_result("b1", "Container db Started", False)], 3),
        _line("user", "u3", f"the replica password? it's {ANSWERED}. The vault password is:"
                            f" {COLONED}\nPassword for ops@example.com: {ADDRESSED}", 4),
        _line("assistant", "a2", [{"type": "text", "text": (
            f"Done: the staging password is **{BOLD_AFTER}** now, and I set the api key to"
            f" **{UNCLOSED}\n\n"
            f'Gotcha: psql needs "host=db user=app password={CONNINFO} dbname=shop" here.\n'
            "Decision: use **argon2id** as the password hash; the password is hashed with bcrypt"
            " elsewhere.\n"
            "You asked: the admin password? it's stored in Vault\n"
            "The app starts with AUTH_PROVIDER=github npm start\n"
            "Next step: rotate the admin password.")}], 5),
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def test_round_eight_shapes_reach_no_channel_of_the_vault(tmp_path: Path) -> None:
    """Each round-eight shape in a prompt or an answer: none reaches a note or the index, the
    bold around a value stays balanced, and the near misses stay as they were written."""
    vault, _, env = _session(tmp_path, _round_eight_transcript)
    assert run_cli(["compact", "--force"], cwd=tmp_path, env=env).returncode == 0
    outputs = [run_cli(["recall", query, "--json"], cwd=tmp_path, env=env).stdout
               for query in ("admin password", "api key", "password hash")]
    outputs.append(run_cli(["context"], cwd=tmp_path, env=env).stdout)
    files = snapshot(vault)
    assert (vault / ".vaultmem" / "index.sqlite").exists()
    leaks = {rel: [s for s in ROUND_EIGHT if s.encode() in data] for rel, data in files.items()}
    assert {rel: found for rel, found in leaks.items() if found} == {}
    assert [s for s in ROUND_EIGHT for out in outputs if s in out] == []
    everything = "\n".join(data.decode("utf-8", "replace") for rel, data in files.items()
                           if rel.endswith(".md"))
    assert "**‹redacted:password›**" in everything
    marks = re.finditer(r"(\**)‹redacted:[^›]*›(\**)", everything)
    assert [m.group(0) for m in marks if m.group(1) != m.group(2)] == []
    assert [near for near in NEAR_MISSES if near not in everything] == []
