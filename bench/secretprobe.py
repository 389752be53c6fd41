"""Which secret shapes leak from a whole session: a transcript probe through the real hooks.

``python -m bench.secretprobe [--small] [--keep DIR] [--json]``: for each shape (a sentence
naming a secret, with a slot for its value), one synthetic session carries it in every record
kind a transcript has (the first prompt, which names the note; Claude's answer; a tool's input,
a commit's message, and a failed command's output; the ``ai-title``; a compact summary; a todo; an AskUserQuestion answer), each
kind with a value of its own. The sessions are replayed through the real hooks
(``python -m vaultmem hook session-start|user-prompt-submit|stop|session-end``: each prompt's
UserPromptSubmit payload too) into a new vault, compacted (``compact --all --force``), and the
whole vault (note names, notes, ``_index.md``, the index database, tool state) is searched for
each value, byte for byte. A leak is printed as ``shape/kind: value in FILES``, then a table of
the shapes (planted, leaked); the last line is the count of leaked values of all planted.

A shape to keep (``keep``: prose about a secret that holds none, "use 1Password for the
password") is planted the same way into a vault of its own; its values must stay: one missing
from a redacted sentence (redact of the kind's text) is an over-redaction, and so is any mark
in that vault.

A shape answering Claude's question (``ask``) is put only where an answer goes: the prompt
after Claude's request, and AskUserQuestion's answer to it. Values are made up for the probe;
each shape lists values of its class (plain words for a password of one word), one per kind.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
KINDS = ("prompt", "answer", "tool-input", "tool-result", "ai-title", "compact-summary", "todo",
         "question-answer")
CWD = "/home/dev/work/probe"


@dataclass(frozen=True)
class Shape:
    """A sentence with ``{v}`` where its value goes, the values (one per kind, in KINDS'
    order), and Claude's request before it when the sentence answers one."""

    name: str
    sentence: str
    values: tuple[str, ...]
    ask: str = ""
    keep: bool = False


