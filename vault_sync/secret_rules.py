"""The vendor secret formats the sanitizer knows, as data (DESIGN §8).

Each :class:`SecretFormat` is one row: the label it reports, a regex written from the vendor's
documented token format, the lowercase literals that must occur where a match starts (the
scrubber searches for them before it runs any regex: TECH-NOTES §9), and where the format is
documented. :mod:`vault_sync.sanitize` holds the mechanism that runs them; this module holds no
code beyond the table, so adding a vendor is adding a row (and a well-formed sample to
``tests/test_secret_rules.py``).

Pattern rules, checked for every row by ``tests/test_secret_rules.py``: every repeat bounded
(``{m,n}``, possessive where it can run long), no nested quantifiers, so matching is linear
(DESIGN §8); a match starts at one of the row's triggers (or ``back`` finds its start).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SecretFormat:
    """One vendor format.

    Attributes:
        label: the label written as ``[REDACTED:<label>]``.
        pattern: a regex, matched (not searched) at each trigger occurrence.
        triggers: lowercase ASCII literals, each where a match starts.
        source: where the format is documented (vendor page, RFC, or scanner rule).
        group: the regex group that is the secret (0: the whole match).
        before: characters that may not precede a match: ``"word"`` (``[A-Za-z0-9_]``),
            ``"word_dash"`` (and ``-``), ``"alnum"``, ``"digit"``, or ``""`` (anything).
        back: ``"digits"`` when the trigger follows the match start by a run of digits
            (a Telegram bot id before ``:A``); ``""`` when the trigger is the start.
        check: ``"not_hex"`` to refuse an all-hexadecimal secret (a git SHA); or ``""``.
    """

    label: str
    pattern: str
    triggers: tuple[str, ...]
    source: str
    group: int = 0
    before: str = ""
    back: str = ""
    check: str = ""


_PEM_END = r"-----END[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----"

#: Vendor formats in precedence order: a row's label wins an overlap over later labels.
VENDOR_FORMATS: tuple[SecretFormat, ...] = (
    # ghp_ (classic PAT), gho_ (OAuth), ghu_ (user-to-server), ghs_ (server-to-server), ghr_
    # (refresh) + 36 base62; github_pat_ (fine-grained) + 82 of [A-Za-z0-9_]. Lengths may grow
    # (up to 255). No left boundary: 36+ random characters after the prefix are a token even
    # glued to a word (`mytokenghp_…`, `#tagghp_…`), found by a fresh user.
    SecretFormat(
        "github_token",
        r"(?:gh[pousr]_[A-Za-z0-9]{36,251}+|github_pat_[A-Za-z0-9_]{36,244}+)(?![\w-])",
        ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
        "github.blog/2021-04-05-behind-githubs-new-authentication-token-formats",
    ),
    # sk-proj- / sk-svcacct- / sk-admin- / sk-None- + [A-Za-z0-9_-] (about 160 chars today),
    # legacy user keys sk- + 48 base62. sk-ant- never matches here.
    SecretFormat(
        "openai_key",
        r"sk-(?:(?:proj|svcacct|admin|None)-[\w-]{20,250}+|[A-Za-z0-9]{32,64}+)(?![\w-])",
        ("sk-",),
        "platform.openai.com/docs/api-reference/authentication; help.openai.com project keys",
        before="word_dash",
    ),
    # sk-ant-api03-… (API), sk-ant-admin01-… (admin), sk-ant-oat01-…; ~95 chars after.
    SecretFormat(
        "anthropic_key",
        r"sk-ant-[a-z]{2,8}[0-9]{2}-[\w-]{32,250}+(?![\w-])",
        ("sk-ant-",),
        "docs.anthropic.com/en/api/getting-started (API keys)",
        before="word_dash",
    ),
    # secret (sk_) and restricted (rk_) keys, live or test mode, up to 255 chars; webhook
    # signing secrets whsec_…. Publishable keys (pk_…) are public by design and left alone.
    SecretFormat(
        "stripe_key",
        r"(?:[sr]k_(?:live|test)_[A-Za-z0-9]{10,247}+|whsec_[A-Za-z0-9+/=]{24,128}+)(?![\w+/=])",
        ("sk_live_", "sk_test_", "rk_live_", "rk_test_", "whsec_"),
        "docs.stripe.com/keys",
        before="word",
    ),
    # Access key ids: AKIA (long-term) or ASIA (temporary, STS) + 16 upper-case base32. The id
    # alone is not a secret, but it pairs with one.
    SecretFormat(
        "aws_key",
        r"A(?:KIA|SIA)[A-Z0-9]{16}(?![A-Za-z0-9])",
        ("akia", "asia"),
        "docs.aws.amazon.com/IAM/latest/UserGuide/reference_identifiers.html (prefixes)",
        before="alnum",
    ),
    # Secret access key: 40 chars of base64, only after a name (credentials file, env, STS
    # JSON) ...
    SecretFormat(
        "aws_secret_key",
        r"(?i:aws_?secret_?(?:access_?)?key|secret_?access_?key)[\"']?[ \t]{0,8}"
        r"(?::|=>?)?[ \t]{0,8}[\"']?([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])",
        ("aws_secret", "awssecret", "secret_access", "secretaccess"),
        "docs.aws.amazon.com/cli/latest/userguide/cli-configure-files.html",
        group=1,
    ),
    # ... or within 120 chars after an access key id (CSV exports, `aws configure` notes). A
    # bare 40-char string may be a git SHA, so it is never taken alone, nor all-hex here.
    SecretFormat(
        "aws_secret_key",
        r"A(?:KIA|SIA)[A-Z0-9]{16}(?![A-Za-z0-9])[\s\S]{1,120}?"
        r"(?<![A-Za-z0-9/+=])([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])",
        ("akia", "asia"),
        "docs.aws.amazon.com/IAM/latest/UserGuide/id_credentials_access-keys.html",
        group=1,
        before="alnum",
        check="not_hex",
    ),
    SecretFormat(
        "google_api_key",
        r"AIza[\w-]{35}(?![\w-])",
        ("aiza",),
        "cloud.google.com/docs/authentication/api-keys",
        before="word_dash",
    ),
    # Access tokens ya29.… (up to 2048 bytes) and OAuth client secrets GOCSPX- + 28 chars.
    # Refresh tokens (1//0…) are not matched: their 3-char prefix is too weak on its own.
    SecretFormat(
        "google_oauth",
        r"(?:ya29\.[\w-]{20,2048}+|GOCSPX-[\w-]{28})(?![\w-])",
        ("ya29.", "gocspx-"),
        "developers.google.com/identity/protocols/oauth2 (token sizes)",
        before="word_dash",
    ),
    # xoxb- (bot), xoxp- (user), xoxa-/xoxo-/xoxs- (legacy), xoxr- (refresh), xapp- (app).
    SecretFormat(
        "slack_token",
        r"(?:xox[abposr]-[A-Za-z0-9-]{10,250}+|xapp-[0-9]-[A-Za-z0-9-]{10,250}+)(?![\w-])",
        ("xox", "xapp-"),
        "api.slack.com/authentication/token-types",
        before="word_dash",
    ),
    # Incoming-webhook URLs carry their secret in the path: keep the host, redact T…/B…/secret.
    SecretFormat(
        "slack_token",
        r"hooks\.slack\.com/services/(T[A-Z0-9]{6,16}/B[A-Z0-9]{6,16}/[A-Za-z0-9]{16,64})",
        ("hooks.slack.com",),
        "api.slack.com/messaging/webhooks",
        group=1,
    ),
    # Bot id (5-16 digits) ":" 35 chars of [A-Za-z0-9_-], in practice starting with "A";
    # often written after "bot" in API URLs, so a letter may precede the id.
    SecretFormat(
        "telegram_token",
        r"(?<![0-9])[0-9]{5,16}+:A[\w-]{34}(?![\w-])",
        (":a",),
        "core.telegram.org/bots/api#authorizing-your-bot",
        before="digit",
        back="digits",
    ),
    # JWS compact serialization: base64url header starting eyJ ('{"'), payload starting ey,
    # signature (empty for alg "none").
    SecretFormat(
        "jwt",
        r"eyJ[\w-]{8,4096}+\.ey[\w-]{8,8192}+\.[\w-]{0,4096}+(?![\w-])",
        ("eyj",),
        "RFC 7519; RFC 7515 §7.1",
        before="word_dash",
    ),
    # PEM private keys (OpenSSH's "OPENSSH PRIVATE KEY"; RSA/EC/DSA/ENCRYPTED variants; PGP
    # "PRIVATE KEY BLOCK"): the whole block from BEGIN to END. A block with no END (cut
    # short) loses its header and base64 lines.
    SecretFormat(
        "private_key",
        r"-----BEGIN[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----"
        r"(?:(?:[^-]|-(?!----)){0,65536}+" + _PEM_END + r"|"
        r"(?:[ \t]{0,8}\r?\n[ \t]{0,8}[A-Za-z0-9+/=]{16,128}+){0,2048}+)",
        ("-----begin",),
        "RFC 7468 §10-11; RFC 4880 §6.2 (PGP)",
    ),
)
