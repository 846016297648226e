"""Typed redaction: ``scrub(text) -> (text, findings)`` (DESIGN §8, Invariant 6).

Each secret is replaced by ``[REDACTED:<label>]``. A :class:`Finding` holds the label and the
offsets of the redacted span in the *input*, never the secret; callers turn offsets into lines
with :func:`line_of`.

Labels, in precedence order (:func:`labels`): vendor-specific formats first, then structural
shapes, then ``custom`` (config ``sanitize.extra_patterns``). Where two candidates overlap, the
earlier label wins, then the longer match; the loser keeps only the parts outside the winner
that still hold a letter or digit, so precedence decides the label but never un-redacts
anything. Examples:

- ``Authorization: Bearer ghp_…`` → ``Authorization: Bearer [REDACTED:github_token]`` (the
  header's credential is exactly the token, so ``auth_header`` has nothing left);
- ``https://deploy:ghp_…@github.com`` → ``https://[REDACTED:url_credentials]:[REDACTED:github_token]@github.com``;
- ``OPENAI_API_KEY="sk-…"`` → ``OPENAI_API_KEY="[REDACTED:openai_key]"``.

Config ``sanitize.allow`` entries (each used both as an RE2 regex, when it compiles, and as a
literal) protect what they cover: a candidate lying wholly inside an allow match is not
redacted, and no other candidate may redact over it either (so an allowed example token inside
an ``Authorization`` header stays whole). An allow match that only touches part of a candidate
does not protect it.

Properties (tested in ``tests/test_sanitize.py``): idempotent; never matches inside (or using the
text of) its own ``[REDACTED:…]`` tokens; never raises on ``str`` input (an invalid custom or
allow regex is skipped with a warning — ``load_config`` already rejects custom ones); linear
time: config patterns run on RE2 (:mod:`vault_sync.linear_regex`), and the built-in rules are
stdlib ``re`` patterns without nested quantifiers, every repeat bounded or possessive, and each
rule run only when one of its lowercase trigger literals occurs in the text (one cheap ``in``
scan per trigger, TECH-NOTES §9), so clean text costs a ``str.lower`` and a few substring
searches.
"""

from __future__ import annotations

import bisect
import functools
import logging
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from vault_sync.placeholders import placeholder as _placeholder
from vault_sync.placeholders import random_looking as _random_looking
from vault_sync.placeholders import too_regular
from vault_sync.secret_rules import SecretFormat, vendor_formats, vendor_labels

if TYPE_CHECKING:
    from vault_sync.config import Config
    from vault_sync.linear_regex import LinearPattern

logger = logging.getLogger(__name__)

#: The structural labels, tried after every vendor label, in precedence order (DESIGN §8).
STRUCTURAL_LABELS: tuple[str, ...] = (
    "url_credentials",
    "auth_header",
    "bearer_token",
    "env_secret",
    "api_key",
    "cli_credentials",
    "kubernetes_secret",
    "credential_path",
    "custom",
)


@functools.cache
def labels() -> tuple[str, ...]:
    """Every label, in precedence order (DESIGN §8): vendor labels (``secret_formats.toml``)
    first, then :data:`STRUCTURAL_LABELS`; the earlier label wins an overlap."""
    return (*vendor_labels(), *STRUCTURAL_LABELS)


@functools.cache
def _rank() -> dict[str, int]:
    return {label: rank for rank, label in enumerate(labels())}


#: Where a file name glues words: each part after one is scrubbed as if it began the name.
_NAME_GLUE = re.compile(r"[-_ .]")

#: A redaction token as written by :func:`scrub`; text inside one is never matched again.
TOKEN_RE = re.compile(r"\[REDACTED:[a-z_]{1,32}\]")


@dataclass(frozen=True)
class Finding:
    """One redaction: ``label`` and the ``[start, end)`` offsets of the secret in the input.

    Attributes:
        label: one of :func:`labels`.
        start: offset of the first redacted character in the input text.
        end: offset just past the last redacted character in the input text.
    """

    label: str
    start: int
    end: int


def line_of(text: str, offset: int) -> int:
    """Return the 1-based line of ``offset`` in ``text`` (for mapping findings to file lines)."""
    return text.count("\n", 0, max(0, offset)) + 1


# --- value checks shared by the structural rules -------------------------------------------

_WORD = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")
_WORD_DASH = _WORD | {"-"}
_ALNUM = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")

# --- rules -----------------------------------------------------------------------------------

Span = tuple[int, int]
_SpanFn = Callable[[str, "re.Match[str]"], "Span | None"]


