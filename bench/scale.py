"""The scale rows (issue 14): costs that should grow with the project, not with the vault.

- ``doctor`` and a cold index build (``recall --all-projects`` after deleting the index) on
  vaults of 1,000 / 10,000 / 50,000 notes; each row's note says the median per 1,000 notes.
- ``recall`` in one project: the project alone (its folder and the global notes copied out of
  the big vault) against the same project inside the big vault (30,000 notes), and
  ``--all-projects`` after a note of another project was edited while scoped recalls ran.
- Compaction of the same session note into 12 entities of 5,000 dated items each against 12
  fresh entities.

Vaults are generated on a row's first run, so ``--only`` pays only for the vaults it needs.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sqlite3
import statistics
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from .cases import VaultmemEnv, compaction_case, notes_label, session_start_case
from .generate import NAMESPACE, TODAY
from .runner import Case, Sample, Workspace, timed

ENTITIES = 12


class LazyEnv:
    """A generated vault made on first use (generating 50,000 notes takes a minute)."""

    def __init__(self, ws: Workspace, name: str, notes: int, *, seed: int = 0) -> None:
        self.ws, self.name, self.notes, self.seed = ws, name, notes, seed
        self._env: VaultmemEnv | None = None

    def get(self) -> VaultmemEnv:
        """The environment, generating the vault the first time."""
        if self._env is None:
            self._env = VaultmemEnv(self.ws, self.name, self.notes, seed=self.seed)
        return self._env


def doctor_case(lazy: LazyEnv) -> Case:
    """``vaultmem doctor --json`` over the whole vault (exit 1: the vault has findings)."""
    seen: list[int] = []

    def run() -> Sample:
        env = lazy.get()
        sample = env.vaultmem_codes((0, 1), "doctor", "--json")
        report = json.loads(sample.stdout)
        if report["notes"] != len(env.vault.notes):
            raise RuntimeError(f"doctor checked {report['notes']} notes of {len(env.vault.notes)}")
        seen[:] = [len(report["problems"])]
        return sample

    return _whole_vault_case(
        "doctor", lazy, run, note="every note: YAML, links, names, archives, conflicts",
        check=lambda: f"{seen[0]:,} findings" if seen else "",
    )


def cold_index_case(lazy: LazyEnv) -> Case:
    """``vaultmem recall --all-projects`` after deleting the index: the whole vault indexed."""
    scanned: list[int] = []

    def run() -> Sample:
        env = lazy.get()
        env.drop_index()
        answer = env.vault.answers[0]
        sample = env.vaultmem("recall", answer.query, "--all-projects", "--json", "--limit", "5")
        doc = json.loads(sample.stdout)
        if not doc["hits"] or doc["hits"][0]["path"] != answer.rel:
            raise RuntimeError(f"{answer.query!r}: {answer.rel} not first")
        scanned[:] = [doc["index"]["scanned"]]
        return sample

    return _whole_vault_case(
        "index cold build: recall --all-projects", lazy, run,
        note="index.sqlite deleted before each run",
        check=lambda: f"{scanned[0]:,} notes indexed" if scanned else "",
    )


def _whole_vault_case(name: str, lazy: LazyEnv, run: Callable[[], Sample], *, note: str,
                      check: Callable[[], str]) -> Case:
    """A row over the whole vault: its size in the name, the median per 1,000 notes in the note,
    3 runs past 10,000 notes (a run takes seconds)."""
    return Case(
        f"{name} ({notes_label(lazy.notes)})",
        "vaultmem",
        run,
        note=note,
        check=check,
        per_notes=lazy.notes,
        runs=3 if lazy.notes > 10_000 else None,
    )


def _indexed_texts(env: VaultmemEnv) -> list[tuple[int, str, str, str]]:
    """(rowid, title, tags, body) of every note a cold build indexes, as it indexes them."""
    from vaultmem.search import indexrows
    from vaultmem.store.vault import Vault

    vault = Vault(env.root)
    namespace = vault.layout.namespace
    texts = []
    for rowid, rel in enumerate(vault.iter_notes(namespace), 1):
        row = indexrows.note_row(rel, (env.root / rel).read_bytes(), namespace)
        texts.append((rowid, row.names, row.tags, row.body))
    return texts


def fts_floor_case(lazy: LazyEnv) -> Case:
    """The SQLite FTS5 cost alone: the cold build's texts (prepared untimed) inserted in-process
    into a fresh FTS5 table with the same tokenizer and build settings, in one transaction."""
    inserted: list[int] = []

    def run() -> Sample:
        from vaultmem.search import index

        env = lazy.get()
        texts = _indexed_texts(env)
        db = lazy.ws.path(f"{lazy.name}-fts-floor") / "floor.sqlite"
        db.unlink(missing_ok=True)

        def insert() -> None:
            conn = sqlite3.connect(db, isolation_level=None)
            conn.execute(f"PRAGMA page_size = {index.BUILD_PAGE_SIZE}")
            conn.execute("PRAGMA journal_mode = OFF")
            conn.execute("PRAGMA synchronous = OFF")
            conn.execute(f"CREATE VIRTUAL TABLE t USING fts5(title, tags, body, "
                         f"tokenize = '{index.TOKENIZER}')")
            conn.execute("BEGIN")
            conn.execute("INSERT INTO t (t, rank) VALUES ('automerge', ?)",
                         (index.BUILD_AUTOMERGE,))
            conn.executemany("INSERT INTO t (rowid, title, tags, body) VALUES (?, ?, ?, ?)",
                             texts)
            conn.execute("COMMIT")
            conn.close()

        sample = timed(insert)
        inserted[:] = [len(texts)]
        db.unlink()
        return sample

    return Case(
        f"floor: index cold build's FTS5 inserts alone, in-process ({notes_label(lazy.notes)})",
        "floor",
        run,
        note="the texts vaultmem indexes (made untimed) into a fresh FTS5 table: same tokenizer, "
        "page size and automerge, one transaction",
        check=lambda: f"{inserted[0]:,} notes" if inserted else "",
        per_notes=lazy.notes,
        runs=3 if lazy.notes > 10_000 else None,
    )


class ProjectAlone:
    """The big vault's first project and the global notes, copied into a vault of their own."""

    def __init__(self, ws: Workspace, big: LazyEnv) -> None:
        self.ws, self.big = ws, big
        self._env: VaultmemEnv | None = None

    def get(self) -> VaultmemEnv:
        """The environment, copied out of the big vault the first time."""
        if self._env is None:
            big = self.big.get()
            root = self.ws.path("alone") / "vault"
            keep = (f"{NAMESPACE}/projects/{big.project}/", f"{NAMESPACE}/global/")
            for folder in keep:
                shutil.copytree(big.root / folder, root / folder)
            g = big.vault

            def mine(rels: tuple[str, ...]) -> tuple[str, ...]:
                return tuple(r for r in rels if r.startswith(keep))

            vault = replace(
                g,
                root=root,
                projects=(big.project,),
                sessions=mine(g.sessions),
                archives=mine(g.archives),
                entities=mine(g.entities),
                topics=mine(g.topics),
                indexes=mine(g.indexes),
                answers=tuple(a for a in g.answers if a.rel.startswith(keep)),
            )
            self._env = VaultmemEnv(self.ws, "alone", 0, vault=vault)
        return self._env


