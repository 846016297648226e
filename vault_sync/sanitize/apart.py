"""A secret's name and its value written apart (label ``env_secret``; fresh-user report 4,
F1 and F3): the name is a string of its own, and the value comes later.

- a name/value pair: Kubernetes ``env:`` (``- name: DB_PASSWORD`` then ``value: v``), ECS
  and ``aws … describe`` JSON (``{"name": "X", "value": "v"}``, ``"Key"``/``"Value"``),
  CloudFormation (``ParameterKey=X,ParameterValue=v``), XML
  (``<Parameter Name="DbPassword" Value="v"/>``), ``aws ssm put-parameter --name /p/password
  --value v``;
- a call's next argument: WordPress ``define('DB_PASSWORD', 'v')``, a default in an env
  lookup (``os.environ.get("DB_PASSWORD", "v")``, ``getenv("X", "v")``, ``ENV.fetch("X",
  "v")``), an argument list (``["--password", "v"]``), ``SetEnvironmentVariable("X","v")``;
- a fallback after an env lookup: ``process.env.TOKEN || "v"``, ``ENV["API_KEY"] ?? "v"``,
  ``os.environ.get("X") or "v"``, and the shell's ``${DB_PASSWORD:-v}`` / ``${X:=v}``.

The name must be a secret's (:func:`secret_name`: it ends with one of the words of
:mod:`.names`, or ``PAT``, ``COOKIE``, ``JWT``, not a public one) and the value one
(:func:`~.syntax.value_ok`). Every repeat bounded: each attempt reads a few hundred
characters (linear time).
"""

from __future__ import annotations

import re

from vault_sync.sanitize.names import _PUBLIC_NAME, _name_before
from vault_sync.sanitize.rule import ALNUM, LazyPattern, Rule, Span, SpanFn
from vault_sync.sanitize.syntax import value_ok

#: A secret's word ending a name, and an optional plural ``s``.
_NAME_END = re.compile(
    r"(password|passwd|passphrase|passcode|pwd|pw|pass|secret|token|key|pat|psk|cookie|jwt"
    r"|credentials?)s?\Z",
    re.IGNORECASE,
)
#: Words that may be glued to the name part before them in lower case (``dbpassword``).
_GLUABLE = frozenset({"password", "passwd", "passphrase", "passcode", "secret", "token"})
_PASSWORD_WORDS = frozenset({"password", "passwd", "passphrase", "passcode", "pwd", "pw", "pass"})


def secret_name(name: str) -> tuple[bool, bool] | None:
    """Whether ``name`` (a whole name: ``DB_PASSWORD``, ``/prod/db/password``, ``ApiToken``)
    names a secret: ``(password, env_style)``, or ``None``. Its last ``/`` part must end with
    a secret's word after a separator, a case change (``DbPassword``) or, for the long words,
    any letter (``dbpassword``); a bare ``key`` and public names (``sort_key``) do not."""
    name = name.rpartition("/")[2]
    m = _NAME_END.search(name)
    if m is None:
        return None
    word, prefix = m.group(1), name[: m.start()]
    lower = word.lower()
    if prefix and _PUBLIC_NAME.search(prefix):
        return None
    if not prefix:
        if lower in ("key", "pat", "pw", "pass"):
            return None
    elif prefix[-1] not in "_.-" and lower not in _GLUABLE:
        camel = word[0].isupper() and (prefix[-1].islower() or prefix[-1].isdigit())
        if not camel:
            return None  # monkey, bypass, compat
    last = name.rpartition(".")[2]
    return lower in _PASSWORD_WORDS, last.upper() == last


def _pair_span(name: int, value: int) -> SpanFn:
    """A span function: the value in group ``value`` when the name in group ``name`` is a
    secret's and the value one."""

    def span(text: str, m: re.Match[str]) -> Span | None:
        index = max(i for i in range(value, (m.lastindex or 0) + 1) if m.group(i) is not None)
        judged = secret_name(m.group(name))
        if judged is None or not value_ok(m.group(index), *judged):
            return None
        return m.span(index)

    return span


def _keyword_span(text: str, m: re.Match[str]) -> Span | None:
    """A call's next argument or a fallback, after the keyword in group 1: the name is the
    one that ends there (its opening quote before it, for a call's argument)."""
    prefix = _name_before(text, m.start())
    index = m.lastindex or 0
    judged = secret_name(prefix + m.group(1))
    if judged is None or not value_ok(m.group(index), *judged):
        return None
    return m.span(index)


