"""Passwords given to a command as an argument of their own (label ``cli_credentials``).

``curl -u user:pass`` and ``mysql -pPASS`` are in :mod:`.names`; these are the commands whose
password is a separate word after an option or in a fixed position, which no name before it
marks (fresh-user report): ``sshpass -p PASS`` (sshpass(1)), ``docker login -u bob -p PASS``
(docker login, podman/buildah/skopeo/helm/oras/cf login alike), ``redis-cli -a PASS``
(redis-cli ``-a``), ``htpasswd -b FILE USER PASS`` / ``htpasswd -nb USER PASS`` (Apache
htpasswd ``-b``), ``net user NAME PASS /add`` (Windows ``net user``).

Each pattern starts with its command word (the trigger), reads a bounded number of bounded
arguments (at most :data:`_ARGS` of at most 256 characters: each attempt is linear) and
redacts the password argument, unless it is a placeholder (``$PASS``, ``<password>``,
``*`` — ``net user`` then prompts). A quoted password is read to its closing quote.
"""

from __future__ import annotations

import re

from vault_sync.placeholders import password_placeholder
from vault_sync.sanitize.rule import ALNUM, LazyPattern, Rule, Span
from vault_sync.sanitize.syntax import value_ok

#: A password argument: "double-quoted", 'single-quoted' or a bare word (groups 1-3).
_PASSWORD = r"(?:\"([^\"\r\n]{1,256}+)\"|'([^'\r\n]{1,256}+)'|([^\s\"'][^\s]{0,255}+))"
#: One other argument before the option (an option, a user name, a host).
_ARG = r"[ \t]{1,8}+[^\s]{1,256}+"
#: How many other arguments may stand between the command word and its password option.
_ARGS = 8
#: The arguments before the option, then the blanks before it.
_THEN = rf"(?:{_ARG}){{0,{_ARGS}}}?[ \t]{{1,8}}"
_BLANKS = r"[ \t]{1,8}"


def _password_span(text: str, m: re.Match[str]) -> Span | None:
    """The password argument (the last of groups 1-3 that matched), when it is one: 4+
    characters, not a variable (``$PASS``, ``%PASS%``), not a true placeholder."""
    index = m.lastindex or 0
    value = m.group(index) if index else None
    if value is None or len(value) < 4 or value[0] in "$%*<{":
        return None
    if password_placeholder(value) or value.startswith("/"):
        return None
    return m.span(index)


def _piped_span(text: str, m: re.Match[str]) -> Span | None:
    """An echoed password (:func:`_password_span`) that reads as one: a letter or symbol
    with a digit or symbol (``echo hello | sudo -S true`` is no password)."""
    index = m.lastindex or 0
    if not index or not value_ok(m.group(index), True, False):
        return None
    return _password_span(text, m)


#: A ``.pgpass`` line's host field (PostgreSQL docs, libpq-pgpass): a host name or ``*``.
_PGPASS_HOST = re.compile(r"[\w.*-]{1,253}")


_PORT_START = frozenset("0123456789*")


def _pgpass_host(text: str, at: int) -> bool:
    """The text from the line's start to ``at`` is a ``.pgpass`` host field (and a port
    follows: tested first, as ``:`` is common)."""
    if text[at + 1 : at + 2] not in _PORT_START or (at > 0 and text[at - 1] in " \t"):
        return False
    start = text.rfind("\n", max(0, at - 254), at) + 1
    return _PGPASS_HOST.fullmatch(text, start, at) is not None


def _pgpass_span(text: str, m: re.Match[str]) -> Span | None:
    """``host:port:database:user:password``: the password, when it reads as one."""
    return m.span(1) if value_ok(m.group(1), True, False) else None


def _sudo_before(text: str, at: int) -> bool:
    """``sudo … -S`` (sudo(8): the password from standard input) stands before the
    here-string at ``at``, on its line: two substring searches of at most 256 characters."""
    start = max(text.rfind("\n", max(0, at - 256), at) + 1, at - 256)
    sudo = text.rfind("sudo ", start, at)
    if sudo < 0 or (sudo > 0 and text[sudo - 1] not in " \t;&|(`$"):
        return False
    return text.find(" -S", sudo, at) >= 0


def _htpasswd_span(text: str, m: re.Match[str]) -> Span | None:
    """``htpasswd -b[…] FILE USER PASS`` or ``htpasswd -nb USER PASS`` (``-n``: no file, so
    the password is one argument earlier): only with ``-b``, the password on the line."""
    flags = m.group(1)
    if "b" not in flags:
        return None
    start, end = m.span(3 if "n" in flags else 4)
    if start < 0:
        return None
    value = text[start:end]
    if len(value) < 4 or value[0] in "$%<{" or password_placeholder(value.strip("\"'")):
        return None
    return start, end


def _word_start(text: str, at: int) -> bool:
    """The command word at ``at`` begins a word (``sshpass``, not ``mysshpass``)."""
    return at == 0 or (text[at - 1] not in ALNUM and text[at - 1] not in "_-")


