"""Structural rules: a secret known by the syntax around it — URL userinfo, an HTTP
``Authorization`` header, a bearer token, a Kubernetes ``kind: Secret`` manifest, the path of
a credential file — plus, in precedence order among them, the name-keyed rules of :mod:`.names`.
"""

from __future__ import annotations

import bisect
import functools
import re

from vault_sync.placeholders import placeholder as _placeholder
from vault_sync.placeholders import random_looking as _random_looking
from vault_sync.sanitize.apart import apart_rules
from vault_sync.sanitize.arglists import arglist_rules
from vault_sync.sanitize.callargs import call_rules
from vault_sync.sanitize.commands import command_rules
from vault_sync.sanitize.hashes import hash_rules
from vault_sync.sanitize.locators import locator_rules
from vault_sync.sanitize.names import name_rules
from vault_sync.sanitize.pairs import pair_rules
from vault_sync.sanitize.protocols import protocol_rules
from vault_sync.sanitize.rule import (
    ALNUM,
    WORD,
    WORD_DASH,
    LazyPattern,
    Rule,
    Span,
    after_token,
    capped_end,
)
from vault_sync.sanitize.shellcreds import shell_rules
from vault_sync.sanitize.spaced import spaced_rules
from vault_sync.sanitize.syntax import syntax_rules
from vault_sync.sanitize.tokencli import token_cli_rules

#: A URL password past the pattern's cap of 256: the rest of it, then ``@`` and a host.
_URL_REST = re.compile(r"[^\s/?#@\[\]<>\"'`]*+@(?=[\w\[])")


def _url_span(text: str, m: re.Match[str]) -> Span | None:
    """``scheme://user:password@host``: redact ``user:password``, keep scheme and host (a
    password of 256+ characters: on to the ``@`` after its rest, issue 14)."""
    if _placeholder(m.group(2)):
        return None
    if m.end(2) - m.start(2) < 256:
        return m.start(1), m.end(2)
    rest = _URL_REST.match(text, m.end(2))
    return (m.start(1), rest.end() - 1) if rest else None


def _token_user_span(text: str, m: re.Match[str]) -> Span | None:
    """``scheme://TOKEN@host``: a user name that reads as generated is a token."""
    return m.span(1) if _random_looking(m.group(1)) else None


_SCHEMES = r"basic|bearer|token|digest|negotiate|ntlm|apikey|aws4-hmac-sha256|hmac|otp"
#: Schemes whose credentials are a comma-separated parameter list (RFC 9110 §11.4, AWS SigV4).
_MULTIPART = frozenset({"digest", "aws4-hmac-sha256", "hmac"})
#: Their rest of the value runs over double quotes: Digest quotes its parameters
#: (`username="u", response="…"`, RFC 7616 §3.4), so stopping at one left `response` unredacted.
_REST_OF_VALUE = re.compile(r"[^\r\n'<>\[\]`]*+")
#: How much of a credential the patterns read (bounded repeats keep each attempt linear); a
#: value that reaches its cap is redacted on to its end (:func:`~.rule.capped_end`).
_AUTH_CAP = 1024
_BEARER_CAP = 4096
_AUTH_REST = re.compile(r"[^\s\"'<>\[\]`]*+")
_BEARER_REST = re.compile(r"[\w.~+/=-]*+")


def _auth_span(text: str, m: re.Match[str]) -> Span | None:
    """``Authorization: [scheme] credentials``: redact the credentials (for Digest and SigV4,
    the parameter list to the end of the value)."""
    scheme, first = m.group(1), m.group(2)
    if scheme:  # after a scheme word, anything token-like is the credential
        ok = (len(first) >= 8 and not first.isalpha()) or _random_looking(first)
        ok = ok and not _placeholder(first)
    else:  # no scheme: a URL is not a credential (a token inside one has its own rules);
        # and a value our own token cuts short was judged whole by the scrub that wrote the
        # token: judging its remainder again made a second scrub redact what the first kept
        # (`Authorization: maps?key=[REDACTED:google_api_key]…`, the slow property run)
        cut = text.startswith("[REDACTED:", m.end(2))
        ok = "://" not in first and not cut and _random_looking(first)
    if not ok:
        return None
    if scheme and scheme.lower() in _MULTIPART:
        return m.start(2), _REST_OF_VALUE.match(text, m.end(2)).end()  # type: ignore[union-attr]
    return m.start(2), capped_end(_AUTH_REST, text, m.start(2), m.end(2), _AUTH_CAP)


