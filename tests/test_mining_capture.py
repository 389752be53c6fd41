"""mining: statements the transcript holds that must (or must not) become items: sub-bullets of
a step, a thing left alone, a plan's recommended option, a setting's change, an either-or
question the person answered (issues 28/29)."""

from __future__ import annotations

from vaultmem.mining import summaries
from vaultmem.mining.answers import Mined, mine
from vaultmem.notes.schema import Kind

# -- the sub-bullets of a step belong to it ----------------------------------------------------


def test_sub_bullets_under_a_next_steps_heading_join_their_step() -> None:
    answer = ("Done: the redaction hook is installed.\n\n"
              "## Next steps\n"
              "1. Deploy the hook to the other machines\n"
              "   - Run `python3 hooks/install.py` on the laptop\n"
              "   - Restart GitHub Desktop so it picks the hook up\n"
              "2. Rotate the leaked token\n")
    assert mine(answer) == (
        Mined(Kind.NEXT_STEP, "Deploy the hook to the other machines: Run `python3 "
                              "hooks/install.py` on the laptop; Restart GitHub Desktop so it "
                              "picks the hook up"),
        Mined(Kind.NEXT_STEP, "Rotate the leaked token"),
    )


def test_bullets_at_one_level_stay_separate_steps() -> None:
    answer = ("## Next steps\n"
              "- Deploy the hook to the other machines\n"
              "- Rotate the leaked token\n")
    assert [m.text for m in mine(answer)] == ["Deploy the hook to the other machines",
                                               "Rotate the leaked token"]


def test_a_summary_s_pending_task_keeps_its_sub_tasks_apart() -> None:
    read = summaries.read(
        "## 7. Pending Tasks\n\n"
        "1. **Mac Security Actions** (User-side tasks identified but not executed):\n"
        "   - Install macOS 26.2 update\n"
        "   - Run Apple Diagnostics for NVMe issue\n"
        "2. **Team Notification**: All team members need to re-clone after the force push\n")
    assert [i.text for i in read.items] == [
        ("Mac Security Actions (User-side tasks identified but not executed): Install macOS 26.2 "
        "update; Run Apple Diagnostics for NVMe issue"),
        "Team Notification: All team members need to re-clone after the force push",
    ]
