"""The rows: floors and vaultmem's hooks, compaction and recall, on generated vaults.

Every vaultmem command runs as ``python -m vaultmem …`` (the same interpreter as the bench,
``PYTHONPATH`` at this checkout) with an isolated ``HOME``, ``VAULTMEM_VAULT``,
``VAULTMEM_PROJECT`` and ``VAULTMEM_NOW`` pinned to the generator's day. Each run's set-up
(a fresh session id, the seeded session note, a deleted index, an edited note) is not timed;
each run also checks afterwards that the command did what the row claims.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import statistics
import sys
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from .generate import NOW_ISO, GeneratedVault, KnownAnswer, generate, session_note
from .runner import REPO, Case, Sample, Workspace, run_command, timed

PY = sys.executable
LINK = re.compile(r"\[\[([^\]|#]+)")
VAULTMEM = (PY, "-m", "vaultmem")
# A stdlib MCP client: it times a cold start of `vaultmem mcp` from spawn to its first recall
# answer.
MCP_CLIENT = (PY, "-I", "-S", str(REPO / "bench" / "mcp_client.py"))
# A bare server on the SDK (one tool, nothing of vaultmem): what `vaultmem mcp`'s start is held
# against.
BARE_MCP_SERVER = (PY, str(REPO / "bench" / "bare_mcp_server.py"))
# The least a server on the official MCP SDK imports: the low-level server, stdio, the types;
# and the same with the pydantic builds `vaultmem mcp` defers (vaultmem/serve/start.py). Both
# leave by os._exit as the server does: Python's teardown of the SDK's objects costs about a
# quarter of a second more, which no client waits for.
MCP_SDK_IMPORT = "import mcp.server.lowlevel, mcp.server.stdio, mcp.types"
MCP_SDK_EXIT = "\nimport os\nos._exit(0)"
MCP_SDK_IMPORT_DEFERRED = (
    "from vaultmem.serve.start import defer_model_builds, deferred_adapters\n"
    "defer_model_builds()\n"
    f"with deferred_adapters():\n    {MCP_SDK_IMPORT}"
)
TRANSCRIPT = REPO / "tests" / "fixtures" / "claude-code" / "transcript.jsonl"
FLOOR_HASH_SCRIPT = (
    "import hashlib, pathlib, sys\n"
    "n = 0\n"
    "for p in pathlib.Path(sys.argv[1]).rglob('*.md'):\n"
    "    hashlib.sha256(p.read_bytes()).hexdigest(); n += 1\n"
    "print(n)\n"
)


@dataclass(frozen=True)
class Sizes:
    """How big the vaults are: full runs use 10,000 notes, ``--quick`` smaller ones."""

    large: int
    small: int
    peer: int
    compaction_lines: tuple[int, ...]
    scale: tuple[int, ...]  # doctor and cold index build (bench/scale.py)
    recall_vault: int  # one project recalled alone and inside a vault this big
    entity_items: int  # items per entity in the compaction-into-old-entities row


FULL = Sizes(
    large=10_000,
    small=1_000,
    peer=200,
    compaction_lines=(600, 6_000, 60_000),
    scale=(1_000, 10_000, 50_000),
    recall_vault=30_000,
    entity_items=5_000,
)
QUICK = Sizes(
    large=2_000,
    small=1_000,
    peer=100,
    compaction_lines=(600, 6_000),
    scale=(1_000, 2_000),
    recall_vault=5_000,
    entity_items=1_000,
)


def notes_label(n: int) -> str:
    """``10,000 notes``."""
    return f"{n:,} notes"


class VaultmemEnv:
    """One generated vault and the environment vaultmem's commands run in against it."""

    def __init__(
        self,
        ws: Workspace,
        name: str,
        notes: int,
        *,
        seed: int = 0,
        vault: GeneratedVault | None = None,
    ) -> None:
        self.root = ws.path(name) / "vault"
        # A vault already on disk at root (a copy), or one generated now.
        self.vault: GeneratedVault = vault or generate(self.root, notes=notes, seed=seed)
        self.project = self.vault.projects[0]
        self.home = ws.path(f"{name}/home")
        self.cwd = ws.path(f"{name}/cwd")  # not a git checkout: the project comes from the env
        self.transcript = ws.path(name) / "transcript.jsonl"
        shutil.copyfile(TRANSCRIPT, self.transcript)
        self.env = _child_env(self.home, self.root, self.project)
        self._memory: Any = None

    def vaultmem(self, *args: str, stdin: bytes = b"") -> Sample:
        """Run ``vaultmem ARGS`` as a child, timed."""
        return run_command([*VAULTMEM, *args], env=self.env, cwd=self.cwd, stdin=stdin)

    def vaultmem_codes(self, ok_codes: tuple[int, ...], *args: str) -> Sample:
        """``vaultmem ARGS`` where each of ``ok_codes`` is a success (doctor exits 1 on findings)."""
        return run_command([*VAULTMEM, *args], env=self.env, cwd=self.cwd, ok_codes=ok_codes)

    def memory(self) -> Any:
        """The library's ``Memory`` on this vault (imported lazily: the bench may run without)."""
        if self._memory is None:
            from vaultmem.memory.sessions import Memory
            from vaultmem.store.config import load_config
            from vaultmem.store.vault import Vault

            config = load_config(vault=self.root, project=self.project, cwd=self.cwd, env=self.env)
            self._memory = Memory(
                config, Vault(config.vault, namespace=config.namespace), clock_now=_now
            )
        return self._memory

    def status_of(self, rel: str) -> str:
        """The ``status`` property of a note (read with the library's frontmatter parser)."""
        from vaultmem.notes.frontmatter import parse

        return str(parse((self.root / rel).read_text(encoding="utf-8")).get("status"))

    def entity_names(self) -> list[str]:
        """Entity names of the project as they are on disk now."""
        folder = self.root / "claude" / "projects" / self.project / "entities"
        return sorted(p.stem for p in folder.glob("*.md"))

    def answers(self) -> list[KnownAnswer]:
        """Known answers inside the current project or global (recall's default scope)."""
        prefixes = (f"claude/projects/{self.project}/", "claude/global/")
        own = [a for a in self.vault.answers if a.rel.startswith(prefixes)]
        if not own:
            raise RuntimeError(f"no known answer in project {self.project}")
        return own

    def drop_index(self) -> None:
        """Remove the search index so the next recall builds it from scratch."""
        for path in (self.root / ".vaultmem").glob("index.sqlite*"):
            path.unlink()