@dataclass(frozen=True)
class _Rule:
    """One pattern, tried only where one of its triggers occurs.

    Attributes:
        label: the label of what it finds.
        regex: matched (``regex.match``) at each trigger occurrence, not searched.
        triggers: lowercase ASCII literals, each the start of a match of ``regex`` (found with
            ``bytes.find`` in a lowercased ASCII view: far cheaper than a regex scan,
            TECH-NOTES §9).
        span: checks a match and returns the span to redact, or ``None``.
        back: maps a trigger offset to where a match starts, for patterns whose literal is
            not their first character (default: the trigger offset itself).
        before: characters that may not precede a match (checked before the regex runs, so
            a run like ``eyJeyJeyJ…`` costs one attempt, not one per trigger).
        pre: a cheaper check of the text before the match start, run before the regex.
        dispatch: tried at the starts of long token-like runs (:data:`_RUN_MAP`) instead of by a
            search of the whole text for each trigger (most vendor formats: 150 more
            substring scans per page would triple the cost of scrubbing).
    """

    label: str
    regex: re.Pattern[str]
    triggers: tuple[str, ...]
    span: _SpanFn
    back: Callable[[str, int], int] | None = None
    before: frozenset[str] = frozenset()
    pre: Callable[[str, int], bool] | None = None
    dispatch: bool = False


def _whole(text: str, m: re.Match[str]) -> Span | None:
    """Redact the whole match."""
    return m.span()


def _group(index: int, check: Callable[[str], bool] | None = None) -> _SpanFn:
    """Redact one group, if its text passes ``check``."""

    def span(text: str, m: re.Match[str]) -> Span | None:
        value = m.group(index)
        if not value or (check is not None and not check(value)):
            return None
        return m.span(index)

    return span


def _digits_before(text: str, at: int) -> int:
    """Start of the (at most 16) digits just before ``at``: a Telegram bot id before ":A"."""
    low = max(0, at - 16)
    while at > low and text[at - 1] in "0123456789":
        at -= 1
    return at


def _not_hex(value: str) -> bool:
    return any(c not in "0123456789abcdefABCDEF" for c in value)


#: ``SecretFormat.before`` names -> the characters that may not precede a match.
_BEFORE: dict[str, frozenset[str]] = {
    "": frozenset(),
    "word": _WORD,
    "word_dash": _WORD_DASH,
    "alnum": _ALNUM,
    "digit": frozenset("0123456789"),
}
_BACK: dict[str, Callable[[str, int], int] | None] = {"": None, "digits": _digits_before}
_CHECK: dict[str, Callable[[str], bool] | None] = {"": None, "not_hex": _not_hex}


def _lead(chars: int) -> Callable[[str, int], int]:
    """A match starting ``chars`` characters before its trigger."""
    return lambda text, at: max(0, at - chars)


#: A token-like run: every dispatched vendor token lies in one (16+ characters of
#: ``[a-z0-9_.~$+/-]`` in the lowercased view, so base64 bodies stay whole; a space, quote,
#: ``=``, ``:`` ends it).
#: Found with ``bytes.translate`` (run characters -> ``a``, others -> space) and a search for
#: 16 ``a``: two C passes, ~1 GB/s, where a regex scan costs ~15 MB/s.
_RUN_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789_.~$+/-")
_RUN_MAP = bytes(ord("a") if chr(i) in _RUN_CHARS else ord(" ") for i in range(256))
_RUN_MIN = b"a" * 16
#: Where inside a run a dispatched token may start: after one of these (or at the run start).
_INNER_START = re.compile(r"[^a-zA-Z0-9]")


def _dispatchable(row: SecretFormat) -> bool:
    """Rows that need a boundary before them and whose triggers are run characters start at
    a run start or after a non-alphanumeric run character: no whole-text search needed."""
    return bool(
        row.before
        and not row.back
        and not row.lead
        and all(set(t) <= _RUN_CHARS and len(t) >= 2 for t in row.triggers)
    )


def _vendor_rule(row: SecretFormat) -> _Rule:
    """The rule of one row of :func:`~vault_sync.secret_rules.vendor_formats`."""
    check = _CHECK[row.check]
    back = _lead(row.lead) if row.lead else _BACK[row.back]
    dispatch = _dispatchable(row)
    # A token with a distinctive prefix glued after a dash is still the token (`notes-glpat-…`
    # file names); a short one is not (`desk-sk-…`).
    glued = dispatch and row.before == "word_dash" and min(map(len, row.triggers)) >= 4
    before = _WORD if glued else _BEFORE[row.before]
    span = _whole if row.group == 0 and check is None else _group(row.group, check)
    return _Rule(
        row.label,
        re.compile(row.pattern),
        row.triggers,
        span,
        back,
        before,
        dispatch=dispatch,
    )


def _vendor_rules() -> list[_Rule]:
    return [_vendor_rule(row) for row in vendor_formats()]


