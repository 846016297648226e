"""Secrets named by what they locate, not by a secret's word (label ``env_secret``): a
connection string, a DSN, a webhook's URL, a bare ``PRIVATE`` (a fresh user's
``CONNECTION_STRING=…``, ``DSN=…``, ``PRIVATE=…``, ``WEBHOOK_URL=…`` went through when the
value showed no URL credentials the URL rules read).

The names (:data:`_LOCATOR`, any case, at the end of a name: ``SENTRY_DSN``,
``AZURE_CONNECTION_STRING``, ``slackWebhookUrl``, ``WG_PRIVATE``) also name public things
(``DSN=mydatasource`` is an ODBC data source's name, ``"private": true`` a package's flag,
``DATABASE_URL=postgres://localhost/app``), so the value must hold a run a generator made
(:func:`~.names._generated_run`: 16+ base64-alphabet characters at 0.65 of the most entropy
its alphabet allows):

- an opaque value (no ``://``) holding one is redacted whole;
- a URL under a webhook's name (the URL is the credential: whoever has it can post) whose
  path or query holds one is redacted from its path on, the scheme and host kept
  (``https://hooks.example.com/[REDACTED:env_secret]``). A URL under another name is left
  to the URL rules (``user:password@``, a token as the user).

Each pattern starts at its name's word, every repeat bounded (linear time). Part of
:mod:`vault_sync.sanitize`.
"""

from __future__ import annotations

import re

from vault_sync.sanitize.names import (
    _PUBLIC_NAME,
    _VALUE,
    _bare_end,
    _generated_run,
    _name_before,
    _value_end,
)
from vault_sync.sanitize.rule import LazyPattern, Rule, Span

#: The names' words, then an assignment operator (``=``, ``:``, ``:=``, ``=>``) and a value.
_LOCATOR = (
    r"(?i:(connection[ _.-]?string|conn[_-]?str(?:ing)?|dsn|private"
    r"|(?:web)?hook(?:[_-]?ur[li])?))"
    r"[\"'\]]{0,2}[ \t]{0,8}(?::=|=>|=|:)[ \t]{0,8}" + _VALUE
)
_TRIGGERS = ("conn", "dsn", "private", "hook")
#: How much of a value is looked at for a generated run (a token starts an opaque value; a
#: webhook's path holds its token in its first segments): ``CONNECTION_STRING=`` again and
#: again cost 6 s a megabyte when each value was read to 512 characters.
_HEAD = 128
#: A URL's scheme and host (the part a webhook's value keeps).
_SCHEME_HOST = re.compile(r"[A-Za-z][\w+.-]{0,31}://[^/?#\s\"'`]{1,256}")


def _name_ends(text: str, at: int) -> bool:
    """The word at ``at`` begins where a name's part does: at the name's start, after a
    separator (``SENTRY_DSN``, ``db.connection-string``) or a case change
    (``slackWebhookUrl``); not inside a word (``isprivate``, ``fishhook``) and not after a
    public name part (``public_dsn``)."""
    prefix = _name_before(text, at)
    if not prefix:
        return True
    if _PUBLIC_NAME.search(prefix):
        return False
    last = prefix[-1]
    return last in "_.-" or (text[at].isupper() and (last.islower() or last.isdigit()))


def _web(text: str, at: int) -> int:
    """Where a match found at its trigger ``at`` starts: at ``web`` before ``hook``."""
    return at - 3 if text[max(0, at - 3) : at].lower() == "web" else at


def _locator_span(text: str, m: re.Match[str]) -> Span | None:
    """The value after a locator's name, when it holds a generated run (the module
    docstring): the whole of an opaque one, the path on of a webhook's URL."""
    if not _name_ends(text, m.start()):
        return None
    index = m.lastindex or 0
    value = m.group(index)
    quote = {3: '"', 4: "'"}.get(index, "")
    if index == 5 and m.end() < len(text) and text[m.end()] in "([":
        return None  # get_dsn(), os.environ["DSN"]: code, not a value
    start = m.start(index)
    if "://" in value:
        host = _SCHEME_HOST.match(value)
        if host is None or "hook" not in m.group(1).lower():
            return None
        cut = host.end() + (value[host.end() : host.end() + 1] == "/")
        start, value = start + cut, value[cut:]
    if not _generated_run(value[:_HEAD]):  # its head: a run of refused values stays cheap
        return None
    end = _value_end(text, m, index, quote)
    if not quote:
        end = _bare_end(text, m.start() - len(_name_before(text, m.start())), start, end)
    return (start, end) if end > start else None


def locator_rules() -> list[Rule]:
    """The rules of this module, in order."""
    return [
        Rule(
            "env_secret",
            LazyPattern(_LOCATOR),
            _TRIGGERS,
            _locator_span,
            back=_web,
        ),
    ]