def _now() -> datetime:
    return datetime.fromisoformat(NOW_ISO).astimezone()


def _child_env(home: Path, root: Path, project: str) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("VAULTMEM_", "ANTHROPIC_", "PYTHON"))
    }
    home.mkdir(parents=True, exist_ok=True)
    root.mkdir(parents=True, exist_ok=True)  # hooks create only the default vault
    env.update(
        HOME=str(home),
        XDG_CONFIG_HOME=str(home / ".config"),
        VAULTMEM_VAULT=str(root),
        VAULTMEM_PROJECT=project,
        VAULTMEM_NOW=NOW_ISO,
        PYTHONPATH=str(REPO),
        # The session-end rows time the inline compaction, and check it is done when the hook
        # returns: no deadline hands it over on a loaded machine.
        VAULTMEM_SESSION_END_DEADLINE="inf",
    )
    return env


# -------------------------------------------------------------------------------------------
# Floors


def floor_cases(large: VaultmemEnv) -> list[Case]:
    """What no Python tool can beat: interpreter start, imports, reading every note."""
    root = large.root
    n = notes_label(len(large.vault.notes))

    def hash_all() -> None:
        for path in root.rglob("*.md"):
            hashlib.sha256(path.read_bytes()).hexdigest()

    return [
        Case(
            "floor: python3 -c pass",
            "floor",
            lambda: run_command([PY, "-c", "pass"]),
            note="interpreter start",
        ),
        Case(
            "floor: import yaml, markdown_it, filelock",
            "floor",
            lambda: run_command([PY, "-c", "import yaml, markdown_it, filelock"]),
            note="vaultmem's parsing dependencies",
        ),
        Case(
            f"floor: read + sha256 every note, in-process ({n})",
            "floor",
            lambda: timed(hash_all),
            note=f"{large.vault.bytes / 2**20:.0f} MiB, page cache warm",
        ),
        Case(
            f"floor: read + sha256 every note, subprocess ({n})",
            "floor",
            lambda: run_command([PY, "-c", FLOOR_HASH_SCRIPT, str(root)]),
            note="start + walk + hash",
        ),
    ]


