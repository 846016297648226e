"""Passwords in more command lines (label ``cli_credentials``; fresh-user report 5,
finding 3). :mod:`.commands` has ``sshpass -p``, ``docker login -p``, ``redis-cli -a``…;
these kept theirs:

- Oracle's ``user/password@connect`` (sqlplus, sqlldr, expdp, impdp, rman, dgmgrl, SQLcl's
  ``sql``, and SQL*Plus's ``CONNECT``): ``sqlplus system/X@//ora:1521/ORCL``, ``sqlplus
  scott/X``, and any ``user/X@//host`` (the EZConnect form, docs.oracle.com "Using the Easy
  Connect Naming Method"). ``sqlplus / as sysdba`` has no password;
- Windows ``net use \\\\host\\share X /user:DOMAIN\\name`` and ``net use … /user:name X``
  (learn.microsoft.com, ``net use``): the password is the argument before or after the
  ``/user:`` option that is not an option itself; ``*`` (prompt) is none;
- a short password option after a user option on one command line, whatever the command:
  ``psexec \\\\host -u admin -p X``, ``plink -l root -pw X``, ``tool --user bob -p X``. A
  bare ``-p`` alone is a port (``ssh -p 2222``), a path (``mkdir -p``) or a mapping
  (``docker run -p 8080:80``), so it needs the user option (``-u``, ``-U``, ``-l``,
  ``--user``, ``--username``) before it, and a value holding a letter and a digit or symbol.

A value must read as a password (:func:`_password_ok`: 4+ characters, not a variable, not
a placeholder). Each pattern starts at its trigger and reads a bounded number of bounded
arguments (linear time). Part of :mod:`vault_sync.sanitize`.
"""

from __future__ import annotations

import re

from vault_sync.placeholders import password_placeholder
from vault_sync.sanitize.rule import ALNUM, LazyPattern, Rule, Span

#: A bare password argument (a quoted one: groups of its own).
_VALUE = r"(?:\"([^\"\r\n]{1,256})\"|'([^'\r\n]{1,256})'|([^\s\"'/@][^\s@]{0,255}?))"


def _password_ok(value: str) -> bool:
    """A password argument: 4+ characters, not a variable (``$PW``, ``%PW%``, ``&PW``), not
    a placeholder."""
    return len(value) >= 4 and value[0] not in "$%&<{*" and not password_placeholder(value)


def _last_group_span(text: str, m: re.Match[str]) -> Span | None:
    """The last group that matched, when it reads as a password."""
    index = m.lastindex or 0
    if not index or not _password_ok(m.group(index)):
        return None
    return m.span(index)


#: Oracle tools, then options, then ``user/password`` (``@connect`` optional).
_ORACLE = (
    r"(?i:sqlplus|sqlldr|expdp|impdp|rman|dgmgrl|sql|conn(?:ect)?)(?:[ \t]{1,4}-[\w]{1,16}){0,4}"
    r"[ \t]{1,8}(?:(?i:target|userid)=)?[\"']?[A-Za-z][\w$#.]{0,63}/" + _VALUE + r"(?=@|[\s\"']|\Z)"
)
#: The EZConnect form anywhere: ``user/password@//host``.
_EZCONNECT = r"[A-Za-z][\w$#.]{0,63}/([^\s/@\"']{1,256})@//"


def _oracle_span(text: str, m: re.Match[str]) -> Span | None:
    """``sqlplus user/X@…``: ``conn``/``connect``/``sql`` need the ``@`` (a bare ``conn
    input/output`` is prose)."""
    word = m.group()[:4].lower()
    if word.startswith(("conn", "sql ")) and not text.startswith("@", m.end()):
        return None
    return _last_group_span(text, m)


#: A ``net use`` password: not an option, a share (``\\\\host``), a drive (``Z:``) or ``*``.
_NET_VALUE = (
    r"(?:\"([^\"\r\n]{1,256})\"|'([^'\r\n]{1,256})'|(?![A-Za-z]:\s)([^\s\"'/\\*-][^\s]{0,255}))"
)
#: ``net use`` then arguments; the password before or after ``/user:NAME``.
_NET_USE = (
    r"(?i:net[ \t]{1,4}use)(?:[ \t]{1,4}(?![/-])[^\s]{1,256}){0,2}?"
    r"(?:[ \t]{1,4}" + _NET_VALUE + r"[ \t]{1,4}/(?i:user):[^\s]{1,128}"
    r"|[ \t]{1,4}/(?i:user):[^\s]{1,128}[ \t]{1,4}" + _NET_VALUE + r")"
)


#: A user option and its value, then at most four other arguments, then ``-p``/``-pw``.
_USER_THEN_P = (
    r"(?:-u|-U|-l|--user|--username)(?:[ \t]{1,4}|=)[^\s-][^\s]{0,127}"
    r"(?:[ \t]{1,4}[^\s]{1,128}){0,4}?[ \t]{1,4}-(?:p|pw)[ \t]{1,4}" + _VALUE + r"(?=\s|\Z)"
)
_SYMBOLS = frozenset("!#$%^&*+=?~@.,;:_-")


def _user_then_p_span(text: str, m: re.Match[str]) -> Span | None:
    """``-p X`` after a user option: X holds a letter and a digit or a symbol, and is no
    port mapping (``8080:80``) or number."""
    index = m.lastindex or 0
    value = m.group(index) if index else ""
    letter = any(c.isalpha() for c in value)
    other = any(c.isdigit() or c in _SYMBOLS for c in value)
    if not (letter and other) or value.startswith("-"):
        return None
    return _last_group_span(text, m)


def shell_rules() -> list[Rule]:
    """The rules of the module docstring, in order."""
    c = LazyPattern
    return [
        Rule(
            "cli_credentials",
            c(_ORACLE),
            ("sql", "expdp", "impdp", "rman", "dgmgrl", "conn"),
            _oracle_span,
            before=ALNUM | {"_", "-"},
        ),
        Rule(
            "cli_credentials",
            c(_EZCONNECT),
            ("@//",),
            lambda text, m: m.span(1) if _password_ok(m.group(1)) else None,
            back=_ezconnect_start,
        ),
        Rule("cli_credentials", c(_NET_USE), ("net use",), _last_group_span, before=ALNUM),
        Rule(
            "cli_credentials",
            c(_USER_THEN_P),
            ("-u ", "-u=", "-l ", "--user"),
            _user_then_p_span,
            before=ALNUM | {"-"},
        ),
    ]


#: A user and password glued before ``@//``, read backwards from it.
_BACK = re.compile(r"[^\s/@\"']{1,256}/[\w$#.]{1,64}")


def _ezconnect_start(text: str, at: int) -> int:
    """Where ``user/password@//`` starts, for the ``@//`` at ``at`` (scanned back a bounded
    way); ``at`` when no ``user/`` precedes it."""
    window = text[max(0, at - 330) : at][::-1]
    m = _BACK.match(window)
    if m is None:
        return at
    start = at - m.end()
    while start < at and not text[start].isalpha():
        start += 1
    return start
