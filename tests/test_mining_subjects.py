"""What a command works on: its program, the service it manages, the machine it logs into."""

from __future__ import annotations

import pytest

from vaultmem.mining import subjects
from vaultmem.mining.subjects import Subject


@pytest.mark.parametrize(("command", "found"), [
    ("gitleaks detect --source . 2>&1 | head -20", [("gitleaks", "program")]),
    ("cd ~/shop && npx ccusage daily", [("ccusage", "program")]),
    ("sudo systemctl --user restart cosmic-panel.service", [("cosmic-panel", "service")]),
    ("service nginx reload", [("nginx", "service")]),
    ("brew services restart postgresql", [("postgresql", "service")]),
    # An init script run by path is the service; ssh names the machine, then what runs there.
    ('ssh -p 2222 root@slate "/etc/init.d/dnsmasq restart && uci commit dhcp"',
     [("slate", "machine"), ("dnsmasq", "service"), ("uci", "program")]),
    ('ssh root@192.168.8.1 "opkg remove gl-cloud"', [("opkg", "program")]),
    # A quoted pattern is one word: grep -E "a|b" runs no program a or b.
    ('ls -la | grep -E "M-Claude|M-Gemini"', []),
    # Shell keywords, loops, looks at the system and PowerShell's cmdlets name no subject.
    ('for f in *.log; do gzip "$f"; done', []),
    ("whoami && uname -a && journalctl -u x", []),
    ('powershell "Get-Service | Select-Object Name"', []),
])
def test_of_command(command: str, found: list[tuple[str, str]]) -> None:
    assert [(s.name, s.kind) for s in subjects.of_command(command)] == found


def test_an_everyday_word_is_no_subject_of_prose() -> None:
    assert Subject("dnsmasq", "service").in_prose
    assert not Subject("make", "program").in_prose  # "make sure"
    assert not Subject("ip", "program").in_prose  # "the IP address"
    assert Subject("slate", "machine").worked_on and not Subject("git", "program").worked_on


def test_a_subject_is_named_as_the_sessions_prose_spells_it() -> None:
    note = """\
# Router

The UCI server option is read as a list by UCI: `uci add_list dhcp.server=x`, then uci commit.
- Uci was fine before. Fixed: the Blocky upstream; restarting Blocky helped.
gl_screen polled the removed services.

```
UCI UCI Gl_screen DNSMASQ
```
"""
    assert subjects.spelled(note, ["uci", "gl_screen", "blocky", "dnsmasq"]) == {
        "uci": "UCI",  # inside a sentence twice; lower case once, a sentence's start aside
        "gl_screen": "gl_screen",  # only at a line's start: as the commands write it
        "blocky": "Blocky",
        "dnsmasq": "dnsmasq",  # only in a fence: as written
    }