# -------------------------------------------------------------------------------------------
# Hooks


def _payload(event: str, sid: str, env: VaultmemEnv, **extra: str) -> bytes:
    data = {
        "session_id": sid,
        "transcript_path": str(env.transcript),
        "cwd": str(env.cwd),
        "hook_event_name": event,
        **extra,
    }
    return json.dumps(data).encode()


def session_end_case(
    env: VaultmemEnv, *, lines: int, entities: int, new: int, extractor: str | None = None
) -> Case:
    """``vaultmem hook session-end`` on a seeded session note of ``lines`` lines.

    With ``extractor="claude"`` the hook only starts the detached compaction; the row waits for
    it (untimed) before the next run. No ``claude`` is on that child's PATH, so the detached run
    falls back at once and a benchmark never spends money on a model.
    """
    compacts = lines >= 500
    counter = iter(range(1_000_000))
    child_env = env.env
    if extractor is not None:
        child_env = dict(env.env, VAULTMEM_EXTRACTOR=extractor,
                         PATH=os.pathsep.join([str(Path(PY).parent), "/usr/bin", "/bin"]))

    def run() -> Sample:
        i = next(counter)
        sid = str(uuid.uuid4())
        started = env.memory().start_session(sid, topic=f"bench end {lines} {i}")
        rel = started.note
        existing = env.entity_names()
        chosen = existing[i % 7 :][: entities - new]
        text = session_note(
            lines,
            entities,
            new,
            project=env.project,
            existing=chosen + [e for e in existing if e not in chosen],
            seed=i,
            session_id=sid,
            created=env.vault.today,
        )
        note = env.root / rel
        note.write_text(text, encoding="utf-8")
        # As a session's Stop hooks leave it: written a while ago. Written just now by another
        # program, it would be a person editing it (flux.py), and every write would watch it.
        written = time.time() - 60
        os.utime(note, (written, written))
        sample = run_command(
            [*VAULTMEM, "hook", "session-end"], env=child_env, cwd=env.cwd,
            stdin=_payload("SessionEnd", sid, env, reason="other"),
        )
        if extractor is not None:
            _wait_for(lambda: env.status_of(rel) != "active", f"{rel}: detached compaction")
        status = env.status_of(rel)
        want = "archived" if compacts else "active"
        if status != want:
            raise RuntimeError(f"{rel}: status {status!r} after the hook, expected {want!r}")
        # The note's new entities must exist now (the transcript may add others, e.g. Inbox).
        wanted = set(LINK.findall(text)) - set(existing)
        missing = wanted - set(env.entity_names())
        if compacts and (len(wanted) != new or missing):
            raise RuntimeError(f"{rel}: {len(wanted)} new entities linked, missing {missing}")
        return sample

    if extractor is not None:
        name = f"hook session-end: {lines}-line note, extractor={extractor} (compaction detached)"
        note = "transcript ingested, Session End entry, threshold check, detached spawn"
    elif compacts:
        name = f"hook session-end: {lines}-line note compacted into {entities} entities, {new} new"
        note = "transcript ingested, Session End entry, inline compaction; budget 1.5 s"
    else:
        name = f"hook session-end: below threshold ({lines} lines)"
        note = "transcript ingested, Session End entry, threshold check; budget 1.5 s"
    return Case(name, "vaultmem", run, note=note)


def _wait_for(check: Callable[[], bool], what: str, seconds: float = 120.0) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        if time.monotonic() > deadline:
            raise RuntimeError(f"never happened: {what}")
        time.sleep(0.1)


def session_start_case(env: VaultmemEnv) -> Case:
    """``vaultmem hook session-start`` with a fresh session on the project."""
    last_out: list[int] = []

    def run() -> Sample:
        sid = str(uuid.uuid4())
        payload = _payload("SessionStart", sid, env, source="startup")
        sample = env.vaultmem("hook", "session-start", stdin=payload)
        if env.project not in sample.stdout:
            raise RuntimeError(f"context does not name the project: {sample.stdout[:200]!r}")
        last_out[:] = [len(sample.stdout)]
        return sample

    n = notes_label(len(env.vault.notes))
    return Case(
        f"hook session-start ({n})",
        "vaultmem",
        run,
        note=f"{len(env.vault.project_notes(env.project)):,} notes in the project; "
        "new session note + context",
        check=lambda: f"context {last_out[0]:,} chars" if last_out else "",
    )


