"""A failure that was the network or a service being down, not the project (pure).

A command that fails on a lookup, a refused or timed-out connection, a gateway's 502/503/504 or a
rate limit, and later passes as it was, came back with the service: the lesson is none ("the
install failed: pip cannot resolve pypi.org"), and whatever was changed between the failure and
the pass is no fix of it. The session note keeps the failures and the pass (state over time); no
gotcha is made of them (issue 28).
"""

from __future__ import annotations

import re

from vaultmem.notes.lazyre import lazy

# What a client prints when the far end, or the way to it, is down: by any tool or language.
_OUTAGE_RE = lazy(
    r"\bname resolution\b|\bcould not resolve (?:host|hostname|proxy)\b|\bgetaddrinfo\b|"
    r"\b(?:EAI_AGAIN|ENOTFOUND|ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENETUNREACH|EHOSTUNREACH)\b|"
    r"\bnetwork is unreachable\b|\bno route to host\b|\bconnection (?:refused|reset|timed out)\b|"
    r"\bfailed to establish a new connection\b|\bread timed out\b|\bconnect(?:ion)? timeout\b|"
    r"\b(?:502|503|504) (?:bad gateway|service unavailable|gateway time-?out)\b|"
    r"\bservice (?:is )?(?:temporarily )?unavailable\b|\b429 too many requests\b|"
    r"\b(?:network|internet|wi-?fi) (?:is |was |seems |went )?(?:down|offline)\b|\boverloaded_error\b",
    re.IGNORECASE)


def outage(text: str | None) -> bool:
    """Whether ``text`` (an error line, or Claude's words about a failure) says the network or
    a remote service was down, rather than something in the project or the machine's setup."""
    return bool(text) and _OUTAGE_RE.search(text or "") is not None
