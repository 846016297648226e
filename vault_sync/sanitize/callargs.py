"""A user and password given to a call as two string arguments (label ``env_secret``;
fresh-user report 5, finding 3).

Code in transcripts passes credentials by position, with no name before the password:
``requests.get(url, auth=("admin", "X"))``, ``HTTPBasicAuth("admin", "X")`` (requests),
``new NetworkCredential("admin", "X")`` (.NET), ``new PasswordAuthentication("admin",
"X".toCharArray())`` (Java), ``ldap.simple_bind_s("cn=admin,…", "X")`` (an LDAP bind),
``DriverManager.getConnection(url, "root", "X")`` (JDBC), ``req.SetBasicAuth("admin",
"X")`` (Go net/http), ``server.login("me@corp", "X")`` (smtplib, ftplib, imaplib),
``Authenticator(...)``, ``login_user("u", "X")``.

The rule: a call (or ``auth=`` tuple) whose name says so — it holds ``auth``, ``login``,
``credential``, ``conn`` (``getConnection``, ``connect``) or ``bind`` (a bare ``bind`` wants
a DN, UPN or ``DOMAIN\\user`` as its user) — then ``(`` and, after at most one other
argument (a URL or host, a name or a string), a pair of string literals: a user (no blank)
then a password. The password is redacted when it is one: 4+ characters, no blank, not a
placeholder (:func:`~vault_sync.placeholders.password_placeholder`: ``"password"``,
``"<pass>"``, ``"${PW}"``), not a variable's name. ``login("Sign in", "Enter your password")``
stays (blanks). A second rule reads libcurl's option: ``curl_setopt($ch, CURLOPT_USERPWD,
"admin:X")`` and ``CURLOPT_PASSWORD, "X"`` (recheck 5). Each attempt reads a few hundred
characters (linear time). Part of :mod:`vault_sync.sanitize`.
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
    r"(?i:auth|login|credential|conn|bind)[\w]{0,32}"
    r"(?:[ \t]{0,2}=[ \t]{0,2}|[ \t]{0,2})\([ \t]{0,4}"
    rf"(?:{_FIRST}[ \t]{{0,4}},[ \t]{{0,4}})?"
    + _STRING.format(n=1)
    + r"[ \t]{0,4},[ \t]{0,4}"
    + _STRING.format(n=2)
    + r"(?:\.(?:toCharArray|getBytes|encode)\(\))?[ \t]{0,4}[,)]"
)
#: libcurl's credentials option (PHP ``curl_setopt``, C ``curl_easy_setopt``, pycurl
#: ``setopt``; curl.se/libcurl/c/CURLOPT_USERPWD.html): ``USERPWD, "user:password"`` (groups:
#: ``q``, ``user``, ``pw``) or ``CURLOPT_PASSWORD, "password"`` (``q2``, ``pw2``).
_CURL_OPT = (
    r"(?i:userpwd)[\"']?[ \t]{0,4},[ \t]{0,4}(?P<q>[\"'])(?P<user>[^\"':\s]{1,128}):"
    r"(?P<pw>[^\"'\r\n]{1,256})(?P=q)"
    r"|(?i:curlopt_password)[\"']?[ \t]{0,4},[ \t]{0,4}"
    r"(?P<q2>[\"'])(?P<pw2>[^\"'\r\n]{1,256})(?P=q2)"
)
#: What a bind call's user looks like when its name is a bare ``bind`` (``conn.Bind(…)``,
#: go-ldap): an LDAP DN (``cn=admin,…``), a UPN (``admin@corp``) or ``DOMAIN\\user``.
_BIND_USER = ("=", "@", "\\")


def _ldap_bind(text: str, at: int, user: str) -> bool:
    """A ``bind`` call at ``at`` is an LDAP bind: its name says so (``simple_bind``,
    ``ldap_bind``) or its user is a DN, UPN or ``DOMAIN\\user`` (:data:`_BIND_USER`)."""
    named = text[max(0, at - 8) : at].lower().endswith(("simple_", "ldap_"))
    return named or any(c in user for c in _BIND_USER)


def _call_span(text: str, m: re.Match[str]) -> Span | None:
    """The password string's text, when the pair is a user and a password."""
    user, password = m.group("s1"), m.group("s2")
    if not user or any(c in user for c in " \t") or any(c in password for c in " \t"):
        return None
    if m.group().lower().startswith("bind") and not _ldap_bind(text, m.start(), user):
        return None  # a bare bind("click", "handler"), not an LDAP bind
    if len(password) < 4 or password[0] in "$%{<" or password_placeholder(password):
        return None
    if password.isidentifier() and password.lower() == password and "_" in password:
        return None  # a name (`db_password`), not a value
    return m.span("s2")


def _curl_span(text: str, m: re.Match[str]) -> Span | None:
    """The password of libcurl's option, when it is one (as :func:`_call_span`)."""
    group = "pw" if m.group("pw") is not None else "pw2"
    password = m.group(group)
    if len(password) < 4 or password[0] in "$%{<" or password_placeholder(password):
        return None
    return m.span(group)


def call_rules() -> list[Rule]:
    """The rules of the module docstring (two :class:`~.rule.Rule`)."""
    return [
        Rule(
            "env_secret",
            LazyPattern(_CALL),
            ("auth", "login", "credential", "conn", "bind"),
            _call_span,
            before=frozenset("0123456789"),
        ),
        Rule("env_secret", LazyPattern(_CURL_OPT), ("userpwd", "curlopt_password"), _curl_span),
    ]