AUTO_MEMORY_FILES = 30


def session_start_automemory_case(env: VaultmemEnv) -> Case:
    """``vaultmem hook session-start`` with Claude Code's auto memory of the project (30 files)
    mirrored already and unchanged: the cost the mirror adds to every session start."""
    from vaultmem.memory import automirror
    from vaultmem.memory.autowhere import where as auto_where
    from vaultmem.store.vault import Vault

    where = auto_where(str(env.cwd), env=env.env, home=str(env.home))
    folder = Path(where.folder)
    mirror = env.root / "claude" / "projects" / env.project / "auto-memory"

    def run() -> Sample:
        if not folder.is_dir():  # set-up, untimed: the folder and its first mirror
            folder.mkdir(parents=True)
            (folder / "MEMORY.md").write_text("".join(
                f"- [Topic {n}](topic-{n:02}.md) — what topic {n} says\n"
                for n in range(1, AUTO_MEMORY_FILES)))
            for n in range(1, AUTO_MEMORY_FILES):
                facts = "".join(f"- Fact {n}.{k}: the service needs setting {k}.\n"
                                for k in range(10))
                (folder / f"topic-{n:02}.md").write_text(
                    f"---\nname: topic-{n:02}\ndescription: fact {n}\nmetadata:\n"
                    f"  type: project\n---\n\n{facts}")
            automirror.mirror(Vault(env.root), env.project, where, today=_now().date(),
                              budget_s=600)
        before = sorted((p.name, p.stat().st_mtime_ns) for p in mirror.glob("*.md"))
        sample = env.vaultmem("hook", "session-start", stdin=_payload(
            "SessionStart", str(uuid.uuid4()), env, source="startup"))
        after = sorted((p.name, p.stat().st_mtime_ns) for p in mirror.glob("*.md"))
        if len(after) != AUTO_MEMORY_FILES or after != before:
            raise RuntimeError(f"auto memory not mirrored once and left alone: {len(after)} notes")
        return sample

    return Case(
        f"hook session-start, {AUTO_MEMORY_FILES}-file auto memory unchanged "
        f"({notes_label(len(env.vault.notes))})",
        "vaultmem",
        run,
        note="compare with the hook session-start row of the same vault: a stat per file",
    )


def long_transcript(path: Path, megabytes: int) -> None:
    """The fixture transcript repeated (fresh uuids, 20 kB tool results) to ``megabytes`` MB."""
    lines = [json.loads(line) for line in TRANSCRIPT.read_text(encoding="utf-8").splitlines()]
    with path.open("w", encoding="utf-8") as out:
        while out.tell() < megabytes * 1_000_000:
            for entry in lines:
                entry = json.loads(json.dumps(entry))
                if "uuid" in entry:
                    entry["uuid"] = str(uuid.uuid4())
                content = (entry.get("message") or {}).get("content")
                for block in content if isinstance(content, list) else []:
                    if isinstance(block, dict) and block.get("type") == "tool_result":
                        block["content"] = "x" * 20_000
                out.write(json.dumps(entry) + "\n")


def stop_case(env: VaultmemEnv, ws: Workspace, megabytes: int) -> list[Case]:
    """``vaultmem hook stop`` with one new turn at the end of a long transcript."""
    path = ws.path("long-transcript") / "transcript.jsonl"
    sid = str(uuid.uuid4())
    state: dict[str, bool] = {}

    def payload() -> bytes:
        data = json.loads(_payload("Stop", sid, env))
        return json.dumps({**data, "transcript_path": str(path)}).encode()

    def run() -> Sample:
        if not state:  # the session so far, ingested once (untimed)
            long_transcript(path, megabytes)
            env.vaultmem("hook", "stop", stdin=payload())
            state["ingested"] = True
        turn = {"type": "assistant", "uuid": str(uuid.uuid4()), "message": {
            "role": "assistant", "content": [{"type": "text", "text": "Done. Decision: bench."}]}}
        with path.open("a", encoding="utf-8") as out:
            out.write(json.dumps(turn) + "\n")
        return env.vaultmem("hook", "stop", stdin=payload())

    def floor() -> Sample:
        if not state:
            run()
        return run_command([PY, "-c", PARSE_ALL_SCRIPT, str(path)])

    return [
        Case(
            f"hook stop: one new turn after a {megabytes} MB transcript",
            "vaultmem",
            run,
            note="reads on from the offset the last Stop stopped at",
        ),
        Case(
            f"floor: read + json.loads every line of the {megabytes} MB transcript",
            "floor",
            floor,
            note="what a Stop re-reading the whole transcript would spend on top",
        ),
    ]


