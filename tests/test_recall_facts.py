"""recall answers with facts: each fact once (its entity's copy), whole, ranked, with its matches;
notes come back where no fact of theirs matches; what a terminal and a pipe show."""

from __future__ import annotations

import datetime as dt
import os
import pty
import select
import subprocess
import sys
from pathlib import Path

from vaultmem.search import recall
from vaultmem.store.config import Config
from vaultmem.store.vault import Vault

TODAY = dt.date(2026, 11, 22)
P = "claude/projects/shop"
ARCHIVE = f"{P}/archive/sessions/2026-11-09-login"
FACT = (
    "Fixed the token check by calling `verify_token_expiry/2` instead of comparing the "
    "timestamps by hand, because the clock skew between the two services broke the old check"
)
LONG_PREREQ = "The integration tests need `REDIS_URL` set, since the token store lives in Redis"


def write(root: Path, rel: str, text: str) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def front(kind: str, project: str = "shop", **extra: str) -> str:
    lines = [f"type: {kind}", f"project: {project}", *(f"{k}: {v}" for k, v in extra.items())]
    return "---\n" + "\n".join(lines) + "\n---\n"


def session(status: str) -> str:
    return front("session", created="2026-11-09", updated="2026-11-09", status=status) + (
        "# Login\n\n## Work Log\n\n### 09:00 - Login\n\n"
        f"**Answer:** {FACT}.\n\n"
        f"## Gotchas & Fixes\n\n- {FACT}. ([[Auth]])\n\n"
        f"## Prerequisites\n\n- {LONG_PREREQ}. ([[Auth]])\n\n"
        "## Related Entities\n\n- [[Auth]] — `src/auth/`\n"
    )


def held_out_vault(root: Path) -> None:
    """The held-out shape: one fact in the archived session, its original, the entity and the
    project index's Key Entities row; a prerequisite in the session and ``_index.md``."""
    link = f"[[{ARCHIVE}|2026-11-09-login]]"
    write(root, f"{ARCHIVE}.md", session("archived"))
    write(root, f"{P}/sessions/2026-11-09-login.md", session("archived"))
    write(root, f"{P}/entities/Auth.md", front("entity", updated="2026-11-12") + (
        "# Auth\n\n## Key Decisions\n\n"
        f"- 2026-11-12 — Sessions expire after 15 minutes of idle time ({link}) ^vm-11111111\n\n"
        f"## Gotchas & Troubleshooting\n\n- 2026-11-09 — {FACT}. ({link}) ^vm-22222222\n\n"
        f"## References\n\n- {link} - Archived session (compacted)\n"
    ))
    write(root, f"{P}/_index.md", front("project-index", updated="2026-11-12") + (
        f"# shop\n\n## Prerequisites\n\n- 2026-11-09 — {LONG_PREREQ}. ({link}) ^vm-33333333\n\n"
        "## Key Entities\n\n"
        f"- [[Auth]] ([[Auth#^vm-22222222|{FACT[:60]} …]]) ^vm-44444444\n"
    ))


def run(root: Path, query: str, **kw: object) -> recall.RecallResult:
    return recall.recall(Vault(root), Config(vault=root, project="shop"), query, today=TODAY,
                         **kw)  # type: ignore[arg-type]


def test_a_fact_in_four_copies_comes_back_once_and_whole(vault_root: Path) -> None:
    held_out_vault(vault_root)
    hits = run(vault_root, "token expiry", limit=5).hits
    facts = [h for h in hits if FACT in h.text]
    assert len(facts) == 1
    hit = facts[0]
    assert hit is hits[0]
    assert (hit.kind, hit.rel, hit.date, hit.entity, hit.block) == (
        "gotcha", f"{P}/entities/Auth.md", "2026-11-09", "Auth", "vm-22222222"
    )
    assert hit.text == FACT + "."  # whole, no window, no markup
    assert sorted(hit.also) == [f"{P}/_index.md", f"{ARCHIVE}.md"]
    assert hit.sessions == (ARCHIVE,)
    assert [hit.text[s:e] for s, e in hit.matches] == ["token", "token", "expiry"]
    # Nothing else repeats it: the notes that hold a copy are not hits of their own.
    assert all(FACT[:40] not in h.text for h in hits[1:])
    assert {h.rel for h in hits} == {f"{P}/entities/Auth.md"}


def test_a_prerequisite_comes_back_once_from_the_project_index(vault_root: Path) -> None:
    held_out_vault(vault_root)
    hits = run(vault_root, "REDIS_URL").hits
    assert [(h.kind, h.rel) for h in hits] == [("prerequisite", f"{P}/_index.md")]
    assert hits[0].text == LONG_PREREQ + "."
    assert hits[0].also == (f"{ARCHIVE}.md",)


def test_words_in_link_targets_and_comments_do_not_match(vault_root: Path) -> None:
    held_out_vault(vault_root)
    # "login" is in the archive's path and alias of every link; only the alias is shown text.
    write(vault_root, f"{P}/entities/Billing.md", front("entity") + (
        "# Billing\n\n## Overview\n\nSee [[claude/projects/shop/sessions/2026-11-01-quokka|the "
        "first session]] %%quokka comment%%.\n"
    ))
    assert run(vault_root, "quokka").hits == ()