def _quoted_name(text: str, at: int) -> bool:
    """A quote opens the name the keyword at ``at`` ends (``'DB_PASSWORD'``, ``"--password"``)."""
    start = at - len(_name_before(text, at))
    return start > 0 and text[start - 1] in "\"'"


def _shell_name(text: str, at: int) -> bool:
    """``${`` opens the name the keyword at ``at`` ends."""
    start = at - len(_name_before(text, at))
    return text.startswith("${", start - 2)


_KEYWORD = r"(?i:(key|token|secret|pass(?:w(?:or)?d|phrase|code)?|pwd|pw|psk|pat|cookie|jwt))"
_KEYWORDS = ("key", "token", "secret", "pass", "pw", "psk", "pat", "cookie", "jwt")
_DQ_SQ_BARE = (
    r"(?:\"([^\"\r\n]{1,4096}+)\"|'([^'\r\n]{1,4096}+)'"
    r"|([^\s\"'`,;<>\[\]{}()][^\s`,;<>\[\]{}()]{0,4095}+))"
)
_NAME = r"[\"']?([\w./:-]{1,128}+)[\"']?"


def apart_rules() -> list[Rule]:
    """The rules of this module, in order."""
    c = LazyPattern
    return [
        # Kubernetes container env (kubernetes.io/docs/tasks/inject-data-application).
        Rule(
            "env_secret",
            c(
                # on one line too: a pasted block flattened into a typed query (full audit)
                r"(?i:name)[ \t]{0,8}:[ \t]{0,8}"
                + _NAME
                + r"(?:[ \t]{0,8}\r?\n[ \t]{0,32}|[ \t]{1,32})"
                r"(?:-[ \t]{1,8})?(?i:value)[ \t]{0,8}:[ \t]{0,8}" + _DQ_SQ_BARE
            ),
            ("name",),
            _pair_span(1, 2),
            before=ALNUM | {"_"},
        ),
        # JSON name/value objects: ECS task definitions, `aws … describe`, tags, parameters.
        Rule(
            "env_secret",
            c(
                r"\"(?i:name|key|parameterkey|parametername)\"[ \t]{0,8}:[ \t]{0,8}\""
                r"([\w./:-]{1,128}+)\"[ \t]{0,8},[ \t]{0,8}\"(?i:value|parametervalue)\""
                r"[ \t]{0,8}:[ \t]{0,8}\"([^\"\r\n]{1,4096}+)\""
            ),
            ('"name"', '"key"', '"parameterkey"', '"parametername"'),
            _pair_span(1, 2),
        ),
        # CloudFormation CLI parameters; `aws ssm put-parameter --name … --value …`; XML.
        Rule(
            "env_secret",
            c(r"(?i:parameterkey)=([\w./:-]{1,128}+),(?i:parametervalue)=([^\s,\"']{1,4096}+)"),
            ("parameterkey=",),
            _pair_span(1, 2),
        ),
        Rule(
            "env_secret",
            c(r"--name[ \t=]{1,8}" + _NAME + r"[ \t]{1,8}--value[ \t=]{1,8}" + _DQ_SQ_BARE),
            ("--name",),
            _pair_span(1, 2),
        ),
        Rule(
            "env_secret",
            c(r"(?i:name)=\"([\w.:-]{1,128}+)\"[ \t]{1,8}(?i:value)=\"([^\"\r\n]{1,4096}+)\""),
            ('name="',),
            _pair_span(1, 2),
            before=ALNUM | {"_", "-"},
        ),
        # A call's next argument, or an argument list's next item.
        Rule(
            "env_secret",
            c(
                _KEYWORD + r"[\"'][ \t]{0,8},[ \t]{0,8}"
                r"(?:\"([^\"\r\n]{1,4096}+)\"|'([^'\r\n]{1,4096}+)')"
            ),
            _KEYWORDS,
            _keyword_span,
            pre=_quoted_name,
        ),
        # A fallback after an env lookup (JS `||` / `??`, Python `or`).
        Rule(
            "env_secret",
            c(
                _KEYWORD + r"(?:[\"']?[\])])?[ \t]{0,8}(?:\|\||\?\?|or)[ \t]{1,8}"
                r"(?:\"([^\"\r\n]{1,4096}+)\"|'([^'\r\n]{1,4096}+)')"
            ),
            _KEYWORDS,
            _keyword_span,
        ),
        # The shell's default: ${DB_PASSWORD:-v}, ${X:=v} (POSIX parameter expansion).
        Rule(
            "env_secret",
            c(_KEYWORD + r":?[-=]([^\s}\"'$]{1,256}+)\}"),
            _KEYWORDS,
            _keyword_span,
            pre=_shell_name,
        ),
    ]