PARSE_ALL_SCRIPT = (
    "import json, sys\n"
    "with open(sys.argv[1], 'rb') as f:\n"
    "    for line in f:\n"
    "        json.loads(line)\n"
)


# -------------------------------------------------------------------------------------------
# Compaction in-process


def compaction_case(
    env: VaultmemEnv | None,
    lines: int,
    *,
    entities: int = 12,
    new: int = 6,
    runs: int | None = None,
    env_of: Callable[[], VaultmemEnv] | None = None,
    pick: Callable[[int], list[str]] | None = None,
    name: str | None = None,
) -> Case:
    """``Memory.compact_note`` on a ``lines``-line note, in the bench process. ``env_of``
    gives the environment on first use instead of ``env``; ``pick(i)`` the existing entities
    the i-th run's note links (default: a window moving over the project's entities)."""
    counter = iter(range(1_000_000))
    reports: list[Any] = []

    def run() -> Sample:
        i = next(counter)
        here = env_of() if env_of else env
        assert here is not None
        existing = here.entity_names()
        if pick is not None:
            chosen = pick(i)
        else:
            chosen = existing[(3 * i) % 11 :][: entities - new]
        text = session_note(
            lines,
            entities,
            new,
            project=here.project,
            existing=chosen + [e for e in existing if e not in chosen],
            seed=1000 + i,
            created=here.vault.today,
        )
        rel = f"claude/projects/{here.project}/sessions/2026-11-22-compaction-{lines}-{entities}-{new}-{i}.md"
        (here.root / rel).write_text(text, encoding="utf-8")
        memory = here.memory()
        box: list[Any] = []
        sample = timed(lambda: box.append(memory.compact_note(rel, now=_now())))
        report = box[0]
        if report.status != "compacted" or len(report.entities_created) != new:
            raise RuntimeError(
                f"{rel}: {report.status} ({report.verdict}), created "
                f"{len(report.entities_created)} entities, error {report.error}"
            )
        reports[:] = [report]
        return sample

    def check() -> str:
        if not reports:
            return ""
        counts = ", ".join(f"{v} {k}" for k, v in reports[-1].counts.items())
        return f"items: {counts}"

    return Case(
        name or f"compaction in-process: {lines:,}-line note, {entities} entities ({new} new)",
        "vaultmem",
        run,
        runs=runs,
        check=check,
        note="extract, rewrite each entity once, _index.md, archive + verify, mark original",
    )


# -------------------------------------------------------------------------------------------
# Recall


