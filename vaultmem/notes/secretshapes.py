"""Secrets known by their shape: the prefixes and patterns of services' tokens (pure data).

detect-secrets' regex detectors (secretrules) cover AWS key ids, classic GitHub/GitLab/Slack/
Stripe/npm/PyPI tokens, JWTs, Twilio, SendGrid, Discord, Telegram, Square, Azure, IBM...; this
table adds the model vendors and the services it does not know (or knows in an older format).
Each pattern starts with a literal listed in a prefix tuple below: the pre-filter finds candidate
lines by ``str.find`` on those literals, so a pattern without one would never run (tests check).
"""

from __future__ import annotations

# The left edge keeps ``task-…`` from being read as ``sk-…`` and ``mask_live_`` as ``k_live_``.
_EDGE = r"(?<![A-Za-z0-9_-])"

# (kind, pattern), each anchored on a literal prefix.
VENDOR_PATTERNS: tuple[tuple[str, str], ...] = (
    ("anthropic", _EDGE + r"sk-ant-[A-Za-z0-9_-]{8,}"),
    ("openrouter", _EDGE + r"sk-or-v\d-[A-Za-z0-9]{16,}"),
    ("openai", _EDGE + r"sk-(?:proj|svcacct|admin|None)-[A-Za-z0-9_-]{16,}"),
    ("openai", _EDGE + r"sk-(?!ant-|or-)[A-Za-z0-9]{32,}"),
    ("google", _EDGE + r"AIza[0-9A-Za-z_-]{30,}"),
    ("google", _EDGE + r"GOCSPX-[A-Za-z0-9_-]{20,}"),
    ("google", _EDGE + r"ya29\.[0-9A-Za-z_-]{20,}"),
    ("huggingface", _EDGE + r"hf_[A-Za-z0-9]{30,}"),
    ("huggingface", _EDGE + r"api_org_[A-Za-z0-9]{30,}"),
    ("groq", _EDGE + r"gsk_[A-Za-z0-9]{20,}"),
    ("xai", _EDGE + r"xai-[A-Za-z0-9]{20,}"),
    ("replicate", _EDGE + r"r8_[A-Za-z0-9]{20,}"),
    ("perplexity", _EDGE + r"pplx-[A-Za-z0-9]{20,}"),
    ("fireworks", _EDGE + r"fw_[A-Za-z0-9]{20,}"),
    ("nvidia", _EDGE + r"nvapi-[A-Za-z0-9_-]{20,}"),
    ("jwt", _EDGE + r"eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*"),
    ("github", _EDGE + r"github_pat_[A-Za-z0-9_]{22,}"),
    ("github", _EDGE + r"gh[pousr]_[A-Za-z0-9]{20,}"),
    ("gitlab", _EDGE + r"gl(?:pat|dt|ft|soat|rt|cbt|imt|ptt|oas)-[A-Za-z0-9_-]{20,}"),
    ("stripe", _EDGE + r"[rs]k_(?:live|test)_[0-9a-zA-Z]{16,}"),
    ("stripe", _EDGE + r"whsec_[A-Za-z0-9+/=]{16,}"),
    ("slack", _EDGE + r"xox[a-z]-(?:[0-9]+-)*[A-Za-z0-9-]{10,}"),
    ("slack", _EDGE + r"xapp-\d-[A-Za-z0-9-]{20,}"),
    ("npm", _EDGE + r"npm_[A-Za-z0-9]{30,}"),
    ("pypi", _EDGE + r"pypi-[A-Za-z0-9_-]{40,}"),
    ("mailgun", _EDGE + r"key-[0-9a-zA-Z]{32}(?![0-9a-zA-Z])"),
    ("heroku", _EDGE + r"HRKU-[A-Za-z0-9_-]{20,}"),
    ("digitalocean", _EDGE + r"do[opr]_v1_[a-f0-9]{64}"),
    ("shopify", _EDGE + r"shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}"),
    ("atlassian", _EDGE + r"ATATT3[A-Za-z0-9_=-]{20,}"),
    ("linear", _EDGE + r"lin_api_[A-Za-z0-9]{30,}"),
    ("notion", _EDGE + r"ntn_[A-Za-z0-9]{30,}"),
    ("doppler", _EDGE + r"dp\.(?:pt|st|sa|ct|scim|audit)\.[A-Za-z0-9]{30,}"),
    ("figma", _EDGE + r"figd_[A-Za-z0-9_-]{30,}"),
    ("postman", _EDGE + r"PMAK-[a-f0-9]{24}-[a-f0-9]{34}"),
    ("sentry", _EDGE + r"sntry[su]_[A-Za-z0-9+/=_-]{30,}"),
    ("databricks", _EDGE + r"dapi[a-f0-9]{32}"),
    ("pulumi", _EDGE + r"pul-[a-f0-9]{40}"),
    ("grafana", _EDGE + r"gl(?:sa|c)_[A-Za-z0-9+/=_-]{30,}"),
    ("newrelic", _EDGE + r"NRAK-[A-Z0-9]{27}"),
    ("supabase", _EDGE + r"sbp_[a-f0-9]{40}"),
    ("planetscale", _EDGE + r"pscale_(?:tkn|pw|oauth)_[A-Za-z0-9_.-]{30,}"),
    ("age", _EDGE + r"AGE-SECRET-KEY-1[0-9A-Z]{58}"),
    ("azure", r"(?<![A-Za-z0-9_~.-])[A-Za-z0-9_~.-]{3}\dQ~[A-Za-z0-9_~.-]{31,34}"),
    ("square", _EDGE + r"EAAA[A-Za-z0-9_-]{60}"),
    ("flyio", _EDGE + r"fm[12]_[A-Za-z0-9+/=_-]{40,}"),
    ("discord", r"discord(?:app)?\.com/api/webhooks/\d+/([\w-]{40,})"),
    ("terraform", r"(?<![A-Za-z0-9])[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=-]{60,}"),
    ("vault", _EDGE + r"hv[sb]\.[A-Za-z0-9_-]{24,}"),
    ("sendgrid", _EDGE + r"SG\.[\w-]{16,}\.[\w-]{30,}"),
    # A signed URL's signature (an Azure SAS, an S3 or GCS presigned URL): the query value.
    ("azure", r"[?&]sig=([A-Za-z0-9%+/=]{20,})"),
    ("aws", r"X-Amz-(?:Signature|Security-Token)=([A-Za-z0-9%+/=_-]{20,})"),
    ("google", r"X-Goog-Signature=([0-9a-fA-F]{64,})"),  # both found by redact's _SHAPES
    # These four are found by redact's _SHAPES too (a literal too common for str.find).
    ("airtable", r"(?<![A-Za-z0-9])pat[A-Za-z0-9]{14}\.[a-f0-9]{64}"),
    ("notion", _EDGE + r"secret_[A-Za-z0-9]{43}(?![A-Za-z0-9])"),
    ("braintree", r"access_token\$production\$[0-9a-z]{12,20}\$[0-9a-f]{32}"),
    # A crypt(3) password hash (/etc/shadow, .htpasswd): bcrypt, md5/sha crypt, yescrypt, argon2.
    ("password-hash", (r"\$(?:2[abxy]?\$\d\d\$[./A-Za-z0-9]{53}"
                       r"|(?:1|5|6|apr1|md5)\$(?:rounds=\d+\$)?[./A-Za-z0-9]{1,16}\$[./A-Za-z0-9]{16,}"
                       r"|y\$[./A-Za-z0-9]+\$[./A-Za-z0-9]+\$[./A-Za-z0-9]{16,}"
                       r"|argon2(?:id|i|d)\$v=\d+\$[\w=,]+\$[A-Za-z0-9+/]+\$[A-Za-z0-9+/]{16,})")),
    ("bitbucket", _EDGE + r"ATBB[A-Za-z0-9_=.-]{24,}"),
    ("docker", _EDGE + r"dckr_(?:pat|oat)_[A-Za-z0-9_-]{20,}"),
    ("tailscale", _EDGE + r"tskey-(?:auth|client|api|scim|webhook)-[A-Za-z0-9]{4,}-[A-Za-z0-9]{16,}"),
    ("langsmith", _EDGE + r"lsv2_(?:pt|sk)_[a-f0-9]{32}_[a-f0-9]{10}"),
    ("pinecone", _EDGE + r"pcsk_[A-Za-z0-9_]{40,}"),
    ("1password", _EDGE + r"ops_eyJ[A-Za-z0-9_-]{40,}"),
    ("supabase", _EDGE + r"sb_secret_[A-Za-z0-9_-]{20,}"),
    ("render", _EDGE + r"rnd_[A-Za-z0-9]{24,}"),
    ("netlify", _EDGE + r"nfp_[A-Za-z0-9]{30,}"),
    ("dropbox", _EDGE + r"sl\.[A-Za-z0-9_-]{60,}"),
    ("google", _EDGE + r"1//0[A-Za-z0-9_-]{40,}"),  # an OAuth refresh token
    ("microsoft-teams", r"webhookb2/[^\s/]{1,200}/IncomingWebhook/([A-Za-z0-9]{32})"),
)

