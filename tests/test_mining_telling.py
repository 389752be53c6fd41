"""What a line tells, and when two lines tell one lesson."""

from __future__ import annotations

from vaultmem.mining import telling


def test_the_same_lesson_in_other_words() -> None:
    long = ("The UCI config had `server` as a single option; the dnsmasq init script reads it "
            "with `config_list_foreach`, as a list (#5335)")
    short = "The dnsmasq init script reads `server` with `config_list_foreach`: a list in UCI"
    assert telling.same_lesson(short, long)
    assert not telling.same_lesson(long, short)  # the longer tells more
    assert not telling.same_lesson("level 3", "level 3 again")  # too short to tell


def test_a_number_makes_another_lesson() -> None:
    # Same words, another number: another fact (two clones' rounds picked other options).
    assert not telling.same_lesson("machine1 round 2 picks option 3",
                                   "machine1 round 1 picks option 2")
    assert telling.same_lesson("machine1 round 2 picks option 3",
                               "machine1 round 2 picks option 3, then pushes")