def recall_cases(env: VaultmemEnv, *, suffix: str = "") -> list[Case]:
    """``vaultmem recall`` warm, with a cold index, and after one edit; ``vaultmem mcp`` from a
    cold start to its first recall answer, beside the warm recall as a process."""
    answers = env.answers()
    n = notes_label(len(env.vault.notes))
    counter = iter(range(1_000_000))
    found: dict[str, list[bool]] = {"warm": [], "cold": [], "edit": [], "mcp": [], "beside": []}
    # The mcp rows' runs, each with the warm recall run just before it (see `beside`).
    pairs: dict[str, list[tuple[Sample, Sample]]] = {"mcp": [], "sdk": [], "deferred": [],
                                                     "call": []}
    ready: dict[str, list[float]] = {"bare": [], "vaultmem": []}  # spawn to initialize answer

    def query(kind: str) -> Sample:
        answer = answers[next(counter) % len(answers)]
        sample = env.vaultmem("recall", answer.query, "--json", "--limit", "5")
        hits = json.loads(sample.stdout)["hits"]
        found[kind].append(bool(hits) and hits[0]["path"] == answer.rel)
        return sample

    def warm() -> Sample:
        return query("warm")

    def mcp() -> Sample:
        answer = answers[next(counter) % len(answers)]
        client = run_command([*MCP_CLIENT, answer.query, "--", *VAULTMEM, "mcp"], env=env.env,
                             cwd=env.cwd)
        text, measured = client.stdout.splitlines()
        hits = json.loads(text)["hits"]
        found["mcp"].append(bool(hits) and hits[0]["path"] == answer.rel)
        # The client's own start is not the server's: the row is the server's spawn to its
        # recall answer, with the server's CPU time and peak RSS (bench/mcp_client.py).
        server = json.loads(measured)
        return Sample(server["seconds"], server["maxrss_kib"], text, server["cpu"])

    def client(server: tuple[str, ...]) -> tuple[str, dict[str, Any]]:
        answer = answers[next(counter) % len(answers)]
        done = run_command([*MCP_CLIENT, answer.query, "--", *server], env=env.env, cwd=env.cwd)
        text, measured = done.stdout.splitlines()
        return text, json.loads(measured)

    def started(which: str, server: tuple[str, ...]) -> Callable[[], Sample]:
        def run() -> Sample:
            _, measured = client(server)
            ready[which].append(measured["ready"])
            return Sample(measured["ready"], measured["maxrss_kib"], "", measured["cpu"])

        return run

    def warm_call() -> Sample:
        # One warm `recall` tools/call of a running server (its second call).
        _, measured = client((*VAULTMEM, "mcp"))
        return Sample(measured["warm"], measured["maxrss_kib"], "", None)

    def against_bare() -> str:
        if not ready["bare"] or not ready["vaultmem"]:
            return "not run"
        times = statistics.median(ready["vaultmem"]) / statistics.median(ready["bare"])
        return f"{times:.2f}x a bare SDK server's ready, goal 1.3x"

    def sdk_import(script: str) -> Callable[[], Sample]:
        return lambda: run_command([PY, "-c", script], env=env.env, cwd=env.cwd)

    def beside(kind: str, measure: Callable[[], Sample]) -> Callable[[], Sample]:
        # Each run first makes a warm recall (untimed for the row) and keeps it for the
        # ratio: on a shared machine the load drifts between rows much more than between two
        # neighbouring runs, so the ratio is the median of run / the recall just before it.
        def run() -> Sample:
            recall = query("beside")
            sample = measure()
            pairs[kind].append((sample, recall))
            return sample

        return run

    def ratio(kind: str) -> str:
        done = pairs[kind][1:] or pairs[kind]  # the first run is the row's untimed warm-up
        if not done:
            return "not run"
        wall = statistics.median(s.seconds / r.seconds for s, r in done)
        cpu = statistics.median((s.cpu or 0.0) / max(r.cpu or 0.0, 1e-9) for s, r in done)
        return f"{wall:.2f}x the warm recall run beside it (cpu {cpu:.2f}x)"

    def against_recall() -> str:
        # No goal: a server starts once a session; its start is held against a bare SDK server
        # ("ready" below) and its calls against a recall process ("warm recall call").
        return f"{ratio('mcp')}; {verdict('mcp')()}"

    def cold() -> Sample:
        env.drop_index()
        return query("cold")

    edits = iter(range(1_000_000))

    def after_edit() -> Sample:
        rel = env.vault.entities[next(edits) % len(env.vault.entities)]
        with (env.root / rel).open("a", encoding="utf-8") as fh:
            fh.write("- Gotcha: one more line written by the benchmark\n")
        return query("edit")

    def verdict(kind: str) -> Callable[[], str]:
        def check() -> str:
            got = found[kind]
            return f"known answer first {sum(got)}/{len(got)}"

        return check

    return [
        Case(
            f"recall, warm index ({n}){suffix}",
            "vaultmem",
            warm,
            note="stat every note, query FTS5",
            check=verdict("warm"),
        ),
        Case(
            f"recall, cold index build ({n}){suffix}",
            "vaultmem",
            cold,
            note="index.sqlite deleted before each run",
            check=verdict("cold"),
        ),
        Case(
            f"recall after one edit ({n}){suffix}",
            "vaultmem",
            after_edit,
            note="one entity appended to before each run",
            check=verdict("edit"),
        ),
        Case(
            f"floor: mcp cold start's SDK import alone ({MCP_SDK_IMPORT})",
            "floor",
            beside("sdk", sdk_import(MCP_SDK_IMPORT + MCP_SDK_EXIT)),
            note="what the official MCP SDK costs a server at least, interpreter start included "
            "(then os._exit, as the server leaves)",
            check=lambda: ratio("sdk"),
        ),
        Case(
            "floor: mcp cold start's SDK import alone, pydantic builds deferred as vaultmem mcp "
            "defers them",
            "floor",
            beside("deferred", sdk_import(MCP_SDK_IMPORT_DEFERRED + MCP_SDK_EXIT)),
            note="the same import with the models' and adapters' validators built on first use",
            check=lambda: ratio("deferred"),
        ),
        Case(
            f"vaultmem mcp cold start to a recall answer ({n}){suffix}",
            "vaultmem",
            beside("mcp", mcp),
            note="server spawn to its recall answer (initialize, initialized, tools/call)",
            check=against_recall,
        ),
        Case(
            "floor: a bare MCP server on the SDK, ready (bench/bare_mcp_server.py)",
            "floor",
            started("bare", BARE_MCP_SERVER),
            note="spawn to its initialize answer: one tool, nothing of vaultmem imported",
        ),
        Case(
            f"vaultmem mcp ready ({n}){suffix}",
            "vaultmem",
            started("vaultmem", (*VAULTMEM, "mcp")),
            note="spawn to its initialize answer, beside the bare SDK server above",
            check=against_bare,
        ),
        Case(
            f"vaultmem mcp warm recall call ({n}){suffix}",
            "vaultmem",
            beside("call", warm_call),
            note="a running server's second recall tools/call, beside a `vaultmem recall` process",
            check=lambda: f"{ratio('call')}, goal 0.3x",
        ),
    ]


