"""Cues of a caveat an answer states (pure): a tool's limit, what a named thing does to what it
is given, a note Claude flags as such. Gotcha cues of :data:`vaultmem.mining.kinds.TABLE`, kept
apart so that the vocabulary module stays one concern a screen can hold."""

from __future__ import annotations

from vaultmem.mining.cue import cue

# A tool's limitation stated as fact: "`.gitleaksignore` doesn't support wildcards". The subject
# names the thing (not I, we, you or a pronoun read alone), the verb is present tense.
LIMITATION = cue(
    r"^(?!(?:i|we|you|it|this|that|these|those|they|there|he|she|which|nothing|none|since|"
    r"because|if|when|as|although|though|while|unless|once)\b)(?!.*\b(?:yet|unless)\b)(?:\S+ ){1,5}(?:doesn'?t|does not|don'?t|do not|can'?t|cannot|won'?t|will not)"
    r" (?:\w+ )?(?:support|accept|allow|expand|recogni[sz]e|understand|honou?r|respect|follow|"
    r"resolve|handle|parse|take|expose|keep|provide|include|persist|preserve|survive|inherit|"
    r"propagate|pick up|load|trigger|fire|ship|come with|(?:work|run)(?= (?:with|on|under|in|"
    r"inside|behind|across|without|from|through|over)\b))s?\b(?= \S)",
    "support|accept|allow|expand|recogni|understand|honor|honour|respect|follow|resolve|handle|"
    "parse|take|expose|keep|provide|include|persist|preserve|survive|inherit|propagate|pick up|"
    "load|trigger|fire|ship|come with|work|run",
)
# What a named thing does to what it is given, in the present: "Claude Code ignores hooks defined
# outside `settings.json`", "The API only accepts ISO dates", "Tailwind purges classes built by
# string concatenation". The subject names the thing (no pronoun, no clause opening).
TREATS = cue(
    r"^(?!(?:i|we|you|it|this|that|these|those|they|there|he|she|which|nothing|none|since|"
    r"because|if|when|as|although|though|while|unless|once|now|then|also|just)\b)"
    r"(?:\S+ ){1,5}(?:(?:silently|always|still) )?(?:ignores|rejects|strips|truncates|overwrites|"
    r"discards|swallows|purges|caches|resets|escapes|lowercases|dedupes|only (?:accepts|supports|"
    r"reads|loads|sees|matches|applies|allows|looks at|checks|fires|triggers))\b(?= \S)",
    "ignores|rejects|strips|truncates|overwrites|discards|swallows|purges|caches|resets|escapes|"
    "lowercases|dedupes|only",
)
# A caveat Claude flags as such: "**Note:** the token expires after an hour, so …", "Important:
# `filter-repo` drops the `origin` remote", "Keep in mind that …", "Unfortunately, Linux does not
# expose …". What follows the flag is a statement, not Claude's own move ("Note: I left …" is
# read by the other rules) nor an address to the person ("Note: you can …" is hedged). A flag
# that names no trap ("Note:", "Important:", "Insight:") before what a thing uses, handles or
# supports, with no limit or condition ("Security Note: Hyper-V uses a Type-1 hypervisor"), or
# what it handles gracefully ("Note: the hook gracefully handles a missing gitleaks"), states a
# fact, not a trap.
_FLAGGED_AS = (r"\s*[:—–]\s*(?!(?:i|we|i'm|i've|i'll|i'd|we've|we'll|we're|let's|let me|my|our|"
               r"please|you|you'll|you're|you've|your|this|that|these|those|it|it's|they|"
               r"there)\b)(?=(?:\S+ ){3})")
_NO_TRAP = (r"(?:not|no|never|only|must|unless|otherwise|but|however|until|without|\w+n'?t|"
            r"cannot|when|if|whether)")
_DESCRIBED = (r"(?!(?:(?!" + _NO_TRAP + r"\b)\S+ ){1,4}(?:(?:gracefully|safely|cleanly) handles\b|"
              r"(?:\w+ly )?(?:uses|supports|provides|includes|contains|offers|integrates)\b"
              r"(?:(?!\b" + _NO_TRAP + r"\b)(?:[^.;]|\.(?=\S)))*[.;]?\s*$))")