def _bearer_span(text: str, m: re.Match[str]) -> Span | None:
    value = m.group(1)
    ok = _random_looking(value) or (len(value) >= 20 and not value.isalpha())
    if not ok or _placeholder(value):
        return None
    return m.start(1), capped_end(_BEARER_REST, text, m.start(1), m.end(1), _BEARER_CAP)


def _path_span(text: str, m: re.Match[str]) -> Span | None:
    """Extend a credential file name back over its directory part (``~/…``, ``/home/x/…``)."""
    start = m.start()
    if after_token(text, start):
        return None
    if m.group(1) is not None and (not start or text[start - 1] not in WORD_DASH):
        return None  # ".pem" with no file name before it is prose about the extension
    if m.group(1) is None and start and text[start - 1] in WORD:
        return None  # "my_id_rsa_notes"
    if text.startswith("id_", start) and not text.endswith("/", 0, start):
        return None  # "it writes id_ed25519": a file's name in prose, not a path to it
    low = max(0, start - 256)
    i = start
    while i > low and text[i - 1] not in " \t\r\n\"'`<>()[]{},;=|*":
        i -= 1
    return i, m.end()


#: A ``data:`` or ``stringData:`` key and its block of ``name: value`` lines (matched at the key).
_K8S_DATA = (
    r"(?:data|stringData):[ \t]{0,8}\r?\n"
    r"((?:[ \t]{1,16}[\w.-]{1,253}:[^\r\n]{0,8192}+(?:\r?\n|\Z)){0,1024}+)"
)
#: One more line of such a block, however long: the pattern reads at most 1,024 lines of
#: 8,192 characters (bounded repeats keep each attempt linear); a block that goes on is
#: redacted on to its end (issue 14: a longer line, or a 1,025th, was left in clear).
_K8S_LINE = re.compile(r"[ \t]{1,16}[\w.-]{1,253}:[^\r\n]*+(?:\r?\n|\Z)")
#: A ``kind: Secret`` key (anywhere: a redaction can only remove one, never make one, so the
#: any-kind test below stays idempotent), and where one YAML document ends and the next
#: begins: a ``---`` / ``...`` marker followed by a blank or the line's end (YAML 1.2 §9.1.4;
#: ``-----BEGIN OPENSSH PRIVATE KEY-----`` is none: read as one, the key that a first pass
#: redacted had cut one document in two, and the second pass redacted more) or a Markdown
#: code fence.
_K8S_KIND = re.compile(r"kind:[ \t]{0,8}[\"']?Secret\b")
_DOC_BREAK = re.compile(r"^(?:(?:---|\.\.\.)(?=[ \t\r\n]|\Z)|```|~~~)", re.MULTILINE)


def _yaml_key(text: str, at: int) -> bool:
    """The key at ``at`` begins its line (after indentation or a list dash): not ``metadata:``."""
    i = at
    low = max(0, at - 32)
    while i > low and text[i - 1] in " \t":
        i -= 1
    if i > low and text[i - 1] == "-":
        i -= 1
        while i > low and text[i - 1] in " \t":
            i -= 1
    return i == 0 or text[i - 1] == "\n"


@functools.lru_cache(maxsize=2)
def _manifest_map(text: str) -> tuple[list[int], list[int]]:
    """Offsets of the ``kind: Secret`` lines and of the document breaks of ``text``: two scans
    per text that holds a ``data:`` key, whatever the number of keys."""
    kinds = [m.start() for m in _K8S_KIND.finditer(text)] if "Secret" in text else []
    return kinds, [m.start() for m in _DOC_BREAK.finditer(text)] if kinds else []


def _secret_data_key(text: str, at: int) -> bool:
    """A ``data:`` / ``stringData:`` key at ``at`` that begins its line, in the same YAML
    document as a ``kind: Secret`` (before or after it, as ``kubectl`` writes them). Checked
    before the pattern runs, so the keys of other documents cost no attempt (a run of them
    cost one read of up to 1,024 lines each)."""
    if not _yaml_key(text, at):
        return False
    kinds, breaks = _manifest_map(text)
    if not kinds:
        return False
    i = bisect.bisect_right(breaks, at)
    low = breaks[i - 1] if i else 0
    high = breaks[i] if i < len(breaks) else len(text)
    first = bisect.bisect_left(kinds, low)
    return first < len(kinds) and kinds[first] < high