# Structural rules ------------------------------------------------------------------------------

#: A credential value in an assignment: "double-quoted", 'single-quoted' or bare.
#: A credential value: "double-quoted", 'single-quoted' or bare (a bare value may hold quotes
#: after its first character: YAML `token: ab"cd`), taken whole however long (4096: a line).
_VALUE = (
    r"(?:\"([^\"\r\n]{1,4096}+)\"|'([^'\r\n]{1,4096}+)'"
    r"|([^\s\"'`,;<>\[\]{}()][^\s`,;<>\[\]{}()]{0,4095}+))"
)
#: name ends with KEY/TOKEN/SECRET/PASSWORD/...; then an assignment operator of any common
#: syntax (`=`, `:`, `:=`, `=>`, `?=`, `||=`, `.=`, `<-`), or spaces after a `--flag`.
_ASSIGN = (
    r"(?i:(key|token|secret|passw(?:or)?d|passphrase|pwd))[\"'\]]{0,2}"
    r"(?:[ \t]{0,8}(?::=|=>|\?=|\|\|=|\.=|<-|=|:)[ \t]{0,8}|([ \t]{1,8}))" + _VALUE
)
#: Keywords that must follow another name part (`API_KEY`, `dbPwd`); bare `key:` is too common.
_NEEDS_PREFIX = frozenset({"key", "pwd"})
_PASSWORDS = frozenset({"password", "passwd", "passphrase", "pwd"})


_NAME_REVERSED = re.compile(r"[\w.-]*", re.ASCII)


def _name_before(text: str, start: int) -> str:
    """The identifier-ish name part just before ``start`` (at most 64 chars)."""
    window = text[max(0, start - 64) : start][::-1]
    return window[: _NAME_REVERSED.match(window).end()][::-1]  # type: ignore[union-attr]


#: Name parts before KEY/TOKEN that make the name a public identifier (issue 17 kind 5).
_PUBLIC_NAME = re.compile(
    r"(?i:public|pub|primary|foreign|sort|partition|cache|csrf|xsrf|idempotency|range|hash"
    r"|index|unique|composite|row)[_.-]?\Z"
)


def _assignment_name(text: str, at: int) -> bool:
    """The keyword at ``at`` ends a name: ``DB_PASSWORD``, ``apiToken``, ``client-secret``;
    not ``monkey``/``hotkey``, and not a bare ``key`` (``API``-key names go to ``api_key``)."""
    prefix = _name_before(text, at)
    head = text[at : at + 3].lower()
    if not prefix:
        return head not in _NEEDS_PREFIX
    if _PUBLIC_NAME.search(prefix):
        return False  # public_key, primaryKey, foreignKey, csrf-token, sortKey: not secrets
    last = prefix[-1]
    camel = text[at].isupper() and (
        last.islower() or last.isdigit() or text[at + 1 : at + 2].islower()  # AWSToken
    )
    if last.isalnum() and head in _NEEDS_PREFIX and not camel:
        return False  # monkey=, hotkey:, TURKEY= — the keyword is not a name part
    return not (head in ("key", "tok") and prefix.lower().rstrip("_.-").endswith("api"))


def _assignment_span(text: str, m: re.Match[str]) -> Span | None:
    """``NAME_TOKEN=value`` and friends: redact the value when it looks like one."""
    keyword = m.group(1)
    lower = keyword.lower()
    prefix = _name_before(text, m.start())
    index = m.lastindex or 0
    value = m.group(index)
    quoted = index in (3, 4)
    if m.group(2) is not None and not prefix.startswith("-"):
        return None  # `token value` is prose; `--token value` is a command line
    if not quoted and m.end() < len(text) and text[m.end()] in "([.":
        return None  # os.environ["X"], get_token(): code, not a value
    env_style = keyword.isupper() and (not prefix or prefix.upper() == prefix)
    if lower in _PASSWORDS:
        ok = (
            len(value) >= 4
            and not _placeholder(value)
            and (quoted or env_style or any(not c.isalpha() for c in value))
        )
    elif env_style:
        ok = len(value) >= 4 and not _placeholder(value)
    else:
        ok = _random_looking(value)
    return m.span(index) if ok else None


_API_KEY = (
    r"(?i:(api[ _.-]?(?:key|token)|apikey|access[ _-]?key))"
    r"[\"'\]]{0,2}(?:[ \t]{1,8}(?:is|was)[ \t]{1,8}|[ \t]{0,8}(?::=|=>|=|:)[ \t]{0,8}|[ \t]{1,8})"
    + _VALUE
)