SHAPES = (
    Shape("copula-word", "the password is {v}", (
        "magic", "crystal", "velvet", "tundra", "falcon", "cobbler", "quixotic", "pelican")),
    Shape("secret-word", "my secret is {v}", (
        "opensesame", "bluemoonrise", "tigerlily", "snowglobe", "moonpie", "starfruit",
        "jellybean", "gingersnap")),
    Shape("bare-key", "the key {v}", (
        "zx81qq7", "kq52mm8", "rw19tt4", "pv73nn2", "hd46ss9", "bx28ll5", "jy64cc3", "fm37gg6")),
    Shape("phrase-between", "the password to use is {v}", (
        "sunshine", "marigold", "lagoon", "thimble", "walrus", "quasar", "bramble", "nutmeg")),
    Shape("set-to", "set the admin password to {v} and restart", (
        "hazelnut", "lighthouse", "partridge", "snowdrop", "teacup", "wildfire", "zeppelin",
        "kumquat")),
    Shape("label-word", "Password: {v}", (
        "Tangerine", "marzipan", "Clementine", "pistachio", "Mandarin", "rhubarb", "Papaya",
        "quince")),
    Shape("shared-secret", "our shared secret was {v}.", (
        "lollipop", "gumball", "honeydew", "pinwheel", "bumblebee", "dandelion", "moonbeam",
        "sugarplum")),
    Shape("your-key", "your key is {v}", (
        "q7w8e9rt", "hx42pq9", "mz63kd1", "wt85rb4", "cs17ny6", "gl29fv3", "pk40jx8", "dn52hq7")),
    Shape("should-be", "the db password should be {v}", (
        "pretzel", "muffin", "crumpet", "scone", "brioche", "bagel", "strudel", "cannoli")),
    Shape("contraction", "the password's {v}", (
        "lemonade", "limeade", "sherbet", "custard", "marshmallow", "licorice", "popsicle",
        "fondant")),
    Shape("use-as", "use {v} as the admin password", (
        "avocado", "broccoli", "cucumber", "eggplant", "fennel", "kohlrabi", "parsnip",
        "radicchio")),
    Shape("before-word", "{v} is the staging password", (
        "tortoise", "hedgehog", "platypus", "armadillo", "meerkat", "narwhal", "ocelot",
        "pangolin")),
    Shape("qualified-key", "the license key is {v}", (
        "lk73vb2q", "mn48xc1w", "pq92zr6e", "st15ty8u", "uv37op4i", "wx69as2d", "yz21df7g",
        "ab53gh9j")),
    Shape("to-phrase", "the password to the db is {v}", (
        "asteroid", "comet", "nebula", "pulsar", "quasarx", "meteor", "galaxy", "zenith")),
    Shape("clause-after", "the password is {v} and the user is admin", (
        "dolphin", "seahorse", "starfish", "jellyfish", "stingray", "barracuda", "manatee",
        "anemone")),
    Shape("paren-after", "the password is {v} (all lowercase)", (
        "cobalt", "indigo", "vermilion", "saffron", "turquoise", "magenta", "ochre", "umber")),
    Shape("flag", "psql --password={v} -h db.internal", (
        "Fl4g!Vx9a", "Fl4g!Qm2b", "Fl4g!Rt7c", "Fl4g!Wp3d", "Fl4g!Zk8e", "Fl4g!Ny5f",
        "Fl4g!Hs6g", "Fl4g!Bd1h")),
    Shape("answer-thanks", "{v} thanks", (
        "hunter2x", "otter9z", "badger4q", "heron7w", "lynx3k", "egret8m", "stoat5p", "vole6j"),
        ask="What's the staging db password?"),
    Shape("answer-go-ahead", "it's {v}, go ahead", (
        "puffin2r", "marten6t", "ferret1y", "bison4u", "gecko7i", "ibex9o", "koala3p",
        "llama8a"), ask="Could you paste the admin password?"),
    Shape("answer-word", "{v} please", (
        "caramel", "toffee", "nougat", "praline", "fudge", "truffle", "meringue", "sorbet"),
        ask="What's the wifi password?"),
    Shape("answer-oh", "oh it's {v} :)", (
        "walnut7k", "almond3j", "cashew9h", "pecan5g", "hazel2f", "acorn8d", "chestnut4s",
        "pistach6a"), ask="Could you share the wifi password?"),
    Shape("answer-which", "{v} thanks", (
        "jasmine", "lavender", "peony", "orchid", "tulipa", "magnolia", "azalea", "camellia"),
        ask="Which password should I use for the db?"),
    Shape("answer-key", "I think it's {v}", (
        "kq81zz3x", "rb27yy5w", "tc93xx1v", "ud46ww8u", "ve58vv2t", "wf60uu4s", "xg72tt6r",
        "yh84ss9q"), ask="What's the key for the backup bucket?"),
)
ROUND11 = (
    Shape("the-secret", "the secret is {v}", (
        "abracadabra", "hocuspocus", "bibbidi", "shazam", "alakazam", "presto", "kazoo",
        "skidoo")),
    Shape("secret-label", "my secret: {v}", (
        "buttercup", "cornflower", "sweetpea", "foxglove", "snapdragon", "bluebell", "primrose",
        "hollyhock")),
    Shape("key-alone", "key {v}", (
        "tq58wm3", "vr61xk9", "ny24pz7", "jc93fd2", "bw47hs6", "lm15qe8", "zk82ur4", "gx36ta1")),
    Shape("key-stop", "the key is {v}.", (
        "qa19zx4", "ws28cd7", "ed37vf1", "rf46bg3", "tg55nh8", "yh64mj2", "uj73ki5", "ik82lo9")),
    Shape("creds-slash", "creds: admin / {v}", (
        "sparrow", "kestrel", "plover", "curlew", "bittern", "dunlin", "lapwing", "godwit")),
    Shape("userpass-colon", "user/pass admin:{v}", (
        "hunter2a", "hunter3b", "hunter4c", "hunter5d", "hunter6e", "hunter7f", "hunter8g",
        "hunter9h")),
    Shape("flag-quoted", "mysqladmin --password '{v}' status", (
        "marmoset", "capybara", "chinchilla", "wombat", "quokka", "numbat", "bilby", "dingo")),
    Shape("answer-request", "{v}", (
        "Qz7!mango", "Qz7!peach", "Qz7!guava", "Qz7!lychee", "Qz7!melon", "Qz7!grape",
        "Qz7!apple", "Qz7!lemon"), ask="Please paste the deploy token for staging."),
    Shape("answer-plain", "{v}", (
        "tapioca", "semolina", "polenta", "couscous", "bulgur", "quinoa", "farina", "millet"),
        ask="Please enter the sudo password for the build box."),
)
# Prose about a secret holding none: each value must stay (the module docstring).
KEEP = (
    Shape("keep-manager", "use {v} for the password", (
        "1Password", "Bitwarden", "LastPass", "KeePassXC", "Dashlane", "Keeper", "Vault",
        "Doppler"), keep=True),
    Shape("keep-store", "the password is {v}", (
        "environment", "dotenv", "keychain", "vault", "config", "1Password", "keyring",
        "elsewhere"), keep=True),
    Shape("keep-stored", "the password is stored in the {v}", (
        "vault", "keychain", "environment", "keyring", "database", "config", "secrets",
        "cloud"), keep=True),
    Shape("keep-secret", "the secret is {v}", (
        "consistency", "patience", "caching", "out", "simplicity", "batching", "practice",
        "timing"), keep=True),
    Shape("keep-key", "the key is {v}", (
        "idempotency", "ordering", "consistency", "important", "missing", "invalid", "rotated",
        "cached"), keep=True),
    Shape("keep-creds", "creds: see {v} / ask ops", (
        "1Password", "Bitwarden", "vault", "keychain", "README", "wiki", "Confluence",
        "Notion"), keep=True),
)
# The default suite's set: one shape of each family, small enough for a test.
SMALL = ("copula-word", "bare-key", "answer-thanks")
ALL = (*SHAPES, *ROUND11)


