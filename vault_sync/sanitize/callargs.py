"""A user and password given to a call as two string arguments (label ``env_secret``;
fresh-user report 5, finding 3).

Code in transcripts passes credentials by position, with no name before the password:
``requests.get(url, auth=("admin", "X"))``, ``HTTPBasicAuth("admin", "X")`` (requests),
``new NetworkCredential("admin", "X")`` (.NET), ``DriverManager.getConnection(url, "root",
"X")`` (JDBC), ``req.SetBasicAuth("admin", "X")`` (Go net/http), ``server.login("me@corp",
"X")`` (smtplib, ftplib, imaplib), ``Authenticator(...)``, ``login_user("u", "X")``.

The rule: a call (or ``auth=`` tuple) whose name says so — it holds ``auth``, ``login``,
``credential`` or ``conn`` (``getConnection``, ``connect``) — then ``(`` and, after at most
one other argument (a URL or host, a name or a string), a pair of string literals: a user (no blank)
then a password. The password is redacted when it is one: 4+ characters, no blank, not a
placeholder (:func:`~vault_sync.placeholders.password_placeholder`: ``"password"``,
``"<pass>"``, ``"${PW}"``), not a variable's name. ``login("Sign in", "Enter your password")``
stays (blanks). Each attempt reads a few hundred characters (linear time). Part of
:mod:`vault_sync.sanitize`.
"""

from __future__ import annotations

import re

from vault_sync.placeholders import password_placeholder
from vault_sync.sanitize.rule import LazyPattern, Rule, Span

#: A string literal (groups: quote, text), bounded.
_STRING = r"(?P<q{n}>[\"'])(?P<s{n}>[^\"'\r\n]{{0,256}})(?P=q{n})"
#: One argument before the pair: a string, or a name / attribute / index / URL variable.
_FIRST = r"(?:[\"'][^\"'\r\n]{0,256}[\"']|[\w.\[\]$@]{1,64})"
#: The call: its name's word (the trigger), the rest of the name, ``(`` (or ``=(`` for a
#: keyword argument: ``auth=(…)``); then the arguments.
_CALL = (
    r"(?i:auth|login|credential|conn)[\w]{0,32}"
    r"(?:[ \t]{0,2}=[ \t]{0,2}|[ \t]{0,2})\([ \t]{0,4}"
    rf"(?:{_FIRST}[ \t]{{0,4}},[ \t]{{0,4}})?"
    + _STRING.format(n=1)
    + r"[ \t]{0,4},[ \t]{0,4}"
    + _STRING.format(n=2)
    + r"[ \t]{0,4}[,)]"
)


def _call_span(text: str, m: re.Match[str]) -> Span | None:
    """The password string's text, when the pair is a user and a password."""
    user, password = m.group("s1"), m.group("s2")
    if not user or any(c in user for c in " \t") or any(c in password for c in " \t"):
        return None
    if len(password) < 4 or password[0] in "$%{<" or password_placeholder(password):
        return None
    if password.isidentifier() and password.lower() == password and "_" in password:
        return None  # a name (`db_password`), not a value
    return m.span("s2")


def call_rules() -> list[Rule]:
    """The rule of the module docstring (one :class:`~.rule.Rule`)."""
    return [
        Rule(
            "env_secret",
            LazyPattern(_CALL),
            ("auth", "login", "credential", "conn"),
            _call_span,
            before=frozenset("0123456789"),
        )
    ]