def _scoped_recall(get: Callable[[], VaultmemEnv], found: list[bool]) -> Callable[[], Sample]:
    counter = iter(range(1_000_000))

    def run() -> Sample:
        env = get()
        answers = env.answers()
        answer = answers[next(counter) % len(answers)]
        sample = env.vaultmem("recall", answer.query, "--json", "--limit", "5")
        hits = json.loads(sample.stdout)["hits"]
        found.append(bool(hits) and hits[0]["path"] == answer.rel)
        return sample

    return run


def recall_scale_cases(big: LazyEnv, alone: ProjectAlone) -> list[Case]:
    """Recall in one project alone, the same in the big vault, and --all-projects after edits."""
    n = notes_label(big.notes)
    found_alone: list[bool] = []
    found_big: list[bool] = []
    found_all: list[bool] = []
    edits = iter(range(1_000_000))

    def after_edit_elsewhere() -> Sample:
        env = big.get()
        others = [a for a in env.vault.answers if not a.rel.startswith(
            (f"{NAMESPACE}/projects/{env.project}/", f"{NAMESPACE}/global/"))]
        i = next(edits)
        target = others[i % len(others)].rel
        word = f"scaleword{i}x{hashlib.sha256(target.encode()).hexdigest()[:6]}"
        with (env.root / target).open("a", encoding="utf-8") as fh:
            fh.write(f"- Gotcha: {word} appended by the benchmark\n")
        # A scoped recall first (untimed): it must not hide the edit from the next full one.
        env.vaultmem("recall", env.answers()[0].query, "--json")
        sample = env.vaultmem("recall", word, "--all-projects", "--json", "--limit", "5")
        hits = json.loads(sample.stdout)["hits"]
        found_all.append(bool(hits) and hits[0]["path"] == target)
        return sample

    def verdict(found: list[bool], what: str) -> Callable[[], str]:
        return lambda: f"{what} {sum(found)}/{len(found)}"

    def alone_note() -> str:
        env = alone.get()
        return f"{len(env.vault.notes):,} notes; " + verdict(found_alone, "known answer first")()

    return [
        Case(
            "recall in one project, the project alone",
            "vaultmem",
            _scoped_recall(alone.get, found_alone),
            note="the big vault's first project and global notes, copied out",
            check=alone_note,
        ),
        Case(
            f"recall in one project of a {n} vault",
            "vaultmem",
            _scoped_recall(big.get, found_big),
            note="the same project and queries; refresh of the project and global only",
            check=verdict(found_big, "known answer first"),
        ),
        Case(
            f"recall --all-projects after an edit in another project ({n})",
            "vaultmem",
            after_edit_elsewhere,
            note="a note of another project appended to, a scoped recall run, then timed",
            check=verdict(found_all, "edited note first"),
        ),
    ]