def _api_key_span(text: str, m: re.Match[str]) -> Span | None:
    """``x-api-key: value``, ``--api-key value``, ``apiKey = "value"``: a random-looking value."""
    start = m.start()
    if start and text[start - 1].isalnum() and not m.group(1)[0].isupper():
        return None
    index = m.lastindex or 0
    value = m.group(index)
    if index == 4 and m.end() < len(text) and text[m.end()] in "([.":
        return None
    return m.span(index) if _random_looking(value) else None


def _url_span(text: str, m: re.Match[str]) -> Span | None:
    """``scheme://user:password@host``: redact ``user:password``, keep scheme and host."""
    if _placeholder(m.group(2)):
        return None
    return m.start(1), m.end(2)


_SCHEMES = r"basic|bearer|token|digest|negotiate|ntlm|apikey|aws4-hmac-sha256|hmac|otp"
#: Schemes whose credentials are a comma-separated parameter list (RFC 9110 §11.4, AWS SigV4).
_MULTIPART = frozenset({"digest", "aws4-hmac-sha256", "hmac"})
_REST_OF_VALUE = re.compile(r"[^\r\n\"'<>\[\]`]{0,1024}+")


def _auth_span(text: str, m: re.Match[str]) -> Span | None:
    """``Authorization: [scheme] credentials``: redact the credentials (for Digest and SigV4,
    the parameter list to the end of the value)."""
    scheme, first = m.group(1), m.group(2)
    if scheme:  # after a scheme word, anything token-like is the credential
        ok = (len(first) >= 8 and not first.isalpha()) or _random_looking(first)
        ok = ok and not _placeholder(first)
    else:
        ok = _random_looking(first)
    if not ok:
        return None
    if scheme and scheme.lower() in _MULTIPART:
        rest = _REST_OF_VALUE.match(text, m.end(2))
        return m.start(2), (rest.end() if rest else m.end(2))
    return m.span(2)


def _bearer_span(text: str, m: re.Match[str]) -> Span | None:
    value = m.group(1)
    ok = _random_looking(value) or (len(value) >= 20 and not value.isalpha())
    return m.span(1) if ok and not _placeholder(value) else None


def _after_token(text: str, start: int) -> bool:
    """Whether ``start`` follows one of our own ``[REDACTED:…]`` tokens directly.

    Redacting turns the characters before a match into ``]``; a rule that refuses a match
    glued to a word must refuse it glued to a token too, or a second pass would find what the
    first pass rightly left (``…key.pgpass`` -> ``[REDACTED:openai_key].pgpass``): scrubbing
    must be idempotent (found by the long hypothesis run).
    """
    if not text.endswith("]", 0, start):
        return False
    opening = text.rfind("[REDACTED:", max(0, start - 45), start)
    return opening >= 0 and TOKEN_RE.fullmatch(text, opening, start) is not None


def _path_span(text: str, m: re.Match[str]) -> Span | None:
    """Extend a credential file name back over its directory part (``~/…``, ``/home/x/…``)."""
    start = m.start()
    if _after_token(text, start):
        return None
    if m.group(1) is not None and (not start or text[start - 1] not in _WORD_DASH):
        return None  # ".pem" with no file name before it is prose about the extension
    if m.group(1) is None and start and text[start - 1] in _WORD:
        return None  # "my_id_rsa_notes"
    if text.startswith("id_", start) and not text.endswith("/", 0, start):
        return None  # "it writes id_ed25519": a file's name in prose, not a path to it
    low = max(0, start - 256)
    i = start
    while i > low and text[i - 1] not in " \t\r\n\"'`<>()[]{},;=|*":
        i -= 1
    return i, m.end()


def _user_password_span(text: str, m: re.Match[str]) -> Span | None:
    """``curl -u user:password``: the credentials, unless the password is a placeholder."""
    password = m.group(2)
    if len(password) < 4 or _placeholder(password) or password.startswith("$"):
        return None
    return m.start(1), m.end(2)


def _flag_value_span(text: str, m: re.Match[str]) -> Span | None:
    """``mysql -pSECRET``: a glued value, when it reads as generated."""
    return m.span(1) if _random_looking(m.group(1)) else None


#: ``kind: Secret`` ... a ``data:`` or ``stringData:`` block of ``name: value`` lines.
_K8S_DATA = re.compile(
    r"^[ \t]{0,16}(?:data|stringData):[ \t]{0,8}\r?\n"
    r"((?:[ \t]{1,16}[\w.-]{1,253}:[^\r\n]{0,8192}+(?:\r?\n|\Z)){1,1024}+)",
    re.MULTILINE,
)
_K8S_WINDOW = 8192


