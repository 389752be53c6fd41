"""One reading of a shell command line for every miner (mining/commandline)."""

from __future__ import annotations

import pytest

from vaultmem.mining import commandline, fixes, settingcmds, subjects, tools


@pytest.mark.parametrize(("line", "parts"), [
    ("cd x && pytest -q", [("cd x ", ""), (" pytest -q", "&&")]),
    ('grep -E "a|b" f; ls', [('grep -E "a|b" f', ""), (" ls", ";")]),
    ("make 2>&1 | tail", [("make 2>&1 ", ""), (" tail", "|")]),
    ("cmd &> log || echo no", [("cmd &> log ", ""), (" echo no", "||")]),
    ("sleep 5 & curl x", [("sleep 5 ", ""), (" curl x", "&")]),
    ("a\nb", [("a", ""), ("b", "\n")]),
    ("echo 'a;b' \"c\\\"&d\"", [("echo 'a;b' \"c\\\"&d\"", "")]),
])
def test_commands_split_outside_quotes_only(line: str, parts: list[tuple[str, str]]) -> None:
    assert commandline.commands(line) == parts


def test_words_keep_a_quoted_word_whole() -> None:
    assert commandline.words('docker ps --format="{{.Names}} x" \'a b\'') == [
        "docker", "ps", '--format="{{.Names}} x"', "'a b'"]
    assert commandline.words('git commit -m "$(cat <<\'EOF\'') == ["git", "commit", "-m", "\"$(cat <<'EOF'"]


def test_command_words_leave_out_empty_commands() -> None:
    assert commandline.command_words("a && ; b c") == [["a"], ["b", "c"]]


@pytest.mark.parametrize(("word", "read"), [
    ('--name="a b"', "--name=a b"),
    ("'it'\\''s'", "it's"),
    ("a\\ b", "a b"),
    ('"say \\"hi\\" \\n"', 'say "hi" \\n'),  # in double quotes only \" \\ \$ \` are escapes
    ('"$(cat <<\'EOF\'', "$(cat <<'EOF'"),  # a quote left open runs to the end
    ("tests/", "tests/"),
])
def test_a_word_is_read_as_the_program_gets_it(word: str, read: str) -> None:
    assert commandline.unquoted(word) == read


@pytest.mark.parametrize(("words", "inner"), [
    (["bash", "-c", '"a && b"'], "a && b"),
    (["/bin/sh", "-lc", "'x'"], "x"),
    (["bash", "-c", '"open'], "open"),
    (["bash", "-c", '"echo \\"a b\\" && ls"'], 'echo "a b" && ls'),
    (["bash", "script.sh"], None),
    (["powershell.exe", "-Command", '"x"'], None),
    (["python", "-c", '"x"'], None),
])
def test_shell_string(words: list[str], inner: str | None) -> None:
    assert commandline.shell_string(words) == inner


@pytest.mark.parametrize(("words", "found"), [
    (["ssh", "-p", "2222", "root@slate", '"uci set a=b && uci commit"'],
     ("root@slate", "uci set a=b && uci commit")),
    (["/usr/bin/ssh", "-o", "ConnectTimeout=5", "-t", "nas", "df", "-h"], ("nas", "df -h")),
    (["ssh", "h", '"/etc/init.d/\\$s stop"'], ("h", "/etc/init.d/$s stop")),  # the escape read
    (["mosh", "host", "--", "htop"], ("host", "htop")),
    (["ssh", "slate"], ("slate", "")),  # a login
    (["ssh", "-i", "key"], None),
    (["scp", "a", "h:b"], None),
])
def test_remote_reads_where_a_remote_shell_runs_and_what(
        words: list[str], found: tuple[str, str] | None) -> None:
    assert commandline.remote(words) == found