def dated_items(name: str, count: int) -> str:
    """``count`` entity lines in vaultmem's dated form, one per past fact; every other one
    anchored to the file it was mined beside (``%%vm-anchor …%%``), as compaction writes them."""
    out = []
    for i in range(count):
        day = TODAY.replace(year=TODAY.year - 1 - i // 365 % 3).isoformat()
        digest = hashlib.sha256(f"{name}:{i}".encode()).hexdigest()
        anchor = (f" %%vm-anchor src/{name.lower()}/part{i % 7}.py@{digest[8:20]} "
                  f"commit {digest[20:27]}%%") if i % 2 else ""
        out.append(
            f"- {day} — Kept item {i} of {name}: retry the call after the token refresh{anchor} "
            f"([[2025-01-01-session-{i % 97}|2025-01-01-session-{i % 97}]]) ^vm-{digest[:8]}\n"
        )
    return "".join(out)


def own_items(name: str, count: int) -> str:
    """``count`` entity lines in vaultmem's own form before dates (``- text ([[…|…]]) ^vm-…``)."""
    out = []
    for i in range(count):
        block = hashlib.sha256(f"{name}:{i}".encode()).hexdigest()[:8]
        out.append(
            f"- Kept item {i} of {name}: retry the call after the token refresh "
            f"([[2025-01-01-session-{i % 97}|2025-01-01-session-{i % 97}]]) ^vm-{block}\n"
        )
    return "".join(out)


def big_entities(
    env: VaultmemEnv, items: int, lines: Callable[[str, int], str] = dated_items
) -> list[str]:
    """Grow the project's first 12 entities to ``items`` decision lines each (once)."""
    chosen = env.entity_names()[:ENTITIES]
    folder = env.root / NAMESPACE / "projects" / env.project / "entities"
    for name in chosen:
        path = folder / f"{name}.md"
        text = path.read_text(encoding="utf-8")
        head, mark, rest = text.partition("## Key Decisions\n\n")
        if not mark:
            raise RuntimeError(f"{path}: no Key Decisions section")
        path.write_text(head + mark + lines(name, items) + rest, encoding="utf-8")
    return chosen


class _Timings:
    """The samples of the fresh row, so each big row's note says its ratio to it."""

    def __init__(self) -> None:
        self.wall: list[float] = []
        self.cpu: list[float] = []

    def recorded(self, run: Callable[[], Sample], into: _Timings) -> Callable[[], Sample]:
        def timed_run() -> Sample:
            sample = run()
            into.wall.append(sample.seconds)
            into.cpu.append(sample.cpu or 0.0)
            return sample

        return timed_run

    def ratio(self, mine: _Timings) -> str:
        if not (self.wall and mine.wall):
            return ""
        # The first sample of each is the untimed warm-up.
        wall = statistics.median(mine.wall[1:] or mine.wall) / statistics.median(
            self.wall[1:] or self.wall)
        cpu = statistics.median(mine.cpu[1:] or mine.cpu) / max(
            statistics.median(self.cpu[1:] or self.cpu), 1e-9)
        return f"{wall:.2f}x fresh (cpu {cpu:.2f}x)"


def compaction_scale_cases(
    lazy: LazyEnv, own: LazyEnv, items: int, lines: int = 600
) -> list[Case]:
    """The same session note compacted into 12 fresh entities and into 12 of ``items`` items,
    dated (``lazy``'s vault) and in vaultmem's form before dates (``own``'s); the big rows'
    notes give their median over the fresh row's, measured in the same run."""
    fresh_times = _Timings()

    def grown(env: LazyEnv, form: Callable[[str, int], str]) -> Callable[[int], list[str]]:
        chosen: list[str] = []

        def pick(_: int) -> list[str]:
            if not chosen:
                chosen.extend(big_entities(env.get(), items, form))
            return list(chosen)

        return pick

    def with_ratio(case: Case, times: _Timings) -> Case:
        check = case.check

        def both() -> str:
            said = check() if check else ""
            return "; ".join(x for x in (fresh_times.ratio(times), said) if x)

        return replace(case, run=fresh_times.recorded(case.run, times), check=both)

    fresh = compaction_case(
        None, lines, entities=ENTITIES, new=ENTITIES, env_of=lazy.get,
        name=f"compaction in-process: {lines}-line note into {ENTITIES} fresh entities",
    )
    fresh = replace(fresh, run=fresh_times.recorded(fresh.run, fresh_times))
    dated_pick = grown(lazy, dated_items)  # grows the entities once, on its first call
    dated = compaction_case(
        None, lines, entities=ENTITIES, new=0, env_of=lazy.get, pick=dated_pick,
        name=f"compaction in-process: {lines}-line note into {ENTITIES} entities of "
        f"{items:,} items",
    )
    undated = compaction_case(
        None, lines, entities=ENTITIES, new=0, env_of=own.get, pick=grown(own, own_items),
        name=f"compaction in-process: {lines}-line note into {ENTITIES} entities of "
        f"{items:,} items before dates",
    )
    floor = Case(
        f"floor: read, hash twice and write back the {ENTITIES} entities of {items:,} items",
        "floor",
        _rewrite_floor(lambda: dated_pick(0), lazy),
        note="what compaction cannot do without: each entity read, decoded, hashed (at the read "
        "and again just before the replace), encoded and written durably",
    )
    return [fresh, with_ratio(dated, _Timings()), with_ratio(undated, _Timings()), floor,
            _session_start_on(lazy, lambda: dated_pick(0), items)]


def _session_start_on(lazy: LazyEnv, grow: Callable[[], object], items: int) -> Case:
    """``hook session-start`` once the project's first 12 entities hold ``items`` lines each:
    the briefing reads the most relevant components, each for its newest lines only."""
    inner: list[Case] = []

    def run() -> Sample:
        grow()
        if not inner:
            inner.append(session_start_case(lazy.get()))
        return inner[0].run()

    return Case(
        f"hook session-start, {ENTITIES} entities of {items:,} items",
        "vaultmem",
        run,
        note="compare: hook session-start (1,000 notes); the components' newest "
        "lines are read, whatever their age",
        check=lambda: inner[0].check() if inner and inner[0].check else "",
    )


def _rewrite_floor(chosen: Callable[[], list[str]], lazy: LazyEnv) -> Callable[[], Sample]:
    """The grown entities each read, decoded and hashed, hashed again from the file, encoded and
    written to a temporary file (fsync), moved into place (fsync of the folder): the work of
    a compaction that added nothing to parse, in-process."""

    def rewrite(path: Path) -> None:
        raw = path.read_bytes()
        text = raw.decode("utf-8")
        hashlib.sha256(raw).hexdigest()
        hashlib.sha256(path.read_bytes()).hexdigest()  # the look just before the replace
        tmp = path.with_name("." + path.name + ".floor")
        with open(tmp, "wb") as out:
            out.write(text.encode("utf-8"))
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, path)
        folder = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(folder)
        finally:
            os.close(folder)

    def run() -> Sample:
        names = chosen()
        env = lazy.get()
        folder = env.root / NAMESPACE / "projects" / env.project / "entities"
        paths = [folder / f"{name}.md" for name in names]

        def rewrite_all() -> None:
            for path in paths:
                rewrite(path)

        return timed(rewrite_all)

    return run


def scale_cases(
    ws: Workspace, sizes: tuple[int, ...], recall_vault: int, entity_items: int
) -> list[Case]:
    """Every scale row, each size on a vault of its own made on first use."""
    # Vaults of their own: the other rows add notes to theirs.
    envs = [LazyEnv(ws, f"scale-{notes}", notes) for notes in sizes]
    cases: list[Case] = []
    for lazy in envs:
        cases.append(doctor_case(lazy))
    for lazy in envs:
        cases += [cold_index_case(lazy), fts_floor_case(lazy)]
    big = LazyEnv(ws, f"recall-{recall_vault}", recall_vault)
    cases += recall_scale_cases(big, ProjectAlone(ws, big))
    cases += compaction_scale_cases(LazyEnv(ws, "entities", 1_000, seed=1),
                                    LazyEnv(ws, "entities-own", 1_000, seed=1), entity_items)
    return cases