@dataclass(frozen=True)
class Leak:
    """A planted value found in the vault: where it was planted and which files hold it."""

    shape: str
    kind: str
    value: str
    files: tuple[str, ...]


def _record(kind: str, sid: str, n: int, content: Any, **extra: Any) -> dict[str, Any]:
    return {"type": kind, "uuid": f"{sid[:8]}-{n}", "sessionId": sid, "cwd": CWD,
            "timestamp": f"2026-11-22T10:{n:02d}:00.000Z",
            "message": {"role": kind, "content": content}, **extra}


def _tool(ident: str, name: str, given: dict[str, Any]) -> dict[str, Any]:
    return {"type": "tool_use", "id": ident, "name": name, "input": given}


def _result(ident: str, output: str, *, error: bool = False) -> dict[str, Any]:
    return {"type": "tool_result", "tool_use_id": ident, "is_error": error, "content": output}


def _answered(question: str, answer: str) -> str:
    return (f'User has answered your questions: "{question}"="{answer}". You can now continue'
            " with the user's answers in mind.")


def transcript(shape: Shape, sid: str) -> list[dict[str, Any]]:
    """The records of ``shape``'s session (module docstring)."""
    said = dict(zip(KINDS, (shape.sentence.format(v=v) for v in shape.values), strict=True))
    question = shape.ask or "Which setting should the staging box use?"
    ask = _tool("q1", "AskUserQuestion", {"questions": [{
        "question": question, "header": "Setting", "multiSelect": False,
        "options": [{"label": "the old one", "description": "as before"},
                    {"label": "a new one", "description": "generated"}]}]})
    if shape.ask:
        return [
            _record("user", sid, 1, "Set up the staging box for the billing service"),
            _record("assistant", sid, 2, [{"type": "text", "text": f"Nearly there. {question}"}]),
            _record("user", sid, 3, said["prompt"]),
            _record("assistant", sid, 4, [{"type": "text", "text": "Thanks, trying it."}, ask]),
            _record("user", sid, 5, [_result("q1", _answered(question, said["question-answer"]))]),
            _record("assistant", sid, 6, [{"type": "text", "text": "The staging box is up."}]),
        ]
    return [
        {"type": "ai-title", "sessionId": sid, "aiTitle": said["ai-title"]},
        _record("user", sid, 1, said["prompt"]),
        _record("assistant", sid, 2, [
            {"type": "text", "text": "Writing the setup notes."},
            _tool("w1", "Bash", {"command": f"git commit -am \"Set up staging: {said['tool-input']}\""}),
            _tool("b1", "Bash", {"command": "./scripts/provision.sh --dry-run"}),
            _tool("t1", "TodoWrite", {"todos": [{"content": said["todo"], "status": "pending",
                                                 "activeForm": "Setting it up"}]}),
            ask]),
        _record("user", sid, 3, [
            _result("w1", "[main 1a2b3c4] Set up staging\n 1 file changed"),
            _result("b1", f"provision: error: {said['tool-result']}\nexit 1", error=True),
            _result("t1", "ok"), _result("q1", _answered(question, said["question-answer"]))]),
        _record("user", sid, 4, (
            "This session is being continued from a previous conversation.\nSummary:\n"
            f"1. Primary Request: set up the staging box; {said['compact-summary']}\n"
            "2. Pending Tasks: restart the service"), isCompactSummary=True),
        _record("assistant", sid, 5, [{"type": "text", "text": (
            f"The staging box is set up.\n\nGotcha: {said['answer']}\n\n"
            "Next step: restart the service.")}]),
    ]