def command_rules() -> list[Rule]:
    """The ``cli_credentials`` rules of commands taking a password argument, in order."""
    c = LazyPattern
    return [
        Rule(
            "cli_credentials",
            c(rf"sshpass{_THEN}-p[ \t]{{0,8}}{_PASSWORD}"),
            ("sshpass",),
            _password_span,
            pre=_word_start,
        ),
        Rule(
            "cli_credentials",
            c(rf"login{_THEN}(?:-p|--password)(?:{_BLANKS}|=){_PASSWORD}"),
            ("login",),
            _password_span,
            pre=_word_start,
        ),
        Rule(
            "cli_credentials",
            c(rf"redis-cli{_THEN}(?:-a|--pass){_BLANKS}{_PASSWORD}"),
            ("redis-cli",),
            _password_span,
            pre=_word_start,
        ),
        Rule(
            "cli_credentials",
            c(
                r"htpasswd[ \t]{1,8}-([A-Za-z]{1,8}+)"
                r"[ \t]{1,8}(\S{1,256}+)[ \t]{1,8}(\S{1,256}+)"
                r"(?:[ \t]{1,8}(\S{1,256}+))?"
            ),
            ("htpasswd",),
            _htpasswd_span,
            pre=_word_start,
        ),
        # Database and directory clients (fresh-user report 4, F6): mysql's own `-p` glued
        # to a quoted or short password (mysql(1) --password), mongosh/mongo `-p`/`--password`,
        # sqlcmd/bcp `-P`, OpenLDAP `-w`, ssh-keygen `-N`/`-P` passphrases, zip/unzip `-P`.
        Rule(
            "cli_credentials",
            c(rf"(?:mysql|mariadb)[\w-]{{0,12}}+{_THEN}-p{_PASSWORD}"),
            ("mysql", "mariadb"),
            _password_span,
            pre=_word_start,
        ),
        Rule(
            "cli_credentials",
            c(
                rf"mongo(?:sh|dump|restore|export|import|stat|top)?{_THEN}"
                rf"(?:-p|--password)(?:{_BLANKS}|=){_PASSWORD}"
            ),
            ("mongo",),
            _password_span,
            pre=_word_start,
        ),
        Rule(
            "cli_credentials",
            c(rf"(?:sqlcmd|bcp|osql|isql){_THEN}-P{_BLANKS}{_PASSWORD}"),
            ("sqlcmd", "bcp", "osql", "isql"),
            _password_span,
            pre=_word_start,
        ),
        Rule(
            "cli_credentials",
            c(rf"ldap[a-z]{{2,12}}+{_THEN}-w{_BLANKS}{_PASSWORD}"),
            ("ldap",),
            _password_span,
            pre=_word_start,
        ),
        Rule(
            "cli_credentials",
            c(rf"(?:ssh-keygen{_THEN}-[NP]|(?:un)?zip{_THEN}-P){_BLANKS}{_PASSWORD}"),
            ("ssh-keygen", "zip", "unzip"),
            _password_span,
            pre=_word_start,
        ),
        # More commands taking a password (fresh-user report 4, F6): sudo's here-string
        # (`sudo -S … <<< PASS`), smbclient `-U user%PASS`, openssl `-k PASS`, useradd and
        # usermod `-p PASS`, rabbitmqctl `change_password`/`add_user USER PASS`, `gh secret
        # set NAME -b PASS` (`--body`).
        Rule(
            "cli_credentials",
            c(rf"<<<[ \t]{{0,8}}{_PASSWORD}"),
            ("<<<",),
            _piped_span,
            pre=_sudo_before,
        ),
        Rule(
            "cli_credentials",
            c(rf"smbclient{_THEN}(?:-U|--user)(?:{_BLANKS}|=)[^\s%\"']{{1,128}}+%{_PASSWORD}"),
            ("smbclient",),
            _password_span,
            pre=_word_start,
        ),
        Rule(
            "cli_credentials",
            c(rf"(?:openssl{_THEN}-k|user(?:add|mod){_THEN}-p){_BLANKS}{_PASSWORD}"),
            ("openssl", "useradd", "usermod"),
            _password_span,
            pre=_word_start,
        ),
        Rule(
            "cli_credentials",
            c(
                rf"rabbitmqctl{_BLANKS}(?:change_password|add_user){_BLANKS}[^\s\"']{{1,256}}+"
                rf"{_BLANKS}{_PASSWORD}"
            ),
            ("rabbitmqctl",),
            _password_span,
            pre=_word_start,
        ),
        Rule(
            "cli_credentials",
            c(rf"gh{_BLANKS}secret{_BLANKS}set{_THEN}(?:-b|--body)(?:[ \t]{{0,8}}|=){_PASSWORD}"),
            ("gh secret",),
            _password_span,
            pre=_word_start,
        ),
        # A libpq password file line (postgresql.org/docs/current/libpq-pgpass.html).
        Rule(
            "cli_credentials",
            c(r":(?:[0-9]{1,5}|\*):[^\s:]{1,63}+:[^\s:]{1,63}+:([^\s:]{4,256}+)[ \t]*(?=\r?\n|\Z)"),
            (":",),
            _pgpass_span,
            pre=_pgpass_host,
        ),
        # A password piped into a command that reads it from standard input: `docker login
        # --password-stdin`, `sudo -S`, `chpasswd` (`user:password` lines).
        Rule(
            "cli_credentials",
            c(
                rf"echo(?:{_BLANKS}-[neE]{{1,3}})?{_BLANKS}{_PASSWORD}[ \t]{{0,8}}\|[ \t]{{0,8}}"
                r"(?:[^|\r\n]{0,256}?--password-stdin|sudo(?:[ \t]{1,8}-[\w-]{1,16}){0,4}?"
                r"[ \t]{1,8}-S|chpasswd)"
            ),
            ("echo",),
            _piped_span,
            pre=_word_start,
        ),
        Rule(
            "cli_credentials",
            c(rf"(?i:net){_BLANKS}(?i:user){_BLANKS}[^\s/]\S{{0,255}}+{_BLANKS}{_PASSWORD}"),
            ("net user",),
            _password_span,
            pre=_word_start,
        ),
    ]
