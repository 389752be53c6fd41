"""A deterministic vault generator for the benchmarks.

``generate(root, notes=10_000, seed=0)`` writes a vault in vaultmem's layout (DESIGN §1, §2):
projects with an ``_index.md``, session notes (recent ones active, older ones compacted into
``archive/sessions/``), entity notes, and a few global entities and topics. The same seed gives
the same bytes: nothing reads the clock, dates count back from a fixed ``today``.

``session_note(lines=600, entities=12, new_entities=6)`` writes one session note of exactly that
many lines whose decisions and gotchas link that many entities: the input of the compaction rows.

CLI: ``python -m bench.generate DIR --notes 10000 [--seed 0] [--projects N]``.
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import math
import random
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path
from typing import TypeVar

T = TypeVar("T")

NAMESPACE = "claude"
# The benchmarks pin VAULTMEM_NOW to this day so that ages and thresholds do not drift.
TODAY = date(2026, 11, 22)
NOW_ISO = "2026-11-22T10:30:00"

_PROJECT_WORDS = (
    "shop",
    "billing",
    "ledger",
    "atlas",
    "harbor",
    "orbit",
    "quill",
    "relay",
    "sprout",
    "tundra",
    "beacon",
    "cobalt",
    "delta",
    "ember",
    "fjord",
    "granite",
    "helix",
    "iris",
    "juniper",
    "kiln",
)
_PROJECT_KINDS = ("api", "web", "service", "infra", "cli", "worker", "mobile", "sdk", "etl", "docs")

_ENTITY_PREFIXES = (
    "Auth",
    "Billing",
    "Checkout",
    "Order",
    "Payment",
    "Search",
    "Session",
    "User",
    "Inventory",
    "Invoice",
    "Notification",
    "Report",
    "Catalog",
    "Shipping",
    "Tenant",
    "Audit",
    "Export",
    "Import",
    "Webhook",
    "Metrics",
    "Feature Flag",
    "Rate Limit",
    "Cache",
    "Queue",
    "Schema",
    "Config",
    "Deploy",
    "Backup",
    "Upload",
    "Email",
)
_ENTITY_NOUNS = (
    "Service",
    "Gateway",
    "Worker",
    "Store",
    "Pipeline",
    "Client",
    "Module",
    "Scheduler",
    "Migrations",
    "Adapter",
    "Middleware",
    "Handler",
    "Index",
    "API",
    "Model",
    "Router",
    "Cache",
    "Queue",
    "Policy",
    "Validator",
    "Serializer",
    "Dashboard",
    "Job",
    "Registry",
    "Proxy",
    "Cluster",
    "Bucket",
    "Template",
    "Hook",
    "Tests",
)
_GLOBAL_ENTITIES = (
    "PostgreSQL",
    "Redis",
    "Docker",
    "Kubernetes",
    "Terraform",
    "GitHub Actions",
    "Nginx",
    "SQLAlchemy",
    "FastAPI",
    "pytest",
    "Celery",
    "Sentry",
    "OpenTelemetry",
    "Stripe",
    "S3",
    "Grafana",
    "Prometheus",
    "Alembic",
    "Pydantic",
    "uv",
    "ruff",
    "mypy",
    "Vite",
    "React",
    "TypeScript",
    "Node.js",
    "Rust",
    "SQLite",
    "Kafka",
    "RabbitMQ",
)
_TOPICS = (
    "Testing Strategy",
    "Release Process",
    "Incident Review",
    "Code Review Checklist",
    "Database Migrations",
    "Observability",
    "Security Practices",
    "Performance Tuning",
    "Dependency Upgrades",
    "API Versioning",
    "Error Handling",
    "Local Development",
    "Caching Patterns",
    "Background Jobs",
    "Feature Flags",
    "Data Retention",
)
_VERBS = (
    "refactored",
    "profiled",
    "migrated",
    "reviewed",
    "traced",
    "rewrote",
    "benchmarked",
    "documented",
    "split",
    "hardened",
    "simplified",
    "instrumented",
    "debugged",
    "cleaned up",
)
_OBJECTS = (
    "the retry loop",
    "the connection pool",
    "the serializer",
    "the nightly job",
    "the webhook",
    "the login flow",
    "the pagination query",
    "the cache layer",
    "the config loader",
    "the upload path",
    "the search endpoint",
    "the migration script",
    "the rate limiter",
    "the test fixtures",
    "the error handler",
    "the feature flag",
    "the export task",
)
_REASONS = (
    "it keeps the hot path free of network calls",
    "the old version held a lock across an await",
    "it halves the p95 latency in the staging profile",
    "the upstream API paginates with opaque cursors",
    "it makes the failure visible instead of silent",
    "two workers were racing on the same row",
    "it avoids a full table scan on every request",
    "the library's default timeout is infinite",
    "it is what the on-call runbook already assumes",
    "the test suite needed a deterministic clock",
)
_PROBLEMS = (
    "deadlock between the worker and the scheduler",
    "timeout when the pool was exhausted",
    "off-by-one in the cursor pagination",
    "stale cache entry after a config reload",
    "duplicate webhook delivery on retry",
    "timezone drift in the nightly report",
    "memory growth from an unbounded queue",
    "flaky test caused by dict ordering",
    "N+1 query in the listing endpoint",
    "race in the file upload cleanup",
)
_GOTCHA_PHRASES = (
    "Root cause:",
    "Fixed bug:",
    "Workaround:",
    "Resolved:",
    "Gotcha:",
    "Troubleshot",
)
_COMMANDS = (
    "pytest -q tests/{m} -x",
    "git log --oneline -n 20 -- src/{m}",
    "rg -n 'retry' src/{m}",
    "alembic upgrade head",
    "docker compose up -d db redis",
    "uv run mypy src/{m}",
    "curl -s localhost:8000/health | jq .",
    "make lint && make test",
    "psql -c 'EXPLAIN ANALYZE SELECT * FROM orders LIMIT 50'",
    "kubectl -n staging rollout status deploy/{m}",
)
_LANG_SNIPPETS = (
    (
        "python",
        (
            "def retry(fn, attempts=3):",
            "    for i in range(attempts):",
            "        try:",
            "            return fn()",
            "        except TimeoutError:",
            "            time.sleep(2 ** i)",
            "    raise RuntimeError('gave up')",
        ),
    ),
    ("sql", ("CREATE INDEX CONCURRENTLY idx_orders_created", "    ON orders (created_at DESC);")),
    (
        "yaml",
        (
            "retries: 3",
            "timeout_s: 10",
            "# headings inside fences are not sections",
            "backoff: exponential",
        ),
    ),
    (
        "typescript",
        (
            "export async function load(id: string) {",
            "  const res = await fetch(`/api/items/${id}`);",
            "  if (!res.ok) throw new Error(res.statusText);",
            "  return res.json();",
            "}",
        ),
    ),
)
_QUESTIONS = (
    "Should the retry budget be shared across workers?",
    "Do we need a backfill for rows written before the fix?",
    "Is the staging profile representative of production load?",
    "Can the cache key include the tenant without a migration?",
    "Who owns the alert once this ships?",
    "Is the vendor's rate limit per key or per account?",
)
_NEXT = (
    "Add a regression test for the edge case",
    "Ship behind a feature flag and watch the dashboard",
    "Write the runbook entry",
    "Remove the temporary logging",
    "Open a ticket for the follow-up cleanup",
    "Ask the platform team about the quota",
)
_SYLLABLES = (
    "ka",
    "zor",
    "vex",
    "mil",
    "tan",
    "quo",
    "rip",
    "lun",
    "dra",
    "pel",
    "sor",
    "gim",
    "fen",
    "yob",
    "wex",
    "nir",
    "tul",
    "bax",
    "cro",
    "hiv",
)


@dataclass(frozen=True)
class KnownAnswer:
    """A query whose best hit must be ``rel`` (every query term occurs in that note)."""

    query: str
    rel: str


@dataclass(frozen=True)
class GeneratedVault:
    """What ``generate`` wrote; every path is vault-relative POSIX."""

    root: Path
    seed: int
    today: date
    projects: tuple[str, ...]
    sessions: tuple[str, ...]  # active and archived-in-place originals under sessions/
    archives: tuple[str, ...]  # archive/sessions copies
    entities: tuple[str, ...]  # project and global entities
    topics: tuple[str, ...]
    indexes: tuple[str, ...]  # one _index.md per project
    answers: tuple[KnownAnswer, ...]
    bytes: int

    @property
    def notes(self) -> tuple[str, ...]:
        """Every note written, sorted."""
        return tuple(
            sorted(self.sessions + self.archives + self.entities + self.topics + self.indexes)
        )

    def project_entities(self, project: str) -> tuple[str, ...]:
        """Entity names (file stems) of one project."""
        prefix = f"{NAMESPACE}/projects/{project}/entities/"
        return tuple(rel[len(prefix) : -3] for rel in self.entities if rel.startswith(prefix))

    def project_notes(self, project: str) -> tuple[str, ...]:
        """Every note of one project."""
        prefix = f"{NAMESPACE}/projects/{project}/"
        return tuple(rel for rel in self.notes if rel.startswith(prefix))


def default_projects(notes: int) -> int:
    """How many projects a vault of ``notes`` notes gets: 6 at 1,000, 20 at 10,000."""
    return max(1, min(50, int(math.sqrt(notes) / 5)))


def generate(
    root: Path, *, notes: int, seed: int = 0, projects: int | None = None
) -> GeneratedVault:
    """Write a vault of exactly ``notes`` notes under ``root`` and return what is where."""
    if notes < 1:
        raise ValueError("notes must be >= 1")
    rng = random.Random(f"vault:{seed}")
    n_projects = default_projects(notes) if projects is None else max(1, projects)
    n_projects = min(n_projects, notes)
    # 1% global entities, 0.5% topics, at least one project note each.
    n_global = min(len(_GLOBAL_ENTITIES), notes // 100)
    n_topics = min(len(_TOPICS), notes // 200)
    n_projects = max(1, min(n_projects, notes - n_global - n_topics))
    per_project = _spread(notes - n_global - n_topics, n_projects)
    project_names = _project_names(n_projects, rng)
    global_names = list(_GLOBAL_ENTITIES[:n_global])

    files: dict[str, str] = {}
    sessions: list[str] = []
    archives: list[str] = []
    entities: list[str] = []
    indexes: list[str] = []
    answers: list[KnownAnswer] = []
    words = _UniqueWords(rng)
    answer_every = max(1, notes // max(5, min(200, notes // 100)))

    for project, count in zip(project_names, per_project):
        prj_rng = random.Random(f"vault:{seed}:{project}")
        # Index 1, entities ~20%, the rest sessions.
        n_entities = max(0, min(len(_ENTITY_PREFIXES) * len(_ENTITY_NOUNS), (count - 1) // 5))
        n_sessions = max(0, count - 1 - n_entities)
        names = entity_names(n_entities, rng=prj_rng)
        rel = f"{NAMESPACE}/projects/{project}/_index.md"
        files[rel] = _index_note(project, names[:8])
        indexes.append(rel)
        cited = _project_sessions(
            project,
            n_sessions,
            names,
            prj_rng,
            words,
            answer_every,
            files,
            sessions,
            archives,
            answers,
        )
        for name in names:
            rel = f"{NAMESPACE}/projects/{project}/entities/{name}.md"
            text, answer = _entity_note(
                name,
                project,
                names,
                global_names,
                prj_rng,
                words,
                cited.get(name, []),
                want_answer=len(files) % answer_every == 0,
            )
            files[rel] = text
            entities.append(rel)
            if answer:
                answers.append(KnownAnswer(answer, rel))
    for name in global_names:
        rel = f"{NAMESPACE}/global/entities/{name}.md"
        text, answer = _entity_note(
            name,
            "global",
            global_names,
            [],
            rng,
            words,
            [],
            want_answer=len(files) % answer_every == 0,
        )
        files[rel] = text
        entities.append(rel)
        if answer:
            answers.append(KnownAnswer(answer, rel))
    topics: list[str] = []
    for name in _TOPICS[:n_topics]:
        rel = f"{NAMESPACE}/global/topics/{name}.md"
        files[rel] = _topic_note(name, global_names, rng)
        topics.append(rel)

    total = 0
    made: set[str] = set()
    for rel, text in files.items():
        path = root / rel
        parent = str(path.parent)
        if parent not in made:
            path.parent.mkdir(parents=True, exist_ok=True)
            made.add(parent)
        data = text.encode("utf-8")
        path.write_bytes(data)
        total += len(data)
    if len(files) != notes:
        raise AssertionError(f"generated {len(files)} notes, wanted {notes}")
    return GeneratedVault(
        root=root,
        seed=seed,
        today=TODAY,
        projects=tuple(project_names),
        sessions=tuple(sessions),
        archives=tuple(archives),
        entities=tuple(entities),
        topics=tuple(topics),
        indexes=tuple(indexes),
        answers=tuple(answers),
        bytes=total,
    )


def entity_names(
    count: int, *, rng: random.Random | None = None, avoid: Sequence[str] = ()
) -> list[str]:
    """``count`` distinct entity names ("Auth Gateway", ...), none of them in ``avoid``."""
    rng = rng or random.Random("entities")
    taken = {name.lower() for name in avoid}
    combos = [f"{p} {n}" for p in _ENTITY_PREFIXES for n in _ENTITY_NOUNS]
    rng.shuffle(combos)
    names: list[str] = []
    for name in combos:
        if len(names) == count:
            break
        if name.lower() not in taken:
            names.append(name)
            taken.add(name.lower())
    suffix = 2
    while len(names) < count:
        # More than the combinations: number them, as a person would ("Auth Service 2").
        for base in combos:
            name = f"{base} {suffix}"
            if len(names) < count and name.lower() not in taken:
                names.append(name)
                taken.add(name.lower())
        suffix += 1
    return names


def session_note(
    lines: int,
    entities: int,
    new_entities: int,
    *,
    project: str = "bench",
    existing: Sequence[str] = (),
    seed: int = 0,
    created: date = TODAY,
    session_id: str | None = None,
    topic: str = "compaction benchmark",
) -> str:
    """A session note of exactly ``lines`` lines linking ``entities`` distinct entities.

    The first ``entities - new_entities`` entities are taken from ``existing`` (or made up when
    it is too short); ``new_entities`` names are guaranteed not to be in ``existing``. Every
    entity is linked from at least one decision; gotcha entries link them too.
    """
    if not 0 <= new_entities <= entities or entities < 1:
        raise ValueError("need 1 <= entities and 0 <= new_entities <= entities")
    rng = random.Random(f"session:{seed}:{lines}:{entities}:{new_entities}:{project}")
    old_count = entities - new_entities
    old = list(existing[:old_count])
    if len(old) < old_count:
        old += entity_names(old_count - len(old), rng=rng, avoid=list(existing) + old)
    new = entity_names(new_entities, rng=random.Random(f"new:{seed}"), avoid=list(existing) + old)
    names = old + new
    sid = session_id or _uuid(rng)
    n_decisions = max(entities, lines // 15)
    head = _session_head(project, topic, created, created, "active", [sid], rng, names[:2])
    decisions = (
        ["## Decisions Made", ""]
        + [f"- {_decision(rng)} ([[{names[i % entities]}]])" for i in range(n_decisions)]
        + [""]
    )
    tail = (
        ["## Open Questions", ""]
        + [f"- {q}" for q in rng.sample(_QUESTIONS, 2)]
        + [""]
        + ["## Next Steps", ""]
        + [f"- [ ] {s}" for s in rng.sample(_NEXT, 2)]
        + [""]
        + ["## Related Entities", ""]
        + [f"- [[{name}]]" for name in names]
    )
    fixed = len(head) + 2 + len(decisions) + len(tail)  # 2: "## Work Log" and its blank line
    budget = lines - fixed
    minimum = 4  # one entry: heading, blank, one prose line, blank
    if budget < minimum:
        # Too short for that many decisions: fewer decisions (still one per entity) if possible.
        raise ValueError(
            f"{lines} lines is too short for {entities} entities (need {fixed + minimum})"
        )
    log = _work_log(budget, names, rng, minute=8 * 60)
    out = head + ["## Work Log", ""] + log + decisions + tail
    assert len(out) == lines, (len(out), lines)
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------------------------------------
# Notes


def _project_sessions(
    project: str,
    count: int,
    names: list[str],
    rng: random.Random,
    words: _UniqueWords,
    answer_every: int,
    files: dict[str, str],
    sessions: list[str],
    archives: list[str],
    answers: list[KnownAnswer],
) -> dict[str, list[str]]:
    """Write ``count`` session notes of one project: the last two active, the rest archived.

    Returns, per entity, the archives that link it (its backlinks under ``## References``).
    """
    written = 0
    stems: set[str] = set()
    cited: dict[str, list[str]] = {}
    # Sessions spread over two years, oldest first; the newest two are within two days.
    while written < count:
        remaining = count - written
        active = remaining <= 2
        # A third of the archived sessions keep their original (status archived, archived_to);
        # the rest were compacted with --move. A pair needs two slots.
        keep_original = not active and remaining >= 4 and rng.random() < 1 / 3
        days_ago = remaining - 1 if active else 3 + (remaining * 730) // max(1, count)
        created = TODAY - timedelta(days=days_ago)
        topic = _topic_phrase(rng)
        stem = f"{created.isoformat()}-{_slug(topic)}"
        base, n = stem, 2
        while stem in stems:
            stem, n = f"{base}-{n}", n + 1
        stems.add(stem)
        links = rng.sample(names, min(len(names), rng.randint(1, 4))) if names else []
        body_lines = rng.randint(40, 140)
        # A needle in a pair would have two right answers; plant it only in single notes.
        want = len(files) % answer_every == 0 and not keep_original
        text, answer = _session_text(project, topic, created, links, body_lines, rng, words, want)
        session_rel = f"{NAMESPACE}/projects/{project}/sessions/{stem}.md"
        archive_rel = f"{NAMESPACE}/projects/{project}/archive/sessions/{stem}.md"
        if active:
            files[session_rel] = text
            sessions.append(session_rel)
            written += 1
            target = session_rel
        else:
            lines_n = len(text.splitlines())
            archived = _archive_fields(text, created, lines_n, days_ago)
            files[archive_rel] = archived
            archives.append(archive_rel)
            written += 1
            target = archive_rel
            for name in links:
                cited.setdefault(name, []).append(archive_rel)
            if keep_original:
                link = f'"[[{archive_rel[:-3]}|{stem}]]"'
                files[session_rel] = text.replace(
                    "status: active\n", f"status: archived\narchived_to: {link}\n", 1
                )
                sessions.append(session_rel)
                written += 1
        if answer:
            answers.append(KnownAnswer(answer, target))
    return cited


def _session_text(
    project: str,
    topic: str,
    created: date,
    links: list[str],
    body_lines: int,
    rng: random.Random,
    words: _UniqueWords,
    want_answer: bool,
) -> tuple[str, str | None]:
    sid = _uuid(rng)
    head = _session_head(project, topic, created, created, "active", [sid], rng, links[:1])
    answer: str | None = None
    decisions = ["## Decisions Made", ""]
    for i in range(rng.randint(1, 5)):
        link = f" ([[{links[i % len(links)]}]])" if links else ""
        decisions.append(f"- {_decision(rng)}{link}")
    if want_answer:
        word = words.next()
        anchor = topic.split()[-1].lower()
        decisions.append(f"- Keep the {word} fallback for {anchor} until the vendor fixes it")
        answer = f"{word} {anchor}"
    decisions.append("")
    tail = (
        ["## Open Questions", ""]
        + [f"- {q}" for q in rng.sample(_QUESTIONS, rng.randint(1, 2))]
        + [""]
        + ["## Next Steps", ""]
        + [f"- [ ] {s}" for s in rng.sample(_NEXT, rng.randint(1, 3))]
        + [""]
        + ["## Related Entities", ""]
        + ([f"- [[{n}]]" for n in links] or ["- none yet"])
    )
    budget = max(4, body_lines - len(head) - len(decisions) - len(tail) - 2)
    log = _work_log(budget, links or [""], rng, minute=rng.randint(8 * 60, 14 * 60))
    out = head + ["## Work Log", ""] + log + decisions + tail
    return "\n".join(out) + "\n", answer


def _session_head(
    project: str,
    topic: str,
    created: date,
    updated: date,
    status: str,
    session_ids: list[str],
    rng: random.Random,
    links: Sequence[str],
) -> list[str]:
    tags = ["claude/session", project]
    context = (
        f"Picked up {topic.lower()} after {_pick(rng, _PROBLEMS)} showed up in staging. "
        f"Goal: {_pick(rng, _VERBS)} {_pick(rng, _OBJECTS)} so that {_pick(rng, _REASONS)}."
    )
    lines = [
        "---",
        "type: session",
        f"project: {project}",
        "tags:",
        *[f"  - {t}" for t in tags],
        f"created: {created.isoformat()}",
        f"updated: {updated.isoformat()}",
        f"status: {status}",
        "session_ids:",
        *[f"  - {s}" for s in session_ids],
        "---",
        "",
        f"# {topic}",
        "",
        "## Context",
        "",
        context,
    ]
    if links and links[0]:
        lines.append(f"Mostly about [[{links[0]}]].")
    lines.append("")
    return lines


def _work_log(budget: int, names: Sequence[str], rng: random.Random, *, minute: int) -> list[str]:
    """Work-log entries filling exactly ``budget`` lines (``budget`` >= 4), ending in a blank."""
    out: list[str] = []
    i = 0
    while True:
        left = budget - len(out)
        entry = _entry(names[i % len(names)], rng, minute, i)
        if len(entry) > left or left - len(entry) < 4 and left != len(entry):
            break
        out += entry
        minute += rng.randint(2, 17)
        i += 1
        if len(out) == budget:
            return out
    # Fill the rest with one entry of plain prose lines: heading, blank, prose..., blank.
    left = budget - len(out)
    hh, mm = divmod(minute % (24 * 60), 60)
    out += [f"### {hh:02d}:{mm:02d} - Notes", ""]
    out += [_prose(rng, names[i % len(names)]) for _ in range(left - 3)]
    out.append("")
    return out


def _entry(name: str, rng: random.Random, minute: int, i: int) -> list[str]:
    hh, mm = divmod(minute % (24 * 60), 60)
    link = f"[[{name}]]" if name else "the module"
    module = _slug(name or "core") or "core"
    gotcha = i % 4 == 3
    if gotcha:
        problem = _pick(rng, _PROBLEMS)
        lines = [
            f"### {hh:02d}:{mm:02d} - Fix {problem.split(' in ')[0].split(' from ')[0]}",
            "",
            f"{_pick(rng, _GOTCHA_PHRASES)} {problem} in {link}; {_pick(rng, _REASONS)}.",
        ]
    else:
        title = f"{_pick(rng, _VERBS).capitalize()} {_pick(rng, _OBJECTS)}"
        lines = [f"### {hh:02d}:{mm:02d} - {title}", "", _prose(rng, name)]
    shape = rng.random()
    if shape < 0.35:
        lines += ["", "```bash", _pick(rng, _COMMANDS).format(m=module), "```"]
    elif shape < 0.5:
        lang, snippet = _pick(rng, _LANG_SNIPPETS)
        lines += ["", f"```{lang}", *snippet, "```"]
    elif shape < 0.7:
        lines += [
            "",
            f"- touched `src/{module}/{_pick(rng, ('core', 'api', 'db'))}.py`",
            f"- ran `{_pick(rng, _COMMANDS).format(m=module)}`",
        ]
    lines.append("")
    return lines


def _prose(rng: random.Random, name: str) -> str:
    link = f"[[{name}]]" if name else "it"
    return (
        f"{_pick(rng, _VERBS).capitalize()} {_pick(rng, _OBJECTS)} around {link} because "
        f"{_pick(rng, _REASONS)}; next is {_pick(rng, _OBJECTS)}."
    )


def _decision(rng: random.Random) -> str:
    return f"{_pick(rng, _VERBS).capitalize()} {_pick(rng, _OBJECTS)}: {_pick(rng, _REASONS)}"


def _archive_fields(text: str, created: date, lines: int, days_ago: int) -> str:
    archived = created + timedelta(days=min(3, days_ago))
    reason = (
        f"Compaction threshold exceeded ({lines} lines)"
        if lines >= 500
        else f"Session older than 3 days ({min(3, days_ago)} days)"
    )
    return text.replace(
        "status: active\n",
        f"status: archived\narchived_date: {archived.isoformat()}\narchived_reason: {reason}\n",
        1,
    )


def _entity_note(
    name: str,
    project: str,
    peers: Sequence[str],
    global_names: Sequence[str],
    rng: random.Random,
    words: _UniqueWords,
    archives: Sequence[str],
    *,
    want_answer: bool,
) -> tuple[str, str | None]:
    created = TODAY - timedelta(days=rng.randint(30, 700))
    updated = TODAY - timedelta(days=rng.randint(0, 29))
    related = [p for p in rng.sample(list(peers), min(len(peers), 4)) if p != name][:3]
    if global_names:
        related.append(_pick(rng, list(global_names)))
    answer: str | None = None
    lines = [
        "---",
        "type: entity",
        f"project: {project}",
        "tags:",
        "  - claude/entity",
        f"  - {project}",
        f"created: {created.isoformat()}",
        f"updated: {updated.isoformat()}",
        "status: active",
        "---",
        "",
        f"# {name}",
        "",
        "## Overview",
        "",
        (
            f"{name} handles {_pick(rng, _OBJECTS)} for {project}. "
            f"It was {_pick(rng, _VERBS)} when {_pick(rng, _REASONS)}."
        ),
        "",
        "## Key Decisions",
        "",
    ]
    for _ in range(rng.randint(2, 12)):
        text = _decision(rng)
        lines.append(f"- {text} ^{_block_id(name, 'decision', text, str(rng.random()))}")
    lines += ["", "## Gotchas & Troubleshooting", ""]
    for _ in range(rng.randint(1, 8)):
        text = f"{_pick(rng, _GOTCHA_PHRASES)} {_pick(rng, _PROBLEMS)}; {_pick(rng, _REASONS)}"
        lines.append(f"- {text} ^{_block_id(name, 'gotcha', text, str(rng.random()))}")
    if want_answer:
        word = words.next()
        anchor = name.split()[0].lower()
        # As capture writes a fix (mining/fixes.py): the fix, then the failure and its error
        # quoted, which is what the failure hook matches a failure by (bench row
        # post-tool-use-failure); a gotcha stated in words only is the rarer case.
        lines.append(f"- Fixed by editing `src/{anchor}/client.py` to strip the {word} header: "
                     f"`pytest tests/test_{anchor}.py` failed (`E   RetryError: {word} header "
                     f"breaks {anchor} retries`)")
        answer = f"{word} {anchor}"
    lines += ["", "## Recent Changes", ""]
    for _ in range(rng.randint(1, 6)):
        day = TODAY - timedelta(days=rng.randint(0, 90))
        lines.append(f"- {day.isoformat()}: {_pick(rng, _VERBS)} {_pick(rng, _OBJECTS)}")
    lines += ["", "## Related Entities", ""] + [f"- [[{r}]]" for r in related]
    lines += ["", "## References", ""]
    for rel in archives[-6:]:
        stem = rel.rsplit("/", 1)[-1][:-3]
        lines.append(f"- [[{rel[:-3]}|{stem}]] - Archived session (compacted)")
    lines.append("- Design doc in the repository wiki")
    return "\n".join(lines) + "\n", answer


def _index_note(project: str, names: Sequence[str]) -> str:
    lines = [
        "---",
        "type: project-index",
        f"project: {project}",
        "tags:",
        "  - claude/project",
        f"  - {project}",
        f"created: {(TODAY - timedelta(days=730)).isoformat()}",
        f"updated: {TODAY.isoformat()}",
        "---",
        "",
        f"# {project}",
        "",
        "## Key Entities",
        "",
        *[f"- [[{n}]]" for n in names],
        "",
    ]
    return "\n".join(lines)


def _topic_note(name: str, global_names: Sequence[str], rng: random.Random) -> str:
    links = rng.sample(list(global_names), min(3, len(global_names)))
    lines = [
        "---",
        "type: topic",
        "project: global",
        "tags:",
        "  - claude/topic",
        f"created: {(TODAY - timedelta(days=rng.randint(100, 700))).isoformat()}",
        f"updated: {(TODAY - timedelta(days=rng.randint(0, 99))).isoformat()}",
        "---",
        "",
        f"# {name}",
        "",
        "## Overview",
        "",
        f"How we approach {name.lower()} across projects: {_pick(rng, _REASONS)}.",
        "",
        "## Practices",
        "",
        *[f"- {_decision(rng)}" for _ in range(rng.randint(3, 8))],
        "",
        "## Related Entities",
        "",
        *[f"- [[{n}]]" for n in links],
        "",
    ]
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------
# Small helpers


class _UniqueWords:
    """Made-up words that occur nowhere else in the vault: the needles of the recall answers."""

    def __init__(self, rng: random.Random) -> None:
        self._rng = random.Random(rng.random())
        self._seen: set[str] = set()

    def next(self) -> str:
        while True:
            word = "".join(_pick(self._rng, _SYLLABLES) for _ in range(4))
            if word not in self._seen:
                self._seen.add(word)
                return word


def _spread(total: int, parts: int) -> list[int]:
    base, extra = divmod(max(0, total), parts)
    return [base + (1 if i < extra else 0) for i in range(parts)]


def _project_names(count: int, rng: random.Random) -> list[str]:
    combos = [f"{w}-{k}" for w in _PROJECT_WORDS for k in _PROJECT_KINDS]
    rng.shuffle(combos)
    names = combos[:count]
    n = 2
    while len(names) < count:
        names.append(f"{combos[len(names) % len(combos)]}-{n}")
        n += 1
    return names


def _topic_phrase(rng: random.Random) -> str:
    verb = _pick(rng, _VERBS).capitalize()
    obj = _pick(rng, _OBJECTS).removeprefix("the ")
    return f"{verb} {obj}"


def _pick(rng: random.Random, seq: Sequence[T]) -> T:
    # random.choice is the generator's hot spot; one float draw is twice as fast and as fair.
    return seq[int(rng.random() * len(seq))]


@functools.lru_cache(maxsize=4096)
def _slug(text: str) -> str:
    out = []
    for ch in text.lower():
        out.append(ch if ch.isascii() and ch.isalnum() else "-")
    return "-".join(part for part in "".join(out).split("-") if part)


def _uuid(rng: random.Random) -> str:
    h = f"{rng.getrandbits(128):032x}"
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-a{h[17:20]}-{h[20:32]}"


def _block_id(*parts: str) -> str:
    return "vm-" + hashlib.sha256("\x1f".join(parts).encode()).hexdigest()[:8]


def main(argv: list[str] | None = None) -> int:
    """``python -m bench.generate DIR --notes N``: write a vault and print a summary."""
    parser = argparse.ArgumentParser(
        prog="python -m bench.generate", description=__doc__.split("\n")[0]
    )
    parser.add_argument("dir", type=Path, help="vault root to write (created if missing)")
    parser.add_argument("--notes", type=int, default=1000, help="number of notes (default 1000)")
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    parser.add_argument("--projects", type=int, default=None, help="number of projects")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    vault = generate(args.dir, notes=args.notes, seed=args.seed, projects=args.projects)
    elapsed = time.perf_counter() - started
    print(
        f"{len(vault.notes)} notes ({vault.bytes / 2**20:.1f} MiB) in {len(vault.projects)} projects "
        f"under {vault.root} in {elapsed:.2f} s; {len(vault.answers)} known answers",
        file=sys.stdout,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
