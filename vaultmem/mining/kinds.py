"""The kinds of knowledge and the cues and vetoes that decide each (pure): the vocabulary.

The kinds themselves are :class:`vaultmem.notes.schema.Kind`; a cue here is a phrase that makes a
sentence one kind (a decision, a gotcha, a prerequisite, a next step, an open question), a veto
one that keeps it out (narration, a hedge, a test described). :data:`TABLE` at the end lists,
for each kind, its cues and vetoes (a test keeps every cue here in it); :func:`cues.classify`
applies them to one sentence, in its order; compaction and capture read the kinds through
``mining``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from vaultmem.mining import settingvalues
from vaultmem.mining.caveats import (
    FLAW_NAMED,
    HARMLESS,
    LIMITATION,
    NO_NEED,
    NOTED,
    OTHERWISE,
    PRIVILEGED,
    TREATS,
    UNAVAILABLE,
)
from vaultmem.mining.cue import Cue, cue
from vaultmem.notes.lazyre import lazy
from vaultmem.notes.schema import Kind

# ---- classification --------------------------------------------------------------------------
# Tool narration: what Claude is about to do in this very turn, not knowledge.
NARRATION = cue(
    r"\blet me (?!know\b)|\bsibling (?:tool )?(?:call )?errors?\b|^(?:now|first|then|next),? i (?:need|have|want) to\b|"
    r"^(?:(?:now|first|but|so|ok(?:ay)?),? )?i (?:need|have|want) to (?:check|look|"
    r"see|verify|find|figure out|confirm|understand|read|inspect|think|investigate)\b|^(?:(?:ok(?:ay)?|now|first|great|good|perfect|alright|next|then|so)[,!.]?\s+)*"
    r"(?:let's (?:run|check|look|see|read|open|try|verify|start|find|search|take|dig)|"
    r"i(?:'ll| will| am going to|'m going to)\s+(?:now\s+)?(?:run|check|look|read|open|search|"
    r"grep|inspect|examine|explore|view|verify|start by|begin by|investigate|find|see|try|"
    r"take a look|dig|scan|trace|test|re-?run|make the changes|update|fix)\b|i(?:'m| am) (?:now )?"
    r"(?:going to )?(?:running|checking|looking|reading|searching|investigating|examining|"
    r"exploring)|(?:running|checking|reading|looking at|searching|opening|inspecting)\b)"
)
# Where a sentence's main clause ends: hedges after it ("because X might…") do not hedge it.
CLAUSE_END_RE = lazy(
    r"\b(?:because|since|unless|so that|otherwise|which|when|so)\b|[;:—(]| - |, so\b|\.\s",
    re.IGNORECASE,
)
# Hedges and hypotheticals in the main clause: not a decision, gotcha or prerequisite.
HEDGE = cue(
    r"\b(?:maybe|perhaps|possibly|might|may|could|would|should we|if we|if you|if i|whether|"
    r"consider(?:ing)?|option(?:s|(?!\s+(?-i:[A-Z0-9])\b))|optionally|alternatively|suppose|hypothetical(?:ly)?|probably|"
    r"likely|i suspect|i think|i guess|i believe|seems?|appears? to|not sure|unclear|in theory|"
    r"one approach|another approach|worth (?:trying|considering|exploring)|we can|you can|"
    r"try(?:ing)? to|was going to|were going to|wondering|i'd|we'd|recommend|suggest)\b|"
    r"^\s*(?:if|once|when|to figure out|to find)\b",
    "maybe|perhaps|possibl|might|may|could|would|should we|if|whether|consider|option|alternative|suppos|hypothetical|probabl|likely|suspect|think|guess|believe|seem|appear|not sure|unclear|in theory|approach|worth|we can|you can|try|going to|wondering|i'd|we'd|recommend|suggest|once|when|to figure out|to find",
)
QUESTION_OPEN = cue(
    r"\bit'?s (?:still )?(?:unclear|not clear)\b|\b(?:still )?unclear (?:whether|if|why|how|what|"
    r"which|who|when)\b|\bnot (?:yet |entirely |100% )?sure(?: yet)? (?:whether|if|why|how|what|"
    r"which|about)\b|\b(?:unsure|uncertain|not (?:yet )?certain) (?:whether|if|why|how|what|which|"
    r"about)\b|"
    r"\b(?:don'?t|do not) (?:yet )?know(?: yet)? (?:whether|if|why|how)\b|"
    r"\b(?:couldn'?t|could not|can'?t|cannot|didn'?t|did not|(?:wasn'?t|weren'?t|was not|"
    r"were not|am not|not) able to|unable to|no way to) (?:determine|tell|figure out|work out|"
    r"confirm|verify|find out|know|see)(?: \w+){0,2} (?:whether|if|why|how|what|which)\b|"
    r"\bremains? (?:to be seen|unclear|open)\b|\b(?:is|are|remains?) (?:still )?an open question\b|"
    r"\bopen question\b|\bneeds? (?:a )?decision\b|\bundecided\b|\btbd\b|"
    r"\b(?:you|we) (?:still )?(?:need|have) to decide\b|\bup to you (?:whether|which|if)\b|"
    r"\bhaven'?t (?:yet )?decided\b"
)
RESOLVED = cue(
    r"\b(?:so i (?:checked|looked|verified|tested)|turns? out|turned out|confirmed)\b|"
    r"^i wasn'?t sure"
)
# Asked of the user directly (kept when nothing but questions follows it).
ASK_USER = cue(
    r"^(?:(?:also|and|so|one more thing|lastly|finally)[,:]?\s+)?(?:should|shall) (?:i|we)\b|"
    r"^(?:(?:also|and|so)[,:]?\s+)?(?:do|would) you (?:want|prefer|like)|"
    r"^(?:can|could) you (?:confirm|clarify|tell|check|let me know)|^which (?:one|option|approach|"
    r"of these|would you|do you)|^(?:is|are) (?:it|that|this|these) (?:ok|okay|fine|acceptable)|"
    r"^how would you like|^what would you like|^do you have a preference"
)
# Closing courtesies are not questions ("Anything else?", "Let me know if you'd like changes").
COURTESY = cue(
    r"\banything else\b|\bany (?:other |more |further )?(?:questions|changes|adjustments|tweaks)\b|"
    r"\bif anything is unclear\b|\bwhat (?:would|do) you (?:like|want) (?:me )?to do next\b|"
    r"\bsibling (?:tool )?(?:call )?errors?\b|"
    r"^(?:(?:do you )?want me to|shall i|should i) (?:go ahead and )?(?:commit|push|proceed|continue)"
    r"(?: (?:this|these|it|that|them|the changes|these changes|now))?\s*\?$|"
    # An offer whose object only points back ("Want me to make that change?"): read alone in
    # the memory it asks nothing anyone can answer.
    r"^(?:(?:do you )?want me to|would you like me to|shall i|should i) (?:go ahead and )?\w+ "
    r"(?:it|this|that|these|those|them)(?: (?:change|changes|fix|fixes|update|updates|one|ones|"
    r"approach|plan|step|steps|now))?\s*\?$"
)
# Claude's offer of its next move, a request for leave, or a question of what to do next: the
# answer is a yes, a no or the user's next prompt, not knowledge about the work. A first-person
# question that names alternatives ("Should I key the cache by user or by tenant?") stays.
OFFER = cue(
    r"\b(?:want|like|prefer|need) me to\b|\b(?:shall|should|can|may) i\b(?!.*\bor\b)|"
    r"\bhow (?:would|do|should|shall) (?:you(?: like| want)?|we|i) (?:to )?(?:proceed|continue|"
    r"go (?:on|forward|from here)|move forward)\b|\bwhat (?:\w+ )?(?:would|do) you (?:like|want)"
    r"(?: me| us)? to (?:do|work on|tackle|focus on|start with)\b|\b(?:you'?d|you would) like "
    r"(?:me |us )?to (?:tackle|do|work on|focus on|start with)\b|\bwhat (?:\w+ )?are you looking "
    r"to\b|\bwhat(?:'s| is| should be| comes) next\b|\bwhere (?:should|shall|do) (?:we|i) go "
    r"from here\b|\b(?:shall|should) we (?:proceed|continue|go ahead|move on|start|begin|get "
    r"started|carry on)\b|^(?:please )?let me know if\b|\bwould you like to (?:review|see|check|"
    r"look|try|test|go over|read)\b|\bready (?:for me )?to (?:proceed|continue|commit|push|merge|"
    r"move on)\b|\b(?:does|do) (?:that|this|these|it) (?:sound|look) (?:good|ok|okay|right|fine)\b"
)
# A question at the end is left to the user when it asks for a choice or a wish, not when Claude
# wonders aloud before its next tool call ("Is the actor spawning?").
TO_USER = cue(
    r"\b(?:you|your|should|shall|prefer|want|ok|okay|acceptable|needs?)\b|,? or\b|"
    r"\b(?:do|does|should|can|will|are) we\b"
)
LET_ME_KNOW = cue(
    r"^(?:please )?let me know (?:whether|which|how you'?d like|what you'?d prefer)"
)
BUILD_VERB = (
    r"(?:add|implement|write|create|build|wire|hook up|migrate|handle|fix|refactor|remove|drop|"
    r"backfill|support|port|finish|revisit|extend|expose|cover|test|document|update|replace|"
    r"move|split|rename|deprecate|delete|enable|set up|integrate|connect|switch|rotate|clean up)"
)
NEXT = cue(
    r"^(?:as (?:a|the) )?next(?: steps?| up| session)?\s*[,:—–-]\s*(?!let me\b)|"
    r"^next,? (?:we|i|you)(?:'ll| will| should| need| can| must| have)\b|"
    r"\bnext steps? (?:is|are|would be|will be|:)|\bthe next (?:thing|task|piece|step)s? "
    r"(?:is|are|would be|will be|to|:)|"
    r"\bnext up\b|\bstill (?:need|needs|have|has) to\b|\bstill (?:missing|to do|todo|pending|"
    r"unimplemented|open|outstanding)\b|\bremaining (?:work|tasks?|items?|steps?|pieces?)\b|"
    r"\bwhat(?:'s| is) (?:still )?left\b|\bwhat remains\b|\bis left to\b|\bleft to do\b|"
    r"\bleft for later\b|\b(?:last|remaining|final|only|missing) (?:piece|part|bit|step|thing)s? "
    r"(?:still )?(?:is|are|left|missing|remaining)\b|"
    r"(?:\bnot|n'?t) (?:yet )?(?:been )?(?:implemented|wired|hooked up|built)\b|"
    r"(?:\bnot|n'?t) (?:yet )?(?:been )?(?:done|handled|covered|written|added|migrated|tested)\b"
    r"(?: up)? yet\b|(?:\bnot|n'?t) yet (?:been )?\w+ed\b|\bhaven'?t (?:yet )?(?:added|implemented|"
    r"written|wired|built|done|handled|migrated|covered|tested)\b|\b(?:is|are) (?:still )?"
    r"(?:a |just )?(?:stubs?|placeholders?|stubbed)\b|\b(?:as a|the|in a) follow[- ]ups?\b|"
    r"\bfollow[- ]up (?:pr|task|work|ticket|issue|change|commit)s?\b|\b(?:next|in the next) "
    r"session\b|\b(?:should|need to|needs to|will|we'?ll|i'?ll|want to) (?:\S+ ){1,8}next\b"
    r"(?=\s*(?:[.,;:!)]|$))|"
    r"(?-i:\bTODO\b)|\byet to be\b|\b(?:only )?(?:half|partially) (?:done|finished|implemented|wired)\b|"
    r"\b(?:unfinished|incomplete)\b|\bstill needs?\b(?! (?:\S+ )?(?:running|installed|set)\b)|"
    r"\boutstanding\s*[:—-]|\bafter that,? (?:we (?:can|should|need)|i (?:should|need))\b|"
    r"\b(?:we|i)(?:'ll| will) (?:still )?need to " + BUILD_VERB + r"\b",
    "next|still|remaining|left|remains|piece|part|bit|step|thing|implemented|wired|hooked up|built|yet|haven|stub|placeholder|follow|todo|half|partially|unfinished|incomplete|work in progress|wip|after that|need to|outstanding",
)
NEXT_HEDGE = cue(
    r"\b(?:maybe|perhaps|might|could|would be nice|if you want|optionally)\b|"
    r"\bno (?:remaining|more|further|outstanding)\b|\bnothing (?:left|remaining|outstanding)\b|"
    # A concession states how things are ("Even with `!tty_tickets`, sudo still needs a TTY").
    r"^even (?:with|if|though|when|after|so)\b"
)
# Root causes and fixes stated as found. Strong cues win over a decision in the same sentence;
# weak ones ("silently truncates", "heads up") only count when nothing else does.
SYMPTOM = (
    r"(?:fail(?:s|ed|ing|ure)?|br(?:oke|eaks?|oken)|hang(?:s|ing)?|hung|crash(?:es|ed|ing)?|"
    r"rejected|timed out|time ?outs?|timing out|leak(?:s|ed|ing)?|flak(?:y|iness)|deadlock(?:s|ed)?|"
    r"duplicat(?:e|ed|es)|errors?|exceptions?|[45]\d\ds?|regression|bug|wrong|missing|empty|"
    r"stale|slow|early|late|twice|never|block(?:s|ed)|refus(?:es|ed)|denied)"
)
# "The issue is that …", "The fix was: …"; not "The problem is clear." or "The fix is already in".
SUBSTANCE = (
    r"(?! (?:already|now|still|needed|in place|clear|obvious|done|applied|unknown|here|there|"
    r"(?:at|on|in) line)\b)"
    r"(?=\s*[:—–-]\s*\S|(?: [^\s.]+){3})"
)
GOTCHA = cue(
    r"(?<!same )(?<!a )(?<!another )(?<!different )\broot[ -]cause\b"
    r"(?! (?:found|fixed|identified|confirmed|analysis|unknown|hypothes[ie]s)\b)|\bturn(?:s|ed) out\b|\b(?:was|were|is|are) (?:actually |all )?caused by\b|"
    r"\b(?:the|what) (?:actual |real |underlying )?(?:fix|solution|workaround|fixed it|solved it) "
    r"(?:was|is|turned out)\b"
    + SUBSTANCE
    + r"|\bthe (?:actual |real |underlying )?(?:problem|issue|"
    r"bug|culprit|cause|reason)(?: here)? (?:was|is|wasn'?t)\b(?! (?:now |finally )?(?:fixed|solved|"
    r"resolved|gone))" + SUBSTANCE + r"|"
    r"\b" + SYMPTOM + r"\b(?: \S+){0,6} (?:because|due to|came from|comes from|stems? from)\b|"
    # "… fails on Node 16 since the lockfile uses v9": "since" with a clause, not a date.
    r"\b" + SYMPTOM + r"\b(?: \S+){0,6} since(?: \S+){1,4} (?:is|are|was|were|has|had|does|"
    r"doesn'?t|did|didn'?t|uses|used|needs|expects|requires|returns|lacks|can'?t|cannot|"
    r"won'?t|isn'?t|wasn'?t)\b|"
    # "The problem: Vite caches the old env file, so …" (the colon form of "the problem was").
    r"^the (?:actual |real |underlying |root |main )?(?:problem|issue|bug|cause|culprit|catch|reason)"
    r"\s*[:—–]\s*(?!(?:i|we|let)\b)(?:\S+ ){3}|"
    # "The config didn't load because the path was relative": what did not happen, and why.
    r"^(?!(?:i|we|you|this|that|there|which|nothing|none)\b)(?:\S+ ){1,6}(?:didn'?t|doesn'?t|"
    r"don'?t|wasn'?t|weren'?t|isn'?t|aren'?t|couldn'?t|won'?t|can'?t|cannot|did not|does not|"
    r"was not|is not|could not) (?!(?:matter|need|have|affect|change|apply)\b)(?:\S+ ){1,6}"
    r"(?:because|due to)\b|"
    r"\b(?:happens|happened|occurs|occurred|appears|appeared) "
    r"(?:because|when)\b|\bthe culprit\b|"
    r"\b(?:fixed|resolved|solved|worked around) (?:it|this|that|the \S+(?: \S+){0,3}) by\b|"
    r"^(?:fixed|resolved|solved|worked around) by\b|\bfix(?:ed)? was to\b|\bthe reason\b.{0,60}"
    r"\b(?:fail|failed|fails|broke|breaks|was failing|hung|happened|is that|was that)\b|"
    r"\bwas the cause\b|\b(?:tracked|traced|narrowed) (?:\S+ ){0,6}(?:down |back )?to\b|"
    r"\bso\b(?: (?!no longer|not|never)\S+){0,10} (?:raised|threw|crashed|failed|broke|hung|"
    r"timed out|returned (?:a |an )?(?:error|[45]\d\d|none|null)|disappeared|vanished|"
    r"stopped working|went missing|(?:was|were|got) (?:lost|ignored|overwritten|dropped|skipped))\b|"
    r"\bbecause of (?:a|an|the) (?:bug|race|typo|missing|stale|wrong)\b|"
    r"^(?:found it|found the (?:problem|issue|bug|cause|culprit)|figured it out|mystery solved|"
    r"solved|lessons? learned|the catch|"
    r"til)\s*[:—-]\s*\S|"
    # "The consumer lost events: the group started at `$`…", not a count ("Total dropped: 5 …").
    r"\b(?:lost|dropped|skipped|duplicated|failed|broke|crashed|hung|leaked)\b[^:]{0,60}:"
    r"(?! *[~≈<>]?\d)(?: \S+){5}|\bwas due to\b|"
    r"\bit was (?:a|an) (?:\S+ ){0,2}(?:issue|problem|bug) after all\b|\bafter all\b.{0,20}\bwas\b|"
    # "I'm hitting an issue where enabling `queryLog` makes queries time out": what breaks, said.
    r"\ban? (?:known |strange |weird |odd |subtle )?(?:issue|problem|bug) (?:where|in which|"
    r"whereby)(?: \S+){3}",
    "root|turn|caus|fix|solution|workaround|solved|problem|issue|bug|culprit|reason|because|due to|came from|comes from|stem|happen|occur|resolved|worked around|tracked|traced|narrowed|raised|threw|crash|fail|broke|hung|timed out|returned|found it|figured|lesson|catch|insight|til|lost|dropped|skipped|duplicated|leak|after all|since|appear|disappeared|vanished|stopped|missing|ignored|overwritten",
)
# A cause stated without a cue word: "The failing test was a rounding problem: …".
CAUSE_STATED = cue(
    r"^(?:the |this |that )?(?:\S+ )?(?:failing|failed|broken|flaky|red|hanging) (?:\S+ ){0,2}"
    r"(?:was|were) (?:just |really |actually )?(?:a|an) (?:\S+ ){0,3}(?:problem|issue|bug|mistake)"
    r"(?=\s*[:—–-]\s*\S| (?:in|with|on|at|around) \S)|"
    r"^the (?:failures?|crash(?:es)?|hang|breakage|regression|flakiness) (?:was|were) (?:just |"
    r"really |actually )?(?:a|an) (?:\S+ ){0,3}(?:problem|issue|bug|mistake)"
    r"(?=\s*[:—–-]\s*\S| (?:in|with|on|at|around) \S)",
    "fail|broke|flak|red|hang|crash|regression",
)
# A fix stated by its effect: "Switching the connection to WAL mode fixed it." The subject is the
# change, not Claude ("I fixed the test" is a progress report), and nothing negates it.
FIX_STATED = cue(
    r"^(?!(?:i|we|i've|we've|this|that|it|which|nothing|none|neither|hopefully)\b)"
    r"(?!.*\b(?:not|never|no|n't)\b)(?:\S+ ){2,}(?:(?:finally|actually|also) )?"
    r"(?:fixed|solved|resolved|cured) (?:it|this|that|the (?:\S+ ){0,2}(?:failures?|problem|issue|"
    r"bug|errors?|crash|hang|flake|flakiness|tests?|build|deadlock|race))\b(?! by\b)|"
    r"^(?!(?:i|we|i've|we've|this|that|it|which|nothing|none|neither|hopefully)\b)"
    r"(?!.*\b(?:not|never|no|n't)\b)(?:\S+ ){2,}made (?:the |all |both )?(?:\S+ ){0,2}"
    r"(?:tests?|suite|build|ci|checks?) (?:pass|green|go green)\b|"
    r"^(?!(?:no|some|every|any)thing\b|during\b|string\b)[^\W\d_]{2,}ing\b"
    r"(?!.*\b(?:not|never|no|nothing|n't)\b)(?: \S+){1,10} (?:fixed|solved|resolved|cured|"
    r"eliminated) (?:it|this|that|the|all|both)\b",
    "fixed|solved|resolved|cured|made|eliminated",
)
# A wrong use found, put in the past with its right one ("I was using `app::run` instead of
# `applet::run`", "The regex was incorrectly matching timestamps"): what was wrong, not a choice.
# "We were using X instead of Y" tells a past choice as often as a mistake: not one. A thing
# named that makes something fail is one too.
WRONG_USE = cue(
    r"\b(?:was|were) (?:incorrectly|wrongly|mistakenly|accidentally|erroneously|unintentionally) "
    r"\w+|(?<!\bwe )\b(?:was|were) (?:using|calling|passing|importing|setting|reading|writing|"
    r"sending|loading|running|pointing at|pointing to) (?:\S+ ){1,6}(?:instead of|rather than) \S|"
    # "Enabling `queryLog` causes DNS queries to time out": a thing named, then what it breaks.
    r"^(?!(?:i|we|you|it|this|that|these|those|they|there|which|nothing)\b)(?:\S+ ){1,6}"
    r"(?:causes|caused|makes|made) (?:\S+ ){1,4}(?:to )?(?:fail|hang|time ?out|crash|break|"
    r"freeze|stall|error out)\b",
    "incorrectly|wrongly|mistakenly|accidentally|erroneously|unintentionally|instead of|"
    "rather than|cause|make|made",
)
# A diagnosis that says where the fault lies without a cue word: "The errors are all symptoms of
# the runtime's fork emulation", "This is a Windows/`uvloop` socket issue." The second form needs
# its qualifier to name something (a capital, a digit, code or a path): "This is a known
# issue" names nothing.
DIAGNOSED = cue(
    r"\b(?:is|are|was|were) (?:all |just |really |only |likely )?(?:an? )?symptoms? of \S|"
    r"^(?:this|that|it)(?: error| failure| crash| hang)? (?:is|was) (?:an? |the )?"
    r"(?=(?!(?:an?|the) )(?:\S+ ){2,6}(?:issue|problem|bug|limitation)\s*[.!]?$)"
    r"(?:\S+ ){0,4}\S*(?-i:[A-Z0-9/_\ue000])\S* (?:\S+ ){0,4}(?:issue|problem|bug|limitation)"
    r"\s*[.!]?$",
    "symptom|issue|problem|bug|limitation",
)
GOTCHA_WEAK = cue(
    r"\bwhich (?:is|was) why\b|\bwas (?:silently )?(?:swallowing|truncating|"
    r"dropping|ignoring)\b|\bsilently (?:truncates|drops|ignores|swallows|fails|returns)\b|"
    r"\bwatch out\b|\bbeware\b|\bthe (?:trick|key) (?:was|is)(?: (?:to|that|in|using)\b|\s*[:—–])|^heads[- ]up\b|^careful\b|"
    r"^(?:that|this)(?:'s| is| was) why\b(?!.*\byet\b)[^:—–]{3,80}[:—–]\s*(?:\S+ ){3}"
)
# A test described, not a failure explained ("checks that login fails because of …").
TEST_INTENT = cue(
    r"\b(?:checks|verifies|asserts|ensures|tests) that\b|\bmakes sure\b|"
    r"\btests?(?: \S+)? (?:checks|verifies|asserts|ensures|expects)\b|"
    r"\bwill (?:correctly |still )?fail\b|\bcorrectly fails?\b|\bsupposed to\b|"
    r"\bexpected to\b|\bby design\b|\bis intended\b|\bthe point of\b|\bshould fail\b"
)
# A list item of a few names ("KnockKnock", "Objective-See Tools"): under "Next steps" it lists
# things, not a step to take.
NAMES_ONLY = lazy(r"(?:[A-Z][\w.+-]*(?:\s+|$)){1,4}")
# A sentence about things listed before it ("Those are the failed queries from before the fix.",
# "They all timed out …"): read alone in an entity it says nothing, so it is no decision or
# gotcha. "This happens because X" still is: its cause names what matters.
ANAPHORA = cue(r"^(?:those|these|they) (?:are|were|all)\b")
# A choice stated in the passive with its alternative: "Money is kept as integer cents instead
# of floats" (without the contrast it only describes: "values are stored as strings").
PASSIVE_CHOICE = cue(
    r"^(?!(?:i|we|it|this|that)\b)(?:[\w`'/.-]+ ){1,5}(?:is|are) (?:now |always |deliberately )?"
    r"(?:kept|stored|represented|handled|modell?ed|serialized|serialised|persisted|encoded|saved|"
    r"tracked|computed|passed|recorded|held) (?:as|in|at|by|through|via) [^,;]{1,80}"
    r"\b(?:instead of|rather than|not as)\b",
    "instead of|rather than|not as",
)
# A choice stated in the passive by its verb: "`uv` was chosen over pip for its speed", "Alpine
# is preferred as the base image". Not "whichever is chosen" (a hedge vetoes it).
PASSIVE_CHOSEN = cue(
    r"^(?!.*\b(?:which|whichever|what|whether|if|once|when)\b)"
    r".*?\b(?:was|were|is|are|has been|have been) (?:deliberately |finally |now )?(?:chosen|picked|"
    r"selected|preferred|adopted)\b(?! (?:by (?:default|the user)|automatically|at random)\b)",
    "chosen|picked|selected|preferred|adopted",
)
# Something kept as it was on purpose, with why: "I left the old logs unchanged to preserve the
# record", "The v1 route was kept in place so old clients still work". Without the reason it is
# a progress line ("I left the rest untouched").
KEPT_AS_IS = cue(
    r"\b(?:(?:i|we)(?:'ve| have)?|was|were|is|are) (?:deliberately |intentionally |purposely |"
    r"also )?(?:left|kept) (?:\S+ ){0,6}?(?:unchanged|untouched|as[- ]is|intact|alone|in place|"
    r"unmodified|as (?:they|it) (?:were|was))\b,? (?:to|because|since|so|as|for)\b",
    "unchanged|untouched|as is|as-is|intact|alone|in place|unmodified|as they were|as it was",
)
# An option that is only Claude's next move ("Proceed with the rebase", "Start implementing
# phase 1", "Do both"): picking it orders the work, it decides nothing about it (mining/choices).
NEXT_MOVE = cue(
    r"^(?:(?:first|just|now|then),? )?(?:proceed|continue|start|begin|resume|review|close|wait|"
    r"skip|stop|pause|commit|push|try|do (?:both|it|all|that|this|nothing)|keep going|move on|"
    r"go ahead|carry on|implement|test|run|finish|retry|leave it|something else)\b"
)
CHOSE = (
    r"(?:chose|chosen|picked|agreed (?:to|on)|opted (?:for|to|against|not)|went (?:ahead )?(?:with|for)|"
    r"gone (?:ahead )?(?:with|for)|decided(?! (?:whether|if|how|which|what|yet)\b)|settled on|"
    r"standardi[sz]ed (?:\S+ ){0,4}on|ended up (?:using|going with|with)|"
    r"switched (?:\S+ ){0,5}(?:to|from)(?! (?:the |a |another |a new )?(?:[\w/.-]+ )?branch\b)|migrated (?:\S+ ){0,5}(?:to|from)|"
    r"replaced (?:\S+ ){0,5}with|stuck with)"
)
DECISION = cue(
    r"\b(?:i|we)(?:'ve| have)?\s+(?:finally |ultimately |eventually |also |instead )?"
    + CHOSE
    + r"\b|"
    r"^(?:finally,? |ultimately,? |in the end,? )?" + CHOSE + r"\b|"
    r"\b(?:i|we)(?:'ll| will| are going to|'re going to|'m going to| am going to)\s+(?:use|go with|"
    r"stick with|keep|adopt)\b(?=.*\b(?:because|since|instead of|rather than|over|so that|as it|"
    r"as they|given)\b)|\b(?:i|we)(?:'m| am|'re| are) (?:now )?using\b(?=.*\b(?:because|since|"
    r"instead of|rather than|so that)\b)|\b(?:i|we)(?:'m| am|'re| are) (?:going with|sticking with|keeping)\b|"
    r"^(?:let'?s|we'?ll) (?:use|go with|stick with)\b|"
    r"^(?:going with|sticking with|ending up with)\b|\bthe decision (?:was|is) to\b|"
    r"\b(?:my|our) (?:choice|decision|pick|call) (?:was|is|here)\b|"
    r"\bthe (?:approach|route|option|design) (?:i|we) (?:took|chose|picked|went with|settled on)\b|"
    r"\b(?:using|uses|use) \S+(?: \S+){0,4} (?:instead of|rather than|over) \S+(?: \S+){0,6} "
    r"(?:because|since|as|so)\b|\bin favou?r of\b",
    "chose|pick|agreed|opted|went|gone|decided|decision|settled|standardi|ended up|ending up|switched|migrated|replaced|stuck|stick|us|go with|going with|keep|adopt|choice|call|approach|route|option|design|in favo",
)
# A config value chosen (``settingvalues``): from an old value ("Lowered the threshold from 3.5
# to 3.0"), beside it with no verb ("Entropy threshold: 3.5 → 3.0"), or with its reason.
SETTING_CHANGED = cue(settingvalues.CHANGED, settingvalues.CHANGED_GATE)
SETTING_ARROW = cue(settingvalues.ARROW, settingvalues.ARROW_GATE)
SETTING_CHOSEN = cue(settingvalues.CHOSEN, settingvalues.CHOSEN_GATE)
# "I <did X> instead of / rather than Y": a choice between two ways, stated as made.
CONTRAST = cue(r"\b(?:instead of|rather than|in place of)\b")
# The alternative first: "Rather than patching it, I upgraded …", "Instead of blocking commits,
# the hook now redacts the secrets": an actor, or a thing that now does otherwise.
CONTRAST_LEAD = cue(
    r"^(?:instead of|rather than)\b[^,]{3,120},\s*(?:(?:i|we)\b|(?:the |this |our )?"
    r"(?:[\w`.\ue000\ue001/-]+ ){1,4}now\b(?! (?:let|i|we)\b))"
)
# A change stated as the new state, with what it replaced ("All the scripts now use `python3`
# instead of `python`"): not a symptom ("the test now fails instead of passing") and not a
# sentence that opens on "Now" (a discourse word: "Now let me use X instead").
_SYMPTOM_VERB = (
    r"(?:\w+ )?(?:fails?|failing|errors?|crash\w*|hangs?|breaks?|times? out|throws?|raises?|"
    r"returns? (?:none|null|an? error|\d+)|shows?|prints?|gives?|skips?)\b"
)
_NOT_SYMPTOM = r"(?!(?:fail|crash|hang|error|break|time|throw|rais|pass|work)\w*\b)"
NOW_INSTEAD = cue(
    r"^(?!now\b|(?:i|we|you|let|then)\b)(?:[^\s,;]+ ){1,8}now (?:(?:also|only|always) )?"
    r"(?:uses?|points?|reads?|writes?|calls?|rel(?:y|ies)|depends?|imports?|targets?|stores?|"
    r"saves?|keeps?|goes|go|redacts?|warns?|logs?|loads?|sends?|ships?|installs?|lives?|"
    r"defaults?|lands?|prefers?|requires?|forwards?|routes?|resolves?|connects?|listens?|"
    r"binds?|serves?|syncs?|runs?|starts?|signs?|authenticates?|fetch(?:es)?|pulls?|"
    r"push(?:es)?|builds?|renders?|parses?|handles?|spawns?|launch(?:es)?|mounts?|exports?|"
    r"caches|checks?|matches|scans?|excludes?|includes?|skips?|blocks?|allows?|opens?) "
    r"(?:[^,;]+ )?(?:instead of|rather than|in place of) "
    + _NOT_SYMPTOM,
    "now",
)
# How a thing works, with the way it does not and why ("The applet reads RAPL directly rather
# than shelling out to `turbostat`, since it polls every 330 ms"): a design choice. Its subject
# names the thing; a symptom ("The test fails rather than skipping, since …") is none.
CONTRAST_REASONED = cue(
    r"^(?!(?:i|we|you|let|if|when|once|then|now|it|this|that|there)\b)(?:[^\s,;]+ ){1,6}?"
    r"(?!" + _SYMPTOM_VERB + r")[^\s,;]+s (?:[^,;]+ )?(?:instead of|rather than) " + _NOT_SYMPTOM
    + r"[^;]{1,100}?,? (?:because|since|so that|to avoid|to keep)\b",
    "instead of|rather than",
)
DONE_VERB = cue(
    r"\b(?:i|we)(?:'ve| have)? (?:used|made|kept|put|moved|split|changed|stored|modell?ed|went|set|"
    r"built|implemented|wrote|defined|chose|picked|added|switched|replaced|return(?:ed)?|"
    r"structured|designed|placed|handled|left)\b"
)
# Who did what before "instead of": a first-person actor with any verb but looking around
# ("I read the file instead of …" is narration), or a summary line opening on a past-tense verb.
LOOKING = (
    r"(?:read|checked|looked|ran|run|searched|grepped|tried|tested|inspected|opened|saw|found)"
)
ACTOR_ACT = cue(
    r"\b(?:i|we)(?:'ve|'m|'re| have| am| are)? (?!"
    + LOOKING
    + r"\b)(?:also |now |just )?\w+(?:ed|ing)\b|"
    r"\b(?:i|we)(?:'ve| have)? (?!" + LOOKING + r"\b)(?:made|kept|put|built|wrote|set|split|"
    r"chose|went|took|gave|left|let|held|drew|threw)\b|"
    r"^(?:went ahead and |also )?(?!" + LOOKING + r"\b)(?:used|made|kept|moved|stored|modell?ed|"
    r"switched|changed|split|put|wrapped|replaced|returned|implemented|built|wrote)\b"
)
# A change that sets how a thing behaves from now on (a summary's "Key changes" bullet):
# with its reason it is a choice ("Disabled SSR for the chart because it reads `window`").
CHANGE_VERB = (
    r"(?:disabled|enabled|removed|added|changed|replaced|switched|raised|lowered|increased|"
    r"decreased|reduced|limited|restricted|excluded|renamed|wrapped|turned (?:off|on)|"
    r"defaulted|forced|scoped|deferred|batched|allowlisted|whitelisted|bound|routed|pinned|"
    r"capped|dropped|skipped|moved|made|created|configured|installed|symlinked|linked|"
    r"registered|pointed|mounted|merged|consolidated|centrali[sz]ed)"
)
DESIGN_VERB = cue(
    r"\b(?:i|we)(?:'ve| have)? (?:moved|split|made|kept|put|stored|structured|designed|modell?ed|"
    r"separated|isolated|pulled|extracted|" + CHANGE_VERB[3:] + r"\b|"
    r"\bnow (?:uses|stores|returns|keeps)\b|^(?:also )?" + CHANGE_VERB + r"\b(?! (?:on|up|sure|"
    r"it|them|this|that)\b)|"
    # A summary's line with its subject left out: "Kept the v1 endpoint so old clients work",
    # "Made the workflows non-blocking so …" (not "Kept running into …", "Made sure …").
    r"^(?:also )?(?:moved(?! on\b)|migrated|split|separated|isolated|extracted|pinned|capped|"
    r"kept(?! \w+ing\b)|made (?:the |all |both |every )?(?:[\w`.\ue000\ue001/-]+ ){0,4}?"
    r"(?:non-\w+|optional|configurable|\w+-only|opt-in|opt-out|the default|idempotent))\b"
)
DESIGN_REASON = cue(
    r"\b(?:because|since|so that|to avoid|to keep|which keeps|to prevent|to stop|to ensure|"
    r"to make sure|to work around)\b|, so\b|"
    r"\bso (?!far\b|much\b|many\b|i\b|let\b|we\b)(?=(?:\S+ ){1,3}(?:can|can't|cannot|will|won't|"
    r"never|always|no longer|keeps?|stays?|works?|runs?|passes|goes|go|don't|doesn't|do not|"
    r"does not|isn't|aren't|is not|are not)\b)"
)
# A summary bullet's change with its why after a dash, a clause of its own ("Pinned `node` to 20
# — the addon doesn't build on 22"), not more of the change ("— added an install section", "—
# 12 new tests"). Its subject left out: Claude's own line ("I made an error - …") is none.
DASH_REASON = cue(
    r"\s[—–-]\s+(?!(?:\w+ed|also|and|plus|now|then)\b)(?:[^\s,;:]+ ){0,4}?(?:is|are|was|"
    r"were|has|had|does|doesn't|did|didn't|can't|cannot|won't|isn't|aren't|wasn't|weren't|"
    r"depends|needs|requires|breaks|fails|expects|would|will|only)\b"
)
SUMMARY_MOVE = cue(r"^(?:also )?(?:kept|pinned|capped|split|migrated|" + CHANGE_VERB[3:] + r"\b"
                   r"(?! (?:on|up|sure|it|them|this|that)\b)")
PREREQ_SETUP = cue(
    r"^(?:please |remember to |don'?t forget to |be sure to |first,? )?(?:install|set|export|start|"
    r"create|copy|configure|run|launch|bring up|log ?in|define|add)\b"
)
INFRA = (
    r"(?:docker|redis|postgres(?:ql)?|mysql|mongo(?:db)?|java|jdk|node(?:\.?js)?|python|ruby|"
    r"golang|rust|elasticsearch|kafka|rabbitmq|ffmpeg|compiler|chrom(?:e|ium)|a running|"
    r"(?:\S+ )?(?:server|daemon|cli|sdk|toolchain) (?:installed|running|configured))"
)
PREREQ = cue(
    r"\b(?:need|needs|require|requires|required|must have|must be|has to be|have to be|expects?|"
    r"depends? on)\b(?! (?:actually |also )?\w+ing\b).{0,80}(?<!before )(?<!after )(?<!when )"
    r"(?<!while )(?<!by )(?<!the )(?<!a )\b(?:set|exported|installed|running|started|"
    r"(?:(?<=be )|(?<=is )|(?<=are ))up|available|configured|"
    r"defined|present|logged in|on (?:the )?path|reachable|listening)\b|"
    r"\bmake sure (?:that )?.{1,80}\b(?:is|are)\s+(?:\w+ )?(?:running|installed|set|started|up|"
    r"exported|configured|available|reachable|listening)\b|"
    r"\b(?:you'?ll|you will|you) (?:need|have) to (?:install|set|export|start|run|have|create|"
    r"configure|log in|add)\b|\b(?:is|are) (?:required|needed) (?:for|to|by)\b|"
    r"\b(?:needs?|requires?|needed|required|expects?)\b (?:an? |the |at least )?(?:\S+ )?"
    + INFRA
    + r"\b|"
    r"\b(?:make sure|be sure|remember|don'?t forget)(?: to| that)? (?:you(?:'ve| have)? )?"
    r"(?:run|install|set|export|start|create|have|copy|configure|log in)\b|"
    r"\brequires? (?:python|node|postgres|postgresql|redis|docker|java|ruby|go|rust|a running|"
    r"an? \S+ (?:server|service|daemon|instance|database))\b|"
    r"\b(?:expects?|needs?|requires?) (?:an? |the )?\S+ (?:database|server|service|instance|"
    r"compiler|key|token|secret|account|bucket|queue|role|user)\b|"
    r"^before (?:running|starting|you run|you start|using|testing|deploying|building)\b|"
    r"\b(?:must|needs? to|has to|have to) be (?:installed|running|set|started|exported|configured|"
    r"listening|reachable)\b|\bprerequisites?\b|\b(?:apt(?:-get)?|brew|dnf|yum|apk) install\b|"
    r"\bonly (?:works|runs|passes) (?:with|when|if)\b|^without\b.{0,80}\b(?:installed|running|set|"
    r"on (?:the )?path|available)\b|\bunless\b.{0,80}\b(?:running|installed|set|exported)\b|"
    r"\b(?:needs?|requires?) (?:seed data|fixtures|a migration)\b",
    "need|require|must|has to|have to|expect|depend|make sure|you|before|prerequisite|apt|brew|dnf|yum|apk|only|without|unless|be sure|remember|forget",
)
NEEDED = cue(
    r"\b(?:must|need|needs|needed|require|requires|required|make sure|has to|have to|before|"
    r"without|unless|expects?|depends? on|otherwise|remember)\b"
)
# Needed and in a state only the environment can be in: no named service or tool required.
PREREQ_STRONG = cue(
    r"\b(?:need|needs|require|requires|required|must have|must be|has to be|have to be)\b"
    r"(?! (?:actually |also )?(?:running|installing|killing))"
    r".{0,80}(?<!before )(?<!after )(?<!when )(?<!while )(?<!by )(?<!the )(?<!a )"
    r"\b(?:installed|running|logged in|on (?:the )?path|listening on)\b|"
    r"\b(?:must|needs? to|has to|have to) be (?:installed|running|started|exported|listening)\b|"
    r"\b(?:to|must|should) have (?!to\b).{1,60}\b(?:installed|running|set up)\b"
)
# Claude talking about its own next move ("I need to rebuild before running") is no prerequisite.
SELF_NEED = cue(r"^(?:(?:first|now|but|so|ok(?:ay)?),? )?(?:i|i'll|i will) (?:need|have|must)\b")
NEEDED_STRONG = cue(
    r"\b(?:must|need|needs|needed|require|requires|required|make sure|has to|have to|expects?)\b"
)
NOT_NEEDED = cue(
    r"\b(?:no longer|don'?t|do not|doesn'?t|does not|won'?t) (?:need|have to|require)|"
    r"\bno need\b|\bnot (?:required|needed)\b|\bisn'?t (?:required|needed)\b"
)
ENV_VAR_RE = lazy(r"\$?\b[A-Z][A-Z0-9]*_[A-Z0-9_]*[A-Z0-9]\b")
CODE_ENV_RE = lazy(r"[A-Z][A-Z0-9]{3,}")
ENV_SUFFIX_RE = lazy(
    r"(?:_(?:URL|URI|DSN|KEY|SECRET|TOKEN|HOST|PORT|PATH|DIR|HOME|ID|PASSWORD|PASS|USER|ENV|"
    r"MODE|LEVEL|REGION|PROFILE|BUCKET|ENDPOINT|DB|DATABASE)|PASSWORD)$"
)
NOT_ENV_CONTEXT = cue(
    r"\b(?:constant|macro|enum|compile-time|#define|preprocessor|class|struct|column)\b"
)
ENV_CONTEXT = cue(
    r"\b(?:set|export(?:ed)?|env(?:ironment)?|variables?|shell|points? (?:at|to))\b|\.env\b"
)
NOT_ENV = frozenset(
    ("NULL", "TRUE", "FALSE", "NONE", "JSON", "YAML", "HTML", "HTTP", "HTTPS", "POST", "PATCH")
    + ("DELETE", "HEAD", "SELECT", "INSERT", "UPDATE", "WHERE", "FROM", "JOIN", "TODO", "FIXME")
    + ("NOTE", "UTF8", "ASCII", "UUID", "README", "LICENSE")
)
PREREQ_THING = cue(
    r"\b(?:redis|postgres(?:ql)?|mysql|mongo(?:db)?|docker(?: desktop)?|database|db|server|"
    r"service|daemon|env(?:ironment)? var(?:iable)?s?|python|node|npm|pnpm|yarn|ffmpeg|lib\S+-dev|"
    r"openssl|cli|toolchain|sdk|migrations?|\.env|api key|token|secret|credentials|stripe|"
    r"localstack|minio|rabbitmq|kafka|elasticsearch|chrome|chromium|playwright|browsers?|java|jdk|"
    r"ruby|gcc|compiler|extension|container|compose|mailhog|port \d+|"
    r"wheel|seed data|registry|alembic|uvicorn|worker|celery|broker|queue|apt(?:-get)?|brew|pip|createdb|psql|"
    r"(?:apt(?:-get)?|brew|dnf|yum|apk|pip|npm|cargo) install)\b"
)
# "requires `libpq-dev`": a named package or tool as the object of a need.
REQUIRES_CODE = cue(
    r"\b(?:requires?|needs?|depends? on) (?:an? |the )?`(?:lib[\w.+-]+-dev|[\w.+-]+-(?:cli|sdk)|"
    r"(?:apt(?:-get)?|brew|pip|npm) install [^`]+|docker|redis|postgres(?:ql)?|node(?:js)? ?\d*|"
    r"python ?3[\d.]*|ffmpeg|openssl|make|gcc)`"
)
# An order the environment imposes, as an imperative: "Start Redis before running the worker.",
# "Run `make migrate` first — the API tests expect the table."
PREREQ_ORDER = cue(
    r"^(?:always |please |remember to |be sure to )?(?:run|start|launch|install|apply|load|seed|"
    r"export|set|create|bring up|spin up|build|compile|generate|source|activate|migrate|pull)\b"
    r"(?:(?! before\b).){1,80} before (?:(?:you |we )?(?:run(?:ning)?|start(?:ing)?|"
    r"use|using|test(?:ing)?|launch(?:ing)?|deploy(?:ing)?|build(?:ing)?|open(?:ing)?|call(?:ing)?)\b|"
    r"(?:the|any|a) )|"
    r"^(?:always |please |remember to |be sure to )?(?:run|start|launch|install|apply|load|seed|"
    r"export|set|create|bring up|spin up|build|compile|generate|source|activate|migrate|pull)\b"
    r".{1,80} first(?=\s*(?:[,;:—–]|-\s|$))",
    "before|first",
)
# A rule for how code or configuration is written ("`server` needs to be configured as a list,
# not a single option"): a gotcha or convention, not something to have in the environment.
FORM_RULE = cue(
    r"\b(?:must|needs? to|has to|have to|should|is required to) be (?:set|configured|defined|"
    r"declared|written|passed|given|specified|formatted|stored|listed|spelled|encoded|quoted|"
    r"typed|added|entered|provided) (?:as|in) (?:an? |the )?(?:[\w-]+ ){0,2}?(?:list|array|"
    r"string|str|integer|int|number|float|boolean|bool|dict(?:ionary)?|map|mapping|object|table|"
    r"tuple|enum|literal|option|section|block|key|field|attribute|bytes|json|yaml|toml)s?\b",
    "must|need|has to|have to|should|required",
)
PREREQ_NARRATION = cue(
    r"\b(?:i|we)(?:'ve| have)? (?:set|installed|started|exported|added|configured|created)\b"
)


# ---- the table -------------------------------------------------------------------------------
@dataclass(frozen=True)
class Rules:
    """What decides one kind: a cue makes a sentence this kind unless a veto holds; a part only
    qualifies a cue (the actor before "instead of", the reason after a design move)."""

    cues: tuple[Cue, ...]
    vetoes: tuple[Cue, ...] = ()
    parts: tuple[Cue, ...] = ()


# Every kind's vetoes, before its own: tool narration, a hedge in the main clause, a sentence
# about what was listed before it.
SHARED_VETOES: tuple[Cue, ...] = (NARRATION, HEDGE, ANAPHORA)
TABLE: dict[Kind, Rules] = {
    Kind.QUESTION: Rules((QUESTION_OPEN, LET_ME_KNOW, ASK_USER, TO_USER),
                         (RESOLVED, COURTESY, OFFER)),
    Kind.NEXT_STEP: Rules((NEXT,), (NEXT_HEDGE,)),
    Kind.GOTCHA: Rules((GOTCHA, CAUSE_STATED, FIX_STATED, WRONG_USE, LIMITATION, FORM_RULE,
                        DIAGNOSED, TREATS, FLAW_NAMED, NO_NEED, HARMLESS, UNAVAILABLE, PRIVILEGED, NOTED,
                        OTHERWISE, GOTCHA_WEAK),
                       (TEST_INTENT,)),
    Kind.DECISION: Rules((DECISION, PASSIVE_CHOICE, PASSIVE_CHOSEN, KEPT_AS_IS, CONTRAST,
                          CONTRAST_LEAD, NOW_INSTEAD, CONTRAST_REASONED, DESIGN_VERB, SUMMARY_MOVE,
                          SETTING_CHANGED,
                          SETTING_ARROW, SETTING_CHOSEN), (NEXT_MOVE,),
                         (ACTOR_ACT, DONE_VERB, DESIGN_REASON, DASH_REASON)),
    Kind.PREREQUISITE: Rules(
        (PREREQ_ORDER, PREREQ, PREREQ_STRONG, PREREQ_SETUP, REQUIRES_CODE, NEEDED_STRONG),
        (NOT_NEEDED, SELF_NEED, PREREQ_NARRATION, NOT_ENV_CONTEXT),
        (NEEDED, PREREQ_THING, ENV_CONTEXT)),
}