# Shapes the pre-filter (redact) looks for, for the detectors whose literal is too common for
# ``str.find``: (the literal it starts with, the shape). Each runs as its own regex: the regex engine then skips
# to the literal's occurrences (an alternation of them tries every position, 10-30 times
# slower); it is compiled only for a text that holds the literal.
CANDIDATE_SHAPES: tuple[tuple[str, str], ...] = (
    ("AC", r"AC[a-z0-9]{32}"), ("SK", r"SK[a-z0-9]{32}"), ("AP", r"AP[\dA-F][a-zA-Z0-9]{8}"),
    (".", r"\.[\w-]{6}\.[\w-]{27}"), (":", r":[\w-]{35}"), ("-us", r"-us\d"),
    ("k_", r"k_(?:live|test)_"), ("://", r"://[^\s/@]*:[^\s@]*@"), ("X-", r"X-(?:Amz|Goog)-S"),
    ("pat", r"pat[A-Za-z0-9]{14}\."), ("secret_", r"secret_[A-Za-z0-9]{43}"),
    ("access_token$production$", r"access_token\$production\$"),
    ("$", r"\$(?:2[abxy]?|1|5|6|apr1|md5|y|argon2(?:id|i|d))\$"),
    ("sl.", r"sl\.[A-Za-z0-9_-]{60}"),  # a Dropbox token ("ssl." is everywhere)
)

