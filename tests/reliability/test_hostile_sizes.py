"""Attacks (issue 23 §2, hostile sizes): a pushed ``_index.md`` of 61 KB with an unclosed ``<!--``
and 8,000 headings took 34 s to parse (each heading re-parsed the growing open run). Parsing is
linear: the text markdown-it reads is bounded by a small multiple of the note, whatever it holds,
and the result is the parse of the whole text."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from vaultmem.notes import sections
from vaultmem.store.vault import Vault

from .kit import PROJECT, SESSION, memory, now, run_env, small_vault

OPENERS = {
    "comment": "<!-- never closed",
    "fence": "```",
    "front": "---\ntype: x",
}


def _note(opener: str, headings: int) -> str:
    return ("# Index\n\n" if not opener.startswith("---") else "") + opener + "\n\n" + "".join(
        f"## Heading {n}\n\nline {n}\n\n" for n in range(headings))


def _whole(text: str) -> tuple[object, ...]:
    blocks, found = sections._scan_tokens(sections._parser().parse(text), 0)
    parsed = sections._assemble(blocks, found, sections.line_count(text))
    return parsed.headings, parsed.blocks


@pytest.mark.parametrize("kind", sorted(OPENERS))
def test_an_unclosed_block_before_thousands_of_headings_parses_in_linear_work(
        kind: str, monkeypatch: pytest.MonkeyPatch) -> None:
    text = _note(OPENERS[kind], 8_000)
    parsed_chars = []
    real = sections._run_markdown_it

    def counting(run: str, total: int) -> sections._Run:
        parsed_chars.append(len(run))
        return real(run, total)

    monkeypatch.setattr(sections, "_run_markdown_it", counting)
    got = sections._parse(text)
    assert sum(parsed_chars) <= 4 * len(text)
    assert (got.headings, got.blocks) == _whole(text)


# -- a pushed session note of any size (a 60 MB one dated 2099 took SessionStart 23 s and 1 GB) --

# The process's own peak: /proc's VmHWM where there is one. getrusage's ru_maxrss is not: Linux
# carries the parent's peak across exec into it, so under a pytest worker grown past 150 MB (a
# whole suite's) every run read as that worker, and a 155 MB SessionStart passed unseen.
RSS_PROBE = """
import re, resource, sys
from vaultmem import launcher
try:
    launcher.main(sys.argv[1:])
except SystemExit:
    pass
try:
    with open("/proc/self/status") as f:
        peak = int(re.search(r"^VmHWM:\\s*(\\d+) kB", f.read(), re.M).group(1))
