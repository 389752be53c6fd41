"""briefrank.py: which lines of the briefing get room, by what they tell (pure)."""

from __future__ import annotations

import pytest

from vaultmem.brief import briefrank


def _order(lines: list[tuple[str, float]], must: float = 1.5) -> list[str]:
    return [text for text, _ in briefrank.by_value(lines, lambda x: x[0], lambda x: x[1], must)]


def test_names_paths_numbers_and_versions_tell_more_than_plain_words() -> None:
    told = briefrank.information("Blocky v0.23 needs the rt-multi-thread feature at 16:33 with tokio")
    assert told["v0.23"] == told["rt-multi-thread"] == briefrank.SPECIFIC
    assert told["blocky"] == told["tokio"] == told["feature"] == 1.0
    assert "16:33" not in told and "with" not in told and "needs" not in told


def test_the_must_haves_come_first_in_tier_order_whatever_they_tell() -> None:
    lines = [("an earlier finding: cache_size 5000 entries", 3.0), ("next step: ok", 1.0),
             ("the last answer", 0.0), ("relevant gotcha", 1.5)]
    assert _order(lines)[:3] == ["the last answer", "next step: ok", "relevant gotcha"]


def test_a_line_that_retells_what_is_told_waits_behind_one_that_tells_something_new() -> None:
    lines = [("Set dnsmasq cache_size to 5000 entries on the router", 1.0),
             ("Answer: set dnsmasq cache_size to 5000 entries on the router as asked before", 2.0),
             ("gl_screen polled removed services every 5s: disabled it", 3.0)]
    assert _order(lines) == [lines[0][0], lines[2][0], lines[1][0]]


def test_a_short_line_of_names_beats_a_long_line_of_words_of_the_same_tier() -> None:
    long = "It went well and everything works nicely now, " * 4
    lines = [(long, 2.0), ("kmod-gl-sdk4-kmwan kept: gl-sdk4-system depends on it", 2.0)]
    assert _order(lines) == [lines[1][0], long]


def test_lines_that_tell_as_much_keep_their_tier_then_their_order() -> None:
    lines = [("a", "the words of it", 4.0), ("b", "the words of it", 3.0),
             ("c", "the words of it", 3.0)]
    ranked = briefrank.by_value(lines, lambda x: x[1], lambda x: x[2], 1.0)
    assert [name for name, _, _ in ranked] == ["b", "c", "a"]


@pytest.mark.parametrize(("point", "bare"), [
    ("The Problem", True), ("What Was Accomplished", True), ("Why separate steps?", True),
    ("Current State", True), ("Branch: `unruffled-mcclintock`", False),
    ("Critical Fixes (P0)", False), ("Tags pushed to origin remote", False),
])
def test_a_recap_heading_that_only_titles_its_part_is_bare(point: str, bare: bool) -> None:
    assert briefrank.bare_title(point) is bare


def test_a_line_two_tiers_down_needs_four_times_the_news_to_go_first() -> None:
    # A component's gotcha (tier 2) and a recap's point (tier 4) of one length: the point's
    # words are all names (each tells SPECIFIC, twice a plain word), and still it waits; a
    # point outranks knowledge only by telling far more (real sessions: a recap's short
    # figures took the room of the last session's decisions).
    gotcha, point = "alpha bravo charlie delta", "alph4 brav0 charli3 delt4"
    assert len(gotcha) == len(point)
    assert _order([(point, 4.0), (gotcha, 2.0)]) == [gotcha, point]
    assert briefrank.TIER_DECAY ** 2 * 4 <= 1.0


@pytest.mark.parametrize(("text", "bare"), [
    ("MSYS2 Fork Emulation Failures", True), ("Database Migration Issues", True),
    ("What Was Removed from History", True), ("Fixed", False),
    ("2869 SSDP/UPnP: Service STOPPED and DISABLED", False),
    ("Disable NetBIOS on Npcap Loopback Adapter (TcpipNetbiosOptions=0)", False),
    ("Enhanced Pre-commit Hook: 3-Layer STRICT Security", False),
    ("Redis needs a password in production", False), ("Use `uv` for installs", False),
    ("Switched to Windows-native GPG", False), ("The", False), ("", False),
])
def test_a_lesson_that_is_only_a_heading_is_told_apart(text: str, bare: bool) -> None:
    assert briefrank.title_only(text) is bare