NOTED = cue(
    r"^(?:[^\w\s]+ ?)?(?:(?:important|security|side|quick|one|final|key|technical) )?"
    r"(?:warning|caution|caveat|heads[- ]up|gotcha|limitation|known (?:issue|limitation))s?"
    + _FLAGGED_AS + r"|"
    r"^(?:[^\w\s]+ ?)?(?:(?:important|security|side|quick|one|final|key|technical) )?"
    r"(?:note|nb|important|key (?:insight|finding|learning|takeaway)|insight|"
    r"lessons?(?: learned)?)s?" + _FLAGGED_AS + _DESCRIBED + r"|"
    r"^(?:(?:please )?note|keep in mind|be aware|remember|bear in mind|worth noting|it'?s worth "
    r"noting) that (?!(?:i|we)\b)|"
    r"^unfortunately,? (?!(?:i|we|i'm|i've|i'll|we've|let|there's nothing|nothing)\b)(?!.*\bstill\b)",
    "note|important|warning|caution|caveat|heads|gotcha|limitation|known|insight|lesson|"
    "finding|learning|takeaway|keep in mind|be aware|remember|bear in mind|worth noting|"
    "unfortunately",
)
# What names no step ("No changes needed: …", "no need to worry", "you don't need to do
# anything"): a status or a comfort, not a step said to be unneeded.
_VAGUE = (r"(?:changes?|actions?|fix(?:es)?|further|more|other|additional|extra|work|updates?|"
          r"edits?|anything|nothing|that|this|it|them|worry|panic|do (?:anything|that|this|it)|"
          r"be (?:concerned|worried))\b")
