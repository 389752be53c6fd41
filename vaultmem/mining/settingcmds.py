"""The parts of a Bash command that change a machine's or a project's settings, or install
something (pure; issue 28: knowledge that lives only in tool inputs).

"Which packages did we install?", "what did we set pull.rebase to?": the answer is a command
Claude ran, often one part of a compound line (``cd x && npm i -D vitest``) or inside a remote
shell's quotes (``ssh host "uci set … && uci commit"``). Each part of the (redacted) command is
read on its own, ``&&``, ``||``, ``;``, ``|`` and quotes ending it, and kept when its shape is:

- an install or removal by a package manager, with a package named (``brew install x``,
  ``npm i -D vitest``, ``pip install x``, ``cargo add x``, ``apt-get install -y x``…); a bare
  ``npm install`` (the lockfile's packages) tells nothing new;
- a settings command that writes (``git config --global k v``, ``defaults write``, ``gsettings
  set``, ``sysctl -w``, ``systemctl enable|disable|mask``, an init script's ``enable|disable``,
  ``uci set|add_list|delete``, ``npm config set``, ``reg add``, ``Set-ItemProperty``, ``setx``…);
  a read (``git config k``, ``uci show``) is none;
- an in-place edit (``sed -i``) or a line appended to a config file (``echo k=v >> f.conf``).

Each kept part is one line, at most :data:`PART_MAX_CHARS`; what it was is :func:`label`.
"""

from __future__ import annotations

import re

from vaultmem.mining import commandline
from vaultmem.mining.configpairs import config_like
from vaultmem.notes.lazyre import lazy

PART_MAX_CHARS = 160
PARTS_MAX = 12  # parts kept per command
INSTALLED = "Installed"
REMOVED = "Removed"
SETTING = "Set"

_PREFIX = lazy(r"\A(?:(?:sudo|doas|env|command|exec|nice)\s+(?:-\S+\s+)*|[A-Z_][A-Z0-9_]*=\S*\s+)+")
_INSTALL = lazy(
    r"\A(?:brew\s+(?:install|reinstall|uninstall|remove|tap)|"
    r"(?:apt|apt-get|dnf|yum|zypper|port)\s+(?:-\S+\s+)*(?:install|remove|purge)|"
    r"pacman\s+-(?:S|R)\w*|paru\s+-S\w*|yay\s+-S\w*|apk\s+(?:add|del)|opkg\s+(?:install|remove)|"
    r"snap\s+install|flatpak\s+install|winget\s+(?:install|uninstall)|choco\s+(?:install|uninstall)|"
    r"scoop\s+(?:install|uninstall)|"
    r"(?:python3?\s+-m\s+)?pip3?\s+(?:install|uninstall)|uv\s+(?:pip\s+install|add|remove|tool\s+install)|"
    r"pipx\s+install|poetry\s+(?:add|remove)|pdm\s+(?:add|remove)|conda\s+install|"
    r"npm\s+(?:i|install|add|uninstall|rm)|yarn\s+(?:global\s+)?(?:add|remove)|"
    r"pnpm\s+(?:add|remove|i|install)|bun\s+(?:add|remove|install|i)|"
    r"cargo\s+(?:add|install|remove)|go\s+(?:install|get)|gem\s+install|composer\s+require|"
    r"dotnet\s+add\s+\S+\s+package|rustup\s+(?:component|target|toolchain)\s+add|"
    r"mise\s+(?:install|use)|asdf\s+install|nix-env\s+-i)\b(?P<args>.*)\Z", re.IGNORECASE)
