"""Secrets known by a protocol's or a key file's syntax (fresh-user report 3, kind 2): HTTP
Basic credentials outside an ``Authorization`` header, a ``Cookie`` header's values, a
secret URL query parameter (an Azure SAS ``sig=``, a generic ``?key=`` / ``&token=``), a
PuTTY private key's lines and MAC.

Each pattern starts with its literal trigger and reads a bounded number of characters (each
attempt is linear). Part of :mod:`vault_sync.sanitize` (the structural rules,
:mod:`.structural`, include these).
"""

from __future__ import annotations

import base64
import binascii
import re

from vault_sync.placeholders import placeholder as _placeholder
from vault_sync.placeholders import random_looking as _random_looking
from vault_sync.sanitize.rule import ALNUM, LazyPattern, Rule, Span, capped_end, group

#: A decoded Basic credential: ``user:password`` (RFC 7617 §2), the user printable ASCII.
_USER_PASS = re.compile(rb"[\x21-\x39\x3b-\x7e]{1,128}:[\x20-\x7e]", re.ASCII)


def _basic_span(text: str, m: re.Match[str]) -> Span | None:
    """``Basic <base64>`` whose base64 decodes to ``user:password`` (RFC 7617): the base64.
    Prose (``Basic authentication``) does not decode to that shape."""
    value = m.group(1)
    try:
        decoded = base64.b64decode(value + "=" * (-len(value) % 4), validate=True)
    except (binascii.Error, ValueError):
        return None
    if not _USER_PASS.match(decoded):
        return None
    return m.span(1)


#: The rest of a cookie header past the pattern's cap.
_COOKIE_REST = re.compile(r"[^\r\n\"'`<>]*+")
_COOKIE_CAP = 4096
#: One ``name=value`` pair of a cookie header (RFC 6265 §4.2.1).
_COOKIE_PAIR = re.compile(r"[ \t]*([^=;\s]{1,256})=([^;\s]{1,4096})")


def _cookie_span(text: str, m: re.Match[str]) -> Span | None:
    """``Cookie: a=…; b=…`` (RFC 6265 §5.4) or ``Set-Cookie:``: the header's value, when
    one of its cookies' values reads as generated (a session id), else nothing."""
    start = m.start(1)
    end = capped_end(_COOKIE_REST, text, start, m.end(1), _COOKIE_CAP)
    value = text[start:end].rstrip()
    if not any(_random_looking(v.strip('"')) for _, v in _COOKIE_PAIR.findall(value[:_COOKIE_CAP])):
        return None
    return start, start + len(value)


#: Query parameters that carry a secret: an Azure Storage SAS signature (``sig``,
#: learn.microsoft.com "Create a service SAS"), an API key or token passed in the URL
#: (``key`` as Google Maps takes it, ``token``, ``access_token`` RFC 6750 §2.3, ``api_key``,
#: ``apikey``, ``secret``, ``password``).
_PARAMS = r"sig|signature|key|api_key|apikey|token|access_token|secret|client_secret|password"
#: The parameters' name endings (``api_key=`` ends in ``key=``): 6 substring scans of a
#: page, not one per parameter and lead (20 cost a fifth of the scrub).
_PARAM_TRIGGERS = ("sig=", "signature=", "key=", "token=", "secret=", "password=")
_PARAM_NAME = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_")


def _param_start(text: str, at: int) -> int:
    """Where a query parameter whose name ends at the trigger ``at`` starts: its ``?`` or
    ``&``, before at most 16 name characters (else ``at``, where the pattern fails)."""
    i, low = at, max(0, at - 16)
    while i > low and text[i - 1] in _PARAM_NAME:
        i -= 1
    return i - 1 if i and text[i - 1] in "?&" else at


_QUERY_REST = re.compile(r"[^&#\s\"'<>\[\]()`]*+")


def _query_span(text: str, m: re.Match[str]) -> Span | None:
    """A secret query parameter's value: 16+ characters that read as generated (percent
    escapes read as generated characters), not a placeholder."""
    value = m.group(1)
    plain = re.sub(r"%[0-9A-Fa-f]{2}", "0", value[:512])
    if len(plain) < 16 or _placeholder(value) or not _random_looking(plain):
        return None
    return m.start(1), capped_end(_QUERY_REST, text, m.start(1), m.end(1), 2048)


def _putty_span(text: str, m: re.Match[str]) -> Span | None:
    """A PuTTY key file's private lines (``Private-Lines: N`` and the base64 lines after
    it), without the newline after the last one; flattened onto one line (a query, a title)
    the lines of 16+ characters after it (the full leak audit found them kept)."""
    block = m.group(1).rstrip()
    block = block.removesuffix("\\n").removesuffix("\\r").rstrip()  # a `\n` escape ending it
    return (m.start(1), m.start(1) + len(block)) if block else None


def protocol_rules() -> list[Rule]:
    """The rules of this module, in order (labels ``auth_header``, ``url_credentials``,
    ``private_key``)."""
    c = LazyPattern
    return [
        # HTTP Basic credentials anywhere (a log line, a note: `the header was Basic …`).
        Rule(
            "auth_header",
            c(r"(?i:basic)[ \t]{1,8}([A-Za-z0-9+/]{8,1024}={0,2})(?![\w+/=-])"),
            ("basic",),
            _basic_span,
            before=ALNUM,
        ),
        # A Cookie / Set-Cookie header (curl -H 'Cookie: …', a browser's copied request).
        Rule(
            "auth_header",
            c(r"(?i:(?:set-)?cookie)[\"']?[ \t]{0,8}:[ \t]{0,8}([^\r\n\"'`<>]{1,4096}+)"),
            ("cookie",),
            _cookie_span,
            before=ALNUM,
        ),
        # A secret in a URL's query (SAS `&sig=`, `?key=`, `&token=`, `&access_token=`).
        Rule(
            "url_credentials",
            c(rf"[?&](?i:{_PARAMS})=([^&#\s\"'<>\[\]()`]{{1,2048}}+)"),
            _PARAM_TRIGGERS,
            _query_span,
            back=_param_start,
        ),
        # PuTTY key files (.ppk, PuTTY's "PPK file format" in its manual, appendix C): the
        # private lines after `Private-Lines: N`, and the MAC after `Private-MAC:`; lines
        # parted by newlines, or by `\n` escapes (a key kept in a JSON or YAML string).
        Rule(
            "private_key",
            c(
                r"(?i:private-lines):[ \t]{0,8}[0-9]{1,4}"
                r"(?:[ \t]{0,8}(?:\r?\n|(?:\\r)?\\n)|[ \t]{1,8})"
                r"((?:[ \t]{0,8}[A-Za-z0-9+/=]{4,256}+[ \t]{0,8}(?:\r?\n|(?:\\r)?\\n|\Z)"
                r"|[A-Za-z0-9+/=]{16,256}+(?:[ \t]{1,8}|\Z)){1,4096}+)"
            ),
            ("private-lines:",),
            _putty_span,
        ),
        Rule(
            "private_key",
            c(r"(?i:private-mac):[ \t]{0,8}([0-9a-fA-F]{32,128}+)(?![\w-])"),
            ("private-mac:",),
            group(1),
        ),
    ]
