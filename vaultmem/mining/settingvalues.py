"""The shapes of a setting given a value, as pattern text (pure): ``kinds`` makes them cues.

A config value chosen is a decision a later session meets ("Lowered the entropy threshold from
3.5 to 3.0", "Entropy threshold: 3.5 → 3.0", "I set the timeout to 30 seconds because …"); a
measurement ("Error rate: 5% → 1%") or a step without its reason ("Set X to 200") is none.
"""

from __future__ import annotations

# A setting given a new value, with the old one ("Lowered the entropy threshold from 3.5 to 3.0",
# "Increased the log buffer size: 128 KB → 512 KB"): the value is a choice a later session meets.
# The name must be a setting's (a threshold, a timeout, a size…), both values numbers: "Reduced
# the repository size by 91%" and "Detection increased from 632 to 16,684" are results, not
# settings; an imperative ("Raise the limit from …") is a proposal.
_SETTING = (
    r"threshold|timeout|limit|size|cache|buffer|interval|ttl|retries|retry count|port|level|rate|"
    r"depth|workers|pool|concurrency|batch|max\w*|min\w*|cap|quota|delay|backoff|"
    r"frequency|window|capacity|memory|heap|jobs|threads|connections"
)
_VALUE = r"`?~?\d[\d.,]*\s?(?:[a-z%]{1,5}\b)?`?"
CHANGED = (
    r"^(?:(?:i|we)(?:'ve| have)? )?(?:lowered|raised|increased|decreased|reduced|bumped|"
    r"boosted|tightened|relaxed|changed|set|capped|doubled|halved|adjusted|tuned)\s+(?:the\s+)?"
    r"(?:[\w`.-]+\s+){0,4}?(?:" + _SETTING + r")s?`?\s*(?:from\s+|:\s*)" + _VALUE
    + r"\s*(?:to|→|->)\s*" + _VALUE
)
CHANGED_GATE = ("lowered|raised|increased|decreased|reduced|bumped|boosted|tightened|relaxed|"
                "changed|set|capped|doubled|halved|adjusted|tuned")
# A setting's new value beside its old one with no verb, as a summary lists it ("Entropy
# threshold: 3.5 → 3.0", "`timeout`: 30s -> 120s"): a measurement is none ("Error rate: 5% →
# 1%", "Response size: 3 KB → 1 KB": what was measured names no setting).
_SETTING_NAME = (
    r"threshold|timeout|limit|size|buffer|interval|ttl|retries|retry count|port|level|depth|"
    r"workers|pool|concurrency|max\w*|min\w*|cap|quota|delay|backoff|frequency|window|capacity|"
    r"jobs|threads|connections|keepalive|keep-alive|entries|version"
)
_MEASURED = (
    r"error|hit|miss|success|failure|usage|used|free|latency|response|request|file|binary|image|"
    r"repo|repository|bundle|download|upload|payload|disk|log|findings?|detections?|score|"
    r"coverage|load|peak|average|total|result"
)
ARROW = (
    r"^(?:(?!(?:" + _MEASURED + r")\b)[\w`.\ue000\ue001-]+\s+){0,3}?(?:" + _SETTING_NAME
    + r")s?`?\s*:\s*" + _VALUE + r"\s*(?:→|->|=>)\s*" + _VALUE + r"(?:\s|[,;.(]|$)"
)
ARROW_GATE = "→|->|=>"
# A setting given a value with the reason for it ("I set the timeout to 30 seconds because the
# upstream is slow", "Pinned `numpy` to 1.26 since 2.0 breaks the wheels"): a config value
# chosen. Without its reason it is a step done, or an instruction ("Set X to 200").
_REASON = (
    r"(?:because|since|as|so(?: that)?|given|to (?:avoid|keep|prevent|stop|allow|let|make|"
    r"reduce|cut|handle|match|fit|save|speed up|survive|support|absorb|give|limit|ensure))"
)
_CHOSEN_VERBS = (r"set|pinned|capped|limited|raised|lowered|bumped|increased|decreased|reduced|"
                 r"tuned|configured|changed|fixed")
CHOSEN = (
    r"^(?:(?:i|we)(?:'ve| have)? )?(?:also )?(?:" + _CHOSEN_VERBS + r") (?:the )?"
    r"(?:[\w`.\ue000\ue001-]+ ){0,4}?(?:to|at) (?:" + _VALUE + r"|\ue000\d+\ue001|true|false|"
    r"on|off|enabled|disabled)(?: [\w%/-]+){0,2}?,? " + _REASON + r"\b"
)
CHOSEN_GATE = _CHOSEN_VERBS