_SETTING = lazy(
    r"\A(?:git\s+config\s+(?:--(?:global|system|local|file\s+\S+)\s+)*(?:--unset(?:-all)?\s+\S+|"
    r"--add\s+\S+\s+\S|(?!-)\S+\s+\S)|"
    r"defaults\s+(?:-currentHost\s+)?(?:write|delete)\s|gsettings\s+(?:set|reset)\s|"
    r"dconf\s+(?:write|reset)\s|sysctl\s+(?:-w\s+)?\S+=|"
    r"systemctl\s+(?:--user\s+|--now\s+)*(?:enable|disable|mask|unmask|set-default|"
    r"set-property|edit)\b|"
    r"(?:/etc/init\.d/|/etc/rc\.d/)\S+\s+(?:enable|disable)\b|service\s+\S+\s+(?:enable|disable)\b|"
    r"rc-update\s+(?:add|del)\s|update-rc\.d\s|"
    r"uci\s+(?:-q\s+)?(?:set|add_list|del_list|delete|add|rename|reorder)\s|nvram\s+set\s|"
    r"(?:npm|pnpm|yarn|pip|pip3|poetry|conda|gh|glab|gcloud|az|kubectl|helm|docker)\s+"
    r"(?:config\s+(?:set|unset|use-context|set-context)|context\s+use)\s|"
    r"aws\s+configure\s+set\s|"
    r"(?:timedatectl|hostnamectl|localectl)\s+set-|update-alternatives\s+--set\s|chsh\s+-s\s|"
    r"pmset\s+(?:-\w\s+)?\w+\s+\S|networksetup\s+-set|scutil\s+--set\s|"
    r"launchctl\s+(?:load|unload|enable|disable|bootstrap|bootout)\s|"
    r"ufw\s+(?:allow|deny|enable|disable|default)\b|firewall-cmd\s+.*--(?:add|remove)-|"
    r"reg(?:\.exe)?\s+(?:add|delete)\s|setx\s|"
    r"(?:Set-ItemProperty|New-ItemProperty|Set-ExecutionPolicy|Set-Service|Set-MpPreference|"
    r"Add-MpPreference|Set-NetFirewallRule|New-NetFirewallRule|Disable-NetFirewallRule|"
    r"Enable-NetFirewallRule|Set-DnsClientServerAddress)\b|"
    r"sed\s+(?:-\w*i\w*|--in-place)\b)", re.IGNORECASE)
# The verbs of an install that takes something away (``brew uninstall``, ``pacman -R``).
_REMOVAL = lazy(r"\b(?:uninstall|remove|purge|rm|del)\b|\s-R\w*")
# ``echo 'k = v' >> path``, ``printf … > path``, ``… | tee -a path``
_APPEND = lazy(r"\A(?:echo|printf)\s.*?>>?\s*(?P<path>\S+)\s*\Z|\Atee\s+(?:-a\s+)?(?P<tee>\S+)\s*\Z")
_ARGS_PACKAGE = lazy(r"(?:^|\s)(?!-)[\w@./:=<>~^+-]+")


def parts(command: str) -> tuple[str, ...]:
    """The parts of ``command`` (redacted already) that change settings or install something."""
    found: list[str] = []
    for piece in _pieces(command):
        bare = _PREFIX.sub("", piece)
        if _kept(bare) and piece not in found:
            found.append(piece if len(piece) <= PART_MAX_CHARS
                         else piece[:PART_MAX_CHARS - 1].rstrip() + "…")
    return tuple(found[:PARTS_MAX])


def label(part: str) -> str:
    """What a kept part did: :data:`INSTALLED`, :data:`REMOVED` or :data:`SETTING`."""
    found = _INSTALL.match(_PREFIX.sub("", part))
    if found is None:
        return SETTING
    return REMOVED if _REMOVAL.search(found.group(0)[:found.start("args")]) else INSTALLED


def bare(part: str) -> str:
    """A part without what runs it (``sudo``, ``env``, ``VAR=x``): the program comes first."""
    return _PREFIX.sub("", part)


def install_args(part: str) -> tuple[str, str] | None:
    """(the install or removal command, its arguments) of a part that is one, else None."""
    found = _INSTALL.match(bare(part))
    if found is None:
        return None
    return found.group(0)[:found.start("args")].strip(), found.group("args")


def _pieces(command: str) -> list[str]:
    """The parts of a command line, a remote shell's or a shell's quoted command split too."""
    pieces: list[str] = []
    for piece, _ in commandline.commands(command):
        piece = piece.strip()
        # A remote shell's or a shell's command is a command line of its own, inside the quote.
        words = commandline.words(_PREFIX.sub("", piece))
        inner = commandline.shell_string(words) or (commandline.remote(words) or ("", ""))[1]
        if inner:
            pieces.extend(_pieces(inner))
            continue
        if piece:
            pieces.append(piece)
    return pieces


def _kept(bare: str) -> bool:
    installed = _INSTALL.match(bare)
    if installed is not None:
        return _ARGS_PACKAGE.search(installed.group("args")) is not None
    if _SETTING.match(bare):
        return True
    appended = _APPEND.match(bare)
    return appended is not None and config_like(appended.group("path") or appended.group("tee"))