def test_a_note_comes_back_by_its_best_line_when_no_fact_matches(vault_root: Path) -> None:
    held_out_vault(vault_root)
    write(vault_root, f"{P}/sessions/2026-11-15-deploy.md",
          front("session", updated="2026-11-15", status="active") + (
              "# Deploy\n\n## Work Log\n\n### 10:00 - Deploy\n\n"
              "**Prompt:** deploy it\n**Answer:** The canary deploy of the wombat service passed "
              "its checks, so I promoted it to every region.\n"
          ))
    hits = run(vault_root, "wombat canary").hits
    assert [(h.kind, h.rel) for h in hits] == [("note", f"{P}/sessions/2026-11-15-deploy.md")]
    assert hits[0].text == (
        "Answer: The canary deploy of the wombat service passed its checks, so I promoted it "
        "to every region."
    )
    assert [hits[0].text[s:e] for s, e in hits[0].matches] == ["canary", "wombat"]


def test_a_note_alone_fills_the_room_with_its_answering_lines(vault_root: Path) -> None:
    held_out_vault(vault_root)
    write(vault_root, f"{P}/sessions/2026-11-16-fans.md",
          front("session", updated="2026-11-16", status="active") + (
              "# Fans\n\n## Work Log\n\n### 10:00 - set the wallaby fan speed\n\n"
              "**Prompt:** set the wallaby fan speed\n"
              "**Answer:** The wallaby fan speed needs root.\n\n"
              "- Ran `wallaby_cli fan-speed-max`\n"
              "- Ran `wallaby_cli fan-speed-max`\n"
              "- Failed: `wallaby_cli fan-speed-max` — `Permission denied`\n"
              "> Set the wallaby fan speed with `sudo wallaby_cli fan-speed-max`\n"
          ))
    hits = run(vault_root, "wallaby fan speed", limit=5).hits
    assert {h.rel for h in hits} == {f"{P}/sessions/2026-11-16-fans.md"}
    # Most matches first, what went wrong before the commands run, the prompt after the
    # answers and the entry's heading (noise) after every other line; each line once.
    assert [h.text for h in hits] == [
        "Set the wallaby fan speed with `sudo wallaby_cli fan-speed-max`",
        "Answer: The wallaby fan speed needs root.",
        "Failed: `wallaby_cli fan-speed-max` — `Permission denied`",
        "Ran `wallaby_cli fan-speed-max`",
        "Prompt: set the wallaby fan speed",
    ]
    # The entry's heading says what its prompt says: one hit. The note's title is noise: last.
    more = [h.text for h in run(vault_root, "wallaby fan speed", limit=8).hits]
    assert more[5:] == ["Fans"]


def test_the_answer_beside_a_matching_fact_fills_the_room(vault_root: Path) -> None:
    write(vault_root, f"{P}/sessions/2026-11-17-firewall.md",
          front("session", updated="2026-11-17", status="active") + (
              "# Firewall\n\n## Work Log\n\n### 10:00 - audit\n\n"
              "> [!abstract]- Claude's answer (9 lines)\n"
              "> ### 2. Firewall Logging\n>\n"
              "> Cannot enable firewall logging without sudo. You need to run:\n"
              "> ```bash\n> sudo socketfilterfw --setloggingmode on\n> ```\n"
              "> Then verify it.\n\n"
              "## Next Steps\n\n- Enable firewall logging (requires password)\n"
          ))
    hits = run(vault_root, "firewall logging", limit=5).hits
    assert [(h.kind, h.text) for h in hits[:2]] == [
        ("next-step", "Enable firewall logging (requires password)"),
        # A heading of the answer comes with its part, and a line ending in a colon with what
        # it introduces, fenced code included; the lines shown with it are not shown again.
        ("note", ("Firewall Logging: Cannot enable firewall logging without sudo. You need to "
                 "run: sudo socketfilterfw --setloggingmode on Then verify it.")),
    ]
    # The next step is not shown a second time as a line of its note.
    assert [h.text for h in hits].count("Enable firewall logging (requires password)") == 1


def test_a_line_beside_a_fact_beats_other_notes_lines_that_answer_less(
        vault_root: Path) -> None:
    write(vault_root, f"{P}/sessions/2026-11-10-sign.md",
          front("session", updated="2026-11-10", status="active") + (
              "# sign\n\n## Work Log\n\n### 10:00 - sign\n\n"
              "**Answer:** Never commit without wombat signing: the key is W-42.\n\n"
              "## Next Steps\n\n- Retry with wombat signing\n"))
    write(vault_root, f"{P}/sessions/2026-11-20-zoo.md",  # newer: its note ranks first
          front("session", updated="2026-11-20", status="active") + (
              "# zoo\n\n## Work Log\n\n### 10:00 - zoo\n\n"
              "The wombat enclosure was cleaned.\n\nThe signing of the lease is due.\n"))
    hits = run(vault_root, "wombat signing", limit=3).hits
    # The fact, then the line of its note holding both words before the other note's lines,
    # which hold one each.
    assert [h.text for h in hits[:2]] == [
        "Retry with wombat signing", "Answer: Never commit without wombat signing: the key is W-42."]