def _kubernetes_span(text: str, m: re.Match[str]) -> Span | None:
    """A Kubernetes Secret's ``data:`` block near its ``kind: Secret``: every value in it
    (base64, or plain for ``stringData``) is a secret, so the whole block is redacted."""
    data = _K8S_DATA.search(text, max(0, m.start() - _K8S_WINDOW), m.end() + _K8S_WINDOW)
    if data is None:
        return None
    return data.start(1), data.end(1) - len(data.group(1)) + len(data.group(1).rstrip())


_CREDENTIAL_FILE_TRIGGERS = (
    ".aws/",
    "id_rsa",
    "id_dsa",
    "id_ecdsa",
    "id_ed25519",
    ".netrc",
    "_netrc",
    ".pgpass",
    ".git-credentials",
    ".pem",
    ".p12",
    ".pfx",
    ".ppk",
)


def _structural_rules() -> list[_Rule]:
    c = re.compile
    return [
        # URL userinfo (RFC 3986 §3.2.1, deprecated for passwords but still written):
        # scheme://user:password@host — the user part may be empty (redis://:pw@host).
        _Rule(
            "url_credentials",
            c(r"://([^\s/?#@:\[\]<>\"'`]{0,256}+):([^\s/?#@\[\]<>\"'`]{1,256}+)@(?=[\w\[])"),
            ("://",),
            _url_span,
        ),
        # HTTP Authorization header (RFC 9110 §11.6.2) in curl lines, code and logs:
        # "Authorization: <scheme> <credentials>".
        _Rule(
            "auth_header",
            c(
                r"(?i:authorization)[\"']?[ \t]{0,8}[:=][ \t]{0,8}[\"']?"
                rf"(?:((?i:{_SCHEMES}))[ \t]{{1,8}})?([^\s\"'<>\[\]`]{{1,1024}}+)"
            ),
            ("authorization",),
            _auth_span,
        ),
        # OAuth 2.0 bearer token (RFC 6750 §2.1, b64token syntax) outside a header.
        _Rule(
            "bearer_token",
            c(r"(?i:bearer)[ \t]{1,8}([\w.~+/=-]{8,4096}+)"),
            ("bearer",),
            _bearer_span,
            before=_ALNUM,  # flagbearer
        ),
        # NAME_KEY=…, _TOKEN=…, _SECRET=…, PASSWORD=… (.env, shell `export`, YAML `name: value`,
        # JSON, code). Starts at the keyword (cheap literal-first scan); the name before it is
        # checked in Python. UPPER_CASE env names take any non-placeholder value; other names
        # need a random-looking value, so `sortKey: "priority"` and prose stay.
        _Rule(
            "env_secret",
            c(_ASSIGN),
            ("key", "token", "secret", "passw", "passphrase", "pwd"),
            _assignment_span,
            pre=_assignment_name,
        ),
        # A key-like token after an API-key-like name in any syntax: API_KEY=…, x-api-key: …,
        # --api-key …, "my API key is …".
        _Rule(
            "api_key",
            c(_API_KEY),
            ("api", "access"),
            _api_key_span,
        ),
        # Credentials on a command line: `curl -u user:password` (curl(1) --user), `mysql
        # -pPASSWORD` (mysql(1) --password).
        _Rule(
            "cli_credentials",
            c(r"(?:-u|--user)(?:[ \t]{1,8}|=)[\"']?([^\s\"':]{1,128}+):([^\s\"']{1,256}+)"),
            ("-u ", "-u=", "--user"),
            _user_password_span,
        ),
        _Rule("cli_credentials", c(r" -p([^\s\"']{8,256}+)"), (" -p",), _flag_value_span),
        # .NET / NuGet XML settings: <add key="ClearTextPassword" value="…" />.
        _Rule(
            "env_secret",
            c(
                r"key=\"[\w.:-]{0,64}(?i:password|secret|token|apikey|pwd)[\w.:-]{0,64}\""
                r"[ \t]{1,8}value=\"([^\"\r\n]{1,4096}+)\""
            ),
            ('key="',),
            _group(1, lambda v: len(v) >= 4 and not _placeholder(v)),
        ),
        # Kubernetes Secret manifests (kubernetes.io/docs/concepts/configuration/secret).
        _Rule(
            "kubernetes_secret",
            c(r"kind:[ \t]{0,8}[\"']?Secret\b"),
            ("kind:",),
            _kubernetes_span,
        ),
        # Well-known credential files (not their public halves): ~/.aws/credentials,
        # ~/.ssh/id_{rsa,dsa,ecdsa,ed25519}[_sk] (not .pub), .netrc/_netrc, .pgpass,
        # .git-credentials, and key bundles *.pem, *.p12, *.pfx, *.ppk. Not *.key: it is also
        # Keynote's extension and `event.key` in code. The whole path is redacted.
        _Rule(
            "credential_path",
            c(
                r"(?:\.aws/credentials|id_(?:rsa|dsa|ecdsa|ed25519)(?:_sk)?(?!\.pub)|[._]netrc"
                r"|\.pgpass|\.git-credentials|\.(pem|p12|pfx|ppk))(?![\w.-])"
            ),
            _CREDENTIAL_FILE_TRIGGERS,
            _path_span,
        ),
    ]