# Literal prefixes of the patterns above and detect-secrets' detectors, found in the text as it
# is (case-sensitive ones) or in its lowercase copy.
EXACT_PREFIXES = (
    "A3T", "ABIA", "ACCA", "AKIA", "ASIA", "GR1348941", "eyJ", "T3BlbkFJ", "SG.", "AKC",
    "AccountKey=", "PuTTY-User-Key", "PRIVATE KEY", "AIza", "GOCSPX-", "HRKU-", "ATATT3",
    "PMAK-", "NRAK-", "AGE-SECRET-KEY-", "Q~", "EAAA", ".atlasv1.", "ATBB", "1//0",
    "OpenVPN Static key", "-----BEGIN",
)
LOWER_PREFIXES = (
    "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "glpat-", "gldt-", "glft-", "glsoat-",
    "glrt-", "glcbt-", "glimt-", "glptt-", "gloas-", "xox", "xapp-", "hooks.slack.com",
    "_authtoken", "pypi-", "sq0csp-", "sk-", "hf_", "gsk_", "xai-", "r8_", "pplx-", "fw_",
    "nvapi-", "softlayer.com", "cloudant.com", "whsec_", "npm_", "key-", "_v1_", "shp",
    "lin_api_", "ntn_", "dp.", "figd_", "sntry", "dapi", "pul-", "glsa_", "glc_", "sbp_",
    "pscale_", "ya29.", "api_org_", "fm1_", "fm2_", "discord", "hvs.", "hvb.", "sig=",
    "dckr_", "tskey-", "lsv2_", "pcsk_", "ops_eyj", "sb_secret_", "rnd_", "nfp_",
    "webhookb2/",
)