except (OSError, AttributeError):
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
sys.stderr.write("\\nmaxrss_kb=%d\\n" % peak)
"""
BIG_MB = 24


def _huge_session(path: Path, mb: int) -> None:
    """A session note dated 2099: ``mb`` MB of log, a decision in it, a next step last."""
    entry = "### 10:00 - padding the log\n\n" + "- Ran `true`\n" * 40 + "\n"
    with open(path, "w", encoding="utf-8") as f:
        f.write("---\ntype: session\ncreated: 2099-01-01\nstatus: active\nhost: elsewhere\n---\n"
                "# Pushed\n\n## Work Log\n\n")
        f.writelines(entry if n != 100 else "## Decisions Made\n\n- MIDDLEWORD chose a path\n\n" for n in range(mb * 1024 * 1024 // len(entry)))
        f.write("## Next Steps\n\n- TAILWORD ship the late step\n")


def _session_start(vault: Path, tmp_path: Path) -> tuple[str, str, int]:
    proc = subprocess.run(
        [sys.executable, "-c", RSS_PROBE, "--vault", str(vault), "hook", "session-start"],
        input=json.dumps({"hook_event_name": "SessionStart", "session_id": "s-new",
                          "cwd": str(tmp_path), "source": "startup"}).encode(),
        capture_output=True, cwd=tmp_path, env=run_env(VAULTMEM_PROJECT=PROJECT), timeout=300,
        check=False)
    err = proc.stderr.decode()
    assert proc.returncode == 0
    rss = int(err.rsplit("maxrss_kb=", 1)[1])
    return proc.stdout.decode(), err.rsplit("\nmaxrss_kb=", 1)[0], rss


def test_a_huge_pushed_session_note_costs_session_start_a_bounded_read(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    small_vault(vault)
    _out, _err, floor = _session_start(vault, tmp_path)
    sessions = vault / SESSION.rsplit("/", 1)[0]
    _huge_session(sessions / "2099-01-01-pushed.md", BIG_MB)
    before = (sessions / "2099-01-01-pushed.md").stat()
    out, err, rss = _session_start(vault, tmp_path)
    # Read whole, the note alone costs its size twice (bytes, then text): far past this.
    assert rss - floor < BIG_MB * 1024 // 2, (floor, rss)
    briefing = json.loads(out)["hookSpecificOutput"]["additionalContext"]
    assert "TAILWORD" in briefing  # its end was read: the newest lines and the lists
    assert "MIDDLEWORD" not in briefing  # the middle never was
    assert err.count("\n") <= 1
    after = (sessions / "2099-01-01-pushed.md").stat()
    assert (after.st_mtime_ns, after.st_size) == (before.st_mtime_ns, before.st_size)


def test_a_glimpse_is_the_whole_note_or_its_head_and_tail_within_the_bound(tmp_path: Path) -> None:
    vault = Vault(tmp_path)
    (tmp_path / "small.md").write_text("# Small\n\nline\n")
    whole = vault.glimpse("small.md", 100, 10)
    assert (whole.text, whole.partial) == ("# Small\n\nline\n", False)
    (tmp_path / "big.md").write_text("".join(f"line {n}\n" for n in range(10_000)))
    seen = vault.glimpse("big.md", 1000, 100)
    assert seen.partial and seen.size == (tmp_path / "big.md").stat().st_size
    assert len(seen.text.encode()) <= 1000
    assert seen.text.startswith("line 0\n") and seen.text.endswith("line 9999\n")
    # Cut at line breaks only: every line is a whole line of the note.
    assert all(line.startswith("line ") for line in seen.text.splitlines())


def test_session_start_hands_a_huge_left_behind_session_of_its_own_to_a_detached_compaction(
        tmp_path: Path) -> None:
    root = tmp_path / "vault"
    small_vault(root)
    mem = memory(root)
    rel = f"{SESSION.rsplit('/', 1)[0]}/2026-01-01-old.md"
    _huge_session(root / rel, 2)
    text = (root / rel).read_text().replace("host: elsewhere\n", "").replace(
        "2099-01-01", "2026-01-01")
    (root / rel).write_text(text + "\n### 11:00 - Session End\n")
    too_big: list[str] = []
    assert mem.compact_pending(now=now(), too_big=too_big) == []
    assert too_big == [rel]
    assert (root / rel).read_text().endswith("Session End\n")  # left to the detached run


# -- long work inside a hook's budget (one pushed note of 15,000 decisions for one component got
# -- every SessionStart killed at 10 s, forever) --------------------------------------------------


def _pushed_session(root: Path, stem: str, body: str, *, created: str = "2026-01-01") -> str:
    """A session note another machine ended and pushed (its last entry is the end)."""
    rel = f"{SESSION.rsplit('/', 1)[0]}/{stem}.md"
    (root / rel).write_text(
        f"---\ntype: session\nproject: {PROJECT}\ncreated: {created}\nstatus: active\n---\n"
        f"# {stem}\n\n## Work Log\n\n### 09:00 - Work\n\nDid it.\n\n{body}"
        "### 10:00 - Session End\n\nReason: other\n")
    return rel


def test_planning_thousands_of_decisions_for_one_component_compares_each_line_once(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from vaultmem.memory import compaction, entitynote
    from vaultmem.store.layout import Layout

    items = tuple(compaction.Item("decision", f"chose {n % 3000}", ("Comp",), n)
                  for n in range(6000))
    compared = []
    real = entitynote.Line.__eq__

    def counting(self: object, other: object) -> bool:
        compared.append(1)
        return bool(real(self, other))  # type: ignore[arg-type]

    monkeypatch.setattr(entitynote.Line, "__eq__", counting)
    plan = compaction.plan(compaction.Extraction(items, "deterministic"),
                           f"{SESSION.rsplit('/', 1)[0]}/2026-01-01-x.md",
                           {"Comp": f"claude/projects/{PROJECT}/entities/Comp.md"}, {},
                           layout=Layout(), today=now().date())
    (step,) = plan.entities
    assert [line.text for line in step.lines] == [f"chose {n}" for n in range(3000)]
    # A list's ``in`` compared each new line with every earlier one (18 million here).
    assert len(compared) <= len(items)


def test_a_note_with_more_items_than_a_hook_compacts_is_handed_to_the_detached_run(
        tmp_path: Path) -> None:
    from vaultmem.memory.upkeep import INLINE_COMPACT_ITEMS

    root = tmp_path / "vault"
    small_vault(root)
    mem = memory(root)
    decisions = "".join(f"- chose {n} ([[Comp]])\n" for n in range(INLINE_COMPACT_ITEMS + 1))
    rel = _pushed_session(root, "2026-01-01-pushed", f"## Decisions Made\n\n{decisions}\n")
    before = (root / rel).read_bytes()
    too_big: list[str] = []
    assert mem.compact_pending(now=now(), too_big=too_big, budget_s=3600) == []
    assert too_big == [rel]
    assert (root / rel).read_bytes() == before


def test_two_bounded_looks_for_pending_notes_do_what_one_unbounded_look_does(
        tmp_path: Path) -> None:
    """Each look stops after five notes (a clock that ticks once per note): the second goes on
    where the first stopped, so the two pending notes at the end of the nine are compacted, as
    one look without a budget compacts them."""
    import shutil
    from itertools import count

    from compaction_kit import snapshot

    root = tmp_path / "bounded"
    small_vault(root)
    for n in range(6):  # below the threshold: looked at, not compacted
        _pushed_session(root, f"2026-11-2{n}-recent-{n}", "", created="2026-11-22")
    for n in range(2):
        _pushed_session(root, f"2026-11-29-old-{n}", "## Decisions Made\n\n- chose x ([[Comp]])\n\n")
    unbounded = tmp_path / "unbounded"
    shutil.copytree(root, unbounded, symlinks=True)

    once = memory(unbounded).compact_pending(now=now(), budget_s=3600)
    assert sorted(r.note.rsplit("/", 1)[1] for r in once) == ["2026-11-29-old-0.md",
                                                              "2026-11-29-old-1.md"]
    bounded = memory(root)
    first = bounded.compact_pending(now=now(), budget_s=5, timer=count().__next__)
    second = bounded.compact_pending(now=now(), budget_s=5, timer=count().__next__)
    assert first == []  # five notes looked at: none of them pending
    assert [r.note for r in second] == [r.note for r in once]
    assert snapshot(root) == snapshot(unbounded)
    assert bounded.compact_pending(now=now(), budget_s=5, timer=count().__next__) == []


# -- state.json was never pruned (42 MB after months: Stop 2.8 s, SessionEnd 4 s) ----------------


def test_session_end_prunes_months_of_ended_sessions_from_the_state(tmp_path: Path) -> None:
    from hook_kit import SID, copy_transcript, hook_env, payload, run_hook

    from vaultmem.store.state import KEEP_ENDED, SessionEntry, State, StateData

    vault = tmp_path / "vault"
    vault.mkdir()
    state = State(Vault(vault))

    def months(data: StateData) -> None:
        for n in range(5000):
            data.set_session(SessionEntry(
                f"old-{n}", f"claude/projects/shop/sessions/2026-06-01-s{n}.md", "shop",
                "2026-06-01T09:00:00+00:00", frozenset(f"old-{n}-{k}" for k in range(30)), 10,
                "2026-06-01T10:00:00+00:00", "/gone.jsonl"))

    # Planted as an older vaultmem left it (today every write prunes past KEEP_ENDED).
    planted = StateData()
    months(planted)
    state.path.parent.mkdir(parents=True, exist_ok=True)
    state.path.write_text(json.dumps(planted.to_json()))
    before = state.path.stat().st_size
    transcript = copy_transcript(tmp_path)
    env = hook_env(vault)
    for event in ("session-start", "stop", "session-end"):
        proc = run_hook(event, payload(event, transcript), vault, cwd=tmp_path, env=env)
        assert proc.returncode == 0 and proc.stderr == b"", proc.stderr
    data = state.load()
    assert set(data.sessions) == {SID}  # months-old ended sessions forgotten, this one kept
    assert data.sessions[SID].ingested  # ended a moment ago: a resume still dedups by uuid
    assert len(data.sessions) <= KEEP_ENDED and state.path.stat().st_size < before / 100


def test_the_look_for_pending_notes_reads_an_archived_note_by_its_head_only(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from vaultmem.memory.sessions import Memory

    root = tmp_path / "vault"
    small_vault(root)
    for n in range(5):
        rel = _pushed_session(root, f"2026-01-0{n + 1}-archived-{n}", "")
        path = root / rel
        path.write_text(path.read_text().replace("status: active", "status: archived"))
    looked: list[str] = []
    real = Memory._status

    def counting(self: Memory, rel: str, *args: object, **kwargs: object) -> object:
        looked.append(rel)
        return real(self, rel, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Memory, "_status", counting)
    assert memory(root).compact_pending(now=now(), budget_s=3600) == []
    # The open session's note is passed over as still running (written now, no Session End),
    # the five archived ones by their head: none is parsed.
    assert looked == []