@functools.cache
def _builtin_rules() -> tuple[_Rule, ...]:
    """Compiled once, on first use (nothing is compiled at import time)."""
    return (*_vendor_rules(), *_structural_rules())


#: Bytes whose absence rules out every trigger containing them, tested first (memchr-fast);
#: then short strings rare in prose that each stand for several triggers (``.p``: ``.pem``,
#: ``.p12``, ``.pfx``, ``.ppk``, ``.pgpass``): one absent gate saves a scan of the text per
#: trigger, 47 -> 40 scans per page (12% of scrubbing the 10k-page benchmark vault).
_GATES = (b"_", b"-", b".", b":", b"/", b".p", b"id_", b"k_", b"netrc")


@functools.cache
def _plan() -> tuple[tuple[bytes, frozenset[bytes], tuple[_Rule, ...]], ...]:
    """(trigger, parents, rules) shortest first: each trigger is searched once for all its
    rules, and only when every gate byte and shorter trigger inside it is present."""
    rules: dict[bytes, list[_Rule]] = {gate: [] for gate in _GATES}
    for rule in _builtin_rules():
        for trigger in rule.triggers if not rule.dispatch else ():
            rules.setdefault(trigger.encode("ascii"), []).append(rule)
    order = sorted(rules, key=lambda t: (len(t), t))
    return tuple(
        (t, frozenset(p for p in order[:i] if p in t), tuple(rules[t])) for i, t in enumerate(order)
    )


@functools.cache
def _run_table() -> dict[bytes, tuple[tuple[bytes, tuple[_Rule, ...]], ...]]:
    """Dispatched rules by the first two bytes of their triggers: ``{b"gl": ((b"glpat-",
    rules), ...)}``."""
    by_trigger: dict[bytes, list[_Rule]] = {}
    for rule in _builtin_rules():
        for literal in rule.triggers if rule.dispatch else ():
            by_trigger.setdefault(literal.encode("ascii"), []).append(rule)
    table: dict[bytes, list[tuple[bytes, tuple[_Rule, ...]]]] = {}
    for trigger, rules in sorted(by_trigger.items()):
        table.setdefault(trigger[:2], []).append((trigger, tuple(rules)))
    return {key: tuple(value) for key, value in table.items()}


#: Labels whose whole match is structure, not a token to judge by its look.
_NOT_JUDGED = frozenset({"private_key", "kubernetes_secret", "credential_path"})


def _spared(label: str, text: str, span: Span) -> bool:
    """A match that is a placeholder by kind (:func:`~vault_sync.placeholders.too_regular`):
    ``ghp_xxxx…``, ``AKIAIOSFODNN7EXAMPLE``, ``T00000000/B00000000/XXXX…``."""
    return label not in _NOT_JUDGED and too_regular(text[span[0] : min(span[1], span[0] + 256)])


def _attempt(
    text: str, at: int, rules: tuple[_Rule, ...], resume: list[int], out: list[_Candidate]
) -> None:
    """Try each rule of a trigger found at ``at``; ``resume[i]``: where rule i last ended."""
    for i, rule in enumerate(rules):
        start = rule.back(text, at) if rule.back else at
        # no new attempt inside this rule's last redaction (already covered), so runs of
        # triggers (A_KEY=A_KEY=…) cost O(n), not O(n x longest repeat)
        if start < resume[i] or (
            start and rule.before and (text[start - 1] in rule.before or _after_token(text, start))
        ):
            continue
        if rule.pre is not None and not rule.pre(text, start):
            continue
        m = rule.regex.match(text, start)
        span = rule.span(text, m) if m else None
        if m and span and span[0] < span[1]:
            resume[i] = span[1]  # a spared placeholder is settled too: no retry inside it
            if _spared(rule.label, text, span):
                continue
            context = (min(m.start(), span[0]), max(m.end(), span[1]))
            out.append(_Candidate(_rank()[rule.label], *span, rule.label, context))


def _dispatched(text: str, view: bytes, out: list[_Candidate]) -> None:
    """The dispatched vendor rules, tried where a run or a part of one starts."""
    flat = view.translate(_RUN_MAP)
    pos = flat.find(_RUN_MIN)
    if pos < 0:
        return
    table = _run_table()
    resume: dict[bytes, list[int]] = {}
    while pos >= 0:
        end = flat.find(b" ", pos)
        end = len(flat) if end < 0 else end
        starts = [pos]
        starts.extend(j.end() for j in _INNER_START.finditer(text, pos, end - 15))
        for at in starts:
            for trigger, rules in table.get(view[at : at + 2], ()):
                if view.startswith(trigger, at):
                    _attempt(text, at, rules, resume.setdefault(trigger, [0] * len(rules)), out)
        pos = flat.find(_RUN_MIN, end)


