"""``vaultmem demo``: the whole story on a sample vault, start to finish.

A Claude session on a small shop project logs its work, records decisions, fixes a bug, passes
the 500-line threshold, ends and is compacted into entity notes (one of which a person had
already started in Obsidian); the next session starts with that memory as its context.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

from vaultmem.brief import briefing, staleness
from vaultmem.errors import GitError, VaultmemError
from vaultmem.memory import bases
from vaultmem.memory.reports import CompactReport
from vaultmem.memory.sessions import Memory
from vaultmem.notes import patch, schema, sections
from vaultmem.notes.schema import Kind
from vaultmem.search.recall import recall
from vaultmem.store import git
from vaultmem.store.config import Config
from vaultmem.store.vaultopen import open_vault

PROJECT = "demo-shop"

PERSON_AUTH_NOTE = f"""---
type: entity
project: demo-shop
tags:
  - claude/entity
  - team/security   # added by a person in Obsidian
created: 2026-10-01
updated: 2026-10-01
status: active
---
# Auth

## {schema.OVERVIEW}

Login, sessions and tokens for the shop. Owner: Dana (written by hand in Obsidian).

## {schema.KEY_DECISIONS}

- Passwords are hashed with argon2id (decided before vaultmem).

## {schema.GOTCHAS_AND_TROUBLESHOOTING}

## {schema.RECENT_CHANGES}

## {schema.RELATED_ENTITIES}

