"""What bench.eval_moments measured on one part of the corpus, its headline numbers against the
issue's goals, and its printed report."""

from __future__ import annotations

import statistics
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

GOALS = {"compaction_missed_at_most": 1, "recurring_told": 0.90, "unrelated_silent": 0.95,
         "precision": 0.80, "prompt_chars": 1200, "compact_chars": 2400}


@dataclass
class Report:
    """What the moment hooks did on one part of the corpus."""

    part: str = ""
    sessions: int = 0
    compactions: list[dict[str, Any]] = field(default_factory=list)
    recurring: list[tuple[str, bool]] = field(default_factory=list)  # (signature, told)
    # Recurring failures met silent after the failure hook told this session a fix already (it
    # tells a fix once: of the same root cause, another error line of it gets nothing again).
    recurring_after_told: int = 0
    # Recurring failures met silent that the hook would have told had this session been told
    # nothing before (:func:`eval_moments._unlogged`): told those facts earlier in the session.
    recurring_told_before: int = 0
    unrelated_told_before: int = 0  # the same, of unrelated failures (told something earlier)
    # Recurring failures whose fix the vault held when they came (eval_moments.recorded, not
    # counting the session's own notes), and of them those told it now or earlier.
    recurring_recorded: int = 0
    recurring_recorded_told: int = 0
    unrelated: list[tuple[str, bool]] = field(default_factory=list)
    repeats: list[tuple[str, bool]] = field(default_factory=list)  # met earlier in the session
    prompts: list[dict[str, Any]] = field(default_factory=list)
    prompt_chars: dict[str, int] = field(default_factory=dict)  # session -> chars given
    prompt_max: int = 0
    timings: dict[str, list[float]] = field(default_factory=dict)  # hook -> ms
    # (session, transcript line) of each failure -> whether each failure there was told.
    told: dict[str, list[bool]] = field(default_factory=dict)
    # Like told: whether the failure was told, or would have been in a session told nothing yet.
    fresh: dict[str, list[bool]] = field(default_factory=dict)
    recorded: dict[str, list[bool]] = field(default_factory=dict)  # like told: fix held then?
    boundaries: dict[str, int] = field(default_factory=dict)  # session -> its compaction's line
    probes: list[dict[str, Any]] = field(default_factory=list)  # failures asked again later
    contexts: dict[str, list[str]] = field(default_factory=dict)  # like told: what was told
    labelled: list[dict[str, Any]] = field(default_factory=list)  # recurrences.json, scored
    # session -> (transcript line, context, hook) of every hook that gave it context, in order:
    # what the session had been told by a given line (its briefing, a prompt's facts, a fix).
    given: dict[str, list[tuple[int, str, str]]] = field(default_factory=dict)
    # What each failure asked again later was told: (probe, again in its project, elsewhere).
    probe_contexts: list[tuple[str, str, str]] = field(default_factory=list)


def _share(part: int, whole: int) -> str:
    return f"{part}/{whole} ({part / whole:.0%})" if whole else "0/0"


def totals(report: Report) -> dict[str, Any]:
    """The headline numbers of a part."""
    told = sum(p["told"] for p in report.prompts)
    expected = sum(p["expected"] for p in report.prompts)
    silent = [p for p in report.prompts if p["silent_wanted"]]
    timings = {hook: {"median_ms": round(statistics.median(ms)), "max_ms": round(max(ms)),
                      "calls": len(ms)}
               for hook, ms in report.timings.items() if hook != "told" and ms}
    return {
        "compactions": len(report.compactions),
        "compaction_facts": sum(c["facts"] for c in report.compactions),
        "compaction_summary": sum(c["summary"] for c in report.compactions),
        "compaction_with_vaultmem": sum(c["with_vaultmem"] for c in report.compactions),
        "compaction_chars_max": max((c["chars"] for c in report.compactions), default=0),
        "recurring": len(report.recurring), "recurring_told": sum(t for _, t in report.recurring),
        "recurring_after_told": report.recurring_after_told,
        "recurring_told_before": report.recurring_told_before,
        "unrelated_told_before": report.unrelated_told_before,
        "recurring_recorded": report.recurring_recorded,
        "recurring_recorded_told": report.recurring_recorded_told,
        "unrelated": len(report.unrelated),
        "unrelated_silent": sum(not t for _, t in report.unrelated),
        "repeats": len(report.repeats), "repeats_told": sum(t for _, t in report.repeats),
        "labelled": sum(x["met"] for x in report.labelled),
        "labelled_told": sum(x["told"] for x in report.labelled),
        "labelled_told_fix": sum(x["told_fix"] for x in report.labelled),
        "labelled_fix_known": sum(x.get("fix_known", False) for x in report.labelled),
        "labelled_not_met": sum(not x["met"] for x in report.labelled),
        # Of the labelled failures not told their fix there, which hook had given it before.
        "labelled_fix_by": dict(Counter(x["fix_by"] for x in report.labelled
                                        if x.get("fix_by") and not x["told_fix"])),
        "probes": len(report.probes),
        "probes_recorded": sum(p["recorded"] for p in report.probes),
        "probes_recorded_told": sum(p["told_again"] for p in report.probes if p["recorded"]),
        "probes_unrecorded_told": sum(p["told_again"] for p in report.probes
                                      if not p["recorded"]),
        "probes_told_again": sum(p["told_again"] for p in report.probes),
        "probes_silent_elsewhere": sum(not p["told_elsewhere"] for p in report.probes
                                       if not p.get("host")),
        "probes_host": sum(bool(p.get("host")) for p in report.probes),
        "probes_host_told_elsewhere": sum(p["told_elsewhere"] for p in report.probes
                                          if p.get("host")),
        "probes_host_recorded": sum(bool(p.get("host")) and p["recorded"] for p in report.probes),
        "probes_host_recorded_told": sum(p["told_elsewhere"] for p in report.probes
                                         if p.get("host") and p["recorded"]),
        # A host failure whose fix no note recorded has nothing true to tell: silence is right.
        "probes_host_unrecorded_silent": sum(not p["told_elsewhere"] for p in report.probes
                                             if p.get("host") and not p["recorded"]),
        "prompt_facts_told": told, "prompt_facts_expected": expected,
        "no_task_prompts": len(silent), "no_task_silent": sum(not p["told"] for p in silent),
        "prompt_chars_per_session": dict(report.prompt_chars),
        "prompt_chars_max": report.prompt_max, "timings": timings,
    }