# --- the scrubber ----------------------------------------------------------------------------


class _Spans:
    """Taken ``[start, end)`` offsets of a text, as a bitmap: marking and querying a span cost
    O(its length) in C, so many overlapping candidates stay linear (a sorted list with
    inserts would not)."""

    def __init__(self, size: int) -> None:
        self.bits = bytearray(size)

    def add(self, start: int, end: int) -> None:
        self.bits[start:end] = b"\x01" * (end - start)

    def overlaps(self, start: int, end: int) -> bool:
        return self.bits.find(1, start, end) >= 0

    def gaps(self, start: int, end: int) -> list[Span]:
        """Parts of ``[start, end)`` not taken."""
        out: list[Span] = []
        pos = self.bits.find(0, start, end)
        while pos >= 0:
            stop = self.bits.find(1, pos, end)
            stop = end if stop < 0 else stop
            out.append((pos, stop))
            pos = self.bits.find(0, stop, end) if stop < end else -1
        return out


@dataclass(frozen=True)
class _Candidate:
    """A match before precedence: redacted span, label, and the whole match as context."""

    rank: int
    start: int
    end: int
    label: str
    context: Span


def _covered(start: int, end: int, spans: list[Span]) -> bool:
    return any(a <= start and end <= b for a, b in spans)


def _trim(text: str, start: int, end: int) -> Span | None:
    """Shrink a leftover piece to its letters and digits; None if it has none."""
    while start < end and not text[start].isalnum():
        start += 1
    while end > start and not text[end - 1].isalnum():
        end -= 1
    return (start, end) if start < end else None