def patch_case(env: VaultmemEnv) -> Case:
    """``vaultmem patch NOTE --heading 'Related Entities' --append TEXT``: a one-line append."""
    note = env.vault.sessions[0]
    counter = iter(range(1_000_000))

    def run() -> Sample:
        line = f"- [[Bench Entity {next(counter)}]]"
        return env.vaultmem("patch", note, line, "--heading", "Related Entities", "--append")

    return Case(
        f"patch --append under a heading ({notes_label(len(env.vault.notes))})",
        "vaultmem",
        run,
        note="lock, fingerprint, surgical append, atomic write",
    )


def all_vaultmem_cases(
    ws: Workspace,
    sizes: Sizes,
    *,
    progress: Callable[[str], None] | None = None,
) -> tuple[list[Case], VaultmemEnv, VaultmemEnv]:
    """The floors and every vaultmem row, with the vaults they run on."""
    say = progress or (lambda _: None)
    say(f"generating {sizes.large:,} and {sizes.small:,} notes")
    large = VaultmemEnv(ws, "large", sizes.large)
    small = VaultmemEnv(ws, "small", sizes.small)
    cases = floor_cases(large)
    cases.append(session_end_case(small, lines=120, entities=3, new=0))
    cases.append(session_end_case(small, lines=600, entities=12, new=6))
    cases.append(session_end_case(small, lines=600, entities=12, new=6, extractor="claude"))
    from .redaction import redaction_cases  # beside SessionEnd: what redaction adds to a hook

    cases += redaction_cases(ws, small.env)
    from .merging import merge_cases

    cases += merge_cases(ws, small.env)
    cases.append(session_start_case(small))
    cases.append(session_start_automemory_case(small))
    cases += stop_case(small, ws, 20)
    from .heavy import heavy_cases  # Stop and SessionEnd of a huge session, a huge state

    cases += heavy_cases(small, ws)
    cases.append(session_start_case(large))
    from .moment_rows import moment_cases  # the moment hooks on the same vault (issue 31)

    cases += moment_cases(large)
    for lines in sizes.compaction_lines:
        cases.append(compaction_case(small, lines, runs=3 if lines >= 60_000 else None))
    cases += recall_cases(large)
    cases.append(patch_case(small))
    from .scale import scale_cases  # it builds on this module's rows

    cases += scale_cases(ws, sizes.scale, sizes.recall_vault, sizes.entity_items)
    from .anchors_check import anchor_cases

    cases += anchor_cases(ws)
    return cases, large, small
