"""One next step said twice, and a step a newer session did (issue 28 item 5, issue 29 item 1):
the briefing lists a step once, in its newest words, and an earlier session's step that a
newer session did or says again is no longer listed under that earlier session."""

from __future__ import annotations

from dataclasses import replace

from vaultmem.brief import context, digest
from vaultmem.brief.digest import Item, SessionDigest
from vaultmem.brief.worklog import Turn
from vaultmem.mining import settled

PENDING = "Debug why webhook events never reach the handler: added debug logging, rebuild and test"
NEXT = "Rebuild the service with the debug logging and test that webhook events reach the handler"
ROLE = "Add the queue reader role to the worker"
OTHER = "Grant the worker read access to the queue: `sudo setfacl -m u:worker:r /var/queue`"


def test_a_step_said_again_in_other_words_restates_it() -> None:
    assert settled.restates(NEXT, PENDING) and settled.restates(PENDING, NEXT)
    # Two steps on one thing are two steps: a shared subject is not the same step.
    assert not settled.restates("Import the GPG private key", "Verify the GPG key imported")
    assert not settled.restates("User closes Claude Code and all bash processes",
                                "User restarts Claude Code and types 'resume'")
    assert not settled.restates(OTHER, PENDING)
    assert settled.restated([PENDING, OTHER, NEXT]) == {0}
    assert settled.restated([OTHER]) == set()


NOTE = f"""---
type: session
created: 2026-11-20
status: active
---
# webhooks

## Work Log

### 10:00 - why are events lost?

**Prompt:** why are events lost?
**Answer:** The handler subscribes after the first event is sent.

## Next Steps

- {PENDING}
- {OTHER}
- {NEXT}
"""


def test_the_digest_lists_a_step_said_twice_once_in_its_newest_words() -> None:
    told = digest.session("p/sessions/2026-11-20-webhooks.md", NOTE)
    assert [i.text for i in told.next_steps] == [OTHER, NEXT]


LAST = SessionDigest(
    rel="p/sessions/2026-11-21-queue.md", date="2026-11-21", topic="queue access",
    status="active", branch="", turns=(Turn("09:00", "grant access", "Added the queue reader role to "
                                                  "the worker."),),
    failing=(), decisions=(), gotchas=(), prerequisites=(), open_questions=(),
    next_steps=(Item("Rebuild the service with debug logging, then test webhook events reach "
                     "the handler"),),
    entities=(), logged=1)
EARLIER = replace(LAST, rel="p/sessions/2026-11-20-webhooks.md", date="2026-11-20",
                  topic="webhooks", turns=(Turn("10:00", "why", "The handler subscribes late."),),
                  next_steps=(Item(PENDING), Item(ROLE), Item("Write the webhook runbook")))


def test_an_earlier_sessions_step_a_newer_one_did_or_lists_again_is_not_listed_there() -> None:
    text = context.render("p", [LAST, EARLIER])
    earlier = text[text.index("2026-11-20 · webhooks"):]
    assert "Write the webhook runbook" in earlier  # nothing newer did it or said it again
    assert ROLE not in text  # the newer session's answer reports it done
    assert PENDING not in text  # the newer session lists it, in other words
    assert "then test webhook events reach the handler" in text


def test_a_listed_step_its_last_answer_names_again_is_said_there_only() -> None:
    said = Turn("10:00", "status", "Where it stands: the handler is found.",
                upcoming=(NEXT,))
    text = context.render("p", [replace(LAST, turns=(said,), next_steps=(
        Item(PENDING), Item("Write the webhook runbook")))])
    assert NEXT in text and PENDING not in text and "Write the webhook runbook" in text