def render(report: Report, labels_name: str) -> str:
    """The printed report of one part (``labels_name``: the labelled recurrences' file)."""
    t = totals(report)
    out = [f"{report.part}: {report.sessions} sessions"]
    for c in report.compactions:
        code = (f" (and {c['in_code_only']} named only in code Claude wrote, not counted)"
                if c.get("in_code_only") else "")
        out.append(f"  after compaction of {c['session']}: facts before it {c['facts']}{code}, "
                   f"summary {c['summary']}, summary + vaultmem {c['with_vaultmem']} "
                   f"({c['chars']:,} chars); missed: {'; '.join(c['missed']) or '-'}")
    out.append(f"  recurring failures told their fix, at the failure or earlier in this session: "
               f"{_share(t['recurring_told'] + t['recurring_told_before'], t['recurring'])} "
               f"(goal >= {GOALS['recurring_told']:.0%}): told at the failure "
               f"{t['recurring_told']}, earlier in this session {t['recurring_told_before']} (the "
               f"hook tells a fix once per session: asked again with the session's injections "
               f"out of the way, it tells them); of the silent ones {t['recurring_after_told']} "
               f"came after the failure hook told this session a fix; of those whose fix other "
               f"sessions' notes held by then, told "
               f"{_share(t['recurring_recorded_told'], t['recurring_recorded'])}")
    out.append(f"  unrelated failures told nothing: {_share(t['unrelated_silent'], t['unrelated'])}"
               f" (goal >= {GOALS['unrelated_silent']:.0%}); of the silent ones "
               f"{t['unrelated_told_before']} would have been told something in a session told "
               f"nothing before")
    out.append(f"  labelled recurrences ({labels_name}): told something "
               f"{_share(t['labelled_told'], t['labelled'])}, told the earlier fix "
               f"{_share(t['labelled_told_fix'], t['labelled'])}, the fix in its context by then "
               f"(briefing, prompt or failure) {_share(t['labelled_fix_known'], t['labelled'])}"
               f" (goal >= {GOALS['recurring_told']:.0%})" + (
                   f"; {t['labelled_not_met']} labelled failures not met in the replay"
                   if t["labelled_not_met"] else "") + (
                   "; not told there, given before by " + ", ".join(
                       f"{hook} {n}" for hook, n in sorted(t["labelled_fix_by"].items()))
                   if t["labelled_fix_by"] else ""))
    out.append(f"  failures met earlier in the same session, told: "
               f"{_share(t['repeats_told'], t['repeats'])}")
    out.append(f"  each failure a session got past, met again in a later session: "
               f"{t['probes']}, of which the vault recorded a fix for {t['probes_recorded']}: "
               f"told its fix {_share(t['probes_recorded_told'], t['probes_recorded'])} (goal >= "
               f"{GOALS['recurring_told']:.0%}); no fix recorded, told anyway "
               f"{_share(t['probes_unrecorded_told'], t['probes'] - t['probes_recorded'])}; in "
               f"another project's session: told nothing "
               f"{_share(t['probes_silent_elsewhere'], t['probes'] - t['probes_host'])} (goal >= "
               f"{GOALS['unrelated_silent']:.0%}); about the host's tools "
               f"({t['probes_host']}, told there {t['probes_host_told_elsewhere']}): of those "
               f"whose fix the vault recorded told it there "
               f"{_share(t['probes_host_recorded_told'], t['probes_host_recorded'])} (goal >= "
               f"{GOALS['recurring_told']:.0%}), of those with no fix recorded silent there "
               f"{_share(t['probes_host_unrecorded_silent'], t['probes_host'] - t['probes_host_recorded'])}"
               f" (right: nothing to tell)")
    out.append(f"  labelled prompts: facts told {t['prompt_facts_told']}, expected "
               f"{_share(t['prompt_facts_expected'], t['prompt_facts_told'])} (goal >= "
               f"{GOALS['precision']:.0%}); prompts naming no task silent "
               f"{_share(t['no_task_silent'], t['no_task_prompts'])}")
    if report.part == "tuning":  # the held-out part's notes are not read to tune on
        out += [f"    unexpected for {p['prompt']!r}: {line}" for p in report.prompts
                for line in p.get("unexpected", ())]
    per = ", ".join(f"{sid} {chars:,}" for sid, chars in t["prompt_chars_per_session"].items())
    out.append(f"  replayed prompts: chars given per session: {per or 'none'}; largest single "
               f"injection {t['prompt_chars_max']:,} (goal <= {GOALS['prompt_chars']:,})")
    for hook, ms in t["timings"].items():
        out.append(f"  {hook}: median {ms['median_ms']} ms, max {ms['max_ms']} ms "
                   f"over {ms['calls']} calls")
    return "\n".join(out)