class Scrubber:
    """Scrubs text with the built-in rules plus a config's custom and allow patterns.

    Compile one per config and reuse it for every page: ``Scrubber.from_config(cfg).scrub(t)``.

    Args:
        extra_patterns: RE2 regexes (:mod:`vault_sync.linear_regex`: linear time, so a
            catastrophic pattern such as ``(a+)+$`` cannot hang a sync) redacted as ``custom``
            (the whole match, or the group named ``secret`` when the pattern has one). Ones
            RE2 refuses are skipped with a warning (``load_config`` already rejects them).
        allow: RE2 regexes or literals never redacted (see the module docstring); an entry
            RE2 cannot compile is a literal only.
    """

    def __init__(self, extra_patterns: Sequence[str] = (), allow: Sequence[str] = ()) -> None:
        self._custom = tuple(p for p in map(_compile, extra_patterns) if p is not None)
        self._allow_literals = tuple(a for a in allow if a)
        self._allow_regexes = tuple(p for p in map(_compile, self._allow_literals) if p)

    @classmethod
    def from_config(cls, config: Config) -> Scrubber:
        """Build from ``config.sanitize_extra_patterns`` and ``config.sanitize_allow``."""
        return cls(config.sanitize_extra_patterns, config.sanitize_allow)

    def scrub(self, text: str) -> tuple[str, tuple[Finding, ...]]:
        """Redact secrets in ``text``.

        Args:
            text: any text.

        Returns:
            The text with each secret replaced by ``[REDACTED:<label>]``, and the findings
            sorted by offset (offsets into ``text``). Clean text is returned as is.
        """
        candidates = self._candidates(text)
        if not candidates:
            return text, ()
        findings = self._resolve(text, candidates)
        if not findings:
            return text, ()
        parts: list[str] = []
        pos = 0
        for f in findings:
            parts.append(text[pos : f.start])
            parts.append(f"[REDACTED:{f.label}]")
            pos = f.end
        parts.append(text[pos:])
        return "".join(parts), findings

    def scrub_names(self, names: Sequence[str]) -> dict[str, str]:
        """Find names (file paths) that hold a secret, in one pass over all of them.

        Args:
            names: names without newlines (vault-relative paths).

        Returns:
            ``{name: redacted name}`` for each name with a finding; clean names are left out.
        """
        # A file name glues words with `-`, `_` or spaces (`notes-glpat-…`): each part after
        # one is also scrubbed on its own, as if it began the name.
        variants: list[tuple[int, int]] = []  # (name index, offset of the part in the name)
        for index, name in enumerate(names):
            variants.append((index, 0))
            stem = name.rfind("/") + 1
            variants.extend((index, m.end()) for m in _NAME_GLUE.finditer(name, stem))
        joined = "\n".join(names[i][at:] for i, at in variants)
        _, findings = self.scrub(joined)
        if not findings:
            return {}
        starts = [0]
        for i, at in variants:
            starts.append(starts[-1] + len(names[i]) - at + 1)
        found: dict[str, str] = {}
        for f in findings:
            i, at = variants[bisect.bisect_right(starts, f.start) - 1]
            name = names[i]
            whole = self.scrub(name)[0]
            if name not in found or found[name] == name:
                found[name] = whole if whole != name else name[:at] + self.scrub(name[at:])[0]
        return found

    def _candidates(self, text: str) -> list[_Candidate]:
        """Every rule match whose checks pass, before overlaps are resolved."""
        out: list[_Candidate] = []
        # One byte per character (non-ASCII -> "?"), so offsets match the text's; lowering
        # bytes is ~7x cheaper than str.lower() on non-ASCII text (and never changes length).
        view = text.encode("ascii", "replace").lower()
        absent: set[bytes] = set()
        for trigger, parents, rules in _plan():
            at = view.find(trigger) if absent.isdisjoint(parents) else -1
            if at < 0:
                absent.add(trigger)
                continue
            if not rules:  # a gate: its presence is all we need, not its ~10 places per page
                continue
            resume = [0] * len(rules)
            while at >= 0:
                _attempt(text, at, rules, resume, out)
                at = view.find(trigger, at + 1)
        _dispatched(text, view, out)
        rank = _rank()["custom"]
        for pattern in self._custom:  # RE2: linear time whatever the user wrote
            for whole, (s, e) in pattern.spans(text):
                if s < e:
                    out.append(_Candidate(rank, s, e, "custom", whole))
        return out

    def _resolve(self, text: str, candidates: list[_Candidate]) -> tuple[Finding, ...]:
        """Apply protection (own tokens, allow) and precedence; return findings by offset."""
        own = [m.span() for m in TOKEN_RE.finditer(text)] if "[REDACTED:" in text else []
        if own:  # a match that reads any of our own tokens, even as context, is ignored
            tokens = _Spans(len(text))
            for span in own:
                tokens.add(*span)
            candidates = [c for c in candidates if not tokens.overlaps(*c.context)]
        allow = self._allow_spans(text) if candidates and self._allow_literals else []
        allowed = [(c.start, c.end) for c in candidates if _covered(c.start, c.end, allow)]
        taken = _Spans(len(text))
        for span in own + allowed:
            taken.add(*span)
        found: list[Finding] = []
        for c in sorted(candidates, key=lambda c: (c.rank, c.start - c.end, c.start)):
            if not taken.overlaps(c.start, c.end):
                taken.add(c.start, c.end)
                found.append(Finding(c.label, c.start, c.end))
                continue
            for gap in taken.gaps(c.start, c.end):  # the loser keeps what the winner left
                piece = _trim(text, *gap)
                taken.add(*gap)  # punctuation trimmed off is settled too (keeps the map whole)
                if piece is not None:
                    found.append(Finding(c.label, *piece))
        found.sort(key=lambda f: f.start)
        return tuple(found)

    def _allow_spans(self, text: str) -> list[Span]:
        spans: list[Span] = []
        for literal in self._allow_literals:
            i = text.find(literal)
            while i >= 0:
                spans.append((i, i + len(literal)))
                i = text.find(literal, i + 1)
        for pattern in self._allow_regexes:
            spans.extend(whole for whole, _ in pattern.spans(text) if whole[1] > whole[0])
        return spans


def _compile(pattern: str) -> LinearPattern | None:
    """A config pattern, compiled with RE2 (linear time, issue 14); ``None`` if RE2 refuses it."""
    from vault_sync.linear_regex import compile_linear  # RE2 loads only when patterns exist

    try:
        return compile_linear(pattern)
    except ValueError as exc:
        logger.warning("sanitize: skipping invalid pattern %r: %s", pattern, exc)
        return None


@functools.lru_cache(maxsize=32)
def _scrubber(extra_patterns: tuple[str, ...], allow: tuple[str, ...]) -> Scrubber:
    return Scrubber(extra_patterns, allow)


def scrub(
    text: str, *, extra_patterns: Sequence[str] = (), allow: Sequence[str] = ()
) -> tuple[str, tuple[Finding, ...]]:
    """Replace each secret in ``text`` with ``[REDACTED:<label>]`` (DESIGN §8).

    Args:
        text: any text.
        extra_patterns: regexes redacted as ``custom``.
        allow: regexes or literals never redacted.

    Returns:
        ``(scrubbed text, findings)``; findings are sorted by ``start`` and hold offsets into
        ``text``, never the secret.
    """
    return _scrubber(tuple(extra_patterns), tuple(allow)).scrub(text)