def planted(shape: Shape) -> Iterator[tuple[str, str]]:
    """(kind, value) of each value ``shape``'s session carries."""
    for kind, value in zip(KINDS, shape.values, strict=True):
        if not shape.ask or kind in ("prompt", "question-answer"):
            yield kind, value


def _run(args: Sequence[str], env: dict[str, str], stdin: str = "") -> None:
    subprocess.run([sys.executable, "-m", "vaultmem", *args], input=stdin.encode(), env=env,
                   cwd=env["HOME"], capture_output=True, check=False, timeout=300)


def replay(shapes: Sequence[Shape], root: Path) -> Path:
    """Each shape's session through the hooks into ``root``/vault, then compacted: the vault."""
    vault, home = root / "vault", root / "home"
    vault.mkdir(parents=True)
    home.mkdir()
    env = {**os.environ, "HOME": str(home), "VAULTMEM_VAULT": str(vault),
           "PYTHONPATH": str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""),
           "VAULTMEM_NOW": "2026-11-22T10:30:00", "VAULTMEM_PROJECT": "probe"}
    for n, shape in enumerate(shapes):
        sid = f"5ec7e7{n:02d}-0000-4000-8000-{n:012d}"
        path = root / f"{shape.name}.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in transcript(shape, sid)),
                        encoding="utf-8")
        prompts = [r["message"]["content"] for r in transcript(shape, sid)
                   if r["type"] == "user" and isinstance(r["message"]["content"], str)]
        for event, name, extra in (("session-start", "SessionStart", {"source": "startup"}),
                                   *(("user-prompt-submit", "UserPromptSubmit", {"prompt": p})
                                     for p in prompts),
                                   ("stop", "Stop", {}),
                                   ("session-end", "SessionEnd", {"reason": "exit"})):
            hook = {"session_id": sid, "transcript_path": str(path), "cwd": CWD,
                    "hook_event_name": name, **extra}
            _run(["hook", event], env, json.dumps(hook))
    _run(["--vault", str(vault), "compact", "--all", "--force"], env)
    return vault


def leaks(shapes: Sequence[Shape], vault: Path) -> list[Leak]:
    """The planted values found anywhere under ``vault`` (a file's name or its bytes)."""
    files: dict[str, bytes] = {}
    for folder, _dirs, names in os.walk(vault):
        for name in names:
            path = Path(folder) / name
            files[path.relative_to(vault).as_posix()] = path.read_bytes()
    out = []
    for shape in shapes:
        for kind, value in planted(shape):
            found = tuple(rel for rel, data in files.items()
                          if value.encode() in data or value in rel)
            if found:
                out.append(Leak(shape.name, kind, value, found))
    return out


