"""A secret's value in a table under its name, or after its name and blanks alone on a line
(label ``env_secret``; a fresh user's went through):

- a TOML inline table or an HCL block opened after a secret's name, its value under a
  ``value`` or ``default`` key: ``password = { value = "v" }``, ``db_password: {value:
  v}``, Terraform's ``variable "db_password" {`` … ``default = "v"`` (up to
  :data:`_BLOCK_READ` characters into the block, other keys before it);
- a line that is a name and a value apart by blanks, as config dumps, ``.netrc``-like files
  and ``key<TAB>value`` exports write them: ``password<TAB>v``, ``db_password   v``,
  ``requirepass v`` (redis.conf). The line holds nothing else (the name begins it, after
  blanks; one value ends it), so prose (``the password was reset``, ``Password reset
  instructions``) never matches; a value after blanks must read as a password with a digit
  and a letter (``Password changed!`` is a sentence), after a tab as a password
  (:func:`~.syntax.value_ok`). A ``.netrc`` entry (``machine`` within the lines before) is
  left to its own rule.

The name is judged as :mod:`.apart` judges one (:func:`~.apart.secret_name`: it ends with a
secret's word, not a public one). Each pattern starts at that word (the trigger), every
repeat bounded (linear time). Part of :mod:`vault_sync.sanitize`.
"""

from __future__ import annotations

import re

from vault_sync.sanitize.apart import secret_name
from vault_sync.sanitize.names import _assignment_name, _name_before
from vault_sync.sanitize.rule import LazyPattern, Rule, Span
from vault_sync.sanitize.syntax import value_ok

#: The name's word (not ``pat``, ``jwt``, ``psk``: each occurrence of a word costs an attempt,
#: and ``pat`` is in ``path``, ``pattern``, ``compatible``).
_KEYWORD = r"(?i:(key|token|secret|pass(?:w(?:or)?d|phrase|code)?|pwd|pw))s?"
_KEYWORDS = ("key", "token", "secret", "pass", "pw")
#: Password words a name may glue to the word before them (``requirepass``, ``DBPASS``).
_GLUED = frozenset({"pass", "passwd", "pwd"})
#: How far into a block its ``value`` / ``default`` key may stand (other keys before it).
_BLOCK_READ = 256
_VALUE = (
    r"(?:\"([^\"\r\n]{1,4096}+)\"|'([^'\r\n]{1,4096}+)'"
    r"|([^\s\"'`,;{}\[\]()#][^\s\"'`,;{}\[\]()]{0,4095}+))"
)
#: After the name's word: a block (groups 2-4: its value) or blanks (group 5: a tab among
#: them, or blanks only), one value (groups 6-8; ASCII: a non-ASCII letter ends it, as it
#: ends a token) and the line's end. One pattern, so each of the (common) words costs one
#: attempt.
_SHAPES = (
    _KEYWORD + r"(?:[\"']?[ \t]{0,8}(?:[=:][ \t]{0,8})?\{"
    rf"(?:[^{{}}\"']|\"[^\"\r\n]{{0,128}}+\"|'[^'\r\n]{{0,128}}+'){{0,{_BLOCK_READ}}}?"
    r"(?<![\w-])(?i:value|default)[\"']?[ \t]{0,8}[=:][ \t]{0,8}"
    + _VALUE
    + r"|([ \t]{0,31}\t[ \t]{0,31}|[ \t]{1,32})"
    r"(?:\"([^\"\r\n]{1,4096}+)\"|'([^'\r\n]{1,4096}+)'"
    r"|([!$-&*+\--:=?-Z^-z|~][!$-&*+\--:=?-Z^-z|~\\]{0,4095}+))"
    r"[ \t]{0,8}(?=\r?\n|\Z|[^\x00-\x7f]))"
)
#: How far back a ``.netrc`` entry's ``machine`` is looked for.
_NETRC_BACK = 256


def _judged(text: str, m: re.Match[str], index: int, strict: bool) -> bool:
    """Whether the name ending at ``m.end(1)`` is a secret's and the value in group
    ``index`` one (``strict``: after blanks only, a digit and a letter too)."""
    prefix = _name_before(text, m.start())
    judged = secret_name(prefix + m.group(1))
    if judged is None and m.group(1).lower() in _GLUED and _assignment_name(text, m.start()):
        judged = (True, False)  # requirepass, SMTPPASS: glued, as the name rules read them
    value = m.group(index)
    if judged is None or not value_ok(value, *judged):
        return False
    return not strict or (any(c.isdigit() for c in value) and any(c.isalpha() for c in value))


def _line_start(text: str, at: int) -> bool:
    """The name the word at ``at`` ends begins its line (blanks or a list item's marker
    before it; or a non-ASCII letter: ``メモ：password…``), and no ``.netrc`` ``machine``
    stands in the lines before."""
    i = at - len(_name_before(text, at))
    while i > 0 and text[i - 1] in " \t":
        i -= 1
    if i and text[i - 1] in "-*+" and (i == 1 or text[i - 2] in " \t\n"):  # a list marker
        i -= 1
        while i > 0 and text[i - 1] in " \t":
            i -= 1
    if i and text[i - 1] != "\n" and text[i - 1].isascii():
        return False
    return text.find("machine", max(0, i - _NETRC_BACK), i) < 0


def _shape_span(text: str, m: re.Match[str]) -> Span | None:
    """The value in a block after a secret's name, or after the name and blanks alone on
    a line (the name beginning it: :func:`_line_start`), when it reads as one."""
    index = m.lastindex or 0
    blanks = m.group(5)
    if blanks is not None and not _line_start(text, m.start()):
        return None
    strict = blanks is not None and "\t" not in blanks
    return m.span(index) if _judged(text, m, index, strict) else None


def spaced_rules() -> list[Rule]:
    """The rules of this module, in order."""
    return [Rule("env_secret", LazyPattern(_SHAPES), _KEYWORDS, _shape_span)]
