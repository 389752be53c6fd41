"""What an answer says is still to do, under any of the headings people and Claude give it
("⚠️ **Still need:**", "### Action required", "**What you need to do:**", "Left to do"): its
items are next steps (mining) and the briefing names them as the step the session left open
(recapnext). One vocabulary for both: ``mining.text.LEFT_TO_DO``."""

from __future__ import annotations

import pytest

from vaultmem.brief import recapnext
from vaultmem.mining.answers import mine
from vaultmem.mining.text import names_what_is_left

STATUS = """Here's where we're at with the exporter:

## ✅ **Completed:**

1. **Parser** written, 7 tests passing

## ⚠️ **Still Need:**

1. **Grant the worker read access** - run this:
   ```bash
   sudo setfacl -m u:worker:r /var/queue
   ```
2. **Restart the worker** to pick it up
"""


def _upcoming(text: str) -> list[str]:
    read = recapnext.Upcoming()
    for line in text.split("\n"):
        read.feed(f"> {line}" if line else ">")
    return read.lines


def test_a_still_need_part_gives_next_steps_with_their_command() -> None:
    # Mining reads a heading's words as written (an emoji-led "🚀 Next Steps" heads nested
    # links and notes as often as steps); the recap's part is read whatever leads it.
    steps = [m.text for m in mine(STATUS.replace("⚠️ ", "")) if m.kind.value == "next-step"]
    grant = "Grant the worker read access - run this: `sudo setfacl -m u:worker:r /var/queue`"
    assert steps == [grant, "Restart the worker to pick it up"]
    assert _upcoming(STATUS) == ["Grant the worker read access - run this",
                                 "Restart the worker to pick it up"]


def test_a_bold_step_ending_in_its_own_colon_takes_its_items_after_that_colon() -> None:
    text = ("## Next Steps\n\n3. **Review documentation:**\n   - `docs/GUIDE.md` - Complete guide\n"
            "   - `docs/SECURITY.md` - Security assessment\n4. **Monitor the CI runs:**\n"
            "   - Check the Actions tab after pushing\n")
    assert [m.text for m in mine(text) if m.kind.value == "next-step"] == [
        ("Review documentation: `docs/GUIDE.md` - Complete guide; `docs/SECURITY.md` - Security "
         "assessment"),
        "Monitor the CI runs: Check the Actions tab after pushing"]


@pytest.mark.parametrize("lead", ["### Action required", "**What you need to do:**",
                                  "## Left to do", "**To finish:**"])
def test_other_leads_of_what_is_left(lead: str) -> None:
    text = f"Done.\n\n{lead}\n\n- Open a pull request for the branch\n"
    assert [(m.kind.value, m.text) for m in mine(text)] == [
        ("next-step", "Open a pull request for the branch")]
    assert _upcoming(text) == ["Open a pull request for the branch"]


def test_a_heading_about_something_else_names_no_step() -> None:
    text = "Done.\n\n## Why it works now\n\n- The cache is warm before the first request\n"
    assert not [m for m in mine(text) if m.kind.value == "next-step"]
    assert _upcoming(text) == []
    assert names_what_is_left("Next steps for the release")
    assert not names_what_is_left("Stepping through the parser")
