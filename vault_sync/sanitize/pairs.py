"""Secrets named in prose, and a user and password after a credential label (label
``env_secret``).

The name rules (:mod:`.names`) read ``NAME=value`` and ``name: value``; two more kinds kept
their value (audit of issue 17's leftovers):

- a ``user:password`` pair after a credential label: ``creds: admin:Tr0ub4dor3``,
  ``login - bob:hunter2x!``, ``DB_CREDENTIALS="app:S3cr3t!pw"``, ``credentials are
  deploy / Xk2!pLq9`` — the whole pair is redacted (a user name tells which account the
  password opens). The password must read as one (:func:`_password_like`), so ``auth:
  oauth2:client_credentials``, ``login: https://…`` and ``account: aws/prod`` stay;
- a secret's noun, then ``is`` or ``was`` (and ``now``, ``set to``, a ``:`` or ``=``), then a
  value: ``The HMAC secret is 9fA2kQ7xLp3Rt8Zv``, ``the signing key was K9d!fj2LqpZ``, ``my
  wifi password is sunset42``. The value must read as generated (:func:`_secret_like`: a
  digit and a letter with both cases or a symbol, or 16+ hexadecimal digits), so ``the key
  is rotated every month``, ``the token is v2.3.1-beta`` and ``the secret is out`` stay.

Each pattern starts at its trigger, every repeat bounded (linear time: each attempt reads at
most a few hundred characters, and :mod:`.search` never retries inside a span it took).
"""

from __future__ import annotations

import re

from vault_sync.placeholders import password_placeholder, placeholder, too_regular
from vault_sync.sanitize.rule import ALNUM, LazyPattern, Rule, Span

#: A credential label (any case, glued to more of a name by ``_`` or ``-``: ``db_creds``),
#: then an operator or ``is``/``are``/``was`` (markup or a quote may close the label).
_CRED_LABEL = (
    r"(?i:(?:user[ _-]?(?:name)?|log[io]n|e-?mail|account)[ \t]{0,2}/[ \t]{0,2}pass(?:word)?"
    r"|creds?|credentials?|log[io]ns?|auth|basic[ _-]auth|account)"
    r"(?:[ \t]{0,2}\([^()\n]{1,32}\))?[*_\"'\]]{0,3}"
    r"(?:[ \t]{0,8}[:=][*_]{0,3}[ \t]{0,8}|[ \t]{1,8}[-\u2013][ \t]{1,8}"
    r"|[ \t]{1,4}(?:is|are|was)[ \t]{1,8})[\"'`]?"
)
#: A user (a letter first: ``10:30`` is a time), ``:`` or ``/``, a password (groups 1-3).
_PAIR = _CRED_LABEL + r"([A-Za-z][\w.@+-]{0,127}+)[ \t]{0,2}([:/])[ \t]{0,2}([^\s\"'`]{4,256}+)"
#: A value's ASCII head: a non-ASCII letter ends it (``…731です``), as it ends a token.
_ASCII = re.compile(r"[\x21-\x7e]*")
#: Symbols that mark a password (not ``-``, ``_``, ``.``, ``/``: names and paths hold them).
_SYMBOLS = frozenset("!@#$%^&*+=~?")


def _password_like(value: str, slash: bool) -> bool:
    """A password after a user: 4+ characters, no placeholder, and a digit or a symbol among
    letters; after ``/`` (a path's separator too) a symbol, or digits and both cases."""
    if value[:1] in "/$%<{" or password_placeholder(value) or placeholder(value):
        return False
    letters = any(c.isalpha() for c in value)
    digits = any(c.isdigit() for c in value)
    symbol = any(c in _SYMBOLS for c in value)
    if slash:
        cases = any(c.isupper() for c in value) and any(c.islower() for c in value)
        return symbol or (letters and digits and cases)
    return (letters or symbol) and (digits or symbol)


def _pair_span(text: str, m: re.Match[str]) -> Span | None:
    """``creds: user:password``: the pair, when its password reads as one."""
    password = _ASCII.match(m.group(3)).group().rstrip(".,;)")  # type: ignore[union-attr]
    if len(password) < 4 or not _password_like(password, m.group(2) == "/"):
        return None
    return m.start(1), m.start(3) + len(password)


#: A secret's noun (a word of its own: not ``api_key``, which :mod:`.names` reads), perhaps
#: what it is for (``for prod``, ``of the admin account``: 1 to 4 words); then
#: ``is``/``was`` (with ``now``, ``still``, ``set to``, an operator); a quote; the value, to
#: a blank or a backslash (``correct.\\n3.`` in a JSON string is a sentence's end).
_NOUN = (
    r"(?i:(secret|key|token|password|passphrase|passcode|passwd|pswd|pword|pwd|pw|salt|pepper))"
    r"(?:[ \t]{1,4}(?i:for|of|on|to|in|at)(?:[ \t]{1,4}[^\s]{1,32}){1,4}?)?"
    r"[ \t]{1,4}(?i:is|was)(?:[ \t]{1,4}(?i:now|still|set[ \t]to|currently))?"
    r"(?:[ \t]{0,4}[:=])?[ \t]{1,4}[\"'`]?([^\s\"'`\\]{6,256}+)"
)
#: A password's noun, and its short forms (``my pw is …``: a fresh user's went through).
_PASSWORD_NOUNS = frozenset(
    {"password", "passphrase", "passcode", "passwd", "pswd", "pword", "pwd", "pw"}
)
_HEX = re.compile(r"[0-9a-fA-F]{16,}")


def _secret_like(value: str, password: bool) -> bool:
    """A value in prose that reads as a secret: 8+ characters mixing a digit and a letter
    with both cases or a symbol, or 16+ hexadecimal digits holding both; after a password's
    noun 6+ characters of letters and digits (``sunset42``) will do. No placeholder, nothing
    too regular (``abc123abc123``)."""
    if placeholder(value) or password_placeholder(value) or too_regular(value[:256]):
        return False
    letters = any(c.isalpha() for c in value)
    digits = any(c.isdigit() for c in value)
    if password:
        return letters and (digits or any(c in _SYMBOLS for c in value))
    if _HEX.fullmatch(value):
        return letters and digits
    cases = any(c.isupper() for c in value) and any(c.islower() for c in value)
    symbol = any(c in _SYMBOLS for c in value)
    return len(value) >= 8 and letters and digits and (cases or symbol)


def _noun_span(text: str, m: re.Match[str]) -> Span | None:
    """``the signing key is <value>``: the value, when it reads as a secret."""
    value = _ASCII.match(m.group(2)).group().rstrip(".,;:)")  # type: ignore[union-attr]
    password = m.group(1).lower() in _PASSWORD_NOUNS
    for head in (value, value.partition("/")[0]):  # `<key>/x`: a key before a path's slash
        if len(head) >= 6 and _secret_like(head, password):
            return m.start(2), m.start(2) + len(head)
    return None


def pair_rules() -> list[Rule]:
    """The rules of this module, in order: credential pairs, then secrets named in prose."""
    c = LazyPattern
    return [
        Rule(
            "env_secret",
            c(_PAIR),
            ("cred", "login", "logon", "auth", "user", "basic", "account", "email", "e-mail"),
            _pair_span,
            before=ALNUM,
        ),
        Rule(
            "env_secret",
            c(_NOUN),
            ("secret", "key", "token", "pass", "pw", "psw", "salt", "pepper"),
            _noun_span,
            before=ALNUM | {"_", "-", "."},
        ),
    ]