def test_a_line_saying_more_than_the_fact_it_holds_is_shown(vault_root: Path) -> None:
    write(vault_root, f"{P}/sessions/2026-11-10-hook.md",
          front("session", updated="2026-11-10", status="active") + (
              "# hook\n\n## Work Log\n\n### 10:00 - hook\n\n**Answer:** Done.\n\n"
              "> [!note]- Claude's answer (5 lines)\n> Done.\n>\n"
              "> **Install the new wombat hook**\n> ```bash\n"
              "> python3 scripts/hooks/install_wombat.py --force\n> ```\n\n"
              "- Ran `git status`\n\n"
              "## Prerequisites\n\n- Install the new wombat hook\n"))
    hits = run(vault_root, "install wombat hook", limit=3).hits
    # The fact, then its part of the answer, which names the command (the fact alone does not).
    assert [h.text for h in hits[:2]] == [
        "Install the new wombat hook",
        "Install the new wombat hook: python3 scripts/hooks/install_wombat.py --force"]


def test_facts_rank_project_then_entities_then_newer(vault_root: Path) -> None:
    def entity(project: str, name: str, day: str) -> None:
        write(vault_root, f"claude/projects/{project}/entities/{name}.md", front(
            "entity", project, updated=day
        ) + f"# {name}\n\n## Key Decisions\n\n- {day} — The numbat cache is per tenant {name}\n")

    entity("shop", "Old", "2026-10-01")
    entity("shop", "New", "2026-11-20")
    entity("other", "Far", "2026-11-21")
    write(vault_root, "claude/global/entities/Shared.md", front("entity", "global") + (
        "# Shared\n\n## Key Decisions\n\n- 2026-11-21 — The numbat cache is per tenant Shared\n"
    ))
    write(vault_root, f"{P}/sessions/2026-11-21-s.md", front("session", status="active") + (
        "# s\n\n## Decisions Made\n\n- The numbat cache is per tenant in the session\n"
    ))
    hits = run(vault_root, "numbat", all_projects=True).hits
    assert [h.title for h in hits] == ["New", "Old", "2026-11-21-s", "Shared", "Far"]
    assert [h.date for h in hits] == [
        "2026-11-20", "2026-10-01", "2026-11-21", "2026-11-21", "2026-11-21"
    ]


def test_notes_keep_a_third_of_the_limit_when_facts_fill_it(vault_root: Path) -> None:
    lines = "\n".join(f"- 2026-11-0{n % 9 + 1} — Kiwi fact number {n}" for n in range(12))
    write(vault_root, f"{P}/entities/Kiwi.md",
          front("entity", updated="2026-11-10") + f"# Kiwi\n\n## Key Decisions\n\n{lines}\n")
    write(vault_root, f"{P}/sessions/2026-11-11-k.md", front("session", status="active") + (
        "# k\n\n## Work Log\n\n### 10:00 - k\n\nThe kiwi rollout is halfway.\n"
    ))
    hits = run(vault_root, "kiwi", limit=6).hits
    # Twelve facts match: the one note where none does keeps its place (a third of 6 is 2).
    assert [h.kind for h in hits] == ["decision"] * 5 + ["note"]
    assert hits[-1].text == "The kiwi rollout is halfway."
    assert run(vault_root, "kiwi", limit=20).hits[-1].kind == "note"


def _in_a_terminal(args: list[str], env: dict[str, str]) -> str:
    """What ``args`` print to a pseudo-terminal."""
    main, child = pty.openpty()
    proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=child, stderr=subprocess.PIPE,
                            env=env, close_fds=True)
    os.close(child)
    out = b""
    while True:
        ready, _, _ = select.select([main], [], [], 60)
        if not ready:
            break
        try:
            chunk = os.read(main, 65536)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
    proc.wait(timeout=60)
    os.close(main)
    return out.decode("utf-8", errors="replace")


def test_a_terminal_shows_matches_in_bold_a_pipe_plain_text(vault_root: Path) -> None:
    held_out_vault(vault_root)
    env = {**os.environ, "TERM": "xterm-256color", "VAULTMEM_NOW": "2026-11-22T10:00:00",
           "COLUMNS": "400"}
    env.pop("NO_COLOR", None)
    args = [sys.executable, "-m", "vaultmem", "--vault", str(vault_root), "--project", "shop",
            "recall", "verify_token_expiry"]
    shown = _in_a_terminal(args, env)
    assert "\x1b[1;33mverify_token_expiry\x1b[0m" in shown
    assert "**" not in shown
    piped = subprocess.run(args, capture_output=True, text=True, env=env, check=True)
    assert "\x1b" not in piped.stdout and "**" not in piped.stdout
    assert f"   {FACT}." in piped.stdout.splitlines()