## {schema.REFERENCES}
"""

# (title, text) of work-log entries; the story's bug fix and workaround are among them.
STORY = [
    ("Read the login flow", "Walked through `src/auth/login.py` and the session middleware."),
    ("Sketch token format", "Access token 15 min, refresh token 14 days, both JWT."),
    ("Fixed bug: clock skew broke login",
     ("Root cause: the API gateway clock runs 20 s ahead, so fresh tokens were 'not yet valid'. "
      "Allow 30 s leeway when checking `nbf`/`iat`.\n\n```python\njwt.decode(token, key, "
      "leeway=30)\n```")),
    ("Connection pool exhaustion under load",
     ("Troubleshot timeouts in the checkout tests: the pool had 5 connections for 20 workers. "
      "Workaround: pool size from `DB_POOL_SIZE`, default 20.")),
    ("Wire refresh endpoint", "POST /auth/refresh rotates the refresh token and revokes the old one."),
]


@dataclass(frozen=True)
class DemoReport:
    """What the demo did, for the CLI to print."""

    root: Path
    session_note: str
    compaction: CompactReport | None
    files: tuple[tuple[str, int], ...]  # (rel, lines) of every note in the vault
    context: str
    recall_query: str
    recall_hits: tuple[tuple[str, str, str], ...]  # (type, rel, snippet)
    code: Path | None = None  # the sample code repository (None: git is not installed)
    flagged: tuple[str, ...] = ()  # what `vaultmem review` lists after the code changed
    index_map: tuple[str, ...] = ()  # _index.md's Key Entities and Recent Sessions, as written
    views: tuple[str, ...] = ()  # the Obsidian Bases files


def _filler(i: int) -> tuple[str, str]:
    # Ordinary steps of a long session: what pushes a real note past the threshold.
    topics = ["checkout tests", "cart service", "price rounding", "API schema", "logging",
              "fixtures", "CI config", "error pages"]
    topic = topics[i % len(topics)]
    return (
        f"Step {i + 1}: {topic}",
        (f"Worked on the {topic}; ran `pytest -q tests/{topic.replace(' ', '_')}` — all green.\n"
         f"- Touched `src/{topic.replace(' ', '_')}.py`\n- Noted follow-up for the {topic}"),
    )


def run_demo(root: Path, *, now: datetime) -> DemoReport:
    """Build the sample vault in ``root`` (which must be empty or missing) and run the story."""
    root = root.absolute()
    if root.exists() and not root.is_dir():
        raise VaultmemError("not a folder (give an empty or new folder for the demo)", path=root)
    try:
        if root.exists() and any(root.iterdir()):
            raise VaultmemError(f"demo folder is not empty: {root} (give an empty or new folder)")
        root.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise VaultmemError(f"cannot make the demo folder: {err.strerror or err}",
                            path=root) from None
    config = Config(vault=root, project=PROJECT)
    vault = open_vault(config)
    memory = Memory(config, vault, clock_now=lambda: now)
    vault.create(vault.layout.entity(PROJECT, "Auth"), PERSON_AUTH_NOTE)

    t = now - timedelta(hours=3)
    started = memory.start_session("demo-session-1", topic="Login with JWT", now=t)
    sid = started.session_id
    entries = STORY[:2] + [_filler(i) for i in range(40)] + STORY[2:4] + [
        _filler(i) for i in range(40, 80)
    ] + STORY[4:]
    for i, (title, text) in enumerate(entries):
        memory.log(text, title=title, session_id=sid, now=t + timedelta(minutes=2 * i))
    memory.decide("Use RS256-signed JWTs for access tokens", why="keys rotate without a redeploy",
                  entities=["Auth"], session_id=sid, now=t)
    memory.decide("Refresh tokens are single use and rotated on every refresh",
                  why="a stolen token stops working after one use", entities=["Auth"],
                  session_id=sid, now=t)
    memory.decide("Database pool size comes from DB_POOL_SIZE (default 20)",
                  why="tests run 20 workers", entities=["Database"], session_id=sid, now=t)
    memory.decide("The API gateway forwards the client IP in X-Forwarded-For",
                  entities=["API Gateway", "Auth"], session_id=sid, now=t)
    vault.update(started.note, [
        patch.SectionPatch((schema.OPEN_QUESTIONS,), "append",
                           "- Should refresh tokens be bound to a device id?"),
        patch.SectionPatch((schema.NEXT_STEPS,), "append",
                           "- Add rate limiting to POST /auth/login\n- Document the token "
                           "lifetimes in the API docs"),
    ])
    code = _code_decision(root / "shop-code", memory, started.note)
    ended = memory.end_session(reason="logout", session_id=sid, now=now)
    flagged: tuple[str, ...] = ()
    if code is not None:  # someone changes the code the decision was made on, after the session
        (code / CODE_FILE).write_text("ACCESS_TOKEN_MINUTES = 60  # longer for the mobile app\n")
        _git(code, "commit", "-qam", "Tokens live an hour")
        flagged = tuple(f"^{f.block} {f.text} (changed since {f.commit}: {', '.join(f.files)})"
                        for f in staleness.review(vault, config, code))
    second = memory.start_session("demo-session-2", topic="Rate limiting",
                                  now=now + timedelta(days=1))
    context = briefing.build(vault, config, exclude={second.note}, cwd=code)
    files = tuple((rel, vault.read(rel).lines) for rel in vault.iter_notes())
    query = "clock skew"
    found = recall(vault, config, query, limit=3, today=now.date())
    hits = tuple((hit.type or "note", hit.rel, hit.snippet) for hit in found.hits)
    index = vault.read(vault.layout.project_index(PROJECT)).text
    views = tuple(rel for rel in bases.files(config.namespace) if vault.exists(rel))
    return DemoReport(root, started.note, ended.report, files, context,
                      query, hits, code, flagged, _index_map(index), views)


def _index_map(text: str) -> tuple[str, ...]:
    """The headings and rows of the project index's map sections, as the note holds them."""
    lines = text.split("\n")
    out: list[str] = []
    for head in sections.headings(text):
        if head.title in (schema.KEY_ENTITIES, "Recent Sessions"):
            out.append(lines[head.line])
            out.extend(row for row in lines[head.body_start:head.own_end] if row.strip())
    return tuple(out)


CODE_FILE = "src/auth/tokens.py"
CODE_DECISION = "Access tokens live 15 minutes (ACCESS_TOKEN_MINUTES in tokens.py)"


def _git(repo: Path, *args: str) -> None:
    git.run(["-c", "user.name=vaultmem demo", "-c", "user.email=demo@example.invalid",
             "-c", "commit.gpgsign=false", *args], repo)


def _code_decision(code: Path, memory: Memory, note: str) -> Path | None:
    """A small git repository, and a decision captured from a turn that edited its tokens.py:
    the session note's item is anchored to the file's content and the commit (capture's own
    path). None when git is not installed."""
    from vaultmem.claude import ingest, recordsteps

    try:
        (code / CODE_FILE).parent.mkdir(parents=True)
        (code / CODE_FILE).write_text("ACCESS_TOKEN_MINUTES = 15\n")
        _git(code, "init", "-q")
        _git(code, "add", ".")
        _git(code, "commit", "-qm", "Token lifetime")
    except (OSError, GitError):
        return None
    item = ingest.Item(Kind.DECISION, CODE_DECISION, ("Auth",), files=(str(code / CODE_FILE),))
    told = recordsteps.anchored(ingest.Story((), (item,), {}), str(code))
    memory.vault.update(note, ingest.edits_for(told, memory.vault.read(note).text))
    return code