# A step said to be unneeded, with why: "You don't need `bun install`: Bun resolves the imports at
# run time", "tmux isn't needed here, since Claude Code keeps the session". Without a reason it
# says nothing ("No need to restart."); Claude's own need ("I don't need to …") is no caveat.
NO_NEED = cue(
    r"^(?!(?:i|we|i'll|we'll|i'm|we're|let)\b)(?:(?:there'?s|there is) )?no need (?:for|to) "
    r"(?!" + _VAGUE + r")[^,:;—–]{3,80}(?:[,:;—–]| - | because\b| since\b| as\b)\s*(?:\S+ ){2}\S|"
    r"^no (?!" + _VAGUE + r")(?:\S+ ){1,4}(?:needed|required|necessary)(?: (?:here|anymore|at all))?"
    r"(?:[,:;—–]| - )\s*(?:\S+ ){2}\S|"
    r"^(?!(?:i|we|it|this|that|which|nothing)\b)(?:\S+ ){1,6}(?:isn'?t|is not|aren'?t|are not)"
    r" (?:\w+ )?(?:needed|required|necessary)(?: (?:here|anymore|any more|at all))?"
    r"(?:[,:;—–]| - | because\b| since\b| as\b)\s*(?:\S+ ){2}\S|"
    r"^(?:you )?(?:don'?t|do not|doesn'?t|does not) need (?!(?:to )?" + _VAGUE + r")(?:to )?"
    r"[^,:;—–]{3,80}"
    r"(?:[,:;—–]| - | because\b| since\b| as\b)\s*(?:\S+ ){2}\S|"
    r"^since\b[^,]{10,120}, (?:(?:there'?s|there is) no need|(?:you|it) (?:don'?t|doesn'?t) "
    r"need|\S+(?: \S+){0,4} (?:isn'?t|is not|aren'?t|are not) (?:needed|required|necessary))\b",
    "need|required|necessary",
)
# A fault put as what it is, then stated: "This is a known limitation of WSL2: file watching
# doesn't work across the boundary", "It's a macOS quirk: `sudo` can't prompt without a TTY".
FLAW_NAMED = cue(
    r"^(?:this|that|it)(?:'s| is| was) (?:an? )?(?:known |documented |common |well-known |"
    r"long-standing |platform )?(?:[\w`.\ue000\ue001/+-]+ ){0,3}(?:limitation|quirk|bug|gotcha|"
    r"restriction|caveat|behaviou?r)(?: (?:of|in|with) (?:[\w`.\ue000\ue001/+-]+ ?){1,4})?"
    r"\s*(?:[:—–]| - )\s*(?!(?:i|we|let)\b)(?:\S+ ){3}\S",
    "limitation|quirk|bug|gotcha|restriction|caveat|behavior|behaviour",
)
# A rule with what breaks without it: "The statusline script has to be executable, otherwise
# Claude Code shows nothing". Claude's own move ("I need to …, otherwise …") is none.
OTHERWISE = cue(
    r"^(?!(?:i|we|you|let|then|now|first|so|it|this|that|there)\b)(?:\S+ ){1,8}(?:must|"
    r"has to|have to|needs? to) (?!be (?:the|a|an|that|this|it|because|due|caused|related|"
    r"coming|something|somewhere)\b)(?:\S+ ){1,8}?\S+(?:[,;—–]| -)\s*(?:or else|otherwise)\b,? (?:\S+ ){2}\S",
    "otherwise|or else",
)
# An error or warning said to be expected or harmless ("These fork errors are cosmetic and don't
# affect functionality", "The `bun install` error is expected: there is no manifest", "The
# findings in `Archives/` are false positives"): what not to chase next time.
_HARMLESS_SAID = (
    r"(?:errors?|warnings?|failures?|messages?|notices?|banners?|findings?|alerts?|exit codes?|"
    r"output|noise|spam)(?: \S+){0,4} (?:is|are|was|were) (?:(?:just|only|all|purely|entirely|"
    r"completely) )?(?:expected|harmless|benign|cosmetic|safe to ignore|false positives?|a false "
    r"positive|noise)\b"
)
HARMLESS = cue(
    r"^(?!(?:i|we|you|let|if|when|once|since|because|it|they)\b)"
    r"(?:(?:the|all|both|any|these|those|this|that) )?(?:"
    # Either its subject names the thing (code, a name: "The `bun install` error is expected")
    r"(?=.[^.]*?(?-i:[A-Z0-9\ue000])[^.]*? (?:is|are|was|were) )(?:\S+ ){0,5}" + _HARMLESS_SAID
    # or a word says which and why follows ("These fork errors are cosmetic and don't affect
    # the build"; not "The errors are harmless").
    + r"|(?:\S+ ){0,4}(?!(?:the|all|both|any|these|those|this|that|such)\b)\S+ " + _HARMLESS_SAID
    + r"(?:\s*(?:[:—–,;]|-\s)|\s+(?:and|because|since|from|so|as|when|on|in|unless)\b)\s*\S)",
    "expected|harmless|benign|cosmetic|safe to ignore|false positive|noise",
)
# What a platform or release lacks: "`timeout` isn't available on macOS", "`proxy-dns` was
# removed in cloudflared 2025.9". The subject names the thing (no pronoun, not Claude).
UNAVAILABLE = cue(
    r"^(?!(?:i|we|you|it|this|that|these|those|they|there|which|nothing|none|let)\b)"
    r"(?:\S+ ){1,6}(?:isn'?t|is not|aren'?t|are not|wasn'?t|was not) (?:\w+ )?(?:available|"
    r"supported|included|shipped|installed by default|present by default) (?:on|in|under|with|"
    r"for|by default|out of the box)\b|"
    r"^(?!(?:i|we|you|it|this|that|these|those|they|there|which|nothing|none|let)\b)"
    r"(?:\S+ ){1,6}(?:was|were|has been|have been|is|are) (?:deprecated|removed|dropped|renamed) "
    r"(?:in|as of|since|from|after) (?:\S+ )?v?\d",
    "available|supported|included|shipped|installed by default|present by default|deprecated|"
    "removed|dropped|renamed",
)
# What only a privilege or a terminal allows: "Firewall logging requires admin rights", "The
# rustup installer needs an interactive terminal", "Cannot enable the fan mode without sudo",
# "`brew` refuses to run as root". Claude's own need ("I need sudo to …") is none.
_PRIVILEGE = (r"(?:sudo|root|admin(?:istrator)?(?: rights| privileges| access)?|elevat\w+|"
              r"(?:an? )?(?:interactive )?(?:terminal|tty)|(?:a )?password prompt|"
              r"full disk access)")
PRIVILEGED = cue(
    r"^(?!(?:i|we|you|let|it|this|that|there|which)\b)(?:\S+ ){1,6}(?:needs?|requires?|"
    r"must (?:be )?run (?:with|as|from|in)|only (?:works|runs) (?:with|as|from|in)) "
    r"(?:\S+ ){0,1}" + _PRIVILEGE + r"\b|"
    r"^(?!(?:i|we|you|let)\b)(?:\S+ ){0,5}(?:cannot|can'?t|can not|won'?t) (?:\S+ ){1,6}without "
    r"(?:\S+ ){0,1}" + _PRIVILEGE + r"\b|"
    r"^(?!(?:i|we|you|let|it|this|that|there|which)\b)(?:\S+ ){1,5}(?:refuses? to|won'?t|"
    r"cannot|can'?t|must not|should not|shouldn'?t) (?:be )?run (?:as|with) (?:root|sudo)\b",
    "sudo|root|admin|elevat|terminal|tty|password|full disk access",
)