@pytest.mark.parametrize("point", ["What We Accomplished This Session", "How it works",
                                   "Where things stand now"])
def test_a_heading_announcing_its_part_is_bare_however_long(point: str) -> None:
    assert briefrank.bare_title(point)


def test_a_point_starting_with_a_question_word_that_says_something_is_not_bare() -> None:
    assert not briefrank.bare_title("When the cache is cold, the API times out")


def test_a_list_of_network_addresses_tells_no_more_than_plain_words() -> None:
    # A traceroute's hops are tool output: its addresses must not outweigh a finding.
    hops = "Route: 2605:59ca:60e9:3d10::1 1ms; 2605:59ca:6000:1530::1; 10.0.0.1; 192.168.8.1:53"
    told = briefrank.information(hops + " 00-1a-2b-3c-4d-5e")
    assert {told[a] for a in ("2605:59ca:60e9:3d10::1", "10.0.0.1", "192.168.8.1:53",
                              "00-1a-2b-3c-4d-5e")} == {1.0}
    lines = [(hops, 2.0), ("gl_screen polled removed services: disabled it", 2.0)]
    assert _order(lines)[0] == lines[1][0]
    # Error codes, ports, versions and durations still tell more.
    told = briefrank.information("0xC0000142 on port 5432 after 330ms with v0.23")
    assert told["0xc0000142"] == told["5432"] == told["330ms"] == told["v0.23"] == 2.0


def test_an_answer_starts_after_claude_announces_what_it_does_next() -> None:
    point = briefrank.from_the_point
    assert point(["Let me clarify the workflow: — Reviews: others read the change"]) == [
        "Reviews: others read the change"]
    assert point(["Now let me write a summary.", "The build passes."]) == ["The build passes."]
    assert point(["Let me know which host to use.", "The image is built."]) == [
        "Let me know which host to use.", "The image is built."]  # asking back: no announcement
    assert point(["Let me look at the logs."]) == ["Let me look at the logs."]  # all it said


@pytest.mark.parametrize(("text", "lead"), [
    ("CI/CD Will Run Automatically::", True), ("Deployment Steps:", True),
    ("Run the migration:", False), ("Deploy To Production", False),
    ("Rebuild the applet with debug logging and test:", False),
])
def test_a_step_that_is_only_a_heading_leading_into_its_list_is_a_lead_in(text: str,
                                                                          lead: bool) -> None:
    assert briefrank.lead_in(text) is lead


@pytest.mark.parametrize(("one", "other", "same"), [
    ("Install macOS 26.2 immediately (may revert problematic change)",
     "Install macOS 26.2 - May contain NVMe firmware fix", True),
    ("Run the tests", "Run the tests again: with coverage", True),
    ("Install macOS 26.2", "Install macOS 26.3 update", False),
    ("Get API key from: https://console.anthropic.com/",
     "Add ANTHROPIC_API_KEY to repository secrets", False),
    ("Run the tests in web/", "Deploy the web/ build to staging", False),
])
def test_two_prerequisites_that_name_one_thing_with_other_glosses_are_one(one: str, other: str,
                                                                          same: bool) -> None:
    assert briefrank.same_step(one, other) is same
    assert briefrank.same_step(other, one) is same


@pytest.mark.parametrize(("text", "tidy"), [
    ("does Impact**: Minimal - warnings only", "does Impact: Minimal - warnings only"),
    ("**Issue**: wildcards **not** supported**", "**Issue**: wildcards **not** supported"),
    ("a **bold start never closed", "a bold start never closed"),
    ("CI/CD Will Run Automatically:: tests; lint", "CI/CD Will Run Automatically: tests; lint"),
    ("use `cosmic::applet::run`, not **app**", "use `cosmic::applet::run`, not **app**"),
    # Code is no markup: a glob's marks and a `::` inside a code span stay as written.
    ("Error: `WRN entry fingerprint=logs/**` Issue: no wildcards",
     "Error: `WRN entry fingerprint=logs/**` Issue: no wildcards"),
    ("**Fix**: ignore `src/**` and `a:: b`", "**Fix**: ignore `src/**` and `a:: b`"),
    ("`x/**` then Impact**: low", "`x/**` then Impact: low"),
])
def test_a_line_keeps_no_unpaired_bold_mark_nor_a_doubled_colon(text: str, tidy: str) -> None:
    assert briefrank.tidy(text) == tidy
