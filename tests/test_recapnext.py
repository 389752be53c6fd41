"""recapnext.py: what an answer's recap says comes next (pure)."""

from __future__ import annotations

from vaultmem.brief import recapnext

RECAP = """> ## Done
>
> - Fixed the UUID redaction bug
> - Added 35 tests
>
> ## 🚀 **Next Steps**
>
> ### Option 1: Merge to Main (Recommended)
>
> Create a pull request:
> ```bash
> # Visit: https://example.org/pull/new/branch
> ```
>
> - Trigger the test workflow automatically
>
> ---
>
> ## 📊 **Final Summary**
>
> - Everything is pushed
"""


def _read(text: str) -> list[str]:
    upcoming = recapnext.Upcoming()
    for line in text.splitlines():
        upcoming.feed(line)
    return upcoming.lines


def test_the_lines_under_a_next_steps_heading_are_what_comes_next() -> None:
    assert _read(RECAP) == ["Option 1: Merge to Main (Recommended)", "Create a pull request",
                            "Trigger the test workflow automatically"]


def test_a_bold_label_starts_the_part_and_a_heading_ends_it() -> None:
    text = "> **To do:**\n> 1. **Grant RAPL access** with setcap\n> ### Notes\n> - not a step here"
    assert _read(text) == ["Grant RAPL access with setcap"]


def test_a_recap_without_such_a_part_names_nothing() -> None:
    assert _read("> ## What changed\n> - Added the CSV exporter\n> - Fixed the tests") == []