def probe(shapes: Sequence[Shape], root: Path) -> tuple[list[Leak], int]:
    """(the leaks, how many values were planted) of ``shapes`` replayed under ``root``."""
    vault = replay(shapes, root)
    return leaks(shapes, vault), sum(1 for shape in shapes for _ in planted(shape))


def over_redacted(shapes: Sequence[Shape], root: Path) -> list[Leak]:
    """The values of the shapes to keep that redaction took: a value missing from its redacted
    sentence (files: ``redact``), and every mark in the vault they were replayed into (its
    value: the mark and the text before it)."""
    from vaultmem.notes.redact import redact
    from vaultmem.notes.secretspan import MARK_OPEN

    out = [Leak(shape.name, kind, value, ("redact",))
           for shape in shapes for kind, value in planted(shape)
           if value not in redact(shape.sentence.format(v=value))]
    vault = replay(shapes, root)
    marks: dict[str, list[str]] = {}  # the words before a mark -> the files holding it
    for folder, _dirs, names in os.walk(vault):
        for name in names:
            path = Path(folder) / name
            data = path.read_bytes().decode("utf-8", "replace")
            at = data.find(MARK_OPEN)
            while at >= 0:
                said = " ".join(data[max(0, at - 24):at].split()[-3:])
                marks.setdefault(said, []).append(path.relative_to(vault).as_posix())
                at = data.find(MARK_OPEN, at + 1)
    return out + [Leak("vault", "mark", f"{said} {MARK_OPEN}…", tuple(dict.fromkeys(files)))
                  for said, files in marks.items()]


def table(shapes: Sequence[Shape], found: Sequence[Leak]) -> list[str]:
    """One line per shape: its name, the values planted and how many leaked (or, for a shape to
    keep, were redacted)."""
    lines = [f"{'shape':<18} {'planted':>7} {'leaked':>6}"]
    for shape in shapes:
        bad = sum(1 for leak in found if leak.shape == shape.name)
        what = "redacted" if shape.keep else "leaked"
        lines.append(f"{shape.name:<18} {sum(1 for _ in planted(shape)):>7} {bad:>6}"
                     + (f"  ({what})" if shape.keep else ""))
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.secretprobe", description=__doc__)
    parser.add_argument("--small", action="store_true", help="only the default suite's shapes")
    parser.add_argument("--keep", type=Path, help="replay into this new folder and keep it")
    parser.add_argument("--json", action="store_true", help="the leaks as JSON")
    args = parser.parse_args(argv)
    shapes = [s for s in ALL if not args.small or s.name in SMALL]
    kept = [] if args.small else list(KEEP)
    with tempfile.TemporaryDirectory(prefix="secretprobe-") as tmp:
        root = args.keep or Path(tmp)
        found, total = probe(shapes, root / "leak")
        over = over_redacted(kept, root / "keep") if kept else []
    if args.json:
        print(json.dumps({"planted": total, "leaks": [leak.__dict__ for leak in found],
                          "kept": sum(1 for s in kept for _ in planted(s)),
                          "over": [leak.__dict__ for leak in over]}))
    else:
        for leak in [*found, *over]:
            print(f"{leak.shape}/{leak.kind}: {leak.value} in {', '.join(leak.files)}")
        print("\n".join(table([*shapes, *kept], [*found, *over])))
        if kept:
            print(f"{sum(1 for o in over if o.shape != 'vault')} of"
                  f" {sum(1 for s in kept for _ in planted(s))} values to keep redacted;"
                  f" {sum(1 for o in over if o.shape == 'vault')} marks in their vault")
        print(f"{len(found)} of {total} planted values leaked")
    return 1 if found or over else 0


if __name__ == "__main__":
    raise SystemExit(main())
