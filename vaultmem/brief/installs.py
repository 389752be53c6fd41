"""What a session installed, removed or set, read from its work log (pure; issue 29).

"Which packages did it install?", "what did it set?": capture writes a ``- Installed: `…```,
``- Removed: `…``` or ``- Set: `…``` line for each part of a command that did
(mining.settingcmds), but not for a command its ``- Ran `…``` line shows as it is
(claude/changelines): such a line is read with the same rule. Only a command that may change
something is parsed (a session runs hundreds: ``git status``, ``ls``, ``grep`` never are).
"""

from __future__ import annotations

from vaultmem.notes.lazyre import lazy

SHOWN_CHARS = 280  # of a command, what the briefing's line shows (context.ITEM_MAX_CHARS, cut)
LABELLED = lazy(r"(Installed|Removed|Set):\s+(`+)(.+?)\2\s*$")
# Words a command that installs or sets something holds (mining.settingcmds keeps which do):
# a command with none of them is not parsed.
_MAYBE = lazy(
    r"install|\bconfig\b|\b(?:uv|poetry|pdm|yarn|pnpm|bun|cargo|apk|component|target|toolchain|"
    r"package|global)\s+add\b|\b(?:remove|purge|tap|require|use|get|del)\b|"
    r"\b(?:npm|pnpm|bun)\s+(?:i|rm)\b|\b(?:pacman|paru|yay)\s+-[SR]|\bnix-env\s+-i|"
    r"\bset\b|\bset-|\b(?:enable|disable|mask|unmask|write|delete|reset|edit|load|unload|"
    r"bootstrap|bootout|allow|deny|default|add_list|del_list|rename|reorder)\b|\bsysctl\b|"
    r"\b(?:echo|printf)\b.*>|"
    r"\btee\b|\bsed\s+(?:-\w*i|--in-place)|\breg(?:\.exe)?\s+(?:add|delete)|\bsetx\b|"
    r"-ItemProperty|\bSet-|\bAdd-Mp|NetFirewallRule|\bchsh\b|\bpmset\b|networksetup|scutil|"
    r"update-rc|rc-update|update-alternatives|firewall-cmd|\bufw\b|\bnvram\b|\bexport\s|setenv|"
    r"\$env:|SetEnvironmentVariable|\bsecrets?\s|config:set")
_RAN = lazy(r"Ran\s+(`+)(.+?)\1")
# A setting mining.settingcmds leaves to the shell's own lines: an environment variable set (in
# the shell, for the user, on macOS's launchd) or a hosted service's secret or variable set.
_ENV_SET = lazy(
    r"(?:^|[;&|(]\s*)(?:export\s+[A-Za-z_]\w*=|launchctl\s+setenv\s|\$env:\w+\s*=|"
    r"\[(?:System\.)?Environment\]::SetEnvironmentVariable|(?:gh|glab)\s+(?:secret|variable)\s+set\s|"
    r"[\w-]+\s+secrets?\s+(?:set|put|add)\s|heroku\s+config:set\s|vercel\s+env\s+add\s)")
# An environment variable exported for the commands after it in the same call
# (``export PATH="$HOME/.cargo/bin:$PATH" && cargo build``): the call's shell ends with it, so
# nothing stays set; what the commands after it change is read as any command's.
_FOR_THE_CALL = lazy(r"(?:^|(?<=[;&(]))\s*export\s+[A-Za-z_]\w*=(?:\"[^\"]*\"|'[^']*'|[^\s;&|])*\s*(?:&&|;)(?=\s*\S)")
# What a shell line appends that says nothing of the change: its output sent elsewhere.
_REDIRECT = lazy(r"(?:\s+(?:\d?>&\d|\d?>>?\s*/dev/null|\|\|\s*true))+\s*$")


class Changes:
    """What one session installed, removed or set, read line by line: each command that did as
    it ran (its directory, its host and its environment say where), and each part capture
    labelled that no command's line shows (one of a compound command cut short, or of a turn's
    commands its note does not list)."""

    def __init__(self) -> None:
        self.read: dict[str, bool] = {}  # each command or part -> whether a command ran as is

    def add(self, body: str) -> None:
        """Read a work-log line's text past its bullet."""
        found = LABELLED.match(body)
        if found is not None:
            self.read.setdefault(_REDIRECT.sub("", found.group(3)), False)
            return
        if not body.startswith("Ran ") or not _MAYBE.search(body):
            return
        ran = _RAN.match(body)
        if ran is None:
            return
        from vaultmem.mining import settingcmds  # only for a command that may change something

        command = _REDIRECT.sub("", ran.group(2).strip())
        rest = _FOR_THE_CALL.sub("", command).strip()
        if _ENV_SET.search(rest) or settingcmds.parts(rest):
            self.read[command] = True

    def lines(self) -> tuple[str, ...]:
        """The commands and parts, each once, in the order they were read."""
        ran = " | ".join(text[:SHOWN_CHARS] for text, whole in self.read.items() if whole)
        return tuple(text for text, whole in self.read.items() if whole or text not in ran)