def test_the_miners_read_a_quoted_separator_as_text() -> None:
    # Each of these split inside the quotes before the miners shared one reading.
    assert tools.program("sleep 5 & pytest -q", "pytest: error: x") == "pytest"
    assert tools.program('grep -E "x|pytest -q" log', "pytest: error: x") is None  # grep's
    assert settingcmds.parts('echo "a=1; b=2" >> /etc/app.conf') == ('echo "a=1; b=2" >> /etc/app.conf',)
    assert settingcmds.parts('gh pr create --body "run pip install -r dev.txt && pytest"') == ()
    assert fixes.passes('grep -E "a|b" f && pytest -q') >= {fixes.state_key("pytest -q")}


def test_a_shell_or_remote_shell_command_is_read_for_its_own_commands() -> None:
    assert settingcmds.parts("sudo sh -c 'apt-get install -y jq && echo ok'") == ("apt-get install -y jq",)
    assert settingcmds.parts('ssh root@h "uci set a.b=1; uci commit"') == ("uci set a.b=1",)
    # ssh's own options, and a command line it runs unquoted, read as ssh reads them.
    assert settingcmds.parts("ssh -i ~/.ssh/k -t pi sudo apt-get install -y jq") == (
        "sudo apt-get install -y jq",)
    assert settingcmds.parts('ssh h "/etc/init.d/\\$s stop; /etc/init.d/\\$s disable"') == (
        "/etc/init.d/$s disable",)
    assert tools.ssh_host("cd x && ssh -p 22 'pi@Pi4' uptime") == "pi4"
    assert [s.name for s in subjects.of_command("bash -c 'systemctl restart nginx'")] == ["nginx"]


@pytest.mark.parametrize(("line", "shape"), [
    ('git commit -m "Add billing retries" && git push', "git commit -m && git push"),
    ("echo 'Deploy done'; ./deploy.sh --env prod", "echo ; ./deploy.sh --env prod"),
    ('gh pr create --title="Fix the thing" --body "why"', 'gh pr create --title= --body "why"'),
    # A command line a shell or ssh runs is read as one; a quoted path or name is no data.
    ('bash -lc "cargo build && echo \\"built it\\""', "bash -lc cargo build && echo"),
    ('ssh root@host "rm -rf /www/x && echo \'Removed files\'"', "ssh root@host rm -rf /www/x && echo"),
    ('cd "/home/me/My Project" && pytest -q', 'cd "/home/me/My Project" && pytest -q'),
    ("pip install 'pytest-asyncio>=0.2'", "pip install 'pytest-asyncio>=0.2'"),
    ('grep -E "a|b" f.txt', 'grep -E "a|b" f.txt'),
])
def test_a_command_line_is_read_without_the_data_it_quotes(line: str, shape: str) -> None:
    assert commandline.without_data(line) == shape


@pytest.mark.parametrize(("line", "runs"), [
    ("cd ~/shop && uv run pytest -q 2>&1 | tail -20", ("uv", "run", "pytest", "-q")),
    ("cd x; make all", ("make", "all")),
    ("which grim || which scrot", ("which", "grim")),  # the fallback runs only on a failure
    ('cargo build --release && echo "Installed"', ("cargo", "build", "--release")),
    ('rm k.asc && echo "A1:6:" | gpg --import-ownertrust', ("gpg", "--import-ownertrust")),
    ("killall panel; sleep 3; panel &", ("panel",)),
    ("for f in *.md; do wc -l $f; done", ("wc", "-l", "$f")),
    ('ssh root@host "sleep 3 && opkg remove kmod-x"', ("opkg", "remove", "kmod-x")),
    ('echo "done"', ("echo", "done")),  # nothing else ran
])
def test_what_a_command_line_runs_is_its_last_command_doing_the_work(
        line: str, runs: tuple[str, ...]) -> None:
    assert commandline.runs(commandline.run_key(line)) == runs


def test_the_failure_hook_reads_a_command_s_shape_as_the_miners_do() -> None:
    from vaultmem.claude.onfailure import shape

    # Before, a quoted separator split the line ("|" inside grep's pattern).
    assert shape('grep -E "a && b" f.txt | wc -l') == ["grep"]
    assert shape("cd x; make all 2>&1 | tail") == ["make", "all"]