def _kubernetes_span(text: str, m: re.Match[str]) -> Span | None:
    """The ``data:`` / ``stringData:`` block of a Secret (:func:`_secret_data_key`): every
    value in it (base64, or plain for ``stringData``) is a secret, so the whole block is
    redacted, on past the pattern's caps to its end. Every such block of a document is
    redacted, so a second pass finds nothing new (idempotent)."""
    end = m.end(1)
    while end < len(text) and (line := _K8S_LINE.match(text, end)) and line.end() > end:
        end = line.end()
    block = text[m.start(1) : end].rstrip()
    return (m.start(1), m.start(1) + len(block)) if block else None


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


def structural_rules() -> list[Rule]:
    """Every rule after the vendor ones, in precedence order (:data:`~.rule.STRUCTURAL_LABELS`)."""
    c = LazyPattern
    return [
        # URL userinfo (RFC 3986 §3.2.1, deprecated for passwords but still written):
        # scheme://user:password@host — the user part may be empty (redis://:pw@host).
        Rule(
            "url_credentials",
            c(
                r"://([^\s/?#@:\[\]<>\"'`]{0,256}+):([^\s/?#@\[\]<>\"'`]{1,256}+)"
                r"(?:@(?=[\w\[])|(?=[^\s/?#@\[\]<>\"'`]))"
            ),
            ("://",),
            _url_span,
        ),
        # A token as the URL's user, no password: `https://TOKEN@github.com/o/r.git` (the
        # form GitHub and Gitea document for a token; fresh-user report 4, F6).
        Rule(
            "url_credentials",
            c(r"://([\w.~-]{16,256}+)@(?=[\w\[])"),
            ("://",),
            _token_user_span,
        ),
        # HTTP Authorization header (RFC 9110 §11.6.2) in curl lines, code and logs:
        # "Authorization: <scheme> <credentials>".
        Rule(
            "auth_header",
            c(
                r"(?i:authorization)[\"']?[ \t]{0,8}[:=][ \t]{0,8}[\"']?"
                rf"(?:((?i:{_SCHEMES}))[ \t]{{1,8}})?([^\s\"'<>\[\]`]{{1,1024}}+)"
            ),
            ("authorization",),
            _auth_span,
        ),
        # OAuth 2.0 bearer token (RFC 6750 §2.1, b64token syntax) outside a header.
        Rule(
            "bearer_token",
            c(r"(?i:bearer)[ \t]{1,8}([\w.~+/=-]{8,4096}+)"),
            ("bearer",),
            _bearer_span,
            before=ALNUM,  # flagbearer
        ),
        *hash_rules(),
        *protocol_rules(),
        *name_rules(),
        *locator_rules(),
        *pair_rules(),
        *syntax_rules(),
        *call_rules(),
        *shell_rules(),
        *apart_rules(),
        *spaced_rules(),
        *command_rules(),
        *arglist_rules(),
        *token_cli_rules(),
        # Kubernetes Secret manifests (kubernetes.io/docs/concepts/configuration/secret).
        Rule(
            "kubernetes_secret",
            c(_K8S_DATA),
            ("data:", "stringdata:"),
            _kubernetes_span,
            pre=_secret_data_key,
        ),
        # Well-known credential files (not their public halves): ~/.aws/credentials,
        # ~/.ssh/id_{rsa,dsa,ecdsa,ed25519}[_sk] (not .pub), .netrc/_netrc, .pgpass,
        # .git-credentials, and key bundles *.pem, *.p12, *.pfx, *.ppk. Not *.key: it is also
        # Keynote's extension and `event.key` in code. The whole path is redacted.
        Rule(
            "credential_path",
            c(
                r"(?:\.aws/credentials|id_(?:rsa|dsa|ecdsa|ed25519)(?:_sk)?(?!\.pub)|[._]netrc"
                r"|\.pgpass|\.git-credentials|\.(pem|p12|pfx|ppk))(?![\w.-])"
            ),
            _CREDENTIAL_FILE_TRIGGERS,
            _path_span,
        ),
    ]
